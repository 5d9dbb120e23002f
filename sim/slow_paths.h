/* Points on the CPU's slow paths, flagged in the run's header before the
 * run with a rough time: a 4x4 16-QAM ml point or a time-domain point with
 * Doppler simulates some 0.1 Mbit/s a thread where a linear receiver does
 * 10, and a user who starts one without knowing waits for hours. The rates
 * are a model (the cost that dominates, measured once: BENCHMARKS.md,
 * "Detectors" and "Channels"), not a measurement of this machine: the header
 * says "about". */
#ifndef OFDMSIM_SLOW_PATHS_H
#define OFDMSIM_SLOW_PATHS_H

#include <stdio.h>

#include "config/config.h"

/* A point's simulated bits per second on one CPU thread as far as its slow
 * part allows, with that part's name in *what; 0 when the point has no slow
 * part (below SLOW_PATH_BITS_PER_S it is flagged). */
#define SLOW_PATH_BITS_PER_S 1e6
double slow_path_rate(const link_params *p, const char **what);

/* One "# note: ..." line per kind of slow point of c on the CPU backend with
 * `threads` threads: how many points, the path, about how fast, and the time
 * if they run to simulation.max_bits. Nothing for the cuda backend or when
 * no point is slow. */
void slow_paths_note(const sim_config *c, const char *backend, int threads, FILE *f, const char *prefix);

#endif
