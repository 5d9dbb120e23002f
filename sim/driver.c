/* The driver: every point through a backend in batches, stopped at the exact
 * frame where a rule fires, saved chunk by chunk in the journal (driver.h). */
#include "sim/driver.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "sim/backends.h"
#include "sim/config_format.h"
#include "sim/journal.h"
#include "sim/point_fold.h"
#include "sim/report.h"
#include "sim/theory.h"

/* The signal that asked the run to stop (SIGINT or SIGTERM), 0 while none. */
static volatile sig_atomic_t interrupted = 0;

static void on_stop_signal(int sig) {
  interrupted = sig;
  /* A second one stops at once. */
  signal(sig, SIG_DFL);
}

void sim_catch_stop_signals(void) {
  static int caught;
  if (caught++) return;
  /* Installed even where the shell started us with SIGINT ignored (a
   * background job): a stop asked for is a stop. */
  signal(SIGINT, on_stop_signal);
  signal(SIGTERM, on_stop_signal);
}

void sim_point_interval(const sim_point *pt, const point_result *r, double conf, double *lo,
                        double *hi) {
  tally_interval(pt, &r->n, conf, lo, hi);
}

/* What a point already has in the journal. */
typedef struct replay {
  tally n;            /* its saved chunks, summed in order */
  uint64_t chunks;    /* how many */
  const char *stop;   /* the rule that ended it, NULL while it goes on */
  char backend[16];
} replay;

/* One run: the config, the options, the results so far and the files. */
typedef struct run_state {
  const sim_config *c;
  const run_options *o;
  point_result *results;
  replay *replays;       /* NULL without a journal to resume from */
  journal *jr;           /* NULL without -o */
  char json_path[4096];
  char started[32];
  double sweep_started;
  double last_saved, save_cost, last_synced;
  int show_progress;
} run_state;

/* The live line: this point's counts, rate and ETA, and the sweep's. The
 * sweep's ETA assumes the points still to come cost what the finished ones
 * (and the finished share of this one) did on average. */
static void progress(const run_state *s, size_t i, const tally *n, double elapsed) {
  const sim_point *pt = &s->c->points[i];
  const double ber = n->bits ? (double)n->bit_errors / (double)n->bits : 0.0;
  const double mbps = elapsed > 0 ? (double)n->bits / elapsed / 1e6 : 0.0;
  /* Whichever stopping rule is nearer decides the remaining time. */
  double done = (double)n->bits / pt->max_bits;
  double by_errors = (double)n->bit_errors / (double)pt->target_errors;
  const double by_frames = (double)n->frames / (double)pt->min_frames;
  if (by_frames < by_errors) by_errors = by_frames;
  if (by_errors > done) done = by_errors;
  if (done > 1.0) done = 1.0;
  const double eta = done > 0 ? elapsed * (1.0 - done) / done : 0.0;
  const double swept = ((double)i + done) / (double)s->c->n_points;
  const double total = clock_seconds() - s->sweep_started;
  const double sweep_eta = swept > 0 ? total * (1.0 - swept) / swept : 0.0;
  fprintf(stderr,
          "\r[%zu/%zu] snr %6.2f dB  bits %10.3e  errors %8llu  ber %9.3e  %9.2f Mbit/s  ETA %6.1f s  "
          "sweep %5.1f%% ETA %7.1f s ",
          i + 1, s->c->n_points, pt->p.snr_db, (double)n->bits, (unsigned long long)n->bit_errors, ber,
          mbps, eta, 100.0 * swept, sweep_eta);
  fflush(stderr);
}

/* Rewrites the CSV and the JSON with the first n results: always when
 * `now_or_never`, else only when enough time has passed that rewriting stays a
 * small share of the run (the journal holds every chunk meanwhile). 0, or 1
 * with the message printed. */
