/* Power-delay profiles: the exponential one, TR 38.901 TDL-A..E and custom taps, resolved on the sample grid (tdl.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "channel/cdl_channel.h"
#include "channel/tdl.h"
#include "core/names.h"

/* 3GPP TR 38.901 (V14.3.0 and later, unchanged through V17), Section 7.7.2:
 * Table 7.7.2-1 (TDL-A), 7.7.2-2 (TDL-B), 7.7.2-3 (TDL-C), 7.7.2-4 (TDL-D),
 * 7.7.2-5 (TDL-E). Normalised delays
 * (RMS delay spread 1) and powers in dB, in the tables' tap order. The
 * numbers were cross-checked against the TDL model files of NVIDIA Sionna
 * (sionna/channel/tr38901/models/TDL-{A,B,C}.json) and other published
 * implementations citing the same tables (D and E have RMS delay spread
 * 0.994 and 1.000 with their LOS path counted). */
#define NO_LOS (-INFINITY)

typedef struct tdl_table {
  int taps;
  double los_db; /* the specular path's power at delay 0, dB; NO_LOS: none */
  double delay[24];
  double power_db[24];
} tdl_table;

/* clang-format off */
static const tdl_table TDL_A = {
    23, NO_LOS,
    {0.0000, 0.3819, 0.4025, 0.5868, 0.4610, 0.5375, 0.6708, 0.5750, 0.7618, 1.5375, 1.8978, 2.2242,
     2.1718, 2.4942, 2.5119, 3.0582, 4.0810, 4.4579, 4.5695, 4.7966, 5.0066, 5.3043, 9.6586},
    {-13.4, 0.0, -2.2, -4.0, -6.0, -8.2, -9.9, -10.5, -7.5, -15.9, -6.6, -16.7,
     -12.4, -15.2, -10.8, -11.3, -12.7, -16.2, -18.3, -18.9, -16.6, -19.9, -29.7}};

static const tdl_table TDL_B = {
    23, NO_LOS,
    {0.0000, 0.1072, 0.2155, 0.2095, 0.2870, 0.2986, 0.3752, 0.5055, 0.3681, 0.3697, 0.5700, 0.5283,
     1.1021, 1.2756, 1.5474, 1.7842, 2.0169, 2.8294, 3.0219, 3.6187, 4.1067, 4.2790, 4.7834},
    {0.0, -2.2, -4.0, -3.2, -9.8, -1.2, -3.4, -5.2, -7.6, -3.0, -8.9, -9.0,
     -4.8, -5.7, -7.5, -1.9, -7.6, -12.2, -9.8, -11.4, -14.9, -9.2, -11.3}};

static const tdl_table TDL_C = {
    24, NO_LOS,
    {0.0000, 0.2099, 0.2219, 0.2329, 0.2176, 0.6366, 0.6448, 0.6560,
     0.6584, 0.7935, 0.8213, 0.9336, 1.2285, 1.3083, 2.1704, 2.7105,
     4.2589, 4.6003, 5.4902, 5.6077, 6.3065, 6.6374, 7.0427, 8.6523},
    {-4.4, -1.2, -3.5, -5.2, -2.5, 0.0, -2.2, -3.9, -7.4, -7.1, -10.7, -11.1,
     -5.1, -6.8, -8.7, -13.2, -13.9, -13.9, -15.8, -17.1, -16.0, -15.7, -21.6, -22.8}};

/* Table 7.7.2-4 (TDL-D, K1 = 13.3 dB) and 7.7.2-5 (TDL-E, K1 = 22 dB): the
 * first line of each is the specular LOS path at delay 0 (los_db), the
 * Rayleigh taps follow, the first of them also at delay 0. */
static const tdl_table TDL_D = {
    13, -0.2,
    {0.0, 0.035, 0.612, 1.363, 1.405, 1.804, 2.596, 1.775, 4.042, 7.937, 9.424, 9.708, 12.525},
    {-13.5, -18.8, -21.0, -22.8, -17.9, -20.1, -21.9, -22.9, -27.8, -23.6, -24.8, -30.0, -27.7}};

