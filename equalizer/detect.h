/* Joint detection of one resource element: the sorted QR decomposition,
 * exhaustive maximum likelihood and the K-best tree search, with max-log
 * LLRs.  Shared by the CPU receiver and the CUDA kernels like smallmat.h:
 * plain C that nvcc also compiles, every function MAT_HD, every loop over a
 * layer, a receive antenna or a bit bounded by a size clamped to its
 * compile-time maximum and marked DET_UNROLL, so a kernel with compile-time
 * sizes keeps the QR and the ML search in registers.  No recursion, no
 * allocation.
 *
 * Model and conventions.  y = H x + n, n ~ CN(0, n0 I); H is nr x nt at
 * h[r*nt + t], nr >= nt (callers refuse rx < tx for these detectors),
 * nt <= MAT_MAX_N, nr <= MAT_MAX_RX.  Symbols are core/qam.h's (bps in
 * {1, 2, 4, 6, 8}: Gray BPSK or square QAM).  lab[t] is the label of stream t
 * in the ORIGINAL stream order; llr[t*bps + k] = ln P(b=1)/P(b=0) of bit k
 * ((label >> k) & 1) of stream t, max-log:
 *     llr = (min metric with b = 0 - min metric with b = 1) / n0,
 * metric = ||y - H x||^2; llr may be NULL (hard output only).
 *
 * Metric through the QR.  With H P = Q R (P a column permutation, Q nr x nt
 * with orthonormal columns, R upper triangular) and zq = Q^H y,
 *     ||y - H x||^2 = ||zq - R P^T x||^2 + (||y||^2 - ||zq||^2),
 * the last term the same for every candidate, so both searches use
 *     metric = sum_i d_i,  d_i = |b_i - r_ii s_i|^2,  b_i = zq_i - sum_{j>i} r_ij s_j
 * (s = P^T x, the streams in column order).  Layer i's increment depends on
 * the layers below it in the tree (j > i) only, so the tree is searched from
 * the last row up.  With r_ii real, d_i is separable per real dimension:
 *     d_i = (b_i.re - r_ii a)^2 + (b_i.im - r_ii c)^2,  s_i = a + i c,
 * and square QAM is a product of two PAMs, so the best symbol of a layer, and
 * the best one with a given bit value, come from L-level minima per dimension.
 *
 * One arithmetic, one order.  det_ml and det_kbest compute every partial
 * metric with the same helpers in the same order: b_i accumulated over
 * j = nt-1 down to i+1 (det_csub_), each per-dimension square rounded on its
 * own (det_sq_), d_i = sq_I + sq_Q, the partial metric of a path pm + d_i from
 * the last layer down.  Every product is an explicit fmaf or a rounded
 * multiplication, so no compiler contracts it differently (nvcc's -fmad, a
 * GNU-mode GCC): the values are the same on the CPU and the GPU for the same
 * inputs, and det_kbest with K = M^nt (which keeps every path) finds the same
 * metrics as det_ml, hence the same decision and the same LLRs.  (Float
 * addition is monotone, so ML's minimum over layer 0 taken per dimension,
 * pm + (min sq_I + min sq_Q), is exactly the smallest of the pm + (sq_I + sq_Q)
 * that K-best forms one by one.)  Exact metric ties are broken towards the
 * candidate found first (ML: the odometer order, K-best: the generation
 * order), which can differ between the two: for continuous inputs they do
 * not happen; an exactly rank-deficient H (a zero column: every symbol of its
 * layer ties) resolves to label 0 in both. */
#ifndef OFDMSIM_DETECT_H
#define OFDMSIM_DETECT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/cplx.h"
#include "core/params.h"
#include "core/qam.h"
#include "equalizer/smallmat.h"

/* Unrolling: on the GPU (compile-time sizes, a kernel template) every loop
 * below unrolls fully, so the arrays indexed by layer, bit and antenna stay in
 * registers.  On the host the loops stay rolled, unlike MAT_UNROLL's GCC
 * "unroll 64": that serves the SoA item loops, which vectorise across
 * matrices, while a detector is a serial search per RE; and on loops with
 * run-time bounds, nested three deep as here, it has GCC emit up to 64^3
 * copies (a test with run-time sizes took cc1 over 15 minutes).  GCC -O3
 * still peels the constant-bound loops of a fixed-size caller by itself. */
#ifdef __CUDACC__
#define DET_UNROLL OFDM_UNROLL
#else
#define DET_UNROLL
#endif

