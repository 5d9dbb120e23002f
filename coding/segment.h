/* Transport block CRC and code block segmentation for LDPC (TS 38.212 7.2.1,
 * 5.2.2): how a TB of A bits becomes C code blocks of K bits each, K' of them
 * message and CRC, F = K - K' filler bits (known zeros). */
#ifndef OFDMSIM_CODING_SEGMENT_H
#define OFDMSIM_CODING_SEGMENT_H

#include <stdint.h>

#include "coding/crc.h"

typedef struct ldpc_segmentation {
  int a;          /* TBS: the transport block's information bits */
  int bg;         /* base graph 1 or 2 */
  int tb_crc;     /* L_TB: 24 (CRC24A, A > 3824) or 16 (CRC16) */
  int b;          /* B = A + L_TB */
  int c;          /* code blocks */
  int cb_crc;     /* L: 24 (CRC24B) when C > 1, else 0 */
  int k_prime;    /* K' = B'/C, B' = B + C L: bits of a block before fillers */
  int kb;         /* systematic base columns that must hold K': 22, or 10/9/8/6 */
  int zc;         /* lifting size: the smallest Z with Kb Z >= K' */
  int k;          /* K = 22 Zc (BG1) or 10 Zc (BG2) */
  int f;          /* filler bits per block, F = K - K' */
  int n;          /* N = 66 Zc or 50 Zc: bits after encoding and puncturing */
} ldpc_segmentation;

/* The segmentation of a TB of `tbs` bits on base graph bg. 0, or -1 when
 * the input is out of range (tbs < 1, bg not 1 or 2, a TBS whose B' the
 * block count does not divide: no 38.214 TBS is such). */
int ldpc_segment(int tbs, int bg, ldpc_segmentation *s);

/* The transmitter's bits of code block r (0..C-1): its share of the TB bits
 * (bits[0..B-1], the TB with its CRC attached), its CRC24B when C > 1, then
 * F zero fillers: K bits into block[]. */
void ldpc_segment_block(const ldpc_segmentation *s, const uint8_t *tb_with_crc, int r, uint8_t *block);

/* Bit j (0 .. K-1) of block r as ldpc_segment_block writes it, one bit at a
 * time for the device's encoder (cuda/tb_encode_gpu.cu; OFDM_HD, one
 * definition for gcc and nvcc): its share of the TB with its CRC below the
 * payload K' - L, then the block's CRC24B parity bits (cb_crc, the
 * remainder of its payload, when C > 1), then the fillers, 0. */
OFDM_HD uint8_t ldpc_segment_block_bit(const ldpc_segmentation *s, const uint8_t *tb_with_crc, int r,
                                       uint32_t cb_crc, int j) {
  const int payload = s->k_prime - s->cb_crc;
  if (j < payload) return tb_with_crc[(size_t)r * (size_t)payload + (size_t)j];
  if (j < s->k_prime) return crc_parity_bit(cb_crc, s->cb_crc, j - payload);
  return 0;
}

/* The kind of CRC on the TB. */
OFDM_HD crc_kind ldpc_tb_crc_kind(const ldpc_segmentation *s) { return s->tb_crc == 24 ? CRC24A : CRC16; }

#endif
