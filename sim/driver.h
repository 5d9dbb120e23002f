/* Runs every point of a config through a backend: batches, the per-point
 * stopping rules at the exact frame, the journal of finished chunks and
 * --resume from it, the live progress line, and the result files. */
#ifndef OFDMSIM_DRIVER_H
#define OFDMSIM_DRIVER_H

#include "core/backend.h"
#include "sim/chunks.h"
#include "sim/config.h"

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
  uint64_t messages;
} rank_stat;

/* From here on SIGINT and SIGTERM ask the run to stop (between any two
 * batches and points) after saving what was computed; a second one stops at
 * once. Call it first thing, so that a signal during start-up (reading the
 * config, starting the GPU) is not lost, and again after MPI_Init; sim_run
 * calls it too. */
void sim_catch_stop_signals(void);

/* 0 when every point finished, 1 on a runtime error, 2 when the journal to
 * resume from is damaged or locked (nothing run), 128 + the signal when SIGINT
 * (130) or SIGTERM (143) stopped it after saving what was computed. */
int sim_run(const sim_config *c, const run_options *o);

/* The point's BER interval at confidence conf (chunks.h's tally_interval). */
void sim_point_interval(const sim_point *pt, const point_result *r, double conf, double *lo,
                        double *hi);

#endif