/* Bits of a symbol and PAM levels of a dimension at most (256-QAM). */
#define DET_MAX_BPS 8
#define DET_MAX_LEVELS 16
#define DET_MAX_HALF 4 /* bits of a dimension */
/* log2 LINK_MAX_ML_CANDIDATES: the bits of all layers of an ML candidate */
#define DET_ML_BITS 16
#ifdef __cplusplus
static_assert(1 << DET_ML_BITS == LINK_MAX_ML_CANDIDATES, "DET_ML_BITS");
#else
_Static_assert(1 << DET_ML_BITS == LINK_MAX_ML_CANDIDATES, "DET_ML_BITS");
#endif

/* ------------------------------------------------------------------------ */
/* The shared arithmetic. */


/* acc - r x, complex, the products fused as written (cf_fma_exact). */
MAT_HD cf32 det_csub_(cf32 acc, cf32 r, cf32 x) { return cf_fma_exact(acc, cf_make(-r.re, -r.im), x); }

/* acc + conj(a) b with explicit fmaf (the inner products of the QR). */
MAT_HD cf32 det_cdot_(cf32 acc, cf32 a, cf32 b) {
  return cf_make(fmaf(a.re, b.re, fmaf(a.im, b.im, acc.re)), fmaf(a.re, b.im, fmaf(-a.im, b.re, acc.im)));
}

/* acc + |a|^2 with explicit fmaf. */
MAT_HD float det_abs2_acc_(float acc, cf32 a) { return fmaf(a.re, a.re, fmaf(a.im, a.im, acc)); }

/* One dimension of a layer increment: (b - r a)^2, r = r_ii. */
MAT_HD float det_sq_(float b, float r, float a) {
  const float e = fmaf(-r, a, b);
  return mul_rn(e, e);
}

/* A layer's increment |b - r s|^2 = sq_I + sq_Q: the per-dimension squares
 * rounded first, so ML's per-dimension minima give the same sums. */
MAT_HD float det_inc_(cf32 b, float r, cf32 s) { return det_sq_(b.re, r, s.re) + det_sq_(b.im, r, s.im); }

/* Amplitude of PAM level idx of `levels` (0 = most negative): exactly
 * qam_map's value for that level (BPSK: +-1 on I; the single "level" of its Q
 * dimension is 0). */
MAT_HD float det_level_(int idx, int levels, float s) { return (float)(2 * idx - (levels - 1)) * s; }

/* The symbol of a label: qam_map's value bit for bit (the same level formula
 * and scale), without its per-call checks and switch; hq, li, lq as below. */
MAT_HD cf32 det_sym_(uint32_t lab, int hq, int li, int lq, float s) {
  return cf_make(det_level_((int)qam_gray_decode(lab >> hq), li, s),
                 det_level_((int)qam_gray_decode(lab & (uint32_t)(lq - 1)), lq, s));
}

/* The split of a label: the low hq bits are the Q PAM label, the high
 * hi = bps - hq the I one (BPSK: hi = 1, hq = 0, a single Q level). */
MAT_HD int det_hq_(int bps) { return bps >> 1; }

/* m, lowered to v where sel holds and v < m (a select; NaN v never enters). */
MAT_HD float det_min_if_(int sel, float v, float m) { return (sel & (v < m)) ? v : m; }

MAT_HD void det_cswap_(int s, cf32 *a, cf32 *b) {
  const cf32 ta = *a, tb = *b;
  *a = s ? tb : ta;
  *b = s ? ta : tb;
}

/* ------------------------------------------------------------------------ */
/* Sorted QR decomposition (SQRD, Wubben et al. 2001) by modified Gram-Schmidt
 * with column pivoting: H P = Q R, where at step i the remaining column with
 * the smallest residual norm is taken (the first of equal ones), so the
 * weakest streams sit in the first rows and the tree searches, which start
 * from the last row, detect the strongest first (and, with K = 1, cancel them
 * before the weak ones are decided).
 *   r: nt x nt upper triangular, r[i*nt + j], real non-negative diagonal,
 *      zeros below it;
 *   zq = Q^H y (nt entries);  perm[i] = the original stream of column i.
 * Returns ||y||^2 - ||zq||^2, the part of the metric no candidate changes
 * (callers may ignore it).
 *
 * Numerics.  y is carried as an extra column of the Gram-Schmidt sweep (zq_i
 * is taken from y with the earlier q's already projected out, Bjorck's
 * augmented MGS): that is what keeps ||zq - R s||^2 + ret equal to
 * ||y - H P s||^2 to rounding even when MGS's Q drifts from orthonormal on an
 * ill-conditioned H, and the return value is the norm of that residual,
 * non-negative with no cancellation.  The residual norms that pick the pivots
 * are recomputed from the updated columns rather than downdated
 * (norm -= |r_il|^2), which cancels exactly when a column is nearly in the
 * span of the earlier ones, where the ordering matters most.  A column with
 * zero residual (rank-deficient H) gets r_ii = 0 and q_i = 0: its row of R
 * and zq_i are 0, and every symbol of that layer ties.  All products are
 * explicit fmaf, so the CPU and the GPU agree bit for bit. */
