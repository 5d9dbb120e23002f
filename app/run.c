/* The simulation run: in one process through the library's run
 * (api/ofdmsim.h); as a rank of an MPI job, config, output check, backend,
 * report header and the MPI engine. */
#include "app/run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/ofdmsim.h"
#include "api/run_checks.h"
#include "core/clock.h"
#include "app/opts.h"
#include "sim/backends.h"
#include "config/config.h"
#include "config/config_format.h"
#include "sim/driver.h"
#include "sim/llr_export.h"
#include "results/report.h"
#include "sim/shard.h"
#include "sim/slow_paths.h"
#ifdef OFDMSIM_HAVE_MPI
#include "mpi/engine.h"
#endif

#ifdef OFDMSIM_HAVE_MPI
/* What a run needs besides its config: the options and the texts they point at. */
typedef struct run_setup {
  char command_line[4096];
  char device[512];
  run_options ro;
} run_setup;

/* The config of the run (and this shard's share of it). 0, or the exit code
 * with the message printed when `speak`. */
static int load_config(const cli_args *args, sim_config *cfg, int speak) {
  char err[1024] = "";
  if (sim_config_load(cfg, args->config_path, args->overrides, args->n_overrides, err, sizeof err)) {
    char safe[2048];
    if (speak) fprintf(stderr, "ofdmsim: error: %s\n", cfg_escape(err, safe, sizeof safe));
    return 2;
  }
  if (args->shards && sim_config_shard(cfg, args->shard, args->shards)) {
    if (speak) fprintf(stderr, "ofdmsim: error: out of memory\n");
    return 1;
  }
  return 0;
}

/* The LLR export after a finished sweep (an MPI run's rank 0). 0, or 1
 * with the message printed. */
static int export_llrs(const cli_args *args, const sim_config *cfg, const char *backend, int threads) {
  if (!args->llr_out) return 0;
  char err[1024] = "";
  if (!args->quiet) fprintf(stderr, "ofdmsim: writing the LLRs of %zu points to %s\n", cfg->n_points, args->llr_out);
  if (llr_export_write(cfg, backend, threads, args->llr_out, args->llr_frames ? args->llr_frames : 1, err,
                       sizeof err) == 0)
    return 0;
  char safe[2048];
  fprintf(stderr, "ofdmsim: error: --llr-out %s\n", cfg_escape(err, safe, sizeof safe));
  return 1;
}

/* -o and --llr-out checked before any work (api/run_checks.h). 0, or 2
 * with the message printed. */
static int outputs_ok(const cli_args *args, const sim_config *cfg) {
  char err[1024] = "";
  if ((args->output_csv && run_check_outputs(args->output_csv, args->config_path, args->force, args->resume, err,
                                             sizeof err)) ||
      (args->llr_out && run_check_llr_out(args->llr_out, args->output_csv, cfg, args->force, args->resume, err,
                                          sizeof err))) {
    char safe[2048]; /* the paths are the user's text */
    fprintf(stderr, "ofdmsim: error: %s\n", cfg_escape(err, safe, sizeof safe));
    return 2;
  }
  return 0;
}

/* The backend, the threads, the header (when `header`) and the run's
 * options. 0, or 1 with the message printed. */
static int set_up(const cli_args *args, const sim_config *cfg, int threads, int header, int argc, char **argv,
                  run_setup *su) {
  if (threads > 0) omp_set_num_threads(threads);
  char err[1024] = "";
  if (run_check_threads(omp_get_max_threads(), err, sizeof err)) {
    fprintf(stderr, "ofdmsim: error: %s\n", err);
    return 1;
  }
  char why[256] = "";
  const char *backend = backends_resolve(cfg->backend, why, sizeof why);
  if (!backend) {
    fprintf(stderr, "ofdmsim: error: simulation.backend = \"%s\": %s\n", cfg->backend, why);
    return 1;
  }
  opt_join_args(argv[0], argc, argv, su->command_line, sizeof su->command_line);
  if (header) {
    char backend_desc[64];
    if (!strcmp(backend, "cpu"))
      snprintf(backend_desc, sizeof backend_desc, "cpu (%d threads)", omp_get_max_threads());
    else
      snprintf(backend_desc, sizeof backend_desc, "%s", backend);
    report_header(stdout, cfg, backend_desc, su->command_line);
    sim_config_print_notes(cfg, stdout, "# note: ");
    slow_paths_note(cfg, backend, omp_get_max_threads(), stdout, "# note: ");
  }
  backends_describe(backend, su->device, sizeof su->device);
  su->ro = (run_options){.csv_path = args->output_csv,
                         .quiet = args->quiet,
                         .resume = args->resume,
                         .command_line = su->command_line,
                         .backend = backend,
                         .device = su->device,
                         .threads = omp_get_max_threads(),
                         .ranks = 1,
                         .progress_seconds = args->progress_seconds};
  return 0;
}

/* A rank of `mpirun -np N ofdmsim ...`: every rank reads the config and sets
 * up its backend (the GPU of its node-local rank, or its share of the
 * node's cores); rank 0 alone checks the outputs, prints and writes. */

