/* The driver: every point through a backend in batches, stopped at the exact frame where a rule fires (driver.h). */
#include "sim/driver.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "sim/backends.h"
#include "sim/report.h"
#include "sim/stats.h"
#include "sim/theory.h"

/* The signal that asked the run to stop (SIGINT or SIGTERM), 0 while none. */
static volatile sig_atomic_t interrupted = 0;

static void on_stop_signal(int sig) {
  interrupted = sig;
  /* A second one stops at once. */
  signal(sig, SIG_DFL);
}

void sim_point_interval(const sim_point *pt, const point_result *r, double conf, double *lo,
                        double *hi) {
  const int block_fading = pt->p.model == CH_TDL;
  const ber_sample s = {r->bits, r->bit_errors, r->frames, r->sum_sq,
                        block_fading ? r->frames : r->frames * link_res_per_frame(&pt->p)};
  ber_interval(&s, conf, lo, hi);
}

/* The precision rule: the interval the report will print is narrow enough. */
static int precise_enough(const sim_point *pt, const point_result *r) {
  if (!(pt->target_precision > 0.0) || r->frames < pt->min_frames || r->bit_errors == 0) return 0;
  double lo, hi;
  sim_point_interval(pt, r, 0.95, &lo, &hi);
  const double ber = (double)r->bit_errors / (double)r->bits;
  return 0.5 * (hi - lo) <= pt->target_precision * ber;
}

uint64_t sim_point_max_frames(const sim_point *pt) {
  const double bpf = (double)link_bits_per_frame(&pt->p);
  const double f = ceil(pt->max_bits / bpf);
  return f < 1 ? 1 : (uint64_t)f;
}

static void add_times(stage_times *a, const stage_times *b) {
  a->draw += b->draw;
  a->channel += b->channel;
  a->gram += b->gram;
  a->invert += b->invert;
  a->equalize += b->equalize;
  a->demap += b->demap;
}

/* When the whole sweep started: the sweep-wide ETA of the progress line. */
static double sweep_started;

/* The live line: this point's counts, rate and ETA, and the sweep's. The
 * sweep's ETA assumes the points still to come cost what the finished ones
 * (and the finished share of this one) did on average. */
static void progress(const sim_config *c, size_t i, const point_result *r, const sim_point *pt,
                     double elapsed) {
  const double ber = r->bits ? (double)r->bit_errors / (double)r->bits : 0.0;
  const double mbps = elapsed > 0 ? (double)r->bits / elapsed / 1e6 : 0.0;
  /* Whichever stopping rule is nearer decides the remaining time. */
  double done = (double)r->bits / pt->max_bits;
  double by_errors = (double)r->bit_errors / (double)pt->target_errors;
  const double by_frames = (double)r->frames / (double)pt->min_frames;
  if (by_frames < by_errors) by_errors = by_frames;
  if (by_errors > done) done = by_errors;
  if (done > 1.0) done = 1.0;
  const double eta = done > 0 ? elapsed * (1.0 - done) / done : 0.0;
  const double swept = ((double)i + done) / (double)c->n_points;
  const double total = clock_seconds() - sweep_started;
  const double sweep_eta = swept > 0 ? total * (1.0 - swept) / swept : 0.0;
  fprintf(stderr,
          "\r[%zu/%zu] snr %6.2f dB  bits %10.3e  errors %8llu  ber %9.3e  %9.2f Mbit/s  ETA %6.1f s  "
          "sweep %5.1f%% ETA %7.1f s ",
          i + 1, c->n_points, pt->p.snr_db, (double)r->bits, (unsigned long long)r->bit_errors, ber,
          mbps, eta, 100.0 * swept, sweep_eta);
  fflush(stderr);
}

