/* The slow-path model (slow_paths.h). */
#include "sim/slow_paths.h"

#include <math.h>
#include <string.h>

#include "channel/tdl_grid.h"

/* Exhaustive ml solves the last layer in closed form: M^(tx-1) candidates a
 * RE at about 60 ns each on one core (250 us a RE for 4x4 16-QAM,
 * test_detect.c's timing). */
#define ML_SECONDS_PER_CANDIDATE 6e-8
/* Time-domain Doppler (channel/ofdm.c's fading_channel) takes per kept
 * sample and tap each stream through the tap's interpolator (2 W real
 * multiply-adds of complex samples, 2 fmaf each) and each link's cubic and
 * product (10 fmaf): about 0.18 ns an fmaf on one core, vectorised (4x4
 * TDL-A, 23 taps: 1.75 us a sample). */
#define DOPPLER_SECONDS_PER_FMA 1.8e-10

double slow_path_rate(const link_params *p, const char **what) {
  const double bits_per_re = (double)p->bps * p->tx;
  double seconds_per_bit = 0;
  *what = NULL;
  if (p->equalizer == EQ_ML) {
    const double candidates = pow(2.0, (double)p->bps * (p->tx - 1));
    const double s = candidates * ML_SECONDS_PER_CANDIDATE / bits_per_re;
    if (s > seconds_per_bit) {
      seconds_per_bit = s;
      *what = "exhaustive ml detection";
    }
  }
  if (p->domain == DOMAIN_TIME && p->doppler_hz > 0 && p->pdp.taps > 0) {
    /* samples per data RE (the cyclic prefix and the pilots cost samples too) */
    const double samples_per_re = link_data_res_per_frame(p)
                                      ? (double)p->symbols * (p->subcarriers + p->cp_length) /
                                            (double)link_data_res_per_frame(p)
                                      : 1.0;
    const double fma_per_sample =
        (double)p->pdp.taps * (4.0 * TDL_INTERP_HALF * p->tx + 10.0 * p->tx * p->rx);
    const double s = fma_per_sample * samples_per_re * DOPPLER_SECONDS_PER_FMA / bits_per_re;
    if (s > seconds_per_bit) {
      seconds_per_bit = s;
      *what = "time-domain Doppler (taps varying per sample)";
    }
  }
  const double rate = seconds_per_bit > 0 ? 1.0 / seconds_per_bit : 0.0;
  if (rate >= SLOW_PATH_BITS_PER_S) *what = NULL;
  return *what ? rate : 0.0;
}

static void duration(double s, char *buf, size_t n) {
  if (s < 120) snprintf(buf, n, "%.0f s", s);
  else if (s < 7200) snprintf(buf, n, "%.0f min", s / 60);
  else if (s < 172800) snprintf(buf, n, "%.1f h", s / 3600);
  else snprintf(buf, n, "%.1f days", s / 86400);
}

void slow_paths_note(const sim_config *c, const char *backend, int threads, FILE *f, const char *prefix) {
  if (strcmp(backend, "cpu") || threads < 1) return;
  /* one line per path: the points on it, their slowest rate, their time */
  const char *paths[2] = {NULL, NULL};
  for (int k = 0; k < 2; k++) {
    size_t count = 0;
    double slowest = INFINITY, seconds = 0;
    for (size_t i = 0; i < c->n_points; i++) {
      const char *what;
      const double rate = slow_path_rate(&c->points[i].p, &what);
      if (!what || (paths[k] && strcmp(what, paths[k])) || (k == 1 && paths[0] && !strcmp(what, paths[0])))
        continue;
      paths[k] = what;
      count++;
      if (rate < slowest) slowest = rate;
      seconds += c->points[i].max_bits / (rate * threads);
    }
    if (!count) break;
    char took[32];
    duration(seconds, took, sizeof took);
    fprintf(f,
            "%s%zu point%s on a slow path, %s: about %.2g Mbit/s a thread; up to about %s with %d thread%s "
            "if they run to simulation.max_bits (target_errors may stop them sooner)\n",
            prefix, count, count == 1 ? "" : "s", paths[k], slowest / 1e6, took, threads, threads == 1 ? "" : "s");
  }
}
