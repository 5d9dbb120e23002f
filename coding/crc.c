/* Table-driven CRC over unpacked bits, four message bits at a time through
 * a 16-entry table of the register's response. The table is built on the
 * stack at each call (64 shifts, against thousands of bits a block): no
 * global state, so nothing to initialise once or guard between threads. */
#include "coding/crc.h"

static const int lengths[CRC_KINDS] = {24, 24, 24, 16, 11, 6};
/* 38.212 5.1, low L coefficients: e.g. CRC24A's D^23+D^18+D^17+D^14+D^11+D^10+
 * D^7+D^6+D^5+D^4+D^3+D+1 is 0x864CFB. */
static const uint32_t polys[CRC_KINDS] = {0x864CFB, 0x800063, 0xB2B117, 0x1021, 0x621, 0x21};

int crc_length(crc_kind kind) { return lengths[kind]; }
uint32_t crc_polynomial(crc_kind kind) { return polys[kind]; }

uint32_t crc_remainder(crc_kind kind, const uint8_t *bits, size_t n) {
  /* Register arithmetic in a 32-bit word, the remainder left-aligned (its
   * top coefficient in bit 31): every kind shifts out of the same bit and
   * four message bits enter as the top nibble. t[x] is what the register
   * becomes from x << 28 after four shifts. */
  const uint32_t g = polys[kind] << (32 - lengths[kind]);
  uint32_t t[16];
  for (uint32_t x = 0; x < 16; x++) {
    uint32_t reg = x << 28;
    for (int b = 0; b < 4; b++) reg = (reg & 0x80000000u) ? (reg << 1) ^ g : reg << 1;
    t[x] = reg;
  }
  uint32_t reg = 0;
  size_t i = 0;
  /* reg holds the remainder of the bits so far times D^L; feeding four more
   * bits multiplies by D^4 and adds them at the top: the top nibble of
   * (reg xor message nibble << 28) decides what the table subtracts. */
  for (; i + 4 <= n; i += 4) {
    const uint32_t nib = (uint32_t)((bits[i] & 1u) << 3 | (bits[i + 1] & 1u) << 2 | (bits[i + 2] & 1u) << 1 |
                                    (bits[i + 3] & 1u));
    reg = (reg << 4) ^ t[(reg >> 28) ^ nib];
  }
  for (; i < n; i++) {
    const uint32_t top = (reg >> 31) ^ (bits[i] & 1u);
    reg = top ? (reg << 1) ^ g : reg << 1;
  }
  return reg >> (32 - lengths[kind]);
}

void crc_attach(crc_kind kind, uint8_t *bits, size_t n) {
  const int l = lengths[kind];
  const uint32_t p = crc_remainder(kind, bits, n);
  for (int j = 0; j < l; j++) bits[n + j] = (uint8_t)((p >> (l - 1 - j)) & 1u);
}

int crc_check(crc_kind kind, const uint8_t *bits, size_t n) { return crc_remainder(kind, bits, n) == 0; }
