/* The bookkeeping of a run (sweep_run.h). */
#include "sim/sweep_run.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "config/config_format.h"
#include "results/json_doc.h"
#include "results/report.h"
#include "sim/messages.h"
#include "sim/theory.h"

/* The signal that asked the run to stop (SIGINT or SIGTERM, or SIGPIPE for
 * a standard output that stopped taking the table), 0 while none. */
static volatile sig_atomic_t interrupted = 0;
/* Why standard output failed, 0 while it takes the table. */
static int stdout_errno = 0;

static void on_stop_signal(int sig) {
  interrupted = sig;
  /* A second one stops at once. */
  signal(sig, SIG_DFL);
}

void sim_catch_stop_signals(void) {
  /* Installed even where the shell started us with SIGINT ignored (a
   * background job): a stop asked for is a stop. Again after a library
   * (MPI) took the signals over, unless one came already. */
  if (interrupted) return;
  signal(SIGINT, on_stop_signal);
  signal(SIGTERM, on_stop_signal);
  /* A closed standard output (`ofdmsim ... | head`) would kill the run in
   * the middle of a point (exit 141, a row left "running"): ignored, the
   * write fails instead and sweep_point_done stops the run as SIGTERM does. */
  signal(SIGPIPE, SIG_IGN);
}

int sweep_interrupted(void) { return interrupted; }

void sweep_request_stop(int sig) {
  if (!interrupted) interrupted = sig;
}

void sweep_clear_stop(void) { interrupted = 0; }

void sweep_tell_progress(run_state *s, size_t i, size_t done, const tally *n) {
  if (s->o->on_progress && s->o->on_progress(s->o->progress_ctx, i, done, n)) sweep_request_stop(SIGINT);
}

double sweep_progress_mode(int quiet, double progress_seconds, int stderr_is_tty, int forced) {
  if (quiet) return -2;
  if (progress_seconds > 0) return progress_seconds;
  return stderr_is_tty || forced ? -1 : 60.0;
}

void sweep_progress(run_state *s, size_t i, const tally *n, double elapsed, int ranks) {
  const double now = clock_seconds();
  if (s->progress_every >= 0) {
    if (now - s->last_logged < s->progress_every) return;
    s->last_logged = now;
  }
  /* The sweep's ETA assumes the points still to come cost what the finished
   * ones (and the finished share of this one) did on average. */
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
  const double total = now - s->sweep_started;
  const double sweep_eta = swept > 0 ? total * (1.0 - swept) / swept : 0.0;
  char ranks_text[32] = "";
  if (ranks > 1) snprintf(ranks_text, sizeof ranks_text, "  %d ranks", ranks);
  char line[400];
  snprintf(line, sizeof line,
           "[%zu/%zu] snr %6.2f dB  bits %10.3e  errors %8llu  ber %9.3e  %9.2f Mbit/s  ETA %6.1f s  "
           "sweep %5.1f%% ETA %7.1f s%s",
           i + 1, s->c->n_points, pt->p.snr_db, (double)n->bits, (unsigned long long)n->bit_errors, ber, mbps,
           eta, 100.0 * swept, sweep_eta, ranks_text);
  /* a log (not a terminal, or --progress) gets whole lines with the time
   * since the start, so that a scheduler's log reads as a history */
  if (s->progress_every >= 0) fprintf(stderr, "ofdmsim: progress %.0f s: %s\n", total, line);
  else fprintf(stderr, "\r%s ", line);
  fflush(stderr);
}

void sweep_progress_clear(const run_state *s) {
  if (s->show_progress && s->progress_every < 0) fprintf(stderr, "\r%*s\r", 130, "");
}

int sweep_save(run_state *s, size_t n, int now_or_never) {
  if (!s->o->csv_path) return 0;
  const double t0 = clock_seconds();
  const double wait = s->save_cost * 20.0 > 1.0 ? s->save_cost * 20.0 : 1.0;
  if (!now_or_never && t0 - s->last_saved < wait) return 0;
  const char *failed = NULL;
  s->saves++;
  if (report_write_csv(s->o->csv_path, s->c, s->results, n)) failed = s->o->csv_path;
  else if (report_write_json(s->json_path, s->c, s->results, n, s->o, s->started, s->saves)) failed = s->json_path;
  if (failed) {
    sim_error(1, "cannot write %s: %s", failed, strerror(errno));
    return 1;
  }
  s->last_saved = clock_seconds();
  s->save_cost = s->last_saved - t0;
  return 0;
}

int sweep_chunk_sink(void *ctx, uint64_t k, const tally *n, const char *stop) {
  const chunk_out *o = ctx;
  run_state *s = o->s;
  if (!s->jr) return 0;
  const sim_point *pt = &s->c->points[o->i];
  journal_record rec = {.point = pt->index, .work_key = point_work_key(pt), .point_key = pt->point_key,
                        .chunk = k, .n = *n, .tx = pt->p.tx};
  snprintf(rec.stop, sizeof rec.stop, "%s", o->stop_word ? o->stop_word : stop ? stop : "more");
  snprintf(rec.backend, sizeof rec.backend, "%s", o->backend);
  if (journal_append(s->jr, &rec) == 0) return 0;
  sim_error(1, "cannot append to the journal of %s: %s", s->o->csv_path,
          strerror(errno));
  return 1;
}

