/* Soft demapping of one equalised symbol and the GMI bit loss: plain C that
 * nvcc also compiles, every function OFDM_HD, shared by the CPU receiver and
 * the CUDA kernels like smallmat.h.
 *
 * Model.  A linear detector (or one SIC stage) leaves z = x + e for one stream,
 * e taken as CN(0, var) (var: the post-equalisation noise-plus-interference
 * variance, soft_post_var), so the likelihood of constellation point x is
 * exp(-|z - x|^2 / var), and with equiprobable symbols bit k of the label has
 *     llr_k = ln P(b_k = 1 | z) / P(b_k = 0 | z)
 *           = ln sum_{x: b_k = 1} exp(-|z-x|^2/var) - ln sum_{x: b_k = 0} (...)
 * (positive: bit 1).  A bit's decision is the sign bit of its LLR (clear: 1),
 * so an LLR of exactly +-0 still carries a decision.
 *
 * Separability.  Square QAM is the product of two Gray PAMs (core/qam.h): I
 * bits (the label's high bps/2) depend on I points only, and
 *     |z - x|^2 = (Re z - x_I)^2 + (Im z - x_Q)^2,
 * so in the sums over the constellation the Q factor is common to both
 * classes of an I bit and cancels: an I bit's LLR is that of the L-level PAM
 * on Re z with the same var (not var/2: the per-dimension variance is var/2
 * and the exponent (v - a)^2 / (2 var/2)), and likewise Q on Im z.  BPSK is
 * the 2-level PAM on the real axis alone.  Cost per dimension: L metrics
 * instead of M = L^2.
 *
 * Metrics relative to the decision.  Per dimension the hard decision is the
 * level d that qam_demap picks, and each level k is measured against it:
 *     E_k = ((v - a_k)^2 - (v - a_d)^2) / var = (a_k - a_d)(a_k + a_d - 2v) / var,
 * the factored form, accurate where v is far from both levels (no difference
 * of two large squares) and exactly 0 for k = d.  The common term (v-a_d)^2
 * cancels in every LLR.  For bit j with decided value b (bit j of d's Gray
 * label), m_own and m_cnt are the smallest E over the levels whose bit j is b
 * and is not b:
 *   max-log: llr = +-max(m_cnt - m_own, 0), the sign that of b, which is the
 *     brute-force max-log value min_{b=0} - min_{b=1} of the metric (clamped
 *     at 0 only inside qam_demap's rounding band around a decision threshold,
 *     where that value is a rounding-level number of the other sign).  So the
 *     decisions of max-log LLRs are exactly qam_demap's bits, boundary ties
 *     included: there qam_pam_index rounds to the HIGHER level, and its bits
 *     ride on the sign of a zero LLR.
 *   exact: llr_b = (m_cnt - m_own) + ln(S_own / S_cnt),
 *     S_c = sum_{k in class c} exp(m_c - E_k) in [1, L/2]: each class's log-sum-exp
 *     shifted by its own maximum likelihood, so nothing overflows or
 *     underflows to a wrong result whatever var is.  The sign of an exact LLR
 *     is the MAP bit decision.  It differs from the nearest-point (qam_demap)
 *     bit only near that bit's decision thresholds: the correction
 *     ln(S_own/S_cnt) lies in [-ln(L/2), ln(L/2)], so a disagreement needs the
 *     max-log magnitude below ln(L/2), i.e. z within var ln(L/2) / (4 s) of
 *     a threshold (s = qam_scale; the nearest counter-level is the adjacent
 *     one there).  BPSK and QPSK (L = 2) have one level per class: exact and
 *     max-log coincide (up to the clamp at 0 above).
 *
 * Registers.  Loops run to the compile-time bounds (SOFT_MAX_LEVELS levels,
 * SOFT_DIM_BITS bits a dimension, SOFT_MAX_BPS bits a symbol) under
 * predicates like `if (k < levels)`, and level amplitudes, Gray bits and the
 * decision are arithmetic, so every local array is indexed by constants after
 * unrolling and a CUDA thread keeps it in registers even when bps is a
 * run-time value; llr[] is written at constant indices too.
 *
 * One arithmetic on both backends.  The max-log LLRs take +, -, *, / and min
 * only, every product rounded on its own (mul_rn), so nvcc's -fmad cannot
 * fuse them differently from the host: the CPU and the GPU compute the same
 * values bit for bit from the same z and var.  Exact LLRs also take an
 * exponential and a logarithm (equalizer/soft_math.h: CUDA's expf and logf on
 * the device, the host's own vectorisable ones), whose last bits may differ
 * between the two (a few 1e-7 absolute). */
