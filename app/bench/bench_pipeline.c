/* Pipeline: whole batches of the link through the backends (backends_create),
 * per stage and in total, after one warm-up batch. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench/bench_internal.h"
#include "channel/tdl.h"
#include "core/clock.h"
#include "sim/backends.h"

const char *const pipeline_columns[PIPELINE_COLUMNS] = {
    "draw", "channel", "gram", "invert", "equalize", "demap", "stages", "wall"};

const char *pipeline_mode(const pipeline_fig *p) {
  return strcmp(p->backend, "cpu") ? (p->staged ? "staged" : "fused") : "-";
}

void pipeline_seconds(const pipeline_fig *p, double out[PIPELINE_COLUMNS]) {
  const stage_times *t = &p->t;
  out[0] = t->draw, out[1] = t->channel, out[2] = t->gram;
  out[3] = t->invert, out[4] = t->equalize, out[5] = t->demap;
  out[6] = t->draw + t->channel + t->gram + t->invert + t->equalize + t->demap;
  out[7] = p->wall_s;
}

double pipeline_gbits(const pipeline_fig *p, double seconds) {
  return seconds > 0 ? (double)p->bits / seconds / 1e9 : NAN;
}

static int pipeline_params(const pipeline_fig *f, int small, link_params *p, char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  p->tx = f->tx;
  p->rx = f->rx;
  p->bps = f->bps;
  p->equalizer = EQ_MMSE;
  p->model = f->tdl ? CH_TDL : CH_RAYLEIGH;
  p->domain = f->time ? DOMAIN_TIME : DOMAIN_FREQUENCY;
  p->subcarriers = small ? 64 : 1024;
  p->symbols = small ? 2 : 14;
  p->cp_length = p->subcarriers / 14;
  p->subcarrier_spacing = 30e3;
  p->snr_kind = SNR_EBNO;
  p->snr_db = 10.0;
  p->n0 = link_noise_variance(p->snr_kind, p->snr_db, p->tx, p->bps);
  p->seed = 1;
  if (f->tdl) {
    /* TDL-A, 100 ns RMS delay spread at fs = K x 30 kHz, continuous delays */
    p->profile = PDP_TDL_A;
    p->delays = f->tdl == 2 ? DELAYS_SAMPLE : DELAYS_CONTINUOUS;
    p->delay_spread = 100e-9 * p->subcarriers * p->subcarrier_spacing;
    if (tdl_pdp_make(p->profile, p->delay_spread, p->k_factor, p->delays, p->subcarriers - 1, &p->pdp, err,
                     errlen))
      return -1;
  }
  p->stream_key = link_stream_key(p);
  return 0;
}

static void add_batch(pipeline_fig *f, const link_params *p, uint64_t frames, const batch_result *r) {
  f->batches++;
  f->bits += frames * link_bits_per_frame(p);
  f->inversions += r->inversions;
  for (size_t i = 0; i < frames * (size_t)p->tx; i++) f->bit_errors += r->errors[i];
  stage_times_add(&f->t, &r->t, 1.0);
}

/* Batches on b until `seconds` have passed (one timed batch at least), after
 * one warm-up batch; a failed batch ends the run with the backend's reason. */
static void time_batches(pipeline_fig *f, backend *b, const link_params *p, uint64_t frames,
                         double seconds) {
  uint32_t *errors = malloc(sizeof(uint32_t) * frames * (size_t)p->tx);
  if (!errors) {
    snprintf(f->why, sizeof f->why, "out of host memory for the error counts");
    return;
  }
  batch_result r;
  memset(&r, 0, sizeof r);
  r.errors = errors;
  uint64_t first = 0;
  f->ok = 1;
  if (backend_run(b, first, frames, &r)) {
    snprintf(f->why, sizeof f->why, "warm-up batch failed: %s", backend_error(b));
    f->ok = 0;
  }
  first += frames;
  const double t0 = clock_seconds();
  while (f->ok) {
    if (backend_run(b, first, frames, &r)) {
      snprintf(f->why, sizeof f->why, "batch %llu failed: %s", (unsigned long long)f->batches,
               backend_error(b));
      f->ok = 0;
      break;
    }
    first += frames;
    add_batch(f, p, frames, &r);
    if (clock_seconds() - t0 >= seconds) break;
  }
  f->wall_s = clock_seconds() - t0;
  free(errors);
}