static const tdl_table TDL_E = {
    14, -0.03,
    {0.0, 0.5133, 0.5440, 0.5630, 0.5440, 0.7112, 1.9092, 1.9293, 1.9589, 2.6426, 3.7136, 5.4524,
     12.0034, 20.6519},
    {-22.03, -15.8, -18.1, -19.8, -22.9, -22.4, -18.6, -20.8, -22.6, -22.3, -25.6, -20.2, -29.8,
     -29.2}};
/* clang-format on */

/* The exponential profile stops where a sample falls 30 dB below the first. */
#define EXP_FLOOR_DB 30.0

/* Adds `p` at `delay`, merging with a tap already there (at most 24 table
 * taps or TDL_MAX_TAPS custom ones). */
static void add_tap(tdl_pdp *pdp, double *power, double delay, double p) {
  for (int l = 0; l < pdp->taps; l++) {
    if (pdp->delay[l] == delay) {
      power[l] += p;
      return;
    }
  }
  pdp->delay[pdp->taps] = delay;
  power[pdp->taps++] = p;
}

/* Samples of the exponential profile, and the bin width that keeps them
 * within TDL_MAX_TAPS taps. */
static void exp_extent(double ds, int *samples, int *width) {
  *samples = ds == 0.0 ? 1 : (int)floor(ds * EXP_FLOOR_DB * log(10.0) / 10.0) + 1;
  *width = (*samples + TDL_MAX_TAPS - 1) / TDL_MAX_TAPS;
}

/* The exponential profile is defined on the sample grid: its delays are
 * whole samples in either delay mode. */
static void exp_taps(double ds, tdl_pdp *pdp, double *power) {
  int samples, width;
  exp_extent(ds, &samples, &width);
  pdp->taps = (samples + width - 1) / width;
  for (int j = 0; j < pdp->taps; j++) {
    pdp->delay[j] = (double)j * width;
    power[j] = 0.0;
  }
  for (int l = 0; l < samples; l++) power[l / width] += ds == 0.0 ? 1.0 : exp(-l / ds);
}

static void table_taps(const tdl_table *t, double ds, delay_grid grid, tdl_pdp *pdp, double *power) {
  for (int i = 0; i < t->taps; i++) {
    const double d = t->delay[i] * ds;
    add_tap(pdp, power, grid == DELAYS_SAMPLE ? (double)lround(d) : d, pow(10.0, t->power_db[i] / 10.0));
  }
}

static const tdl_table *table_of(pdp_kind kind) {
  switch (kind) {
    case PDP_TDL_A: return &TDL_A;
    case PDP_TDL_B: return &TDL_B;
    case PDP_TDL_C: return &TDL_C;
    case PDP_TDL_D: return &TDL_D;
    case PDP_TDL_E: return &TDL_E;
    default: return NULL;
  }
}

int tdl_pdp_has_los(pdp_kind kind) {
  if (kind == PDP_CDL_D || kind == PDP_CDL_E) return 1;
  const tdl_table *t = table_of(kind);
  return t && t->los_db != NO_LOS;
}

/* What every profile shares once its taps are in place: sorted by delay,
 * the last within max_delay, and the powers normalised with the line of
 * sight on tap 0 (`what` names the profile in the error). spec: the table's
 * own LOS power (linear, relative to the taps) where k_factor is NAN. */
static int finish(tdl_pdp *pdp_in, double *power, double spec, double k_factor, double max_delay, const char *what,
                  tdl_pdp *out, char *err, size_t errlen) {
  tdl_pdp pdp = *pdp_in;
  /* Sort by delay (insertion sort: at most TDL_MAX_TAPS taps). */
  for (int a = 1; a < pdp.taps; a++) {
    const double d = pdp.delay[a];
    const double pw = power[a];
    int b = a;
    for (; b > 0 && pdp.delay[b - 1] > d; b--) {
      pdp.delay[b] = pdp.delay[b - 1];
      power[b] = power[b - 1];
    }
    pdp.delay[b] = d;
    power[b] = pw;
  }
  const double last = pdp.delay[pdp.taps - 1];
  if (last > max_delay) {
    snprintf(err, errlen, "%s reaches %.4g samples, more than the %g allowed", what, last, max_delay);
    return -1;
  }
  double nlos = 0.0;
  for (int l = 0; l < pdp.taps; l++) nlos += power[l];
  /* The LOS share: the table's own (tdl-d/e, K NAN), else K = LOS power over
   * the NLOS power of the whole channel. */
  double los, scale;
  if (isnan(k_factor)) {
    los = spec / (spec + nlos);
    scale = 1.0 / (spec + nlos);
  } else {
    los = k_factor / (k_factor + 1.0);
    scale = 1.0 / ((k_factor + 1.0) * nlos);
  }
  for (int l = 0; l < pdp.taps; l++) pdp.power[l] = (float)(power[l] * scale);
  pdp.los_power = (float)los;
  *out = pdp;
  return 0;
}