#ifndef OFDMSIM_SOFT_H
#define OFDMSIM_SOFT_H

#include <math.h>
#include <stdint.h>

#include "core/cplx.h"
#include "core/gmi_grid.h"
#include "core/qam.h"
#include "equalizer/soft_math.h"

/* |LLR| cap before the GMI loss.  The loss of a bit is unbounded in |L| when
 * the bit is wrong (log2(1 + e^|L|) ~ |L| / ln 2), and max-log LLRs at high SNR
 * reach 10^6 and more, so one confidently wrong bit (a model mismatch: a
 * decision error the Gaussian model of e gives probability e^-|L|) would
 * dominate the average of billions of correct bits.  At |L| = 64 a correct
 * bit's loss is e^-64 / ln 2 ~ 2e-28 bits, far below the 2^-24 quantum, so the
 * cap changes nothing for correct bits and bounds a wrong one's cost at
 * 64 / ln 2 ~ 92.3 bits; it also keeps the quantised loss within uint32 (see
 * SOFT_LOSS_Q_MAX_BITS). */
#define SOFT_LLR_CLIP 64.0f
/* GMI loss quantum: 2^-24 bit.  Integer quanta sum exactly and in any order,
 * so a loss total does not depend on batching or threads, and for the same
 * LLRs not on the backend either (soft_loss_q). */
#define SOFT_LOSS_SHIFT 24

/* Compile-time bounds: bits of a symbol, PAM levels and bits of a dimension
 * (256-QAM). */
#define SOFT_MAX_BPS 8
#define SOFT_MAX_LEVELS 16
#define SOFT_DIM_BITS 4

/* Input ranges that keep every metric finite.  |Re z|, |Im z| are clamped to
 * SOFT_Z_MAX (a NaN component to -SOFT_Z_MAX, the side where qam_demap puts a
 * NaN), and a positive var below SOFT_VAR_MIN is raised to it: then
 * |E_k| <= 2.4 * (2.4 + 2 SOFT_Z_MAX) / SOFT_VAR_MIN < 7e36 < FLT_MAX.  No
 * detector output of unit-energy symbols comes near either limit; beyond them
 * an LLR is that of the clamped input (same sign, still astronomically large
 * or, for |z| > 2^20 with a matching var, still tiny). */
#define SOFT_Z_MAX 1048576.0f              /* 2^20 */
#define SOFT_VAR_MIN 7.8886090522101181e-31f /* 2^-100 */

/* The largest quantised loss of one bit: (SOFT_LLR_CLIP + ln 2) / ln 2 bits
 * (the clip plus log2(1 + e^-64) < 1), below (3/2) SOFT_LLR_CLIP + 2 bits as
 * 1/ln 2 < 3/2; with the 2^24 quanta a bit that must fit 32 bits.  A sum of
 * soft_label_loss over n bits fits uint64 for n < 2^33 bits (a chunk of
 * results/chunks.h holds at most about 2^26). */
#define SOFT_LOSS_Q_MAX_BITS ((int)SOFT_LLR_CLIP * 3 / 2 + 2)
#ifdef __cplusplus
static_assert(SOFT_LOSS_Q_MAX_BITS <= (1 << (32 - SOFT_LOSS_SHIFT)), "a bit's quantised loss must fit uint32");
#else
_Static_assert(SOFT_LOSS_Q_MAX_BITS <= (1 << (32 - SOFT_LOSS_SHIFT)), "a bit's quantised loss must fit uint32");
#endif


/* One PAM dimension: v (already clamped), the decided level d (qam_demap's),
 * `levels` = L in {2, 4, 8, 16}, half-spacing s, ivar = 1/var (0: erasure).
 * out[j] = LLR of bit j of the dimension's Gray label, j < log2(L); the
 * entries above are left 0. */
