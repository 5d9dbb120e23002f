/* est_2d_lanes_execute (channel/estimate_2d_block.h, lmmse2d's sum with
 * the subcarriers in vector lanes) against est_2d RE by RE: every value
 * equal bit for bit (the sign of a zero included; a NaN where est_2d gives a
 * NaN), on runs within one block of the table and across two. Two kinds of
 * input:
 * - lmmse2d's own tables (est_plan_make) on a comb of spacing 4 and 1 and
 *   on NR DMRS, every (antenna, symbol) and every run of subcarriers, with
 *   runs that end before the vector width, for 1 to 16 receive rows;
 * - synthetic windows that the tables may not hold: firsts chosen at random
 *   (lanes' windows overlapping, apart, and wrapped across DC, which takes
 *   the RE-at-a-time fallback), taps from 1 to 16, and hostile weights and
 *   pilots (zeros of both signs, NaN, infinities, subnormals, huge values),
 *   whose products the lanes outside a pilot's window must not take. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "channel/estimate.h"
#include "channel/estimate_2d_block.h"
#include "testparams.h"
#include "testutil.h"

static double uni(double a, double b) { return a + (b - a) * test_rng_u01(); }

static float hostile(void) {
  const uint64_t r = test_rng_u64();
  switch (r % 24) {
    case 0: return (r & 64) ? -0.0f : 0.0f;
    case 1: return NAN;
    case 2: return (r & 64) ? INFINITY : -INFINITY;
    case 3: return (float)uni(-1e-40, 1e-40); /* subnormal */
    case 4: return (float)uni(-1e30, 1e30);
    default: return (float)uni(-2.0, 2.0);
  }
}

static float plain(void) { return (float)uni(-2.0, 2.0); }

/* Bit for bit, or both NaN (a NaN's payload may come from either operand). */
static int same(cf32 a, cf32 b) {
  const int re = (isnan(a.re) && isnan(b.re)) || !memcmp(&a.re, &b.re, sizeof a.re);
  const int im = (isnan(a.im) && isnan(b.im)) || !memcmp(&a.im, &b.im, sizeof a.im);
  return re && im;
}

/* est_2d_lanes_execute on subcarriers [k0, k0 + n) of (t, s) for nrows
 * rows against est_2d; returns the REs that differ. */
static int compare(const est_2d_lanes *lanes, const int *first, const cf32 *w, int taps, int tt, int S, int K, int t,
                   int s, int k0, int n, int np, int off, int step, int nrows, const cf32 *const *rows,
                   size_t row_stride, float shrink) {
  cf32 got[LINK_MAX_RX][EST_2D_LANES];
  cf32 *outs[LINK_MAX_RX];
  for (int q = 0; q < nrows; q++) outs[q] = got[q];
  est_2d_lanes_execute(lanes, t, s, k0, n, np, off, step, nrows, rows, row_stride, shrink, outs);
  int bad = 0;
  for (int q = 0; q < nrows; q++)
    for (int l = 0; l < n; l++) {
      const cf32 want = est_2d(first, w, taps, tt, S, K, t, s, k0 + l, np, off, step, rows[q], row_stride, shrink);
      if (!same(got[q][l], want)) {
        if (bad < 3)
          fprintf(stderr, "  t %d s %d k %d row %d: (%a, %a), est_2d (%a, %a)\n", t, s, k0 + l, q,
                  (double)got[q][l].re, (double)got[q][l].im, (double)want.re, (double)want.im);
        bad++;
      }
    }
  return bad;
}

/* lmmse2d's tables of point p, every (t, s) and run, rows of random pilots. */
static void check_plan(const char *what, link_params p) {
  char err[256];
  CHECK(link_params_check(&p, err, sizeof err) == 0, "%s: %s", what, err);
  est_plan e;
  if (est_plan_make(&p, &e, err, sizeof err) != 0) {
    CHECK(0, "%s: est_plan_make: %s", what, err);
    return;
  }
  CHECK(e.tt > 0, "%s: an lmmse2d plan", what);
  const int K = p.subcarriers, S = p.symbols, dmrs = e.np > 0;
  /* the rows: tt window rows of stride row_stride, enough for either kind */
  const size_t row_stride = dmrs ? (size_t)e.np : (size_t)K;
  cf32 *store = malloc(sizeof(cf32) * LINK_MAX_RX * (size_t)e.tt * row_stride);
  const cf32 *rows[LINK_MAX_RX];
  for (size_t i = 0; i < LINK_MAX_RX * (size_t)e.tt * row_stride; i++) store[i] = cf_make(plain(), plain());
  for (int q = 0; q < LINK_MAX_RX; q++) rows[q] = store + (size_t)q * (size_t)e.tt * row_stride;
  est_2d_lanes *lanes = est_2d_lanes_create(e.first, e.w, e.taps, e.tt, p.tx, S, K);
  CHECK(lanes != NULL, "%s: est_2d_lanes_create", what);
  if (!lanes) return;
  int bad = 0, res = 0;
  /* runs of every width, within one block of the table and across two */
  const int widths[] = {EST_2D_LANES, 7, 1, 16, 13};
  for (int t = 0; t < p.tx; t++)
    for (int s = 0; s < S; s++) {
      const int nrows = 1 + (t + 3 * s) % LINK_MAX_RX;
      const int np = dmrs ? e.np : pilot_count(&e.pg, t), off = dmrs ? 0 : t, step = dmrs ? 1 : p.pilot_spacing;
      for (int k0 = 0, wi = 0; k0 < K; wi++) {
        int n = widths[wi % 5];
        if (n > K - k0) n = K - k0;
        bad += compare(lanes, e.first, e.w, e.taps, e.tt, S, K, t, s, k0, n, np, off, step, nrows, rows, row_stride,
                       (float)e.shrink);
        res += n * nrows;
        k0 += n;
      }
    }
  CHECK(bad == 0, "%s: %d of %d estimates differ from est_2d", what, bad, res);
  est_2d_lanes_destroy(lanes);
  free(store);
  est_plan_free(&e);
}

