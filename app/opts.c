/* getopt_long with the conventions of opts.h. getopt runs in glibc's
 * return-in-order mode ("-" at the head of the short options): operands come
 * back one by one where they stand, so errors are reported in command-line
 * order and argv is never permuted (the bench echoes it). ":" next makes a
 * missing value distinguishable from an unknown option; opterr = 0 keeps
 * getopt quiet, the messages are ours. */
#include "app/opts.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config/config_format.h"
#include "config/config_suggest.h"

enum { OPT_END = -1, OPT_ERROR = -3 };

struct opt_parser {
  int argc;
  char **argv;
  const opt_spec *specs;
  struct option longopts[OPT_MAX + 1];
  char shortopts[3 + 2 * OPT_MAX];
  int rest;      /* next operand after getopt's end ("--"), -1 before it */
  char name[64]; /* the option opt_next just returned, as typed */
  const opt_spec *spec;
  char *err;     /* the first usage error; later ones are dropped */
  size_t errlen;
  int failed;
};

/* getopt_long's tables from the specs, and getopt reset for a new line. */
static void opt_begin(opt_parser *p, const opt_spec *specs, int argc, char **argv, char *err,
                      size_t errlen) {
  memset(p, 0, sizeof *p);
  p->argc = argc;
  p->argv = argv;
  p->specs = specs;
  p->rest = -1;
  p->err = err;
  p->errlen = errlen;
  if (err && errlen) err[0] = '\0';
  char *s = p->shortopts;
  *s++ = '-';
  *s++ = ':';
  for (int i = 0; specs[i].name && i < OPT_MAX; i++) {
    p->longopts[i] = (struct option){specs[i].name, specs[i].has_arg, NULL, specs[i].key};
    if (specs[i].key < OPT_LONG_ONLY) {
      *s++ = (char)specs[i].key;
      if (specs[i].has_arg == required_argument) *s++ = ':';
    }
  }
  *s = '\0';
  optind = 0; /* glibc: 0 reinitialises everything, the ordering mode included */
  opterr = 0;
}

const char *opt_name(const opt_parser *p) { return p->name; }