OFDM_HD void soft_pam_(float v, int d, int levels, float s, float ivar, int exact, float *out) {
  const int top = levels - 1;
  const uint32_t gd = qam_gray_encode((uint32_t)d);
  /* amplitude of level k: (2k - (L-1)) s, as qam_map computes it */
  const float ad = mul_rn((float)(2 * d - top), s);
  const float two_v = 2.0f * v; /* exact */
  float e[SOFT_MAX_LEVELS];
  OFDM_UNROLL
  for (int k = 0; k < SOFT_MAX_LEVELS; k++) {
    const float ak = mul_rn((float)(2 * k - top), s);
    /* E_k = (a_k - a_d)(a_k + a_d - 2v) / var; 0 for levels past L (unused) */
    e[k] = k < levels ? mul_rn(mul_rn(ak - ad, (ak + ad) - two_v), ivar) : 0.0f;
  }
  OFDM_UNROLL
  for (int j = 0; j < SOFT_DIM_BITS; j++) {
    out[j] = 0.0f;
    if ((1 << j) >= levels) continue; /* j >= log2(L): no such bit */
    const uint32_t b = (gd >> j) & 1u;
    /* m_own, m_cnt: the smallest metric with bit j = b and != b.  Both classes
     * hold L/2 levels, and d itself (E_d = 0) is in the own class. */
    float m_own = INFINITY, m_cnt = INFINITY;
    OFDM_UNROLL
    for (int k = 0; k < SOFT_MAX_LEVELS; k++) {
      if (k >= levels) continue;
      const int own = ((qam_gray_encode((uint32_t)k) >> j) & 1u) == b;
      m_own = own && e[k] < m_own ? e[k] : m_own;
      m_cnt = !own && e[k] < m_cnt ? e[k] : m_cnt;
    }
    const float gap = m_cnt - m_own; /* max-log LLR towards b */
    float lb;
    if (exact) {
      /* ln sum_own exp(-E) - ln sum_cnt exp(-E), each class shifted by its
       * own minimum: every exponent <= 0, each sum in [1, L/2]. */
      float s_own = 0.0f, s_cnt = 0.0f;
      OFDM_UNROLL
      for (int k = 0; k < SOFT_MAX_LEVELS; k++) {
        if (k >= levels) continue;
        const int own = ((qam_gray_encode((uint32_t)k) >> j) & 1u) == b;
        const float w = soft_expf_((own ? m_own : m_cnt) - e[k]);
        s_own += own ? w : 0.0f;
        s_cnt += own ? 0.0f : w;
      }
      lb = gap + soft_logf_(s_own / s_cnt);
    } else {
      /* clamped at +0 (a plain select, not fmaxf, whose choice between -0
       * and +0 is unspecified): the sign below is then b's exactly */
      lb = gap > 0.0f ? gap : 0.0f;
    }
    out[j] = b ? lb : -lb;
  }
}

/* A square QAM's LLRs in label order: Q bits 0..nb-1, then I bits (called
 * with a literal nb). */
OFDM_HD void soft_store_(int nb, const float *li, const float *lq, float *llr) {
  OFDM_UNROLL
  for (int j = 0; j < SOFT_DIM_BITS; j++) {
    if (j >= nb) continue;
    llr[j] = lq[j];
    llr[nb + j] = li[j];
  }
}

/* llr[k], k < bps, of the equalised symbol z with post-equalisation
 * noise-plus-interference variance var; exact != 0: log-sum-exp over the
 * constellation, exact == 0: max-log.
 *   var > 0: as above (below SOFT_VAR_MIN raised to it; +inf gives zeros).
 *   var == 0 (+-0): the noiseless limit, read as SOFT_VAR_MIN: the hard
 *     decision with an enormous magnitude (n0 = 0 is a valid point, and ZF's
 *     n0 g is then 0; the GMI loss clips it to SOFT_LLR_CLIP).
 *   var < 0 or NaN: no valid reliability: every LLR is +-0 (an erasure, one
 *     bit of GMI loss per bit), the sign bits still qam_demap's decision.
 * Deterministic for every input, NaN and infinite z included.  bps not in
 * {1,2,4,6,8}: llr[k] = 0 for k < min(bps, SOFT_MAX_BPS). */
