/* The fixed-point decoder's (nms16, coding/ldpc_msg16.h) check-node
 * arithmetic on two code blocks at once: the GPU's pair kernel
 * (cuda/ldpc_gpu.cu) keeps two blocks of one graph and lifting size in one
 * thread block, their a posteriori LLRs interleaved as one 32-bit word a
 * slot (block A in the low 16 bits, block B in the high 16), since both
 * blocks read the same slots in the same order: one address, one shared
 * load and one store serve both, and the per-edge work below is 16x2 SIMD
 * (on sm_90 VIADD.16x2, VIMNMX.S16x2 / .U16x2 and PRMT, one instruction
 * each), so a lane's edge of two blocks costs about 10% more instructions
 * than one block's edge in the single-block kernel.
 *
 * Exactness: every value a half holds is an int16 that ldpc_msg16.h's int32
 * arithmetic holds (its "no saturation, by a bound": |app| and |q| <= 31744,
 * the minima and messages <= 1024), so the 16x2 adds, subtractions and
 * minima never wrap and equal the int32 ones. The scaling, (mag k + 2^14) >> 15, needs 32 bits:
 * it runs per half in 32-bit integers, once a row. Each function is plain C
 * on the two halves on the host (the reference the CPU test,
 * tests/coding/test_ldpc16_pair.c, runs against the CPU decoder) and the
 * SIMD intrinsics on the device: the same bits.
 *
 * min1's edge, per half, comes from the predicates of the 16x2 minimum
 * (VIMNMX.S16x2 sets one a half: which operand it chose), so a tie keeps
 * the earlier edge as ldpc_msg16.h's order does (a < min1 replaces it).
 *
 * A row's messages of a lane and pair are v1, v2 (alpha min1 and alpha
 * min2, both halves) and flag words, word w for edges 8w .. 8w+7, edge
 * j = k - 8w at bit 7 - j of byte 0 (A: this edge is min1's, it gets v2),
 * byte 1 (A: the message is negative), byte 2 and byte 3 (the same for B):
 * shifted left by j, an edge's four flags sit at bits 7, 15, 23 and 31, the
 * sign bits of the four bytes, which one PRMT turns into 16-bit masks. The
 * GPU's single-block kernel keeps 12 bytes a row and lane per block; these
 * take 8 + 4 ceil(deg / 8) per pair. */
#ifndef OFDMSIM_CODING_LDPC_MSG16X2_H
#define OFDMSIM_CODING_LDPC_MSG16X2_H

#include <stdint.h>

#include "coding/ldpc_msg16.h"

/* Both halves' signs (bits 15 and 31). */
#define LDPC16X2_SIGNS 0x80008000u

/* The pair of x (block A) and y (block B). */
OFDM_HD uint32_t ldpc16x2_pack(int16_t x, int16_t y) { return (uint32_t)(uint16_t)x | (uint32_t)(uint16_t)y << 16; }
OFDM_HD int16_t ldpc16x2_lo(uint32_t p) { return (int16_t)(uint16_t)(p & 0xffffu); }
OFDM_HD int16_t ldpc16x2_hi(uint32_t p) { return (int16_t)(uint16_t)(p >> 16); }

#ifdef __CUDA_ARCH__
OFDM_HD uint32_t ldpc16x2_add(uint32_t a, uint32_t b) { return __vadd2(a, b); }
OFDM_HD uint32_t ldpc16x2_sub(uint32_t a, uint32_t b) { return __vsub2(a, b); }
OFDM_HD uint32_t ldpc16x2_maxs(uint32_t a, uint32_t b) { return __vmaxs2(a, b); }
OFDM_HD uint32_t ldpc16x2_mins(uint32_t a, uint32_t b) { return __vmins2(a, b); }
OFDM_HD uint32_t ldpc16x2_minu(uint32_t a, uint32_t b) { return __vminu2(a, b); }
OFDM_HD uint32_t ldpc16x2_maxu(uint32_t a, uint32_t b) { return __vmaxu2(a, b); }
/* prmt's generic mode with the selector's high bit set replicates the
 * chosen byte's sign bit (__byte_perm ignores that bit, hence the asm) */
