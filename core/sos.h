/* Clarke's model as a sum of sinusoids (the Zheng-Xiao form), the pieces
 * every fading process in time shares, written once for gcc and nvcc:
 *
 *   h(t) = sqrt(p / M) sum_{m<M} exp(j 2 pi (nu cos(a_m) t + u_{m+1})),
 *   a_m = 2 pi (m + u_0) / M,   M = SOS_TERMS,
 *
 * with u_0..u_M uniform on (0, 1]: averaged over u_0 the arrival angles cover
 * the circle uniformly, so E[h(t) h*(t + tau)] = p J0(2 pi nu tau) for any M
 * (the Jakes spectrum), and the amplitude is Rayleigh to within the
 * central-limit approximation of M terms (E|h|^4 = (2 - 1/M) p^2). The
 * per-RE flat fading (core/flat_fading.h) uses these; the tdl taps keep their
 * own copy (channel/tdl_fading.h) with the same formulas. */
#ifndef OFDMSIM_SOS_H
#define OFDMSIM_SOS_H

#include <math.h>

#include "core/cplx.h"

#define SOS_TERMS 20
#define SOS_UNIFORMS (SOS_TERMS + 1) /* u_0 and a phase per term */
#define SOS_DRAWS 6                  /* Philox draws (4 words each) that hold them */
#define SOS_LOS_COS 0.70710678118654752 /* the LOS path arrives at pi/4 */

/* exp(j 2 pi (f t + phase)), the phase reduced in double (fma: the same on
 * both backends) before the float sine and cosine. */
OFDM_HD cf32 sos_rotor(double f, float phase, double t) {
  double turns = fma(f, t, (double)phase);
  turns -= floor(turns + 0.5);
  float s, co;
  sincos_turns((float)turns, &s, &co);
  return cf_make(co, s);
}

/* h(t) of unit power from the SOS_UNIFORMS uniforms u, Doppler nu in cycles
 * per sample, t in samples. */
OFDM_HD cf32 sos_value(const float *u, double nu, double t) {
  float re = 0.0f, im = 0.0f;
  for (int m = 0; m < SOS_TERMS; m++) {
    const double a = 6.283185307179586 * ((double)m + (double)u[0]) / SOS_TERMS;
    const cf32 z = sos_rotor((double)(float)(nu * cos(a)), u[m + 1], t);
    re += z.re;
    im += z.im;
  }
  const float scale = 0.22360679774997898f; /* sqrt(1/20) */
  return cf_make(re * scale, im * scale);
}

#endif
