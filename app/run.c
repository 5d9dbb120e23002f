/* The simulation run: config, output check, backend, report header, sim_run. */
#include "app/run.h"

#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/backends.h"
#include "sim/config.h"
#include "sim/driver.h"
#include "sim/report.h"
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

/* The result file's folder must take a file before any work starts. */
static int check_writable(const char *csv_path, int force, char *err, size_t errlen) {
  struct stat st;
  if (stat(csv_path, &st) == 0 && !S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "-o %s: expected a file name, got %s", csv_path,
             S_ISDIR(st.st_mode) ? "a directory" : "something that is not a regular file");
    return -1;
  }
  /* Results are never replaced silently: the CSV, or the sidecar next to it. */
  char sidecar[4096];
  report_sidecar_path(csv_path, sidecar, sizeof sidecar);
  const char *existing = stat(csv_path, &st) == 0    ? "the file"
                         : stat(sidecar, &st) == 0 ? "its JSON sidecar (.json)"
                                                   : NULL;
  if (existing && !force) {
    snprintf(err, errlen,
             "-o %s: %s already exists; --force replaces it (results are never overwritten "
             "silently)",
             csv_path, existing);
    return -1;
  }
  char probe[4096];
  snprintf(probe, sizeof probe, "%s.probe%ld", csv_path, (long)getpid());
  int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    snprintf(err, errlen, "-o %s: cannot write there: %s", csv_path, strerror(errno));
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
  if (args->output_csv && check_writable(args->output_csv, args->force, err, sizeof err)) {
    fprintf(stderr, "ofdmsim: error: %s\n", err);
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
  run_options ro = {args->output_csv, args->quiet, command_line, backend, device, omp_get_max_threads()};
  return sim_run(cfg, &ro);
}

int run_main(const cli_args *args, int argc, char **argv) {
  char err[1024] = "";
  sim_config cfg;
  if (sim_config_load(&cfg, args->config_path, args->overrides, args->n_overrides, err, sizeof err)) {
    fprintf(stderr, "ofdmsim: error: %s\n", err);
    return 2;
  }
  const int rc = run_config(args, &cfg, argc, argv);
  sim_config_free(&cfg);
  return rc;
}