MAT_HD float det_sqrd(int nr, int nt, const cf32 *h, const cf32 *y, int *perm, cf32 *r, cf32 *zq) {
  cf32 q[MAT_MAX_RX * MAT_MAX_N]; /* the columns being orthogonalised, q[row*nt + col] */
  cf32 yr[MAT_MAX_RX];            /* y less its projections on q_0..q_{i-1} */
  float nrm[MAT_MAX_N];           /* residual norms^2 of the columns not yet taken */
  nr = nr < MAT_MAX_RX ? nr : MAT_MAX_RX;
  nt = nt < MAT_MAX_N ? nt : MAT_MAX_N;
  DET_UNROLL
  for (int e = 0; e < nr * nt; e++) q[e] = h[e];
  DET_UNROLL
  for (int k = 0; k < nr; k++) yr[k] = y[k];
  DET_UNROLL
  for (int e = 0; e < nt * nt; e++) r[e] = cf_make(0.0f, 0.0f);
  DET_UNROLL
  for (int t = 0; t < nt; t++) {
    perm[t] = t;
    float s = 0.0f;
    DET_UNROLL
    for (int k = 0; k < nr; k++) s = det_abs2_acc_(s, q[k * nt + t]);
    nrm[t] = s;
  }
  DET_UNROLL
  for (int i = 0; i < nt; i++) {
    /* pivot: the first smallest residual norm among columns i..nt-1 */
    int piv = i;
    float pn = nrm[i];
    DET_UNROLL
    for (int l = i + 1; l < nt; l++) {
      const int take = nrm[l] < pn;
      pn = take ? nrm[l] : pn;
      piv = take ? l : piv;
    }
    /* swap columns i and piv (of Q, of the rows of R done so far, of the
     * bookkeeping) by selects over compile-time indices: a computed index
     * would send the arrays to local memory on the GPU */
    DET_UNROLL
    for (int l = i + 1; l < nt; l++) {
      const int s = l == piv;
      const float ni = nrm[i], nl = nrm[l];
      nrm[i] = s ? nl : ni;
      nrm[l] = s ? ni : nl;
      const int pi = perm[i], pl = perm[l];
      perm[i] = s ? pl : pi;
      perm[l] = s ? pi : pl;
      DET_UNROLL
      for (int k = 0; k < nr; k++) det_cswap_(s, &q[k * nt + i], &q[k * nt + l]);
      DET_UNROLL
      for (int m = 0; m < i; m++) det_cswap_(s, &r[m * nt + i], &r[m * nt + l]);
    }
    /* r_ii = ||q_i||, q_i /= r_ii (a zero or overflowing reciprocal: q_i = 0) */
    const float rii = sqrtf(nrm[i]);
    float inv = 1.0f / rii;
    inv = ((rii > 0.0f) & (inv < INFINITY)) ? inv : 0.0f;
    r[i * nt + i] = cf_make(rii, 0.0f);
    DET_UNROLL
    for (int k = 0; k < nr; k++) q[k * nt + i] = cf_scale(q[k * nt + i], inv);
    /* the remaining columns: r_il = q_i^H q_l, q_l -= r_il q_i, new norm */
    DET_UNROLL
    for (int l = i + 1; l < nt; l++) {
      cf32 ril = cf_make(0.0f, 0.0f);
      DET_UNROLL
      for (int k = 0; k < nr; k++) ril = det_cdot_(ril, q[k * nt + i], q[k * nt + l]);
      r[i * nt + l] = ril;
      float s = 0.0f;
      DET_UNROLL
      for (int k = 0; k < nr; k++) {
        q[k * nt + l] = det_csub_(q[k * nt + l], ril, q[k * nt + i]);
        s = det_abs2_acc_(s, q[k * nt + l]);
      }
      nrm[l] = s;
    }
    /* y as one more column: zq_i = q_i^H y_res, y_res -= zq_i q_i */
    cf32 z = cf_make(0.0f, 0.0f);
    DET_UNROLL
    for (int k = 0; k < nr; k++) z = det_cdot_(z, q[k * nt + i], yr[k]);
    zq[i] = z;
    DET_UNROLL
    for (int k = 0; k < nr; k++) yr[k] = det_csub_(yr[k], z, q[k * nt + i]);
  }
  float res = 0.0f;
  DET_UNROLL
  for (int k = 0; k < nr; k++) res = det_abs2_acc_(res, yr[k]);
  return res;
}

