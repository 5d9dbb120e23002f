/* Gray-coded BPSK and square QAM with unit mean symbol energy, shared by the
 * C code and the CUDA kernels. Everything is arithmetic (no lookup tables), so
 * the same inline functions run per RE in a kernel without touching memory.
 *
 * bps = 1: BPSK on the real axis, label 0 -> -1, label 1 -> +1.
 * bps = 2, 4, 6, 8: square M-QAM, M = 2^bps, L = 2^(bps/2) levels a dimension.
 *   The label's high bps/2 bits are the I (real) PAM label, the low bps/2 bits
 *   the Q (imaginary) one. A PAM label is Gray-decoded to the level index idx
 *   (0 = most negative) with amplitude (2*idx - (L-1)) * qam_scale(bps), and
 *   qam_scale = sqrt(3 / (2(M-1))) makes the mean energy over all points 1.
 * Any other bps is unsupported: qam_scale returns 0, qam_map the origin and
 * qam_demap label 0; callers check qam_bps_valid once up front. */
#ifndef OFDMSIM_QAM_H
#define OFDMSIM_QAM_H

#include "core/cplx.h"

#ifndef __CUDACC__
#include <math.h>
#endif

OFDM_HD int qam_bps_valid(int bps) {
  return bps == 1 || bps == 2 || bps == 4 || bps == 6 || bps == 8;
}

/* Half the distance between neighbouring levels: sqrt(3 / (2(M-1))), written
 * out so no sqrt runs per symbol (BPSK: 1). */
OFDM_HD float qam_scale(int bps) {
  switch (bps) {
    case 1: return 1.0f;
    case 2: return 0.70710678118654752f;  /* 1/sqrt(2)   */
    case 4: return 0.31622776601683794f;  /* 1/sqrt(10)  */
    case 6: return 0.15430334996209191f;  /* 1/sqrt(42)  */
    case 8: return 0.076696498884737041f; /* 1/sqrt(170) */
    default: return 0.0f;
  }
}

/* 1 / qam_scale: the demapper multiplies instead of dividing. */
OFDM_HD float qam_inv_scale(int bps) {
  switch (bps) {
    case 1: return 1.0f;
    case 2: return 1.4142135623730950f;  /* sqrt(2)   */
    case 4: return 3.1622776601683793f;  /* sqrt(10)  */
    case 6: return 6.4807406984078602f;  /* sqrt(42)  */
    case 8: return 13.038404810405298f;  /* sqrt(170) */
    default: return 0.0f;
  }
}

/* Binary-reflected Gray code of a PAM level index, and its inverse for labels
 * of up to 4 bits (the prefix XOR of the bits, in two shifts). */
OFDM_HD uint32_t qam_gray_encode(uint32_t idx) { return idx ^ (idx >> 1); }
OFDM_HD uint32_t qam_gray_decode(uint32_t g) {
  g ^= g >> 1;
  g ^= g >> 2;
  return g;
}

/* The level index nearest to the amplitude v of an L-level PAM: round
 * (v/scale + L-1)/2 after clamping to [0, L-1]. The lower clamp comes first
 * and is false for a NaN, which so becomes level 0 instead of reaching an
 * undefined float->int cast. Written as selects, not fmaxf/fminf, so that a
 * compiler vectorises it (the same values: the inputs differ from fmaxf's
 * only in the sign of a zero, which rounds to level 0 either way). */
OFDM_HD uint32_t qam_pam_index(float v, float half_inv_scale, int levels) {
  const float top = (float)(levels - 1);
  float t = v * half_inv_scale + 0.5f * top;
  t = t > 0.0f ? t : 0.0f;
  t = t < top ? t : top;
  return (uint32_t)(int)(t + 0.5f);
}

/* Square QAM of half = bps/2 bits a dimension (mask = 2^half - 1, top =
 * 2^half - 1, s = qam_scale(bps)): each dimension's Gray-decoded level. */
