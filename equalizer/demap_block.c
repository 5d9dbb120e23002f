/* Soft demapping of many symbols at once (demap_block.h): soft_demap and
 * soft_pam_ of equalizer/soft.h, their operations in their order on each
 * lane, with the constellation size a constant in each instance so that the
 * loops over levels and bits unroll and the symbols fill the vector. */
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("prefer-vector-width=512")
#endif
#include "equalizer/demap_block.h"

#include <math.h>
#include <stdint.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "core/qam.h"
#include "equalizer/soft.h"

/* Symbols a step, one a lane (sixteen floats: one AVX-512 vector). */
#define DL 16

#if defined(__GNUC__) && !defined(__clang__)
/* ivdep, and no complete unrolling first: GCC unrolls a 16-lane loop into
 * scalar code with branches for its selects before the vectoriser sees it */
#define LANE_LOOP _Pragma("GCC ivdep") _Pragma("GCC unroll 1")
#else
#define LANE_LOOP
#endif
#if defined(__GNUC__)
#define INLINE static inline __attribute__((always_inline))
#else
#define INLINE static inline
#endif

/* Where the exact LLRs' sums can skip a row of exponentials. A term's
 * exponent x is <= 0; soft_expf_ (equalizer/soft_math.h) gives exactly 1 at
 * 0 and +0 below EXP_ZERO_BELOW (e^-104 = 6.8e-46 lies under half the least
 * subnormal float). A class's sum that already holds its least metric's term
 * 1 is at least 1, and a term below half its last place, 2^-24, leaves it as
 * it is: below EXP_ABSORBED (e^-17 = 4.1e-8 < 2^-24 = 6.0e-8) such a term
 * changes nothing. A row of the step whose lanes are all of these three
 * kinds takes 1 and 0 without the exponentials, and the sums come out as
 * soft_pam_'s, which computes every term; at high SNR that is most rows. */
#define EXP_ZERO_BELOW -104.0f
#define EXP_ABSORBED -17.0f

/* Whether a lane of a row of exponents x (after: whether its class's sum
 * holds its 1) is none of EXP_ZERO_BELOW's three kinds. With AVX-512 as
 * mask compares: GCC reduces the lanes of a plain loop's flag with a chain
 * of shuffles, which cost more than the test saves. */
INLINE int row_needs_exp(const float *x, const int *after) {
#if defined(__AVX512F__)
  const __m512 v = _mm512_loadu_ps(x);
  const __mmask16 absorbed = _mm512_mask_cmp_ps_mask(
      _mm512_cmpneq_epi32_mask(_mm512_loadu_si512((const void *)after), _mm512_setzero_si512()), v,
      _mm512_set1_ps(EXP_ABSORBED), _CMP_LT_OQ);
  return (__mmask16) ~(_mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_EQ_OQ) |
                       _mm512_cmp_ps_mask(v, _mm512_set1_ps(EXP_ZERO_BELOW), _CMP_LT_OQ) | absorbed) != 0;
#else
  int need = 0;
  for (int j = 0; j < DL; j++) need |= x[j] != 0.0f && !(x[j] < EXP_ZERO_BELOW) && !(after[j] && x[j] < EXP_ABSORBED);
  return need;
#endif
}

/* Whether a lane of a row of exponents x, in a class that holds its 1, is
 * neither 0 nor absorbed. */
INLINE int exp_needed_after_one(const float *x) {
#if defined(__AVX512F__)
  const __m512 v = _mm512_loadu_ps(x);
  return (__mmask16) ~(_mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_EQ_OQ) |
                       _mm512_cmp_ps_mask(v, _mm512_set1_ps(EXP_ABSORBED), _CMP_LT_OQ)) != 0;
#else
  int need = 0;
  for (int j = 0; j < DL; j++) need |= x[j] != 0.0f && !(x[j] < EXP_ABSORBED);
  return need;
#endif
}

/* Whether a lane of r is not 1 (or is NaN). */
INLINE int any_not_one(const float *r) {
#if defined(__AVX512F__)
  return _mm512_cmp_ps_mask(_mm512_loadu_ps(r), _mm512_set1_ps(1.0f), _CMP_NEQ_UQ) != 0;
#else
  int any = 0;
  for (int j = 0; j < DL; j++) any |= r[j] != 1.0f;
  return any;
#endif
}

