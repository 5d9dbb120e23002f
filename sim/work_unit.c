/* Computing a work unit in batches (work_unit.h). */
#include "sim/work_unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "sim/backends.h"

struct unit_exec {
  const sim_config *c;
  char backend_name[16];
  int threads;
  backend *b;             /* for point b_point, NULL before the first unit */
  uint64_t b_point;
  uint64_t b_cap;         /* its batch limit */
  unit_spec u;
  uint64_t done;          /* frames of u computed */
  uint32_t *errors, *fallbacks; /* u.frames * tx, u.frames */
  uint64_t *loss;         /* u.frames * tx: GMI losses (points with soft outputs) */
  uint64_t *loss_s;       /* u.frames * GMI_GRID: ... at the GMI grid's scalings */
  frame_coded *coded;     /* u.frames: decoded TBs (coded points alone: 20 bytes a frame) */
  uint64_t coded_held;    /* frames it holds room for */
  uint64_t held;          /* frames those hold room for */
  work_cost cost;
  double pace;            /* seconds a batch may take, 0: any */
  double frames_per_s;    /* measured on the last batches */
  point_fold f;           /* with a known prefix: where the stop falls */
  uint64_t next;          /* then: the next batch's size */
  uint64_t folded;        /* then: the frames of u folded into f (the rest wait, see fold_to) */
  uint64_t errors_done;   /* bit errors of the frames of u computed */
};

void unit_spec_make(unit_spec *u, const sim_point *pt, uint64_t point, uint64_t k, uint64_t chunks) {
  uint64_t off, len;
  chunk_range(pt, k, &off, &len);
  memset(u, 0, sizeof *u);
  u->point = point;
  u->first_chunk = k;
  u->chunks = chunks;
  u->offset = off;
  u->frames = 0;
  for (uint64_t j = 0; j < chunks; j++) u->frames += point_chunk_frames(pt, k + j);
}

void unit_spec_know(unit_spec *u, const tally *t) {
  u->known = 1;
  u->pre_frames = t->frames;
  u->pre_bits = t->bits;
  u->pre_errors = t->bit_errors;
  u->pre_sum_sq = t->sum_sq;
}

unit_exec *unit_exec_create(const sim_config *c, const char *backend, int threads) {
  unit_exec *x = calloc(1, sizeof *x);
  if (!x) return NULL;
  x->c = c;
  snprintf(x->backend_name, sizeof x->backend_name, "%s", backend);
  x->threads = threads;
  return x;
}

static void drop_backend(unit_exec *x) {
  backend_destroy(x->b);
  x->b = NULL;
}

void unit_exec_destroy(unit_exec *x) {
  if (!x) return;
  drop_backend(x);
  free(x->errors);
  free(x->fallbacks);
  free(x->loss);
  free(x->loss_s);
  free(x->coded);
  free(x);
}

/* The backend for point i, kept from the last unit when it was the same point. */
static int backend_for(unit_exec *x, uint64_t i, char *err, size_t errlen) {
  if (x->b && x->b_point == i) return 0;
  drop_backend(x);
  const sim_config *c = x->c;
  const sim_point *pt = &c->points[i];
  backend_options bo = {0};
  /* as the driver: no buffer bigger than the point can use */
  const uint64_t most = point_max_frames(pt);
  bo.max_batch_frames = c->batch_frames && c->batch_frames < most ? c->batch_frames : most;
  backend_options_set(&bo, "cpu", "threads", x->threads);
  backend_options_set(&bo, "cuda", "memory_mb", (int64_t)c->gpu_memory_mb);
  x->b = backends_create(x->backend_name, &pt->p, &bo, err, errlen);
  if (!x->b) return -1;
  x->b_point = i;
  x->b_cap = x->b->ops->max_frames(x->b);
  if (c->batch_frames && c->batch_frames < x->b_cap) x->b_cap = c->batch_frames;
  return 0;
}

/* Starts the fold of a unit whose prefix is known. */
static void fold_from_prefix(unit_exec *x) {
  const unit_spec *u = &x->u;
  const tally prefix = {.frames = u->pre_frames, .bits = u->pre_bits, .bit_errors = u->pre_errors,
                        .sum_sq = u->pre_sum_sq};
  point_fold_init(&x->f, &x->c->points[u->point], u->first_chunk, &prefix, 1);
}

void unit_exec_pace(unit_exec *x, double seconds) { x->pace = seconds; }

