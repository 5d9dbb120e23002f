/* Complex float32 and the qualifiers that let one inline function serve the
 * C host code and the CUDA kernels alike (included by .c and .cu files). */
#ifndef OFDMSIM_CPLX_H
#define OFDMSIM_CPLX_H

#include <stddef.h>
#include <stdint.h>
#ifndef __CUDACC__
#include <math.h>
#endif
#ifndef __CUDA_ARCH__
#include "core/rng_math.h" /* the host's sincos_turns */
#endif

#ifdef __CUDACC__
#define OFDM_HD __host__ __device__ __forceinline__
#define OFDM_UNROLL _Pragma("unroll")
#define OFDM_ALIGN8 __align__(8)
#else
#define OFDM_HD static inline
#define OFDM_UNROLL
#define OFDM_ALIGN8 __attribute__((aligned(8)))
#endif

/* Same layout as CUDA's float2: real and imaginary interleaved, 8-byte aligned,
 * so a warp's loads of consecutive stack elements coalesce into 8-byte words. */
typedef struct OFDM_ALIGN8 cf32 {
  float re, im;
} cf32;

OFDM_HD cf32 cf_make(float re, float im) { cf32 z; z.re = re; z.im = im; return z; }
OFDM_HD cf32 cf_add(cf32 a, cf32 b) { return cf_make(a.re + b.re, a.im + b.im); }
OFDM_HD cf32 cf_sub(cf32 a, cf32 b) { return cf_make(a.re - b.re, a.im - b.im); }
OFDM_HD cf32 cf_mul(cf32 a, cf32 b) {
  return cf_make(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
/* conj(a) * b: the building block of H^H H and H^H y. */
OFDM_HD cf32 cf_cmul(cf32 a, cf32 b) {
  return cf_make(a.re * b.re + a.im * b.im, a.re * b.im - a.im * b.re);
}
OFDM_HD cf32 cf_conj(cf32 a) { return cf_make(a.re, -a.im); }
OFDM_HD cf32 cf_scale(cf32 a, float s) { return cf_make(a.re * s, a.im * s); }
OFDM_HD float cf_abs2(cf32 a) { return a.re * a.re + a.im * a.im; }
/* acc + a*b and acc + conj(a)*b, written so the compiler emits FMAs. */
OFDM_HD cf32 cf_fma(cf32 acc, cf32 a, cf32 b) {
  return cf_make(acc.re + a.re * b.re - a.im * b.im, acc.im + a.re * b.im + a.im * b.re);
}
OFDM_HD cf32 cf_cfma(cf32 acc, cf32 a, cf32 b) {
  return cf_make(acc.re + a.re * b.re + a.im * b.im, acc.im + a.re * b.im - a.im * b.re);
}

/* acc + c*b for a real c, one fmaf a part. */
OFDM_HD cf32 cf_fma_real(cf32 acc, float c, cf32 b) { return cf_make(fmaf(c, b.re, acc.re), fmaf(c, b.im, acc.im)); }

/* a*b rounded on its own, never fused into a later addition: __fmul_rn on the
 * device (nvcc fuses a plain product into an add under -fmad), an fmaf with a
 * -0 addend (exact, signed zeros kept) on the host, whatever the dialect's
 * contraction rule; mul_rn_d the same in double. The detectors and the soft
 * demapper use them where the host and the device must round alike. */
#ifdef __CUDA_ARCH__
OFDM_HD float mul_rn(float a, float b) { return __fmul_rn(a, b); }
OFDM_HD double mul_rn_d(double a, double b) { return __dmul_rn(a, b); }
#else
OFDM_HD float mul_rn(float a, float b) { return fmaf(a, b, -0.0f); }
OFDM_HD double mul_rn_d(double a, double b) { return fma(a, b, -0.0); }
#endif

/* acc + a*b with every product and sum rounded as fmaf does, on any compiler
 * and either backend: the contraction is explicit, so nothing is left for a
 * compiler to fuse differently (as GCC's vectoriser and nvcc's -fmad do to
 * a plain a*b + c). */
OFDM_HD cf32 cf_fma_exact(cf32 acc, cf32 a, cf32 b) {
  return cf_make(fmaf(a.re, b.re, fmaf(-a.im, b.im, acc.re)), fmaf(a.re, b.im, fmaf(a.im, b.re, acc.im)));
}

/* sin and cos of 2 pi x for x in turns: sincospif on the device (exact
 * argument reduction); on the host core/rng_math.h's rng_sincos_turns (the
 * reduction to an eighth of a turn exact too, then the series), which GCC
 * inlines and vectorises where libm's sinf and cosf are two calls a value:
 * the Doppler paths evaluate one for every symbol, tap, link and sinusoid
 * (there they were a third of the CPU's time). Both are within a few ulp
 * of sin and cos of 2 pi x (tests/core/test_rng.c measures the host's). */
OFDM_HD void sincos_turns(float x, float *s, float *c) {
#ifdef __CUDA_ARCH__
  sincospif(2.0f * x, s, c);
#else
  rng_sincos_turns(x, s, c);
#endif
}

/* Element (r,c) of matrix m in a struct-of-arrays stack of M NxN matrices. */
#define SOA_AT(base, N, r, c, M, m) ((base)[((size_t)(r) * (N) + (c)) * (M) + (m)])

#endif
