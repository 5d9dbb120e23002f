/* A CDL model's clusters and rays at a configured delay spread (TR 38.901
 * 7.7.1 step 1): delays scaled to ns, powers to linear with unit total, and
 * each cluster's 20 rays at the table's angles plus the per-cluster spread
 * times the Table 7.5-3 offsets (the LOS path of CDL-D/E is one ray). */
#ifndef OFDMSIM_CDL_RAYS_H
#define OFDMSIM_CDL_RAYS_H

#include "channel/cdl_tables.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CDL_RAYS 20

typedef struct cdl_cluster {
  double delay_ns;
  double power;  /* linear; all clusters of a model sum to 1 */
  int rays;      /* CDL_RAYS, or 1 for the LOS path */
  double aod[CDL_RAYS], aoa[CDL_RAYS], zod[CDL_RAYS], zoa[CDL_RAYS]; /* degrees */
} cdl_cluster;

/* Fills out[0 .. t->clusters - 1]; returns the cluster count. */
int cdl_clusters(const cdl_table *t, double delay_spread_ns, cdl_cluster *out);

#ifdef __cplusplus
}
#endif
#endif