OFDM_HD void soft_demap(int bps, cf32 z, float var, int exact, float *llr) {
  if (!qam_bps_valid(bps)) {
    OFDM_UNROLL
    for (int k = 0; k < SOFT_MAX_BPS; k++)
      if (k < bps) llr[k] = 0.0f;
    return;
  }
  /* NaN -> -SOFT_Z_MAX: fmaxf returns the non-NaN operand */
  const float vr = fminf(fmaxf(z.re, -SOFT_Z_MAX), SOFT_Z_MAX);
  const float vi = fminf(fmaxf(z.im, -SOFT_Z_MAX), SOFT_Z_MAX);
  const float ivar = var >= 0.0f ? 1.0f / fmaxf(var, SOFT_VAR_MIN) : 0.0f;
  /* The decision: qam_demap of the clamped z, which is qam_demap(z) (the clamp
   * keeps every level and puts NaN where qam_pam_index does). */
  const uint32_t lab = qam_demap(bps, cf_make(vr, vi));
  const int nb = bps == 1 ? 1 : bps >> 1; /* bits of a dimension */
  const int levels = 1 << nb;
  const float s = qam_scale(bps);
  const uint32_t mask = (1u << nb) - 1u;
  float li[SOFT_DIM_BITS], lq[SOFT_DIM_BITS];
  /* BPSK: the I label is the whole (1-bit) label; QAM: its high nb bits */
  soft_pam_(vr, (int)qam_gray_decode((bps == 1 ? lab : lab >> nb) & mask), levels, s, ivar, exact, li);
  if (bps > 1) {
    soft_pam_(vi, (int)qam_gray_decode(lab & mask), levels, s, ivar, exact, lq);
  } else {
    OFDM_UNROLL
    for (int j = 0; j < SOFT_DIM_BITS; j++) lq[j] = 0.0f;
  }
  /* Label bit k: Q bit k for k < nb, I bit k - nb above (BPSK: I bit 0).
   * One case per size, so every index is a constant: a gather by k - nb
   * written as selects is turned back into a dynamic index by the compiler,
   * which moves li to local memory. */
  switch (bps) {
    case 1: llr[0] = li[0]; break;
    case 2: soft_store_(1, li, lq, llr); break;
    case 4: soft_store_(2, li, lq, llr); break;
    case 6: soft_store_(3, li, lq, llr); break;
    default: soft_store_(4, li, lq, llr); break;
  }
}

/* Post-equalisation variance of a linear detector's stream from its diagonal
 * Gram-inverse entry g = (G^-1)_tt and the receiver's noise n0, for
 * unit-energy symbols:
 *   ZF (mmse == 0), G = H^H H: the noise n0 g (NaN g: NaN, an erasure).
 *   MMSE, G = H^H H + n0 I, bias-corrected (mat_unbias_gain): W H = I - n0 G^-1,
 *     so the stream's gain is mu = 1 - n0 g and the unbiased estimate's
 *     noise-plus-interference variance (1 - mu)/mu = n0 g / (1 - n0 g) =
 *     1 / SINR.  In exact arithmetic 0 <= n0 g < 1; where rounding gives
 *     n0 g >= 1 (no SINR left to speak of), or g is NaN, +inf: zero LLRs. */
OFDM_HD float soft_post_var(int mmse, float n0, float g) {
  const float q = n0 * g;
  if (!mmse) return q;
  const float mu = 1.0f - q;
  return mu > 0.0f ? q / mu : INFINITY;
}

/* One bit's GMI loss log2(1 + exp(-(2b-1) L)) in units of 2^-SOFT_LOSS_SHIFT
 * bits, rounded to nearest (halves up); L clipped to +-SOFT_LLR_CLIP first, a
 * NaN L taken as 0 (an erasure: exactly one bit).  Written as
 *     log2(1 + e^-m) = max(-m, 0) / ln 2 + log2(1 + e^-|m|),  m = (2b-1) L,
 * so no exp overflows and nothing cancels at large |m|.  The second term is
 * soft_log1p_exp_ below, this file's own double arithmetic (+, -, *, / and
 * fma, every product rounded on its own by mul_rn_d or an explicit fma, a
 * power of two put together from its bits), not libm's or CUDA's exp and
 * log1p: with CUDA's double exp and log1p a bit cost some 220 SASS
 * instructions (80 FP64; 116 and 46 now), most
 * of the "LLRs + GMI" path on the GPU, and their last bits may differ from
 * libm's.  Each of these operations is rounded by IEEE 754 alike on gcc
 * (C11: no contraction) and nvcc (no product left for -fmad to fuse), so the
 * CPU and the GPU compute the same quanta bit for bit, by construction rather
 * than by luck.
 * Error: soft_log1p_exp_ < 2e-15 relative (the fits' 6e-16 and 9e-17 and
 * a few roundings), at most ln 2 nats = 2^24 quanta, so < 4e-8 quanta; the
 * 1/ln 2 scaling adds < 2e-7 at the clip.  The result is the correctly
 * rounded quantum count except within ~2e-7 quanta of a half quantum
 * (tests/equalizer/test_soft.c counts them: none in 1.2 million LLRs; over
 * every float L in [0, 64.5] and both bits, one of 2.2e9, 4e-9 quanta from
 * a half, and all monotone).
 * At most SOFT_LOSS_Q_MAX_BITS << SOFT_LOSS_SHIFT (fits uint32). */

