/* smallmat.h's per-item functions that the square fast paths need, on
 * sixteen items at once (one AVX-512 lane an item, equalizer/simd16.h):
 * the Gram matrix and matched filter of a square H, mat_inv2_herm,
 * mat_inv4_block and mat_equalize. Every line is the scalar function's,
 * operation for operation and in the same order, so each lane computes the
 * same bits as the scalar code does for its item (NaN payloads and signs
 * aside, which nothing reads: a flagged inverse is all NaN whatever they
 * are); tests/equalizer/test_fast_paths.c checks it against the stack loops.
 *
 * Matrices are arrays of c16, row-major as in smallmat.h. Host only, where
 * C16_AVX512 is 1. */
#ifndef OFDMSIM_SMALLMAT16_H
#define OFDMSIM_SMALLMAT16_H

#include "equalizer/simd16.h"
#include "equalizer/smallmat.h"

#if C16_AVX512

/* G = H^H H + diag I (upper triangle and diagonal: what the inverses read;
 * the diagonal's imaginary parts 0) and z = H^H y of the sixteen items at
 * i of nt x nt H stacks (element e at H[e*ldh + i]), each sum taken as
 * mat_gram and mat_herm_mulvec take it: from diag or 0, over rows r = 0 ..
 * nt-1 in order, H loaded a row at a time. */
static inline __attribute__((always_inline)) void c16_gram_square(int nt, const cf32 *H, size_t ldh, const cf32 *y,
                                                                  size_t ldy, size_t i, float diag, c16 *g, c16 *z) {
  __m512 gd[MAT_MAX_N];
  MAT_UNROLL
  for (int p = 0; p < nt; p++) {
    gd[p] = v16_set1(diag);
    z[p] = c16_zero();
    MAT_UNROLL
    for (int q = p + 1; q < nt; q++) g[p * nt + q] = c16_zero();
  }
  MAT_UNROLL
  for (int r = 0; r < nt; r++) {
    c16 h[MAT_MAX_N];
    MAT_UNROLL
    for (int t = 0; t < nt; t++) h[t] = c16_load(H + (size_t)(r * nt + t) * ldh + i);
    const c16 yr = c16_load(y + (size_t)r * ldy + i);
    MAT_UNROLL
    for (int p = 0; p < nt; p++) {
      gd[p] = v16_add(gd[p], c16_abs2(h[p]));
      z[p] = c16_cfma(z[p], h[p], yr);
      MAT_UNROLL
      for (int q = p + 1; q < nt; q++) g[p * nt + q] = c16_cfma(g[p * nt + q], h[p], h[q]);
    }
  }
  MAT_UNROLL
  for (int p = 0; p < nt; p++) g[p * nt + p] = c16_make(gd[p], _mm512_setzero_ps());
}

/* mat_inv2_herm (reads the upper triangle) */
static inline __attribute__((always_inline)) void c16_inv2_herm(const c16 *m, c16 *out) {
  const __m512 zero = _mm512_setzero_ps();
  const __m512 a = m[0].re, d = m[3].re;
  const c16 b = m[1];
  const __m512 det = v16_fma(a, d, v16_neg(v16_fma(b.re, b.re, v16_mul(b.im, b.im))));
  const __m512 ad = v16_mul(a, d);
  const __mmask16 ok =
      v16_gt(a, zero) & v16_gt(det, zero) & v16_lt(v16_mul(ad, v16_set1(MAT_SINGULAR_TOL)), det);
  const __m512 inv_det = v16_select(ok, v16_div(v16_set1(1.0f), det), v16_set1(MAT_NAN));
  out[0] = c16_make(v16_mul(d, inv_det), v16_mul(zero, inv_det));
  out[1] = c16_make(v16_mul(v16_neg(b.re), inv_det), v16_mul(v16_neg(b.im), inv_det));
  out[2] = c16_conj(out[1]);
  out[3] = c16_make(v16_mul(a, inv_det), v16_mul(zero, inv_det));
}

