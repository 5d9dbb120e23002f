/* Ordered MMSE successive interference cancellation (MMSE-SIC, V-BLAST
 * ordering) of one resource element, hard cancellation, with optional soft
 * outputs.  Plain C that nvcc also compiles (MAT_HD), shared by the CPU
 * receiver and the CUDA kernels like smallmat.h.
 *
 * Model and conventions.  y = H x + n, n ~ CN(0, n0 I), unit-energy symbols;
 * H is nr x nt at h[r*nt + t], nt <= MAT_MAX_N, nr <= MAT_MAX_RX (larger
 * arguments are clamped).  lab[t], llr[t*bps + k] are in the ORIGINAL stream
 * order, the LLR convention that of equalizer/soft.h.
 *
 * One stage, over the streams not yet detected (the set R):
 *   1. G = H_R^H H_R + n0 I,  z = H_R^H y   (the MMSE filter of R: G^-1 H_R^H)
 *   2. k = argmin_{t in R} (G^-1)_tt: the largest post-SINR, since stream t's
 *      unbiased SINR is 1/(n0 g_t) - 1 with g_t = (G^-1)_tt; exact ties go
 *      to the lowest stream index.
 *   3. x_k = (G^-1 z)_k / (1 - n0 g_k): the bias-corrected MMSE estimate
 *      (mat_unbias_gain), whose noise-plus-interference variance is
 *      soft_post_var(1, n0, g_k) = n0 g_k / (1 - n0 g_k).
 *   4. lab[k] = qam_demap(x_k); LLRs soft_demap(x_k, that variance).
 *   5. Hard cancellation: y -= h_k qam_map(lab[k]); R -= {k}.
 * A wrong decision propagates (the price of hard cancellation); the LLRs of
 * later stages assume the cancelled symbols were right.
 *
 * Fixed sizes.  The matrices keep the full size nt at every stage, so that a
 * CUDA kernel with compile-time sizes keeps them in registers: a detected
 * stream's column of the working channel is zeroed, which zeroes its row and
 * column of G and its entry of z, and its diagonal entry of G is set to 1, so
 * G is block diagonal after a permutation: its inverse is [ (G_R)^-1 , I ],
 * the remaining block's entries exactly those of the smaller problem, and
 * every estimate from it is too (the detected entries of z are 0).  1 rather
 * than n0 keeps that pivot's scale benign for the inversion and its condition
 * estimate (a decoupled entry contributes a_tt (A^-1)_tt = 1 either way).
 * The stream index k is a run-time value, but it is only ever compared with
 * the unrolled loop counters: selects and predicated stores at constant
 * indices, no array indexed by k.
 *
 * Singular stages.  A stage whose float inverse is flagged (smallmat.h: all
 * NaN; with a tiny n0 the Gram matrix of a near-singular H has cond > 2.6e5)
 * is computed again in double precision (sic_stage_double, out of line on the
 * GPU, on eq_solve_double's steps), and later stages return to float.  Its NaNs
 * never reach a decision: the flag is detected as "no stream selected" (every
 * comparison with NaN is false).  det_mmse_sic returns the number of such
 * stages.  On the GPU the cold branch is the kernel's only use of local
 * memory: a copy of the working channel and residual (1152 bytes at the
 * MAT_MAX sizes) for sic_stage_double, whose own frame is 1280 bytes; the
 * per-stage path stays in registers.
 *
 * Cancellation y -= h_k s_k uses explicit fmaf (cf_fma_exact), so the
 * residual is the same on the CPU and the GPU; the Gram matrix and the
 * inverse are smallmat.h's, which nvcc may contract differently from GCC, as
 * for the linear detectors (decisions differ only within rounding of a
 * threshold). */
#ifndef OFDMSIM_SIC_H
#define OFDMSIM_SIC_H

#include <math.h>
#include <stdint.h>

#include "core/cplx.h"
#include "core/params.h"
#include "core/qam.h"
#include "equalizer/fallback.h"
#include "equalizer/smallmat.h"
#include "equalizer/soft.h"

/* What one stage computed in double hands back: the selected stream, its
 * unbiased estimate and its (G^-1)_kk. */
typedef struct sic_pick {
  int k;
  cf32 x;
  float g;
} sic_pick;

