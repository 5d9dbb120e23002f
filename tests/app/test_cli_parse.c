/* cli_parse and --help: the command-line grammar, its error messages, and a
 * help text that names every key of the schema with its default. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "sim/config_schema.h"
#include "testutil.h"

static int parse(const char *line, cli_args *a, char *err, size_t errlen) {
  static char buf[1024];
  static char *argv[64];
  snprintf(buf, sizeof buf, "%s", line);
  int argc = 0;
  for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " ")) argv[argc++] = t;
  argv[argc] = NULL;
  return cli_parse(argc, argv, a, err, errlen);
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
  CHECK(parse("ofdmsim bench --size 4 -q", &a, err, sizeof err) == 0 && a.command == CLI_BENCH &&
            a.bench_argc == 3 && !strcmp(a.bench_argv[0], "--size") && !strcmp(a.bench_argv[2], "-q"),
        "bench");
  cli_free(&a);
  CHECK(parse("ofdmsim x.cfg --bogus --help", &a, err, sizeof err) == 0 && a.command == CLI_HELP, "help anywhere");
  CHECK(parse("ofdmsim -V", &a, err, sizeof err) == 0 && a.command == CLI_VERSION, "version");
  CHECK(parse("ofdmsim -h", &a, err, sizeof err) == 0 && a.command == CLI_HELP, "-h");

  static const struct {
    const char *line, *message;
  } bad[] = {
      {"ofdmsim", "no config file given"},
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
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    err[0] = '\0';
    const int rc = parse(bad[i].line, &a, err, sizeof err);
    CHECK(rc == 2 && strstr(err, bad[i].message) && !strchr(err, '\n'), "'%s': rc %d, '%s'", bad[i].line, rc, err);
    CHECK(a.overrides == NULL, "'%s': overrides freed", bad[i].line);
    cli_free(&a);
  }

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

int main(void) {
  test_cli();
  return test_finish("test_cli_parse");
}
