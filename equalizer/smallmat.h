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
 * Conditioning and singular inputs.  Each inverse returns
 *     r = 1 / max_i (a_ii (A^-1)_ii),
 * a reciprocal condition estimate that costs n multiplications: for Hermitian
 * positive definite A, 1 <= a_ii (A^-1)_ii <= cond(A), so 1/cond(A) <= r <= 1;
 * it is invariant under diagonal scaling (r = 1 for any diagonal matrix), as
 * the accuracy of the elimination is, and it is the reciprocal of the largest
 * diagonal entry of the inverse of the unit-diagonal scaling of A, so it goes
 * to 0 exactly when A approaches a singular matrix.  When a pivot of the
 * elimination is not positive (a non-PD or exactly singular input, NaN or Inf
 * entries) or r <= MAT_SINGULAR_TOL, the input is taken as singular: EVERY
 * output value (real and imaginary parts) is NaN and the return value is 0.  A
 * result is either an inverse or all NaN, never finite garbage.
 *   - Matrices with cond(A) < 1/MAT_SINGULAR_TOL (2.6e5) are never flagged.
 *   - An exactly singular input whose singularity the rounding hides (the
 *     computed last pivot comes out as small positive noise instead of 0) is
 *     in effect inverted as a matrix within about n^2 u of it, so its r is of
 *     order n^2 u and it is flagged all the same: measured over 10^5 integer
 *     rank-deficient matrices of each size, r <= 4e-7 before the flag, ten
 *     times below the tolerance.
 * The divisions behind r cost nothing to a caller that ignores it: inlining
 * drops them. */
#ifndef OFDMSIM_SMALLMAT_H
#define OFDMSIM_SMALLMAT_H

#include <math.h>

#include "core/cplx.h"

/* Largest sizes: nt <= MAT_MAX_N (LINK_MAX_TX), nr <= MAT_MAX_RX (LINK_MAX_RX).
 * The functions clamp larger arguments to these, which is what lets a compiler
 * see the bounds of the local arrays when a size is not a constant. */
#define MAT_MAX_N 8
#define MAT_MAX_RX 16

/* Reciprocal condition estimate r (see above) at or below which a matrix is
 * singular for float arithmetic: 2^-18, i.e. cond >~ 2.6e5, where the float
 * inverse keeps at most one or two correct digits (cond * 2^-24 >~ 0.016); ten
 * times above what the rounding of an exactly singular matrix produces. */
#define MAT_SINGULAR_TOL (1.0f / 262144.0f)

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
/* max for the condition estimate: unlike fmaxf (whose NaN rule x86 has no
 * vector instruction for) a plain select vectorises.  NaN operands are dealt
 * with separately. */
MAT_HD float mat_max_(float a, float b) { return a > b ? a : b; }

/* The flag of the contract above, from ax = max_i a_ii (A^-1)_ii as computed
 * (NaN when a pivot failed, which the comparison rejects as well): adding 0
 * leaves the finished n x n output as it is, adding NaN makes every real and
 * imaginary part NaN.  Returns r = 1/ax, or 0 when flagged. */
MAT_HD float mat_finish_(int n, float ax, cf32 *out) {
  int ok = ax * MAT_SINGULAR_TOL < 1.0f;
  float poison = ok ? 0.0f : MAT_NAN;
  MAT_UNROLL
  for (int e = 0; e < n * n; e++) out[e] = cf_make(out[e].re + poison, out[e].im + poison);
  float r = 1.0f / ax;
  return ok ? r : 0.0f;
}

/* 1x1: 1/a. */
MAT_HD float mat_inv1(const cf32 *a, cf32 *out) {
  float x = a[0].re;
  float inv = 1.0f / x;
  int ok = (x > 0.0f) & (x < INFINITY);
  out[0] = ok ? cf_make(inv, 0.0f) : cf_make(MAT_NAN, MAT_NAN);
  return ok ? 1.0f : 0.0f;
}

