/* The exponential and the logarithm of the exact LLRs (equalizer/soft.h).
 *
 * On the device they are CUDA's expf and logf. On the host they are this
 * file's own float arithmetic (+, -, *, fmaf and integer bit work, no table
 * and no branch), because libm's expf and logf are calls that GCC cannot
 * vectorise: with them the exact LLRs' exponentials went one lane at a time
 * (the lanes gathered into a list first) and cost most of the CPU's exact
 * demapper. Written as a plain function of one float, the scalar demapper
 * (soft_pam_) and the 16-lane one (equalizer/demap_block.c) call the same
 * code, which GCC compiles to the same IEEE operations scalar or vectorised
 * (C11: no contraction; every fma explicit), so the two give the same LLRs
 * bit for bit, as they did with libm.
 *
 * Accuracy (tests/equalizer/test_soft_math.c measures it against double
 * exp and log over the floats the demapper gives them): the exponential
 * within 1 ulp, the logarithm within 0.5 ulp and a hair (CUDA's expf and
 * logf are within 2 and 1), so the host and the device stay "a few
 * 1e-7 absolute" apart on exact LLRs (equalizer/soft.h). */
#ifndef OFDMSIM_SOFT_MATH_H
#define OFDMSIM_SOFT_MATH_H

#include <stdint.h>
#include <string.h>

#include "core/cplx.h"

#ifndef __CUDA_ARCH__
OFDM_HD float soft_bits_float_(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
OFDM_HD uint32_t soft_float_bits_(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
#endif

/* e^x for x <= 0 (and NaN; x > 0 is not used: it returns e^min(x, 0)).
 *   x < -104: +0 (e^-104 = 6.8e-46 is below half the least subnormal float,
 *   so a correctly rounded expf is +0 there too);
 *   n = x log2(e) rounded to nearest by the 1.5 2^23 shift (exact:
 *   |x log2 e| <= 151), r = x - n ln 2 by two fmaf with ln 2 in two parts,
 *   |r| <= ln2/2 + 2^-17;
 *   e^r by its Taylor polynomial of degree 7 (truncation below 5.3e-9,
 *   a sixteenth of an ulp), Horner with fmaf; exactly 1 at r = 0;
 *   times 2^n as two exact powers 2^(n/2) 2^(n - n/2), each a normal float,
 *   so a subnormal result is rounded once. */
OFDM_HD float soft_expf_(float x) {
#ifdef __CUDA_ARCH__
  return expf(x);
#else
  const float shift = 12582912.0f; /* 1.5 2^23 */
  float y = x < 0.0f ? x : 0.0f;   /* NaN stays NaN below: the compare is false, the select takes 0... */
  y = x == x ? y : x;              /* ... so NaN is put back */
  const float nt = fmaf(y, 1.44269502f, shift);
  const float nf = nt - shift;
  float r = fmaf(nf, -0.693145751953125f, y); /* ln 2's first 16 bits: n * hi is exact */
  r = fmaf(nf, -1.42860677e-06f, r);          /* ln 2 - hi */
  float p = 1.98412701e-04f;                  /* 1/5040 */
  p = fmaf(p, r, 1.38888892e-03f);            /* 1/720 */
  p = fmaf(p, r, 8.33333377e-03f);            /* 1/120 */
  p = fmaf(p, r, 4.16666679e-02f);            /* 1/24 */
  p = fmaf(p, r, 1.66666672e-01f);            /* 1/6 */
  p = fmaf(p, r, 0.5f);
  p = fmaf(p, r, 1.0f);
  p = fmaf(p, r, 1.0f);
  /* n from the shifted float's low bits (nt = 1.5 2^23 + n exactly) */
  const int32_t n = (int32_t)(soft_float_bits_(nt) - soft_float_bits_(shift));
  const int32_t n1 = n / 2, n2 = n - n1; /* both in [-76, 0] */
  const float s1 = soft_bits_float_((uint32_t)(n1 + 127) << 23);
  const float s2 = soft_bits_float_((uint32_t)(n2 + 127) << 23);
  const float e = (p * s1) * s2;
  return y < -104.0f ? 0.0f : e;
#endif
}

/* ln x for x > 0 (and +inf, NaN: returned as they are; +-0: -inf; x < 0:
 * NaN).
 *   x = 2^k m, m in [sqrt(1/2), sqrt 2) from x's bits (a subnormal x first
 *   scaled by 2^24, exactly), then in double:
 *   ln m = 2 atanh(t), t = (m - 1) / (m + 1), |t| <= 0.1716: the series
 *   2 t (1 + t^2/3 + ... + t^12/13), truncated below 3e-12 relative;
 *   exactly +0 at m = 1; plus k ln 2; one rounding to float at the end,
 *   so the result is the correctly rounded logarithm but within ~1e-11 ulp
 *   of a half (under 0.5 ulp + 1e-11 in all). */
OFDM_HD float soft_logf_(float x) {
#ifdef __CUDA_ARCH__
  return logf(x);
#else
  const int sub = x < 1.17549435e-38f; /* 2^-126: subnormal (or <= 0) */
  const float xs = sub ? x * 16777216.0f : x;
  const uint32_t u = soft_float_bits_(xs);
  /* k: the exponent of x relative to sqrt(1/2) (0x3f3504f3): the
   * difference in unsigned arithmetic (no overflow for any bits, a
   * negative x's included), read as signed, then an arithmetic shift (GCC,
   * nvcc) */
  const int32_t k = (int32_t)(u - 0x3f3504f3u) >> 23;
  const double m = (double)soft_bits_float_(u - ((uint32_t)k << 23));
  const double f = m - 1.0; /* exact */
  const double t = f / (m + 1.0);
  const double t2 = t * t;
  double p = 1.0 / 13.0;
  p = fma(p, t2, 1.0 / 11.0);
  p = fma(p, t2, 1.0 / 9.0);
  p = fma(p, t2, 1.0 / 7.0);
  p = fma(p, t2, 1.0 / 5.0);
  p = fma(p, t2, 1.0 / 3.0);
  p = p * t2;
  const double two_t = t + t;
  const double kd = (double)(k - (sub ? 24 : 0));
  const float l = (float)fma(kd, 0.69314718055994531, fma(two_t, p, two_t));
  const float bad = x == 0.0f ? -INFINITY : x < 0.0f ? NAN : x;
  return x > 0.0f && x < INFINITY ? l : bad;
#endif
}

#endif
