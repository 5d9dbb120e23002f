/* Small complex matrix algebra for one resource element, shared by the CPU
 * stack loops (equalizer/eq_*.c) and the CUDA kernels (cuda/): plain C that
 * nvcc also compiles, every function OFDM_HD (static inline / __host__
 * __device__ __forceinline__).
 *
 * Matrices live in small local arrays, row-major: element (r,c) of an n x n
 * matrix at a[r*n + c]; H is nr x nt at h[r*nt + t].  Every loop is bounded by
 * its size argument and marked MAT_UNROLL, so a caller with a compile-time size
 * (a CUDA template, a CPU switch case) gets straight-line code whose arrays
 * stay in registers.
 *
 * Hermitian inputs: the inverses read only the upper triangle (r <= c) and the
 * real part of the diagonal; they write the full matrix, exactly Hermitian
 * (lower = conj(upper), diagonal imaginary parts exactly 0).
 *
 * Singular inputs.  The inverses are LDL^H eliminations in disguise: pivot k is
 * d_k = 1 / ((A_k)^-1)_kk for the leading k x k block A_k, and for an HPD A
 * 1/cond(A) <= d_k / a_kk <= 1.  Each function returns
 *     r = min_k d_k / a_kk,
 * a scale-free conditioning measure (1 for a diagonal matrix, >= 1/cond(A)).
 * When a pivot fails d_k > MAT_SINGULAR_TOL * a_kk -- a non-PD input, an exactly
 * or numerically singular one (cond >~ 1e6: the pivot is then below the float
 * rounding of its own computation), or a NaN/Inf input -- EVERY output element
 * is NaN; a result is either an inverse or all NaN, never finite garbage.
 * Matrices with cond(A) < 1/MAT_SINGULAR_TOL (about 1.05e6) are never flagged.
 * A flagged matrix returns r <= 0 instead (so r > 0 means "inverted"); the
 * divisions behind r cost nothing to a caller that ignores it: inlining drops
 * them. */
#ifndef OFDMSIM_SMALLMAT_H
#define OFDMSIM_SMALLMAT_H

#include <math.h>

#include "sim/cplx.h"

/* Largest matrix the general method handles (LINK_MAX_TX). */
#define MAT_MAX_N 8

/* A pivot is computed from a_kk by subtracting at most n-1 <= 7 non-negative
 * terms, each rounded once: its absolute rounding error is at most about
 * n * 2^-24 * a_kk.  Twice the worst case (16 ulps of a_kk) means a pivot that
 * passes is at least half made of signal, not rounding. */
#define MAT_SINGULAR_TOL (16.0f / 16777216.0f)

/* NaN that host and device code both accept (math.h's NAN is a builtin). */
#define MAT_NAN ((float)NAN)

/* Unrolling: CUDA's "#pragma unroll" (OFDM_UNROLL) in kernels; on the CPU GCC
 * and clang are asked to peel the short loops fully too, which is what lets
 * the item loop of a stack kernel vectorise. */
#if defined(__CUDACC__)
#define MAT_UNROLL OFDM_UNROLL
#elif defined(__clang__)
#define MAT_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define MAT_UNROLL _Pragma("GCC unroll 64")
#else
#define MAT_UNROLL
#endif

/* OFDM_HD, and on the host forced inline: GCC otherwise may keep a large
 * function like mat_inv_chol out of line for some sizes, and a call in the
 * item loop stops it vectorising.  (nvcc's OFDM_HD already forces inlining.) */
#if defined(__GNUC__) && !defined(__CUDACC__)
#define MAT_HD OFDM_HD __attribute__((always_inline))
#else
#define MAT_HD OFDM_HD
#endif

/* ------------------------------------------------------------------------ */
/* 2x2 Hermitian kernel of the closed forms: [a b; b* d]^-1 as (ia, ib, id) with
 * the same shape.  sa and sd are the original diagonal entries the pivots are
 * judged against (a and d themselves for a plain 2x2, the untouched S entries
 * when [a b; b* d] is a Schur complement).  Returns min(a/sa, det/(a*sd)). */