/* The static name of a stopping rule read from the journal (journal_parse
 * accepts no other). */
static const char *stop_rule_name(const char *word) {
  static const char *const rules[] = {"target_errors", "target_precision", "max_bits", "target_block_errors",
                                      "max_blocks"};
  for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
    if (!strcmp(word, rules[i])) return rules[i];
  return "max_bits";
}

/* A saved chunk that does not fit its point: the message, 2. */
static int misfit(const journal_record *rec, size_t i, uint64_t frames, int at_most) {
  sim_error(0,
            "--resume: journal line %zu: chunk %llu of point %zu does not fit the point (%llu "
            "frames, expected %s%llu); --force starts over",
          rec->line, (unsigned long long)rec->chunk, i, (unsigned long long)rec->n.frames,
          at_most ? "at most " : "", (unsigned long long)frames);
  return 2;
}

/* Reads what the journal holds for every point before any work. 0, or 2
 * with the message printed (a damaged journal or one that does not fit). */
static int load_replays(run_state *s) {
  const sim_config *c = s->c;
  size_t found = 0, finished = 0;
  s->replays = calloc(c->n_points, sizeof *s->replays);
  if (!s->replays) return sim_error(0, "out of memory"), 1;
  for (size_t i = 0; i < c->n_points; i++) {
    const sim_point *pt = &c->points[i];
    replay *rp = &s->replays[i];
    const journal_record *recs;
    size_t decided;
    char err[600] = "";
    const long m = journal_chunks(s->jr, point_work_key(pt), &recs, &decided, err, sizeof err);
    if (m < 0) return sim_error(0, "--resume: %s", err), 2;
    for (long j = 0; j < m; j++) {
      const journal_record *rec = &recs[j];
      const int ahead = (size_t)j >= decided, last = !ahead && strcmp(rec->stop, "more") != 0;
      const uint64_t len = point_chunk_frames(pt, rec->chunk);
      if (rec->point_key != pt->point_key || rec->tx != pt->p.tx ||
          rec->n.bits != rec->n.frames * link_bits_per_frame(&pt->p) ||
          (last ? rec->n.frames > len : rec->n.frames != len))
        return misfit(rec, i, len, last);
      if (ahead) continue;
      tally_add(&rp->n, &rec->n, pt->p.tx);
      if (last) rp->stop = stop_rule_name(rec->stop);
      snprintf(rp->backend, sizeof rp->backend, "%s", rec->backend);
    }
    rp->chunks = decided;
    if ((size_t)m > decided) {
      rp->n_ahead = (size_t)m - decided;
      rp->ahead = malloc(rp->n_ahead * sizeof *rp->ahead);
      if (!rp->ahead) return sim_error(0, "out of memory"), 1;
      memcpy(rp->ahead, recs + decided, rp->n_ahead * sizeof *rp->ahead);
    }
    found += m > 0;
    finished += rp->stop != NULL;
  }
  if (!s->o->library)
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
    sim_error(0, "%s%s", resume ? "--resume: " : "", cfg_escape(err, safe, sizeof safe));
    return resume || strstr(err, JOURNAL_BUSY_PREFIX) ? 2 : 1;
  }
  report_remove_stale_temps(s->o->csv_path);
  return resume ? load_replays(s) : 0;
}

int sweep_open(run_state *s, const sim_config *c, const run_options *o) {
  memset(s, 0, sizeof *s);
  s->c = c;
  s->o = o;
  s->sweep_started = clock_seconds();
  s->results = calloc(c->n_points ? c->n_points : 1, sizeof *s->results);
  if (!s->results) {
    sim_error(0, "out of memory");
    return 1;
  }
  if (o->csv_path) report_sidecar_path(o->csv_path, s->json_path, sizeof s->json_path);
  json_doc_iso_now(s->started, sizeof s->started);
  s->progress_every =
      sweep_progress_mode(o->quiet, o->progress_seconds, isatty(STDERR_FILENO), getenv("OFDMSIM_PROGRESS") != NULL);
  s->show_progress = s->progress_every > -2;
  s->last_logged = s->sweep_started;
  if (!o->library) sim_catch_stop_signals();
  return open_journal(s);
}

void sweep_close(run_state *s) {
  if (s->jr) journal_sync(s->jr);
  journal_close(s->jr);
  s->jr = NULL;
  if (s->replays)
    for (size_t i = 0; i < s->c->n_points; i++) free(s->replays[i].ahead);
  free(s->replays);
  if (s->o->results_out && s->results) memcpy(s->o->results_out, s->results, s->c->n_points * sizeof *s->results);
  free(s->results);
  s->replays = NULL;
  s->results = NULL;
}

