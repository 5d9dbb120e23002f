/* Table-driven CRC over unpacked bits, four message bits at a time through
 * a 16-entry table of the register's response (coding/crc_core.h, shared
 * with the device). The table is built on the stack at each call (64
 * shifts, against thousands of bits a block): no global state, so nothing
 * to initialise once or guard between threads. */
#include "coding/crc.h"

int crc_length(crc_kind kind) { return crc_kind_length(kind); }
uint32_t crc_polynomial(crc_kind kind) { return crc_kind_polynomial(kind); }

uint32_t crc_remainder(crc_kind kind, const uint8_t *bits, size_t n) { return crc_remainder_of(kind, bits, n); }

void crc_attach(crc_kind kind, uint8_t *bits, size_t n) {
  const int l = crc_kind_length(kind);
  const uint32_t p = crc_remainder_of(kind, bits, n);
  for (int j = 0; j < l; j++) bits[n + j] = crc_parity_bit(p, l, j);
}

int crc_check(crc_kind kind, const uint8_t *bits, size_t n) { return crc_remainder_of(kind, bits, n) == 0; }
