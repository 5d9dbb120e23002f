/* LDPC encoding (TS 38.212 5.3.2) of one code block. */
#ifndef OFDMSIM_CODING_LDPC_ENCODE_H
#define OFDMSIM_CODING_LDPC_ENCODE_H

#include <stdint.h>

#include "coding/ldpc_graph.h"

/* Encodes K = ldpc_k(code) systematic bits (filler bits given as 0) into the
 * whole codeword cw[0 .. ldpc_codeword_bits(code) - 1]: the systematic bits
 * unchanged, then the parity bits, so that H cw = 0 over GF(2). Bits are one
 * a byte, 0 or 1. Rate matching drops the first 2Z (punctured) and the
 * fillers. 0, or -1 when the graph's core is not of the double-diagonal form
 * both 38.212 graphs have. */
int ldpc_encode(const ldpc_code *code, const uint8_t *info, uint8_t *cw);

#endif
