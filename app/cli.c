/* Command-line parsing and --help of a simulation run. */
#include "app/cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/opts.h"
#include "config/config.h"

#define USAGE                                                                                        \
  "usage: ofdmsim CONFIG.cfg [--set KEY=VALUE]... [-o results.csv [--force | --resume]] [--shard I/N] " \
  "[--llr-out FILE [--llr-frames N]] [-q | --progress SECONDS]"

enum { OPT_SET = OPT_LONG_ONLY, OPT_FORCE, OPT_RESUME, OPT_SHARD, OPT_LLR_OUT, OPT_LLR_FRAMES, OPT_PROGRESS };

static const opt_spec run_options[] = {
    {"set", OPT_SET, required_argument, "KEY=VALUE"},
    {"output", 'o', required_argument, "results.csv"},
    {"force", OPT_FORCE, no_argument, NULL},
    {"resume", OPT_RESUME, no_argument, NULL},
    {"shard", OPT_SHARD, required_argument, "I/N"},
    {"llr-out", OPT_LLR_OUT, required_argument, "FILE"},
    {"llr-frames", OPT_LLR_FRAMES, required_argument, "N"},
    {"quiet", 'q', no_argument, NULL},
    {"progress", OPT_PROGRESS, required_argument, "SECONDS"},
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

/* A whole decimal integer, sign allowed: 0 with *v set, -1 when s is not one. */
static int whole_number(const char *s, const char *stop, long long *v) {
  char *end = NULL;
  if (!((*s >= '0' && *s <= '9') || ((*s == '-' || *s == '+') && s[1] >= '0' && s[1] <= '9'))) return -1;
  errno = 0;
  *v = strtoll(s, &end, 10);
  return end == stop && !errno ? 0 : -1;
}

/* --shard I/N: 1 <= I <= N <= 2^20. A line of the right shape with numbers
 * outside that ("-1/2", "3/2") is told apart from a malformed one. */
static void set_shard(opt_parser *p, cli_args *out, const char *v) {
  const char *slash = strchr(v, '/');
  long long i = 0, n = 0;
  const int shaped = slash && !whole_number(v, slash, &i) && !whole_number(slash + 1, slash + strlen(slash), &n);
  if (out->shards) opt_fail(p, "option --shard given twice (first %u/%u)", out->shard, out->shards);
  else if (!shaped)
    opt_fail(p, "--shard %s: expected I/N with 1 <= I <= N <= 1048576 (this job's share: shard I of N), got '%s'", v, v);
  else if (n < 1 || n > (1 << 20))
    opt_fail(p, "--shard %s: expected I/N with 1 <= I <= N <= 1048576, got N = %lld: out of range", v, n);
  else if (i < 1 || i > n)
    opt_fail(p, "--shard %s: expected I/N with 1 <= I <= N <= 1048576, got I = %lld of N = %lld: out of range", v,
             i, n);
  else {
    out->shard = (unsigned)i;
    out->shards = (unsigned)n;
  }
}

/* --progress SECONDS: a progress line of its own every SECONDS, in
 * (0, 86400]. */
static void set_progress(opt_parser *p, cli_args *out, const char *v) {
  char *end = NULL;
  errno = 0;
  const double x = *v && !isspace((unsigned char)*v) ? strtod(v, &end) : NAN;
  if (out->progress_seconds > 0) opt_fail(p, "option --progress given twice (first %g)", out->progress_seconds);
  else if (!end || *end || errno || !(x > 0 && x <= 86400))
    opt_fail(p, "--progress %s: expected a number of seconds in (0, 86400] (a progress line every so often), got '%s'",
             v, v);
  else out->progress_seconds = x;
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
  case 'o': opt_set_once(p, &out->output_csv, v); break;
  case 'q': out->quiet = 1; break;
  case OPT_FORCE: out->force = 1; break;
  case OPT_RESUME: out->resume = 1; break;
  case OPT_SHARD: set_shard(p, out, v); break;
  case OPT_LLR_OUT: opt_set_once(p, &out->llr_out, v); break;
  case OPT_LLR_FRAMES: set_llr_frames(p, out, v); break;
  case OPT_PROGRESS: set_progress(p, out, v); break;
  case 'h': if (r->asked == CLI_RUN) r->asked = CLI_HELP; break;
  case 'V': if (r->asked == CLI_RUN) r->asked = CLI_VERSION; break;
  }
}

