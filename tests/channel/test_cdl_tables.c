/* The generated CDL tables (TR 38.901 Tables 7.7.1-1..5) against properties
 * the standard states for them, the ray offsets of Table 7.5-3 and the
 * element pattern of Table 7.3-1 at angles worked out by hand. */
#include <math.h>

#include "channel/cdl_element.h"
#include "channel/cdl_tables.h"
#include "testutil.h"

/* The rms delay spread of a table's normalised delays: 1 by construction of
 * the tables (7.7.1: "normalized delay spread"), to the tables' rounding. */
static double rms_delay_spread(const cdl_table *t) {
  double p = 0, m1 = 0, m2 = 0;
  for (int n = 0; n < t->clusters; n++) {
    double w = pow(10.0, t->power_db[n] / 10.0);
    p += w;
    m1 += w * t->delay[n];
    m2 += w * t->delay[n] * t->delay[n];
  }
  m1 /= p;
  return sqrt(m2 / p - m1 * m1);
}

static void check_tables(void) {
  static const int rows[CDL_MODELS] = {23, 23, 24, 14, 15};
  for (int i = 0; i < CDL_MODELS; i++) {
    const cdl_table *t = &cdl_tables[i];
    CHECK(t->name == "ABCDE"[i], "table %d is CDL-%c", i, t->name);
    CHECK(t->clusters == rows[i], "CDL-%c has %d rows, expected %d", t->name, t->clusters, rows[i]);
    CHECK(t->los == (i >= 3), "CDL-%c los flag %d", t->name, t->los);
    double ds = rms_delay_spread(t);
    CHECK(fabs(ds - 1.0) < 0.01, "CDL-%c normalised rms delay spread %.4f", t->name, ds);
    double peak = -1e9;
    for (int n = 0; n < t->clusters; n++) peak = fmax(peak, t->power_db[n]);
    CHECK(peak <= 0.0 && peak > -0.5, "CDL-%c strongest cluster %.2f dB", t->name, peak);
  }
  CHECK(cdl_table_find('c') == &cdl_tables[2], "lower-case lookup");
  CHECK(cdl_table_find('F') == NULL, "no CDL-F");
}

/* Tables 7.7.1-4/5 state the K-factor of CDL-D (13.3 dB) and CDL-E (22 dB)
 * as in TDL-D/E: the LOS path over the Laplacian cluster at its delay (row 1),
 * which shares delay 0 with it. */
static void check_k_factors(void) {
  static const double k_db[2] = {13.3, 22.0};
  for (int i = 3; i < 5; i++) {
    const cdl_table *t = &cdl_tables[i];
    CHECK(t->delay[0] == 0.0 && t->delay[1] == 0.0, "CDL-%c LOS row and row 1 at delay 0", t->name);
    double k = t->power_db[0] - t->power_db[1];
    CHECK(fabs(k - k_db[i - 3]) < 0.1, "CDL-%c K %.2f dB, table says %.1f", t->name, k, k_db[i - 3]);
  }
}

/* Table 7.5-3's offsets are symmetric and have unit rms (to their rounding). */
static void check_ray_offsets(void) {
  double s = 0, s2 = 0;
  for (int m = 0; m < 20; m++) {
    s += cdl_ray_offset[m];
    s2 += cdl_ray_offset[m] * cdl_ray_offset[m];
  }
  CHECK(fabs(s) < 1e-12, "offsets sum to %g", s);
  CHECK(fabs(sqrt(s2 / 20) - 1.0) < 0.01, "offsets rms %.4f", sqrt(s2 / 20));
}

static void check_element(void) {
  struct {
    double theta, phi, gain;
  } at[] = {
      {90, 0, 8.0},                                  /* boresight: G_max */
      {90, 32.5, 5.0}, {90, -32.5, 5.0},             /* half of the HPBW: -3 dB */
      {57.5, 0, 5.0}, {122.5, 0, 5.0},               /* the same in elevation */
      {90, 180, -22.0}, {90, -180, -22.0},           /* front-to-back 30 dB */
      {155, 65, -16.0},                              /* A_V = A_H = -12 */
      {0, 0, 8.0 - 12.0 * (90.0 / 65) * (90.0 / 65)}, /* zenith: A_V alone */
      {160, 100, -22.0},                             /* the sum capped at 30 dB */
      {90, 390, 8.0 - 12.0 * (30.0 / 65) * (30.0 / 65)}, /* azimuth wraps */
  };
  for (unsigned i = 0; i < sizeof at / sizeof at[0]; i++) {
    double g = cdl_element_gain_db(CDL_ELEMENT_38901, at[i].theta, at[i].phi);
    CHECK(fabs(g - at[i].gain) < 1e-9, "38.901 element at (%g, %g): %.6f dBi, expected %.6f", at[i].theta,
          at[i].phi, g, at[i].gain);
    CHECK(cdl_element_gain_db(CDL_ELEMENT_ISOTROPIC, at[i].theta, at[i].phi) == 0.0, "isotropic");
  }
}

int main(void) {
  check_tables();
  check_k_factors();
  check_ray_offsets();
  check_element();
  return test_finish("test_cdl_tables");
}
