/* `ofdmsim merge`: the command line, the refusals about the output, then
 * read -> merge (results/results_merge.h) -> the CSV and its JSON sidecar, both
 * written to temporary files first and renamed only once both are whole. */
#include "app/merge.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "app/opts.h"
#include "config/json_value.h"
#include "results/json_doc.h"
#include "results/report.h"
#include "results/results.h"
#include "results/results_merge.h"

#define PROG "ofdmsim merge"

enum { OPT_FORCE = OPT_LONG_ONLY, OPT_POOL_SEEDS };

static const opt_spec merge_options[] = {
    {"output", 'o', required_argument, "OUT.csv"},
    {"force", OPT_FORCE, no_argument, NULL},
    {"pool-seeds", OPT_POOL_SEEDS, no_argument, NULL},
    OPT_HELP_AND_END,
};

static void print_help(void) {
  printf("usage: ofdmsim merge A.csv B.csv [MORE.csv ...] -o OUT.csv [--force] [--pool-seeds]\n"
         "\n"
         "Adds up result files (ofdmsim -o) of disjoint parts into the file one run over\n"
         "everything would have written: different points (the shards of a sweep, runs\n"
         "over different SNR lists) or different frame ranges of the same point (runs with\n"
         "another simulation.first_frame). Rows are matched by point_key.\n"
         "\n"
         "  - the inputs must have the same header and the same simulation.seed (results\n"
         "    of other seeds are independent estimates: ofdmsim compare them);\n"
         "  - the rows of one point must cover frame ranges [first_frame, first_frame +\n"
         "    frames) that tile one range, without overlap (an interrupted point is a\n"
         "    prefix of its re-run: keep one of them) and without a gap; their stopping\n"
         "    rules may differ. A skipped row (bits = 0) adds nothing.\n"
         "  - a merged row has the parts' counts summed (bits, bit_errors,\n"
         "    stream_bit_errors, frames, inversions, fallbacks, frame_errors_sq, units,\n"
         "    seconds), the smallest first_frame, ber and the 95%% interval computed\n"
         "    again, the throughputs of the whole, the backends joined by '+' where they\n"
         "    differ, and the other cells (stop, simulation.max_bits, ...) of the part\n"
         "    with the highest frames. Rows are sorted by `point`, then input order.\n"
         "\n"
         "  -o, --output OUT.csv  the merged CSV, with a JSON sidecar beside it (OUT.json)\n"
         "                        listing the inputs and their own sidecars\n"
         "  --force               replace an existing OUT.csv / OUT.json (never an input)\n"
         "  --pool-seeds          also add up runs that differ only in simulation.seed\n"
         "                        (independent draws): the rows of a point under every seed\n"
         "                        are summed (each seed's frame ranges must tile), the\n"
         "                        interval computed again; a pooled row has simulation.seed\n"
         "                        and stream_key empty and a point_key of its own, and the\n"
         "                        sidecar lists the seeds (pooled_seeds)\n"
         "  -h, --help            this text\n"
         "\n"
         "Exit status: 0 written; 1 a write failed (nothing replaced); 2 usage error or\n"
         "bad input (nothing written).\n");
}

typedef struct merge_args {
  char **files;
  size_t n_files;
  const char *output;
  int force, help, pool_seeds;
} merge_args;

static void on_option(opt_parser *p, int key, const char *v, void *ctx) {
  merge_args *a = ctx;
  switch (key) {
  case OPT_ARG: a->files[a->n_files++] = (char *)v; break;
  case 'o': opt_set_once(p, &a->output, v); break;
  case OPT_FORCE: a->force = 1; break;
  case OPT_POOL_SEEDS: a->pool_seeds = 1; break;
  case 'h': a->help = 1; break;
  }
}