/* ------------------------------------------------------------------------ */
/* One bit's max-log LLR from its two minima (a0: bit 0, a1: bit 1; INFINITY:
 * no candidate with that value): (a0 - a1) / n0, or +-clip with the sign of
 * the best candidate's bit (best1) where a minimum is missing or n0 <= 0. */
MAT_HD float det_llr_(float a0, float a1, int best1, float n0, float clip) {
  const float v = (a0 - a1) / n0; /* computed always, selected below: no branch */
  const float c = best1 ? clip : -clip;
  const int ok = (n0 > 0.0f) & (a0 < INFINITY) & (a1 < INFINITY);
  return ok ? v : c;
}

/* The outputs of both searches, from per-layer results in column order:
 * bl[i] the best label of layer i, m0/m1[i*DET_MAX_BPS + k] the smallest
 * metric with bit k of layer i equal to 0 / 1 (INFINITY: no such candidate
 * seen).  Stream perm[i] gets layer i's values, gathered by selects over
 * compile-time indices.  A bit without a counter-hypothesis, or any bit when
 * n0 <= 0, gets +-clip with the sign of the best candidate's bit (which is the
 * sign the max-log difference has whenever it exists).  kmax: the caller's
 * compile-time bound on bps (the bit loops' length). */
MAT_HD void det_output_(int nt, int bps, int kmax, const int *perm, const uint32_t *bl, const float *m0,
                        const float *m1, float n0, float clip, uint32_t *lab, float *llr) {
  DET_UNROLL
  for (int t = 0; t < nt; t++) {
    uint32_t lt = 0u;
    DET_UNROLL
    for (int i = 0; i < nt; i++) lt = perm[i] == t ? bl[i] : lt;
    lab[t] = lt;
    if (!llr) continue;
    DET_UNROLL
    for (int k = 0; k < kmax; k++) {
      if (k >= bps) break;
      float a0 = INFINITY, a1 = INFINITY;
      DET_UNROLL
      for (int i = 0; i < nt; i++) {
        a0 = perm[i] == t ? m0[i * DET_MAX_BPS + k] : a0;
        a1 = perm[i] == t ? m1[i * DET_MAX_BPS + k] : a1;
      }
      llr[t * bps + k] = det_llr_(a0, a1, (int)((lt >> k) & 1u), n0, clip);
    }
  }
}

/* ------------------------------------------------------------------------ */
/* Exhaustive maximum likelihood over all M^nt candidates, M = 2^bps (callers
 * guarantee M^nt <= LINK_MAX_ML_CANDIDATES; the work is M^(nt-1) steps of
 * O(L) each), with max-log LLRs.  clip: |LLR| of every bit when n0 <= 0 (no
 * noise: the likelihood ratios are infinite; the config's llr_clip).
 *
 * The layers 1..nt-1 run through all M^(nt-1) label combinations as an
 * odometer (layer 1 the fastest digit; no recursion).  acc[j][i] =
 * zq_i - sum_{l >= j} r_il s_l (i < j) and pm[j] = sum_{l >= j} d_l are kept
 * for every level j, so a step recomputes only the digits that changed (one
 * on most steps).  Layer 0 is solved in closed form: its increment is
 * sq_I(a) + sq_Q(c) over the L levels of each dimension, so the best x_0, and
 * for each bit of x_0 and each bit value the best x_0 with that value, come
 * from per-dimension minima (2L squares a step instead of M).
 *
 * Bit minima.  The metric of a combination (its best x_0) goes into blk[1];
 * blk[j] is the best metric of the block of combinations that share digits
 * j..nt-1, and is folded into layer j's per-bit minima (by that digit's bits)
 * and into blk[j+1] when digit j moves on, so the bits of layer j are touched
 * once every M^(j-1) steps.  All these arrays are indexed by compile-time
 * layer and bit numbers, with selects: in registers on the GPU. */
