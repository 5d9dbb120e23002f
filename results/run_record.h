/* What a run records: a point's result (its counts and why it stopped), the
 * run's options as the result files describe them, and what each MPI rank
 * did. The engine (sim/, mpi/) fills these; the report, the result files and
 * the journal (results/) write them. They live here, below the engine, so
 * that the writers need nothing from the engine that calls them. */
#ifndef OFDMSIM_RUN_RECORD_H
#define OFDMSIM_RUN_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "results/chunks.h"

typedef struct point_result {
  tally n;                /* the point's counts */
  const char *stop;       /* "target_errors" | "target_precision" | "max_bits" | "skipped"
                             (stop_below_ber) | "interrupted" | "running" */
  double theory;          /* NAN where no closed form */
  const char *theory_kind;
  char backend[16];       /* what actually ran it */
} point_result;

typedef struct run_options {
  const char *csv_path;   /* NULL: no files */
  int quiet;              /* no progress line */
  int resume;             /* continue from the journal beside csv_path (a missing one: start) */
  const char *command_line;
  const char *backend;    /* "cpu" or "cuda", as resolved by backends_resolve */
  const char *device;     /* what runs it: "AMD EPYC ... , 2 threads", "NVIDIA H100 ..., driver ..." */
  int threads;            /* CPU threads (of each rank) */
  int ranks;              /* processes computing the sweep: 1, or the MPI job's size */
  const struct rank_stat *rank_stats; /* ranks of them, or NULL (kept up to date by the MPI engine) */
  double progress_seconds; /* --progress: a progress line of its own every so many seconds; 0: the default
                              (the live line on a terminal, else a line a minute) */
  /* What a library caller (api/ofdmsim.h) asks for besides; zero for the
   * command line. */
  int no_table;           /* no table rows on stdout */
  int library;            /* leave SIGINT/SIGTERM to the caller (sweep_request_stop stops it) */
  point_result *results_out; /* the run's results copied here at its end (n_points of them), or NULL */
  /* Called after every batch and every point (point i of n, done points
   * finished, counts the point's so far); nonzero asks the run to stop as
   * SIGINT would, keeping what was computed. NULL: none. */
  int (*on_progress)(void *ctx, size_t i, size_t done, const tally *n);
  void *progress_ctx;
} run_options;

/* What one rank of an MPI run did (the report's per-rank throughput). */
typedef struct rank_stat {
  char host[64];
  char backend[16];
  char device[160];
  uint64_t units, frames, bits; /* work units done, and their frames and bits (kept or not) */
  double seconds;               /* spent computing them */
  /* Where the rest of its time went (the MPI engine's lane_times): process
   * start to its first batch, starting later units (backends for a new
   * point), waiting for work between units, idle at the end, and process
   * start to the end; on rank 0 also the coordinator's own CPU time and the
   * messages it handled. */
  double startup, setup, idle, tail, wall, coordinator;
  /* the start-up's steps, each from process start: MPI_Init done, its GPU
   * taken, config and backend ready (its first batch is `startup`) */
  double to_mpi, to_gpu, to_ready;
  uint64_t messages;
} rank_stat;

#endif
