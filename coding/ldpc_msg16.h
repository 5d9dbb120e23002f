/* The check-node arithmetic of the fixed-point layered normalised min-sum
 * decoder ("nms16", LDPC_LAYERED_NMS16), one lane at a time: plain C that
 * nvcc also compiles (OFDM_HD), so the CPU kernels (coding/ldpc_rows16_gen.c,
 * coding/ldpc_rows16_avx2.c) and the GPU one (cuda/ldpc_gpu.cu) compute the
 * same int16 messages bit for bit. Everything here is integer arithmetic but
 * the one quantisation of each input LLR.
 *
 * Format: LLRs and messages are int16 with LDPC16_FRAC_BITS = 4 fractional
 * bits (a unit is 1/16 of an LLR), chosen by BLER against the float decoder
 * on the same draws (tests/coding/test_ldpc16.c; BENCHMARKS.md): at float
 * nms's BLER 0.15 (BG1 K 8448 R 1/2) the fixed-point one had 0.59 with F =
 * 2, 0.28 with F = 3, 0.18 with F = 4 and 0.17 with F = 5, the last two
 * within their spread (about 0.01 dB from float); F = 4 keeps the larger
 * range (|LLR| up to 64).
 *
 * No saturation, by a bound instead: the magnitudes that enter a check are
 * clamped to LDPC16_MAG_MAX = 1024 (the channel LLRs at the input, each
 * |q| before the minima), so every message is at most alpha 1024 <= 1024
 * and an a posteriori value, the channel's plus at most 30 messages (the
 * largest column degree, BG1's), stays within 1024 + 30 * 1024 = 31744 <
 * 32767, as does q = app - m_old. The int16 sums are then exact (layered
 * min-sum keeps app = channel + the sum of the messages, none lost to a
 * saturated app, which in a first version with the app saturating at 32767
 * flipped converged decisions once a row took back an old message larger
 * than what the cap had kept), and the AVX2 saturating adds and the
 * scalar clamps never bind. 1024 units are an LLR of 1024 / 2^F, far past
 * any decision's certainty (e^-64 at F = 4).
 *
 *   input      q = clamp(rint(L 2^F), +-1024) once per LLR (round half to
 *              even, the IEEE default on both hosts; NaN gives 0);
 *   a = min(|q|, 1024) enters min1/min2 as coding/ldpc_msg.h's (min2 =
 *              min(max(a, min1), min2) before min1 = min(a, min1)), from 1024;
 *   sign:      coding/ldpc_msg.h's rule with sign MASKS (0 or -1): the
 *              product starts at -1 for an odd degree, each q < 0 flips it,
 *              and the message to edge e has the product times sign(q_e); a
 *              q of 0 counts as positive (there is no -0 in an integer);
 *   scale:     alpha as k = rint(alpha 2^15) (at most 32767: alpha 1 runs as
 *              1 - 2^-15; 0.75: k = 24576, exact), mag' = (mag k + 2^14) >> 15:
 *              alpha mag rounded to the nearest integer, halves up (the AVX2
 *              _mm256_mulhrs_epi16);
 *   message:   scale(a_e == min1 ? min2 : min1) with its sign, and
 *              app = q + message;
 *   decisions: bit 1 where x >= 0 (the float decoder's +0 is 1 too).
 *
 * Erased bits (LLR 0) stay 0 and filler bits (LDPC_LLR_FILLER, a large
 * negative float) become -1024: the known-zero bit at full strength. */
#ifndef OFDMSIM_CODING_LDPC_MSG16_H
#define OFDMSIM_CODING_LDPC_MSG16_H

#include <stdint.h>

#include "core/cplx.h"

#define LDPC16_FRAC_BITS 4
#define LDPC16_MAX 32767
#define LDPC16_MAG_MAX 1024

/* x clamped to [-LDPC16_MAX, LDPC16_MAX] (never binding: see above). */
OFDM_HD int16_t ldpc16_sat(int32_t x) {
  return (int16_t)(x > LDPC16_MAX ? LDPC16_MAX : x < -LDPC16_MAX ? -LDPC16_MAX : x);
}

/* One channel LLR into the decoder's format. */
OFDM_HD int16_t ldpc16_quantise(float llr) {
  const float lim = (float)LDPC16_MAG_MAX;
  float x = llr * (float)(1 << LDPC16_FRAC_BITS);
  x = x == x ? x : 0.0f;
  x = x > lim ? lim : x < -lim ? -lim : x;
  return (int16_t)rintf(x);
}

/* The float value of a quantised LLR or message. */
OFDM_HD float ldpc16_value(int16_t x) { return (float)x * (1.0f / (float)(1 << LDPC16_FRAC_BITS)); }

/* alpha's integer form: the multiplier of ldpc16_scale. */
OFDM_HD int32_t ldpc16_scale_k(float alpha) {
  const float k = rintf(alpha * 32768.0f);
  return (int32_t)(k > 32767.0f ? 32767.0f : k < 0.0f ? 0.0f : k);
}

/* alpha mag, rounded to nearest (halves up): mag in [0, 1024]. */
OFDM_HD int16_t ldpc16_scale(int32_t mag, int32_t k) { return (int16_t)((mag * k + 16384) >> 15); }

/* The sign mask of x: -1 where x < 0, else 0. */
OFDM_HD int32_t ldpc16_sign(int32_t x) { return x < 0 ? -1 : 0; }

/* The sign product's start for a check of degree d (coding/ldpc_msg.h's
 * ldpc_sign_start as a mask). */
OFDM_HD int32_t ldpc16_sign_start(int degree) { return (degree & 1) ? -1 : 0; }

/* mag (>= 0) negated where the mask s is -1. */
OFDM_HD int16_t ldpc16_with_sign(int32_t mag, int32_t s) { return (int16_t)((mag ^ s) - s); }

OFDM_HD uint8_t ldpc16_hard_bit(int16_t x) { return (uint8_t)(x >= 0); }

/* The magnitude that enters a check: min(|x|, LDPC16_MAG_MAX). */
OFDM_HD int32_t ldpc16_mag(int32_t x) {
  const int32_t a = x < 0 ? -x : x;
  return a < LDPC16_MAG_MAX ? a : LDPC16_MAG_MAX;
}

/* The running minima after taking a = ldpc16_mag(q) (as coding/ldpc_msg.h's). */
OFDM_HD int32_t ldpc16_min1(int32_t min1, int32_t a) { return a < min1 ? a : min1; }
OFDM_HD int32_t ldpc16_min2(int32_t min1, int32_t min2, int32_t a) {
  const int32_t hi = a > min1 ? a : min1;
  return hi < min2 ? hi : min2;
}

/* The message to the edge whose q is q: alpha (a == min1 ? min2 : min1)
 * with the sign of the product sgn times q's. */
OFDM_HD int16_t ldpc16_message(int32_t q, int32_t min1, int32_t min2, int32_t sgn, int32_t k) {
  const int32_t mag = ldpc16_mag(q) == min1 ? min2 : min1;
  return ldpc16_with_sign(ldpc16_scale(mag, k), sgn ^ ldpc16_sign(q));
}

#endif