MAT_HD void det_ml(int nr, int nt, int bps, const cf32 *h, const cf32 *y, float n0, float clip, uint32_t *lab,
                   float *llr) {
  cf32 r[MAT_MAX_N * MAT_MAX_N], zq[MAT_MAX_N];
  int perm[MAT_MAX_N];
  nt = nt < 1 ? 1 : nt < MAT_MAX_N ? nt : MAT_MAX_N;
  /* M^nt <= 2^DET_ML_BITS leaves a layer at most kmax = DET_ML_BITS / nt bits
   * (4 at nt = 4): a bound known at compile time with nt, which sizes the bit
   * and level loops below and so the registers they hold.  (A bps beyond it
   * breaks the precondition; it is clamped, for memory safety only.) */
  const int kmax = DET_ML_BITS / nt < DET_MAX_BPS ? DET_ML_BITS / nt : DET_MAX_BPS;
  const int hmax = (kmax + 1) >> 1, lmax = 1 << hmax; /* bits and levels of a dimension */
  bps = bps < 1 ? 1 : bps < kmax ? bps : kmax;
  (void)det_sqrd(nr, nt, h, y, perm, r, zq);

  const int hq = det_hq_(bps), hi = bps - hq;
  const int li = 1 << hi, lq = 1 << hq;
  const uint32_t M = 1u << bps;
  const float sc = qam_scale(bps);
  const float r00 = r[0].re;
  float lvi[DET_MAX_LEVELS], lvq[DET_MAX_LEVELS]; /* layer 0's level amplitudes */
  DET_UNROLL
  for (int l = 0; l < lmax; l++) {
    lvi[l] = det_level_(l, li, sc);
    lvq[l] = det_level_(l, lq, sc);
  }

  cf32 acc[(MAT_MAX_N + 1) * MAT_MAX_N]; /* acc[j*MAT_MAX_N + i], i < j */
  float pm[MAT_MAX_N + 1], blk[MAT_MAX_N + 1];
  uint32_t dig[MAT_MAX_N], best_dig[MAT_MAX_N];
  float m0[MAT_MAX_N * DET_MAX_BPS], m1[MAT_MAX_N * DET_MAX_BPS];
  float i0[DET_MAX_HALF], i1[DET_MAX_HALF], q0[DET_MAX_HALF], q1[DET_MAX_HALF]; /* layer 0, per dimension */
  DET_UNROLL
  for (int e = 0; e < MAT_MAX_N * DET_MAX_BPS; e++) m0[e] = m1[e] = INFINITY;
  DET_UNROLL
  for (int k = 0; k < hmax; k++) i0[k] = i1[k] = q0[k] = q1[k] = INFINITY;
  /* whole arrays (a kernel with compile-time sizes drops the dead stores):
   * nothing then reads an unwritten entry whatever a compiler can prove */
  DET_UNROLL
  for (int j = 0; j <= MAT_MAX_N; j++) pm[j] = blk[j] = INFINITY;
  DET_UNROLL
  for (int j = 0; j < MAT_MAX_N; j++) dig[j] = best_dig[j] = 0u;
  DET_UNROLL
  for (int i = 0; i < nt; i++) acc[nt * MAT_MAX_N + i] = zq[i];
  pm[nt] = 0.0f;
  float best = INFINITY;
  uint32_t best0 = 0u;

  int top = nt - 1; /* the highest digit that changed: all of them at first */
  int done = 0;
  do {
    /* 1. Digits top..1 changed: their interference and partial metrics, from
     *    the top down (acc[j] needs acc[j+1], which did not change). */
    DET_UNROLL
    for (int jj = 0; jj < nt - 1; jj++) {
      const int j = nt - 1 - jj;
      if (j <= top) {
        const cf32 x = det_sym_(dig[j], hq, li, lq, sc);
        DET_UNROLL
        for (int i = 0; i < j; i++)
          acc[j * MAT_MAX_N + i] = det_csub_(acc[(j + 1) * MAT_MAX_N + i], r[i * nt + j], x);
        pm[j] = pm[j + 1] + det_inc_(acc[(j + 1) * MAT_MAX_N + j], r[j * nt + j].re, x);
      }
    }
    /* 2. Layer 0 per dimension: the L squares of each, their minimum (first
     *    of equal ones, as the label order goes) and the minimum per bit value
     *    of that dimension's bits. */
    const cf32 b = acc[MAT_MAX_N + 0];
    const float base = pm[1];
    float bi = INFINITY, bq = INFINITY;
    uint32_t ai = 0u, aq = 0u;
    float di0[DET_MAX_HALF], di1[DET_MAX_HALF], dq0[DET_MAX_HALF], dq1[DET_MAX_HALF];
    DET_UNROLL
    for (int k = 0; k < hmax; k++) di0[k] = di1[k] = dq0[k] = dq1[k] = INFINITY;
    DET_UNROLL
    for (int l = 0; l < lmax; l++) {
      if (l >= li) break;
      const float d = det_sq_(b.re, r00, lvi[l]);
      const uint32_t g = qam_gray_encode((uint32_t)l);
      const int t = d < bi;
      bi = t ? d : bi;
      ai = t ? g : ai;
      DET_UNROLL
      for (int k = 0; k < hmax; k++) {
        if (k >= hi) break;
        const int one = (int)((g >> k) & 1u);
        di1[k] = det_min_if_(one, d, di1[k]);
        di0[k] = det_min_if_(!one, d, di0[k]);
      }
    }
    DET_UNROLL
    for (int l = 0; l < lmax; l++) {
      if (l >= lq) break;
      const float d = det_sq_(b.im, r00, lvq[l]);
      const uint32_t g = qam_gray_encode((uint32_t)l);
      const int t = d < bq;
      bq = t ? d : bq;
      aq = t ? g : aq;
      DET_UNROLL
      for (int k = 0; k < hmax; k++) {
        if (k >= hq) break;
        const int one = (int)((g >> k) & 1u);
        dq1[k] = det_min_if_(one, d, dq1[k]);
        dq0[k] = det_min_if_(!one, d, dq0[k]);
      }
    }
    /* 3. This combination's best metric, the overall best, layer 0's bits:
     *    pm + (sq_I + sq_Q), the sum K-best forms, with each dimension at
     *    its (constrained) minimum. */
    const float tot = base + (bi + bq);
    const int better = tot < best;
    best = better ? tot : best;
    best0 = better ? (ai << hq) | aq : best0;
    DET_UNROLL
    for (int j = 1; j < nt; j++) best_dig[j] = better ? dig[j] : best_dig[j];
    DET_UNROLL
    for (int k = 0; k < hmax; k++) {
      if (k < hi) {
        const float v0 = base + (di0[k] + bq), v1 = base + (di1[k] + bq);
        i0[k] = v0 < i0[k] ? v0 : i0[k];
        i1[k] = v1 < i1[k] ? v1 : i1[k];
      }
      if (k < hq) {
        const float v0 = base + (bi + dq0[k]), v1 = base + (bi + dq1[k]);
        q0[k] = v0 < q0[k] ? v0 : q0[k];
        q1[k] = v1 < q1[k] ? v1 : q1[k];
      }
    }
    blk[1] = tot < blk[1] ? tot : blk[1];
    /* 4. Advance the odometer; a digit about to move closes its block first. */
    int carry = 1;
    top = 0;
    DET_UNROLL
    for (int j = 1; j < nt; j++) {
      if (carry) {
        const uint32_t d = dig[j];
        const float v = blk[j];
        DET_UNROLL
        for (int k = 0; k < kmax; k++) {
          if (k >= bps) break;
          const int one = (int)((d >> k) & 1u);
          m1[j * DET_MAX_BPS + k] = det_min_if_(one, v, m1[j * DET_MAX_BPS + k]);
          m0[j * DET_MAX_BPS + k] = det_min_if_(!one, v, m0[j * DET_MAX_BPS + k]);
        }
        blk[j + 1] = v < blk[j + 1] ? v : blk[j + 1];
        blk[j] = INFINITY;
        const uint32_t nd = d + 1u;
        carry = nd == M;
        dig[j] = carry ? 0u : nd;
        top = j;
      }
    }
    done = carry; /* the carry left the top digit: every combination seen */
  } while (!done);

  /* layer 0's bits in label order: Q bits 0..hq-1, I bits hq..bps-1 */
  DET_UNROLL
  for (int kk = 0; kk < kmax; kk++) {
    float v0 = INFINITY, v1 = INFINITY;
    DET_UNROLL
    for (int k = 0; k < hmax; k++) {
      const int isq = (k < hq) & (kk == k), isi = (k < hi) & (kk == hq + k);
      v0 = isq ? q0[k] : isi ? i0[k] : v0;
      v1 = isq ? q1[k] : isi ? i1[k] : v1;
    }
    m0[kk] = v0;
    m1[kk] = v1;
  }
  uint32_t bl[MAT_MAX_N];
  bl[0] = best0;
  DET_UNROLL
  for (int j = 1; j < nt; j++) bl[j] = best_dig[j];
  det_output_(nt, bps, kmax, perm, bl, m0, m1, n0, clip, lab, llr);
}

