/* ofdmsim: the command line. Exit codes: 0 success, 1 runtime error,
 * 2 usage or config error (nothing written), 130 / 143 stopped by SIGINT /
 * SIGTERM (what was computed is saved). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/bench.h"
#include "app/cli.h"
#include "sim/backends.h"
#include "sim/config.h"
#include "sim/driver.h"
#include "sim/report.h"
#include "version.h"

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
static int check_writable(const char *csv_path, char *err, size_t errlen) {
  struct stat st;
  if (stat(csv_path, &st) == 0 && !S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "-o %s: expected a file name, got %s", csv_path,
             S_ISDIR(st.st_mode) ? "a directory" : "something that is not a regular file");
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

int main(int argc, char **argv) {
  char err[1024] = "";
  cli_args args;
  if (cli_parse(argc, argv, &args, err, sizeof err)) {
    fprintf(stderr, "ofdmsim: error: %s\n(see ofdmsim --help)\n", err);
    return 2;
  }
  if (args.command == CLI_HELP) {
    cli_print_help(stdout);
    cli_free(&args);
    return 0;
  }
  if (args.command == CLI_VERSION) {
    printf("ofdmsim %s\n", OFDMSIM_VERSION);
    cli_free(&args);
    return 0;
  }
  if (args.command == CLI_BENCH) {
    const int rc = bench_main(args.bench_argc, args.bench_argv);
    cli_free(&args);
    return rc;
  }

  sim_config cfg;
  if (sim_config_load(&cfg, args.config_path, args.overrides, args.n_overrides, err, sizeof err)) {
    fprintf(stderr, "ofdmsim: error: %s\n", err);
    cli_free(&args);
    return 2;
  }
  if (args.output_csv && check_writable(args.output_csv, err, sizeof err)) {
    fprintf(stderr, "ofdmsim: error: %s\n", err);
    sim_config_free(&cfg);
    cli_free(&args);
    return 2;
  }
  if (cfg.threads > 0) omp_set_num_threads(cfg.threads);

  char why[256] = "";
  const char *backend = backends_resolve(cfg.backend, why, sizeof why);
  if (!backend) {
    fprintf(stderr, "ofdmsim: error: simulation.backend = \"%s\": %s\n", cfg.backend, why);
    sim_config_free(&cfg);
    cli_free(&args);
    return 1;
  }
  char command_line[4096];
  join_args(argc, argv, command_line, sizeof command_line);
  char backend_desc[64];
  if (!strcmp(backend, "cpu"))
    snprintf(backend_desc, sizeof backend_desc, "cpu (%d threads)", omp_get_max_threads());
  else
    snprintf(backend_desc, sizeof backend_desc, "%s", backend);
  report_header(stdout, &cfg, backend_desc, command_line);

  run_options ro = {args.output_csv, args.quiet, command_line, backend};
  const int rc = sim_run(&cfg, &ro);
  sim_config_free(&cfg);
  cli_free(&args);
  return rc;
}