OFDM_HD uint32_t ldpc16x2_mask15(uint32_t x) {
  uint32_t r;
  asm("prmt.b32 %0, %1, 0, 0xbb99;" : "=r"(r) : "r"(x));
  return r;
}
OFDM_HD uint32_t ldpc16x2_mask7(uint32_t x) {
  uint32_t r;
  asm("prmt.b32 %0, %1, 0, 0xaa88;" : "=r"(r) : "r"(x));
  return r;
}
#else
/* Plain C on the halves: what the intrinsics compute (the sums wrap mod
 * 2^16 per half, which the bound above never lets happen). */
OFDM_HD uint32_t ldpc16x2_add(uint32_t a, uint32_t b) {
  return ((a + b) & 0xffffu) | (((a >> 16) + (b >> 16)) & 0xffffu) << 16;
}
OFDM_HD uint32_t ldpc16x2_sub(uint32_t a, uint32_t b) {
  return ((a - b) & 0xffffu) | (((a >> 16) - (b >> 16)) & 0xffffu) << 16;
}
OFDM_HD uint32_t ldpc16x2_maxs(uint32_t a, uint32_t b) {
  const int16_t l = ldpc16x2_lo(a) > ldpc16x2_lo(b) ? ldpc16x2_lo(a) : ldpc16x2_lo(b);
  const int16_t h = ldpc16x2_hi(a) > ldpc16x2_hi(b) ? ldpc16x2_hi(a) : ldpc16x2_hi(b);
  return ldpc16x2_pack(l, h);
}
OFDM_HD uint32_t ldpc16x2_mins(uint32_t a, uint32_t b) {
  const int16_t l = ldpc16x2_lo(a) < ldpc16x2_lo(b) ? ldpc16x2_lo(a) : ldpc16x2_lo(b);
  const int16_t h = ldpc16x2_hi(a) < ldpc16x2_hi(b) ? ldpc16x2_hi(a) : ldpc16x2_hi(b);
  return ldpc16x2_pack(l, h);
}
OFDM_HD uint32_t ldpc16x2_minu(uint32_t a, uint32_t b) {
  const uint32_t l = (a & 0xffffu) < (b & 0xffffu) ? a & 0xffffu : b & 0xffffu;
  const uint32_t h = (a >> 16) < (b >> 16) ? a >> 16 : b >> 16;
  return l | h << 16;
}
OFDM_HD uint32_t ldpc16x2_maxu(uint32_t a, uint32_t b) {
  const uint32_t l = (a & 0xffffu) > (b & 0xffffu) ? a & 0xffffu : b & 0xffffu;
  const uint32_t h = (a >> 16) > (b >> 16) ? a >> 16 : b >> 16;
  return l | h << 16;
}
/* 0xffff in each half whose bit 15 (of the half) is set */
OFDM_HD uint32_t ldpc16x2_mask15(uint32_t x) {
  return ((x >> 15) & 1u ? 0xffffu : 0u) | ((x >> 31) & 1u ? 0xffff0000u : 0u);
}
/* 0xffff in each half whose bit 7 (of the half) is set */
OFDM_HD uint32_t ldpc16x2_mask7(uint32_t x) {
  return ((x >> 7) & 1u ? 0xffffu : 0u) | ((x >> 23) & 1u ? 0xffff0000u : 0u);
}
#endif

/* Bitwise select: b where m is set, else a. */
OFDM_HD uint32_t ldpc16x2_sel(uint32_t a, uint32_t b, uint32_t m) { return (a & ~m) | (b & m); }

/* One channel LLR of each block into a pair (ldpc16_quantise). */
OFDM_HD uint32_t ldpc16x2_quantise(float a, float b) { return ldpc16x2_pack(ldpc16_quantise(a), ldpc16_quantise(b)); }

