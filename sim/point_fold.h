/* The fold of one point: per-frame counts, in frame order, into chunk
 * tallies, with the stopping rules checked on the ordered prefix after every
 * frame (chunks.h). Whoever computed the frames (this process in batches, a
 * rank of the MPI engine in work units), folding them here gives the same
 * chunks, the same stop and the same totals, bit for bit.
 *
 * A closed chunk goes to the caller's sink (the journal) and then into the
 * point's total; the cost of the frames (seconds, inversions, stage times)
 * is shared out by frames, and the cost of frames computed past the stop
 * goes to the chunk the stop fell in.
 *
 * The intervals' sums of squares are over the independent units: frames,
 * or with channel.drop_frames = N > 1 drops of N frames (their counts
 * summed before they are squared). Chunks start at drops' first frames, so
 * a drop's frames may come in several calls (batches) but never in two
 * chunks; a drop cut by the stop is a unit of its own. */
#ifndef OFDMSIM_POINT_FOLD_H
#define OFDMSIM_POINT_FOLD_H

#include <stdint.h>

#include "results/chunks.h"

/* What some frames cost to compute. */
typedef struct work_cost {
  double seconds;
  uint64_t inversions;
  stage_times t;
} work_cost;

typedef struct point_fold {
  const sim_point *pt;
  tally tot;           /* the closed chunks, summed in order */
  tally cur;           /* the chunk under way */
  uint64_t k;          /* its index */
  uint64_t chunk_off, chunk_len;
  uint64_t off;        /* frames folded: the next frame is first_frame + off */
  uint64_t end;        /* frames the point may have at most (point_max_frames) */
  const char *stop;    /* the rule that ended the point, NULL while it goes on */
  int decide;          /* 0: close chunks only when full, never stop (tallies of
                          work ahead of the prefix) */
  uint64_t drop;       /* frames per drop (link_drop_frames), 1 without drops */
  drop_sums pend;      /* the drop under way: its squares enter `cur` when it is
                          whole or its chunk closes (chunks start at drops) */
} point_fold;

/* Receives chunk k, closed; stop is NULL ("more") or the rule that ended the
 * point in it. Nonzero is an error the fold passes on (it folds on). */
typedef int (*chunk_sink)(void *ctx, uint64_t k, const tally *chunk, const char *stop);

/* A fold of point pt from the start of chunk k, after the closed chunks
 * 0 .. k-1 summed in `done` (NULL: none, k must be 0). */
void point_fold_init(point_fold *f, const sim_point *pt, uint64_t k, const tally *done, int decide);

/* Folds n frames from frame first_frame + f->off on: errors[i*tx + s] are the
 * bit errors of stream s in frame i, fallbacks[i] its fallback REs (NULL: 0),
 * gmi_loss[i*tx + s] its GMI loss in 2^-GMI_LOSS_SHIFT bits (NULL: none),
 * gmi_loss_s[i*GMI_GRID + k] its loss at the GMI grid's scaling k, same
 * units (NULL: none), coded[i] its decoded transport block (NULL: uncoded);
 * cost is what the n frames cost. Stops at the frame where a rule fires (the
 * frames after it are dropped); *used (may be NULL) gets the frames folded.
 * 0, or the first nonzero a sink returned. */
int point_fold_frames(point_fold *f, const uint32_t *errors, const uint32_t *fallbacks,
                      const uint64_t *gmi_loss, const uint64_t *gmi_loss_s, const frame_coded *coded, uint64_t n,
                      const work_cost *cost, chunk_sink sink, void *ctx, uint64_t *used);

/* Folds chunk f->k known only by its tally (a chunk saved ahead of its
 * prefix): 0 when its stop is decided without its frames and it was folded
 * (the sink called); 1 when a rule may fire inside it (target_errors reached
 * in it, or a precision rule), so its frames must be folded instead; -1 when
 * it is not the chunk's full length; or the sink's nonzero + 1. The chunk
 * under way must be empty. */
int point_fold_chunk(point_fold *f, const tally *chunk, chunk_sink sink, void *ctx);

/* The point so far: the closed chunks and the one under way. */
void point_fold_total(const point_fold *f, tally *out);

/* Frames in chunk k as the point computes them: the chunk's length, cut at
 * the point's last frame (0 past it). */
uint64_t point_chunk_frames(const sim_point *pt, uint64_t k);

#endif
