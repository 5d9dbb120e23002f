/* The one clock: seconds on the monotonic clock, for stage times, progress
 * and benchmarks alike (never the wall-clock date: it can jump). */
#ifndef OFDMSIM_CLOCK_H
#define OFDMSIM_CLOCK_H

#include <time.h>

static inline double clock_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