/* ------------------------------------------------------------------------ */
/* K-best's order.  The survivors of a layer are the K smallest children
 * under a total order on (key of the partial metric, generation index
 * g = p*M + c: the parent's place in its list, then the child's label), and
 * the list keeps them in that order; so the list is one well-defined set in
 * one order, whatever algorithm selects it: the CPU's insertion
 * (det_insert_) and the GPU's parallel selection (cuda/kbest_gpu.cu) give the
 * same lists.  The key of a metric is its float bits: a metric is a sum of
 * rounded squares, +0 or positive (a square of -0 is +0), where the bits order
 * as the values do; every NaN (an Inf or NaN in H or y) gets the one key
 * 0x7fc00000, above +Inf, so NaN payloads, which differ between the host and
 * the device, order nothing. */
#define DET_KEY_NAN 0x7fc00000u

MAT_HD uint32_t det_key_(float v) {
#ifdef __CUDA_ARCH__
  const uint32_t u = __float_as_uint(v);
#else
  uint32_t u;
  memcpy(&u, &v, sizeof u);
#endif
  return v != v ? DET_KEY_NAN : u;
}

/* K-best survivor lists: partial metrics in K-best's order, each with its
 * path (the labels decided so far, layer i's in bits 8i..8i+7).  Children
 * arrive in generation order, so a child enters with a strict < on the key,
 * behind every entry of equal key; when the list is full the last entry
 * drops out. */
