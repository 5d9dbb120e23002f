/* The checks a run makes before any work, shared by the library's run
 * (api/ofdmsim.h) and the command line's MPI ranks (app/run.c): the result
 * files of -o, the --llr-out file, and whether the threads can start. */
#ifndef OFDMSIM_API_RUN_CHECKS_H
#define OFDMSIM_API_RUN_CHECKS_H

#include <stddef.h>

#include "config/config.h"

/* The CSV, its JSON sidecar and its journal must be plain files (or
 * absent), none of them the config itself, none replaced without force (or
 * continued without resume), and the folder must take a new file. 0, or -1
 * with the message in err (the command line's, naming -o). */
int run_check_outputs(const char *csv, const char *config_path, int force, int resume, char *err, size_t errlen);

/* --llr-out: every point has soft outputs, and path is a new file (or force
 * / resume, which write it again) in a folder that takes one, and none of
 * the config and csv's files, whether they exist yet or not. 0, or -1 with
 * the message in err. */
int run_check_llr_out(const char *path, const char *csv, const sim_config *cfg, int force, int resume, char *err,
                      size_t errlen);

/* Whether `threads` threads can run at once here (libgomp ends the process
 * with a bare "Thread creation failed" when it cannot start its team). 0, or
 * -1 with the message naming simulation.threads in err. */
int run_check_threads(int threads, char *err, size_t errlen);

#endif