/* soft_demap's clamp of a component by selects (fminf and fmaxf are library
 * calls here): the same value, a NaN to -SOFT_Z_MAX, as the bounds are not
 * zeros whose sign a select could pick differently. */
static inline float clamp_z(float x) {
  const float t = x > -SOFT_Z_MAX ? x : -SOFT_Z_MAX;
  return t < SOFT_Z_MAX ? t : SOFT_Z_MAX;
}

/* A bit's exact LLRs to o: gap (m_cnt - m_own, the max-log LLR towards
 * the decided bit) plus the logarithm of its classes' sum ratio (skipped
 * where every ratio is 1: ln 1 = +0), signed by the decided bit, as
 * soft_pam_ ends. */
INLINE void exact_llrs_out(const float *ratio, const float *gap, const uint32_t *bit, float *o) {
  float lg[DL];
  if (any_not_one(ratio)) {
    LANE_LOOP
    for (int j = 0; j < DL; j++) lg[j] = soft_logf_(ratio[j]);
  } else {
    for (int j = 0; j < DL; j++) lg[j] = 0.0f;
  }
  LANE_LOOP
  for (int j = 0; j < DL; j++) {
    const float lb = gap[j] + lg[j];
    o[j] = bit[j] ? lb : -lb;
  }
}

/* The exact LLRs of a 16-QAM dimension (four levels, two in each class of
 * either bit). soft_pam_ sums a class's two terms in level order from +0:
 * one is its least metric's, exactly 1 (x = 0), the other w = e^x with x =
 * m - E of the class's other level, and 1 + w = w + 1 whichever comes
 * first. So each class needs one exponent, m minus the larger of its two
 * metrics (the other level's: on a tie both are m, and x = 0 either way),
 * and one exponential, skipped (as 1 or +0) where x is 0 or below
 * EXP_ABSORBED, since the class holds its 1: the same sums, ratios and LLRs
 * as soft_pam_'s, with half the exponentials of the general rows. */
INLINE void pam_exact_two(float e[][DL], float m[2][SOFT_DIM_BITS][DL], const int *d, float *out, size_t ld,
                          int first) {
  for (int b = 0; b < 2; b++) {
    int lv[2][2], n[2] = {0, 0}; /* the levels of bit b's classes 0 and 1, in level order */
    for (int k = 0; k < 4; k++) {
      const int c = (int)((qam_gray_encode((uint32_t)k) >> b) & 1u);
      lv[c][n[c]++] = k;
    }
    float x[2][DL], w[2][DL];
    uint32_t bit[DL];
    LANE_LOOP
    for (int j = 0; j < DL; j++) {
      bit[j] = (qam_gray_encode((uint32_t)d[j]) >> b) & 1u;
      const float a0 = e[lv[0][0]][j], b0 = e[lv[0][1]][j], a1 = e[lv[1][0]][j], b1 = e[lv[1][1]][j];
      const float other0 = a0 < b0 ? b0 : a0, other1 = a1 < b1 ? b1 : a1;
      x[0][j] = (bit[j] ? m[1][b][j] : m[0][b][j]) - (bit[j] ? other1 : other0); /* own */
      x[1][j] = (bit[j] ? m[0][b][j] : m[1][b][j]) - (bit[j] ? other0 : other1); /* counter */
    }
    for (int c = 0; c < 2; c++) {
      if (exp_needed_after_one(x[c])) {
        LANE_LOOP
        for (int j = 0; j < DL; j++) w[c][j] = soft_expf_(x[c][j]);
      } else {
        LANE_LOOP
        for (int j = 0; j < DL; j++) w[c][j] = x[c][j] == 0.0f ? 1.0f : 0.0f;
      }
    }
    float ratio[DL], gap[DL];
    LANE_LOOP
    for (int j = 0; j < DL; j++) {
      ratio[j] = (1.0f + w[0][j]) / (1.0f + w[1][j]);
      gap[j] = bit[j] ? m[0][b][j] - m[1][b][j] : m[1][b][j] - m[0][b][j]; /* m_cnt - m_own */
    }
    exact_llrs_out(ratio, gap, bit, out + (size_t)(first + b) * ld);
  }
}

/* One PAM dimension of a step: soft_pam_ on each lane, v already clamped,
 * the LLR of the dimension's bit j to out[(first + j) * ld + lane]. */