int sweep_point_begin(run_state *s, size_t i) {
  point_result *r = &s->results[i];
  const replay *rp = s->replays ? &s->replays[i] : NULL;
  r->stop = "running";
  r->theory = theory_ber(&s->c->points[i].p, &r->theory_kind);
  if (!rp || !rp->stop) return 0;
  r->n = rp->n; /* finished in an earlier run */
  r->stop = rp->stop;
  snprintf(r->backend, sizeof r->backend, "%s", rp->backend);
  return 1;
}

uint64_t sweep_fold_ahead(run_state *s, size_t i, point_fold *f) {
  const replay *rp = s->replays ? &s->replays[i] : NULL;
  uint64_t folded = 0;
  for (size_t a = 0; rp && a < rp->n_ahead && !f->stop; a++) {
    const journal_record *rec = &rp->ahead[a];
    if (rec->chunk != f->k) break;
    chunk_out out = {s, i, rec->backend, NULL};
    if (point_fold_chunk(f, &rec->n, sweep_chunk_sink, &out) < 0) break;
    if (f->k == rec->chunk) break; /* not decided without its frames */
    folded++;
  }
  return folded;
}

int sweep_skips(const run_state *s, size_t i) {
  const sim_point *pt = &s->c->points[i];
  if (!(pt->stop_below_ber > 0.0)) return 0;
  /* A sweep combination's points are consecutive and share their label. */
  for (size_t j = i; j-- > 0 && !strcmp(s->c->points[j].label, pt->label);) {
    const sim_point *ran = &s->c->points[j];
    const point_result *r = &s->results[j];
    if (!strcmp(r->stop, "skipped") || !(ran->stop_below_ber > 0.0)) continue;
    /* the curve ends at the first point that ran below the BER, or clean to max_bits */
    const tally *n = &r->n;
    int below = n->bits && (double)n->bit_errors < ran->stop_below_ber * (double)n->bits;
    int clean = n->bit_errors == 0 && !strcmp(r->stop, "max_bits");
    if (link_coded(&ran->p)) { /* a coded curve by its BLER */
      const tally_coded *c = &n->coded;
      below = c->blocks && (double)c->block_errors < ran->stop_below_ber * (double)c->blocks;
      clean = c->block_errors == 0 && (!strcmp(r->stop, "max_bits") || !strcmp(r->stop, "max_blocks"));
    }
    if ((below || clean) && pt->p.snr_db >= ran->p.snr_db) return 1;
  }
  return 0;
}

void sweep_skip_point(run_state *s, size_t i, const char *backend) {
  point_result *r = &s->results[i];
  memset(r, 0, sizeof *r);
  r->stop = "skipped";
  r->theory = theory_ber(&s->c->points[i].p, &r->theory_kind);
  snprintf(r->backend, sizeof r->backend, "%s", backend);
}

int sweep_point_done(run_state *s, size_t i) {
  if (!stdout_errno && !s->o->no_table) {
    if (i == 0) report_table_head(stdout);
    report_table_row(stdout, &s->c->points[i], &s->results[i]);
    if (fflush(stdout) || ferror(stdout)) {
      /* the table is a result too: the run stops, the files keep the rest */
      stdout_errno = errno ? errno : EIO;
      sweep_request_stop(SIGPIPE);
    }
  }
  const size_t done = i + 1;
  const int last = done == s->c->n_points || interrupted || !strcmp(s->results[i].stop, "interrupted");
  int rc = sweep_save(s, done, last);
  if (s->jr && (last || clock_seconds() - s->last_synced > 1.0)) {
    journal_sync(s->jr);
    s->last_synced = clock_seconds();
  }
  return rc;
}

int sweep_finish(run_state *s, size_t done, int rc) {
  const sim_config *c = s->c;
  const int all_done = done == c->n_points && (!done || strcmp(s->results[done - 1].stop, "interrupted"));
  if (!rc && interrupted && !all_done) {
    if (done < c->n_points && sweep_save(s, done, 1)) return 1;
    if (interrupted == SIGPIPE) {
      sim_error(0, "standard output failed (%s): stopped, %zu of %zu points saved%s",
              strerror(stdout_errno), done, c->n_points,
              s->o->csv_path ? "; --resume continues" : " (no -o: nothing kept)");
      return 1;
    }
    if (!s->o->library) /* a library's caller has the count in its message */
      fprintf(stderr, "ofdmsim: interrupted (%s): %zu of %zu points saved%s%s\n",
              interrupted == SIGTERM ? "SIGTERM" : "SIGINT", done, c->n_points,
              done && !strcmp(s->results[done - 1].stop, "interrupted") ? " (the last one partial)" : "",
              s->o->csv_path ? "; --resume continues" : "");
    rc = 128 + (int)interrupted;
  }
  if (rc == 1 && done) sweep_save(s, done, 1); /* keep what was computed */
  /* a shard without points still says so, for the merge of all shards */
  if (!rc && c->n_points == 0) rc = sweep_save(s, 0, 1);
  return rc;
}