void opt_fail(opt_parser *p, const char *fmt, ...) {
  if (p->failed) return;
  /* the words of a command line may hold anything (a newline, an escape
   * sequence): each usage error is escaped whole here, so that every command
   * and every handler gets one-line messages without quoting with care */
  char raw[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(raw, sizeof raw, fmt, ap);
  va_end(ap);
  if (p->err && p->errlen) cfg_escape(raw, p->err, p->errlen);
  p->failed = 1;
}

void opt_fail_value(opt_parser *p) {
  opt_fail(p, "option %s needs a value: %s %s", p->name, p->name,
           p->spec && p->spec->value ? p->spec->value : "VALUE");
}

void opt_print_error(const char *prog, const char *msg) {
  fprintf(stderr, "%s: error: %s\n(see %s --help)\n", prog, msg, prog);
}

void opt_set_once(opt_parser *p, const char **slot, const char *value) {
  if (!*value) opt_fail_value(p);
  else if (*slot) opt_fail(p, "option %s given twice (first '%s')", p->name, *slot);
  else *slot = value;
}

void opt_join_args(const char *head, int argc, char **argv, char *out, size_t n) {
  size_t used = (size_t)snprintf(out, n, "%s", head);
  for (int i = 1; i < argc && used + 1 < n; i++) {
    const int w = snprintf(out + used, n - used, " %s", argv[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

static const opt_spec *spec_of(const opt_parser *p, int key) {
  for (const opt_spec *s = p->specs; s->name; s++)
    if (s->key == key) return s;
  return NULL;
}

/* "Did you mean": the long option closest to `typed` ("--outptu") copied to
 * out, or NULL when none is close. */
static const char *suggest(const opt_parser *p, const char *typed, char *out, size_t n) {
  char names[OPT_MAX][64];
  const char *list[OPT_MAX];
  size_t count = 0;
  for (const opt_spec *s = p->specs; s->name && count < OPT_MAX; s++, count++) {
    snprintf(names[count], sizeof names[count], "--%s", s->name);
    list[count] = names[count];
  }
  const char *near = cfg_suggest(typed, list, count);
  if (!near) return NULL;
  snprintf(out, n, "%s", near);
  return out;
}

/* The element getopt stopped in was a long option: its name as typed,
 * without "=value". */
static void long_name(const char *elem, char *out, size_t n) {
  const char *eq = strchr(elem, '=');
  const int len = eq ? (int)(eq - elem) : (int)strlen(elem);
  snprintf(out, n, "%.*s", len, elem);
}

static int unknown(opt_parser *p, const char *elem, const char *near) {
  if (near) opt_fail(p, "unknown option '%s' (did you mean '%s'?)", elem, near);
  else opt_fail(p, "unknown option '%s'", elem);
  return OPT_ERROR;
}

/* The next item: an option's key with its value in *value (NULL without
 * one), OPT_ARG with an operand in *value, OPT_ERROR after a usage error,
 * OPT_END. */
static int opt_next(opt_parser *p, const char **value) {
  *value = NULL;
  p->name[0] = '\0';
  p->spec = NULL;
  if (p->rest >= 0) {
    if (p->rest >= p->argc) return OPT_END;
    *value = p->argv[p->rest++];
    return OPT_ARG;
  }
  /* In return-in-order mode the element getopt reads next is argv[optind]
   * (a cluster of short options keeps optind until its last letter). */
  const int at = optind > 0 ? optind : 1;
  const char *elem = at < p->argc ? p->argv[at] : "";
  const int is_long = !strncmp(elem, "--", 2);
  const int c = getopt_long(p->argc, p->argv, p->shortopts, p->longopts, NULL);
  if (c == -1) {
    p->rest = optind;
    return opt_next(p, value);
  }
  if (c == 1) {
    *value = optarg;
    return OPT_ARG;
  }
  if (is_long) long_name(elem, p->name, sizeof p->name);
  else snprintf(p->name, sizeof p->name, "-%c", c == '?' || c == ':' ? optopt : c);
  char near[sizeof p->name + 2];
  if (c == '?') {
    if (is_long) return unknown(p, elem, suggest(p, p->name, near, sizeof near));
    /* "-set" for "--set" is a likely slip; a lone "-x" has no near miss */
    char dashed[sizeof p->name + 1];
    snprintf(dashed, sizeof dashed, "-%s", elem);
    return unknown(p, p->name, strlen(elem) > 2 ? suggest(p, dashed, near, sizeof near) : NULL);
  }
  p->spec = spec_of(p, c == ':' ? optopt : c);
  /* A value taken from the next element ("-o FILE", not "-oFILE" or "--output=FILE") */
  const int separate = c != ':' && optind - 1 > at && optarg == p->argv[optind - 1];
  if (is_long && strcmp(p->name + 2, p->spec->name)) {
    /* an abbreviation getopt would have taken: refused, and whatever it took
     * as its value goes back (glibc allows moving optind back between calls) */
    if (separate) optind--;
    snprintf(near, sizeof near, "--%s", p->spec->name);
    return unknown(p, elem, near);
  }
  if (c == ':') {
    opt_fail_value(p);
    return OPT_ERROR;
  }
  /* A separate value that is itself an option ("-o -q") is a missing value;
   * the element goes back to be read as the option it is. A negative number
   * ("--shard -1/2") is a value, for its option to judge: no option of ours
   * is a digit. */
  if (separate && optarg[0] == '-' && optarg[1] != '\0' && !(optarg[1] >= '0' && optarg[1] <= '9')) {
    optind--;
    opt_fail_value(p);
    return OPT_ERROR;
  }
  *value = optarg;
  return c;
}

int opt_parse(const opt_spec *specs, int argc, char **argv, opt_handler on_option, void *ctx,
              char *err, size_t errlen) {
  opt_parser p;
  opt_begin(&p, specs, argc, argv, err, errlen);
  const char *value;
  int key;
  while ((key = opt_next(&p, &value)) != OPT_END)
    if (key != OPT_ERROR) on_option(&p, key, value, ctx);
  return p.failed ? 2 : 0;
}