/* mat_inv4_block (reads the upper triangle), mat_finish_ included */
static inline __attribute__((always_inline)) void c16_inv4_block(const c16 *a, c16 *out) {
  const __m512 zero = _mm512_setzero_ps(), one = v16_set1(1.0f), nan = v16_set1(MAT_NAN), m1 = v16_set1(-1.0f);
  const __m512 p0 = a[0].re, p3 = a[5].re, s0 = a[10].re, s3 = a[15].re;
  const c16 pb = a[1], sb = a[11];
  const c16 q00 = a[2], q01 = a[3], q10 = a[6], q11 = a[7];
  const __m512 id0 = v16_div(one, p0);
  const c16 l = c16_scale(c16_conj(pb), id0);
  const __m512 d1 = v16_fma(v16_neg(c16_abs2(pb)), id0, p3);
  const __m512 id1 = v16_select(v16_gt(p0, zero) & v16_gt(d1, zero), v16_div(one, d1), nan);
  const c16 v10 = c16_sub(q10, c16_mul(l, q00)), v11 = c16_sub(q11, c16_mul(l, q01));
  const c16 u00 = c16_scale(q00, id0), u01 = c16_scale(q01, id0);
  const c16 u10 = c16_scale(v10, id1), u11 = c16_scale(v11, id1);
  const __m512 c0 = v16_sub(s0, v16_add(v16_mul(c16_abs2(q00), id0), v16_mul(c16_abs2(v10), id1)));
  const __m512 c3 = v16_sub(s3, v16_add(v16_mul(c16_abs2(q01), id0), v16_mul(c16_abs2(v11), id1)));
  const c16 c1 = c16_sub(sb, c16_cfma(c16_cmul(q00, u01), v10, u11));
  const __m512 ie0 = v16_div(one, c0);
  const c16 m = c16_scale(c16_conj(c1), ie0);
  const __m512 e1 = v16_fma(v16_neg(c16_abs2(c1)), ie0, c3);
  const __m512 ie1 = v16_select(v16_gt(c0, zero) & v16_gt(e1, zero), v16_div(one, e1), nan);
  const c16 k00 = c16_sub(c16_conj(u00), c16_mul(c16_conj(u10), l)), k01 = c16_conj(u10);
  const c16 k10 = c16_sub(c16_conj(u01), c16_mul(c16_conj(u11), l)), k11 = c16_conj(u11);
  const c16 z00 = c16_scale(k00, m1), z01 = c16_scale(k01, m1);
  const c16 z10 = c16_sub(c16_mul(m, k00), k10), z11 = c16_sub(c16_mul(m, k01), k11);
  const c16 ml = c16_scale(l, m1), mm = c16_scale(m, m1);
  const c16 g10 = c16_scale(ml, id1);
  const c16 g20 = c16_scale(z00, ie0), g21 = c16_scale(z01, ie0);
  const c16 g30 = c16_scale(z10, ie1), g31 = c16_scale(z11, ie1), g32 = c16_scale(mm, ie1);
  /* x.re g.re + x.im g.im */
#define C16_DOT_(x, g) v16_add(v16_mul((x).re, (g).re), v16_mul((x).im, (g).im))
  const __m512 x00 = v16_add(v16_add(v16_add(id0, C16_DOT_(ml, g10)), C16_DOT_(z00, g20)), C16_DOT_(z10, g30));
  const __m512 x11 = v16_add(v16_add(id1, C16_DOT_(z01, g21)), C16_DOT_(z11, g31));
  const __m512 x22 = v16_add(ie0, C16_DOT_(mm, g32));
  const __m512 x33 = ie1;
#undef C16_DOT_
  const c16 x01 = c16_cfma(c16_cfma(c16_scale(c16_conj(ml), id1), z00, g21), z10, g31);
  const c16 x02 = c16_cfma(c16_conj(g20), z10, g32);
  const c16 x03 = c16_conj(g30);
  const c16 x12 = c16_cfma(c16_conj(g21), z11, g32);
  const c16 x13 = c16_conj(g31);
  const c16 x23 = c16_conj(g32);
  out[0] = c16_make(x00, zero);
  out[1] = x01;
  out[2] = x02;
  out[3] = x03;
  out[4] = c16_conj(x01);
  out[5] = c16_make(x11, zero);
  out[6] = x12;
  out[7] = x13;
  out[8] = c16_conj(x02);
  out[9] = c16_conj(x12);
  out[10] = c16_make(x22, zero);
  out[11] = x23;
  out[12] = c16_conj(x03);
  out[13] = c16_conj(x13);
  out[14] = c16_conj(x23);
  out[15] = c16_make(x33, zero);
  __m512 ax = v16_max(v16_max(v16_mul(p0, x00), v16_mul(p3, x11)), v16_max(v16_mul(s0, x22), v16_mul(s3, x33)));
  ax = v16_select(v16_eq(ie1, ie1), ax, nan);
  /* mat_finish_: + 0 where the inverse holds, + NaN where it is flagged */
  const __m512 poison = v16_select(v16_lt(v16_mul(ax, v16_set1(MAT_SINGULAR_TOL)), one), zero, nan);
  MAT_UNROLL
  for (int e = 0; e < 16; e++) out[e] = c16_make(v16_add(out[e].re, poison), v16_add(out[e].im, poison));
}

/* mat_equalize: x_hat = diag(gain) G^-1 z, gain = mat_unbias_gain */
static inline __attribute__((always_inline)) void c16_equalize(int n, const c16 *ginv, const c16 *z, float n0_bias,
                                                               c16 *xhat) {
  MAT_UNROLL
  for (int r = 0; r < n; r++) {
    c16 s = c16_zero();
    MAT_UNROLL
    for (int c = 0; c < n; c++) s = c16_fma(s, ginv[r * n + c], z[c]);
    const __m512 gain =
        v16_div(v16_set1(1.0f), v16_sub(v16_set1(1.0f), v16_mul(v16_set1(n0_bias), ginv[r * n + r].re)));
    xhat[r] = c16_scale(s, gain);
  }
}

#endif
#endif
