/* The library's error convention and its small helpers (ofdmsim.h): the
 * last message, kept per thread in one place with the engine's (sim/messages.h),
 * so that a message the engine gives during a run and one the library gives
 * read alike. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api_internal.h"
#include "sim/messages.h"
#include "version.h"

ofdmsim_status api_vfail(ofdmsim_status status, const char *fmt, va_list ap) {
  char text[2048];
  vsnprintf(text, sizeof text, fmt, ap);
  sim_error_keep(text);
  return status;
}

ofdmsim_status api_fail(ofdmsim_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  api_vfail(status, fmt, ap);
  va_end(ap);
  return status;
}

const char *ofdmsim_last_error(void) { return sim_last_error(); }

int ofdmsim_api_version(void) { return OFDMSIM_API_VERSION; }

const char *ofdmsim_version(void) { return OFDMSIM_VERSION; }

void ofdmsim_free(void *p) { free(p); }