MAT_HD float mat_inv2_parts_(float a, cf32 b, float d, float sa, float sd,
                              float *ia, cf32 *ib, float *id) {
  /* det = ad - |b|^2: the positive terms of |b|^2 summed first, then one fused
   * subtraction, so the cancellation happens once, with ad unrounded. */
  float bb = fmaf(b.re, b.re, b.im * b.im);
  float det = fmaf(a, d, -bb);
  int ok = (a > MAT_SINGULAR_TOL * sa) & (det > MAT_SINGULAR_TOL * a * sd);
  /* divide unconditionally, then select: a conditional division is a branch
   * that keeps GCC from vectorising the item loop */
  float inv_det = 1.0f / det;
  inv_det = ok ? inv_det : MAT_NAN;
  *ia = d * inv_det;
  *id = a * inv_det;
  *ib = cf_make(-b.re * inv_det, -b.im * inv_det);
  float r = fminf(a / sa, det / (a * sd));
  return ok ? r : fminf(r, 0.0f);
}

/* 1x1: 1/a for a > 0, NaN otherwise (also for a NaN or infinite a); returns
 * 1 or 0. */
MAT_HD float mat_inv1(const cf32 *a, cf32 *out) {
  float x = a[0].re;
  int ok = (x > 0.0f) & (x < INFINITY);
  float inv = 1.0f / x;
  out[0] = cf_make(ok ? inv : MAT_NAN, 0.0f);
  return ok ? 1.0f : 0.0f;
}

/* 2x2 closed form: [a b; b* d]^-1 = [d -b; -b* a] / (ad - |b|^2). */
MAT_HD float mat_inv2_herm(const cf32 *a, cf32 *out) {
  float ia, id;
  cf32 ib;
  float r = mat_inv2_parts_(a[0].re, a[1], a[3].re, a[0].re, a[3].re, &ia, &ib, &id);
  out[0] = cf_make(ia, 0.0f);
  out[1] = ib;
  out[2] = cf_conj(ib);
  out[3] = cf_make(id, 0.0f);
  return r;
}

/* 4x4 as 2x2 blocks, A = [P Q; Q^H S]:
 *   T  = P^-1 Q,  C = S - Q^H T  (the Schur complement, Hermitian)
 *   A^-1 = [P^-1 + T C^-1 T^H   -T C^-1;  (-T C^-1)^H   C^-1]
 * Both 2x2 inverses use the closed form; the Hermitian blocks (C, C^-1, the
 * top-left block) are computed on their upper half only and mirrored.  This is
 * block LDL^H without pivoting, stable for HPD matrices: its pivots are P's and
 * C's, exactly the Cholesky pivots. */