/* 2^-n for 0 <= n <= 1022, exactly: the exponent field written directly. */
OFDM_HD double soft_pow2_neg_(int n) {
#ifdef __CUDA_ARCH__
  return __longlong_as_double((long long)((uint64_t)(1023 - n) << 52));
#else
  /* On the host the same power as a product of exact powers of two picked
   * by n's bits (every partial product exact, none below 2^-1022): GCC
   * vectorises this (soft_losses_q), and not a type pun through memory. */
  double d = (n & 1) ? 0.5 : 1.0;
  d = mul_rn_d(d, (n & 2) ? 0.25 : 1.0);
  d = mul_rn_d(d, (n & 4) ? 0.0625 : 1.0);
  d = mul_rn_d(d, (n & 8) ? 0.00390625 : 1.0);
  d = mul_rn_d(d, (n & 16) ? 1.52587890625e-05 : 1.0);
  d = mul_rn_d(d, (n & 32) ? 2.3283064365386963e-10 : 1.0);
  d = mul_rn_d(d, (n & 64) ? 5.421010862427522e-20 : 1.0);
  d = mul_rn_d(d, (n & 128) ? 2.938735877055719e-39 : 1.0);
  d = mul_rn_d(d, (n & 256) ? 8.636168555094445e-78 : 1.0);
  d = mul_rn_d(d, (n & 512) ? 7.458340731200207e-155 : 1.0);
  return d;
#endif
}

/* e^-a for 0 <= a <= 64 (relative error < 1e-15):
 *   a = n ln2 - x, n = a / ln2 rounded to nearest by the 1.5 2^52 shift
 *   (exact), |x| <= ln2 / 2: x = n ln2 - a by two fma with ln 2 in two parts
 *   (the first exact before its one rounding; x off by < 1e-16);
 *   e^x = 1 + x g(x), g the degree-9 Chebyshev fit of (e^x - 1) / x on
 *   |x| <= ln2/2 + 1e-3 (mpmath chebyfit, coefficients rounded to double:
 *   relative error of e^x < 6e-16), 1 exactly at x = 0;
 *   times 2^-n, exact (n <= 93: e^-64 = 1.6e-28 is far from double's
 *   subnormals). */
OFDM_HD double soft_exp_neg_(double a) {
  const double nd = fma(a, 1.4426950408889634, 6755399441055744.0) - 6755399441055744.0;
  double x = fma(nd, 0.69314718055994529, -a);
  x = fma(nd, 2.3190468138462996e-17, x);
  double g = 2.762043894863442e-07;
  g = fma(g, x, 2.763307651398986e-06);
  g = fma(g, x, 2.480152055701783e-05);
  g = fma(g, x, 0.00019841189728797592);
  g = fma(g, x, 0.0013888888917690603);
  g = fma(g, x, 0.008333333367904473);
  g = fma(g, x, 0.04166666666662317);
  g = fma(g, x, 0.16666666666614458);
  g = fma(g, x, 0.5000000000000001);
  g = fma(g, x, 1.0000000000000013);
  return mul_rn_d(fma(x, g, 1.0), soft_pow2_neg_((int)nd));
}

/* log1p(u) for u in [0, 1] as soft_log1p_unit_ computes it, 2 atanh(t) =
 * 2 t P(t^2), t = u / (2 + u), with the degree-9 fit (mpmath chebyfit on
 * w in [0, 1/9]; relative error 9e-17 with the rounded coefficients, so
 * the roundings dominate): two fma more than the grid's degree 7, for the
 * s = 1 loss whose bound is a millionth of a quantum rather than a
 * thousandth.  (Degree 8, 1.9e-15, leaves the loss 3e-8 quanta low near
 * u = 1, which rounded 7 of all 2.2e9 float LLRs in [0, 64.5] x 2 bits one
 * quantum below the correctly rounded count.) */
