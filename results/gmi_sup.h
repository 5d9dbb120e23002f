/* The GMI of a mismatched receiver: the supremum over the LLR scaling s >= 0
 * of GMI(s) = bps - E[log2(1 + exp(-s (2b-1) L))], summed over the streams,
 * from the per-frame loss sums at the fixed grid of s (core/gmi_grid.h).
 *
 * Why: at s = 1 (the LLRs taken as they come) a receiver whose LLRs are
 * overconfident, a joint detector's error propagation or a channel estimate
 * that misses the Doppler, scores below what a decoder that scales its
 * input achieves, even below 0; the supremum is the rate a BICM decoder
 * reaches on these LLRs with the best fixed scaling, and it is 1 - the loss
 * of a BPSK bit, I(b; L), for a matched receiver (s* = 1).
 *
 * How: GMI(s) is concave (each bit's loss is convex in s), so its maximum
 * lies between the grid neighbours of the best grid point; GMI(0) = 0
 * exactly (a bit then costs one bit), which bounds the search below.
 *  1. GMI at every grid point exactly from its sums, and 0 at s = 0; the
 *     best of these, b.
 *  2. Refinement between b's neighbours, by interpolation of the grid
 *     values (not by new evaluations, which would need the LLRs): the
 *     polynomial through five neighbouring points, maximised by golden
 *     section; the result is never below the best grid value. From the
 *     grid's first point up the variable is log2 s (the grid is even there);
 *     between s = 0 and the first point it is s itself, with s = 0 among the
 *     nodes (GMI(s) = a s - b s^2 + O(s^4) there); where b is the first
 *     point, both, and the better. On Gaussian LLRs of mismatches from 1/6
 *     to 150 it is within 4e-4 of the true supremum, relative
 *     (tests/results/test_gmi_sup.c); an optimum below the grid's first
 *     point but near it may come out short by up to some 1e-2.
 *  3. Its interval: the frame-level t interval that the s = 1 GMI uses, at
 *     s*: its half-width interpolated linearly (in the same variable)
 *     between the two grid points around s* (0 at s = 0, where every frame
 *     loses exactly one bit a bit); the lower end no lower than 0 (the
 *     supremum is never negative). The interval is that of GMI(s*) at the s*
 *     found; choosing s* on the same data biases the supremum up by about
 *     the variance of one estimate, far inside the interval.
 * When b is the grid's largest s (LLRs more than 8 times too cautious) the
 * supremum may lie beyond: gmi is then GMI(8), a lower bound, with edge = 1. */
#ifndef OFDMSIM_GMI_SUP_H
#define OFDMSIM_GMI_SUP_H

#include <stdint.h>

#include "results/chunks.h"

/* What the supremum is found from: a point's grid sums (its tally's, or a
 * merged CSV row's). */
typedef struct gmi_sums {
  double full;            /* bits per RE, all streams: tx x bits per symbol */
  double res;             /* data REs per frame */
  uint64_t frames;
  const double *loss;     /* [GMI_GRID]: loss at gmi_grid_s(k), bits, summed over frames and streams */
  const double *loss_sq;  /* [GMI_GRID]: sum over the units of (the unit's loss per RE of a frame)^2 */
  uint64_t units;         /* the independent units: drops (tally_drops), 0: the frames */
} gmi_sums;

/* The t interval of the mean loss per frame from per-unit sums: sum (the
 * loss per RE over all frames), sum_sq over `units` units (drops of frames,
 * or the frames themselves), scaled from a unit's mean to a frame's. */
void gmi_loss_interval(double sum, double sum_sq, uint64_t frames, uint64_t units, double conf, double *lo,
                       double *hi);

typedef struct gmi_sup {
  double gmi;    /* the supremum, bits per RE (all streams) */
  double lo, hi; /* its interval (NAN with fewer than 2 units: frames or drops) */
  double s;      /* the optimal scaling s* (0: no scaling makes the LLRs useful) */
  int edge;      /* s* is the grid's largest: gmi is a lower bound */
} gmi_sup;

/* The supremum over s of the sums in `in` at confidence conf. NAN fields
 * (and edge 0) without frames. */
void gmi_sup_find(const gmi_sums *in, double conf, gmi_sup *out);

/* The same for the frames of t (NAN fields without soft outputs or frames,
 * or with receiver.gmi = none). With receiver.gmi = s1 the point has no
 * grid sums: gmi is then the GMI at s = 1 with its interval, and s NAN (no
 * supremum was taken). */
void tally_gmi_sup(const sim_point *pt, const tally *t, double conf, gmi_sup *out);

/* GMI(s) at grid point k from the sums, bits per RE: full - loss[k] / uses. */
double gmi_sums_at(const gmi_sums *in, int k);

#endif