MAT_HD float mat_inv4_block(const cf32 *a, cf32 *out) {
  /* P^-1 = [i0 i1; i1* i3] */
  float i0, i3;
  cf32 i1;
  float r1 = mat_inv2_parts_(a[0].re, a[1], a[5].re, a[0].re, a[5].re, &i0, &i1, &i3);
  cf32 q00 = a[2], q01 = a[3], q10 = a[6], q11 = a[7];
  cf32 i1c = cf_conj(i1);
  /* T = P^-1 Q */
  cf32 t00 = cf_fma(cf_scale(q00, i0), i1, q10);
  cf32 t01 = cf_fma(cf_scale(q01, i0), i1, q11);
  cf32 t10 = cf_fma(cf_scale(q10, i3), i1c, q00);
  cf32 t11 = cf_fma(cf_scale(q11, i3), i1c, q01);
  /* C = S - Q^H T, upper half; Re(conj(q) t) for the real diagonal */
  float c0 = a[10].re - (q00.re * t00.re + q00.im * t00.im + q10.re * t10.re + q10.im * t10.im);
  float c3 = a[15].re - (q01.re * t01.re + q01.im * t01.im + q11.re * t11.re + q11.im * t11.im);
  cf32 c1 = cf_sub(a[11], cf_cfma(cf_cmul(q00, t01), q10, t11));
  /* C^-1 = [j0 j1; j1* j3]: the bottom-right block */
  float j0, j3;
  cf32 j1;
  float r2 = mat_inv2_parts_(c0, c1, c3, a[10].re, a[15].re, &j0, &j1, &j3);
  cf32 j1c = cf_conj(j1);
  /* B = -T C^-1: the top-right block */
  cf32 b00 = cf_scale(cf_fma(cf_scale(t00, j0), t01, j1c), -1.0f);
  cf32 b01 = cf_scale(cf_fma(cf_scale(t01, j3), t00, j1), -1.0f);
  cf32 b10 = cf_scale(cf_fma(cf_scale(t10, j0), t11, j1c), -1.0f);
  cf32 b11 = cf_scale(cf_fma(cf_scale(t11, j3), t10, j1), -1.0f);
  /* top-left = P^-1 - B T^H, upper half: (B T^H)_ij = sum_k B_ik conj(T_jk) */
  float e0 = i0 - (b00.re * t00.re + b00.im * t00.im + b01.re * t01.re + b01.im * t01.im);
  float e3 = i3 - (b10.re * t10.re + b10.im * t10.im + b11.re * t11.re + b11.im * t11.im);
  cf32 e1 = cf_sub(i1, cf_add(cf_mul(b00, cf_conj(t10)), cf_mul(b01, cf_conj(t11))));

  out[0] = cf_make(e0, 0.0f);
  out[1] = e1;
  out[2] = b00;
  out[3] = b01;
  out[4] = cf_conj(e1);
  out[5] = cf_make(e3, 0.0f);
  out[6] = b10;
  out[7] = b11;
  out[8] = cf_conj(b00);
  out[9] = cf_conj(b10);
  out[10] = cf_make(j0, 0.0f);
  out[11] = j1;
  out[12] = cf_conj(b01);
  out[13] = cf_conj(b11);
  out[14] = j1c;
  out[15] = cf_make(j3, 0.0f);
  return fminf(r1, r2);
}

/* General n = 1..MAT_MAX_N: Cholesky A = L L^H, W = L^-1 (computed in place
 * over L, column by column), A^-1 = W^H W.  A failed pivot makes 1/L_jj NaN;
 * every later row of L and W inherits it and every (A^-1)_pq contains the term
 * of W's last row, so the whole output is NaN without a separate check. */
MAT_HD float mat_inv_chol(int n, const cf32 *a, cf32 *out) {
  cf32 l[MAT_MAX_N * MAT_MAX_N]; /* strictly lower part of L, then of W */
  float il[MAT_MAX_N];           /* 1 / L_jj = W_jj */
  float ratio = 1.0f;
  int ok_all = 1;
  /* never read before written; cleared so compilers need not prove it */
  MAT_UNROLL
  for (int e = 0; e < n * n; e++) l[e] = cf_make(0.0f, 0.0f);
  MAT_UNROLL
  for (int j = 0; j < n; j++) {
    float ajj = a[j * n + j].re;
    float d = ajj;
    MAT_UNROLL
    for (int k = 0; k < j; k++) d -= cf_abs2(l[j * n + k]);
    int ok = (d > MAT_SINGULAR_TOL * ajj) & (ajj < INFINITY);
    float inv = 1.0f / sqrtf(d);
    il[j] = ok ? inv : MAT_NAN;
    ratio = fminf(ratio, d / ajj);
    ok_all &= ok;
    MAT_UNROLL
    for (int i = j + 1; i < n; i++) {
      cf32 s = cf_conj(a[j * n + i]); /* a_ij from the upper triangle */
      MAT_UNROLL
      for (int k = 0; k < j; k++) s = cf_sub(s, cf_mul(l[i * n + k], cf_conj(l[j * n + k])));
      l[i * n + j] = cf_scale(s, il[j]);
    }
  }
  /* W = L^-1: W_ij = -W_ii sum_{k=j}^{i-1} L_ik W_kj, row by row.  Row i of W
   * needs rows k < i of W (done) and L_ik for k >= j, so W_ij overwrites L_ij
   * as j ascends. */
  MAT_UNROLL
  for (int i = 1; i < n; i++) {
    MAT_UNROLL
    for (int j = 0; j < i; j++) {
      cf32 s = cf_scale(l[i * n + j], il[j]); /* k = j: W_jj = il[j] */
      MAT_UNROLL
      for (int k = j + 1; k < i; k++) s = cf_fma(s, l[i * n + k], l[k * n + j]);
      l[i * n + j] = cf_scale(s, -il[i]);
    }
  }
  /* A^-1 = W^H W, upper half: X_pq = sum_{k>=q} conj(W_kp) W_kq */
  MAT_UNROLL
  for (int p = 0; p < n; p++) {
    float xpp = il[p] * il[p];
    MAT_UNROLL
    for (int k = p + 1; k < n; k++) xpp += cf_abs2(l[k * n + p]);
    out[p * n + p] = cf_make(xpp, 0.0f);
    MAT_UNROLL
    for (int q = p + 1; q < n; q++) {
      cf32 x = cf_scale(cf_conj(l[q * n + p]), il[q]); /* k = q: W_qq = il[q] */
      MAT_UNROLL
      for (int k = q + 1; k < n; k++) x = cf_cfma(x, l[k * n + p], l[k * n + q]);
      out[p * n + q] = x;
      out[q * n + p] = cf_conj(x);
    }
  }
  return ok_all ? ratio : fminf(ratio, 0.0f);
}

