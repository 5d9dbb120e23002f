/* Receivers (or any setting) compared as curves: `ofdmsim compare --by KEY`.
 * The rows of one or more result files are cut into curves: rows that agree
 * on every identity column (the link, the receiver, the channel; not the SNR,
 * the seed, the stopping rules, the frame range or the per-run settings)
 * except the named keys form a family, and within a family each value of
 * the named keys is one curve of BER against snr_db. In each family the
 * first curve (in file and row order) is the reference, A, and each other
 * curve B is compared with it two ways:
 *  - the SNR gap at a target BER: the SNR where each curve crosses the
 *    target, log10(BER) interpolated linearly in snr_db between the two
 *    points around it (the first downward crossing), gap = snr_B - snr_A
 *    (positive: B needs more SNR). Its interval comes from the points' 95%
 *    intervals: the curve of the upper bounds crosses the target at the
 *    highest SNR the data allow, that of the lower bounds at the lowest;
 *    the two curves' one-sided distances are added in quadrature (about 95%
 *    for the difference, the curves being independent estimates);
 *  - the BER ratio B / A at each SNR both curves have, with a 95% interval
 *    on the log scale from the two BERs' variances (results_ber_variance:
 *    batch means over frames), var(ln r) = v_A / p_A^2 + v_B / p_B^2; none
 *    where a curve has no bit error there.
 * (The simulator is uncoded: a BER is what it measures; there is no block
 * error rate to target.) */
#ifndef OFDMSIM_RESULTS_CURVES_H
#define OFDMSIM_RESULTS_CURVES_H

#include <stddef.h>
#include <stdint.h>

#include "results/results.h"

typedef struct curve_point {
  const result_table *t;
  size_t row;
  double snr, ber, lo, hi, var;
  uint64_t bits, errors;
} curve_point;

typedef struct curve {
  char *family; /* the curve's identity text: its family's, then its value */
  char *value;  /* "equalizer=zf": the named keys' values */
  size_t family_index;
  curve_point *pts; /* by snr, skipped points (bits = 0) left out */
  size_t n;
} curve;

/* The SNR at the target on one curve, with its interval; NAN where the
 * curve (or its bound) does not cross the target within its SNRs. */
typedef struct curve_crossing {
  double snr, snr_lo, snr_hi;
} curve_crossing;

typedef struct curve_ratio {
  double snr, ber_a, ber_b, ratio, lo, hi; /* lo, hi NAN without errors on a side */
} curve_ratio;

/* One comparison: curve b against its family's reference a. */
typedef struct curve_pair {
  size_t a, b; /* indices into curves */
  curve_crossing xa, xb;
  double gap, gap_lo, gap_hi; /* NAN where a crossing is missing */
  curve_ratio *ratios;
  size_t n_ratios;
} curve_pair;

typedef struct curve_result {
  curve *curves;
  size_t n_curves, n_families;
  curve_pair *pairs;
  size_t n_pairs;
  double target;
} curve_result;

/* Cuts the rows of the n tables into curves by the keys (n_keys column
 * names, each a column of every table) and compares them at target (0 <
 * target < 1). 0, or 2 with the message: a key that is no column, a key
 * that is no identity column (the SNR, the seed, ...), two rows of one
 * curve at one SNR (other seeds or frame ranges of a point: merge them
 * first), no family with two curves. */
int results_curves(const result_table *in, size_t n, const char *const *keys, size_t n_keys, double target,
                   curve_result *out, char *err, size_t errlen);
void curve_result_free(curve_result *r);

/* The SNR where y (n points by increasing snr) first crosses target going
 * down, log10(y) interpolated linearly; values <= 0 count as 1e-300 (a point
 * without errors lies below any target). NAN when it does not. */
double curve_crossing_snr(const double *snr, const double *y, size_t n, double target);

#endif
