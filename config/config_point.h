/* One combination of config values resolved into a sim_point and checked as
 * a whole. Private to config/. */
#ifndef OFDMSIM_CONFIG_POINT_H
#define OFDMSIM_CONFIG_POINT_H

#include <libconfig.h>
#include <stddef.h>

#include "config/config.h"
#include "config/config_state.h"

typedef struct point_view {
  const config_state *st;
  const config_setting_t *const *set; /* the settings of this point, by key; NULL: the default */
} point_view;

/* The setting of key k at this point: its own, else the schema default (NULL
 * for a computed one). */
const config_setting_t *point_value(const point_view *v, int k);

/* Fills pt from the view, all but snr_db, n0, the index and the stream key, and checks what
 * only a combination can get wrong (keys that need another key's value, zf
 * and awgn antennas, the profile, the frame count). `label` names the sweep
 * point in pt and in errors. 0, or 2 with the error, located at the first
 * key involved that the point sets, in err. */
int point_resolve(const point_view *v, const char *label, const char *file, sim_point *pt, char *err,
                  size_t errlen);

/* link_params_check on a finished point, its error located as above; then,
 * for a channel estimated from pilots, the estimator's error variance
 * (est_resolve, channel/estimate.h), which needs the point's N0. */
int point_check(const point_view *v, sim_point *pt, const char *file, char *err, size_t errlen);

#endif