/* q = app - m_old of an edge: f the row's flag word shifted left by the
 * edge's j, (v1, v2) the row's old magnitudes. */
OFDM_HD uint32_t ldpc16x2_q(uint32_t app, uint32_t v1, uint32_t v2, uint32_t f) {
  const uint32_t neg = ldpc16x2_mask15(f), m = ldpc16x2_sel(v1, v2, ldpc16x2_mask7(f));
  return ldpc16x2_sel(ldpc16x2_sub(app, m), ldpc16x2_add(app, m), neg);
}

/* A row's running state over its edges (both halves): the minima, min1's
 * edge of each half (ia: A, ib: B), and the sign product (bits 15 and 31;
 * the other bits are noise). */
typedef struct ldpc16x2_acc {
  uint32_t m1, m2, sg;
  int ia, ib;
} ldpc16x2_acc;

OFDM_HD ldpc16x2_acc ldpc16x2_acc_start(int degree) {
  ldpc16x2_acc a;
  a.m1 = a.m2 = (uint32_t)LDPC16_MAG_MAX * 0x10001u;
  a.sg = ldpc16_sign_start(degree) ? LDPC16X2_SIGNS : 0u;
  a.ia = a.ib = 0;
  return a;
}

/* min1 = min(a, min1) per half, and min1's edge k where a < min1 (strictly:
 * a tie keeps the earlier edge, as ldpc_msg16.h's order does). One
 * VIMNMX.S16x2 with its two predicates (m1 <= a, per half) and two SELs. */
#ifdef __CUDA_ARCH__
OFDM_HD void ldpc16x2_min1(ldpc16x2_acc *acc, uint32_t a, int k) {
  bool keep_hi, keep_lo;
  acc->m1 = __vibmin_s16x2(acc->m1, a, &keep_hi, &keep_lo);
  acc->ia = keep_lo ? acc->ia : k;
  acc->ib = keep_hi ? acc->ib : k;
}
#else
OFDM_HD void ldpc16x2_min1(ldpc16x2_acc *acc, uint32_t a, int k) {
  const int16_t ml = ldpc16x2_lo(acc->m1), mh = ldpc16x2_hi(acc->m1);
  const int16_t al = ldpc16x2_lo(a), ah = ldpc16x2_hi(a);
  acc->ia = ml <= al ? acc->ia : k;
  acc->ib = mh <= ah ? acc->ib : k;
  acc->m1 = ldpc16x2_pack(ml <= al ? ml : al, mh <= ah ? mh : ah);
}
#endif

/* Edge k's q into the row: a = |q| (<= 31744: no int16 overflow; no clamp
 * to LDPC16_MAG_MAX either, since the minima start there, so min(a, 1024)
 * and a give the same minima and the same min1 edge), min2 before min1,
 * the sign. */
OFDM_HD void ldpc16x2_take(ldpc16x2_acc *acc, uint32_t q, int k) {
  /* |q| = max(q, ~q + 1): a LOP3 and one VIADDMNMX.S16x2 (nvcc expands
   * max(q, 0 - q) into per-half scalar negations) */
  const uint32_t a = ldpc16x2_maxs(ldpc16x2_add(~q, 0x00010001u), q);
  acc->m2 = ldpc16x2_mins(ldpc16x2_maxs(a, acc->m1), acc->m2);
  ldpc16x2_min1(acc, a, k);
  acc->sg ^= q;
}

/* alpha m of each half (ldpc16_scale: 32-bit products, per half). */
OFDM_HD uint32_t ldpc16x2_scale(uint32_t m, int32_t k) {
  const uint32_t l = (uint32_t)ldpc16_scale((int32_t)(m & 0xffffu), k);
  const uint32_t h = (uint32_t)ldpc16_scale((int32_t)(m >> 16), k);
  return l | h << 16;
}

