/* A work unit: consecutive whole chunks of one point (chunks.h), computed by
 * one process of the MPI engine and sent, frame by frame, to the process
 * that folds the point (point_fold.h). The unit's frames are fixed by the
 * point and its chunks alone, never by who computes them, so any process
 * may compute any unit.
 *
 * The executor keeps the backend of its last point (a GPU backend is costly
 * to set up) and runs a unit a batch at a time, so that its caller can
 * attend to messages between batches. */
#ifndef OFDMSIM_WORK_UNIT_H
#define OFDMSIM_WORK_UNIT_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "sim/point_fold.h"

typedef struct unit_spec {
  uint64_t point;         /* index into the config's points */
  uint64_t first_chunk, chunks;
  uint64_t offset, frames; /* the frames: point first_frame + offset, ... (chunk aligned, cut at the point's end) */
  /* When the unit starts where the point's fold stands, its prefix (the
   * counts the stopping rules see): the unit then stops at the frame where a
   * rule fires, as the driver does, and comes back with fewer frames. */
  uint64_t known, pre_frames, pre_bits, pre_errors;
  double pre_sum_sq;
} unit_spec;

/* The unit of `chunks` chunks of point pt from chunk k: its frame range
 * (prefix unknown). */
void unit_spec_make(unit_spec *u, const sim_point *pt, uint64_t point, uint64_t k, uint64_t chunks);
/* Gives u the prefix t (the point's closed chunks before it). */
void unit_spec_know(unit_spec *u, const tally *t);

typedef struct unit_exec unit_exec;

/* An executor on backend "cpu" or "cuda" for the points of c; threads for
 * the CPU backend (0: all). NULL when out of memory. */
unit_exec *unit_exec_create(const sim_config *c, const char *backend, int threads);
void unit_exec_destroy(unit_exec *x);

/* Batches of at most about `seconds` each (0: no limit), so that the caller
 * (the MPI coordinator, which computes too) gets back to its messages often. */
void unit_exec_pace(unit_exec *x, double seconds);

/* Begins unit u (the backend made or kept). 0, or -1 with the reason in err. */
int unit_exec_start(unit_exec *x, const unit_spec *u, char *err, size_t errlen);
/* Runs one batch of the unit begun: 1 while frames remain, 0 when the unit
 * is done (with a known prefix, maybe early: its spec's frames cut at the
 * stop), -1 with the reason in err on a backend failure. Batches of a unit
 * with a known prefix grow from one frame as the driver's do, so an easy
 * point stops early; the others take the backend's largest. */
int unit_exec_step(unit_exec *x, char *err, size_t errlen);

/* The prefix of the unit under way came (unit_spec_know'n in `known`):
 * from here on it stops at its stop, which may lie in the frames already
 * computed (the unit is then done). */
void unit_exec_know(unit_exec *x, const unit_spec *known);

/* The unit done (or under way): its spec, per-frame counts (errors[i*tx + s],
 * fallbacks[i], gmi_loss[i*tx + s], gmi_loss_s[i*GMI_GRID + k] of frame
 * offset + i; the GMI's are NULL for a point without soft outputs), its cost
 * so far and the backend's name. */
const unit_spec *unit_exec_spec(const unit_exec *x);
const uint32_t *unit_exec_errors(const unit_exec *x);
const uint32_t *unit_exec_fallbacks(const unit_exec *x);
const uint64_t *unit_exec_gmi_loss(const unit_exec *x);
const uint64_t *unit_exec_gmi_loss_s(const unit_exec *x);
work_cost unit_exec_cost(const unit_exec *x);
/* Its decoded transport blocks, one a frame (NULL for an uncoded point). */
const frame_coded *unit_exec_coded(const unit_exec *x);
/* Hands the done unit's per-frame arrays over to the caller (who frees
 * them; gmi_loss and gmi_loss_s NULL without soft outputs, coded NULL when
 * uncoded); the next unit gets new ones.
 * So the MPI engine's compute thread starts its next unit at once while
 * another thread ships these. */
void unit_exec_take_counts(unit_exec *x, uint32_t **errors, uint32_t **fallbacks, uint64_t **gmi_loss,
                           uint64_t **gmi_loss_s, frame_coded **coded);
const char *unit_exec_backend(const unit_exec *x);

#endif
