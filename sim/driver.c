/* The driver: every point in this process through a backend in batches,
 * folded frame by frame (point_fold.h), saved chunk by chunk in the journal
 * (driver.h; the bookkeeping is sweep_run.h's). */
#include "sim/driver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "sim/backends.h"
#include "sim/messages.h"
#include "sim/point_fold.h"
#include "sim/sweep_run.h"

/* Whether to submit a batch from offset `ahead` before the frames up to it
 * are folded: not when a stop likely falls in those (the errors so far,
 * extrapolated to `ahead`, reach half the point's target), since the batch
 * would then be computed for nothing. Only the work wasted depends on this,
 * never the counts. */
static int worth_ahead(const point_fold *f, uint64_t ahead) {
  tally t;
  point_fold_total(f, &t);
  if (t.frames == 0) return 1;
  const sim_point *pt = f->pt;
  const int coded = link_coded(&pt->p);
  const double seen = coded ? (double)t.coded.block_errors : (double)t.bit_errors;
  double target = coded ? (double)pt->target_block_errors : (double)pt->target_errors;
  /* the precision rule: a relative half-width p needs some (1.96 / p)^2 errors */
  if (pt->target_precision > 0.0) target = fmin(target, pow(1.96 / pt->target_precision, 2.0));
  return seen * ((double)ahead / (double)t.frames) < 0.5 * target;
}

/* Simulates point i from where the journal left it; 0, or 1 on a failure
 * (message printed). */