MAT_HD void det_insert_(float *pm, uint64_t *path, int *n, int K, float v, uint64_t p) {
  const uint32_t kv = det_key_(v);
  int m = *n;
  if (m == K && !(kv < det_key_(pm[K - 1]))) return; /* not before the worst kept */
  int pos = m < K ? m : K - 1;
  while (pos > 0 && kv < det_key_(pm[pos - 1])) {
    pm[pos] = pm[pos - 1];
    path[pos] = path[pos - 1];
    pos--;
  }
  pm[pos] = v;
  path[pos] = p;
  *n = m < K ? m + 1 : K;
}

/* The observation of layer i with the parent's decided layers cancelled,
 * b_i = zq_i - sum_{j = nt-1 .. i+1} r_ij s_j, in ML's order (path as in
 * det_insert_). */
MAT_HD cf32 det_kbest_b_(int nt, int i, int hq, int li, int lq, float sc, const cf32 *r, const cf32 *zq,
                         uint64_t path) {
  cf32 b = zq[i];
  DET_UNROLL
  for (int jj = 0; jj < nt - 1 - i; jj++) {
    const int j = nt - 1 - jj;
    b = det_csub_(b, r[i * nt + j], det_sym_((uint32_t)(path >> (8 * j)) & 0xffu, hq, li, lq, sc));
  }
  return b;
}

/* The per-dimension squares of layer i's levels against b, indexed by PAM
 * label: a child with label c costs base + (sqi[c >> hq] + sqq[c & (lq-1)]).
 * lmax: the caller's compile-time bound on li and lq. */
MAT_HD void det_kbest_sq_(cf32 b, float rii, int li, int lq, int lmax, float sc, float *sqi, float *sqq) {
  DET_UNROLL
  for (int l = 0; l < lmax; l++) {
    if (l < li) sqi[qam_gray_encode((uint32_t)l)] = det_sq_(b.re, rii, det_level_(l, li, sc));
    if (l < lq) sqq[qam_gray_encode((uint32_t)l)] = det_sq_(b.im, rii, det_level_(l, lq, sc));
  }
}