static int save(run_state *s, size_t n, int now_or_never) {
  if (!s->o->csv_path) return 0;
  const double t0 = clock_seconds();
  const double wait = s->save_cost * 20.0 > 1.0 ? s->save_cost * 20.0 : 1.0;
  if (!now_or_never && t0 - s->last_saved < wait) return 0;
  const char *failed = NULL;
  if (report_write_csv(s->o->csv_path, s->c, s->results, n)) failed = s->o->csv_path;
  else if (report_write_json(s->json_path, s->c, s->results, n, s->o, s->started)) failed = s->json_path;
  if (failed) {
    fprintf(stderr, "\nofdmsim: error: cannot write %s: %s\n", failed, strerror(errno));
    return 1;
  }
  s->last_saved = clock_seconds();
  s->save_cost = s->last_saved - t0;
  return 0;
}

/* The journal as the fold's chunk sink: appends a closed chunk; 0, or 1 with
 * the message printed. */
typedef struct chunk_out {
  run_state *s;
  size_t i;
  const char *backend;
} chunk_out;

static int journal_chunk(void *ctx, uint64_t k, const tally *n, const char *stop) {
  const chunk_out *o = ctx;
  run_state *s = o->s;
  if (!s->jr) return 0;
  const sim_point *pt = &s->c->points[o->i];
  journal_record rec = {.point = o->i, .work_key = point_work_key(pt), .point_key = pt->point_key, .chunk = k,
                        .n = *n, .tx = pt->p.tx};
  snprintf(rec.stop, sizeof rec.stop, "%s", stop ? stop : "more");
  snprintf(rec.backend, sizeof rec.backend, "%s", o->backend);
  if (journal_append(s->jr, &rec) == 0) return 0;
  fprintf(stderr, "\nofdmsim: error: cannot append to the journal of %s: %s\n", s->o->csv_path,
          strerror(errno));
  return 1;
}

/* Simulates point i from where the journal left it; 0, or 1 on a failure
 * (message printed). */
static int run_point(run_state *s, size_t i) {
  const sim_config *c = s->c;
  const sim_point *pt = &c->points[i];
  point_result *r = &s->results[i];
  const replay *rp = s->replays ? &s->replays[i] : NULL;
  r->stop = "running";
  r->theory = theory_ber(&pt->p, &r->theory_kind);
  if (rp && rp->stop) { /* finished in an earlier run */
    r->n = rp->n;
    r->stop = rp->stop;
    snprintf(r->backend, sizeof r->backend, "%s", rp->backend);
    return 0;
  }

  char err[512] = "";
  backend_options bo = {0};
  /* no buffer bigger than the point can use: a one-frame point allocates one frame */
  const uint64_t most = point_max_frames(pt) - (rp ? rp->n.frames : 0);
  bo.max_batch_frames = c->batch_frames && c->batch_frames < most ? c->batch_frames : most;
  bo.cpu.threads = c->threads;
  bo.cuda.memory_mb = c->gpu_memory_mb;
  backend *b = backends_create(s->o->backend, &pt->p, &bo, err, sizeof err);
  if (!b) {
    fprintf(stderr, "ofdmsim: error: point %zu: %s\n", i, err);
    return 1;
  }
  snprintf(r->backend, sizeof r->backend, "%s", backend_name(b));

  const int tx = pt->p.tx;
  uint64_t cap = b->ops->max_frames(b);
  if (c->batch_frames && c->batch_frames < cap) cap = c->batch_frames;
  uint32_t *errors = malloc(sizeof(uint32_t) * (size_t)cap * ((size_t)tx + 1));
  if (!errors) {
    fprintf(stderr, "ofdmsim: error: point %zu: out of memory\n", i);
    backend_destroy(b);
    return 1;
  }
  batch_result br = {.errors = errors, .fallbacks = errors + (size_t)cap * (size_t)tx};

  point_fold f;
  point_fold_init(&f, pt, rp ? rp->chunks : 0, rp ? &rp->n : NULL, 1);
  chunk_out out = {s, i, r->backend};
  const double t_point = clock_seconds();
  double last_shown = 0;
  /* batches grow from one frame, so easy points stop early */
  uint64_t next = 1;
  while (next * 2 <= f.off + 1) next *= 2;
  int rc = 0;
  while (!rc && !f.stop) {
    uint64_t n = next < cap ? next : cap;
    if (n > f.end - f.off) n = f.end - f.off;
    const double t0 = clock_seconds();
    if (backend_run(b, pt->first_frame + f.off, n, &br)) {
      fprintf(stderr, "\nofdmsim: error: point %zu: the %s backend failed: %s\n", i, r->backend,
              backend_error(b));
      rc = 1;
      break;
    }
    const work_cost cost = {clock_seconds() - t0, br.inversions, br.t};
    /* Count frame by frame and stop at the exact frame where a rule fires, so
     * the result depends neither on the batch size nor on where a run was
     * interrupted and resumed. */
    if (point_fold_frames(&f, errors, br.fallbacks, n, &cost, journal_chunk, &out, NULL)) rc = 1;
    point_fold_total(&f, &r->n);
    if (f.stop) r->stop = f.stop;
    if (rc || f.stop) break;
    if (interrupted) {
      r->stop = "interrupted";
      break;
    }
    const double now = clock_seconds();
    if (s->show_progress && now - last_shown > 0.2) {
      progress(s, i, &r->n, now - t_point + (rp ? rp->n.seconds : 0));
      last_shown = now;
    }
    /* A long point shows in the CSV as it goes. */
    if (save(s, i + 1, 0)) rc = 1;
    if (next < cap) next *= 2;
  }
  if (s->show_progress) fprintf(stderr, "\r%*s\r", 120, "");
  free(errors);
  backend_destroy(b);
  return rc;
}

