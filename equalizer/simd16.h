/* Sixteen complex floats in two AVX-512 registers, real and imaginary parts
 * apart ("planar"), for the hand-vectorised loops of the CPU stack kernels
 * (equalizer/eq_*.c) and the CPU's draws (cpu/draws_block.c): one lane an
 * item, as one CUDA thread an item.
 *
 * Every operation is its core/cplx.h counterpart (cf_add, cf_mul, cf_cfma,
 * ...) lane by lane, with the same operations in the same order: C11
 * contracts nothing (-ffp-contract=off) and intrinsics are not contracted
 * either, so a loop written with these computes the same bits as the scalar
 * or GCC-vectorised C loop it replaces (each user has a test that says so).
 * Why by hand: GCC vectorises the item loops of complex arithmetic with the
 * real and imaginary parts interleaved in one register, shuffling inside
 * every product, and at 4x4 spills the accumulators.
 *
 * Host only, and only where the compiler targets AVX-512F (C16_AVX512 is
 * then 1); every user keeps its plain C loop for the other hosts and for the
 * last n mod 16 items.
 *
 * Vector width of the plain C loops: GCC's tuning for AVX-512 CPUs
 * (skylake-avx512 .. sapphirerapids) vectorises 256 bits wide; the CPU's hot
 * files ask for 512 (#pragma GCC target("prefer-vector-width=512"), where the
 * target has AVX-512F). That changes no value: an item loop computes each
 * item in its own lane with the same operations whatever the width (and
 * GCC does not reassociate float sums without -ffast-math); measured on the
 * VM's Sapphire Rapids class Xeon, it made the CPU backend's 4x4 point about
 * 1.2 times as fast. */
#ifndef OFDMSIM_SIMD16_H
#define OFDMSIM_SIMD16_H

#if defined(__AVX512F__) && !defined(__CUDACC__)
#define C16_AVX512 1
#include <immintrin.h>

#include "core/cplx.h"

typedef struct c16 {
  __m512 re, im;
} c16;

/* cf32 p[0..15] (interleaved) into planar registers, and back. */
static inline c16 c16_load(const cf32 *p) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const __m512 a = _mm512_loadu_ps((const float *)p), b = _mm512_loadu_ps((const float *)p + 16);
  c16 v;
  v.re = _mm512_permutex2var_ps(a, even, b);
  v.im = _mm512_permutex2var_ps(a, odd, b);
  return v;
}
static inline void c16_store(cf32 *p, c16 v) {
  const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  _mm512_storeu_ps((float *)p, _mm512_permutex2var_ps(v.re, lo, v.im));
  _mm512_storeu_ps((float *)p + 16, _mm512_permutex2var_ps(v.re, hi, v.im));
}

static inline __m512 v16_add(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }
static inline __m512 v16_sub(__m512 a, __m512 b) { return _mm512_sub_ps(a, b); }
static inline __m512 v16_mul(__m512 a, __m512 b) { return _mm512_mul_ps(a, b); }
static inline __m512 v16_div(__m512 a, __m512 b) { return _mm512_div_ps(a, b); }
static inline __m512 v16_set1(float a) { return _mm512_set1_ps(a); }
/* fmaf(a, b, c) */
static inline __m512 v16_fma(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
/* -a: the sign bit flipped, as C's unary minus */
static inline __m512 v16_neg(__m512 a) {
  return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), _mm512_set1_epi32((int)0x80000000u)));
}
/* C's comparisons (false when either side is NaN) and ?: */
static inline __mmask16 v16_gt(__m512 a, __m512 b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
static inline __mmask16 v16_lt(__m512 a, __m512 b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
static inline __mmask16 v16_eq(__m512 a, __m512 b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
static inline __m512 v16_select(__mmask16 c, __m512 if_true, __m512 if_false) {
  return _mm512_mask_blend_ps(c, if_false, if_true);
}
/* mat_max_: a > b ? a : b */
static inline __m512 v16_max(__m512 a, __m512 b) { return v16_select(v16_gt(a, b), a, b); }

static inline c16 c16_make(__m512 re, __m512 im) {
  c16 z;
  z.re = re;
  z.im = im;
  return z;
}
static inline c16 c16_zero(void) { return c16_make(_mm512_setzero_ps(), _mm512_setzero_ps()); }
static inline c16 c16_add(c16 a, c16 b) { return c16_make(v16_add(a.re, b.re), v16_add(a.im, b.im)); }
static inline c16 c16_sub(c16 a, c16 b) { return c16_make(v16_sub(a.re, b.re), v16_sub(a.im, b.im)); }
/* cf_mul: a.re b.re - a.im b.im, a.re b.im + a.im b.re */
static inline c16 c16_mul(c16 a, c16 b) {
  return c16_make(v16_sub(v16_mul(a.re, b.re), v16_mul(a.im, b.im)),
                  v16_add(v16_mul(a.re, b.im), v16_mul(a.im, b.re)));
}
/* cf_cmul: conj(a) b = a.re b.re + a.im b.im, a.re b.im - a.im b.re */
static inline c16 c16_cmul(c16 a, c16 b) {
  return c16_make(v16_add(v16_mul(a.re, b.re), v16_mul(a.im, b.im)),
                  v16_sub(v16_mul(a.re, b.im), v16_mul(a.im, b.re)));
}
static inline c16 c16_conj(c16 a) { return c16_make(a.re, v16_neg(a.im)); }
static inline c16 c16_scale(c16 a, __m512 s) { return c16_make(v16_mul(a.re, s), v16_mul(a.im, s)); }
/* cf_abs2: a.re a.re + a.im a.im */
static inline __m512 c16_abs2(c16 a) { return v16_add(v16_mul(a.re, a.re), v16_mul(a.im, a.im)); }
/* cf_fma: (acc.re + a.re b.re) - a.im b.im, (acc.im + a.re b.im) + a.im b.re */
static inline c16 c16_fma(c16 acc, c16 a, c16 b) {
  return c16_make(v16_sub(v16_add(acc.re, v16_mul(a.re, b.re)), v16_mul(a.im, b.im)),
                  v16_add(v16_add(acc.im, v16_mul(a.re, b.im)), v16_mul(a.im, b.re)));
}
/* cf_cfma: (acc.re + a.re b.re) + a.im b.im, (acc.im + a.re b.im) - a.im b.re */
static inline c16 c16_cfma(c16 acc, c16 a, c16 b) {
  return c16_make(v16_add(v16_add(acc.re, v16_mul(a.re, b.re)), v16_mul(a.im, b.im)),
                  v16_sub(v16_add(acc.im, v16_mul(a.re, b.im)), v16_mul(a.im, b.re)));
}
/* cf_fma_exact: fmaf(a.re, b.re, fmaf(-a.im, b.im, acc.re)),
 * fmaf(a.re, b.im, fmaf(a.im, b.re, acc.im)); fnmadd(x, y, z) is
 * fmaf(-x, y, z) exactly */
static inline c16 c16_fma_exact(c16 acc, c16 a, c16 b) {
  return c16_make(_mm512_fmadd_ps(a.re, b.re, _mm512_fnmadd_ps(a.im, b.im, acc.re)),
                  _mm512_fmadd_ps(a.re, b.im, _mm512_fmadd_ps(a.im, b.re, acc.im)));
}
#else
#define C16_AVX512 0
#endif

#endif
