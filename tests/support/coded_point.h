/* The LDPC code the coded-link tests put on a point: NR's base graph for the
 * rate, a transport block that fills the frame's data REs, and the decoder's
 * usual settings (as configs/coded.cfg's defaults). */
#ifndef OFDMSIM_TEST_CODED_POINT_H
#define OFDMSIM_TEST_CODED_POINT_H

#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* p's code: LDPC at `rate` with `decoder` (min-sum's scale 0.75 and offset
 * 0.5, 10 iterations, early termination, no MCS), its TB the size the data
 * REs carry at p's bits per symbol and streams; then p's stream key again
 * (the code is part of it). Call it after the frame's shape and pilots are
 * set. */
void tp_ldpc(link_params *p, double rate, code_decoder decoder);

/* The coded-link tests' point: tx x tx (bps bits a symbol) on AWGN as one
 * tap, K subcarriers of 30 kHz and S symbols, pilots none (0), the comb
 * (1: every tx + 2 subcarriers of the symbols) or NR DMRS (2: type 1, one
 * symbol, occasions 2 and 11, the other CDM group's REs carrying data), the
 * equaliser eq (K-best at K = 8), max-log LLRs clipped at 20, and LDPC at
 * `rate` with `dec` (tp_ldpc); Es/N0 esno dB, seed `seed`. */
typedef struct tp_coded_spec {
  int tx, bps, K, S, pilots;
  eq_kind eq;
  code_decoder dec;
  double rate;
} tp_coded_spec;
link_params tp_coded_point(const tp_coded_spec *s, double esno, uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif
