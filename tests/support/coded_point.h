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

#ifdef __cplusplus
}
#endif
#endif