/* Synthetic windows: np pilots a row at off + i step, firsts at random. */
static void check_synthetic(int round) {
  const int K = 48, S = 3, tt = 1 + round % 4, taps = 1 + round % EST_LMMSE_TAPS;
  const int np = taps + (int)(test_rng_u64() % 40), step = 1 + round % 3, off = round % 2;
  const size_t row_stride = (size_t)(off + np * step + 5);
  const int T = 2;
  int *first = malloc(sizeof(int) * (size_t)T * K);
  cf32 *w = malloc(sizeof(cf32) * (size_t)T * S * K * tt * taps);
  cf32 *store = malloc(sizeof(cf32) * LINK_MAX_RX * (size_t)tt * row_stride);
  const int kind = round % 4;
  for (int i = 0; i < T * K; i++) {
    const int k = i % K;
    switch (kind) {
      case 0: first[i] = (int)(test_rng_u64() % (uint64_t)np); break;         /* anywhere: far apart, wrapped */
      case 1: first[i] = (k / 3) % np; break;                                /* a comb's staircase */
      case 2: first[i] = (np - 2 + k / 4) % np; break;                       /* the staircase across DC */
      default: first[i] = (int)((uint64_t)(k / 2) + test_rng_u64() % 3) % np; /* overlapping, jittered */
    }
  }
  const int hostile_round = round % 3 == 0;
  for (size_t i = 0; i < (size_t)T * S * K * tt * taps; i++)
    w[i] = hostile_round ? cf_make(hostile(), hostile()) : cf_make(plain(), plain());
  for (size_t i = 0; i < LINK_MAX_RX * (size_t)tt * row_stride; i++)
    store[i] = hostile_round ? cf_make(hostile(), hostile()) : cf_make(plain(), plain());
  const cf32 *rows[LINK_MAX_RX];
  for (int q = 0; q < LINK_MAX_RX; q++) rows[q] = store + (size_t)q * (size_t)tt * row_stride;
  const float shrink = round % 5 == 0 ? 1.0f : (float)uni(0.5, 1.0);
  est_2d_lanes *lanes = est_2d_lanes_create(first, w, taps, tt, T, S, K);
  CHECK(lanes != NULL, "synthetic round %d: est_2d_lanes_create", round);
  if (!lanes) return;
  int bad = 0;
  for (int t = 0; t < T; t++)
    for (int s = 0; s < S; s++)
      for (int k0 = 0; k0 < K;) {
        int n = 1 + (int)(test_rng_u64() % EST_2D_LANES);
        if (n > K - k0) n = K - k0;
        const int nrows = 1 + (int)(test_rng_u64() % LINK_MAX_RX);
        bad += compare(lanes, first, w, taps, tt, S, K, t, s, k0, n, np, off, step, nrows, rows, row_stride, shrink);
        k0 += n;
      }
  CHECK(bad == 0, "synthetic round %d (taps %d, tt %d, np %d, firsts kind %d): %d estimates differ", round, taps,
        tt, np, kind, bad);
  est_2d_lanes_destroy(lanes);
  free(first);
  free(w);
  free(store);
}

int main(void) {
  test_rng_seed(0x2d2d2d2dULL);
  /* the comb of bench-paths.sh (spacing 4 on symbols 2 and 9) and a dense
   * one (spacing 1), with Doppler, and NR DMRS with an additional position */
  link_params comb = tp_point(4, 4, 4, CH_TDL, 128, 14, 8);
  static const double delay[3] = {0.0, 1.7, 4.2};
  static const float power[3] = {0.5f, 0.3f, 0.2f};
  comb.pdp.taps = 3;
  for (int l = 0; l < 3; l++) {
    comb.pdp.delay[l] = delay[l];
    comb.pdp.power[l] = power[l];
  }
  comb.delays = DELAYS_CONTINUOUS;
  comb.doppler_hz = 0.02 * comb.subcarrier_spacing;
  comb.pilot_spacing = 4;
  comb.pilot_first = 2;
  comb.pilot_every = 7;
  comb.estimation = EST_LS;
  comb.interpolation = INTERP_LMMSE2D;
  comb.n0 = 0.05;
  check_plan("comb 4, 4 x 4", comb);
  link_params dense = comb;
  dense.tx = 1;
  dense.pilot_spacing = 1;
  dense.pilot_every = 3;
  dense.pilot_first = 1;
  check_plan("comb 1, 1 x 4", dense);
  link_params dm = comb;
  dm.tx = 2;
  dm.subcarriers = 120;
  dm.pilot_spacing = 0;
  tp_dmrs(&dm, 1, 1, 1);
  check_plan("DMRS, 2 x 4", dm);
  for (int round = 0; round < 48; round++) check_synthetic(round);
  return test_finish("test_estimate_2d_block");
}