OFDM_HD double soft_log1p_fine_(double u) {
  const double t = u / (2.0 + u);
  const double t2 = mul_rn_d(t, t);
  double p = 0.08890381913056651;
  p = fma(p, t2, 0.04940394524382393);
  p = fma(p, t2, 0.06795652742789947);
  p = fma(p, t2, 0.07681838124445817);
  p = fma(p, t2, 0.09091429900236955);
  p = fma(p, t2, 0.11111095430673142);
  p = fma(p, t2, 0.1428571455582858);
  p = fma(p, t2, 0.199999999976438);
  p = fma(p, t2, 0.33333333333341286);
  p = fma(p, t2, 1.0);
  return mul_rn_d(t + t, p);
}

/* log(1 + e^-a) in nats for 0 <= a <= 64 (relative error < 2e-15). */
OFDM_HD double soft_log1p_exp_(double a) { return soft_log1p_fine_(soft_exp_neg_(a)); }

/* An LLR as the losses read it: NaN as 0 (an erasure), then clipped to
 * +-SOFT_LLR_CLIP by selects, which pick as fminf/fmaxf do for a number
 * (-0 included) but, unlike those library calls, GCC vectorises: the CPU's
 * lane loops (soft_block.c) use it. */
OFDM_HD float soft_llr_clip_(float llr) {
  float l = llr == llr ? llr : 0.0f;
  l = l < -SOFT_LLR_CLIP ? -SOFT_LLR_CLIP : l;
  return l > SOFT_LLR_CLIP ? SOFT_LLR_CLIP : l;
}

/* A bit whose LLR, clipped and signed towards the sent bit, is at least
 * this is right with a loss below half a quantum: log2(1 + e^-18) 2^24 =
 * 0.369 quanta (soft_loss_q's error is some 1e-8 quanta, and the loss falls
 * with the LLR), so its quanta are 0 (tests/equalizer/test_soft.c checks
 * every float from 16 to the clip). At high SNR most bits are such (at the
 * benchmarks' 4x4 16-QAM TDL-A link at Eb/N0 20 dB, 92%), and the CPU's
 * lanes (equalizer/soft_block.c) compute the series only for the others,
 * packed. (The GPU's warps did the same for a session and were slower:
 * 70 -> 57 Gbit/s at s = 1 on an H200, BENCHMARKS.md, twelfth session; a
 * GPU thread computes its own bits' series.) */
#define SOFT_LOSS_ZERO_FROM 18.0f

/* soft_loss_q's work after the clip: l already a number in
 * [-SOFT_LLR_CLIP, SOFT_LLR_CLIP] (soft_losses_q clips by selects, which GCC
 * vectorises where it does not vectorise fminf/fmaxf). */
OFDM_HD uint32_t soft_loss_q_clipped_(float l, uint32_t bit) {
  const double m = (bit & 1u) ? (double)l : -(double)l;
  const double nats = (m < 0.0 ? -m : 0.0) + soft_log1p_exp_(fabs(m));
  const double q = mul_rn_d(nats, 1.4426950408889634074 * (double)(1u << SOFT_LOSS_SHIFT));
  return (uint32_t)(q + 0.5);
}

/* The LLR as soft_loss_q reads it, signed towards the sent bit: the loss of
 * (llr, bit) is soft_loss_q_clipped_(soft_signed_llr_(llr, bit), 1u), as
 * -(-l) is l exactly. */
OFDM_HD float soft_signed_llr_(float llr, uint32_t bit) {
  const float l = soft_llr_clip_(llr);
  return (bit & 1u) ? l : -l;
}

OFDM_HD uint32_t soft_loss_q(float llr, uint32_t bit) {
  float l = llr == llr ? llr : 0.0f;
  l = fminf(fmaxf(l, -SOFT_LLR_CLIP), SOFT_LLR_CLIP);
  return soft_loss_q_clipped_(l, bit);
}

/* The loss of one stream's bps bits against its transmitted label: the sum of
 * soft_loss_q over label bits k < bps ((label >> k) & 1 against llr[k]).  The
 * GMI of the stream is bps minus the mean of this, in bits (times 2^-24). */