/* Are two paths one file? (Only an existing one can be.) */
static int same_file(const char *x, const char *y) {
  struct stat a, b;
  return !stat(x, &a) && !stat(y, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int exists(const char *path) {
  struct stat s;
  return !lstat(path, &s);
}

/* The refusals about OUT and its sidecar: 0, or 2 with the message. */
static int check_output(const merge_args *a, const char *sidecar, char *err, size_t errlen) {
  const char *outs[2] = {a->output, sidecar};
  for (size_t i = 0; i < a->n_files; i++) {
    char in_sidecar[4096];
    report_sidecar_path(a->files[i], in_sidecar, sizeof in_sidecar);
    for (int k = 0; k < 2; k++)
      if (same_file(outs[k], a->files[i]) || same_file(outs[k], in_sidecar)) {
        snprintf(err, errlen, "-o %s: expected a new file, got %s, which is %s%s (an input is never replaced, even with --force)",
                 a->output, outs[k], same_file(outs[k], a->files[i]) ? "the input " : "the sidecar of the input ",
                 a->files[i]);
        return 2;
      }
  }
  for (int k = 0; k < 2 && !a->force; k++)
    if (exists(outs[k])) {
      snprintf(err, errlen, "%s exists: expected a new file (--force replaces it)", outs[k]);
      return 2;
    }
  return 0;
}

/* The sidecar: provenance of the merge and of each input (its own sidecar
 * when it has one). NULL with err when an input's sidecar is not JSON. */
static json_t *sidecar_json(const merge_args *a, const result_table *in, const result_table *out,
                            const uint64_t *seeds, size_t n_seeds, const char *command, char *err, size_t errlen) {
  json_t *from = json_array();
  for (size_t i = 0; from && i < a->n_files; i++) {
    char path[4096];
    report_sidecar_path(a->files[i], path, sizeof path);
    json_t *side = json_null();
    if (exists(path)) {
      json_error_t je;
      json_decref(side);
      side = json_load_file(path, JSON_DECODE_ANY, &je);
      if (!side || !json_is_object(side)) {
        snprintf(err, errlen, "%s:%d: expected the JSON sidecar of %s, got %s", path, side ? 1 : je.line,
                 a->files[i], side ? "a JSON value that is no object" : je.text);
        json_decref(side);
        json_decref(from);
        return NULL;
      }
    }
    json_t *entry = json_pack("{s:o, s:I, s:o}", "path", sim_json_string(a->files[i]), "rows",
                              (json_int_t)in[i].n_rows, "sidecar", side);
    if (!entry || json_array_append_new(from, entry)) {
      json_decref(from);
      from = NULL;
    }
  }
  json_t *j = from ? json_doc_new("merge", command, NULL) : NULL;
  json_t *own = j ? json_pack("{s:o, s:I, s:o}", "output", sim_json_string(a->output), "rows",
                              (json_int_t)out->n_rows, "merged_from", from)
                  : (json_decref(from), NULL);
  if (own && a->pool_seeds) {
    json_t *list = json_array();
    for (size_t i = 0; list && i < n_seeds; i++)
      if (json_array_append_new(list, json_integer((json_int_t)seeds[i]))) {
        json_decref(list);
        list = NULL;
      }
    if (!list || json_object_set_new(own, "pooled_seeds", list)) {
      json_decref(own);
      own = NULL;
    }
  }
  if (!j || !own || json_object_update(j, own)) {
    json_decref(j);
    j = NULL;
  }
  json_decref(own);
  if (!j) snprintf(err, errlen, "out of memory");
  return j;
}

/* Both files to temporaries, then both renamed: 0, or 1 with the message
 * (nothing replaced). */
static int write_outputs(const char *csv, const char *sidecar, const result_table *t, json_t *side,
                         char *err, size_t errlen) {
  results_file wc, wj;
  const char *failed = csv;
  if (results_file_open(&wc, csv)) goto fail_none;
  failed = sidecar;
  if (results_file_open(&wj, sidecar)) goto fail_csv;
  failed = csv;
  if (results_write_csv(wc.f, t) || results_file_close(&wc)) goto fail_both;
  failed = sidecar;
  if (json_doc_emit(wj.f, side) || results_file_close(&wj)) goto fail_both;
  failed = csv;
  if (results_file_rename(&wc)) goto fail_both;
  failed = sidecar;
  if (results_file_rename(&wj)) goto fail_both;
  return 0;
fail_both:;
  const int e = errno;
  results_file_abort(&wj);
  errno = e;
fail_csv:;
  const int e2 = errno;
  results_file_abort(&wc);
  errno = e2;
fail_none:
  snprintf(err, errlen, "cannot write %s: %s", failed, strerror(errno));
  return 1;
}

int merge_main(int argc, char **argv) {
  merge_args a = {0};
  char err[16384];
  a.files = calloc((size_t)argc + 1, sizeof *a.files);
  if (!a.files) return 1;
  int rc = opt_parse(merge_options, argc, argv, on_option, &a, err, sizeof err);
  if (a.help) {
    print_help();
    free(a.files);
    return 0;
  }
  if (!rc && a.n_files < 2) {
    snprintf(err, sizeof err, "expected at least two CSV files to merge, got %zu", a.n_files);
    rc = 2;
  }
  if (!rc && !a.output) {
    snprintf(err, sizeof err, "no output given (ofdmsim merge A.csv B.csv ... -o OUT.csv)");
    rc = 2;
  }
  char sidecar[4096];
  if (!rc) {
    report_sidecar_path(a.output, sidecar, sizeof sidecar);
    rc = check_output(&a, sidecar, err, sizeof err);
  }
  if (rc) {
    opt_print_error(PROG, err);
    free(a.files);
    return 2;
  }
  /* a merge stopped by Ctrl-C or SIGTERM leaves no temporary file behind */
  results_file_remove_on_signals();
  result_table *in = calloc(a.n_files, sizeof *in), out = {0};
  json_t *side = NULL;
  uint64_t *seeds = NULL;
  size_t n_seeds = 0;
  rc = 2;
  if (!in) goto done;
  for (size_t i = 0; i < a.n_files; i++)
    if (result_table_read(&in[i], a.files[i], err, sizeof err)) goto report;
  if (results_merge_pooled(in, a.n_files, a.pool_seeds, &out, &seeds, &n_seeds, err, sizeof err)) goto report;
  char command[8192];
  opt_join_args(PROG, argc, argv, command, sizeof command); /* for the sidecar */
  if (!(side = sidecar_json(&a, in, &out, seeds, n_seeds, command, err, sizeof err))) goto report;
  rc = write_outputs(a.output, sidecar, &out, side, err, sizeof err);
  if (!rc) {
    size_t n_in = 0;
    for (size_t i = 0; i < a.n_files; i++) n_in += in[i].n_rows;
    printf("%s: %zu rows from %zu rows of %zu files (sidecar %s)\n", a.output, out.n_rows, n_in, a.n_files,
           sidecar);
    goto done;
  }
report:
  opt_print_error(PROG, err);
done:
  json_decref(side);
  free(seeds);
  for (size_t i = 0; in && i < a.n_files; i++) result_table_free(&in[i]);
  free(in);
  result_table_free(&out);
  free(a.files);
  return rc;
}