/* One SIC stage in double: steps 1-3 of the float stage from the working
 * channel hw (detected columns zeroed; bit t of `done` set for them) and the
 * residual yw, through the linear receivers' double path (fallback.h): G =
 * H^H H + n0 I (unit diagonal for the detected streams) factored G = L L^H in
 * place, with its load when G is not positive definite even in double, then
 *     v = L^-1 z,  w_t = L^-1 e_t,  (G^-1)_tt = ||w_t||^2,  (G^-1 z)_k = w_k^H v.
 * If not even the loaded G has a factor (NaN or Inf in H), the lowest
 * remaining stream is taken with x = 0 and g = 1/n0 (zero LLRs).
 *
 * Out of line on the GPU: it runs for a tiny share of stages, and inlined its
 * double arrays would cost every thread registers.  Its inputs are a copy the
 * caller makes in the cold branch: passing the caller's own working arrays
 * would take their address and move them to local memory on the hot path. */
EQ_COLD sic_pick sic_stage_double(int nr, int nt, const cf32 *hw, const cf32 *yw, float n0, uint32_t done) {
  cd64 g[MAT_MAX_N * MAT_MAX_N], v[MAT_MAX_N], w[MAT_MAX_N];
  nt = nt < MAT_MAX_N ? nt : MAT_MAX_N;
  nr = nr < MAT_MAX_RX ? nr : MAT_MAX_RX;
  sic_pick p;
  p.k = 0;
  while (p.k < nt - 1 && ((done >> p.k) & 1u)) p.k++; /* the last resort: lowest remaining */
  p.x = cf_make(0.0f, 0.0f);
  p.g = 1.0f / n0;
  if (!eq_factor_double(nr, nt, hw, yw, n0, done, g, v)) return p;
  eq_forward_double(nt, g, v);
  /* The remaining stream with the smallest (G^-1)_tt (strictly smaller: ties
   * stay with the lower index), then x_k = w_k^H v with w_k recomputed. */
  double gbest = INFINITY;
  int kbest = -1;
  for (int t = 0; t < nt; t++) {
    if ((done >> t) & 1u) continue;
    const double gt = eq_inverse_diag_double(nt, g, t, w);
    if (gt < gbest) {
      gbest = gt;
      kbest = t;
    }
  }
  if (kbest < 0) return p; /* NaN everywhere */
  eq_inverse_diag_double(nt, g, kbest, w);
  double xr = 0.0, xi = 0.0;
  for (int i = kbest; i < nt; i++) {
    xr += mul_rn_d(w[i].re, v[i].re) + mul_rn_d(w[i].im, v[i].im); /* rounded apart: fallback.h says why */
    xi += mul_rn_d(w[i].re, v[i].im) - mul_rn_d(w[i].im, v[i].re);
  }
  const double mu = 1.0 - mul_rn_d((double)n0, gbest);
  const double gain = mu > 0.0 ? 1.0 / mu : 0.0; /* no SINR left: x = 0, as in the float stage */
  p.k = kbest;
  p.x = cf_make((float)mul_rn_d(xr, gain), (float)mul_rn_d(xi, gain));
  p.g = (float)gbest;
  return p;
}

/* The stages of det_mmse_sic; in_double = 0 (a constant in the caller)
 * gives up on the first flagged stage instead, returning -1 with lab and
 * llr partly written: the GPU's fused kernel lists such an RE for its repair
 * kernel, which runs det_mmse_sic, so that the hot kernel carries none of
 * the cold branch's copies (its only local memory) or registers. */
