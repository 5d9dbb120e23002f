/* Interval statistics for bit error counts: the Wilson score interval the
 * report prints, the normal quantile behind it, and the conservative
 * consistency test the statistical tests use to compare a count with theory. */
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

/* Regularised incomplete gamma functions P(a, x) and Q(a, x) = 1 - P(a, x)
 * for real a > 0, x >= 0 (Poisson tails: P(N >= k) = P(k, lambda),
 * P(N <= k) = Q(k + 1, lambda)). NAN for invalid arguments. */
double gamma_p(double a, double x);
double gamma_q(double a, double x);

/* Are `errors` bit errors in `bits` consistent with the expected BER p, when
 * errors come in clusters of at most `cluster` bits (one RE carries tx*bps
 * correlated bits, so the count's variance is at most cluster * mean)?
 * Two-sided at confidence conf.
 *
 * Conservative by construction: of all counts with clusters of at most c bits
 * and mean mu, the widest spread is that of c * Poisson(mu / c) (every error a
 * full cluster), so the test asks whether errors / c lies inside the central
 * conf region of Poisson(bits * p / c), with the tails taken from the
 * incomplete gamma function at the real-valued scaled count. For c = 1 this
 * is the exact Poisson test of a rare-error binomial count.
 * Returns 1 when consistent, 0 when not or when an argument is invalid
 * (errors > bits, p outside [0, 1], cluster < 1, conf outside (0, 1)). */
int ber_consistent(uint64_t errors, uint64_t bits, double p, int cluster, double conf);

#endif