int unit_exec_start(unit_exec *x, const unit_spec *u, char *err, size_t errlen) {
  if (u->point >= x->c->n_points) return snprintf(err, errlen, "no point %llu", (unsigned long long)u->point), -1;
  if (backend_for(x, u->point, err, errlen)) return -1;
  if (u->frames > x->held || !x->errors) {
    free(x->errors);
    free(x->fallbacks);
    free(x->loss);
    free(x->loss_s);
    const size_t n = (size_t)(u->frames ? u->frames : 1);
    x->errors = malloc(sizeof(uint32_t) * n * (size_t)LINK_MAX_TX);
    x->fallbacks = malloc(sizeof(uint32_t) * n);
    x->loss = malloc(sizeof(uint64_t) * n * (size_t)LINK_MAX_TX);
    x->loss_s = malloc(sizeof(uint64_t) * n * GMI_GRID);
    x->held = x->errors && x->fallbacks && x->loss && x->loss_s ? u->frames : 0;
    if (!x->held && u->frames) return snprintf(err, errlen, "out of memory for a unit of %llu frames",
                                               (unsigned long long)u->frames), -1;
  }
  if (link_coded(&x->c->points[u->point].p) && (u->frames > x->coded_held || !x->coded)) {
    free(x->coded);
    x->coded = malloc(sizeof(frame_coded) * (size_t)(u->frames ? u->frames : 1));
    x->coded_held = x->coded ? u->frames : 0;
    if (!x->coded) return snprintf(err, errlen, "out of memory for the TBs of a unit of %llu frames",
                                   (unsigned long long)u->frames), -1;
  }
  x->u = *u;
  x->done = x->folded = x->errors_done = 0;
  memset(&x->cost, 0, sizeof x->cost);
  if (u->known) {
    fold_from_prefix(x);
    /* the driver's batch sizes: powers of two, from the one below the offset */
    x->next = 1;
    while (x->next * 2 <= u->offset + 1) x->next *= 2;
  }
  return 0;
}

/* Whether a stopping rule may fire within the unit's first frames with
 * `errors` bit errors among them: target_errors once the prefix and these
 * reach it, the precision rule anywhere. The third rule, max_bits, fires at
 * the point's last frame, where the unit ends anyway. */
static int may_stop(const unit_exec *x, uint64_t errors) {
  const sim_point *pt = &x->c->points[x->u.point];
  /* A coded point stops by its blocks, which the prefix (unit_spec: bits
   * and bit errors) does not carry: its units are computed whole and the
   * coordinator, which folds every frame's TB, finds the stop. */
  if (link_coded(&pt->p)) return 0;
  return x->u.pre_errors + errors >= pt->target_errors || pt->target_precision > 0.0;
}

/* Folds the unit's frames up to `upto` into x->f to find its stop (*used:
 * the frames up to it). Frames where no rule can fire are left unfolded
 * until one may (may_stop), and then folded without the rules: the fold
 * costs more per frame than the GPU takes to compute it, and this thread's
 * GPU waits for it. */
static void fold_to(unit_exec *x, uint64_t upto, uint64_t errors, uint64_t *used) {
  *used = upto - x->folded;
  if (!may_stop(x, errors)) return;
  const uint64_t tx = (uint64_t)x->c->points[x->u.point].p.tx;
  const uint64_t *loss = unit_exec_gmi_loss(x), *loss_s = unit_exec_gmi_loss_s(x);
  const work_cost none = {0};
  if (x->folded < x->done) { /* computed before one could fire */
    x->f.decide = 0;
    point_fold_frames(&x->f, x->errors + x->folded * tx, x->fallbacks + x->folded, loss ? loss + x->folded * tx : NULL,
                      loss_s ? loss_s + x->folded * GMI_GRID : NULL, NULL, x->done - x->folded, &none, NULL, NULL,
                      NULL);
    x->f.decide = 1;
    x->folded = x->done;
  }
  point_fold_frames(&x->f, x->errors + x->folded * tx, x->fallbacks + x->folded, loss ? loss + x->folded * tx : NULL,
                    loss_s ? loss_s + x->folded * GMI_GRID : NULL, NULL, upto - x->folded, &none, NULL, NULL, used);
  x->folded += *used;
}

void unit_exec_know(unit_exec *x, const unit_spec *known) {
  if (x->u.known || !known->known) return;
  x->u.known = 1;
  x->u.pre_frames = known->pre_frames;
  x->u.pre_bits = known->pre_bits;
  x->u.pre_errors = known->pre_errors;
  x->u.pre_sum_sq = known->pre_sum_sq;
  fold_from_prefix(x);
  x->next = x->b_cap;
  x->folded = 0;
  const uint64_t done = x->done;
  x->done = 0; /* nothing folded yet: fold_to takes [0, done) as this batch */
  uint64_t used;
  fold_to(x, done, x->errors_done, &used);
  x->done = done;
  if (x->f.stop) x->u.frames = x->done = used; /* the stop lies behind: done */
}