/* K-best breadth-first tree search on the SQRD (1 <= K <= LINK_MAX_KBEST,
 * clamped): from the last row up, every survivor is extended by every symbol
 * of the next layer, and the K children first in K-best's order (above)
 * survive, in that order.  Each parent's interference b_i is computed once,
 * with the per-dimension squares of its L + L levels, so a child costs one
 * addition (sq_I[label >> hq] + sq_Q[label & mask]) and its insertion; no K*M
 * buffer.  Soft output: max-log over the final list; a bit whose value is
 * missing from the list (always at K = 1) gets +-clip, its sign from the
 * list; n0 <= 0 gives +-clip for every bit.  This is the CPU's search and the
 * GPU's for the sizes its group kernel does not cover (cuda/kbest_gpu.cu),
 * there with the two lists of K (partial metric, path) in per-thread local
 * memory (6 KiB at LINK_MAX_KBEST). */
MAT_HD void det_kbest(int nr, int nt, int bps, int K, const cf32 *h, const cf32 *y, float n0, float clip,
                      uint32_t *lab, float *llr) {
  cf32 r[MAT_MAX_N * MAT_MAX_N], zq[MAT_MAX_N];
  int perm[MAT_MAX_N];
  nt = nt < 1 ? 1 : nt < MAT_MAX_N ? nt : MAT_MAX_N;
  bps = bps < 1 ? 1 : bps < DET_MAX_BPS ? bps : DET_MAX_BPS;
  K = K < 1 ? 1 : K < LINK_MAX_KBEST ? K : LINK_MAX_KBEST;
  (void)det_sqrd(nr, nt, h, y, perm, r, zq);

  const int hq = det_hq_(bps), hi = bps - hq;
  const int li = 1 << hi, lq = 1 << hq;
  const uint32_t M = 1u << bps, qmask = (uint32_t)lq - 1u;
  const float sc = qam_scale(bps);

  float pm[2][LINK_MAX_KBEST];
  uint64_t path[2][LINK_MAX_KBEST];
  int n = 1; /* the root: no layer decided, metric 0 */
  pm[0][0] = 0.0f;
  path[0][0] = 0u;
  DET_UNROLL
  for (int ii = 0; ii < nt; ii++) {
    const int i = nt - 1 - ii; /* the layer (row) decided at this depth */
    const int cur = ii & 1, nxt = cur ^ 1;
    const float rii = r[i * nt + i].re;
    int m = 0;
    for (int p = 0; p < n; p++) {
      const uint64_t pp = path[cur][p];
      const cf32 b = det_kbest_b_(nt, i, hq, li, lq, sc, r, zq, pp);
      float sqi[DET_MAX_LEVELS], sqq[DET_MAX_LEVELS];
      det_kbest_sq_(b, rii, li, lq, DET_MAX_LEVELS, sc, sqi, sqq);
      const float base = pm[cur][p];
      for (uint32_t c = 0; c < M; c++) {
        const float v = base + (sqi[c >> hq] + sqq[c & qmask]);
        det_insert_(pm[nxt], path[nxt], &m, K, v, pp | ((uint64_t)c << (8 * i)));
      }
    }
    n = m;
  }
  const float *fm = pm[nt & 1];
  const uint64_t *fp = path[nt & 1];

  /* max-log over the final list, per layer and bit (compile-time indices) */
  float m0[MAT_MAX_N * DET_MAX_BPS], m1[MAT_MAX_N * DET_MAX_BPS];
  DET_UNROLL
  for (int e = 0; e < nt * DET_MAX_BPS; e++) m0[e] = m1[e] = INFINITY;
  if (llr) {
    for (int e = 0; e < n; e++) {
      const float v = fm[e];
      const uint64_t pe = fp[e];
      DET_UNROLL
      for (int i = 0; i < nt; i++) {
        const uint32_t lb = (uint32_t)(pe >> (8 * i)) & 0xffu;
        DET_UNROLL
        for (int k = 0; k < DET_MAX_BPS; k++) {
          if (k >= bps) break;
          const int one = (int)((lb >> k) & 1u);
          m1[i * DET_MAX_BPS + k] = det_min_if_(one, v, m1[i * DET_MAX_BPS + k]);
          m0[i * DET_MAX_BPS + k] = det_min_if_(!one, v, m0[i * DET_MAX_BPS + k]);
        }
      }
    }
  }
  uint32_t bl[MAT_MAX_N];
  DET_UNROLL
  for (int i = 0; i < nt; i++) bl[i] = (uint32_t)(fp[0] >> (8 * i)) & 0xffu;
  det_output_(nt, bps, DET_MAX_BPS, perm, bl, m0, m1, n0, clip, lab, llr);
}

#endif