int tdl_pdp_make(pdp_kind kind, double delay_spread, double k_factor, delay_grid grid, double max_delay,
                 tdl_pdp *out, char *err, size_t errlen) {
  if (!out) {
    snprintf(err, errlen, "tdl_pdp_make: NULL output");
    return -1;
  }
  /* a CDL model's clusters, at their own delays (its rays: cdl_channel.h) */
  if (pdp_is_cdl(kind)) return cdl_pdp_make(kind, delay_spread, k_factor, max_delay, out, err, errlen);
  if (kind != PDP_EXP && !table_of(kind)) {
    snprintf(err, errlen, "unknown power-delay profile %d", (int)kind);
    return -1;
  }
  if (grid != DELAYS_CONTINUOUS && grid != DELAYS_SAMPLE) {
    snprintf(err, errlen, "unknown delay grid %d", (int)grid);
    return -1;
  }
  /* The cap keeps every delay (and the exp profile's sample count) an int. */
  if (!(delay_spread >= 0.0) || !(delay_spread <= 1e7)) {
    snprintf(err, errlen, "profile %s: delay spread %g samples must lie in 0..1e7",
             pdp_kind_name(kind), delay_spread);
    return -1;
  }
  if (isnan(k_factor) ? !tdl_pdp_has_los(kind) : !(k_factor >= 0.0 && isfinite(k_factor))) {
    snprintf(err, errlen, "profile %s: K factor %g, expected a finite number >= 0%s", pdp_kind_name(kind),
             k_factor, isnan(k_factor) ? " (only tdl-d and tdl-e bring their own)" : "");
    return -1;
  }
  if (!(max_delay >= 0.0)) {
    snprintf(err, errlen, "profile %s: largest allowed delay %g is negative", pdp_kind_name(kind),
             max_delay);
    return -1;
  }
  if (kind == PDP_EXP) { /* refuse before summing millions of samples */
    int samples, width;
    exp_extent(delay_spread, &samples, &width);
    const int last = (samples - 1) / width * width;
    if (last > max_delay) {
      snprintf(err, errlen,
               "profile exp with delay spread %g samples reaches %d samples, more than the %g "
               "allowed",
               delay_spread, last, max_delay);
      return -1;
    }
  }
  tdl_pdp pdp;
  double power[TDL_MAX_TAPS];
  memset(&pdp, 0, sizeof pdp);
  if (kind == PDP_EXP) exp_taps(delay_spread, &pdp, power);
  else table_taps(table_of(kind), delay_spread, grid, &pdp, power);
  char what[96];
  snprintf(what, sizeof what, "profile %s with delay spread %g samples", pdp_kind_name(kind), delay_spread);
  const double spec = isnan(k_factor) ? pow(10.0, table_of(kind)->los_db / 10.0) : 0.0;
  return finish(&pdp, power, spec, k_factor, max_delay, what, out, err, errlen);
}

