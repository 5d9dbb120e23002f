/* The clusters and ray angles of a CDL model (cdl_rays.h). */
#include <math.h>

#include "channel/cdl_rays.h"

int cdl_clusters(const cdl_table *t, double delay_spread_ns, cdl_cluster *out) {
  double total = 0;
  for (int n = 0; n < t->clusters; n++) total += pow(10.0, t->power_db[n] / 10.0);
  for (int n = 0; n < t->clusters; n++) {
    cdl_cluster *c = &out[n];
    c->delay_ns = t->delay[n] * delay_spread_ns;
    c->power = pow(10.0, t->power_db[n] / 10.0) / total;
    /* The LOS row of CDL-D/E is a single specular ray at the table's angles. */
    c->rays = (t->los && n == 0) ? 1 : CDL_RAYS;
    for (int m = 0; m < c->rays; m++) {
      double o = c->rays == 1 ? 0.0 : cdl_ray_offset[m];
      c->aod[m] = t->aod[n] + t->c_asd * o;
      c->aoa[m] = t->aoa[n] + t->c_asa * o;
      c->zod[m] = t->zod[n] + t->c_zsd * o;
      c->zoa[m] = t->zoa[n] + t->c_zsa * o;
    }
  }
  return t->clusters;
}