INLINE void pam_step(const int nb, const float s, const float h, const float *v, const float *iv, const int exact,
                     float *out, size_t ld, int first) {
  const int L = 1 << nb, top = L - 1;
  int d[DL];
  float ad[DL], two_v[DL];
  float m[2][SOFT_DIM_BITS][DL]; /* the least metric of the levels whose bit j is 0, 1 */
  float e[SOFT_MAX_LEVELS][DL];  /* the metrics (exact LLRs) */
  LANE_LOOP
  for (int j = 0; j < DL; j++) {
    d[j] = (int)qam_pam_index(v[j], h, L); /* qam_demap's decision, Gray-decoded */
    ad[j] = mul_rn((float)(2 * d[j] - top), s);
    two_v[j] = 2.0f * v[j];
  }
  for (int b = 0; b < nb; b++)
    for (int j = 0; j < DL; j++) m[0][b][j] = m[1][b][j] = INFINITY;
  /* soft_pam_'s minimum over a bit's own class (and its other class), in
   * level order with a strict <, is this minimum over the class of levels
   * with that bit value, taken in the same order: the same element wins,
   * so the same value, the sign of a zero included. */
  for (int k = 0; k < L; k++) {
    const float ak = mul_rn((float)(2 * k - top), s);
    const uint32_t gk = qam_gray_encode((uint32_t)k);
    LANE_LOOP
    for (int j = 0; j < DL; j++) {
      const float ek = mul_rn(mul_rn(ak - ad[j], (ak + ad[j]) - two_v[j]), iv[j]);
      if (exact) e[k][j] = ek;
      for (int b = 0; b < nb; b++) {
        float *mm = m[(gk >> b) & 1u][b];
        mm[j] = ek < mm[j] ? ek : mm[j];
      }
    }
  }
  if (!exact) {
    for (int b = 0; b < nb; b++) {
      float *o = out + (size_t)(first + b) * ld;
      LANE_LOOP
      for (int j = 0; j < DL; j++) {
        const uint32_t bit = (qam_gray_encode((uint32_t)d[j]) >> b) & 1u;
        const float m_own = bit ? m[1][b][j] : m[0][b][j], m_cnt = bit ? m[0][b][j] : m[1][b][j];
        const float gap = m_cnt - m_own;
        const float lb = gap > 0.0f ? gap : 0.0f;
        o[j] = bit ? lb : -lb;
      }
    }
    return;
  }
  if (nb == 2) { /* 16-QAM: two levels a class */
    pam_exact_two(e, m, d, out, ld, first);
    return;
  }
  /* exact: each class's sum in level order, as soft_pam_ adds it (a term
   * of the other class adds +0 there), lane by lane, with soft_pam_'s own
   * exponential and logarithm (equalizer/soft_math.h), vectorised here; a
   * row of terms that are all 1, 0 or absorbed skips the exponentials, and
   * a step whose ratios are all 1 the logarithms (ln 1 = +0) */
  for (int b = 0; b < nb; b++) {
    float m_own[DL], m_cnt[DL];
    uint32_t bit[DL];
    LANE_LOOP
    for (int j = 0; j < DL; j++) {
      bit[j] = (qam_gray_encode((uint32_t)d[j]) >> b) & 1u;
      m_own[j] = bit[j] ? m[1][b][j] : m[0][b][j];
      m_cnt[j] = bit[j] ? m[0][b][j] : m[1][b][j];
    }
    float w[SOFT_MAX_LEVELS][DL], ratio[DL], gap[DL];
    int one_own[DL], one_cnt[DL]; /* whether a class's sum holds its 1 yet */
    for (int j = 0; j < DL; j++) one_own[j] = one_cnt[j] = 0;
    for (int k = 0; k < L; k++) {
      const uint32_t gkb = (qam_gray_encode((uint32_t)k) >> b) & 1u;
      float x[DL];
      int after[DL];
      LANE_LOOP
      for (int j = 0; j < DL; j++) {
        const int own = gkb == bit[j];
        after[j] = own ? one_own[j] : one_cnt[j];
        x[j] = (own ? m_own[j] : m_cnt[j]) - e[k][j];
        one_own[j] |= own & (x[j] == 0.0f);
        one_cnt[j] |= (!own) & (x[j] == 0.0f);
      }
      if (row_needs_exp(x, after)) {
        LANE_LOOP
        for (int j = 0; j < DL; j++) w[k][j] = soft_expf_(x[j]);
      } else {
        LANE_LOOP
        for (int j = 0; j < DL; j++) w[k][j] = x[j] == 0.0f ? 1.0f : 0.0f;
      }
    }
    LANE_LOOP
    for (int j = 0; j < DL; j++) {
      float s_own = 0.0f, s_cnt = 0.0f;
      for (int k = 0; k < L; k++) {
        const int own = ((qam_gray_encode((uint32_t)k) >> b) & 1u) == bit[j];
        s_own += own ? w[k][j] : 0.0f;
        s_cnt += own ? 0.0f : w[k][j];
      }
      ratio[j] = s_own / s_cnt;
      gap[j] = m_cnt[j] - m_own[j];
    }
    exact_llrs_out(ratio, gap, bit, out + (size_t)(first + b) * ld);
  }
}

