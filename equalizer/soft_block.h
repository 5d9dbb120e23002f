/* The GMI losses of many bits at once, on the CPU (the grid's, and the
 * s = 1 quanta of soft_loss_q): the same quanta as
 * soft_grid_bit_ (equalizer/soft.h) bit by bit, computed with the bits in
 * the lanes of a vector instead of one bit at a time, so that the chains of
 * squarings and the series (serial within a bit) run side by side. Each lane
 * does the per-bit function's operations in its order, every one rounded on
 * its own, and the sums are whole numbers of quanta, exact in any order: the
 * totals are soft_label_loss_grid's bit for bit (tests/equalizer/
 * test_soft.c). A right bit's series are left out where its quanta are
 * provably 0 (an LLR, or s times it, of 18 or more: soft_block.c). */
#ifndef OFDMSIM_SOFT_BLOCK_H
#define OFDMSIM_SOFT_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "core/gmi_grid.h"

/* Adds to grid[k], k != GMI_GRID_S1, the loss in quanta at scaling
 * gmi_grid_s(k) of n bits: llr[i] against the sent bit[i] (0 or 1).
 * grid[GMI_GRID_S1] is left as it is (its sum is soft_label_loss's). */
void soft_grid_losses(size_t n, const float *llr, const uint8_t *bit, uint64_t *grid);

/* q[i] = soft_loss_q(llr[i], bit[i]) for i < n (bit[i] 0 or 1), the bits in
 * vector lanes: the same quanta bit for bit (tests/equalizer/test_soft.c).
 * The fused path wants only their sum (soft_losses_sum_q, below, on the
 * same packing); this per-bit form is what lets the tests hold that packing
 * to soft_loss_q lane by lane. */
void soft_losses_q(size_t n, const float *llr, const uint8_t *bit, uint32_t *q);

/* The sum of soft_losses_q's n quanta (what the fused path's s = 1 GMI
 * needs), without writing them. */
uint64_t soft_losses_sum_q(size_t n, const float *llr, const uint8_t *bit);

#endif
