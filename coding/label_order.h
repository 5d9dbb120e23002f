/* Where a symbol's coded bits sit in ofdmsim's QAM label, written once for
 * gcc and nvcc (the GPU writes labels and gathers LLRs with it too).
 *
 * TS 38.211 7.3.1.2 maps a symbol's bits b0 b1 b2 ... as: b0 the I sign,
 * b1 the Q sign, then b2/b3 the next I/Q bits and so on, each dimension a
 * binary-reflected Gray code with its first bit most significant. ofdmsim's
 * label (core/qam.h) holds the I Gray label in its high bps/2 bits and the
 * Q label in its low bps/2, most significant bit first. So coded bit k,
 * j = k/2, goes to label bit bps-1-j (I) for even k and bps/2-1-j (Q) for
 * odd k. The order matters: the 38.212 bit interleaver sends the first row
 * of every block (systematic bits first) to b0, the most reliable position;
 * label bit k = coded bit k would put it on an amplitude bit instead. The
 * polarity (38.211's b = 0 is the positive sign, ofdmsim's 1) changes no
 * rate: the mapping is a relabelling of the same points. BPSK is the
 * identity. */
#ifndef OFDMSIM_CODING_LABEL_ORDER_H
#define OFDMSIM_CODING_LABEL_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "core/cplx.h"

/* The label bit carrying coded bit k (0 <= k < bps) of a symbol. */
OFDM_HD int tb_label_bit(int k, int bps) {
  if (bps < 2) return k;
  const int j = k >> 1;
  return (k & 1) ? (bps >> 1) - 1 - j : bps - 1 - j;
}

/* The label of a symbol whose coded bits (0/1 a byte) are b[0 .. bps-1]. */
OFDM_HD uint32_t tb_symbol_label(const uint8_t *b, int bps) {
  uint32_t label = 0;
  for (int k = 0; k < bps; k++) label |= (uint32_t)b[k] << tb_label_bit(k, bps);
  return label;
}

/* The index, in the receivers' LLRs (label bit order: llr[s bps + label
 * bit] for symbol s), of coded bit i of a run of whole symbols. */
OFDM_HD size_t tb_llr_index(size_t i, int bps) {
  const size_t k = i % (size_t)bps;
  return i - k + (size_t)tb_label_bit((int)k, bps);
}

#endif
