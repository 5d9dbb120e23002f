/* The cyclic redundancy checks of TS 38.212 5.1, on bit arrays (one bit a
 * byte, values 0 or 1, a_0 first).
 *
 * The parity bits p_0..p_{L-1} are the remainder of a(D) D^L divided by the
 * generator g(D), a_0 the highest power; the register starts at zero and
 * nothing is inverted, so a message followed by its own parity bits leaves a
 * zero remainder. */
#ifndef OFDMSIM_CODING_CRC_H
#define OFDMSIM_CODING_CRC_H

#include <stddef.h>
#include <stdint.h>

#include "coding/crc_core.h" /* crc_kind and the register arithmetic */

/* L, the number of parity bits of a kind (24, 16, 11 or 6). */
int crc_length(crc_kind kind);
/* The generator g(D) as a bit mask of D^0..D^{L-1} (the D^L term implied). */
uint32_t crc_polynomial(crc_kind kind);
/* The remainder of bits[0..n-1] D^L modulo g(D): p_0 in bit L-1. */
uint32_t crc_remainder(crc_kind kind, const uint8_t *bits, size_t n);
/* Writes the L parity bits of bits[0..n-1] to bits[n..n+L-1]. */
void crc_attach(crc_kind kind, uint8_t *bits, size_t n);
/* 1 when bits[0..n-1] (message and parity) leave a zero remainder. */
int crc_check(crc_kind kind, const uint8_t *bits, size_t n);

#endif