/* ------------------------------------------------------------------------ */
/* G = H^H H + diag*I (nt x nt, both triangles, real diagonal), H nr x nt. */
MAT_HD void mat_gram(int nr, int nt, const cf32 *h, float diag, cf32 *g) {
  MAT_UNROLL
  for (int i = 0; i < nt; i++) {
    float s = diag;
    MAT_UNROLL
    for (int r = 0; r < nr; r++) s += cf_abs2(h[r * nt + i]);
    g[i * nt + i] = cf_make(s, 0.0f);
    MAT_UNROLL
    for (int j = i + 1; j < nt; j++) {
      cf32 x = cf_make(0.0f, 0.0f);
      MAT_UNROLL
      for (int r = 0; r < nr; r++) x = cf_cfma(x, h[r * nt + i], h[r * nt + j]);
      g[i * nt + j] = x;
      g[j * nt + i] = cf_conj(x);
    }
  }
}

/* z = H^H y (z has nt entries, y has nr). */
MAT_HD void mat_herm_mulvec(int nr, int nt, const cf32 *h, const cf32 *y, cf32 *z) {
  MAT_UNROLL
  for (int t = 0; t < nt; t++) {
    cf32 s = cf_make(0.0f, 0.0f);
    MAT_UNROLL
    for (int r = 0; r < nr; r++) s = cf_cfma(s, h[r * nt + t], y[r]);
    z[t] = s;
  }
}

/* y = A x, A n x n. */
MAT_HD void mat_mulvec(int n, const cf32 *a, const cf32 *x, cf32 *y) {
  MAT_UNROLL
  for (int r = 0; r < n; r++) {
    cf32 s = cf_make(0.0f, 0.0f);
    MAT_UNROLL
    for (int c = 0; c < n; c++) s = cf_fma(s, a[r * n + c], x[c]);
    y[r] = s;
  }
}

/* MMSE with G = H^H H + N0 I gives W H = I - N0 G^-1, so stream t's estimate is
 * mu_t x_t + interference + noise with mu_t = 1 - N0 Re(G^-1)_tt; dividing by
 * mu_t removes the bias.  ZF passes n0_bias = 0 and gets gain 1 exactly. */
MAT_HD float mat_unbias_gain(float n0_bias, cf32 ginv_tt) {
  return 1.0f / (1.0f - n0_bias * ginv_tt.re);
}

/* x_hat = diag(gain) G^-1 z: the equaliser output of one RE (the CPU stack
 * loop and the CUDA kernel share it, so both round the same way). */
MAT_HD void mat_equalize(int n, const cf32 *ginv, const cf32 *z, float n0_bias, cf32 *xhat) {
  mat_mulvec(n, ginv, z, xhat);
  MAT_UNROLL
  for (int t = 0; t < n; t++) xhat[t] = cf_scale(xhat[t], mat_unbias_gain(n0_bias, ginv[t * n + t]));
}

#endif