int tdl_pdp_custom(const double *delay, const double *power_db, int n, double k_factor, delay_grid grid,
                   double max_delay, tdl_pdp *out, char *err, size_t errlen) {
  if (!out || !delay || !power_db) {
    snprintf(err, errlen, "tdl_pdp_custom: NULL argument");
    return -1;
  }
  if (n < 1 || n > TDL_MAX_TAPS) {
    snprintf(err, errlen, "custom profile: expected 1 to %d taps, got %d", TDL_MAX_TAPS, n);
    return -1;
  }
  if (grid != DELAYS_CONTINUOUS && grid != DELAYS_SAMPLE) {
    snprintf(err, errlen, "unknown delay grid %d", (int)grid);
    return -1;
  }
  if (!(k_factor >= 0.0 && isfinite(k_factor))) {
    snprintf(err, errlen, "custom profile: K factor %g, expected a finite number >= 0", k_factor);
    return -1;
  }
  tdl_pdp pdp;
  double power[TDL_MAX_TAPS];
  memset(&pdp, 0, sizeof pdp);
  double first = INFINITY;
  for (int i = 0; i < n; i++) {
    /* the cap keeps a rounded delay an int, as for the tables */
    if (!(delay[i] >= 0.0 && delay[i] <= 1e7)) {
      snprintf(err, errlen, "custom profile: tap %d at %g samples, expected a delay in [0, 1e7] samples", i,
               delay[i]);
      return -1;
    }
    if (!isfinite(power_db[i])) {
      snprintf(err, errlen, "custom profile: tap %d has power %g dB, expected a finite number", i, power_db[i]);
      return -1;
    }
    const double d = grid == DELAYS_SAMPLE ? (double)lround(delay[i]) : delay[i];
    add_tap(&pdp, power, d, pow(10.0, power_db[i] / 10.0));
    if (d < first) first = d;
  }
  /* the specular path sits at delay 0 (the channel and tdl_pdp_rms_delay
   * put it there): a line of sight needs a tap there */
  if (k_factor > 0.0 && first != 0.0) {
    snprintf(err, errlen, "custom profile: a K factor puts the line of sight on the first tap, which must be at "
             "delay 0, got the first at %g samples", first);
    return -1;
  }
  char what[64];
  snprintf(what, sizeof what, "custom profile");
  return finish(&pdp, power, 0.0, k_factor, max_delay, what, out, err, errlen);
}

int tdl_pdp_custom_k(const double *delay, const double *power_db, const double *k_db, int n, delay_grid grid,
                     double max_delay, tdl_pdp *out, char *err, size_t errlen) {
  tdl_pdp pdp;
  /* the delays and powers checked, merged and sorted as without K */
  if (tdl_pdp_custom(delay, power_db, n, 0.0, grid, max_delay, &pdp, err, errlen)) return -1;
  if (!k_db) {
    snprintf(err, errlen, "tdl_pdp_custom_k: NULL argument");
    return -1;
  }
  double nlos[TDL_MAX_TAPS] = {0}, los[TDL_MAX_TAPS] = {0}, total = 0.0;
  for (int i = 0; i < n; i++) {
    if (!(k_db[i] >= -300.0 && k_db[i] <= 300.0)) {
      snprintf(err, errlen, "custom profile: tap %d has K %g dB, expected a number in [-300, 300] dB", i, k_db[i]);
      return -1;
    }
    const double d = grid == DELAYS_SAMPLE ? (double)lround(delay[i]) : delay[i];
    const double p = pow(10.0, power_db[i] / 10.0), k = pow(10.0, k_db[i] / 10.0);
    int l = 0;
    while (l < pdp.taps - 1 && pdp.delay[l] != d) l++;
    nlos[l] += p / (k + 1.0);
    los[l] += p * k / (k + 1.0);
    total += p;
  }
  for (int l = 0; l < pdp.taps; l++) {
    pdp.power[l] = (float)(nlos[l] / total);
    pdp.tap_los[l] = (float)(los[l] / total);
  }
  pdp.los_power = 0.0f;
  *out = pdp;
  return 0;
}

double tdl_pdp_rms_delay(const tdl_pdp *pdp) {
  double total = pdp->los_power, mean = 0.0, second = 0.0; /* the LOS path sits at delay 0 */
  for (int l = 0; l < pdp->taps; l++) {
    const double p = pdp->power[l] + (double)pdp->tap_los[l], d = pdp->delay[l];
    total += p;
    mean += p * d;
    second += p * d * d;
  }
  if (total <= 0.0) return 0.0;
  mean /= total;
  const double var = second / total - mean * mean;
  return var > 0.0 ? sqrt(var) : 0.0;
}