OFDM_HD cf32 qam_map_square(uint32_t label, int half, uint32_t mask, int top, float s) {
  const int i_idx = (int)qam_gray_decode((label >> half) & mask);
  const int q_idx = (int)qam_gray_decode(label & mask);
  return cf_make((float)(2 * i_idx - top) * s, (float)(2 * q_idx - top) * s);
}

OFDM_HD cf32 qam_map(int bps, uint32_t label) {
  if (!qam_bps_valid(bps)) return cf_make(0.0f, 0.0f);
  const float s = qam_scale(bps);
  if (bps == 1) return cf_make((label & 1u) ? s : -s, 0.0f);
  const int half = bps >> 1;
  return qam_map_square(label, half, (1u << half) - 1u, (1 << half) - 1, s);
}

/* qam_demap of square QAM with its constants worked out (half = bps/2,
 * levels = 2^half, h = qam_inv_scale(bps)/2), for a loop that hoists them. */
OFDM_HD uint32_t qam_demap_square(cf32 z, int half, int levels, float h) {
  const uint32_t i_lab = qam_gray_encode(qam_pam_index(z.re, h, levels));
  const uint32_t q_lab = qam_gray_encode(qam_pam_index(z.im, h, levels));
  return (i_lab << half) | q_lab;
}

/* Hard decision: the label of the nearest constellation point. Square QAM
 * decides each dimension on its own, so rounding per dimension is exact. */
OFDM_HD uint32_t qam_demap(int bps, cf32 z) {
  if (!qam_bps_valid(bps)) return 0u;
  if (bps == 1) return z.re >= 0.0f ? 1u : 0u;
  const int half = bps >> 1;
  return qam_demap_square(z, half, 1 << half, 0.5f * qam_inv_scale(bps));
}

/* One modulation's constants worked out once, for per-RE loops and kernels
 * whose bps is a run-time value: qam_map_q and qam_demap_q give exactly
 * qam_map and qam_demap (the same expressions on the same constants) without
 * their switches over bps, which in a kernel are an indirect branch per
 * symbol. bps must be valid (qam_bps_valid). */
typedef struct qam_consts {
  int bps;
  int half;      /* bps/2: the bits of one PAM dimension (square QAM) */
  int levels;    /* 2^half */
  uint32_t mask; /* levels - 1 */
  float scale;   /* qam_scale(bps) */
  float h;       /* qam_inv_scale(bps) / 2, the decision's factor */
} qam_consts;

OFDM_HD qam_consts qam_consts_of(int bps) {
  qam_consts q;
  q.bps = bps;
  q.half = bps >> 1;
  q.levels = 1 << q.half;
  q.mask = (uint32_t)q.levels - 1u;
  q.scale = qam_scale(bps);
  q.h = 0.5f * qam_inv_scale(bps);
  return q;
}

/* QPSK and 16-QAM, the common cases, get bodies of their own with the
 * square constants as literals (the same expressions, so the same values):
 * the compiler folds the Gray code, the shifts and the clamps there, which
 * in the fused GPU kernel is about a sixth of a 2x2 QPSK RE's instructions.
 * The test between them is one uniform branch (bps is the link's). */
OFDM_HD cf32 qam_map_q(const qam_consts *q, uint32_t label) {
  if (q->bps == 2) return qam_map_square(label, 1, 1u, 1, q->scale);
  if (q->bps == 4) return qam_map_square(label, 2, 3u, 3, q->scale);
  if (q->bps == 1) return cf_make((label & 1u) ? q->scale : -q->scale, 0.0f);
  return qam_map_square(label, q->half, q->mask, q->levels - 1, q->scale);
}

OFDM_HD uint32_t qam_demap_q(const qam_consts *q, cf32 z) {
  if (q->bps == 2) return qam_demap_square(z, 1, 2, q->h);
  if (q->bps == 4) return qam_demap_square(z, 2, 4, q->h);
  if (q->bps == 1) return z.re >= 0.0f ? 1u : 0u;
  return qam_demap_square(z, q->half, q->levels, q->h);
}

#endif