int unit_exec_step(unit_exec *x, char *err, size_t errlen) {
  if (x->done == x->u.frames) return 0;
  const sim_point *pt = &x->c->points[x->u.point];
  const uint64_t tx = (uint64_t)pt->p.tx;
  uint64_t n = x->u.frames - x->done;
  if (n > x->b_cap) n = x->b_cap;
  if (x->u.known && n > x->next) n = x->next;
  if (x->pace > 0 && x->frames_per_s > 0) {
    const double most = x->frames_per_s * x->pace;
    if ((double)n > most) n = most < 1 ? 1 : (uint64_t)most;
  }
  /* the backend writes straight into the unit's per-frame counts */
  batch_result br = {.errors = x->errors + x->done * tx, .fallbacks = x->fallbacks + x->done,
                     .gmi_loss = link_gmi_loss(&pt->p) ? x->loss + x->done * tx : NULL,
                     .gmi_loss_s = link_gmi_grid(&pt->p) ? x->loss_s + x->done * GMI_GRID : NULL,
                     .coded = link_coded(&pt->p) ? x->coded + x->done : NULL};
  const double t0 = clock_seconds();
  if (backend_run(x->b, pt->first_frame + x->u.offset + x->done, n, &br)) {
    snprintf(err, errlen, "the %s backend failed: %s", backend_name(x->b), backend_error(x->b));
    return -1;
  }
  const double dt = clock_seconds() - t0;
  x->cost.seconds += dt;
  if (dt > 0) x->frames_per_s = (double)n / dt;
  x->cost.inversions += br.inversions;
  stage_times_add(&x->cost.t, &br.t, 1.0);
  for (uint64_t i = 0; i < n * tx; i++) x->errors_done += br.errors[i];
  if (x->u.known) {
    uint64_t used;
    fold_to(x, x->done + n, x->errors_done, &used);
    if (x->f.stop) n = x->folded - x->done; /* the unit ends at the stop */
    if (x->next < x->b_cap) x->next *= 2;
  }
  x->done += n;
  if (x->u.known && x->f.stop) x->u.frames = x->done;
  return x->done < x->u.frames;
}

const unit_spec *unit_exec_spec(const unit_exec *x) { return &x->u; }
const uint32_t *unit_exec_errors(const unit_exec *x) { return x->errors; }
const uint32_t *unit_exec_fallbacks(const unit_exec *x) { return x->fallbacks; }
const uint64_t *unit_exec_gmi_loss(const unit_exec *x) {
  return link_gmi_loss(&x->c->points[x->u.point].p) ? x->loss : NULL;
}
const uint64_t *unit_exec_gmi_loss_s(const unit_exec *x) {
  return link_gmi_grid(&x->c->points[x->u.point].p) ? x->loss_s : NULL;
}
const frame_coded *unit_exec_coded(const unit_exec *x) {
  return link_coded(&x->c->points[x->u.point].p) ? x->coded : NULL;
}
work_cost unit_exec_cost(const unit_exec *x) { return x->cost; }

void unit_exec_take_counts(unit_exec *x, uint32_t **errors, uint32_t **fallbacks, uint64_t **gmi_loss,
                           uint64_t **gmi_loss_s, frame_coded **coded) {
  *errors = x->errors;
  *fallbacks = x->fallbacks;
  /* the sums the point has (receiver.gmi) pass on, the others are freed */
  const link_params *lp = &x->c->points[x->u.point].p;
  *gmi_loss = link_gmi_loss(lp) ? x->loss : NULL;
  *gmi_loss_s = link_gmi_grid(lp) ? x->loss_s : NULL;
  if (!*gmi_loss) free(x->loss);
  if (!*gmi_loss_s) free(x->loss_s);
  /* an uncoded point's unit keeps the TB array for the next coded one */
  *coded = NULL;
  if (link_coded(&x->c->points[x->u.point].p)) {
    *coded = x->coded;
    x->coded = NULL;
    x->coded_held = 0;
  }
  x->errors = x->fallbacks = NULL;
  x->loss = x->loss_s = NULL;
  x->held = 0;
}
const char *unit_exec_backend(const unit_exec *x) { return x->b ? backend_name(x->b) : x->backend_name; }
