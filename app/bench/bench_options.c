/* The command line of `ofdmsim bench`, with the conventions of app/opts.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench/bench_internal.h"
#include "app/opts.h"
#include "equalizer/smallmat.h"

enum {
  OPT_SIZES = OPT_LONG_ONLY,
  OPT_MATRICES,
  OPT_REPS,
  OPT_JSON,
  OPT_SEED,
  OPT_PIPELINE_SECONDS,
  OPT_CPU_ONLY,
  OPT_NO_PIPELINE,
  OPT_SMALL,
};

static const opt_spec bench_options[] = {
    {"sizes", OPT_SIZES, required_argument, "LIST"},
    {"matrices", OPT_MATRICES, required_argument, "N"},
    {"reps", OPT_REPS, required_argument, "N"},
    {"json", OPT_JSON, required_argument, "PATH"},
    {"seed", OPT_SEED, required_argument, "N"},
    {"pipeline-seconds", OPT_PIPELINE_SECONDS, required_argument, "S"},
    {"cpu-only", OPT_CPU_ONLY, no_argument, NULL},
    {"no-pipeline", OPT_NO_PIPELINE, no_argument, NULL},
    {"small", OPT_SMALL, no_argument, NULL},
    OPT_HELP_AND_END,
};

void bench_print_usage(void) {
  printf("usage: ofdmsim bench [options]\n"
         "  --sizes LIST      matrix orders to invert, 1..8 (default 2,3,4,8)\n"
         "  --matrices N      matrices per stack (default: 4x the GPU's L2 and at least\n"
         "                    1 GiB moved, at least 2^22; CPU stacks capped at 512 MiB)\n"
         "  --reps N          timed repetitions, median reported (default 10)\n"
         "  --json PATH       write every figure there (default bench.json)\n"
         "  --seed N          seed of the random matrices (default 1)\n"
         "  --pipeline-seconds S  time per pipeline configuration (default 2)\n"
         "  --cpu-only        no GPU figures\n"
         "  --no-pipeline     inversion figures only\n"
         "  --small           tiny sizes (sanitizer runs, smoke tests)\n");
}

static int parse_size_t(const char *s, size_t *out) {
  char *end = NULL;
  errno = 0;
  const double v = strtod(s, &end); /* takes 4194304 and 4.2e6 alike */
  if (errno || end == s || *end || !(v >= 1) || v > 1e15 || v != floor(v)) return -1;
  *out = (size_t)v;
  return 0;
}

static int parse_sizes(const char *s, bench_opts *o) {
  o->n_sizes = 0;
  const char *p = s;
  while (*p) {
    char *end = NULL;
    const long n = strtol(p, &end, 10);
    if (end == p || n < 1 || n > MAT_MAX_N || o->n_sizes == BENCH_MAX_SIZES) return -1;
    o->sizes[o->n_sizes++] = (int)n;
    if (*end == ',') end++;
    else if (*end) return -1;
    p = end;
  }
  return o->n_sizes ? 0 : -1;
}

static void set_defaults(bench_opts *o) {
  memset(o, 0, sizeof *o);
  o->sizes[0] = 2, o->sizes[1] = 3, o->sizes[2] = 4, o->sizes[3] = 8;
  o->n_sizes = 4;
  o->reps = 10;
  o->json_path = "bench.json";
  o->seed = 1;
  o->pipeline_seconds = 2.0;
}

/* One option's value into o; a bad value is a usage error in p. */
static void take_value(opt_parser *p, int key, const char *v, bench_opts *o) {
  size_t z = 0;
  char *end = NULL;
  switch (key) {
  case OPT_SIZES:
    if (parse_sizes(v, o))
      opt_fail(p, "%s %s: want a list of orders 1..%d, e.g. 2,4", opt_name(p), v, MAT_MAX_N);
    break;
  case OPT_MATRICES:
    if (parse_size_t(v, &o->matrices) || o->matrices < 2)
      opt_fail(p, "%s %s: want an integer >= 2", opt_name(p), v);
    break;
  case OPT_REPS:
    if (parse_size_t(v, &z) || z > 100000) opt_fail(p, "%s %s: want an integer 1..100000", opt_name(p), v);
    o->reps = (int)z;
    break;
  case OPT_JSON: o->json_path = v; break;
  case OPT_SEED:
    if (parse_size_t(v, &z)) opt_fail(p, "%s %s: want a positive integer", opt_name(p), v);
    o->seed = (uint64_t)z;
    break;
  case OPT_PIPELINE_SECONDS:
    o->pipeline_seconds = strtod(v, &end);
    if (end == v || *end || !(o->pipeline_seconds > 0) || o->pipeline_seconds > 3600)
      opt_fail(p, "%s %s: want 0 < S <= 3600", opt_name(p), v);
    break;
  }
}

typedef struct bench_parse_state {
  bench_opts *o;
  int help, reps_given;
} bench_parse_state;

static void on_bench_option(opt_parser *p, int key, const char *v, void *ctx) {
  bench_parse_state *b = ctx;
  switch (key) {
  case OPT_ARG: opt_fail(p, "unexpected argument '%s' (ofdmsim bench takes options only)", v); break;
  case OPT_CPU_ONLY: b->o->cpu_only = 1; break;
  case OPT_NO_PIPELINE: b->o->no_pipeline = 1; break;
  case OPT_SMALL: b->o->small = 1; break;
  case 'h': b->help = 1; break;
  default:
    b->reps_given |= key == OPT_REPS;
    take_value(p, key, v, b->o);
    break;
  }
}

int bench_parse(int argc, char **argv, bench_opts *o, char *err, size_t errlen) {
  set_defaults(o);
  bench_parse_state b = {o, 0, 0};
  const int rc = opt_parse(bench_options, argc, argv, on_bench_option, &b, err, errlen);
  if (b.help) return BENCH_HELP;
  if (rc) return rc;
  if (o->small) {
    if (!b.reps_given) o->reps = 3;
    if (!o->matrices) o->matrices = 4096;
    o->pipeline_seconds = 0.0; /* one timed batch */
  }
  return 0;
}