/* 2x2 closed form: [a b; b* d]^-1 = [d -b; -b* a] / (ad - |b|^2). */
MAT_HD float mat_inv2_herm(const cf32 *m, cf32 *out) {
  float a = m[0].re, d = m[3].re;
  cf32 b = m[1];
  /* det = ad - |b|^2: the positive terms of |b|^2 summed first, then one fused
   * subtraction, so the cancellation happens once, with ad unrounded. */
  float det = fmaf(a, d, -fmaf(b.re, b.re, b.im * b.im));
  /* a x_00 = d x_11 = ad / det, tested without dividing */
  float ad = a * d;
  int ok = (a > 0.0f) & (det > 0.0f) & (ad * MAT_SINGULAR_TOL < det);
  /* divide unconditionally, then select: a conditional division is a branch
   * that keeps GCC from vectorising the item loop */
  float inv_det = 1.0f / det;
  inv_det = ok ? inv_det : MAT_NAN;
  out[0] = cf_make(d * inv_det, 0.0f * inv_det);
  out[1] = cf_make(-b.re * inv_det, -b.im * inv_det);
  out[2] = cf_conj(out[1]);
  out[3] = cf_make(a * inv_det, 0.0f * inv_det);
  float r = det / ad;
  return ok ? r : 0.0f;
}

/* 4x4 as 2x2 blocks, A = [P Q; Q^H S], by block LDL^H:
 *   P = L_P D_P L_P^H,  U = D_P^-1 L_P^-1 Q,  C = S - Q^H P^-1 Q = S - V^H U
 *   (V = L_P^-1 Q),  C = L_C D_C L_C^H,
 *   A = L D L^H with L = [L_P 0; U^H L_C],  A^-1 = W^H D^-1 W,  W = L^-1 =
 *   [L_P^-1 0; Z L_C^-1],  Z = -L_C^-1 U^H L_P^-1.
 * Every 2x2 factor is the closed form of its block (L_P = [1 0; l 1] with
 * l = p01^* / p00, the second pivot det P / p00; the same for C); the blocks of
 * A^-1 come out Hermitian-by-construction, upper half computed and mirrored.
 * Why not the textbook assembly P^-1 + T C^-1 T^H, -T C^-1 with T = P^-1 Q
 * and explicit 2x2 inverses: its rounding is amplified by cond(P) on top of
 * cond(A) (C = S - Q^H P^-1 Q loses cond(P) digits when formed with the
 * explicit P^-1, and the assembly's residual grows like cond(P) cond(A)):
 * measured on 10^5 matrices of cond 1e2..1e5, max ||AX - I|| / (n cond u) was
 * 1.5e4 (explicit C) and 13 (stable C, explicit assembly), against 1.0 for
 * this form and 0.5 for mat_inv_chol.  The W^H D^-1 W form is the Cholesky
 * inverse's and inherits its cond(A)-only accuracy. */
