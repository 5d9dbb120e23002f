/* The check-node arithmetic of the LDPC decoders, one lane (one lifted check)
 * at a time: plain C that nvcc also compiles (OFDM_HD from core/cplx.h), so
 * the CPU driver (coding/ldpc_decode.c) and a GPU kernel compute the same
 * float messages.
 *
 * LLRs are ln P(b=1)/P(b=0) (positive: 1), the convention of the receivers.
 * A check says its bits XOR to 0. In the usual ln P(0)/P(1) form the message
 * to bit e has the sign of the product of the other bits' LLRs; negating every
 * LLR to get this form negates the product once per other bit, so here
 *
 *     sign(m_e) = (-1)^(d-1) prod_{j != e} sign(q_j)
 *              = [(-1)^d prod_j sign(q_j)] * sign(q_e)      (sign(q_e)^2 = 1)
 *
 * for a check of degree d: the bracket is one per check and lane, started at
 * (-1)^d (ldpc_sign_start) and multiplied by each sign(q_j) (ldpc_sign_take). sign(q) is -1
 * for q < 0 and +1 otherwise (a zero LLR counts as positive, deciding 1, as a
 * receiver's +0 does).
 *
 * Min-sum keeps per lane the smallest |q| (min1) and the second smallest
 * (min2) over the row's edges. The magnitude to edge e is the minimum over
 * the OTHER edges: min2 when |q_e| == min1, min1 otherwise. That needs no
 * index of the minimum: if |q_e| equals min1 and another edge holds min1 as
 * well, then min2 == min1 and both answers agree. Normalised min-sum scales
 * it by alpha, offset min-sum subtracts beta (floored at 0).
 *
 * Every function returns a value (no pointers, no branches but selects), so
 * the CPU driver's loops over lanes vectorise.
 *
 * Sum-product (belief propagation) in the phi form: with
 * phi(x) = -ln tanh(x/2) = ln(1 + 2/(e^x - 1)), its own inverse on x > 0,
 *     |m_e| = phi( sum_{j != e} phi(|q_j|) ) = phi( S - phi(|q_e|) ),
 * S the sum over all edges. phi's argument is kept >= LDPC_PHI_MIN, so an
 * erased bit (q = 0) gives phi = 16.8 and the message magnitude stays finite
 * (at most phi(LDPC_PHI_MIN) = 16.8). */
#ifndef OFDMSIM_CODING_LDPC_MSG_H
#define OFDMSIM_CODING_LDPC_MSG_H

#include "core/cplx.h"

#define LDPC_PHI_MIN 1.0e-7f
/* Larger than any |q|: the start of the running minima. */
#define LDPC_MAG_INIT 3.0e38f

/* (-1)^d for a check of degree d: the start of the lane's sign product. */
OFDM_HD float ldpc_sign_start(int degree) { return (degree & 1) ? -1.0f : 1.0f; }

/* Min-sum: the running minima and sign after taking a = |q| and q. */
OFDM_HD float ldpc_ms_min1(float min1, float a) { return a < min1 ? a : min1; }
OFDM_HD float ldpc_ms_min2(float min1, float min2, float a) { return a < min1 ? min1 : (a < min2 ? a : min2); }
OFDM_HD float ldpc_sign_take(float sgn, float q) { return q < 0.0f ? -sgn : sgn; }

/* Normalised min-sum: the message to the edge whose q is q. */
OFDM_HD float ldpc_ms_message_scaled(float q, float min1, float min2, float sgn, float alpha) {
  const float mag = fabsf(q) == min1 ? min2 : min1;
  return ldpc_sign_take(sgn, q) * (alpha * mag);
}

/* Offset min-sum: max(mag - beta, 0) with the same sign. */
OFDM_HD float ldpc_ms_message_offset(float q, float min1, float min2, float sgn, float beta) {
  const float mag = (fabsf(q) == min1 ? min2 : min1) - beta;
  return ldpc_sign_take(sgn, q) * (mag > 0.0f ? mag : 0.0f);
}

/* phi(x) = ln(1 + 2/(e^x - 1)) for x >= LDPC_PHI_MIN; 0 once e^x overflows. */
OFDM_HD float ldpc_phi(float x) {
  const float t = x > LDPC_PHI_MIN ? x : LDPC_PHI_MIN;
  return log1pf(2.0f / expm1f(t));
}

/* Sum-product: the message to an edge whose q had phi(|q|) = phi_q, with S
 * the lane's sum of phi and sgn its sign product. */
OFDM_HD float ldpc_bp_message(float q, float phi_q, float sum_phi, float sgn) {
  return ldpc_sign_take(sgn, q) * ldpc_phi(sum_phi - phi_q);
}

#endif
