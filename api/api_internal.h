/* What the library's objects hold, and its error convention: private to
 * api/ (the public view is api/ofdmsim.h). */
#ifndef OFDMSIM_API_INTERNAL_H
#define OFDMSIM_API_INTERNAL_H

#include <stdarg.h>

#include "api/ofdmsim.h"
#include "config/config.h"
#include "core/backend.h"
#include "results/results.h"

struct ofdmsim_config {
  sim_config c;
};

struct ofdmsim_results {
  result_table t;
  ofdmsim_type *types; /* one a column */
};

struct ofdmsim_link {
  backend *b;
  sim_point pt;
  char backend[16];
  uint64_t cap;        /* frames a batch may have */
  int flags;
  uint32_t *errors;    /* cap x (tx + 1): the counts, then the fallbacks */
  uint64_t *loss;      /* cap x tx, soft points */
};

/* Keeps the message for ofdmsim_last_error and returns status. */
ofdmsim_status api_fail(ofdmsim_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* api_fail with the arguments as a va_list. */
ofdmsim_status api_vfail(ofdmsim_status status, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* A results object over the CSV at path (a run's own rows, or a file). */
ofdmsim_status api_results_from_csv(ofdmsim_results **out, const char *path);

#endif