static void bench_pipeline(pipeline_fig *f, int small, double seconds) {
  bench_progress("pipeline %s on %s%s", f->label, f->backend,
                 strcmp(f->backend, "cpu") ? (f->staged ? " (staged)" : " (fused)") : "");
  link_params p;
  if (pipeline_params(f, small, &p, f->why, sizeof f->why)) {
    f->available = 0;
    return;
  }
  backend_options o;
  memset(&o, 0, sizeof o);
  backend_options_set(&o, "cuda", "staged", f->staged);
  backend_options_set(&o, "cuda", "td_direct", f->direct);
  backend_options_set(&o, "cpu", "td_direct", f->direct);
  /* Batches of ~2^26 REs on a GPU (the backend may choose fewer); ~2^20 on a
   * CPU, so one batch stays well under a second. */
  const uint64_t res_per_frame = link_res_per_frame(&p);
  const uint64_t target_res = small ? 4 * res_per_frame
                                    : (strcmp(f->backend, "cpu") ? (1u << 26) : (1u << 20));
  o.max_batch_frames = target_res / res_per_frame ? target_res / res_per_frame : 1;
  char err[512] = "";
  backend *b = backends_create(f->backend, &p, &o, err, sizeof err);
  if (!b) {
    snprintf(f->why, sizeof f->why, "%s", err[0] ? err : "backend_create returned NULL");
    f->available = 0;
    return;
  }
  f->available = 1;
  f->td_path = b->td_path;
  uint64_t frames = b->ops->max_frames(b);
  if (frames > o.max_batch_frames) frames = o.max_batch_frames;
  if (frames == 0) frames = 1;
  f->frames_per_batch = frames;
  time_batches(f, b, &p, frames, seconds);
  backend_destroy(b);
}

/* One configuration into the next slot of R; 1 when it ran and failed. */
static int run_one(bench_results *R, const pipeline_fig *link, const char *backend, int staged,
                   const bench_opts *o) {
  if (R->n_pipe == BENCH_MAX_PIPELINES) return 0;
  pipeline_fig *p = &R->pipe[R->n_pipe++];
  *p = *link;
  p->backend = backend;
  p->staged = staged;
  bench_pipeline(p, o->small, o->pipeline_seconds);
  if (p->available && !p->ok) {
    fprintf(stderr, "ofdmsim bench: pipeline %s on %s (%s) failed: %s\n", p->label, p->backend,
            pipeline_mode(p), p->why);
    return 1;
  }
  return 0;
}

int bench_pipelines(const bench_opts *o, int gpu_present, bench_results *R) {
  static const pipeline_fig links[2] = {{.label = "2x2 QPSK", .tx = 2, .rx = 2, .bps = 2},
                                        {.label = "4x4 16QAM", .tx = 4, .rx = 4, .bps = 4}};
  /* The time-domain ratio: the same TDL-A link in both domains, with
   * continuous delays (each path a 32-tap interpolator in the time domain)
   * and on the sample grid (the discrete channel the path delays round to) */
  static const pipeline_fig tdl[6] = {
      {.label = "4x4 16QAM TDL-A freq", .tx = 4, .rx = 4, .bps = 4, .tdl = 1},
      {.label = "4x4 16QAM TDL-A time", .tx = 4, .rx = 4, .bps = 4, .tdl = 1, .time = 1},
      {.label = "4x4 16QAM TDL-A time direct", .tx = 4, .rx = 4, .bps = 4, .tdl = 1, .time = 1, .direct = 1},
      {.label = "4x4 16QAM TDL-A smp freq", .tx = 4, .rx = 4, .bps = 4, .tdl = 2},
      {.label = "4x4 16QAM TDL-A smp time", .tx = 4, .rx = 4, .bps = 4, .tdl = 2, .time = 1},
      {.label = "4x4 16QAM TDL-A smp time direct", .tx = 4, .rx = 4, .bps = 4, .tdl = 2, .time = 1,
       .direct = 1}};
  int failures = 0;
  for (int k = 0; k < 2; k++) {
    if (gpu_present)
      for (int staged = 1; staged >= 0; staged--) failures += run_one(R, &links[k], "cuda", staged, o);
    failures += run_one(R, &links[k], "cpu", 0, o);
  }
  for (int k = 0; k < 6; k++) {
    if (gpu_present) failures += run_one(R, &tdl[k], "cuda", 0, o);
    /* the CPU's continuous-delay rows: the transform's and the convolution's */
    if (tdl[k].tdl == 1) failures += run_one(R, &tdl[k], "cpu", 0, o);
  }
  return failures;
}