/* The row's new magnitudes: v1 = alpha min1, v2 = alpha min2 (both halves). */
OFDM_HD uint32_t ldpc16x2_v1(const ldpc16x2_acc *acc, int32_t k) { return ldpc16x2_scale(acc->m1, k); }
OFDM_HD uint32_t ldpc16x2_v2(const ldpc16x2_acc *acc, int32_t k) { return ldpc16x2_scale(acc->m2, k); }

/* Flag word w's min1 bits (bytes 0 and 2): the one edge of each half that
 * gets v2, when it lies in edges 8w .. 8w+7. */
OFDM_HD uint32_t ldpc16x2_hot(const ldpc16x2_acc *acc, int w) {
  const uint32_t da = (uint32_t)acc->ia - 8u * (uint32_t)w, db = (uint32_t)acc->ib - 8u * (uint32_t)w;
  return (da < 8u ? 0x80u >> da : 0u) | (db < 8u ? 0x800000u >> db : 0u);
}

/* The second pass takes the sign product out of the edge loop: a message
 * is alpha m with the sign of sgn * sign(q_k), so with the row's sgn put on
 * v1 and v2 once (ldpc16x2_signed), an edge's message is that signed
 * magnitude, negated where q_k < 0, and its flag word first gets sign(q_k)
 * (ldpc16x2_give), then sgn once a word (ldpc16x2_word_signs). */

/* 0xffff in each half whose sign product is negative. */
OFDM_HD uint32_t ldpc16x2_row_sign(const ldpc16x2_acc *acc) { return ldpc16x2_mask15(acc->sg); }

/* v (magnitudes <= 1024) negated in the halves where sgn is set. */
OFDM_HD uint32_t ldpc16x2_signed(uint32_t v, uint32_t sgn) { return ldpc16x2_sub(v ^ sgn, sgn); }

/* Edge j (of its flag word) out of the row: the new a posteriori pair
 * q + message, with (s1, s2) the row's signed v1 and v2 and hot the word's
 * min1 bits shifted left by j; q's sign bits go into *w (bits 15 - j and
 * 31 - j). */
OFDM_HD uint32_t ldpc16x2_give(uint32_t q, uint32_t s1, uint32_t s2, uint32_t hot, int j, uint32_t *w) {
  const uint32_t neg = ldpc16x2_mask15(q), m = ldpc16x2_sel(s1, s2, ldpc16x2_mask7(hot));
  *w |= neg & (LDPC16X2_SIGNS >> j); /* one LOP3: neg is all ones where q < 0 */
  return ldpc16x2_sel(ldpc16x2_add(q, m), ldpc16x2_sub(q, m), neg);
}

/* A flag word of n edges (1 .. 8) once its edges are out: the sign bits of
 * its edges flipped in the halves whose sign product is negative (sgn from
 * ldpc16x2_row_sign), so that each is the message's sign. */
OFDM_HD uint32_t ldpc16x2_word_signs(uint32_t w, uint32_t sgn, int n) {
  const uint32_t b = (0xff00u >> n) & 0xffu;
  return w ^ (sgn & (b << 8 | b << 24));
}

/* Bits 15 and 31: the halves whose hard decisions (ldpc16_hard_bit: 1
 * where x >= 0) fail a check, from the XOR of the check's deg pairs. */
OFDM_HD uint32_t ldpc16x2_unmet(uint32_t xor_of_pairs, int degree) {
  return (xor_of_pairs ^ (degree & 1 ? LDPC16X2_SIGNS : 0u)) & LDPC16X2_SIGNS;
}

/* The hard decisions of the halves. */
OFDM_HD uint8_t ldpc16x2_hard_lo(uint32_t p) { return (uint8_t)(((p >> 15) & 1u) ^ 1u); }
OFDM_HD uint8_t ldpc16x2_hard_hi(uint32_t p) { return (uint8_t)((p >> 31) ^ 1u); }

#endif
