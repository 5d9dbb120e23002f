/* The bookkeeping of one run of a sweep, shared by the engines that compute
 * it (this process alone: driver.c; ranks of an MPI job: mpi/): the results
 * so far, the journal and what an earlier run left in it, the table rows, the
 * CSV and JSON rewrites, the live progress line, stop_below_ber, and the
 * SIGINT/SIGTERM stop. An engine computes frames and folds them
 * (point_fold.h) with sweep_chunk_sink as the sink, and hands each point to
 * sweep_point_done in sweep order. */
#ifndef OFDMSIM_SWEEP_RUN_H
#define OFDMSIM_SWEEP_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "sim/driver.h"
#include "results/journal.h"
#include "sim/point_fold.h"

/* What a point already has in the journal. */
typedef struct replay {
  tally n;                 /* its decided chunks, summed in order */
  uint64_t chunks;         /* how many */
  const char *stop;        /* the rule that ended it, NULL while it goes on */
  char backend[16];
  journal_record *ahead;   /* chunks saved ahead of their prefix, past `chunks`, in order */
  size_t n_ahead;
} replay;

typedef struct run_state {
  const sim_config *c;
  const run_options *o;
  point_result *results;
  replay *replays;         /* NULL without a journal to resume from */
  journal *jr;             /* NULL without -o */
  char json_path[4096];
  char started[32];
  double sweep_started;
  double last_saved, save_cost, last_synced;
  unsigned long saves; /* the times this run has written the CSV and sidecar */
  int show_progress;       /* the engines call sweep_progress (throttled to 5 a second) */
  double progress_every;   /* <0: the live line on a terminal; >=0: a line of its own every so many seconds */
  double last_logged;      /* when the last such line was printed */
} run_state;

/* How the progress shows (run_options.progress_seconds, -q, whether stderr
 * is a terminal): -1 the live line redrawn in place, a period >= 0 in
 * seconds for a line of its own every period (a log under nohup or a batch
 * scheduler, where a redrawn line would pile up as one endless line or show
 * nothing for hours), or -2 for none. */
double sweep_progress_mode(int quiet, double progress_seconds, int stderr_is_tty, int forced);

/* Starts the run: the results, and with -o the journal (new, or the one to
 * resume, read and checked against the points). 0; 1 on a runtime error; 2
 * when the journal to resume is damaged, does not fit, or is locked (the
 * message printed). */
int sweep_open(run_state *s, const sim_config *c, const run_options *o);
/* Syncs and closes the journal, frees everything. */
void sweep_close(run_state *s);

/* The signal that asked the run to stop (SIGINT or SIGTERM), 0 while none
 * (sim_catch_stop_signals installs the handlers). */
int sweep_interrupted(void);
/* Stops the run as signal sig would (another process of the run caught it). */
void sweep_request_stop(int sig);

/* Forgets a stop asked for by an earlier run of this process (a library
 * caller's sweep after a cancelled one). */
void sweep_clear_stop(void);

/* Hands point i's counts n, with `done` points finished, to the caller's
 * run_options.on_progress; a nonzero answer asks the run to stop (SIGINT). */
void sweep_tell_progress(run_state *s, size_t i, size_t done, const tally *n);

/* A chunk sink (point_fold.h) appending to the journal; ctx is a chunk_out. */
typedef struct chunk_out {
  run_state *s;
  size_t i;                /* the point */
  const char *backend;     /* what computed the chunk */
  const char *stop_word;   /* NULL: the fold's decision; "ahead": a chunk ahead of its prefix */
} chunk_out;
int sweep_chunk_sink(void *ctx, uint64_t k, const tally *n, const char *stop);

/* Point i begins: its theory and "running", or its result when the journal
 * has it finished (returns 1 then, else 0). */
int sweep_point_begin(run_state *s, size_t i);
/* Folds the chunks point i has saved ahead, from its replayed prefix on, as
 * long as their stop is decided without their frames (point_fold_chunk);
 * returns how many were folded. */
uint64_t sweep_fold_ahead(run_state *s, size_t i, point_fold *f);

/* Whether point i is to be skipped (stop_below_ber): an earlier point of
 * its curve ran and ended below the BER. Needs the points before i in its
 * curve done. */
int sweep_skips(const run_state *s, size_t i);
/* The results of point i as a skipped one. */
void sweep_skip_point(run_state *s, size_t i, const char *backend);

/* Point i is done (points 0 .. i-1 were): its table row, and the CSV, JSON
 * and journal brought to the disk when due. 0, or 1 (message printed). */
int sweep_point_done(run_state *s, size_t i);

/* Rewrites the CSV and the JSON with the first n results: always when
 * now_or_never, else only when enough time has passed that rewriting stays a
 * small share of the run (the journal holds every chunk meanwhile). 0, or 1
 * with the message printed. */
int sweep_save(run_state *s, size_t n, int now_or_never);

/* The live line for point i at counts n after `elapsed` seconds on it;
 * `ranks` > 1 adds the rank count. */
void sweep_progress(run_state *s, size_t i, const tally *n, double elapsed, int ranks);
void sweep_progress_clear(const run_state *s);

/* The end: done points of the sweep were handed to sweep_point_done, rc is
 * the engine's. With an interrupt and points left, saves, says so and
 * returns 128 + the signal; on a runtime error keeps what was computed. */
int sweep_finish(run_state *s, size_t done, int rc);

#endif