OFDM_HD uint64_t soft_label_loss(int bps, const float *llr, uint32_t label) {
  uint64_t sum = 0;
  OFDM_UNROLL
  for (int k = 0; k < SOFT_MAX_BPS; k++)
    if (k < bps) sum += soft_loss_q(llr[k], (label >> k) & 1u);
  return sum;
}

/* ---- The loss at the scalings of the GMI grid (core/gmi_grid.h) ----------
 *
 * A bit's loss at scaling s is log2(1 + e^-(s m)), m = (2b-1) L with L
 * clipped as in soft_loss_q (the clip first, then the scaling: the loss stays
 * convex in s, so the GMI stays concave), in nats
 *     w s|m| + log1p(e^-(s|m|)),  w = 1 for a wrong sign (m < 0), else 0.
 * At s = 1 it is soft_loss_q itself, bit for bit.  At the other scalings
 * every operation is +, -, *, / or fma, each rounded on its own, and the
 * exponential and the logarithm are this file's own series, so the CPU and
 * the GPU compute the same quanta bit for bit, as at s = 1 (whose single
 * exponential is range-reduced instead, soft_exp_neg_):
 *  - e^-(s a), a = |m|, along the grid: at its two smallest scalings
 *    e^-(a 2^-8) and e^-(a sqrt2 2^-8) by their Taylor series (arguments
 *    <= 64 sqrt2 / 256 < 0.36, degree 12: relative error < 1e-14), then
 *    squared up, each squaring doubling s (two interleaved chains, the even
 *    and the odd half-octaves; eleven squarings double the relative error
 *    eleven times: < 1e-10; the last square of each chain, e^-1024 at |m| =
 *    64, is never taken);
 *  - log1p(u) = 2 atanh(t), t = u / (2 + u) <= 1/3, by a degree-7 fit in
 *    t^2 (relative error < 7e-14);
 *  - past s|m| = SOFT_GRID_TAIL the logarithm, below e^-36 / ln 2 bits =
 *    6e-9 quanta, is taken as 0.  (At 18 it would already round to 0 alone,
 *    but a wrong bit adds it to s|m| / ln 2, whose rounding it could still
 *    tip.)
 * The result is the quantum count rounded to nearest, as soft_loss_q's (but
 * for ties, which go to even here).
 * Per bit at most (8 * 64 + 1) / ln 2 < 740 bits, 2^33.6 quanta: a frame's
 * sum fits uint64 up to 2^30 bits a frame. */
#define SOFT_GRID_TAIL 36.0


/* e^-y for 0 <= y < 0.36: Taylor to degree 12 (Horner, fma). */
OFDM_HD double soft_exp_small_(double y) {
  const double x = -y;
  double p = 2.08767569878680990e-09; /* 1/12! */
  p = fma(p, x, 2.50521083854417188e-08);  /* 1/11! */
  p = fma(p, x, 2.75573192239858907e-07);  /* 1/10! */
  p = fma(p, x, 2.75573192239858907e-06);  /* 1/9! */
  p = fma(p, x, 2.48015873015873016e-05);  /* 1/8! */
  p = fma(p, x, 1.98412698412698413e-04);  /* 1/7! */
  p = fma(p, x, 1.38888888888888889e-03);  /* 1/6! */
  p = fma(p, x, 8.33333333333333333e-03);  /* 1/5! */
  p = fma(p, x, 4.16666666666666667e-02);  /* 1/4! */
  p = fma(p, x, 1.66666666666666667e-01);  /* 1/3! */
  p = fma(p, x, 0.5);
  p = fma(p, x, 1.0);
  return fma(p, x, 1.0);
}

/* log1p(u) for u in [0, 1]: 2 atanh(t), t = u / (2 + u) <= 1/3, as
 * 2 t P(t^2) with P the degree-7 Chebyshev fit of atanh(sqrt w) / sqrt w on
 * w in [0, 1/9] (mpmath chebyfit at 40 digits, coefficients rounded to
 * double): relative error < 7e-14 with the rounded coefficients, below the
 * Taylor series to t^23 it replaces (2e-13) at 7 fma instead of 11.  The
 * fit converges some 39 times a degree against Taylor's 9 (the nearest
 * singularity, w = 1, lies far outside the interval). */