/* The static name of a stopping rule read from the journal (journal_parse
 * accepts no other). */
static const char *stop_rule_name(const char *word) {
  static const char *const rules[] = {"target_errors", "target_precision", "max_bits"};
  for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
    if (!strcmp(word, rules[i])) return rules[i];
  return "max_bits";
}

/* Reads what the journal holds for every point before any work. 0, or 2
 * with the message printed (a damaged journal or one that does not fit). */
static int load_replays(run_state *s) {
  const sim_config *c = s->c;
  size_t found = 0, finished = 0;
  s->replays = calloc(c->n_points, sizeof *s->replays);
  if (!s->replays) return fprintf(stderr, "ofdmsim: error: out of memory\n"), 1;
  for (size_t i = 0; i < c->n_points; i++) {
    const sim_point *pt = &c->points[i];
    replay *rp = &s->replays[i];
    const journal_record *recs;
    char err[600] = "";
    const long m = journal_chunks(s->jr, point_work_key(pt), &recs, err, sizeof err);
    if (m < 0) return fprintf(stderr, "ofdmsim: error: --resume: %s\n", err), 2;
    for (long j = 0; j < m; j++) {
      uint64_t off, len;
      chunk_range(pt, (uint64_t)j, &off, &len);
      const journal_record *rec = &recs[j];
      const int last = strcmp(rec->stop, "more") != 0;
      if (rec->point_key != pt->point_key || rec->tx != pt->p.tx ||
          rec->n.bits != rec->n.frames * link_bits_per_frame(&pt->p) ||
          (last ? rec->n.frames > len : rec->n.frames != len)) {
        fprintf(stderr,
                "ofdmsim: error: --resume: journal line %zu: chunk %ld of point %zu does not fit the "
                "point (%llu frames, expected %s%llu); --force starts over\n",
                rec->line, j, i, (unsigned long long)rec->n.frames, last ? "at most " : "",
                (unsigned long long)len);
        return 2;
      }
      tally_add(&rp->n, &rec->n, pt->p.tx);
      if (last) rp->stop = stop_rule_name(rec->stop);
      snprintf(rp->backend, sizeof rp->backend, "%s", rec->backend);
    }
    rp->chunks = (uint64_t)m;
    found += m > 0;
    finished += rp->stop != NULL;
  }
  fprintf(stderr, "ofdmsim: resuming: %zu of %zu points in the journal, %zu of them finished\n", found,
          c->n_points, finished);
  return 0;
}

