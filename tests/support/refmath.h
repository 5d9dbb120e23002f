/* Reference maths used only by tests: Poisson tails through the incomplete
 * gamma function, the conservative count-against-theory test, and the MMSE /
 * ZF error variance a stream should show. */
#ifndef OFDMSIM_REFMATH_H
#define OFDMSIM_REFMATH_H

#include <stdint.h>

#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* Error variance E|x_hat_t - x_t|^2 predicted for one stream of one RE from the
 * diagonal entry Ginv_tt of its inverted Gram matrix and the noise variance n0:
 *   EQ_ZF:   n0 Re(Ginv_tt)                       (G = H^H H)
 *   EQ_MMSE: (1 - mu)/mu, mu = 1 - n0 Re(Ginv_tt) (G = H^H H + n0 I), for the
 *            bias-corrected estimate of eq_apply.
 * For unit-energy symbols; the per-stream post-equalisation SINR is 1/value. */
float eq_predicted_error_var(eq_kind kind, float n0, cf32 ginv_tt);

/* Double-precision references for the inversion tests (tests/equalizer and the
 * GPU's tests/cuda/test_gpu_inverse.cu), one copy for both. A matrix is n x n,
 * row-major, each entry an interleaved (re, im) pair of doubles: the layout
 * of an array of C's double complex and of C++'s std::complex<double> alike
 * (both are specified as double[2]), so the C tests pass their double complex
 * arrays and the C++ ones their std::complex arrays, cast to double *. */
#define REF_MAX_N 16

/* Inverse by Gauss-Jordan elimination with partial pivoting: any nonsingular
 * matrix, Hermitian or not, independent of the Cholesky code under test.
 * Returns 1, or 0 when a pivot is exactly zero (singular) or n is outside
 * 1..REF_MAX_N; x is then unspecified. */
int ref_zinv(int n, const double *a, double *x);
/* The infinity norm: the largest row sum of |a_rc|. */
double ref_znorm_inf(int n, const double *a);

/* J0(x), Bessel's function of the first kind (the Jakes/Clarke fading
 * autocorrelation), by its power series sum_k (-1)^k (x/2)^2k / (k!)^2: for
 * |x| <= 12 the largest term is about 4e3, so it is good to about 1e-12. */
double ref_bessel_j0(double x);

/* A running mean and variance of values (Welford), for a mean's standard
 * error over independent units (frames, drops). Start from {0}. */
typedef struct ref_acc {
  double n, mean, m2;
} ref_acc;
void ref_acc_add(ref_acc *a, double v);
/* The standard error of the mean; INFINITY below two values. */
double ref_acc_se(const ref_acc *a);

#ifdef __cplusplus
}
#endif
#endif
