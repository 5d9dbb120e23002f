/* Fading taps in the time domain as piecewise cubics, written once for both
 * backends (included by .c and .cu files).
 *
 * A fading tap is a sum of sinusoids, h(t) = sum_m z_m exp(j 2 pi f_m t)
 * (channel/tdl_fading.h's sum of sinusoids, a CDL cluster's rays), and the
 * time-domain modem needs it at every sample. Evaluating the M sinusoids per
 * sample, tap and link (a double phase reduction and a sine and cosine each)
 * was almost all of a time-domain Doppler link's work. Instead the frame's
 * samples are cut into segments of len samples; on segment j, centred at
 * t_c = j len + (len - 1) / 2, each sinusoid is replaced by its Taylor
 * polynomial of degree 3 about t_c, so the tap is the cubic
 *
 *   h(t_c + tau) ~ sum_{k<4} c_k tau^k,  c_k = sum_m z_m(t_c) (j 2 pi f_m)^k / k!,
 *
 * whose coefficients are made once per segment (the sinusoids evaluated
 * exactly at t_c, channel/tdl_fading.h's tdl_rotor), and each sample costs
 * three complex multiply-adds per tap and link (Horner). The Taylor
 * remainder of exp(j x) after degree 3 is at most |x|^4 / 4! for real x, so
 * with every |2 pi f_m tau| <= TAP_POLY_ANGLE on the segment each sinusoid
 * is within TAP_POLY_ANGLE^4 / 24 = 4.2e-6 of its value, relative to its
 * amplitude, at any Doppler: tap_poly_len picks the longest segment that
 * keeps |tau| within that angle at the point's largest frequency nu. The
 * spatial mixing of tdl taps is linear, so mixing the coefficients mixes the
 * cubics. tests/channel/test_tap_poly.c checks the bound against the
 * per-sample sums.
 *
 * The arithmetic is explicit (fmaf and mul_rn: nothing left for gcc or nvcc
 * to contract differently), so both backends round the cubics alike. */
#ifndef OFDMSIM_TAP_POLY_H
#define OFDMSIM_TAP_POLY_H

#include <math.h>
#include <stdint.h>

#include "core/cplx.h"

#define TAP_POLY_COEFS 4     /* degree 3 */
#define TAP_POLY_ANGLE 0.1   /* radians: the largest phase a sinusoid turns from a segment's centre */

/* Samples a segment for sinusoids of at most nu cycles per sample, in a
 * frame of N samples: the longest len with 2 pi nu (len - 1) / 2 <=
 * TAP_POLY_ANGLE, at least 1 (exact: tau = 0), at most N. */
OFDM_HD int tap_poly_len(double nu, uint64_t N) {
  if (N < 1) return 1;
  if (!(nu > 0.0)) return N > (uint64_t)INT32_MAX ? INT32_MAX : (int)N;
  const double len = 1.0 + floor(TAP_POLY_ANGLE / (3.141592653589793 * nu));
  return len >= (double)N ? (int)N : (int)len;
}

/* Segments of len samples covering N samples (the last may be shorter). */
OFDM_HD uint64_t tap_poly_segments(int len, uint64_t N) { return (N + (uint64_t)len - 1) / (uint64_t)len; }

/* The centre of segment j, in samples from the frame's start. */
OFDM_HD double tap_poly_centre(uint64_t j, int len) { return (double)j * len + 0.5 * (double)(len - 1); }

/* Sample n's offset from the centre of its segment: a multiple of 1/2 no
 * larger than len, exact in float. */
OFDM_HD float tap_poly_tau(uint64_t n, int len) {
  const uint64_t j = n / (uint64_t)len;
  return (float)((double)(n - j * (uint64_t)len) - 0.5 * (double)(len - 1));
}

OFDM_HD void tap_poly_zero(cf32 *c) {
  for (int k = 0; k < TAP_POLY_COEFS; k++) c[k] = cf_make(0.0f, 0.0f);
}

/* c += the Taylor coefficients of z exp(j 2 pi f tau) about tau = 0:
 * z (j w)^k / k!, w = 2 pi f, each power from the last by one rounded
 * product. */
OFDM_HD void tap_poly_add(cf32 *c, cf32 z, float f) {
  const float w = mul_rn(6.2831853071795865f, f);
  const float wk[TAP_POLY_COEFS] = {0.0f, w, mul_rn(w, 0.5f), mul_rn(w, 0.33333334f)};
  c[0] = cf_add(c[0], z);
  for (int k = 1; k < TAP_POLY_COEFS; k++) {
    z = cf_make(mul_rn(-wk[k], z.im), mul_rn(wk[k], z.re)); /* z * j w / k */
    c[k] = cf_add(c[k], z);
  }
}

/* c *= s, every coefficient. */
OFDM_HD void tap_poly_scale(cf32 *c, float s) {
  for (int k = 0; k < TAP_POLY_COEFS; k++) c[k] = cf_make(mul_rn(c[k].re, s), mul_rn(c[k].im, s));
}

/* The cubic at tau (Horner, one fmaf a part and step). */
OFDM_HD cf32 tap_poly_eval(const cf32 *c, float tau) {
  cf32 h = c[TAP_POLY_COEFS - 1];
  for (int k = TAP_POLY_COEFS - 2; k >= 0; k--) h = cf_fma_real(c[k], tau, h);
  return h;
}

#endif