/* Simulates one point; 0, or 1 on a backend failure (message printed). */
static int run_point(const sim_config *c, size_t i, const run_options *o, point_result *results,
                     int show_progress) {
  const sim_point *pt = &c->points[i];
  point_result *r = &results[i];
  memset(r, 0, sizeof *r);
  r->stop = "running";
  r->theory = theory_ber(&pt->p, &r->theory_kind);

  char err[512] = "";
  backend_options bo = {0};
  bo.max_batch_frames = c->batch_frames;
  bo.cpu.threads = c->threads;
  bo.cuda.memory_mb = c->gpu_memory_mb;
  backend *b = backends_create(o->backend, &pt->p, &bo, err, sizeof err);
  if (!b) {
    fprintf(stderr, "ofdmsim: error: point %zu: %s\n", i, err);
    return 1;
  }
  r->backend = backend_name(b);

  const int tx = pt->p.tx;
  const uint64_t bpf = link_bits_per_frame(&pt->p), frames_max = sim_point_max_frames(pt);
  uint64_t cap = b->ops->max_frames(b);
  if (c->batch_frames && c->batch_frames < cap) cap = c->batch_frames;
  uint32_t *errors = malloc(sizeof(uint32_t) * (size_t)cap * ((size_t)tx + 1));
  if (!errors) {
    fprintf(stderr, "ofdmsim: error: point %zu: out of memory\n", i);
    backend_destroy(b);
    return 1;
  }
  batch_result br = {.errors = errors, .fallbacks = errors + (size_t)cap * (size_t)tx};
  const double t0 = clock_seconds();
  double last_shown = 0, last_saved = t0;
  uint64_t next = 1; /* batches grow from one frame, so easy points stop early */
  int rc = 0;
  while (!rc) {
    uint64_t n = next < cap ? next : cap;
    if (n > frames_max - r->frames) n = frames_max - r->frames;
    if (backend_run(b, r->frames, n, &br)) {
      fprintf(stderr, "\nofdmsim: error: point %zu: the %s backend failed: %s\n", i, r->backend,
              backend_error(b));
      rc = 1;
      break;
    }
    r->inversions += br.inversions;
    add_times(&r->t, &br.t);
    /* Count frame by frame and stop at the exact frame where a rule fires, so
     * the result does not depend on the batch size. */
    for (uint64_t f = 0; f < n && !strcmp(r->stop, "running"); f++) {
      uint64_t frame_errors = 0;
      for (int t = 0; t < tx; t++) {
        r->stream_errors[t] += errors[f * (uint64_t)tx + (uint64_t)t];
        frame_errors += errors[f * (uint64_t)tx + (uint64_t)t];
      }
      r->bit_errors += frame_errors;
      r->sum_sq += (double)frame_errors * (double)frame_errors;
      r->fallbacks += br.fallbacks[f];
      r->bits += bpf;
      r->frames++;
      if (r->bit_errors >= pt->target_errors && r->frames >= pt->min_frames) r->stop = "target_errors";
      else if (precise_enough(pt, r)) r->stop = "target_precision";
      else if (r->frames >= frames_max) r->stop = "max_bits";
    }
    const double now = clock_seconds();
    r->seconds = now - t0;
    if (strcmp(r->stop, "running")) break;
    if (interrupted) {
      r->stop = "interrupted";
      break;
    }
    if (show_progress && now - last_shown > 0.2) {
      progress(c, i, r, pt, r->seconds);
      last_shown = now;
    }
    /* A long point is saved as it goes, so a crash keeps what was computed. */
    if (o->csv_path && now - last_saved > 5.0) {
      report_write_csv(o->csv_path, c, results, i + 1);
      last_saved = now;
    }
    if (next < cap) next *= 2;
  }
  if (show_progress) fprintf(stderr, "\r%*s\r", 120, "");
  free(errors);
  backend_destroy(b);
  return rc;
}

int sim_run(const sim_config *c, const run_options *o) {
  sweep_started = clock_seconds();
  point_result *results = calloc(c->n_points, sizeof *results);
  if (!results) {
    fprintf(stderr, "ofdmsim: error: out of memory\n");
    return 1;
  }
  char json_path[2048] = "";
  if (o->csv_path) report_sidecar_path(o->csv_path, json_path, sizeof json_path);
  const int show_progress = !o->quiet && (isatty(STDERR_FILENO) || getenv("OFDMSIM_PROGRESS"));
  interrupted = 0;
  void (*old_int)(int) = signal(SIGINT, on_stop_signal);
  void (*old_term)(int) = signal(SIGTERM, on_stop_signal);

  int rc = 0;
  size_t done = 0;
  char started[32];
  report_iso_now(started, sizeof started);
  double floor_snr = INFINITY; /* stop_below_ber: the curve ends from this SNR on */
  for (size_t i = 0; i < c->n_points && !rc; i++) {
    const sim_point *pt = &c->points[i];
    /* A sweep combination's points are consecutive and share their label. */
    if (i == 0 || strcmp(pt->label, c->points[i - 1].label)) floor_snr = INFINITY;
    if (pt->stop_below_ber > 0.0 && pt->p.snr_db >= floor_snr) {
      memset(&results[i], 0, sizeof results[i]);
      results[i].stop = "skipped";
      results[i].theory = theory_ber(&pt->p, &results[i].theory_kind);
      results[i].backend = o->backend;
    } else {
      rc = run_point(c, i, o, results, show_progress);
      if (rc) break;
      const point_result *r = &results[i];
      const int below = r->bits && (double)r->bit_errors < pt->stop_below_ber * (double)r->bits;
      const int clean = r->bit_errors == 0 && !strcmp(r->stop, "max_bits");
      if (pt->stop_below_ber > 0.0 && (below || clean) && pt->p.snr_db < floor_snr) floor_snr = pt->p.snr_db;
    }
    if (i == 0) report_table_head(stdout);
    report_table_row(stdout, &c->points[i], &results[i]);
    fflush(stdout);
    done = i + 1;
    if (o->csv_path) {
      if (report_write_csv(o->csv_path, c, results, done) ||
          report_write_json(json_path, c, results, done, o, started)) {
        fprintf(stderr, "ofdmsim: error: cannot write %s: %s\n", o->csv_path, strerror(errno));
        rc = 1;
      }
    }
    if (!strcmp(results[i].stop, "interrupted")) {
      fprintf(stderr, "ofdmsim: interrupted (%s): %zu of %zu points saved (the last one partial)\n",
              interrupted == SIGTERM ? "SIGTERM" : "SIGINT", done, c->n_points);
      rc = 128 + (int)interrupted;
    }
  }
  signal(SIGINT, old_int);
  signal(SIGTERM, old_term);
  free(results);
  return rc;
}
