/* The grid of LLR scalings s on which every frame's GMI loss is summed, for
 * the GMI of a mismatched receiver (the supremum over s >= 0 of
 * bps - E[log2(1 + exp(-s (2b-1) L))], summed over the streams): plain C
 * that nvcc also compiles, shared by the backends that sum the losses
 * (equalizer/soft.h) and the report that maximises over s (results/).
 *
 * Why this grid: s_k = 2^((k - GMI_GRID_S1) / 2), half an octave apart from
 * 2^-8 to 2^3, with s = 1 exactly at k = GMI_GRID_S1 (that sum is the very
 * one the s = 1 GMI has always used, bit for bit).
 *  - Log-spaced, because a mismatch scales the LLRs: overconfident LLRs
 *    (time-domain Doppler with LS estimation, SIC error propagation, max-log)
 *    move the optimum to s = 1/c for LLRs c times too large, and how far
 *    the optimum lies from 1 is a ratio.
 *  - 2^-8 at the bottom: LS estimation that misses the Doppler leaves LLRs
 *    some 50 times too large at 30 dB (s* = 0.02), and the refinement is
 *    accurate only from the grid's first point up (below it, between s = 0,
 *    where the GMI is 0 without a sum, and that point, it interpolates in s
 *    and may fall short by some 1e-2 when s* is near the point; far below
 *    it, GMI(s) = a s - b s^2 + O(s^4) and the interpolation is good again).
 *    LLRs 250 times too large still have their optimum above 2^-8. 2^3 at
 *    the top: LLRs 8 times too cautious are not a receiver this simulator
 *    has.
 *  - Half an octave: the report refines the best grid point with a
 *    five-point interpolation, whose error on Gaussian LLRs of any mismatch
 *    stays below 4e-4 of the GMI at this spacing (1e-2 at an octave);
 *    tests/results/test_gmi_sup.c measures it against the exact supremum.
 * Twenty-three sums a frame: each bit's loss at 22 more scalings costs a
 * squaring and a logarithm each (soft.h). */
#ifndef OFDMSIM_GMI_GRID_H
#define OFDMSIM_GMI_GRID_H

#include "core/cplx.h"

#define GMI_GRID 23
#define GMI_GRID_S1 16 /* s = 1 */

/* s_k = 2^((k - GMI_GRID_S1) / 2): exact powers of two at even offsets,
 * sqrt(2) (rounded to double) times one at odd offsets. */
OFDM_HD double gmi_grid_s(int k) {
  const int j = k - GMI_GRID_S1;
  const int e = (j >= 0 ? j : j - 1) / 2; /* floor(j / 2) */
  return ldexp((j & 1) ? 1.4142135623730951 : 1.0, e);
}

#endif
