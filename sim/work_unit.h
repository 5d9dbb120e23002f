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

#include "sim/config.h"
#include "sim/point_fold.h"

typedef struct unit_spec {
  uint64_t point;         /* index into the config's points */
  uint64_t first_chunk, chunks;
  uint64_t offset, frames; /* the frames: point first_frame + offset, ... (chunk aligned, cut at the point's end) */
} unit_spec;

/* The unit of `chunks` chunks of point pt from chunk k: its frame range. */
void unit_spec_make(unit_spec *u, const sim_point *pt, uint64_t point, uint64_t k, uint64_t chunks);

typedef struct unit_exec unit_exec;

/* An executor on backend "cpu" or "cuda" for the points of c; threads for
 * the CPU backend (0: all). NULL when out of memory. */
unit_exec *unit_exec_create(const sim_config *c, const char *backend, int threads);
void unit_exec_destroy(unit_exec *x);

/* Begins unit u (the backend made or kept). 0, or -1 with the reason in err. */
int unit_exec_start(unit_exec *x, const unit_spec *u, char *err, size_t errlen);
/* Runs one batch of the unit begun: 1 while frames remain, 0 when the unit
 * is done, -1 with the reason in err on a backend failure. */
int unit_exec_step(unit_exec *x, char *err, size_t errlen);

/* The unit done (or under way): its spec, per-frame counts (errors[i*tx + s],
 * fallbacks[i] of frame offset + i), its cost so far and the backend's name. */
const unit_spec *unit_exec_spec(const unit_exec *x);
const uint32_t *unit_exec_errors(const unit_exec *x);
const uint32_t *unit_exec_fallbacks(const unit_exec *x);
work_cost unit_exec_cost(const unit_exec *x);
const char *unit_exec_backend(const unit_exec *x);

#endif
