/* Power-delay profiles: the exponential one and TR 38.901 TDL-A/B/C, resolved on the sample grid (tdl.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "channel/tdl.h"
#include "core/names.h"

/* 3GPP TR 38.901 (V14.3.0 and later, unchanged through V17), Section 7.7.2:
 * Table 7.7.2-1 (TDL-A), 7.7.2-2 (TDL-B), 7.7.2-3 (TDL-C). Normalised delays
 * (RMS delay spread 1) and powers in dB, in the tables' tap order. The
 * numbers were cross-checked against the TDL model files of NVIDIA Sionna
 * (sionna/channel/tr38901/models/TDL-{A,B,C}.json) and other published
 * implementations citing the same tables. */
typedef struct tdl_table {
  int taps;
  double delay[24];
  double power_db[24];
} tdl_table;

/* clang-format off */
static const tdl_table TDL_A = {
    23,
    {0.0000, 0.3819, 0.4025, 0.5868, 0.4610, 0.5375, 0.6708, 0.5750, 0.7618, 1.5375, 1.8978, 2.2242,
     2.1718, 2.4942, 2.5119, 3.0582, 4.0810, 4.4579, 4.5695, 4.7966, 5.0066, 5.3043, 9.6586},
    {-13.4, 0.0, -2.2, -4.0, -6.0, -8.2, -9.9, -10.5, -7.5, -15.9, -6.6, -16.7,
     -12.4, -15.2, -10.8, -11.3, -12.7, -16.2, -18.3, -18.9, -16.6, -19.9, -29.7}};

static const tdl_table TDL_B = {
    23,
    {0.0000, 0.1072, 0.2155, 0.2095, 0.2870, 0.2986, 0.3752, 0.5055, 0.3681, 0.3697, 0.5700, 0.5283,
     1.1021, 1.2756, 1.5474, 1.7842, 2.0169, 2.8294, 3.0219, 3.6187, 4.1067, 4.2790, 4.7834},
    {0.0, -2.2, -4.0, -3.2, -9.8, -1.2, -3.4, -5.2, -7.6, -3.0, -8.9, -9.0,
     -4.8, -5.7, -7.5, -1.9, -7.6, -12.2, -9.8, -11.4, -14.9, -9.2, -11.3}};

static const tdl_table TDL_C = {
    24,
    {0.0000, 0.2099, 0.2219, 0.2329, 0.2176, 0.6366, 0.6448, 0.6560,
     0.6584, 0.7935, 0.8213, 0.9336, 1.2285, 1.3083, 2.1704, 2.7105,
     4.2589, 4.6003, 5.4902, 5.6077, 6.3065, 6.6374, 7.0427, 8.6523},
    {-4.4, -1.2, -3.5, -5.2, -2.5, 0.0, -2.2, -3.9, -7.4, -7.1, -10.7, -11.1,
     -5.1, -6.8, -8.7, -13.2, -13.9, -13.9, -15.8, -17.1, -16.0, -15.7, -21.6, -22.8}};
/* clang-format on */

/* The exponential profile stops where a sample falls 30 dB below the first. */
#define EXP_FLOOR_DB 30.0


/* Adds `power` at sample `delay`, merging with a tap already there (the
 * tables have at most 24 taps, well within TDL_MAX_TAPS). */
static void add_tap(tdl_pdp *pdp, double *power, int delay, double p) {
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

static void exp_taps(double ds, tdl_pdp *pdp, double *power) {
  int samples, width;
  exp_extent(ds, &samples, &width);
  pdp->taps = (samples + width - 1) / width;
  for (int j = 0; j < pdp->taps; j++) {
    pdp->delay[j] = j * width;
    power[j] = 0.0;
  }
  for (int l = 0; l < samples; l++) power[l / width] += ds == 0.0 ? 1.0 : exp(-l / ds);
}

static void table_taps(const tdl_table *t, double ds, tdl_pdp *pdp, double *power) {
  for (int i = 0; i < t->taps; i++)
    add_tap(pdp, power, (int)lround(t->delay[i] * ds), pow(10.0, t->power_db[i] / 10.0));
}

int tdl_pdp_make(pdp_kind kind, double delay_spread, int max_delay, tdl_pdp *out, char *err,
                 size_t errlen) {
  if (!out) {
    snprintf(err, errlen, "tdl_pdp_make: NULL output");
    return -1;
  }
  if (kind != PDP_EXP && kind != PDP_TDL_A && kind != PDP_TDL_B && kind != PDP_TDL_C) {
    snprintf(err, errlen, "unknown power-delay profile %d", (int)kind);
    return -1;
  }
  /* The cap keeps every delay (and the exp profile's sample count) an int. */
  if (!(delay_spread >= 0.0) || !(delay_spread <= 1e7)) {
    snprintf(err, errlen, "profile %s: delay spread %g samples must lie in 0..1e7",
             pdp_kind_name(kind), delay_spread);
    return -1;
  }
  if (max_delay < 0) {
    snprintf(err, errlen, "profile %s: largest allowed delay %d is negative", pdp_kind_name(kind),
             max_delay);
    return -1;
  }
  if (kind == PDP_EXP) { /* refuse before summing millions of samples */
    int samples, width;
    exp_extent(delay_spread, &samples, &width);
    const int last = (samples - 1) / width * width;
    if (last > max_delay) {
      snprintf(err, errlen,
               "profile exp with delay spread %g samples reaches %d samples, more than the %d "
               "allowed",
               delay_spread, last, max_delay);
      return -1;
    }
  }
  tdl_pdp pdp;
  double power[TDL_MAX_TAPS];
  memset(&pdp, 0, sizeof pdp);
  switch (kind) {
    case PDP_EXP: exp_taps(delay_spread, &pdp, power); break;
    case PDP_TDL_A: table_taps(&TDL_A, delay_spread, &pdp, power); break;
    case PDP_TDL_B: table_taps(&TDL_B, delay_spread, &pdp, power); break;
    case PDP_TDL_C: table_taps(&TDL_C, delay_spread, &pdp, power); break;
  }
  /* Sort by delay (insertion sort: at most TDL_MAX_TAPS taps). */
  for (int a = 1; a < pdp.taps; a++) {
    const int d = pdp.delay[a];
    const double pw = power[a];
    int b = a;
    for (; b > 0 && pdp.delay[b - 1] > d; b--) {
      pdp.delay[b] = pdp.delay[b - 1];
      power[b] = power[b - 1];
    }
    pdp.delay[b] = d;
    power[b] = pw;
  }
  const int last = pdp.delay[pdp.taps - 1];
  if (last > max_delay) {
    snprintf(err, errlen,
             "profile %s with delay spread %g samples reaches %d samples, more than the %d "
             "allowed",
             pdp_kind_name(kind), delay_spread, last, max_delay);
    return -1;
  }
  double total = 0.0;
  for (int l = 0; l < pdp.taps; l++) total += power[l];
  for (int l = 0; l < pdp.taps; l++) pdp.power[l] = (float)(power[l] / total);
  *out = pdp;
  return 0;
}

double tdl_pdp_rms_delay(const tdl_pdp *pdp) {
  double total = 0.0, mean = 0.0, second = 0.0;
  for (int l = 0; l < pdp->taps; l++) {
    const double p = pdp->power[l], d = pdp->delay[l];
    total += p;
    mean += p * d;
    second += p * d * d;
  }
  if (total <= 0.0) return 0.0;
  mean /= total;
  const double var = second / total - mean * mean;
  return var > 0.0 ? sqrt(var) : 0.0;
}
