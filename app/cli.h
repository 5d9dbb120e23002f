/* The command line:
 *   ofdmsim CONFIG.cfg [--set KEY=VALUE]... [-o results.csv [--force | --resume]] [--shard I/N]
 *           [--llr-out FILE [--llr-frames N]] [-q | --progress SECONDS]
 *   ofdmsim COMMAND [...]   (a subcommand of app/commands.h: bench)
 *   ofdmsim --help | -h,  ofdmsim --version | -V
 *   ofdmsim   (no arguments: where to start) */
#ifndef OFDMSIM_CLI_H
#define OFDMSIM_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "app/commands.h"

typedef enum { CLI_RUN, CLI_COMMAND, CLI_HELP, CLI_VERSION, CLI_USAGE } cli_command;

typedef struct cli_args {
  cli_command command;
  const char *config_path;      /* CLI_RUN */
  const char **overrides;       /* "KEY=VALUE" strings from --set, in order (point into argv) */
  int n_overrides;
  const char *output_csv;       /* -o / --output, NULL if absent */
  int quiet;                    /* -q: no progress line */
  double progress_seconds;      /* --progress SECONDS: a progress line every SECONDS; 0 without it */
  int force;                    /* --force: replace existing results */
  int resume;                   /* --resume: continue from the journal of -o */
  unsigned shard, shards;       /* --shard I/N: shard I (1-based) of N; 0/0 without it */
  const char *llr_out;          /* --llr-out FILE: the LLR export (sim/llr_export.h), NULL if absent */
  unsigned long llr_frames;     /* --llr-frames N: frames exported per point, 0 = the default (1) */
  const app_command *sub;       /* CLI_COMMAND: the subcommand named by argv[1] */
  int sub_argc;
  char **sub_argv;              /* CLI_COMMAND: argv from the command's name on */
} cli_args;

/* 0 on success; 2 with a one-line message in err on a usage error (unknown
 * flag, missing value, --set without '=', two config files, no config file).
 * No arguments at all is CLI_USAGE.
 * --help and --version win wherever they appear (before a "--"). */
int cli_parse(int argc, char **argv, cli_args *out, char *err, size_t errlen);
/* Safe after a failed parse and twice. */
void cli_free(cli_args *a);
/* Usage, every flag, examples, and every config key with type, default and allowed values. */
void cli_print_help(FILE *f);
/* What `ofdmsim` alone prints: the usage, the shipped configs and two examples. */
void cli_print_usage(FILE *f);

#endif
