/* lmmse2d's per-RE sum on the CPU at vector width: est_2d (channel/
 * estimate.h) for up to EST_2D_LANES subcarriers of one symbol and
 * transmit antenna, and every receive antenna, at once, the same values
 * bit for bit (tests/channel/test_estimate_2d_block.c). Both CPU paths
 * call it, through est_2d_lanes_execute below (cpu/estimate_cpu.c,
 * cpu/fused_frame_cpu.c); the GPU keeps the per-RE function. */
#ifndef OFDMSIM_ESTIMATE_2D_BLOCK_H
#define OFDMSIM_ESTIMATE_2D_BLOCK_H

#include <stddef.h>

#include "core/cplx.h"

#define EST_2D_LANES 16 /* subcarriers a call: one AVX-512 vector of floats */

/* out[q][i] = est_2d(first, w, taps, tt, S, K, t, s, k0 + i, np, off, step,
 * rows[q], row_stride, shrink) for i < n (1 <= n <= EST_2D_LANES, k0 + n <=
 * K) and q < nrows. */
void est_2d_block(const int *first, const cf32 *w, int taps, int tt, int S, int K, int t, int s, int k0, int n,
                  int np, int off, int step, int nrows, const cf32 *const *rows, size_t row_stride, float shrink,
                  cf32 *const *out);

/* The same sums with the lanes' weights made lane-major once a point, for
 * the blocks of EST_2D_LANES subcarriers from subcarrier 0 of each (t, s):
 * est_2d_block copies them a call, which was more than half of its
 * instructions, and the weights are the same in every frame. The table
 * borrows first and w (lmmse2d's est_plan: they must outlive it) and holds
 * some 1.2 times w's size. */
typedef struct est_2d_lanes est_2d_lanes;

/* NULL when out of memory. */
est_2d_lanes *est_2d_lanes_create(const int *first, const cf32 *w, int taps, int tt, int tx, int S, int K);
void est_2d_lanes_destroy(est_2d_lanes *lanes);

/* est_2d_block(first, w, taps, tt, S, K, t, s, k0, n, ...) of the table's
 * plan, the same values; a run within one block takes the table's weights,
 * any other the copy. */
void est_2d_lanes_execute(const est_2d_lanes *lanes, int t, int s, int k0, int n, int np, int off, int step,
                          int nrows, const cf32 *const *rows, size_t row_stride, float shrink, cf32 *const *out);

#endif
