/* Runs every point of a config through a backend: batches, the per-point
 * stopping rules at the exact frame, the journal of finished chunks and
 * --resume from it, the live progress line, and the result files. */
#ifndef OFDMSIM_DRIVER_H
#define OFDMSIM_DRIVER_H

#include "config/config.h"
#include "results/run_record.h"

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

#endif
