/* Interval statistics for bit error counts: the Wilson score interval the
 * report prints and the normal quantile behind it. */
#ifndef OFDMSIM_STATS_H
#define OFDMSIM_STATS_H

#include <stdint.h>

/* Wilson score interval for k successes in n trials at confidence conf (e.g.
 * 0.95). n = 0 -> [0, 1]; k = 0 gives lo = 0 and k = n gives hi = 1 exactly.
 * k > n or conf outside (0, 1) -> [NAN, NAN]. */
void wilson_interval(uint64_t k, uint64_t n, double conf, double *lo, double *hi);

/* Inverse standard normal CDF, |error| < 1e-9: Acklam's rational
 * approximation refined by one Halley step. 0 -> -inf, 1 -> +inf, NAN outside. */
double normal_quantile(double p);

#endif
