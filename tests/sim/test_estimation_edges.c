/* The per-subcarrier error profile of LS channel estimation (channel/
 * estimate.h) through the CPU backend: with continuous delays in the
 * frequency domain the channel places subcarrier K/2 - 1 at the top of the
 * band and K/2 at its bottom, so an interpolation that reached across
 * (once: nearest and linear took K/2 - 3 .. K/2 - 1 from the pilot at K/2)
 * left a few subcarriers with an error of the channel's own power, four
 * orders above the rest at 35 dB. Here, for every interpolation on 1x1
 * 16-QAM TDL-A at 35 dB (K = 256, P = 4, as the defect was found), the mean
 * |Hbar - H|^2 of each subcarrier over the frames' data REs stays within a
 * small factor of the worst interior subcarrier's (the band edge and DC
 * included). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel/estimate.h"
#include "core/names.h"
#include "fetch.h"
#include "linktest.h"
#include "sim/backends.h"
#include "testutil.h"

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Per-subcarrier mean |Hbar / shrink - H|^2 over the data REs of `frames`
 * frames of p (one CPU batch, staged so that the buffers can be fetched). */
static int profile(const link_params *p, uint64_t frames, double *mse) {
  const backend_buffer which[2] = {BUF_H, BUF_HHAT};
  cf32 *bufs[2];
  const int rc = lt_fetch(p, frames, 2, which, bufs);
  cf32 *H = bufs[0], *Hhat = bufs[1];
  const uint64_t rf = link_res_per_frame(p);
  const size_t R = (size_t)(frames * rf), K = (size_t)p->subcarriers;
  const pilot_grid g = link_pilot_grid(p);
  uint64_t *n = calloc(K, sizeof *n);
  for (size_t k = 0; k < K; k++) mse[k] = 0.0;
  for (size_t i = 0; !rc && i < R; i++) {
    if (pilot_antenna(&g, i % rf) >= 0) continue;
    const size_t k = i % K;
    const double dr = Hhat[i].re / p->est_shrink - H[i].re, di = Hhat[i].im / p->est_shrink - H[i].im;
    mse[k] += dr * dr + di * di, n[k]++;
  }
  for (size_t k = 0; k < K; k++) mse[k] /= n[k] ? (double)n[k] : 1.0;
  free(n);
  free(H);
  free(Hhat);
  return rc;
}

static void check_profile(interp_kind interp) {
  link_params p = lt_params(1, 1, 4, EQ_MMSE, CH_TDL, 35.0);
  p.subcarriers = 256;
  p.symbols = 14;
  p.profile = PDP_TDL_A;
  p.delay_spread = 100e-9 * 256 * 30e3; /* 100 ns at 30 kHz */
  p.delays = DELAYS_CONTINUOUS;
  p.pilot_spacing = 4;
  p.pilot_first = 2;
  p.pilot_every = 7;
  p.estimation = EST_LS;
  p.interpolation = interp;
  CHECK(lt_finish_estimated(&p) == 0, "point");
  const int K = p.subcarriers;
  const uint64_t frames = test_scaled(300, 30);
  double *mse = malloc(sizeof(double) * K), *sorted = malloc(sizeof(double) * K);
  CHECK(profile(&p, frames, mse) == 0, "%s: run", interp_kind_name(interp));
  memcpy(sorted, mse, sizeof(double) * K);
  qsort(sorted, K, sizeof(double), cmp_double);
  const double median = sorted[K / 2];
  /* the interior: at least 2P subcarriers (in frequency) from either band
   * edge, where every interpolation has pilots on both sides */
  int worst = 0, worst_in = -1;
  for (int k = 0; k < K; k++) {
    const int kc = 2 * k < K ? k : k - K, from_edge = kc + K / 2 < K / 2 - 1 - kc ? kc + K / 2 : K / 2 - 1 - kc;
    if (mse[k] > mse[worst]) worst = k;
    if (from_edge >= 2 * p.pilot_spacing && (worst_in < 0 || mse[k] > mse[worst_in])) worst_in = k;
  }
  printf("%s: per-subcarrier MSE median %.3g, interior worst %.3g (subcarrier %d), worst %.3g (subcarrier %d, "
         "%.1fx the interior's); K/2-3..K/2+1: %.3g %.3g %.3g | %.3g %.3g\n",
         interp_kind_name(interp), median, mse[worst_in], worst_in, mse[worst], worst, mse[worst] / mse[worst_in],
         mse[K / 2 - 3], mse[K / 2 - 2], mse[K / 2 - 1], mse[K / 2], mse[K / 2 + 1]);
  /* An edge subcarrier lies up to P - 1 subcarriers beyond the last pilot
   * on its side, where the interior has one at most P / 2 away: the nearest
   * pilot's error grows as the distance squared, (3/2)^2 here, linear's
   * extrapolation as (d (d + P))^2 against the interior's (P/2)^4, 7x at
   * d = 3. An interpolation across the band edge costs the channel's own
   * power, 1000x and more at 35 dB. */
  CHECK(mse[worst] < 16.0 * mse[worst_in], "%s: subcarrier %d's MSE %.3g is %.1fx the interior's worst %.3g",
        interp_kind_name(interp), worst, mse[worst], mse[worst] / mse[worst_in], mse[worst_in]);
  free(mse);
  free(sorted);
}

int main(void) {
  check_profile(INTERP_NEAREST);
  check_profile(INTERP_LINEAR);
  check_profile(INTERP_LMMSE);
  check_profile(INTERP_LMMSE2D);
  return test_finish("test_estimation_edges");
}