static int run_point(run_state *s, size_t i) {
  const sim_config *c = s->c;
  const sim_point *pt = &c->points[i];
  point_result *r = &s->results[i];
  if (sweep_point_begin(s, i)) return 0; /* finished in an earlier run */
  const replay *rp = s->replays ? &s->replays[i] : NULL;
  point_fold f;
  point_fold_init(&f, pt, rp ? rp->chunks : 0, rp ? &rp->n : NULL, 1);
  if (sweep_fold_ahead(s, i, &f)) snprintf(r->backend, sizeof r->backend, "%s", rp->ahead[0].backend);
  point_fold_total(&f, &r->n);
  if (f.stop) {
    r->stop = f.stop;
    return 0;
  }

  char err[512] = "";
  backend_options bo = {0};
  /* no buffer bigger than the point can use: a one-frame point allocates one frame */
  const uint64_t most = f.end - f.off;
  bo.max_batch_frames = c->batch_frames && c->batch_frames < most ? c->batch_frames : most;
  backend_options_set(&bo, "cpu", "threads", c->threads);
  backend_options_set(&bo, "cuda", "memory_mb", (int64_t)c->gpu_memory_mb);
  backend *b = backends_create(s->o->backend, &pt->p, &bo, err, sizeof err);
  if (!b) {
    sim_error(0, "point %zu: %s", i, err);
    return 1;
  }
  snprintf(r->backend, sizeof r->backend, "%s", backend_name(b));

  const int tx = pt->p.tx;
  uint64_t cap = b->ops->max_frames(b);
  if (c->batch_frames && c->batch_frames < cap) cap = c->batch_frames;
  uint32_t *errors = malloc(sizeof(uint32_t) * (size_t)cap * ((size_t)tx + 1));
  /* with soft outputs: the per-stream losses, then the GMI grid's */
  /* (as receiver.gmi asks: the grid's with sup, none with none) */
  const int grid = link_gmi_grid(&pt->p);
  uint64_t *loss = link_gmi_loss(&pt->p) ? malloc(sizeof(uint64_t) * (size_t)cap * ((size_t)tx + (grid ? GMI_GRID : 0)))
                                         : NULL;
  uint64_t *loss_s = loss && grid ? loss + (size_t)cap * (size_t)tx : NULL;
  frame_coded *coded = link_coded(&pt->p) ? malloc(sizeof(frame_coded) * (size_t)cap) : NULL;
  if (!errors || (link_gmi_loss(&pt->p) && !loss) || (link_coded(&pt->p) && !coded)) {
    free(errors);
    free(loss);
    free(coded);
    sim_error(0, "point %zu: out of memory", i);
    backend_destroy(b);
    return 1;
  }
  batch_result br = {.errors = errors, .fallbacks = errors + (size_t)cap * (size_t)tx, .gmi_loss = loss,
                     .gmi_loss_s = loss_s, .coded = coded};

  chunk_out out = {s, i, r->backend, NULL};
  const double t_point = clock_seconds();
  const double replayed_seconds = r->n.seconds;
  double last_shown = 0;
  /* batches grow from one frame, so easy points stop early */
  uint64_t next = 1;
  while (next * 2 <= f.off + 1) next *= 2;
  /* The batch after the one being folded is submitted before the fold
   * (backend_submit), so that a GPU computes it while this thread folds;
   * the fold takes the batches in frame order, and one submitted past the
   * stop is discarded, never folded: the counts are those of one batch at a
   * time. `ahead` is the offset of the next batch to submit. */
  uint64_t ahead = f.off;
  int in_flight = 0;
  double t_last = clock_seconds();
  int rc = 0;
  while (!rc && !f.stop) {
    while (in_flight < BACKEND_IN_FLIGHT && ahead < f.end && (in_flight == 0 || worth_ahead(&f, ahead))) {
      uint64_t n = next < cap ? next : cap;
      if (n > f.end - ahead) n = f.end - ahead;
      if (backend_submit(b, pt->first_frame + ahead, n, &br)) {
        rc = 1;
        break;
      }
      ahead += n;
      in_flight++;
      if (next < cap) next *= 2;
    }
    if (!rc && backend_collect(b, &br)) rc = 1;
    if (rc) {
      sim_error(1, "point %zu: the %s backend failed: %s", i, r->backend, backend_error(b));
      break;
    }
    in_flight--;
    const uint64_t n = b->last_frames;
    const double now0 = clock_seconds();
    /* the wall time since the last batch came back: this batch's share of
     * the backend's time, whatever overlapped it */
    const work_cost cost = {now0 - t_last, br.inversions, br.t};
    /* Count frame by frame and stop at the exact frame where a rule fires, so
     * the result depends neither on the batch size nor on where a run was
     * interrupted and resumed. */
    if (point_fold_frames(&f, errors, br.fallbacks, loss, loss_s, br.coded, n, &cost, sweep_chunk_sink, &out, NULL))
      rc = 1;
    point_fold_total(&f, &r->n);
    if (f.stop) r->stop = f.stop;
    if (rc || f.stop) break;
    sweep_tell_progress(s, i, i, &r->n);
    if (sweep_interrupted()) {
      r->stop = "interrupted";
      break;
    }
    const double now = clock_seconds();
    if (s->show_progress && now - last_shown > 0.2) {
      sweep_progress(s, i, &r->n, now - t_point + replayed_seconds, 1);
      last_shown = now;
    }
    /* A long point shows in the CSV as it goes. */
    if (sweep_save(s, i + 1, 0)) rc = 1;
    t_last = now0;
  }
  backend_discard(b); /* a batch submitted past the stop: never folded */
  sweep_progress_clear(s);
  free(errors);
  free(loss);
  free(coded);
  backend_destroy(b);
  return rc;
}

static int run_points(run_state *s) {
  const sim_config *c = s->c;
  int rc = 0;
  size_t done = 0;
  for (size_t i = 0; i < c->n_points && !rc; i++) {
    if (sweep_interrupted()) break;
    if (sweep_skips(s, i)) {
      sweep_skip_point(s, i, s->o->backend);
    } else {
      rc = run_point(s, i);
      if (rc) break;
    }
    done = i + 1;
    if (sweep_point_done(s, i)) rc = 1;
    sweep_tell_progress(s, i, done, &s->results[i].n);
  }
  return sweep_finish(s, done, rc);
}

int sim_run(const sim_config *c, const run_options *o) {
  if (o->library) sweep_clear_stop();
  run_state s;
  int rc = sweep_open(&s, c, o);
  if (!rc) rc = run_points(&s);
  sweep_close(&s);
  return rc;
}
