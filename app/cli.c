/* Command-line parsing and --help of a simulation run. */
#include "app/cli.h"

#include <stdlib.h>
#include <string.h>

#include "app/opts.h"
#include "config/config.h"

#define USAGE                                                                                        \
  "usage: ofdmsim CONFIG.cfg [--set KEY=VALUE]... [-o results.csv [--force | --resume]] [--shard I/N] " \
  "[--llr-out FILE [--llr-frames N]] [-q]"

enum { OPT_SET = OPT_LONG_ONLY, OPT_FORCE, OPT_RESUME, OPT_SHARD, OPT_LLR_OUT, OPT_LLR_FRAMES };

static const opt_spec run_options[] = {
    {"set", OPT_SET, required_argument, "KEY=VALUE"},
    {"output", 'o', required_argument, "results.csv"},
    {"force", OPT_FORCE, no_argument, NULL},
    {"resume", OPT_RESUME, no_argument, NULL},
    {"shard", OPT_SHARD, required_argument, "I/N"},
    {"llr-out", OPT_LLR_OUT, required_argument, "FILE"},
    {"llr-frames", OPT_LLR_FRAMES, required_argument, "N"},
    {"quiet", 'q', no_argument, NULL},
    {"help", 'h', no_argument, NULL},
    {"version", 'V', no_argument, NULL},
    {NULL, 0, 0, NULL},
};

static void add_override(opt_parser *p, cli_args *out, const char *kv) {
  const char *eq = strchr(kv, '=');
  if (!eq) {
    opt_fail(p, "--set %s: expected KEY=VALUE, got '%s' (no '=')", kv, kv);
    return;
  }
  if (eq == kv) {
    opt_fail(p, "--set %s: expected KEY=VALUE, got '%s' (no KEY)", kv, kv);
    return;
  }
  const char **grown = realloc(out->overrides, sizeof *grown * (size_t)(out->n_overrides + 1));
  if (!grown) {
    opt_fail(p, "--set %s: out of memory", kv);
    return;
  }
  out->overrides = grown;
  out->overrides[out->n_overrides++] = kv;
}

/* --shard I/N: 1 <= I <= N <= 2^20. */
static void set_shard(opt_parser *p, cli_args *out, const char *v) {
  unsigned long i = 0, n = 0;
  char *slash = NULL, *end = NULL;
  int ok = *v >= '1' && *v <= '9';
  if (ok) i = strtoul(v, &slash, 10);
  ok = ok && *slash == '/' && slash[1] >= '1' && slash[1] <= '9';
  if (ok) n = strtoul(slash + 1, &end, 10);
  ok = ok && !*end && i <= n && n <= (1ul << 20);
  if (out->shards) opt_fail(p, "option --shard given twice (first %u/%u)", out->shard, out->shards);
  else if (!ok)
    opt_fail(p, "--shard %s: expected I/N with 1 <= I <= N <= 1048576 (this job's share: shard I of N), got '%s'", v, v);
  else {
    out->shard = (unsigned)i;
    out->shards = (unsigned)n;
  }
}

/* --llr-frames N: 1 <= N <= 2^20. */
static void set_llr_frames(opt_parser *p, cli_args *out, const char *v) {
  char *end = NULL;
  const unsigned long n = *v >= '1' && *v <= '9' ? strtoul(v, &end, 10) : 0;
  if (out->llr_frames) opt_fail(p, "option --llr-frames given twice (first %lu)", out->llr_frames);
  else if (!n || *end || n > (1ul << 20))
    opt_fail(p, "--llr-frames %s: expected an integer in [1, 1048576] (frames exported per point), got '%s'", v, v);
  else out->llr_frames = n;
}

static void set_config(opt_parser *p, cli_args *out, const char *path) {
  if (out->config_path)
    opt_fail(p, "two config files given: '%s' and '%s' (one run, one config; use a sweep for several)",
             out->config_path, path);
  else
    out->config_path = path;
}

typedef struct run_parse {
  cli_args *out;
  cli_command asked; /* CLI_HELP or CLI_VERSION: the first of them wins */
} run_parse;

static void on_run_option(opt_parser *p, int key, const char *v, void *ctx) {
  run_parse *r = ctx;
  cli_args *out = r->out;
  switch (key) {
  case OPT_ARG: set_config(p, out, v); break;
  case OPT_SET: add_override(p, out, v); break;
  case 'o':
    if (!*v) opt_fail_value(p);
    else if (out->output_csv) opt_fail(p, "option %s given twice (first '%s')", opt_name(p), out->output_csv);
    else out->output_csv = v;
    break;
  case 'q': out->quiet = 1; break;
  case OPT_FORCE: out->force = 1; break;
  case OPT_RESUME: out->resume = 1; break;
  case OPT_SHARD: set_shard(p, out, v); break;
  case OPT_LLR_OUT:
    if (!*v) opt_fail_value(p);
    else if (out->llr_out) opt_fail(p, "option %s given twice (first '%s')", opt_name(p), out->llr_out);
    else out->llr_out = v;
    break;
  case OPT_LLR_FRAMES: set_llr_frames(p, out, v); break;
  case 'h': if (r->asked == CLI_RUN) r->asked = CLI_HELP; break;
  case 'V': if (r->asked == CLI_RUN) r->asked = CLI_VERSION; break;
  }
}

