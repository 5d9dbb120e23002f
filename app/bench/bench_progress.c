/* The bench's progress lines (bench_internal.h). */
#include <stdarg.h>
#include <stdio.h>

#include "app/bench/bench_internal.h"

/* One line per step on stderr, so a hang or a crash on a remote machine says
 * where it happened. */
void bench_progress(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("[bench] ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  fflush(stderr);
}