int cli_parse(int argc, char **argv, cli_args *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (err && errlen) err[0] = '\0';
  if (argc <= 1) { /* a first try: where to start, rather than one line of error */
    out->command = CLI_USAGE;
    return 0;
  }
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
  if (!rc && out->quiet && out->progress_seconds > 0) {
    snprintf(err, errlen, "-q and --progress contradict each other (no progress line, or one every %g s)",
             out->progress_seconds);
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

/* The configs shipped in configs/ (installed under share/ofdmsim/configs):
 * a first user picks one from here. test_cli_first_hour checks the list against
 * the folder. */
static const struct {
  const char *name, *what;
} shipped[] = {
    {"default.cfg", "the demo: 2x2 QPSK over Rayleigh, ZF next to MMSE, a BER curve in seconds"},
    {"snr_sweep.cfg", "4x4 16-QAM ZF over Rayleigh against its closed form"},
    {"modulations.cfg", "every modulation over AWGN, exact theory"},
    {"mimo_sizes.cfg", "antenna configurations against each other (MMSE)"},
    {"detectors.cfg", "zf, mmse, mmse-sic, kbest and ml on identical draws, with GMI"},
    {"zipped_sweep.cfg", "2x2 and 4x4 by ZF and MMSE (a zipped sweep)"},
    {"correlated_rician.cfg", "correlated Rician 4x4 with imperfect CSI"},
    {"estimation.cfg", "pilots, LS estimation and interpolation against perfect CSI"},
    {"dmrs.cfg", "NR DMRS: OCC despreading, LS interpolated three ways against perfect CSI, 3 and 120 km/h"},
    {"tdl_time.cfg", "TDL-C through the time-domain chain, cyclic prefix swept"},
    {"cdl.cfg", "CDL-C 4x4 with cross-polarised arrays at 30 and 120 km/h: MMSE vs K-best"},
    {"custom_pdp.cfg", "power-delay profiles of one's own: taps in ns and dB, with and without LOS"},
    {"mobility.cfg", "a 500 km/h train on TDL-C: frequency against time domain"},
    {"flat_doppler.cfg", "flat Rician fading in time at 3, 120 and 500 km/h, four frames a drop"},
    {"mpi_mixed.cfg", "mixed links for multi-GPU runs: 2x2 QPSK and 4x4 16-QAM, Rayleigh and TDL-A in time"},
    {"coded.cfg", "5G NR LDPC: BLER and throughput of 2x2 and 4x4 MMSE vs K-best over TDL-A at two MCSs"},
    {"coded_harq.cfg", "HARQ with incremental redundancy: 1, 2 and 4 transmissions, residual BLER and throughput"},
    {"drops.cfg", "HARQ over drops of 20 slowly fading slots, a Rician first tap (tap_k_db): intervals over drops"},
};

static void print_examples(FILE *f) {
  fprintf(f,
          "Examples:\n"
          "  ofdmsim configs/default.cfg -o demo.csv\n"
          "                 the demo curve: the table on stdout, demo.csv and its JSON sidecar demo.json\n"
          "  ofdmsim plot demo.csv -o demo.png\n"
          "                 the BER curves of that run (needs gnuplot)\n"
          "  ofdmsim configs/default.cfg --set equalizer=mmse --set simulation.target_errors=1e4 -o mmse.csv\n"
          "                 the demo with MMSE alone (a --set of a swept key replaces its sweep) and\n"
          "                 ten times the errors a point\n"
          "  nohup ofdmsim big.cfg -o big.csv --progress 300 2>big.log &\n"
          "                 a long run in the background, a progress line every 5 minutes in big.log;\n"
          "                 the same command with --resume continues it after a stop\n");
}

void cli_print_usage(FILE *f) {
  fprintf(f, USAGE "\n\nShipped configs (configs/ in the source tree, share/ofdmsim/configs when installed):\n");
  for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++)
    fprintf(f, "  %-22s %s\n", shipped[i].name, shipped[i].what);
  fputc('\n', f);
  print_examples(f);
  fprintf(f, "\nofdmsim --help lists every option and config key.\n");
}

void cli_print_help(FILE *f) {
  fprintf(f,
          "ofdmsim: OFDM/MIMO channel-equalisation simulator\n"
          "\n"
          "  ofdmsim CONFIG.cfg [--set KEY=VALUE]... [-o results.csv [--force | --resume]] [--shard I/N]\n"
          "                     [--llr-out FILE [--llr-frames N]] [-q | --progress SECONDS]\n"
          "  mpirun -np N ofdmsim CONFIG.cfg ...   (a build with Open MPI: the sweep over N ranks)\n");
  app_commands_print_usage(f);
  fprintf(f,
          "  ofdmsim --help | --version\n"
          "\n"
          "Options:\n"
          "  --set KEY=VALUE, --set=KEY=VALUE\n"
          "                 override a config key (a dotted path, created if missing) with a\n"
          "                 value in libconfig syntax; a bare word is a string:\n"
          "                 --set mimo.tx=4 --set modulation=16qam --set simulation.snr_db=[0,10];\n"
          "                 a key the sweep sweeps takes the one value: its sweep entry goes\n"
          "                 (the header says so; a key of a zipped entry is refused)\n"
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
          "  --progress SECONDS\n"
          "                 a progress line of its own every SECONDS on stderr, for a log;\n"
          "                 without it: the live line on a terminal, else a line every minute\n"
          "  -h, --help     this text\n"
          "  -V, --version  the version\n");
  app_commands_print_summaries(f);
  fprintf(f,
          "\n"
          "Exit status: 0 success, 1 runtime error (a closed or full standard output too: the\n"
          "results are saved first), 2 usage or config error (nothing is run and no file is\n"
          "written), 130 / 143 stopped by SIGINT / SIGTERM (the results saved).\n"
          "\n");
  print_examples(f);
  fputc('\n', f);
  sim_config_print_keys(f);
}
