/* Interval statistics for bit error counts: the interval the report prints
 * for a point's BER, honest under this simulator's clustered errors, and
 * Wilson's interval and the quantiles behind it. */
#ifndef OFDMSIM_STATS_H
#define OFDMSIM_STATS_H

#include <stdint.h>

/* Wilson score interval for k successes in n trials at confidence conf (e.g.
 * 0.95). n = 0 -> [0, 1]; k = 0 gives lo = 0 and k = n gives hi = 1 exactly.
 * k > n or conf outside (0, 1) -> [NAN, NAN]. */
void wilson_interval(uint64_t k, uint64_t n, double conf, double *lo, double *hi);

/* What a point's interval is computed from. Frames are the independent units
 * (each has its own draws; under block fading it is also one channel
 * realisation), so sum_sq, the sum over frames of the squared bit-error count
 * of the frame, gives the variance of the BER by batch means. */
typedef struct ber_sample {
  uint64_t bits, errors, frames;
  double sum_sq;   /* sum over frames of (bit errors of the frame)^2 */
  uint64_t units;  /* independent error units the data hold for sure: REs
                      for channels drawn per RE, frames under block fading;
                      used where no variance can be estimated */
} ber_sample;

/* The BER interval at confidence conf, honest when errors cluster (the bits
 * of one RE, and of one frame under block fading, err together): Wilson's
 * score interval on the effective number of bits, bits / deff, where the
 * design effect deff >= 1 is the variance of the BER estimated from the
 * per-frame counts over the binomial one; the effective count is scaled by
 * (z / t_{frames-1})^2 so that few frames widen the interval as a t interval
 * would (Korn and Graubard's adjustment for clustered proportions). With no
 * error or fewer than 2 frames there is no variance to estimate: the
 * effective count is then `units` (every bit of a unit erring together, the
 * worst case), which for zero errors gives an upper bound of about
 * z^2 / units. bits = 0 gives [0, 1]; NAN for a bad argument. */
void ber_interval(const ber_sample *s, double conf, double *lo, double *hi);

/* The t interval at confidence conf of the mean of n independent values
 * whose sum is sum and sum of squares sum_sq; [NAN, NAN] for n < 2. */
void mean_interval(double sum, double sum_sq, uint64_t n, double conf, double *lo, double *hi);

/* Student's t quantile: P(T <= t_quantile(p, df)) = p, for df > 0. */
double t_quantile(double p, double df);

/* Inverse standard normal CDF, |error| < 1e-9: Acklam's rational
 * approximation refined by one Halley step. 0 -> -inf, 1 -> +inf, NAN outside. */
double normal_quantile(double p);

#endif
