/* The CRC register arithmetic of TS 38.212 5.1, inline for gcc and nvcc
 * alike (OFDM_HD): coding/crc.c runs it on the host and the GPU backend's
 * transmitter (cuda/tb_encode_gpu.cu) on the device, one definition, so the
 * two cannot drift.
 *
 * The register holds the remainder left-aligned (its top coefficient in bit
 * 31), so every kind shifts out of the same bit; message bits enter at the
 * top, a_0 first. */
#ifndef OFDMSIM_CODING_CRC_CORE_H
#define OFDMSIM_CODING_CRC_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "core/cplx.h"

typedef enum crc_kind { CRC24A, CRC24B, CRC24C, CRC16, CRC11, CRC6, CRC_KINDS } crc_kind;

/* L, the parity bits of a kind. */
OFDM_HD int crc_kind_length(int kind) {
  return kind == CRC16 ? 16 : kind == CRC11 ? 11 : kind == CRC6 ? 6 : 24;
}

/* g(D)'s low L coefficients as a mask of D^0..D^{L-1}: e.g. CRC24A's
 * D^23+D^18+D^17+D^14+D^11+D^10+D^7+D^6+D^5+D^4+D^3+D+1 is 0x864CFB. */
OFDM_HD uint32_t crc_kind_polynomial(int kind) {
  switch (kind) {
    case CRC24A: return 0x864CFBu;
    case CRC24B: return 0x800063u;
    case CRC24C: return 0xB2B117u;
    case CRC16: return 0x1021u;
    case CRC11: return 0x621u;
    default: return 0x21u;
  }
}

/* g(D) left-aligned in the register. */
OFDM_HD uint32_t crc_register_polynomial(int kind) {
  return crc_kind_polynomial(kind) << (32 - crc_kind_length(kind));
}

/* One message bit into the register: reg holds the remainder of the bits so
 * far times D^L; the new bit multiplies it by D and adds at the top. */
OFDM_HD uint32_t crc_register_bit(uint32_t reg, uint32_t bit, uint32_t g) {
  const uint32_t top = (reg >> 31) ^ (bit & 1u);
  return top ? (reg << 1) ^ g : reg << 1;
}

/* t[x]: what the register becomes from x << 28 after four shifts, for the
 * four-bits-a-step form below. */
OFDM_HD void crc_nibble_table(uint32_t g, uint32_t t[16]) {
  for (uint32_t x = 0; x < 16; x++) {
    uint32_t reg = x << 28;
    for (int b = 0; b < 4; b++) reg = (reg & 0x80000000u) ? (reg << 1) ^ g : reg << 1;
    t[x] = reg;
  }
}

/* Four message bits (b0 first) into the register: the top nibble of
 * (reg xor message nibble << 28) decides what the table subtracts. */
OFDM_HD uint32_t crc_register_nibble(uint32_t reg, uint32_t b0, uint32_t b1, uint32_t b2, uint32_t b3,
                                     const uint32_t t[16]) {
  const uint32_t nib = (b0 & 1u) << 3 | (b1 & 1u) << 2 | (b2 & 1u) << 1 | (b3 & 1u);
  return (reg << 4) ^ t[(reg >> 28) ^ nib];
}

/* The remainder of bits[0..n-1] D^L modulo g(D) (p_0 in bit L-1), one bit a
 * byte. */
OFDM_HD uint32_t crc_remainder_of(int kind, const uint8_t *bits, size_t n) {
  const uint32_t g = crc_register_polynomial(kind);
  uint32_t t[16];
  crc_nibble_table(g, t);
  uint32_t reg = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) reg = crc_register_nibble(reg, bits[i], bits[i + 1], bits[i + 2], bits[i + 3], t);
  for (; i < n; i++) reg = crc_register_bit(reg, bits[i], g);
  return reg >> (32 - crc_kind_length(kind));
}

/* Register polynomials (degree < L, left-aligned) multiplied modulo g(D):
 * Horner over b's coefficients from the top, each step a multiplication by
 * D, which is a zero bit into the register. */
OFDM_HD uint32_t crc_register_mul(uint32_t a, uint32_t b, uint32_t g, int length) {
  uint32_t acc = 0;
  for (int pos = 31; pos >= 32 - length; pos--) {
    acc = crc_register_bit(acc, 0, g);
    if ((b >> pos) & 1u) acc ^= a;
  }
  return acc;
}

/* D^m modulo g(D) in the register's form, by squaring. */
OFDM_HD uint32_t crc_register_dpow(uint64_t m, uint32_t g, int length) {
  uint32_t result = 1u << (32 - length), base = crc_register_bit(result, 0, g);
  for (; m; m >>= 1) {
    if (m & 1u) result = crc_register_mul(result, base, g, length);
    base = crc_register_mul(base, base, g, length);
  }
  return result;
}

/* The CRC is linear: the register after a message a followed by m more bits
 * is (the register after a) D^m plus the register after the m bits alone,
 * so pieces of a message taken from zero registers, each times D to the
 * bits after it, add up to the whole message's register (the device's
 * warp-parallel CRC). */
OFDM_HD uint32_t crc_register_shift(uint32_t reg, uint64_t m, uint32_t g, int length) {
  return crc_register_mul(reg, crc_register_dpow(m, g, length), g, length);
}

/* Parity bit j (0 .. L-1, p_j) of a remainder: the bit written at n + j. */
OFDM_HD uint8_t crc_parity_bit(uint32_t remainder, int length, int j) {
  return (uint8_t)((remainder >> (length - 1 - j)) & 1u);
}

#endif