MAT_HD float mat_inv4_block(const cf32 *a, cf32 *out) {
  float p0 = a[0].re, p3 = a[5].re, s0 = a[10].re, s3 = a[15].re;
  cf32 pb = a[1], sb = a[11];
  cf32 q00 = a[2], q01 = a[3], q10 = a[6], q11 = a[7];
  /* P = L_P D_P L_P^H, D_P = diag(p0, d1) */
  float id0 = 1.0f / p0;
  cf32 l = cf_scale(cf_conj(pb), id0);
  float d1 = fmaf(-cf_abs2(pb), id0, p3);
  float id1 = 1.0f / d1;
  /* a pivot that is not positive poisons everything computed from it */
  id1 = (p0 > 0.0f) & (d1 > 0.0f) ? id1 : MAT_NAN;
  /* V = L_P^-1 Q (row 0 is Q's), U = D_P^-1 V */
  cf32 v10 = cf_sub(q10, cf_mul(l, q00)), v11 = cf_sub(q11, cf_mul(l, q01));
  cf32 u00 = cf_scale(q00, id0), u01 = cf_scale(q01, id0);
  cf32 u10 = cf_scale(v10, id1), u11 = cf_scale(v11, id1);
  /* C = S - V^H U, upper half; its diagonal subtracts non-negative terms only,
   * as Cholesky's pivots do */
  float c0 = s0 - (cf_abs2(q00) * id0 + cf_abs2(v10) * id1);
  float c3 = s3 - (cf_abs2(q01) * id0 + cf_abs2(v11) * id1);
  cf32 c1 = cf_sub(sb, cf_cfma(cf_cmul(q00, u01), v10, u11));
  /* C = L_C D_C L_C^H, D_C = diag(c0, e1) */
  float ie0 = 1.0f / c0;
  cf32 m = cf_scale(cf_conj(c1), ie0);
  float e1 = fmaf(-cf_abs2(c1), ie0, c3);
  float ie1 = 1.0f / e1;
  ie1 = (c0 > 0.0f) & (e1 > 0.0f) ? ie1 : MAT_NAN;
  /* K = U^H L_P^-1, L_P^-1 = [1 0; -l 1]: K_i0 = conj(U_0i) - conj(U_1i) l, K_i1 = conj(U_1i) */
  cf32 k00 = cf_sub(cf_conj(u00), cf_mul(cf_conj(u10), l)), k01 = cf_conj(u10);
  cf32 k10 = cf_sub(cf_conj(u01), cf_mul(cf_conj(u11), l)), k11 = cf_conj(u11);
  /* Z = -L_C^-1 K, L_C^-1 = [1 0; -m 1] */
  cf32 z00 = cf_scale(k00, -1.0f), z01 = cf_scale(k01, -1.0f);
  cf32 z10 = cf_sub(cf_mul(m, k00), k10), z11 = cf_sub(cf_mul(m, k01), k11);
  /* Rows of W: [1 0 0 0], [-l 1 0 0], [z00 z01 1 0], [z10 z11 -m 1], weighted
   * by D^-1 = (id0, id1, ie0, ie1): X_pq = sum_k conj(W_kp) W_kq / D_k. */
  cf32 ml = cf_scale(l, -1.0f), mm = cf_scale(m, -1.0f);
  cf32 g10 = cf_scale(ml, id1);                            /* row 1 / d1, col 0 */
  cf32 g20 = cf_scale(z00, ie0), g21 = cf_scale(z01, ie0); /* row 2 / e0 */
  cf32 g30 = cf_scale(z10, ie1), g31 = cf_scale(z11, ie1), g32 = cf_scale(mm, ie1); /* row 3 / e1 */
  float x00 = id0 + (ml.re * g10.re + ml.im * g10.im) + (z00.re * g20.re + z00.im * g20.im) +
              (z10.re * g30.re + z10.im * g30.im);
  float x11 = id1 + (z01.re * g21.re + z01.im * g21.im) + (z11.re * g31.re + z11.im * g31.im);
  float x22 = ie0 + (mm.re * g32.re + mm.im * g32.im);
  float x33 = ie1;
  cf32 x01 = cf_cfma(cf_cfma(cf_scale(cf_conj(ml), id1), z00, g21), z10, g31);
  cf32 x02 = cf_cfma(cf_conj(g20), z10, g32);
  cf32 x03 = cf_conj(g30);
  cf32 x12 = cf_cfma(cf_conj(g21), z11, g32);
  cf32 x13 = cf_conj(g31);
  cf32 x23 = cf_conj(g32);

  out[0] = cf_make(x00, 0.0f);
  out[1] = x01;
  out[2] = x02;
  out[3] = x03;
  out[4] = cf_conj(x01);
  out[5] = cf_make(x11, 0.0f);
  out[6] = x12;
  out[7] = x13;
  out[8] = cf_conj(x02);
  out[9] = cf_conj(x12);
  out[10] = cf_make(x22, 0.0f);
  out[11] = x23;
  out[12] = cf_conj(x03);
  out[13] = cf_conj(x13);
  out[14] = cf_conj(x23);
  out[15] = cf_make(x33, 0.0f);
  float ax = mat_max_(mat_max_(p0 * x00, p3 * x11), mat_max_(s0 * x22, s3 * x33));
  /* mat_max_ may drop a NaN operand: a failed pivot must not hide in ax */
  ax = ie1 == ie1 ? ax : MAT_NAN;
  return mat_finish_(4, ax, out);
}

