/* The host's logarithm and sine/cosine for the Box-Muller transform of
 * core/draws.h, written here rather than taken from libm:
 *   - they are plain float arithmetic and integer bit operations, so a
 *     compiler turns a loop over them into vector instructions, and the
 *     scalar and vector code compute the same bits (no libm call in the way);
 *   - the draws no longer depend on which libm the host has.
 * The device has its own fast pieces (core/draws.h); host and device normals
 * agree to a few 1e-6 (tests/core/test_rng.c measures these functions against
 * double precision, tests/cuda/test_gpu_philox.cu and test_gpu_normals.cu the
 * normals).
 *
 * Host only (the CUDA side never includes it). C11: float expressions are
 * evaluated as written (no contraction into fma), which the bitwise equality
 * of scalar and vector code relies on. */
#ifndef OFDMSIM_RNG_MATH_H
#define OFDMSIM_RNG_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ln(x) for normal x > 0 (the uniforms of rng_u01 lie in [2^-33, 1]).
 *   x = 2^e m with m in [sqrt(1/2), sqrt(2)): the exponent bits are moved so
 *   that the mantissa's range is centred on 1;
 *   ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716:
 *        = 2s (1 + s^2/3 + s^4/5 + s^6/7 + s^8/9), the series cut where its
 *   next term is below 2e-9 of the sum;
 *   e ln 2 in two parts (ln2_hi has 16 significant bits, so e ln2_hi is exact
 *   for |e| < 256). */
static inline float rng_logf(float x) {
  uint32_t ix;
  memcpy(&ix, &x, sizeof ix);
  /* adding 1 - sqrt(1/2) (in bits) moves the exponent's step from m = 1 to
   * m = sqrt(1/2); the mantissa bits then get sqrt(1/2)'s exponent back */
  const uint32_t moved = ix + (0x3f800000u - 0x3f3504f3u);
  const int e = (int)(moved >> 23) - 127;
  const uint32_t im = (moved & 0x007fffffu) + 0x3f3504f3u;
  float m;
  memcpy(&m, &im, sizeof m);
  const float f = m - 1.0f;
  const float s = f / (2.0f + f);
  const float z = s * s;
  const float series = 1.0f + z * (0.33333334f + z * (0.2f + z * (0.14285715f + z * 0.11111111f)));
  const float ln2_hi = 0.693145751953125f; /* 0x3f317200: 16 bits */
  const float ln2_lo = 1.428606765330187e-06f;
  const float fe = (float)e;
  return fe * ln2_hi + (2.0f * s * series + fe * ln2_lo);
}

/* sin(2 pi x) and cos(2 pi x) for x in turns, |x| <= 2^22.
 *   q = the nearest quarter turn (4x is exact), r = x - q/4 in [-1/8, 1/8]
 *   (exact: x and q/4 are close);
 *   sin(2 pi r) and cos(2 pi r) by their Taylor series in r to r^9 and r^10
 *   (the first terms left out are below 3e-9 of the result at |r| = 1/8);
 *   then rotated by q quarter turns: swap for odd q, signs from q's bits. */
static inline void rng_sincos_turns(float x, float *s, float *c) {
  const float q = rintf(4.0f * x);
  const float r = x - 0.25f * q;
  const float r2 = r * r;
  /* (2 pi)^k / k! with alternating signs */
  const float sp = r * (6.2831855f + r2 * (-41.341702f + r2 * (81.605249f + r2 * (-76.705860f + r2 * 42.058694f))));
  const float cp =
      1.0f + r2 * (-19.739209f + r2 * (64.939394f + r2 * (-85.456817f + r2 * (60.244641f + r2 * -26.426257f))));
  const uint32_t qi = (uint32_t)(int32_t)q;
  const uint32_t odd = qi & 1u;
  float so = odd ? cp : sp, co = odd ? sp : cp;
  /* sin is negated for q = 2, 3 (mod 4); cos for q = 1, 2 */
  uint32_t sb, cb;
  memcpy(&sb, &so, sizeof sb);
  memcpy(&cb, &co, sizeof cb);
  sb ^= (qi & 2u) << 30;
  cb ^= ((qi + 1u) & 2u) << 30;
  memcpy(s, &sb, sizeof sb);
  memcpy(c, &cb, sizeof cb);
}

#endif
