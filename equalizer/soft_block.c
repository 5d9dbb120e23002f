/* The GMI losses of many bits at once (soft_block.h): soft_grid_bit_ and
 * soft_loss_q of equalizer/soft.h with the bits in the lanes, the series left
 * out where their quanta are provably 0. */
/* GCC tunes AVX-512 CPUs for 256-bit vectors; eight doubles a vector here. */
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("prefer-vector-width=512")
#endif
#include "equalizer/soft_block.h"

#include <math.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "equalizer/soft.h"

/* Bits a step, one a lane: the loops over them have a constant trip count
 * and no dependence, so they vectorise whatever the width. */
#define LANES 8

#if defined(__GNUC__) && !defined(__clang__)
#define LANE_LOOP _Pragma("GCC ivdep")
#else
#define LANE_LOOP
#endif

/* Bits at or past SOFT_LOSS_ZERO_FROM (equalizer/soft.h) have 0 quanta. The
 * same holds at a grid scaling s with s |m| in place of the LLR (the
 * chain's e^-(s|m|) is within 1e-10 of the true value), and s |m| rounded
 * grows with s: a right bit whose s_K |m| is at least this has 0 quanta at
 * the scalings from K up. */
#define LOSS_ZERO_FROM SOFT_LOSS_ZERO_FROM
/* The grid's bits go in four groups: right bits at the clip (|m| =
 * SOFT_LLR_CLIP: every such bit has the same losses, so they are counted,
 * and the count times one such bit's quanta added: at high SNR most bits,
 * 74% at the benchmarks' 20 dB), the other right bits with s_13 |m| >= 18
 * computed at the scalings k < 13 only, the other right bits with s_16 |m|
 * >= 18 at k < 16, the rest at all. */
#define GRID_SHORT 13
#define GRID_MID 16

/* One step of LANES bits (a, wrong: soft_grid_bit_'s |m| and its sign test;
 * on: 1, or 0 for a lane past the bits, whose sums are not added):
 * soft_grid_bit_'s operations, in its order, on each lane, at the scalings
 * k < K (the bits' losses at the others are 0 quanta). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void grid_step(const double *a, const double *wrong, const double *on, const int K,
                             double acc[GMI_GRID][LANES]) {
  const double per_nat = 1.4426950408889634074 * (double)(1u << SOFT_LOSS_SHIFT);
  double s_even[LANES], s_odd[LANES], u_even[LANES], u_odd[LANES];
  LANE_LOOP
  for (int j = 0; j < LANES; j++) {
    s_even[j] = 0.00390625;
    s_odd[j] = 0.00390625 * 1.4142135623730951;
    u_even[j] = soft_exp_small_(mul_rn_d(s_even[j], a[j]));
    u_odd[j] = soft_exp_small_(mul_rn_d(s_odd[j], a[j]));
  }
  for (int k = 0; k < K; k++) {
    const int odd = (k - GMI_GRID_S1) & 1;
    double *s = odd ? s_odd : s_even, *u = odd ? u_odd : u_even;
    const double keep = k == GMI_GRID_S1 ? 0.0 : 1.0;
    LANE_LOOP
    for (int j = 0; j < LANES; j++) {
      const double y = mul_rn_d(s[j], a[j]);
      const double uk = mul_rn_d(u[j], y < SOFT_GRID_TAIL ? 1.0 : 0.0);
      const double nats = mul_rn_d(wrong[j], y) + soft_log1p_unit_(uk);
      const double q = (mul_rn_d(nats, per_nat) + 6755399441055744.0) - 6755399441055744.0;
      acc[k][j] += mul_rn_d(mul_rn_d(q, keep), on[j]);
    }
    if (k + 2 >= GMI_GRID) continue; /* no square past the last */
    LANE_LOOP
    for (int j = 0; j < LANES; j++) {
      u[j] = mul_rn_d(u[j], u[j]);
      s[j] = s[j] * 2.0;
    }
  }
}

/* The steps of n packed bits at the scalings k < K (GRID_SHORT, GRID_MID
 * or GMI_GRID: a constant in each grid_step, whose loops then unroll). */
static void grid_steps(size_t n, const double *a, const double *wrong, const int K, double acc[GMI_GRID][LANES]) {
  for (size_t g = 0; g < n; g += LANES) {
    double on[LANES], ga[LANES], gw[LANES];
    for (int j = 0; j < LANES; j++) {
      const int live = g + (size_t)j < n;
      on[j] = live ? 1.0 : 0.0;
      ga[j] = live ? a[g + (size_t)j] : 0.0;
      gw[j] = live ? wrong[g + (size_t)j] : 0.0;
    }
    if (K == GRID_SHORT) grid_step(ga, gw, on, GRID_SHORT, acc);
    else if (K == GRID_MID) grid_step(ga, gw, on, GRID_MID, acc);
    else grid_step(ga, gw, on, GMI_GRID, acc);
  }
}