/* General n = 1..MAT_MAX_N: Cholesky A = L L^H, W = L^-1 (computed in place
 * over L), A^-1 = W^H W.  A pivot that is not positive makes 1/L_jj NaN. */
MAT_HD float mat_inv_chol(int n, const cf32 *a, cf32 *out) {
  cf32 l[MAT_MAX_N * MAT_MAX_N]; /* strictly lower part of L, then of W */
  float il[MAT_MAX_N];           /* 1 / L_jj = W_jj */
  float ax = 0.0f;
  n = n < MAT_MAX_N ? n : MAT_MAX_N;
  if (n < 1) return 0.0f;
  /* never read before written; cleared so compilers need not prove it */
  MAT_UNROLL
  for (int e = 0; e < n * n; e++) l[e] = cf_make(0.0f, 0.0f);
  MAT_UNROLL
  for (int e = 0; e < MAT_MAX_N; e++) il[e] = 0.0f;
  MAT_UNROLL
  for (int j = 0; j < n; j++) {
    float ajj = a[j * n + j].re;
    float d = ajj;
    MAT_UNROLL
    for (int k = 0; k < j; k++) d -= cf_abs2(l[j * n + k]);
    float inv = 1.0f / sqrtf(d);
    il[j] = d > 0.0f ? inv : MAT_NAN;
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
    ax = mat_max_(ax, a[p * n + p].re * xpp);
    MAT_UNROLL
    for (int q = p + 1; q < n; q++) {
      cf32 x = cf_scale(cf_conj(l[q * n + p]), il[q]); /* k = q: W_qq = il[q] */
      MAT_UNROLL
      for (int k = q + 1; k < n; k++) x = cf_cfma(x, l[k * n + p], l[k * n + q]);
      out[p * n + q] = x;
      out[q * n + p] = cf_conj(x);
    }
  }
  /* mat_max_ may drop a NaN operand: a failed pivot (il[n-1] is NaN when any pivot
   * failed: every later row inherits it) must not hide in ax */
  ax = il[n - 1] == il[n - 1] ? ax : MAT_NAN;
  return mat_finish_(n, ax, out);
}

/* The one size -> algorithm rule, for every inversion on both backends:
 * closed form for 1 and 2, 2x2 blocks for 4, Cholesky otherwise. Called with
 * a literal n (a template constant in CUDA), the branches fold away. */
MAT_HD float mat_inv_herm(int n, const cf32 *a, cf32 *out) {
  if (n == 1) return mat_inv1(a, out);
  if (n == 2) return mat_inv2_herm(a, out);
  if (n == 4) return mat_inv4_block(a, out);
  return mat_inv_chol(n, a, out);
}

/* ------------------------------------------------------------------------ */
/* G = H^H H + diag*I (nt x nt, both triangles, real diagonal), H nr x nt. */
MAT_HD void mat_gram(int nr, int nt, const cf32 *h, float diag, cf32 *g) {
  nr = nr < MAT_MAX_RX ? nr : MAT_MAX_RX;
  nt = nt < MAT_MAX_N ? nt : MAT_MAX_N;
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
  nr = nr < MAT_MAX_RX ? nr : MAT_MAX_RX;
  nt = nt < MAT_MAX_N ? nt : MAT_MAX_N;
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
  n = n < MAT_MAX_N ? n : MAT_MAX_N;
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
  n = n < MAT_MAX_N ? n : MAT_MAX_N;
  mat_mulvec(n, ginv, z, xhat);
  MAT_UNROLL
  for (int t = 0; t < n; t++) xhat[t] = cf_scale(xhat[t], mat_unbias_gain(n0_bias, ginv[t * n + t]));
}

#endif
