/* The check-node arithmetic of the LDPC decoders, one lane (one lifted check)
 * at a time: plain C that nvcc also compiles (OFDM_HD from core/cplx.h), so
 * the CPU decoders (coding/ldpc_rows.h) and a GPU kernel compute the same
 * float messages.
 *
 * LLRs are ln P(b=1)/P(b=0) (positive: 1), the convention of the receivers.
 * A check says its bits XOR to 0. In the usual ln P(0)/P(1) form the message
 * to bit e has the sign of the product of the other bits' LLRs; going to
 * this form negates each of those d-1 LLRs and the message itself, so here
 *
 *     sign(m_e) = (-1)^d prod_{j != e} sign(q_j)
 *              = [(-1)^d prod_j sign(q_j)] * sign(q_e)      (sign(q_e)^2 = 1)
 *
 * for a check of degree d: the bracket is one per check and lane. Signs are
 * sign BITS, products XORs: the bracket starts as the bit of (-1)^d
 * (ldpc_sign_start), takes each q's sign bit (ldpc_sign_bit), and a message
 * is its magnitude with bit (bracket XOR sign bit of q_e) (ldpc_with_sign).
 * So a zero carries its sign too: -0 counts as negative, +0 as positive, and
 * a decision is the sign bit of the LLR (clear: 1, ldpc_hard_bit), as the
 * receivers decide.
 *
 * Min-sum keeps per lane the smallest |q| (min1) and the second smallest
 * (min2 = min(min2, max(min1, |q|)) as each |q| comes) over the row's
 * edges. The magnitude to edge e is the minimum over the OTHER edges: min2
 * when |q_e| == min1, min1 otherwise. That needs no
 * index of the minimum: if |q_e| equals min1 and another edge holds min1 as
 * well, then min2 == min1 and both answers agree. Normalised min-sum scales
 * it by alpha, offset min-sum subtracts beta (floored at 0).
 *
 * Every function returns a value (no pointers, no branches but selects), so
 * the CPU's plain C loops over lanes vectorise (coding/ldpc_rows_gen.c); its
 * AVX2 kernel (coding/ldpc_rows_avx2.c) spells the min-sum functions as
 * intrinsics, the same operations in the same order, and the tests hold
 * both to one double-precision reference and to each other, bit for bit.
 *
 * Sum-product (belief propagation) in the phi form: with
 * phi(x) = -ln tanh(x/2) = 2 atanh(e^-x), its own inverse on x > 0,
 *     |m_e| = phi( sum_{j != e} phi(|q_j|) ) = phi( S - phi(|q_e|) ),
 * S the sum over all edges. phi's argument is clamped to [LDPC_PHI_MIN,
 * LDPC_PHI_MAX]: an erased bit (q = 0) gives phi = 16.8, so the message
 * magnitudes stay below 16.8, and phi never returns less than
 * phi(LDPC_PHI_MAX) = 1.9e-13, so differences of phi values stay far from
 * the subnormal range (which costs a hundred cycles an operation on x86).
 *
 * phi is computed here from + - * / and bit operations only (exp by range
 * reduction and a Cephes polynomial, log by exponent split and the atanh
 * series), branch-free, relative error about 1e-6: the same float result on
 * any IEEE host or device that does not fuse a*b + c (nvcc: -fmad=false),
 * and a loop the CPU vectorises, where libm's expm1f/log1pf stay scalar calls
 * and made BP some ten times slower. */
#ifndef OFDMSIM_CODING_LDPC_MSG_H
#define OFDMSIM_CODING_LDPC_MSG_H

#include <stdint.h>
#include <string.h>

#include "core/cplx.h"

#define LDPC_PHI_MIN 1.0e-7f
/* Larger than any |q|: the start of the running minima. */
#define LDPC_MAG_INIT 3.0e38f

/* The sign bit of x (bit 31 of its IEEE word). */
OFDM_HD uint32_t ldpc_sign_bit(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u & 0x80000000u;
}

/* mag (>= +0) with its sign bit flipped by s: the sign bit becomes s. */
OFDM_HD float ldpc_with_sign(float mag, uint32_t s) {
  uint32_t u;
  memcpy(&u, &mag, sizeof u);
  u ^= s;
  float r;
  memcpy(&r, &u, sizeof r);
  return r;
}

/* The hard decision on an LLR: 1 where its sign bit is clear. */
OFDM_HD uint8_t ldpc_hard_bit(float llr) { return (uint8_t)(1u ^ (ldpc_sign_bit(llr) >> 31)); }

/* The sign bit of (-1)^d for a check of degree d: the start of the lane's
 * sign product. */
OFDM_HD uint32_t ldpc_sign_start(int degree) { return (degree & 1) ? 0x80000000u : 0u; }

/* Min-sum: the running minima after taking a = |q| (a, min1, min2 >= +0). */
OFDM_HD float ldpc_ms_min1(float min1, float a) { return a < min1 ? a : min1; }
OFDM_HD float ldpc_ms_min2(float min1, float min2, float a) {
  const float hi = a > min1 ? a : min1;
  return hi < min2 ? hi : min2;
}