/* Opens the journal beside the CSV: a new one, or the one to resume. */
static int open_journal(run_state *s) {
  if (!s->o->csv_path) return 0;
  char path[4096], err[600] = "";
  report_journal_path(s->o->csv_path, path, sizeof path);
  const int resume = s->o->resume && access(path, F_OK) == 0;
  s->jr = resume ? journal_resume(path, err, sizeof err) : journal_create(path, err, sizeof err);
  if (!s->jr) {
    char safe[1300];
    fprintf(stderr, "ofdmsim: error: %s%s\n", resume ? "--resume: " : "", cfg_escape(err, safe, sizeof safe));
    return resume || strstr(err, JOURNAL_BUSY_PREFIX) ? 2 : 1;
  }
  report_remove_stale_temps(s->o->csv_path);
  return resume ? load_replays(s) : 0;
}

/* The results of a point skipped by stop_below_ber. */
static void skip_point(run_state *s, size_t i) {
  point_result *r = &s->results[i];
  memset(r, 0, sizeof *r);
  r->stop = "skipped";
  r->theory = theory_ber(&s->c->points[i].p, &r->theory_kind);
  snprintf(r->backend, sizeof r->backend, "%s", s->o->backend);
}

static int run_points(run_state *s) {
  const sim_config *c = s->c;
  int rc = 0;
  size_t done = 0;
  double floor_snr = INFINITY; /* stop_below_ber: the curve ends from this SNR on */
  for (size_t i = 0; i < c->n_points && !rc; i++) {
    const sim_point *pt = &c->points[i];
    if (interrupted) break;
    /* A sweep combination's points are consecutive and share their label. */
    if (i == 0 || strcmp(pt->label, c->points[i - 1].label)) floor_snr = INFINITY;
    if (pt->stop_below_ber > 0.0 && pt->p.snr_db >= floor_snr) {
      skip_point(s, i);
    } else {
      rc = run_point(s, i);
      if (rc) break;
      const tally *n = &s->results[i].n;
      const int below = n->bits && (double)n->bit_errors < pt->stop_below_ber * (double)n->bits;
      const int clean = n->bit_errors == 0 && !strcmp(s->results[i].stop, "max_bits");
      if (pt->stop_below_ber > 0.0 && (below || clean) && pt->p.snr_db < floor_snr) floor_snr = pt->p.snr_db;
    }
    if (i == 0) report_table_head(stdout);
    report_table_row(stdout, pt, &s->results[i]);
    fflush(stdout);
    done = i + 1;
    const int last = done == c->n_points || interrupted || !strcmp(s->results[i].stop, "interrupted");
    if (save(s, done, last)) rc = 1;
    if (s->jr && (last || clock_seconds() - s->last_synced > 1.0)) {
      journal_sync(s->jr);
      s->last_synced = clock_seconds();
    }
  }
  const int all_done = done == c->n_points && strcmp(s->results[done - 1].stop, "interrupted");
  if (!rc && interrupted && !all_done) {
    if (done < c->n_points && save(s, done, 1)) return 1;
    fprintf(stderr, "ofdmsim: interrupted (%s): %zu of %zu points saved%s%s\n",
            interrupted == SIGTERM ? "SIGTERM" : "SIGINT", done, c->n_points,
            done && !strcmp(s->results[done - 1].stop, "interrupted") ? " (the last one partial)" : "",
            s->o->csv_path ? "; --resume continues" : "");
    rc = 128 + (int)interrupted;
  }
  if (rc == 1 && done) save(s, done, 1); /* keep what was computed */
  return rc;
}

int sim_run(const sim_config *c, const run_options *o) {
  run_state s = {.c = c, .o = o};
  s.sweep_started = clock_seconds();
  s.results = calloc(c->n_points, sizeof *s.results);
  if (!s.results) {
    fprintf(stderr, "ofdmsim: error: out of memory\n");
    return 1;
  }
  if (o->csv_path) report_sidecar_path(o->csv_path, s.json_path, sizeof s.json_path);
  report_iso_now(s.started, sizeof s.started);
  s.show_progress = !o->quiet && (isatty(STDERR_FILENO) || getenv("OFDMSIM_PROGRESS"));
  sim_catch_stop_signals();
  int rc = open_journal(&s);
  if (!rc) rc = run_points(&s);
  if (s.jr) journal_sync(s.jr);
  journal_close(s.jr);
  free(s.replays);
  free(s.results);
  return rc;
}
