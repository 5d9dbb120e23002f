/* cli_parse and --help: the command-line grammar, its error messages, and a
 * help text that names every key of the schema with its default; the bench's
 * grammar, which follows the same conventions (app/opts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench/bench_internal.h"
#include "app/cli.h"
#include "config/config_schema.h"
#include "testutil.h"

/* A command line split at spaces, as a shell would pass it (valid until the
 * next call). */
static char **split(const char *line, int *argc) {
  static char buf[1024];
  static char *argv[64];
  snprintf(buf, sizeof buf, "%s", line);
  *argc = 0;
  for (char *t = strtok(buf, " "); t && *argc < 63; t = strtok(NULL, " ")) argv[(*argc)++] = t;
  argv[*argc] = NULL;
  return argv;
}

static int parse(const char *line, cli_args *a, char *err, size_t errlen) {
  int argc;
  char **argv = split(line, &argc);
  return cli_parse(argc, argv, a, err, errlen);
}

/* A line a parser must refuse, and what its message must say. */
typedef struct bad_line {
  const char *line, *message;
} bad_line;

/* Every line refused with exit code 2 and a one-line message holding the
 * expected text, without the "(see ... --help)" hint the printer adds. */
static void check_refused(const bad_line *bad, size_t n, int (*parse_line)(const char *line, char *err, size_t errlen)) {
  for (size_t i = 0; i < n; i++) {
    char err[512] = "";
    const int rc = parse_line(bad[i].line, err, sizeof err);
    CHECK(rc == 2 && strstr(err, bad[i].message) && !strchr(err, '\n') && !strstr(err, "(see "),
          "'%s': rc %d, '%s'", bad[i].line, rc, err);
  }
}

/* A refused run line leaves nothing allocated. */
static int parse_refused(const char *line, char *err, size_t errlen) {
  cli_args a;
  const int rc = parse(line, &a, err, errlen);
  CHECK(a.overrides == NULL, "'%s': overrides freed", line);
  cli_free(&a);
  return rc;
}

static void test_cli(void) {
  cli_args a;
  char err[512];
  CHECK(parse("ofdmsim x.cfg --set mimo.tx=4 --set=modulation=16qam -o r.csv -q", &a, err, sizeof err) == 0, "%s",
        err);
  CHECK(a.command == CLI_RUN && !strcmp(a.config_path, "x.cfg") && a.n_overrides == 2 &&
            !strcmp(a.overrides[0], "mimo.tx=4") && !strcmp(a.overrides[1], "modulation=16qam") &&
            !strcmp(a.output_csv, "r.csv") && a.quiet == 1,
        "run line");
  cli_free(&a);
  CHECK(parse("ofdmsim --output=r.csv --quiet -- -odd.cfg", &a, err, sizeof err) == 0, "%s", err);
  CHECK(!strcmp(a.output_csv, "r.csv") && a.quiet && !strcmp(a.config_path, "-odd.cfg") && a.n_overrides == 0,
        "long forms and --");
  cli_free(&a);
  CHECK(parse("ofdmsim bench --size 4 -q", &a, err, sizeof err) == 0 && a.command == CLI_COMMAND &&
            !strcmp(a.sub->name, "bench") && a.sub_argc == 4 && !strcmp(a.sub_argv[0], "bench") &&
            !strcmp(a.sub_argv[1], "--size") && !strcmp(a.sub_argv[3], "-q"),
        "bench");
  cli_free(&a);
  CHECK(parse("ofdmsim x.cfg -qo r.csv", &a, err, sizeof err) == 0 && a.quiet && !strcmp(a.output_csv, "r.csv"),
        "short options in a cluster: %s", err);
  cli_free(&a);
  CHECK(parse("ofdmsim x.cfg -or.csv", &a, err, sizeof err) == 0 && !strcmp(a.output_csv, "r.csv"),
        "short option with its value attached: %s", err);
  cli_free(&a);
  CHECK(parse("ofdmsim x.cfg --bogus --help", &a, err, sizeof err) == 0 && a.command == CLI_HELP, "help anywhere");
  CHECK(parse("ofdmsim -- -h", &a, err, sizeof err) == 0 && a.command == CLI_RUN && !strcmp(a.config_path, "-h"),
        "-- ends the options, --help included");
  cli_free(&a);
  CHECK(parse("ofdmsim a.cfg b.cfg --set -V", &a, err, sizeof err) == 0 && a.command == CLI_VERSION && !a.overrides,
        "version anywhere, even after errors");
  CHECK(parse("ofdmsim -V", &a, err, sizeof err) == 0 && a.command == CLI_VERSION, "version");
  CHECK(parse("ofdmsim -h", &a, err, sizeof err) == 0 && a.command == CLI_HELP, "-h");
  /* nothing at all: where to start (main prints it, exit 2), not one error line */
  CHECK(parse("ofdmsim", &a, err, sizeof err) == 0 && a.command == CLI_USAGE, "no arguments: the usage page");
  CHECK(parse("ofdmsim x.cfg --progress 2.5", &a, err, sizeof err) == 0 && a.progress_seconds == 2.5, "--progress");
  cli_free(&a);
  CHECK(parse("ofdmsim x.cfg --shard 2/3", &a, err, sizeof err) == 0 && a.shard == 2 && a.shards == 3, "--shard");
  cli_free(&a);

  static const bad_line bad[] = {
      {"ofdmsim -q", "no config file given"},
      {"ofdmsim a.cfg b.cfg", "two config files given: 'a.cfg' and 'b.cfg'"},
      {"ofdmsim a.cfg --set", "option --set needs a value"},
      {"ofdmsim a.cfg --set -q", "option --set needs a value"},
      {"ofdmsim a.cfg --set mimo.tx", "--set mimo.tx: expected KEY=VALUE"},
      {"ofdmsim a.cfg --set= =4", "--set : expected KEY=VALUE"},
      {"ofdmsim a.cfg --set =4", "--set =4: expected KEY=VALUE"},
      {"ofdmsim a.cfg -o", "option -o needs a value"},
      {"ofdmsim a.cfg -o x.csv --output y.csv", "option --output given twice"},
      {"ofdmsim a.cfg --outptu x.csv", "unknown option '--outptu' (did you mean '--output'?)"},
      {"ofdmsim a.cfg -x", "unknown option '-x'"},
      {"ofdmsim a.cfg --quiet=yes", "unknown option '--quiet=yes'"},
      {"ofdmsim a.cfg --out x.csv", "unknown option '--out' (did you mean '--output'?)"},
      {"ofdmsim a.cfg -o -q", "option -o needs a value: -o results.csv"},
      {"ofdmsim a.cfg -qx", "unknown option '-x'"},
      {"ofdmsim a.cfg --shard -1/2", "--shard -1/2: expected I/N with 1 <= I <= N <= 1048576, got I = -1 of N = 2: out of range"},
      {"ofdmsim a.cfg --shard=3/2", "--shard 3/2: expected I/N with 1 <= I <= N <= 1048576, got I = 3 of N = 2: out of range"},
      {"ofdmsim a.cfg --shard 1/2000000", "got N = 2000000: out of range"},
      {"ofdmsim a.cfg --shard 1-2", "--shard 1-2: expected I/N with 1 <= I <= N"},
      {"ofdmsim a.cfg --progress 0", "--progress 0: expected a number of seconds in (0, 86400]"},
      {"ofdmsim a.cfg --progress=1e9", "--progress 1e9: expected a number of seconds"},
      {"ofdmsim a.cfg --progress 5 -q", "-q and --progress contradict each other"},
      {"ofdmsim a.cfg --progress 5 --progress 6", "option --progress given twice"},
  };
  check_refused(bad, sizeof bad / sizeof *bad, parse_refused);

  /* --help names every key of the schema with its default */
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cli_print_help(f);
  fclose(f);
  for (int k = 0; k < KEY_COUNT; k++) {
    CHECK(strstr(text, config_keys[k].path), "--help lacks %s", config_keys[k].path);
    const char *def = config_keys[k].default_text ? config_keys[k].default_text : config_keys[k].default_note;
    CHECK(strstr(text, def), "--help lacks the default %s of %s", def, config_keys[k].path);
  }
  CHECK(strstr(text, "--set KEY=VALUE") && strstr(text, "-o, --output") && strstr(text, "-q, --quiet") &&
            strstr(text, "one of bpsk, qpsk, 16qam, 64qam, 256qam") && strstr(text, "sweep"),
        "--help flags:\n%s", text);
  free(text);
}

