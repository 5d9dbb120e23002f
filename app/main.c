/* ofdmsim: the command line. Exit codes: 0 success, 1 runtime error,
 * 2 usage or config error (nothing written), 130 / 143 stopped by SIGINT /
 * SIGTERM (what was computed is saved). */
#include <stdio.h>

#include "app/cli.h"
#include "app/opts.h"
#include "app/run.h"
#include "version.h"

int main(int argc, char **argv) {
  char err[1024] = "";
  cli_args args;
  if (cli_parse(argc, argv, &args, err, sizeof err)) {
    opt_print_error("ofdmsim", err);
    return 2;
  }
  int rc = 0;
  switch (args.command) {
  case CLI_HELP: cli_print_help(stdout); break;
  case CLI_USAGE: /* a usage error like any other (nothing run), with where to start */
    cli_print_usage(stderr);
    rc = 2;
    break;
  case CLI_VERSION: printf("ofdmsim %s\n", OFDMSIM_VERSION); break;
  case CLI_COMMAND: rc = args.sub->main(args.sub_argc, args.sub_argv); break;
  case CLI_RUN: rc = run_main(&args, argc, argv); break;
  }
  cli_free(&args);
  return rc;
}
