/* The time autocorrelation of the fading the chain applies (channel/
 * tdl_fading.h), in double, for the estimator's error model (channel/
 * estimate.h) and the tests.
 *
 * The receiver's channel on a symbol is the fading averaged over its FFT
 * window of K samples, each sinusoid scaled by the Dirichlet factor
 * D(f) = sin(pi f K) / (K sin(pi f)). Between two symbols' channels t
 * samples apart (window centres), per unit power:
 *   Rayleigh (the sum of sinusoids, arrival angles uniform on the circle):
 *     rho_nlos(t) = (1/2pi) int D(nu cos a)^2 cos(2 pi nu cos a t) da,
 *     which is J0(2 pi nu t) without the window (K = 1);
 *   the LOS path turning at f = nu cos(pi/4):
 *     rho_los(t) = D(f)^2 exp(j 2 pi f t).
 * rho(0) < 1 under Doppler: the rest of the power is the inter-carrier
 * interference of the time-domain chain, which the per-symbol channel
 * leaves out. nu = 0: both are 1. */
#ifndef OFDMSIM_FADING_CORR_H
#define OFDMSIM_FADING_CORR_H

#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* rho_nlos at lag t samples, Doppler nu cycles per sample, window K. */
double fading_corr_nlos(double nu, int K, double t);
/* rho_los at lag t: its real and imaginary parts. */
void fading_corr_los(double nu, int K, double t, double *re, double *im);

#ifdef __cplusplus
}
#endif
#endif
