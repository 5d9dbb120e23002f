/* A warp's CRC register over a bit array (one bit a byte), for the device's
 * transmitter (cuda/tb_encode_gpu.cu: the TB CRC and the CB CRC24Bs it
 * attaches) and receiver (cuda/tb_judge_gpu.cu: the CRCs it checks), one
 * definition on coding/crc_core.h's register arithmetic, which the host's
 * CRCs (coding/crc.c) run too. */
#ifndef OFDMSIM_CUDA_WARP_CRC_CUH
#define OFDMSIM_CUDA_WARP_CRC_CUH

#include <stdint.h>

#include "coding/crc_core.h"

/* The register (left-aligned) of bits[0 .. n-1] followed by `after` zero
 * bits, by one warp, all 32 lanes present (full-mask shuffles): lane l
 * takes the l-th of 32 equal pieces from a zero register and shifts its
 * register by the bits after the piece, `after` included
 * (crc_register_shift); the XOR of the lanes' is the whole message's
 * (crc_core.h: the CRC is linear). `after` places a piece of a longer
 * message: the registers of its pieces, each so shifted, XOR to the whole
 * message's. Every lane returns it. */
__device__ inline uint32_t warp_crc_register(int kind, const uint8_t *__restrict__ bits, int n, uint64_t after,
                                             int lane) {
  const int length = crc_kind_length(kind);
  const uint32_t g = crc_register_polynomial(kind);
  const int len = (n + 31) / 32;
  const int lo = lane * len < n ? lane * len : n, hi = lo + len < n ? lo + len : n;
  uint32_t t[16];
  crc_nibble_table(g, t);
  uint32_t reg = 0;
  int i = lo;
  for (; i + 4 <= hi; i += 4) reg = crc_register_nibble(reg, bits[i], bits[i + 1], bits[i + 2], bits[i + 3], t);
  for (; i < hi; i++) reg = crc_register_bit(reg, bits[i], g);
  reg = crc_register_shift(reg, (uint64_t)(n - hi) + after, g, length);
  for (int off = 16; off; off >>= 1) reg ^= __shfl_xor_sync(0xffffffffu, reg, off);
  return reg;
}

#endif
