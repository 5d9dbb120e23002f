/* Command-line parsing and --help. */
#include "app/cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config.h"
#include "sim/config_tree.h"

#define USAGE "usage: ofdmsim CONFIG.cfg [--set KEY=VALUE]... [-o results.csv] [-q]"

static int usage_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int usage_error(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return 2;
}

/* The value of an option: "--opt=VALUE" or the next argument. NULL when
 * missing, or when the next argument is another option. */
static const char *option_value(int argc, char **argv, int *i, const char *inline_value) {
  if (inline_value) return inline_value;
  if (*i + 1 >= argc) return NULL;
  const char *next = argv[*i + 1];
  if (next[0] == '-' && next[1] != '\0') return NULL;
  ++*i;
  return next;
}

static int add_override(cli_args *out, const char *kv, char *err, size_t errlen) {
  const char *eq = strchr(kv, '=');
  if (!eq) return usage_error(err, errlen, "--set %s: expected KEY=VALUE, got '%s' (no '=')", kv, kv);
  if (eq == kv) return usage_error(err, errlen, "--set %s: expected KEY=VALUE, got '%s' (no KEY)", kv, kv);
  const char **grown = realloc(out->overrides, sizeof *grown * (size_t)(out->n_overrides + 1));
  if (!grown) return usage_error(err, errlen, "--set %s: out of memory", kv);
  out->overrides = grown;
  out->overrides[out->n_overrides++] = kv;
  return 0;
}

static int parse(int argc, char **argv, cli_args *out, char *err, size_t errlen) {
  if (argc >= 2 && !strcmp(argv[1], "bench")) {
    out->command = CLI_BENCH;
    out->bench_argc = argc - 2;
    out->bench_argv = argv + 2;
    return 0;
  }
  /* --help and --version answer whatever else the line holds */
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      out->command = CLI_HELP;
      return 0;
    }
    if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
      out->command = CLI_VERSION;
      return 0;
    }
  }
  out->command = CLI_RUN;
  int options_done = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (options_done || a[0] != '-' || a[1] == '\0') {
      if (out->config_path)
        return usage_error(err, errlen, "two config files given: '%s' and '%s' (one run, one config; "
                                        "use a sweep for several)", out->config_path, a);
      out->config_path = a;
      continue;
    }
    if (!strcmp(a, "--")) {
      options_done = 1;
      continue;
    }
    const char *eq = strchr(a, '=');
    const size_t name_len = (a[1] == '-' && eq) ? (size_t)(eq - a) : strlen(a);
    const char *inline_value = (a[1] == '-' && eq) ? eq + 1 : NULL;
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(name_len < 63 ? name_len : 63), a);
    if (!strcmp(name, "--set")) {
      const char *kv = option_value(argc, argv, &i, inline_value);
      if (!kv) return usage_error(err, errlen, "option --set needs a value: --set KEY=VALUE");
      if (add_override(out, kv, err, errlen)) return 2;
    } else if (!strcmp(name, "-o") || !strcmp(name, "--output")) {
      const char *file = option_value(argc, argv, &i, inline_value);
      if (!file || !*file) return usage_error(err, errlen, "option %s needs a value: %s results.csv", name, name);
      if (out->output_csv)
        return usage_error(err, errlen, "option %s given twice (first '%s')", name, out->output_csv);
      out->output_csv = file;
    } else if ((!strcmp(name, "-q") || !strcmp(name, "--quiet")) && !inline_value) {
      out->quiet = 1;
    } else {
      static const char *const flags[] = {"--set", "--output", "--quiet", "--help", "--version",
                                          "-o", "-q", "-h", "-V"};
      const char *near = cfg_suggest(name, flags, sizeof flags / sizeof *flags);
      if (near) return usage_error(err, errlen, "unknown option '%s' (did you mean '%s'?)", a, near);
      return usage_error(err, errlen, "unknown option '%s' (see ofdmsim --help)", a);
    }
  }
  if (!out->config_path)
    return usage_error(err, errlen, "no config file given (" USAGE ")");
  return 0;
}

int cli_parse(int argc, char **argv, cli_args *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (err && errlen) err[0] = '\0';
  const int rc = parse(argc, argv, out, err, errlen);
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
          "  ofdmsim CONFIG.cfg [--set KEY=VALUE]... [-o results.csv] [-q]\n"
          "  ofdmsim bench [...]\n"
          "  ofdmsim --help | --version\n"
          "\n"
          "Options:\n"
          "  --set KEY=VALUE, --set=KEY=VALUE\n"
          "                 override a config key (a dotted path, created if missing) with a\n"
          "                 value in libconfig syntax; a bare word is a string:\n"
          "                 --set mimo.tx=4 --set modulation=16qam --set simulation.snr_db=[0,10]\n"
          "  -o, --output FILE\n"
          "                 write the results CSV to FILE (one row per point) and the run's\n"
          "                 JSON sidecar next to it (FILE with .json)\n"
          "  -q, --quiet    no progress line\n"
          "  -h, --help     this text\n"
          "  -V, --version  the version\n"
          "  bench [...]    inversion / pipeline throughput on this machine (ofdmsim bench --help)\n"
          "\n"
          "Exit status: 0 success, 1 runtime error, 2 usage or config error (nothing is run and\n"
          "no file is written).\n"
          "\n");
  sim_config_print_keys(f);
}
