/* The printed 95% interval is a 95% interval: over many seeds, the share of
 * runs whose interval holds the true BER lies within 95 +- 3%, for a case
 * whose errors cluster by RE (i.i.d. Rayleigh MIMO, all bits of an RE share
 * one H; truth: the exact ZF theory) and one whose errors cluster by frame
 * (TDL block fading, one channel realisation a frame; truth: the pooled BER
 * of all runs, 400 times more data than one run). The runs stop on
 * target_errors after min_frames, as the driver does, and the mean of the
 * per-run BERs must lie within its own interval of the truth: no stop bias.
 * (Wilson's interval, which ignores the clustering, covered 71-88% on such
 * Rayleigh cases and 13-26% on TDL.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "linktest.h"
#include "results/stats.h"
#include "sim/theory.h"
#include "testutil.h"

/* 400 runs; under the sanitizers (OFDMSIM_TEST_SCALE, testutil.h) fewer,
 * each the same run, with the coverage band widened as 1/sqrt(runs). */
#define FULL_RUNS 400
static int n_runs = FULL_RUNS;

typedef struct run {
  lt_counts c;
  double lo, hi;
} run;

static void simulate(const char *what, link_params p, uint64_t target, uint64_t min_frames, run *runs) {
  const int block_fading = p.model == CH_TDL;
  for (int s = 0; s < n_runs; s++) {
    p.seed = 0x5eed0000u + (uint64_t)s;
    lt_counts *c = &runs[s].c;
    if (lt_simulate_min("cpu", &p, target, min_frames, 1e12, 0, c)) {
      CHECK(0, "%s: seed %d failed", what, s);
      return;
    }
    const ber_sample b = {c->bits, c->errors, c->frames, c->sum_sq,
                          block_fading ? c->frames : c->frames * link_res_per_frame(&p)};
    ber_interval(&b, 0.95, &runs[s].lo, &runs[s].hi);
  }
}

static void check_coverage(const char *what, const run *runs, double truth) {
  int covered = 0;
  double mean = 0.0, m2 = 0.0;
  for (int s = 0; s < n_runs; s++) {
    covered += runs[s].lo <= truth && truth <= runs[s].hi;
    const double ber = (double)runs[s].c.errors / (double)runs[s].c.bits;
    mean += ber;
    m2 += ber * ber;
  }
  mean /= n_runs;
  const double sd = sqrt(fmax(0.0, (m2 / n_runs - mean * mean) * n_runs / (n_runs - 1.0)));
  const double half = t_quantile(0.975, n_runs - 1.0) * sd / sqrt((double)n_runs);
  const double rate = (double)covered / n_runs;
  printf("%-40s truth %.4e coverage %.3f  mean of runs %.4e +- %.2e  (%.1f frames a run)\n", what,
         truth, rate, mean, half, (double)runs[0].c.frames);
  const double band = test_widened(0.03);
  CHECK(fabs(rate - 0.95) <= band, "%s: coverage %.3f outside 0.95 +- %.3f", what, rate, band);
  CHECK(fabs(mean - truth) <= half, "%s: mean BER %.5e off the truth %.5e by more than %.2e (stop bias?)",
        what, mean, truth, half);
}

int main(void) {
  n_runs = (int)test_scaled(FULL_RUNS, 40);
  run *runs = calloc(n_runs, sizeof *runs);
  /* Rayleigh 2x2 QPSK ZF: an RE's 4 bits err together; exact theory. */
  link_params p = lt_params(2, 2, 2, EQ_ZF, CH_RAYLEIGH, 8.0);
  p.subcarriers = 64;
  p.symbols = 2;
  lt_finish(&p);
  const char *kind;
  simulate("rayleigh 2x2 qpsk zf 8 dB", p, 200, 10, runs);
  check_coverage("rayleigh 2x2 qpsk zf 8 dB", runs, theory_ber(&p, &kind));

  /* TDL-A 2x2 16-QAM MMSE, block fading; truth pooled over every run. */
  p = lt_params(2, 2, 4, EQ_MMSE, CH_TDL, 14.0);
  p.subcarriers = 64;
  p.symbols = 2;
  p.profile = PDP_TDL_A;
  p.delay_spread = 3.0;
  lt_finish(&p);
  simulate("tdl-a 2x2 16qam mmse 14 dB", p, 1000, 100, runs);
  uint64_t bits = 0, errors = 0;
  for (int s = 0; s < n_runs; s++) bits += runs[s].c.bits, errors += runs[s].c.errors;
  check_coverage("tdl-a 2x2 16qam mmse 14 dB", runs, (double)errors / (double)bits);
  free(runs);
  return test_finish("test_coverage");
}
