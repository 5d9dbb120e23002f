/* The antenna element pattern of TR 38.901 Table 7.3-1 (cdl_element.h) and
 * the lookups over the generated CDL tables (cdl_tables.h). */
#include <ctype.h>
#include <math.h>
#include <stddef.h>

#include "channel/cdl_element.h"
#include "channel/cdl_tables.h"

/* Table 7.3-1: half-power beamwidth 65 degrees in both planes, 30 dB
 * side-lobe/front-to-back limit, 8 dBi directional gain. */
#define HPBW_DEG 65.0
#define ATT_MAX_DB 30.0
#define GAIN_MAX_DBI 8.0

double cdl_element_gain_db(cdl_element e, double theta_deg, double phi_deg) {
  if (e == CDL_ELEMENT_ISOTROPIC) return 0.0;
  double phi = fmod(phi_deg + 180.0, 360.0);
  if (phi < 0) phi += 360.0;
  phi -= 180.0;
  double tv = (theta_deg - 90.0) / HPBW_DEG, th = phi / HPBW_DEG;
  double a_v = -fmin(12.0 * tv * tv, ATT_MAX_DB);
  double a_h = -fmin(12.0 * th * th, ATT_MAX_DB);
  return GAIN_MAX_DBI - fmin(-(a_v + a_h), ATT_MAX_DB);
}

/* Table 7.5-3: ray offset angles for unit rms angle spread. */
const double cdl_ray_offset[20] = {0.0447,  -0.0447, 0.1413,  -0.1413, 0.2492,  -0.2492, 0.3715,
                                   -0.3715, 0.5129,  -0.5129, 0.6797,  -0.6797, 0.8844,  -0.8844,
                                   1.1481,  -1.1481, 1.5195,  -1.5195, 2.1551,  -2.1551};

const cdl_table *cdl_table_find(char name) {
  int c = toupper((unsigned char)name);
  for (int i = 0; i < CDL_MODELS; i++)
    if (cdl_tables[i].name == c) return &cdl_tables[i];
  return NULL;
}