static int run_rank(const cli_args *args, int argc, char **argv) {
  /* Where the launcher says which rank this is, the config is read and the
   * GPU taken (on a thread of its own) while MPI_Init runs: the two longest
   * steps of a GPU rank's start-up, side by side (BENCHMARKS.md). */
  int env_rank, env_local_rank, env_local_size;
  const int early = mpi_job_shape_from_env(&env_rank, &env_local_rank, &env_local_size) == 0;
  sim_config cfg;
  memset(&cfg, 0, sizeof cfg);
  int loaded = -1;
  if (early) {
    backends_pin_rank(env_local_rank, env_local_size); /* before the first CUDA call */
    loaded = load_config(args, &cfg, env_rank == 0);
    if (!loaded && strcmp(cfg.backend, "cpu")) backends_warm_rank(env_local_rank, env_local_size);
  }
  mpi_job j;
  if (mpi_job_start(&j, &argc, &argv)) return 1;
  if (!early) backends_pin_rank(j.local_rank, j.local_size);
  sim_catch_stop_signals(); /* MPI_Init may have taken the signals */
  if (early && (env_rank != j.rank || env_local_rank != j.local_rank || env_local_size != j.local_size))
    fprintf(stderr, "ofdmsim: warning: rank %d: the launcher's environment says rank %d, node rank %d of %d; MPI "
            "says node rank %d of %d (the GPU was chosen from the environment)\n", j.rank, env_rank, env_local_rank,
            env_local_size, j.local_rank, j.local_size);
  int rc = mpi_job_agree(&j, early ? loaded : load_config(args, &cfg, j.rank == 0));
  if (!rc) rc = mpi_job_agree(&j, j.rank == 0 ? outputs_ok(args, &cfg) : 0);
  int threads = cfg.threads;
  if (!rc && threads == 0 && j.local_size > 1) { /* the node's cores split between its ranks */
    threads = omp_get_num_procs() / j.local_size;
    if (threads < 1) threads = 1;
  }
  char note[256] = "";
  if (!rc && backends_use_gpu_of_rank(j.local_rank, j.local_size, note, sizeof note)) {
    fprintf(stderr, "ofdmsim: error: rank %d on %s: %s\n", j.rank, j.host, note);
    rc = 1;
  } else if (!rc && note[0]) {
    fprintf(stderr, "ofdmsim: warning: %s (%s)\n", note, j.host);
  }
  j.t_gpu = clock_seconds();
  run_setup su;
  if (!rc) rc = mpi_job_agree(&j, set_up(args, &cfg, threads, j.rank == 0, argc, argv, &su));
  j.t_ready = clock_seconds();
  if (!rc) {
    if (j.rank == 0) printf("# %d ranks\n", j.size);
    fflush(stdout);
    su.ro.ranks = j.size;
    rc = mpi_engine_run(&j, &cfg, &su.ro);
    if (!rc && j.rank == 0) rc = export_llrs(args, &cfg, su.ro.backend, threads);
  }
  sim_config_free(&cfg);
  mpi_job_end(&j);
  return rc;
}
#endif

/* A run in this process: the library's run (api/ofdmsim.h) speaking as the
 * command line (the header, the table, the messages on stderr, Ctrl-C). */
static int run_through_library(const cli_args *args, int argc, char **argv) {
  ofdmsim_config *cfg;
  int rc = ofdmsim_config_load(&cfg, args->config_path, args->overrides, args->n_overrides);
  if (!rc && args->shards) rc = ofdmsim_config_shard(cfg, args->shard, args->shards);
  if (rc) {
    fprintf(stderr, "ofdmsim: error: %s\n", ofdmsim_last_error());
    ofdmsim_config_free(cfg);
    return rc;
  }
  char command_line[4096];
  opt_join_args(argv[0], argc, argv, command_line, sizeof command_line);
  const ofdmsim_run_options o = {.output = args->output_csv,
                                 .force = args->force,
                                 .resume = args->resume,
                                 .table = 1,
                                 .quiet = args->quiet,
                                 .progress_seconds = args->progress_seconds,
                                 .llr_out = args->llr_out,
                                 .llr_frames = args->llr_frames,
                                 .command_line = command_line};
  rc = ofdmsim_run(cfg, &o, NULL);
  ofdmsim_config_free(cfg);
  return rc;
}

/* Whether a launcher started several copies of this program that cannot
 * share the work (a build without MPI under mpirun). */
static int launched_without_mpi(void) {
  const char *size = getenv("OMPI_COMM_WORLD_SIZE");
  if (!size) size = getenv("PMI_SIZE");
  return size && atoi(size) > 1;
}

int run_main(const cli_args *args, int argc, char **argv) {
  sim_catch_stop_signals();
  int rc;
#ifdef OFDMSIM_HAVE_MPI
  if (mpi_job_launched()) {
    rc = run_rank(args, argc, argv);
    goto flush;
  }
#endif
  if (launched_without_mpi()) {
    fprintf(stderr,
            "ofdmsim: error: started as one of several ranks (mpirun/srun), but this build has no MPI engine: "
            "every rank would run the whole sweep; build with Open MPI (apt-get install libopenmpi-dev; "
            "cmake -DOFDMSIM_MPI=ON), or use --shard I/N\n");
    return 2;
  }
  rc = run_through_library(args, argc, argv);
#ifdef OFDMSIM_HAVE_MPI
flush:
#endif
  /* The table on stdout is a result too: a full disk or a closed pipe is an error. */
  if (fflush(stdout) || ferror(stdout)) {
    fprintf(stderr, "ofdmsim: error: cannot write the results to standard output: %s\n", strerror(errno));
    if (rc == 0) rc = 1;
  }
  return rc;
}