int cli_parse(int argc, char **argv, cli_args *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (err && errlen) err[0] = '\0';
  if (argc >= 2 && (out->sub = app_command_find(argv[1]))) {
    out->command = CLI_COMMAND;
    out->sub_argc = argc - 1;
    out->sub_argv = argv + 1;
    return 0;
  }
  run_parse r = {out, CLI_RUN};
  int rc = opt_parse(run_options, argc, argv, on_run_option, &r, err, errlen);
  if (r.asked != CLI_RUN) { /* --help and --version answer whatever else the line holds */
    cli_free(out);
    *out = (cli_args){.command = r.asked};
    if (err && errlen) err[0] = '\0';
    return 0;
  }
  if (!rc && !out->config_path) {
    snprintf(err, errlen, "no config file given (" USAGE ")");
    rc = 2;
  }
  if (!rc && out->force && out->resume) {
    snprintf(err, errlen, "--force and --resume contradict each other (start over, or continue)");
    rc = 2;
  }
  if (!rc && (out->force || out->resume) && !out->output_csv) {
    snprintf(err, errlen, "%s needs -o FILE (the results it applies to)", out->force ? "--force" : "--resume");
    rc = 2;
  }
  if (!rc && out->llr_frames && !out->llr_out) {
    snprintf(err, errlen, "--llr-frames needs --llr-out FILE (the export it sizes)");
    rc = 2;
  }
  if (rc) cli_free(out);
  return rc;
}

void cli_free(cli_args *a) {
  if (!a) return;
  free(a->overrides);
  a->overrides = NULL;
  a->n_overrides = 0;
}

void cli_print_help(FILE *f) {
  fprintf(f,
          "ofdmsim: OFDM/MIMO channel-equalisation simulator\n"
          "\n"
          "  ofdmsim CONFIG.cfg [--set KEY=VALUE]... [-o results.csv [--force | --resume]] [--shard I/N]\n"
          "                     [--llr-out FILE [--llr-frames N]] [-q]\n"
          "  mpirun -np N ofdmsim CONFIG.cfg ...   (a build with Open MPI: the sweep over N ranks)\n");
  app_commands_print_usage(f);
  fprintf(f,
          "  ofdmsim --help | --version\n"
          "\n"
          "Options:\n"
          "  --set KEY=VALUE, --set=KEY=VALUE\n"
          "                 override a config key (a dotted path, created if missing) with a\n"
          "                 value in libconfig syntax; a bare word is a string:\n"
          "                 --set mimo.tx=4 --set modulation=16qam --set simulation.snr_db=[0,10]\n"
          "  -o, --output FILE\n"
          "                 write the results CSV to FILE (one row per point) and the run's\n"
          "                 JSON sidecar next to it (FILE with .json), and keep the journal of\n"
          "                 finished chunks of frames there too (FILE with .journal)\n"
          "  --force        replace the results of -o when they exist (without it an\n"
          "                 existing CSV, sidecar or journal is never overwritten: exit 2)\n"
          "  --resume       continue the run of -o from its journal: points and chunks\n"
          "                 already done are read back, not run again; the totals equal\n"
          "                 those of one uninterrupted run (a missing journal: start)\n"
          "  --shard I/N    run shard I of N of the sweep's points (dealt by point key, the\n"
          "                 same share in every job); `ofdmsim merge` joins the N results\n"
          "                 into the CSV of one whole run\n"
          "  --llr-out FILE after the sweep, write the LLRs and transmitted bits of the first\n"
          "                 frames of every point to FILE (little-endian binary: a 16-byte\n"
          "                 file header, then per point a 64-byte header and float32 LLRs,\n"
          "                 uint8 bits; README \"LLR export\"), for a decoder of your own;\n"
          "                 needs receiver.llr = \"maxlog\" or \"exact\"; --force replaces FILE\n"
          "  --llr-frames N frames exported per point (default 1, at most 1048576)\n"
          "  -q, --quiet    no progress line\n"
          "  -h, --help     this text\n"
          "  -V, --version  the version\n");
  app_commands_print_summaries(f);
  fprintf(f,
          "\n"
          "Exit status: 0 success, 1 runtime error, 2 usage or config error (nothing is run and\n"
          "no file is written).\n"
          "\n");
  sim_config_print_keys(f);
}
