/* lmmse2d's per-RE sum on the CPU at vector width: est_2d (channel/
 * estimate.h) for EST_2D_LANES subcarriers of one symbol and transmit
 * antenna, and every receive antenna, at once, the same values bit for bit
 * (tests/channel/test_estimate_2d_block.c). Both CPU paths call it
 * (cpu/estimate_cpu.c, cpu/fused_frame_cpu.c); the GPU keeps the per-RE
 * function. */
#ifndef OFDMSIM_ESTIMATE_2D_BLOCK_H
#define OFDMSIM_ESTIMATE_2D_BLOCK_H

#include <stddef.h>

#include "core/cplx.h"

#define EST_2D_LANES 16 /* subcarriers a block: one AVX-512 vector of floats */

/* The lanes' weights of lmmse2d's plan, lane-major once a point, for the
 * blocks of EST_2D_LANES subcarriers from subcarrier 0 of each (t, s): the
 * weights are the same in every frame, and copying them a call had been
 * more than half of its instructions. It borrows first and w (lmmse2d's
 * est_plan: they must outlive it) and holds some 1.2 times w's size. */
typedef struct est_2d_lanes est_2d_lanes;

/* NULL when out of memory. */
est_2d_lanes *est_2d_lanes_create(const int *first, const cf32 *w, int taps, int tt, int tx, int S, int K);
void est_2d_lanes_destroy(est_2d_lanes *lanes);

/* out[q][i] = est_2d(first, w, taps, tt, S, K, t, s, k0 + i, np, off, step,
 * rows[q], row_stride, shrink) for i < n (k0 + n <= K) and q < nrows, with
 * the plan's first, w, taps, tt, S and K. A block's work is all its lanes:
 * runs cut at the blocks (k0 a multiple of EST_2D_LANES, or n up to the
 * next) do no more than they need. */
void est_2d_lanes_execute(const est_2d_lanes *lanes, int t, int s, int k0, int n, int np, int off, int step,
                          int nrows, const cf32 *const *rows, size_t row_stride, float shrink, cf32 *const *out);

#endif
