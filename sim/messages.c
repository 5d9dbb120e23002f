/* A run's error messages (messages.h). */
#include "sim/messages.h"

#include <stdarg.h>
#include <stdio.h>

/* Per thread: a library caller's runs on two threads keep their own. */
static _Thread_local char last[2048];
static _Thread_local int silent;

void sim_error(int new_line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last, sizeof last, fmt, ap);
  va_end(ap);
  if (!silent) fprintf(stderr, "%sofdmsim: error: %s\n", new_line ? "\n" : "", last);
}

void sim_error_keep(const char *text) { snprintf(last, sizeof last, "%s", text); }

const char *sim_last_error(void) { return last; }

void sim_errors_reset(int quiet) {
  last[0] = '\0';
  silent = quiet;
}