static void flush(double acc[GMI_GRID][LANES], uint64_t *grid) {
  for (int k = 0; k < GMI_GRID; k++) {
    int64_t sum = 0;
    for (int j = 0; j < LANES; j++) {
      sum += (int64_t)acc[k][j]; /* < 2^53: exact */
      acc[k][j] = 0.0;
    }
    grid[k] += (uint64_t)sum;
  }
}

/* gmi_grid_s(k) as grid_step's chains make it (doubling is exact). */
static double grid_s(int k) {
  double se = 0.00390625, so = 0.00390625 * 1.4142135623730951;
  for (int i = 0; i < k; i++) {
    if ((i - GMI_GRID_S1) & 1) so = so * 2.0;
    else se = se * 2.0;
  }
  return ((k - GMI_GRID_S1) & 1) ? so : se;
}

/* By blocks of BLOCK bits: their |m| and signs, each bit's group, the groups
 * packed (in order), their steps, and the sums flushed (a lane adds at most
 * BLOCK / LANES + 3 losses below 2^34 quanta each: exact in double). */
/* One right bit's quanta at the clip, at every scaling (grid_step's, so a
 * count of such bits times these is their sum bit for bit); s = 1's left 0,
 * as the steps leave it. */
static void grid_clip_quanta(uint64_t *q) {
  double acc[GMI_GRID][LANES] = {{0.0}}, a[LANES] = {0.0}, wrong[LANES] = {0.0}, on[LANES] = {0.0};
  a[0] = (double)SOFT_LLR_CLIP;
  on[0] = 1.0;
  grid_step(a, wrong, on, GRID_SHORT, acc);
  for (int k = 0; k < GMI_GRID; k++) q[k] = (uint64_t)(int64_t)acc[k][0];
}

void soft_grid_losses(size_t n, const float *llr, const uint8_t *bit, uint64_t *grid) {
  enum { BLOCK = 512 };
  const double s_short = grid_s(GRID_SHORT), s_mid = grid_s(GRID_MID);
  uint64_t clipped = 0; /* right bits at the clip */
  double acc[GMI_GRID][LANES] = {{0.0}};
  double a[BLOCK], wrong[BLOCK];
  int cls[BLOCK];
  /* row 3, the clipped right bits, is written and never read (they are
   * only counted): a store costs less than a branch in the packing loop */
  double pa[4][BLOCK], pw[4][BLOCK];
  for (size_t i0 = 0; i0 < n; i0 += BLOCK) {
    const size_t len = n - i0 < BLOCK ? n - i0 : BLOCK;
    LANE_LOOP
    for (size_t i = 0; i < len; i++) {
      const float l = soft_llr_clip_(llr[i0 + i]);
      const double m = (bit[i0 + i] & 1u) ? (double)l : -(double)l;
      a[i] = fabs(m);
      wrong[i] = m < 0.0 ? 1.0 : 0.0;
      const int right = m >= 0.0;
      cls[i] = right && a[i] == (double)SOFT_LLR_CLIP                    ? 3
               : right && mul_rn_d(s_short, a[i]) >= (double)LOSS_ZERO_FROM ? 0
               : right && mul_rn_d(s_mid, a[i]) >= (double)LOSS_ZERO_FROM   ? 1
                                                                             : 2;
    }
    size_t c[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < len; i++) {
      const int k = cls[i];
      pa[k][c[k]] = a[i];
      pw[k][c[k]] = wrong[i];
      c[k]++;
    }
    grid_steps(c[0], pa[0], pw[0], GRID_SHORT, acc);
    grid_steps(c[1], pa[1], pw[1], GRID_MID, acc);
    grid_steps(c[2], pa[2], pw[2], GMI_GRID, acc);
    flush(acc, grid);
    clipped += c[3];
  }
  if (clipped) {
    uint64_t q[GMI_GRID];
    grid_clip_quanta(q);
    for (int k = 0; k < GMI_GRID; k++) grid[k] += clipped * q[k];
  }
}


