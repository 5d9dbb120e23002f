/* A sweep through the library (ofdmsim.h): the checks, the backend, the
 * header, the engine (sim/driver.h) and the LLR export, in the order the
 * command line has always taken them; the command line's `ofdmsim CONFIG`
 * is this with table = 1. */
#include <errno.h>
#include <stdarg.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "api/run_checks.h"
#include "config/config_format.h"
#include "results/report.h"
#include "sim/backends.h"
#include "sim/driver.h"
#include "sim/llr_export.h"
#include "sim/messages.h"
#include "sim/slow_paths.h"

/* The caller's callback, seen through the engine's. */
typedef struct progress_hook {
  const ofdmsim_run_options *o;
  size_t points;
} progress_hook;

static int on_progress(void *ctx, size_t i, size_t done, const tally *n) {
  const progress_hook *h = ctx;
  const ofdmsim_progress p = {i, h->points, done, n->frames, n->bits, n->bit_errors, n->seconds};
  return h->o->progress(h->o->progress_ctx, &p);
}

/* A failure of the run: the message kept and, for a run that speaks as the
 * command line (library = 0), printed as it always was. */
static ofdmsim_status fail(const ofdmsim_run_options *o, ofdmsim_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static ofdmsim_status fail(const ofdmsim_run_options *o, ofdmsim_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  api_vfail(status, fmt, ap);
  va_end(ap);
  if (!o->library) fprintf(stderr, "ofdmsim: error: %s\n", ofdmsim_last_error());
  return status;
}

/* The message of a check, escaped as the command line prints user text. */
static ofdmsim_status fail_escaped(const ofdmsim_run_options *o, ofdmsim_status status, const char *err) {
  char safe[2048];
  return fail(o, status, "%s", cfg_escape(err, safe, sizeof safe));
}

static ofdmsim_status check_outputs(const sim_config *c, const ofdmsim_run_options *o) {
  char err[1024] = "";
  if ((o->output && run_check_outputs(o->output, c->path, o->force, o->resume, err, sizeof err)) ||
      (o->llr_out && run_check_llr_out(o->llr_out, o->output, c, o->force, o->resume, err, sizeof err)))
    return fail_escaped(o, OFDMSIM_ERR_CONFIG, err);
  return OFDMSIM_OK;
}

/* The header the command line prints before the table. */
static void print_header(const sim_config *c, const char *backend, const char *command_line) {
  char desc[64];
  if (!strcmp(backend, "cpu")) snprintf(desc, sizeof desc, "cpu (%d threads)", omp_get_max_threads());
  else snprintf(desc, sizeof desc, "%s", backend);
  report_header(stdout, c, desc, command_line);
  sim_config_print_notes(c, stdout, "# note: ");
  slow_paths_note(c, backend, omp_get_max_threads(), stdout, "# note: ");
}

/* Points the run has results for: the finished ones and a partial one,
 * in sweep order. */
static size_t points_with_results(const point_result *r, size_t n) {
  size_t k = 0;
  while (k < n && r[k].stop && strcmp(r[k].stop, "running")) k++;
  return k;
}

/* The run's rows as a results object, written and read back by the CSV's
 * own writer and reader, so its cells are the file's. */
static ofdmsim_status collect(const sim_config *c, const point_result *r, size_t n, ofdmsim_results **out) {
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/ofdmsim-results-XXXXXX", dir && *dir ? dir : "/tmp");
  const int fd = mkstemp(path);
  if (fd < 0) return api_fail(OFDMSIM_ERR_RUNTIME, "cannot write %s: %s", path, strerror(errno));
  close(fd);
  ofdmsim_status rc = OFDMSIM_OK;
  if (report_write_csv(path, c, r, n)) rc = api_fail(OFDMSIM_ERR_RUNTIME, "cannot write %s: %s", path, strerror(errno));
  else rc = api_results_from_csv(out, path);
  unlink(path);
  return rc;
}

ofdmsim_status ofdmsim_run(const ofdmsim_config *cfg, const ofdmsim_run_options *opt, ofdmsim_results **results) {
  static const ofdmsim_run_options defaults = {0};
  const ofdmsim_run_options *o = opt ? opt : &defaults;
  if (results) *results = NULL;
  sim_errors_reset(o->library);
  if (!cfg) return api_fail(OFDMSIM_ERR_CONFIG, "ofdmsim_run: no config");
  const sim_config *c = &cfg->c;
  if (!o->library) sim_catch_stop_signals();
  ofdmsim_status rc = check_outputs(c, o);
  if (rc) return rc;

  char err[1024] = "";
  if (c->threads > 0) omp_set_num_threads(c->threads);
  if (run_check_threads(omp_get_max_threads(), err, sizeof err)) return fail(o, OFDMSIM_ERR_RUNTIME, "%s", err);
  const char *asked = o->backend ? o->backend : c->backend;
  const char *backend = backends_resolve(asked, err, sizeof err);
  if (!backend) return fail(o, OFDMSIM_ERR_RUNTIME, "simulation.backend = \"%s\": %s", asked, err);
  const char *command_line = o->command_line ? o->command_line : "libofdmsim";
  if (o->table) print_header(c, backend, command_line);
  char device[512];
  backends_describe(backend, device, sizeof device);

  point_result *kept = calloc(c->n_points ? c->n_points : 1, sizeof *kept);
  if (!kept) return fail(o, OFDMSIM_ERR_RUNTIME, "out of memory");
  progress_hook hook = {o, c->n_points};
  run_options ro = {.csv_path = o->output,
                    .quiet = o->quiet,
                    .resume = o->resume,
                    .command_line = command_line,
                    .backend = backend,
                    .device = device,
                    .threads = omp_get_max_threads(),
                    .ranks = 1,
                    .progress_seconds = o->progress_seconds,
                    .no_table = !o->table,
                    .library = o->library,
                    .results_out = kept};
  if (o->progress) ro.on_progress = on_progress, ro.progress_ctx = &hook;
  const int ran = sim_run(c, &ro);
  rc = (ofdmsim_status)ran;
  /* the engine's own message, printed by it unless the caller is a library */
  if (ran == 1 || ran == 2) rc = api_fail((ofdmsim_status)ran, "%s", sim_last_error());

  if (!rc && o->llr_out) {
    if (!o->quiet) fprintf(stderr, "ofdmsim: writing the LLRs of %zu points to %s\n", c->n_points, o->llr_out);
    if (llr_export_write(c, backend, c->threads, o->llr_out, o->llr_frames ? o->llr_frames : 1, err, sizeof err)) {
      char safe[2048];
      rc = fail(o, OFDMSIM_ERR_RUNTIME, "--llr-out %s", cfg_escape(err, safe, sizeof safe));
    }
  }
  const size_t n = points_with_results(kept, c->n_points);
  if (rc == OFDMSIM_CANCELLED || rc == OFDMSIM_TERMINATED)
    api_fail(rc, "interrupted: %zu of %zu points kept%s", n, c->n_points,
             n && !strcmp(kept[n - 1].stop, "interrupted") ? " (the last one partial)" : "");
  if (results && (rc == OFDMSIM_OK || rc == OFDMSIM_CANCELLED || rc == OFDMSIM_TERMINATED)) {
    const ofdmsim_status got = collect(c, kept, n, results);
    if (got && rc == OFDMSIM_OK) rc = got;
  }
  free(kept);
  return rc;
}
