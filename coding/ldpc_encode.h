/* LDPC encoding (TS 38.212 5.3.2) of one code block. */
#ifndef OFDMSIM_CODING_LDPC_ENCODE_H
#define OFDMSIM_CODING_LDPC_ENCODE_H

#include <stdint.h>

#include "coding/ldpc_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The order the parity columns are solved in (ldpc_encode.c says why it
 * works), made once per code and followed by both encoders, the host's
 * (ldpc_encode) and the device's (cuda/tb_encode_gpu.cu):
 *
 *   p_0 (core column Kb): P^odd p_0 = s_0 + s_1 + s_2 + s_3;
 *   then for i = 0, 1, 2 the core column Kb + peel_col[i] from row
 *   peel_row[i], where it is the one unknown, at shift peel_shift[i]:
 *   P^shift p = s_row + the row's other core terms;
 *   then every extension row r >= 4 (its own column Kb + r, shift 0) from
 *   its systematic and core terms alone: the extension rows are independent
 *   of each other (checked here), so a device may solve them all at once. */
typedef struct ldpc_encode_schedule {
  int odd;
  int peel_row[3], peel_col[3], peel_shift[3];
} ldpc_encode_schedule;

/* 0, or -1 when the graph's core is not of the double-diagonal form both
 * 38.212 graphs have, or an extension row is not as above. */
int ldpc_encode_schedule_make(const ldpc_code *code, ldpc_encode_schedule *s);

/* Encodes K = ldpc_k(code) systematic bits (filler bits given as 0) into the
 * whole codeword cw[0 .. ldpc_codeword_bits(code) - 1]: the systematic bits
 * unchanged, then the parity bits, so that H cw = 0 over GF(2). Bits are one
 * a byte, 0 or 1. Rate matching drops the first 2Z (punctured) and the
 * fillers. 0, or -1 when ldpc_encode_schedule_make refuses the code. */
int ldpc_encode(const ldpc_code *code, const uint8_t *info, uint8_t *cw);

#ifdef __cplusplus
}
#endif

#endif