/* The signed, clipped LLRs of bits [i0, i0 + len) that LOSS_ZERO_FROM does
 * not settle, packed into m[] (room for 16 more entries past the count:
 * whole vectors are stored), with their offsets in at[] and their quanta in
 * q[] set to 0 meanwhile where the caller wants them (at, q non-NULL: the
 * per-bit quanta; NULL: only the sum); returns their count. */
static inline size_t pack_losses(const float *llr, const uint8_t *bit, size_t len, uint32_t *q, float *m,
                                 uint32_t *at) {
  size_t c = 0, i = 0;
#if defined(__AVX512F__)
  /* sixteen bits a step, packed by a compress into a register (a compress
   * straight to memory is slow on some cores) */
  const __m512 clip = _mm512_set1_ps(SOFT_LLR_CLIP), nclip = _mm512_set1_ps(-SOFT_LLR_CLIP);
  const __m512 zero_from = _mm512_set1_ps(LOSS_ZERO_FROM);
  const __m512i one = _mm512_set1_epi32(1), sign = _mm512_set1_epi32((int)0x80000000u);
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (; i + 16 <= len; i += 16) {
    __m512 l = _mm512_loadu_ps(llr + i);
    /* soft_llr_clip_: NaN to 0, then the two selects */
    l = _mm512_mask_mov_ps(l, _mm512_cmp_ps_mask(l, l, _CMP_UNORD_Q), _mm512_setzero_ps());
    l = _mm512_mask_mov_ps(l, _mm512_cmp_ps_mask(l, nclip, _CMP_LT_OQ), nclip);
    l = _mm512_mask_mov_ps(l, _mm512_cmp_ps_mask(l, clip, _CMP_GT_OQ), clip);
    const __m512i b = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(bit + i)));
    const __m512 neg = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(l), sign));
    const __m512 ms = _mm512_mask_mov_ps(neg, _mm512_test_epi32_mask(b, one), l);
    const __mmask16 need = _mm512_cmp_ps_mask(ms, zero_from, _CMP_LT_OQ);
    _mm512_storeu_ps(m + c, _mm512_maskz_compress_ps(need, ms));
    if (q) {
      _mm512_storeu_si512((void *)(q + i), _mm512_setzero_si512());
      _mm512_storeu_si512((void *)(at + c),
                          _mm512_maskz_compress_epi32(need, _mm512_add_epi32(lane, _mm512_set1_epi32((int)i))));
    }
    c += (size_t)__builtin_popcount((unsigned)need);
  }
#endif
  for (; i < len; i++) {
    const float ms = soft_signed_llr_(llr[i], bit[i]);
    m[c] = ms;
    if (q) {
      q[i] = 0;
      at[c] = (uint32_t)i;
    }
    c += ms < LOSS_ZERO_FROM ? 1u : 0u;
  }
  return c;
}

/* soft_loss_q with its clip as selects (soft_llr_clip_); the bits at or past
 * LOSS_ZERO_FROM get 0 without the series, the others are packed (their
 * signed LLR m: soft_loss_q_clipped_(m, 1) is soft_loss_q_clipped_(l, b),
 * as m = +-l exactly) and computed in lanes. */
void soft_losses_q(size_t n, const float *llr, const uint8_t *bit, uint32_t *q) {
  enum { STEP = 256 };
  float m[STEP + 16];
  uint32_t at[STEP + 16], qq[STEP];
  for (size_t i0 = 0; i0 < n; i0 += STEP) {
    const size_t len = n - i0 < STEP ? n - i0 : STEP;
    const size_t c = pack_losses(llr + i0, bit + i0, len, q + i0, m, at);
    LANE_LOOP
    for (size_t k = 0; k < c; k++) qq[k] = soft_loss_q_clipped_(m[k], 1u);
    for (size_t k = 0; k < c; k++) q[i0 + at[k]] = qq[k];
  }
}

/* soft_losses_q's quanta summed: the bits that need the series packed as
 * there, without the zeros, the offsets and the scatter. */
uint64_t soft_losses_sum_q(size_t n, const float *llr, const uint8_t *bit) {
  enum { STEP = 256 };
  float m[STEP + 16];
  uint32_t qq[STEP];
  uint64_t sum = 0;
  for (size_t i0 = 0; i0 < n; i0 += STEP) {
    const size_t len = n - i0 < STEP ? n - i0 : STEP;
    const size_t c = pack_losses(llr + i0, bit + i0, len, NULL, m, NULL);
    LANE_LOOP
    for (size_t k = 0; k < c; k++) qq[k] = soft_loss_q_clipped_(m[k], 1u);
    for (size_t k = 0; k < c; k++) sum += qq[k];
  }
  return sum;
}
