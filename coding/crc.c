/* Table-driven CRC over unpacked bits: eight message bits at a time go
 * through a 256-entry table of the register's response. */
#include "coding/crc.h"

#include <pthread.h>

static const int lengths[CRC_KINDS] = {24, 24, 24, 16, 11, 6};
/* 38.212 5.1, low L coefficients: e.g. CRC24A's D^23+D^18+D^17+D^14+D^11+D^10+
 * D^7+D^6+D^5+D^4+D^3+D+1 is 0x864CFB. */
static const uint32_t polys[CRC_KINDS] = {0x864CFB, 0x800063, 0xB2B117, 0x1021, 0x621, 0x21};

/* Register arithmetic in a 32-bit word, the remainder left-aligned (its top
 * coefficient in bit 31): then every kind shifts out of the same bit and
 * eight message bits enter as the top byte. */
static uint32_t tables[CRC_KINDS][256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void build_tables(void) {
  for (int k = 0; k < CRC_KINDS; k++) {
    const uint32_t g = polys[k] << (32 - lengths[k]);
    for (uint32_t byte = 0; byte < 256; byte++) {
      uint32_t reg = byte << 24;
      for (int b = 0; b < 8; b++) reg = (reg & 0x80000000u) ? (reg << 1) ^ g : reg << 1;
      tables[k][byte] = reg;
    }
  }
}

int crc_length(crc_kind kind) { return lengths[kind]; }
uint32_t crc_polynomial(crc_kind kind) { return polys[kind]; }

uint32_t crc_remainder(crc_kind kind, const uint8_t *bits, size_t n) {
  pthread_once(&tables_once, build_tables);
  const uint32_t *t = tables[kind];
  const uint32_t g = polys[kind] << (32 - lengths[kind]);
  uint32_t reg = 0;
  size_t i = 0;
  /* reg holds the remainder of the bits so far times D^L; feeding eight more
   * bits multiplies by D^8 and adds them at the top: the top byte of
   * (reg xor message byte << 24) decides what the table subtracts. */
  for (; i + 8 <= n; i += 8) {
    uint32_t byte = 0;
    for (int b = 0; b < 8; b++) byte = (byte << 1) | (bits[i + b] & 1u);
    reg = (reg << 8) ^ t[(reg >> 24) ^ byte];
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