static int parse_bench(const char *line, bench_opts *o, char *err, size_t errlen) {
  int argc;
  char **argv = split(line, &argc);
  return bench_parse(argc, argv, o, err, errlen);
}

static int parse_bench_refused(const char *line, char *err, size_t errlen) {
  bench_opts o;
  return parse_bench(line, &o, err, errlen);
}

static void test_bench_cli(void) {
  bench_opts o;
  char err[512];
  CHECK(parse_bench("bench --sizes 2,4 --reps=3 --json x.json --small --cpu-only", &o, err, sizeof err) == 0 &&
            o.n_sizes == 2 && o.sizes[0] == 2 && o.sizes[1] == 4 && o.reps == 3 && !strcmp(o.json_path, "x.json") &&
            o.small && o.cpu_only && o.matrices == 4096 && o.pipeline_seconds == 0.0,
        "bench options: %s", err);
  CHECK(parse_bench("bench", &o, err, sizeof err) == 0 && o.n_sizes == 4 && o.reps == 10 &&
            !strcmp(o.json_path, "bench.json") && o.seed == 1 && o.pipeline_seconds == 2.0,
        "bench defaults");
  CHECK(parse_bench("bench --bogus -h", &o, err, sizeof err) == BENCH_HELP, "bench: help anywhere");
  static const bad_line bad[] = {
      {"bench --cpu-onl", "unknown option '--cpu-onl' (did you mean '--cpu-only'?)"},
      {"bench --sizes 9", "--sizes 9: want a list of orders 1..8"},
      {"bench --json", "option --json needs a value: --json PATH"},
      {"bench --reps -q", "option --reps needs a value: --reps N"},
      {"bench --reps 0", "--reps 0: want an integer 1..100000"},
      {"bench foo", "unexpected argument 'foo'"},
      {"bench -V", "unknown option '-V'"},
  };
  check_refused(bad, sizeof bad / sizeof *bad, parse_bench_refused);
}

int main(void) {
  test_cli();
  test_bench_cli();
  return test_finish("test_cli_parse");
}
