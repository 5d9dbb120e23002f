/* The simulation run: config, output check, backend, report header, sim_run. */
#define _XOPEN_SOURCE 700 /* realpath */
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

/* Every output of -o is checked before any work starts: the CSV, its JSON
 * sidecar and its journal must be plain files (or absent), none of them the
 * config itself, none replaced without --force (or continued without
 * --resume), and the folder must take a new file. */
static int check_outputs(const cli_args *args, char *err, size_t errlen) {
  const char *csv = args->output_csv;
  char sidecar[4096], journal[4096];
  report_sidecar_path(csv, sidecar, sizeof sidecar);
  report_journal_path(csv, journal, sizeof journal);
  const char *paths[] = {csv, sidecar, journal};
  const char *what[] = {"the file", "its JSON sidecar", "its journal"};
  struct stat cfg, st;
  const int have_cfg = stat(args->config_path, &cfg) == 0;
  int exists[3];
  for (int i = 0; i < 3; i++) {
    if (strlen(paths[i]) >= sizeof sidecar - 1) {
      snprintf(err, errlen, "-o %.80s...: the name is too long", csv);
      return -1;
    }
    exists[i] = lstat(paths[i], &st) == 0;
    if (!exists[i]) continue;
    if (!S_ISREG(st.st_mode)) {
      snprintf(err, errlen, "-o %s: %s %s is %s, expected a regular file", csv, what[i], paths[i],
               S_ISDIR(st.st_mode) ? "a directory" : S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file");
      return -1;
    }
    if (have_cfg && st.st_dev == cfg.st_dev && st.st_ino == cfg.st_ino) {
      snprintf(err, errlen, "-o %s: %s %s is the config file itself; choose another result name", csv,
               what[i], paths[i]);
      return -1;
    }
  }
  const int any = exists[0] || exists[1] || exists[2];
  if (any && !args->force && !args->resume) {
    const int i = exists[0] ? 0 : exists[1] ? 1 : 2;
    snprintf(err, errlen,
             "-o %.400s: %s already exists%s%.400s; --force replaces it, --resume continues it (results are "
             "never overwritten silently)",
             csv, what[i], i ? " " : "", i ? paths[i] : "");
    return -1;
  }
  if (args->resume && (exists[0] || exists[1]) && !exists[2]) {
    snprintf(err, errlen, "--resume: -o %.400s has no journal %.400s to continue from; --force starts over", csv,
             journal);
    return -1;
  }
  char probe[4200];
  snprintf(probe, sizeof probe, "%s.probeXXXXXX", csv);
  int fd = mkstemp(probe);
  if (fd < 0) {
    snprintf(err, errlen, "-o %s: cannot write there: %s", csv, strerror(errno));
    return -1;
  }
  close(fd);
  unlink(probe);
  return 0;
}

/* A thread of the trial below: waits until every thread of the trial has
 * started, so that they all hold their stacks at once as OpenMP's team will. */
typedef struct trial {
  pthread_mutex_t lock;
  pthread_cond_t go;
  int started_all;
} trial;

static void *trial_thread(void *arg) {
  trial *t = arg;
  pthread_mutex_lock(&t->lock);
  while (!t->started_all) pthread_cond_wait(&t->go, &t->lock);
  pthread_mutex_unlock(&t->lock);
  return NULL;
}

/* Whether `threads` threads can run at once here. libgomp ends the process
 * with a bare "Thread creation failed" when it cannot start its team (a
 * memory limit, ulimit -v, counts every thread's stack): the same threads,
 * with the same default stacks, are started and joined first, so that the
 * limit is told in words before anything runs. 0, or -1 with the message
 * printed. */
static int threads_start(int threads) {
  if (threads <= 1) return 0;
  trial t = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
  pthread_t *ids = malloc(sizeof *ids * (size_t)threads);
  int started = 0, why = ids ? 0 : ENOMEM;
  while (!why && started < threads - 1 && !(why = pthread_create(&ids[started], NULL, trial_thread, &t))) started++;
  pthread_mutex_lock(&t.lock);
  t.started_all = 1;
  pthread_cond_broadcast(&t.go);
  pthread_mutex_unlock(&t.lock);
  for (int i = 0; i < started; i++) pthread_join(ids[i], NULL);
  free(ids);
  if (!why) return 0;
  fprintf(stderr,
          "ofdmsim: error: simulation.threads = %d: only %d threads could start here (%s; under a memory limit "
          "such as ulimit -v every thread's stack counts); lower simulation.threads or raise the limit\n",
          threads, started + 1, strerror(why));
  return -1;
}

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

/* Where path is or would be created: the resolved folder (symbolic links
 * and "..", followed) and the name. 0, or -1 when the folder does not
 * resolve (errno says why). */
static int resolved_path(const char *path, char *out, size_t n) {
  char dir[4096], real[PATH_MAX];
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  if (slash == path) snprintf(dir, sizeof dir, "/");
  else if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  else snprintf(dir, sizeof dir, ".");
  /* an existing file resolves whole (a link to one of the results is that result) */
  if (realpath(path, real)) return snprintf(out, n, "%s", real) >= (int)n ? -1 : 0;
  if (!realpath(dir, real)) return -1;
  return snprintf(out, n, "%s/%s", strcmp(real, "/") ? real : "", name) >= (int)n ? -1 : 0;
}

/* --llr-out: every point has soft outputs, and FILE is a new file (or
 * --force / --resume, which write it again) in a folder that takes one, and
 * none of the config and -o's files, whether they exist yet or not: a fresh
 * run would otherwise write the export over its own results. */
static int check_llr_out(const cli_args *args, const sim_config *cfg, char *err, size_t errlen) {
  const char *path = args->llr_out;
  if (llr_export_check(cfg, err, errlen)) return -1;
  char sidecar[4096] = "", journal[4096] = "", mine[4096], theirs[4096];
  if (resolved_path(path, mine, sizeof mine))
    return snprintf(err, errlen, "--llr-out %s: cannot write there: %s", path, strerror(errno)), -1;
  if (args->output_csv) {
    report_sidecar_path(args->output_csv, sidecar, sizeof sidecar);
    report_journal_path(args->output_csv, journal, sizeof journal);
  }
  const char *taken[] = {args->config_path, args->output_csv, sidecar, journal};
  static const char *const what[] = {"the config file", "the results CSV of -o", "the JSON sidecar of -o",
                                     "the journal of -o"};
  for (size_t i = 0; i < sizeof taken / sizeof *taken; i++)
    if (taken[i] && taken[i][0] && !resolved_path(taken[i], theirs, sizeof theirs) && !strcmp(mine, theirs))
      return snprintf(err, errlen, "--llr-out %s: that is %s (%s); choose another name", path, what[i], taken[i]),
             -1;
  struct stat st;
  if (lstat(path, &st) == 0) {
    if (!S_ISREG(st.st_mode))
      return snprintf(err, errlen, "--llr-out %s: it is %s, expected a regular file", path,
                      S_ISDIR(st.st_mode) ? "a directory" : "not a regular file"), -1;
    if (!args->force && !args->resume)
      return snprintf(err, errlen, "--llr-out %s: the file already exists; --force replaces it", path), -1;
  }
  /* the export is written after the whole sweep: a folder that takes no
   * file must be found now, not after hours of work */
  char probe[4200];
  snprintf(probe, sizeof probe, "%s.probeXXXXXX", path);
  const int fd = mkstemp(probe);
  if (fd < 0) return snprintf(err, errlen, "--llr-out %s: cannot write there: %s", path, strerror(errno)), -1;
  close(fd);
  unlink(probe);
  return 0;
}

/* The LLR export after a finished sweep. 0, or 1 with the message printed. */
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

static int outputs_ok(const cli_args *args, const sim_config *cfg) {
  char err[1024] = "";
  if ((args->output_csv && check_outputs(args, err, sizeof err)) ||
      (args->llr_out && check_llr_out(args, cfg, err, sizeof err))) {
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
  if (threads_start(omp_get_max_threads())) return 1;
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
  su->ro = (run_options){args->output_csv, args->quiet, args->resume, su->command_line, backend, su->device,
                         omp_get_max_threads(), 1, NULL, args->progress_seconds};
  return 0;
}

#ifdef OFDMSIM_HAVE_MPI
/* A rank of `mpirun -np N ofdmsim ...`: every rank reads the config and sets
 * up its backend (the GPU of its node-local rank, or its share of the
 * node's cores); rank 0 alone checks the outputs, prints and writes. */

/* The MPI engine ships per-frame counts between ranks (results/frame_codec.h)
 * that do not carry the coded link's yet: a coded point is refused (2)
 * rather than counted without its blocks. One process, or --shard jobs and
 * `ofdmsim merge`, run it. */
static int mpi_refuses_coded(const sim_config *c, int say) {
  for (size_t i = 0; i < c->n_points; i++) {
    if (!link_coded(&c->points[i].p)) continue;
    if (say)
      fprintf(stderr, "ofdmsim: error: %s: code.type: \"ldpc\" runs in one process (or in --shard jobs and "
                      "`ofdmsim merge`), not under the MPI engine yet (point %zu)\n", c->path, i);
    return 2;
  }
  return 0;
}

static int run_rank(const cli_args *args, int argc, char **argv) {
  mpi_job j;
  if (mpi_job_start(&j, &argc, &argv)) return 1;
  sim_catch_stop_signals(); /* MPI_Init may have taken the signals */
  sim_config cfg;
  memset(&cfg, 0, sizeof cfg);
  int rc = mpi_job_agree(&j, load_config(args, &cfg, j.rank == 0));
  if (!rc) rc = mpi_job_agree(&j, mpi_refuses_coded(&cfg, j.rank == 0));
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
  run_setup su;
  if (!rc) rc = mpi_job_agree(&j, set_up(args, &cfg, threads, j.rank == 0, argc, argv, &su));
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
  sim_config cfg;
  rc = load_config(args, &cfg, 1);
  if (rc) return rc;
  rc = outputs_ok(args, &cfg);
  run_setup su;
  if (!rc) rc = set_up(args, &cfg, cfg.threads, 1, argc, argv, &su);
  if (!rc) rc = sim_run(&cfg, &su.ro);
  if (!rc) rc = export_llrs(args, &cfg, su.ro.backend, cfg.threads);
  sim_config_free(&cfg);
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