/* Normalised min-sum: the message to the edge whose q is q. */
OFDM_HD float ldpc_ms_message_scaled(float q, float min1, float min2, uint32_t sgn, float alpha) {
  const float mag = fabsf(q) == min1 ? min2 : min1;
  return ldpc_with_sign(alpha * mag, sgn ^ ldpc_sign_bit(q));
}

/* Offset min-sum: max(mag - beta, 0) with the same sign. */
OFDM_HD float ldpc_ms_message_offset(float q, float min1, float min2, uint32_t sgn, float beta) {
  const float mag = (fabsf(q) == min1 ? min2 : min1) - beta;
  return ldpc_with_sign(mag > 0.0f ? mag : 0.0f, sgn ^ ldpc_sign_bit(q));
}

/* e^y for y in [-87, 0]: y = n ln2 + r, |r| <= ln2/2 (ln2 in two parts so
 * n ln2 is exact), e^r by Cephes' expf polynomial, 2^n from the exponent
 * bits. */
OFDM_HD float ldpc_exp_neg(float y) {
  const float n = floorf(y * 1.44269504f + 0.5f);
  const float r = (y - n * 0.693359375f) - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float er = p * (r * r) + r + 1.0f;
  const int32_t bits = ((int32_t)n + 127) << 23;
  float two_n;
  memcpy(&two_n, &bits, sizeof two_n);
  return er * two_n;
}

/* ln u for normal u > 0: u = m 2^e with m in [sqrt(1/2), sqrt(2)), then
 * ln m = 2 atanh(s), s = (m - 1)/(m + 1), |s| <= 0.172, by its series to s^9. */
OFDM_HD float ldpc_log(float u) {
  int32_t bits;
  memcpy(&bits, &u, sizeof bits);
  int32_t e = ((bits >> 23) & 0xff) - 127;
  const int32_t mbits = (bits & 0x007fffff) | 0x3f800000;
  float m;
  memcpy(&m, &mbits, sizeof m);
  const int big = m > 1.41421356f;
  m = big ? 0.5f * m : m;
  e = big ? e + 1 : e;
  const float s = (m - 1.0f) / (m + 1.0f), z = s * s;
  const float series = 1.0f + z * (0.333333333f + z * (0.2f + z * (0.142857143f + z * 0.111111111f)));
  return (float)e * 0.693147181f + 2.0f * s * series;
}

#define LDPC_PHI_MAX 30.0f

/* phi(x) = 2 atanh(t), t = e^-x: by the atanh series (to t^9) where
 * t <= 0.172 (x >= 1.76), else as ln((2 - d)/d) with d = 1 - t, taken from
 * its Taylor series x (1 - x/2 + x^2/6 - ...) to x^8 where x <= 1/4 (in
 * float, 1 - e^-x keeps no digits of a tiny x). */
OFDM_HD float ldpc_phi(float x) {
  const float c = x < LDPC_PHI_MIN ? LDPC_PHI_MIN : x > LDPC_PHI_MAX ? LDPC_PHI_MAX : x;
  const float t = ldpc_exp_neg(-c), z = t * t;
  const float small = 2.0f * t * (1.0f + z * (0.333333333f + z * (0.2f + z * (0.142857143f + z * 0.111111111f))));
  const float d_series =
      c * (1.0f - c * (0.5f - c * (0.166666667f - c * (4.16666667e-2f - c * (8.33333333e-3f -
          c * (1.38888889e-3f - c * (1.98412698e-4f - c * 2.48015873e-5f)))))));
  const float d = c <= 0.25f ? d_series : 1.0f - t;
  const float large = ldpc_log((2.0f - d) / d);
  return t <= 0.172f ? small : large;
}

/* Sum-product: the message to an edge whose q had phi(|q|) = phi_q, with S
 * the lane's sum of phi and sgn its sign product. */
OFDM_HD float ldpc_bp_message(float q, float phi_q, float sum_phi, uint32_t sgn) {
  return ldpc_with_sign(ldpc_phi(sum_phi - phi_q), sgn ^ ldpc_sign_bit(q));
}

/* The vector constants of one row in the AVX2 kernels (ldpc_rows_avx2.c,
 * ldpc_batch_avx2.c; a macro, so that only files compiled for AVX2 see the
 * intrinsics): the masks of a float's magnitude and sign, the min-sum's
 * scale alpha and offset beta, zero, the magnitude a row's minima start
 * from, and the sign its product starts from (ldpc_sign_start). */
#define LDPC_AVX2_ROW_CONSTS(alpha_, beta_, deg_)                                           \
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));              \
  const __m256 sign_mask = _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u));       \
  const __m256 alpha = _mm256_set1_ps(alpha_), beta = _mm256_set1_ps(beta_);               \
  const __m256 zero = _mm256_setzero_ps(), mag_init = _mm256_set1_ps(LDPC_MAG_INIT);      \
  const __m256 start_sign = ldpc_sign_start(deg_) ? sign_mask : zero

#endif
