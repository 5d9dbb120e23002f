/* The conventions every command line of ofdmsim follows, on top of glibc's
 * getopt_long: long options by their full name only (no abbreviations, so a
 * new option never makes an old command line ambiguous), short options in
 * clusters (-qo FILE), "--" ends the options, a value that looks like an
 * option is a missing value (-o -q), and every error is a one-line message
 * that the command prints through opt_print_error. */
#ifndef OFDMSIM_APP_OPTS_H
#define OFDMSIM_APP_OPTS_H

#include <getopt.h>
#include <stddef.h>

/* Keys of options without a short letter start here. */
#define OPT_LONG_ONLY 256
#define OPT_MAX 24

/* The key an operand (a word that is no option) is handled with. */
#define OPT_ARG (-2)

/* One option of a command; tables end with a {NULL} entry. */
typedef struct opt_spec {
  const char *name;  /* long name without the dashes */
  int key;           /* the short letter, or OPT_LONG_ONLY + n */
  int has_arg;       /* no_argument or required_argument */
  const char *value; /* what the value looks like ("KEY=VALUE"), for "needs a value" */
} opt_spec;

/* The last entries of a command's table: -h / --help, then the {NULL} end. */
#define OPT_HELP_AND_END {"help", 'h', no_argument, NULL}, {NULL, 0, 0, NULL}

/* The state of one parse; handlers see it to name the option and report. */
typedef struct opt_parser opt_parser;

/* Called for each option in command-line order with its key and value (NULL
 * for an option without one), and with OPT_ARG for each operand. */
typedef void (*opt_handler)(opt_parser *p, int key, const char *value, void *ctx);

/* Parses argv[1..] (argv[0] is the program or command name) with the options
 * of `specs`. The whole line is read even after an error, so that --help
 * still answers whatever else it holds. 0, or 2 with the first usage error in
 * err. Resets getopt, so a process may parse several lines. */
int opt_parse(const opt_spec *specs, int argc, char **argv, opt_handler on_option, void *ctx,
              char *err, size_t errlen);
/* The option being handled, as typed: "--output" or "-o". */
const char *opt_name(const opt_parser *p);
/* Records a usage error (only the first one is kept), its control characters
 * escaped (cfg_escape: \n, \x1b) so that quoting a word of the command line
 * in it keeps it one line. */
void opt_fail(opt_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "option --output needs a value: --output results.csv" for the option being
 * handled. */
void opt_fail_value(opt_parser *p);
/* "PROG: error: MSG" and where to read more, on stderr. */
void opt_print_error(const char *prog, const char *msg);

/* For an option that names one file (-o FILE): *slot = value, or the usage
 * error for an empty value or a second one. */
void opt_set_once(opt_parser *p, const char **slot, const char *value);

/* The command line as one string, for a result's provenance: `head` (the
 * program or command, "ofdmsim merge") then " argv[i]" for i >= 1, cut to
 * fit out[n]. */
void opt_join_args(const char *head, int argc, char **argv, char *out, size_t n);

#endif
