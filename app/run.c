/* The simulation run: config, output check, backend, report header, sim_run. */
#include "app/run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/backends.h"
#include "sim/config.h"
#include "sim/config_format.h"
#include "sim/driver.h"
#include "sim/report.h"
#include "sim/shard.h"
#ifdef OFDMSIM_HAVE_CUDA
#include "cuda/gpu.h"
#endif

static void join_args(int argc, char **argv, char *out, size_t n) {
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < argc && used + 1 < n; i++) {
    int w = snprintf(out + used, n - used, "%s%s", i ? " " : "", argv[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

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
             "-o %s: %s already exists%s%s; --force replaces it, --resume continues it (results are never "
             "overwritten silently)",
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

/* What runs the simulation, for the results' provenance: the CPU model and
 * thread count, or the GPU with its driver and runtime versions. */
static void describe_device(const char *backend, int threads, char *out, size_t n) {
  snprintf(out, n, "%s", backend);
#ifdef OFDMSIM_HAVE_CUDA
  if (!strcmp(backend, "cuda")) {
    gpu_info g;
    char why[256];
    if (gpu_query(0, &g, why, sizeof why) == 0)
      snprintf(out, n, "%s (compute %d.%d, %d SMs), driver %d, runtime %d", g.name, g.cc_major,
               g.cc_minor, g.sm_count, g.driver_version, g.runtime_version);
    return;
  }
#endif
  char line[512], model[256] = "unknown CPU";
  FILE *f = fopen("/proc/cpuinfo", "r");
  while (f && fgets(line, sizeof line, f)) {
    const char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) || !colon) continue;
    snprintf(model, sizeof model, "%s", colon + 2);
    model[strcspn(model, "\n")] = '\0';
    break;
  }
  if (f) fclose(f);
  snprintf(out, n, "%s, %d threads", model, threads);
}

static int run_config(const cli_args *args, sim_config *cfg, int argc, char **argv) {
  char err[1024] = "";
  if (args->output_csv && check_outputs(args, err, sizeof err)) {
    char safe[2048]; /* the paths are the user's text */
    fprintf(stderr, "ofdmsim: error: %s\n", cfg_escape(err, safe, sizeof safe));
    return 2;
  }
  if (cfg->threads > 0) omp_set_num_threads(cfg->threads);

  char why[256] = "";
  const char *backend = backends_resolve(cfg->backend, why, sizeof why);
  if (!backend) {
    fprintf(stderr, "ofdmsim: error: simulation.backend = \"%s\": %s\n", cfg->backend, why);
    return 1;
  }
  char command_line[4096];
  join_args(argc, argv, command_line, sizeof command_line);
  char backend_desc[64];
  if (!strcmp(backend, "cpu"))
    snprintf(backend_desc, sizeof backend_desc, "cpu (%d threads)", omp_get_max_threads());
  else
    snprintf(backend_desc, sizeof backend_desc, "%s", backend);
  report_header(stdout, cfg, backend_desc, command_line);

  char device[512];
  describe_device(backend, omp_get_max_threads(), device, sizeof device);
  run_options ro = {args->output_csv, args->quiet, args->resume, command_line, backend, device,
                    omp_get_max_threads(), 1, NULL};
  return sim_run(cfg, &ro);
}

int run_main(const cli_args *args, int argc, char **argv) {
  sim_catch_stop_signals();
  char err[1024] = "";
  sim_config cfg;
  if (sim_config_load(&cfg, args->config_path, args->overrides, args->n_overrides, err, sizeof err)) {
    char safe[2048];
    fprintf(stderr, "ofdmsim: error: %s\n", cfg_escape(err, safe, sizeof safe));
    return 2;
  }
  if (args->shards && sim_config_shard(&cfg, args->shard, args->shards)) {
    fprintf(stderr, "ofdmsim: error: out of memory\n");
    sim_config_free(&cfg);
    return 1;
  }
  int rc = run_config(args, &cfg, argc, argv);
  sim_config_free(&cfg);
  /* The table on stdout is a result too: a full disk or a closed pipe is an error. */
  if (fflush(stdout) || ferror(stdout)) {
    fprintf(stderr, "ofdmsim: error: cannot write the results to standard output: %s\n", strerror(errno));
    if (rc == 0) rc = 1;
  }
  return rc;
}
