/* The subcommands of ofdmsim: `ofdmsim NAME ...` hands the rest of the line
 * to NAME's own parser and main. A line whose first word names none of them
 * is a simulation run (app/cli.h). New commands (compare, merge, plot) are one
 * entry each in commands.c. */
#ifndef OFDMSIM_APP_COMMANDS_H
#define OFDMSIM_APP_COMMANDS_H

#include <stdio.h>

typedef struct app_command {
  const char *name;
  const char *synopsis; /* what follows the name in --help */
  const char *summary;  /* one line for --help */
  /* argv[0] is the command's name, its options follow; returns the exit code. */
  int (*main)(int argc, char **argv);
} app_command;

/* The command called `name`, or NULL. */
const app_command *app_command_find(const char *name);
/* "  ofdmsim NAME SYNOPSIS" per command, for the usage lines of --help. */
void app_commands_print_usage(FILE *f);
/* "  NAME SYNOPSIS  summary" per command, for the option list of --help. */
void app_commands_print_summaries(FILE *f);

#endif
