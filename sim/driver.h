/* Runs every point of a config through a backend: batches, the per-point
 * stopping rules, the live progress line, and results after each point. */
#ifndef OFDMSIM_DRIVER_H
#define OFDMSIM_DRIVER_H

#include "sim/config.h"
#include "core/backend.h"

typedef struct point_result {
  uint64_t bits, bit_errors, frames, inversions;
  uint64_t fallbacks;     /* REs equalised in double (float Gram flagged singular) */
  double sum_sq;          /* sum over frames of (bit errors of the frame)^2 */
  uint64_t stream_errors[LINK_MAX_TX];
  double seconds;         /* wall time of the point */
  stage_times t;          /* summed over its batches */
  const char *stop;       /* "target_errors" | "target_precision" | "max_bits" | "skipped"
                             (stop_below_ber) | "interrupted" | "running" */
  double theory;          /* NAN where no closed form */
  const char *theory_kind;
  const char *backend;    /* what actually ran it */
} point_result;

typedef struct run_options {
  const char *csv_path;   /* NULL: no files */
  int quiet;              /* no progress line */
  const char *command_line;
  const char *backend;    /* "cpu" or "cuda", as resolved by backends_resolve */
  const char *device;     /* what runs it: "AMD EPYC ... , 2 threads", "NVIDIA H100 ..., driver ..." */
  int threads;            /* CPU threads */
} run_options;

/* 0 when every point finished, 1 on a runtime error, 128 + the signal when
 * SIGINT (130) or SIGTERM (143) stopped it after saving what was computed. */
int sim_run(const sim_config *c, const run_options *o);

/* The point's BER interval at confidence conf (stats.h's ber_interval, the
 * independent units being REs for channels drawn per RE, frames for tdl). */
void sim_point_interval(const sim_point *pt, const point_result *r, double conf, double *lo,
                        double *hi);

/* Frames the stopping rules allow at most for one point. */
uint64_t sim_point_max_frames(const sim_point *pt);

#endif
