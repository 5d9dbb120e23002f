/* A simulation run, `ofdmsim CONFIG.cfg [...]`: the command the line stands
 * for when its first word names no subcommand. */
#ifndef OFDMSIM_APP_RUN_H
#define OFDMSIM_APP_RUN_H

#include "app/cli.h"

/* Loads the config with the --set overrides, checks -o, runs every point.
 * argv is the whole command line (echoed in the report). Exit codes as in
 * main.c. */
int run_main(const cli_args *args, int argc, char **argv);

#endif