/* One step of DL symbols of a square QAM of 2 nb bits. */
INLINE void demap_step(const int nb, const cf32 *z, const float *var, const int exact, float *llr,
                       size_t ld) {
  const int bps = 2 * nb;
  const float s = qam_scale(bps), h = 0.5f * qam_inv_scale(bps);
  float vr[DL], vi[DL], iv[DL];
  LANE_LOOP
  for (int j = 0; j < DL; j++) {
    const float w = var[j];
    vr[j] = clamp_z(z[j].re);
    vi[j] = clamp_z(z[j].im);
    /* 1 / fmaxf(var, SOFT_VAR_MIN) for var >= 0 (not NaN: the select is
     * fmaxf's value), else 0 */
    const float inv = 1.0f / (w > SOFT_VAR_MIN ? w : SOFT_VAR_MIN);
    iv[j] = w >= 0.0f ? inv : 0.0f;
  }
  /* label bits: Q (Im) 0..nb-1, I (Re) nb..2nb-1 */
  pam_step(nb, s, h, vr, iv, exact, llr, ld, nb);
  pam_step(nb, s, h, vi, iv, exact, llr, ld, 0);
}

/* Whole steps in place; the tail through padded copies (z = 0, var = 1 in
 * the lanes past n, whose LLRs are not copied out). */
INLINE void demap_all(const int nb, size_t n, const cf32 *z, const float *var, const int exact, float *llr,
                      size_t ld) {
  size_t i = 0;
  for (; i + DL <= n; i += DL) demap_step(nb, z + i, var + i, exact, llr + i, ld);
  if (i == n) return;
  const int live = (int)(n - i);
  cf32 zt[DL];
  float vt[DL], out[SOFT_MAX_BPS * DL];
  for (int j = 0; j < DL; j++) {
    zt[j] = j < live ? z[i + (size_t)j] : cf_make(0.0f, 0.0f);
    vt[j] = j < live ? var[i + (size_t)j] : 1.0f;
  }
  demap_step(nb, zt, vt, exact, out, DL);
  for (int k = 0; k < 2 * nb; k++)
    for (int j = 0; j < live; j++) llr[(size_t)k * ld + i + (size_t)j] = out[k * DL + j];
}

float soft_exact_zero_loss_from(int bps) {
  if (!qam_bps_valid(bps)) return INFINITY;
  const int nb = bps == 1 ? 1 : bps / 2; /* bits a dimension: L = 2^nb levels */
  return SOFT_LOSS_ZERO_FROM + (float)(nb - 1) * 0.6931472f + 0.01f;
}

void soft_demap_block(int bps, size_t n, const cf32 *z, const float *var, int exact, float *llr, size_t ld) {
  switch (bps) { /* nb and exact constants in each: the loops unroll */
    case 2: exact ? demap_all(1, n, z, var, 1, llr, ld) : demap_all(1, n, z, var, 0, llr, ld); return;
    case 4: exact ? demap_all(2, n, z, var, 1, llr, ld) : demap_all(2, n, z, var, 0, llr, ld); return;
    case 6: exact ? demap_all(3, n, z, var, 1, llr, ld) : demap_all(3, n, z, var, 0, llr, ld); return;
    case 8: exact ? demap_all(4, n, z, var, 1, llr, ld) : demap_all(4, n, z, var, 0, llr, ld); return;
    default: break;
  }
  /* BPSK and the invalid sizes: one symbol at a time */
  for (size_t i = 0; i < n; i++) {
    float one[SOFT_MAX_BPS];
    soft_demap(bps, z[i], var[i], exact, one);
    for (int k = 0; k < bps && k < SOFT_MAX_BPS; k++) llr[(size_t)k * ld + i] = one[k];
  }
}