MAT_HD int sic_stages(int nr, int nt, int bps, const cf32 *h, const cf32 *y, float n0, int llr_mode,
                      uint32_t *lab, float *llr, int in_double) {
  cf32 hw[MAT_MAX_RX * MAT_MAX_N], yw[MAT_MAX_RX]; /* working channel and residual */
  nt = nt < MAT_MAX_N ? nt : MAT_MAX_N;
  nr = nr < MAT_MAX_RX ? nr : MAT_MAX_RX;
  const int soft = llr != NULL && llr_mode != LLR_OFF;
  MAT_UNROLL
  for (int e = 0; e < nr * nt; e++) hw[e] = h[e];
  MAT_UNROLL
  for (int r = 0; r < nr; r++) yw[r] = y[r];
  uint32_t done = 0u;
  int fallbacks = 0;
  for (int stage = 0; stage < nt; stage++) {
    /* 1. G (detected streams decoupled with a unit diagonal), z, G^-1 */
    cf32 g[MAT_MAX_N * MAT_MAX_N], gi[MAT_MAX_N * MAT_MAX_N], z[MAT_MAX_N], x[MAT_MAX_N];
    /* z, x and lt below are written before they are read, for the same n;
     * cleared so compilers need not prove it (dead stores once the sizes are
     * constants) */
    MAT_UNROLL
    for (int t = 0; t < MAT_MAX_N; t++) z[t] = x[t] = cf_make(0.0f, 0.0f);
    mat_gram(nr, nt, hw, n0, g);
    MAT_UNROLL
    for (int t = 0; t < nt; t++)
      if ((done >> t) & 1u) g[t * nt + t] = cf_make(1.0f, 0.0f);
    mat_herm_mulvec(nr, nt, hw, yw, z);
    mat_inv_herm(nt, g, gi);
    mat_mulvec(nt, gi, z, x); /* G^-1 z, every stream (selected below) */
    /* 2. the remaining stream with the smallest (G^-1)_tt; a flagged (NaN)
     * inverse selects none (k stays -1) */
    int k = -1;
    float gk = INFINITY;
    cf32 xk = cf_make(0.0f, 0.0f);
    MAT_UNROLL
    for (int t = 0; t < nt; t++) {
      const float gt = gi[t * nt + t].re;
      const int take = !((done >> t) & 1u) && gt < gk;
      k = take ? t : k;
      gk = take ? gt : gk;
      xk = take ? x[t] : xk;
    }
    /* 3. the unbiased estimate (as mat_equalize computes it), or the stage
     * again in double */
    cf32 xu;
    if (k >= 0) {
      const float gain = mat_unbias_gain(n0, cf_make(gk, 0.0f));
      /* a stream with no SINR left (n0 g_k rounded to >= 1: a zero column)
       * is estimated as 0 rather than 0 * Inf; its LLRs are zero */
      xu = gain > 0.0f && gain < INFINITY ? cf_scale(xk, gain) : cf_make(0.0f, 0.0f);
    } else if (!in_double) {
      return -1;
    } else {
      cf32 hc[MAT_MAX_RX * MAT_MAX_N], yc[MAT_MAX_RX]; /* the copy it reads (see there) */
      MAT_UNROLL
      for (int e = 0; e < nr * nt; e++) hc[e] = hw[e];
      MAT_UNROLL
      for (int r = 0; r < nr; r++) yc[r] = yw[r];
      const sic_pick p = sic_stage_double(nr, nt, hc, yc, n0, done);
      k = p.k;
      gk = p.g;
      xu = p.x;
      fallbacks++;
    }
    /* 4. decision and soft outputs */
    const uint32_t lk = qam_demap(bps, xu);
    float lt[SOFT_MAX_BPS];
    MAT_UNROLL
    for (int j = 0; j < SOFT_MAX_BPS; j++) lt[j] = 0.0f;
    if (soft) soft_demap(bps, xu, soft_post_var(1, n0, gk), llr_mode == LLR_EXACT, lt);
    /* 5. cancellation of the decided symbol; outputs stored at constant
     * indices under the predicate t == k */
    const cf32 sk = qam_map(bps, lk);
    const cf32 msk = cf_make(-sk.re, -sk.im);
    MAT_UNROLL
    for (int t = 0; t < nt; t++) {
      if (t != k) continue;
      lab[t] = lk;
      if (soft) {
        MAT_UNROLL
        for (int j = 0; j < SOFT_MAX_BPS; j++)
          if (j < bps) llr[t * bps + j] = lt[j];
      }
      MAT_UNROLL
      for (int r = 0; r < nr; r++) {
        yw[r] = cf_fma_exact(yw[r], hw[r * nt + t], msk);
        hw[r * nt + t] = cf_make(0.0f, 0.0f);
      }
    }
    done |= 1u << k;
  }
  return fallbacks;
}

/* Ordered MMSE-SIC of one RE (above): h nr x nt, y nr, noise n0 > 0 (the
 * receiver's effective noise variance); lab[nt] the hard decisions; llr
 * (nt*bps entries) the LLRs when llr != NULL and llr_mode != LLR_OFF (max-log
 * for LLR_MAXLOG, exact for LLR_EXACT), untouched otherwise.  Every stream is
 * detected exactly once, so all of lab (and llr) is written, but by stores
 * predicated on the run-time stream index: GCC cannot see it and may warn
 * about a caller's array it reads afterwards.  Returns the number of stages
 * whose float inverse was flagged singular and were solved in double
 * precision instead (0 normally). */
MAT_HD int det_mmse_sic(int nr, int nt, int bps, const cf32 *h, const cf32 *y, float n0, int llr_mode,
                        uint32_t *lab, float *llr) {
  return sic_stages(nr, nt, bps, h, y, n0, llr_mode, lab, llr, 1);
}

#endif