OFDM_HD double soft_log1p_unit_(double u) {
  const double t = u / (2.0 + u);
  const double t2 = mul_rn_d(t, t);
  double p = 0.10034077847425321;
  p = fma(p, t2, 0.07035379662321815);
  p = fma(p, t2, 0.0915502181938133);
  p = fma(p, t2, 0.11107700090055997);
  p = fma(p, t2, 0.14285812013750593);
  p = fma(p, t2, 0.19999998632121246);
  p = fma(p, t2, 0.3333333334059967);
  p = fma(p, t2, 0.9999999999999368);
  return mul_rn_d(t + t, p);
}

/* One bit's loss at every grid scaling but s = 1, in quanta, added to
 * acc[k] (acc[GMI_GRID_S1] untouched): LLR l, sent bit `bit`.  The sums are
 * whole numbers of quanta in double (exact below 2^53), so that the loop
 * over the scalings has no conversion in it and vectorises on the CPU. */
OFDM_HD void soft_grid_bit_(float llr, uint32_t bit, double *acc) {
  float l = llr == llr ? llr : 0.0f;
  l = fminf(fmaxf(l, -SOFT_LLR_CLIP), SOFT_LLR_CLIP);
  const double m = (bit & 1u) ? (double)l : -(double)l;
  const double a = fabs(m);
  const double wrong = m < 0.0 ? 1.0 : 0.0;
  const double per_nat = 1.4426950408889634074 * (double)(1u << SOFT_LOSS_SHIFT);
  /* The chains: u = e^-(s a) and s itself (gmi_grid_s(k), exactly: doubling
   * is exact) on the even and the odd half-octaves, from k = 0 and 1. */
  double s_even = 0.00390625, s_odd = 0.00390625 * 1.4142135623730951; /* 2^-8, sqrt2 2^-8 */
  double u_even = soft_exp_small_(mul_rn_d(s_even, a)), u_odd = soft_exp_small_(mul_rn_d(s_odd, a));
  double u[GMI_GRID], y[GMI_GRID];
  OFDM_UNROLL
  for (int k = 0; k < GMI_GRID; k++) {
    const int odd = (k - GMI_GRID_S1) & 1; /* a constant once unrolled */
    y[k] = mul_rn_d(odd ? s_odd : s_even, a);
    u[k] = odd ? u_odd : u_even;
    if (k + 2 >= GMI_GRID) continue; /* no square past the last (it would underflow) */
    if (odd) u_odd = mul_rn_d(u_odd, u_odd), s_odd = s_odd * 2.0;
    else u_even = mul_rn_d(u_even, u_even), s_even = s_even * 2.0;
  }
  OFDM_UNROLL
  for (int k = 0; k < GMI_GRID; k++) {
    /* Past the tail the logarithm is 0 (computed on 0: no subnormal inputs).
     * Selects as products by 0 or 1 (exact) and the rounding to the nearest
     * quantum by the 1.5 2^52 shift (ties to even; a loss is below 2^34
     * quanta): gcc vectorises this loop, which a select feeding a division
     * or a floor() keeps it from. */
    const double uk = mul_rn_d(u[k], y[k] < SOFT_GRID_TAIL ? 1.0 : 0.0);
    const double nats = mul_rn_d(wrong, y[k]) + soft_log1p_unit_(uk);
    const double q = (mul_rn_d(nats, per_nat) + 6755399441055744.0) - 6755399441055744.0;
    acc[k] += mul_rn_d(q, k == GMI_GRID_S1 ? 0.0 : 1.0);
  }
}

/* One stream's loss against its sent label: returns soft_label_loss (the
 * s = 1 loss) and adds the loss at every grid scaling to grid[k], s = 1's
 * included (the same quanta), so that a frame's grid sums are those of its
 * streams' bits, summed. */
OFDM_HD uint64_t soft_label_loss_grid(int bps, const float *llr, uint32_t label, uint64_t *grid) {
  const uint64_t at_1 = soft_label_loss(bps, llr, label);
  double acc[GMI_GRID];
  OFDM_UNROLL
  for (int k = 0; k < GMI_GRID; k++) acc[k] = 0.0;
  for (int k = 0; k < SOFT_MAX_BPS; k++)
    if (k < bps) soft_grid_bit_(llr[k], (label >> k) & 1u, acc);
  OFDM_UNROLL
  for (int k = 0; k < GMI_GRID; k++) grid[k] += (uint64_t)(int64_t)acc[k]; /* < 2^37: exact */
  grid[GMI_GRID_S1] += at_1;
  return at_1;
}

#endif
