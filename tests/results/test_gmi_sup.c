/* The supremum of the GMI over the LLR scaling (results/gmi_sup.h) against
 * an independent reference on Gaussian LLRs, the BPSK case whose mutual
 * information is known: a bit b sent over a real AWGN channel at Es/N0 gives
 * the consistent LLR L = 4 y / N0, Gaussian with mean (2b-1) mu and variance
 * 2 mu (mu = 4 Es/N0), and 1 - E[log2(1 + e^-(2b-1) L)] is the BPSK
 * capacity I(b; y) (tests/support/bicm_ref.h, by adaptive quadrature). LLRs
 * c times too large (or small) lose rate at s = 1, and the supremum over s
 * gets it back, at s = 1/c.
 *   - The reference: GMI(s) by its own quadrature (no grid, no code of the
 *     product), maximised by golden section over all s > 0; it matches the
 *     BPSK capacity to 1e-7 at s = 1/c.
 *   - gmi_sup_find on the exact grid values within 4e-4 of the reference,
 *     relative, for mismatches c from 1/6 to 150 and Es/N0 from -8 to 8 dB;
 *     s* where the exact GMI is within that of the supremum.
 *   - On simulated LLRs (soft_label_loss_grid over Monte Carlo frames): the
 *     supremum within its interval of the capacity, never below the s = 1
 *     value nor below 0; for matched LLRs s* near 1 and gmi near gmi_s1;
 *     the grid's GMI concave in s.
 *   - The edges: useless LLRs (GMI 0, s 0), LLRs all 0, LLRs too cautious
 *     for the grid (edge), one frame (no interval). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bicm_ref.h"
#include "equalizer/soft.h"
#include "results/gmi_sup.h"
#include "testutil.h"

/* E[log2(1 + e^-(s c m))], m ~ N(mu, 2 mu): the loss of a consistent
 * Gaussian LLR scaled by c, at scaling s; the trapezoid rule over mu +- 12
 * sigma on 6000 points (the integrand is smooth: error far below 1e-10). */
static double ref_loss(double mu, double c, double s) {
  const double sig = sqrt(2.0 * mu), lo = mu - 12.0 * sig, hi = mu + 12.0 * sig;
  const int n = 6000;
  const double h = (hi - lo) / n;
  long double sum = 0.0L;
  for (int i = 0; i <= n; i++) {
    const double m = lo + h * i, x = s * c * m;
    const double w = exp(-(m - mu) * (m - mu) / (2.0 * sig * sig)) / (sig * 2.5066282746310002); /* sqrt(2 pi) */
    const double loss = (fmax(-x, 0.0) + log1p(exp(-fabs(x)))) / log(2.0);
    sum += (long double)((i == 0 || i == n) ? 0.5 * w * loss : w * loss);
  }
  return (double)(sum * h);
}

/* The reference supremum over s in [1e-4, 1e3] (golden section on log s). */
static double ref_sup(double mu, double c, double *s_best) {
  double a = log(1e-4), b = log(1e3);
  const double r = 0.5 * (sqrt(5.0) - 1.0);
  double x1 = b - r * (b - a), x2 = a + r * (b - a);
  double f1 = 1.0 - ref_loss(mu, c, exp(x1)), f2 = 1.0 - ref_loss(mu, c, exp(x2));
  for (int it = 0; it < 70; it++) {
    if (f1 < f2) {
      a = x1, x1 = x2, f1 = f2;
      x2 = a + r * (b - a), f2 = 1.0 - ref_loss(mu, c, exp(x2));
    } else {
      b = x2, x2 = x1, f2 = f1;
      x1 = b - r * (b - a), f1 = 1.0 - ref_loss(mu, c, exp(x1));
    }
  }
  *s_best = exp(0.5 * (a + b));
  return fmax(fmax(f1, f2), 0.0);
}

static void test_reference(void) {
  const double snr[4] = {-6.0, 0.0, 4.0, 8.0};
  for (int i = 0; i < 4; i++) {
    const double mu = 4.0 * pow(10.0, snr[i] / 10.0), cap = bicm_capacity(1, snr[i]);
    for (double c = 0.25; c <= 16.0; c *= 4.0) {
      double s;
      const double sup = ref_sup(mu, c, &s);
      CHECK(fabs(sup - cap) < 1e-7 && fabs(s * c - 1.0) < 1e-3,
            "Es/N0 %g dB, LLRs x%g: reference supremum %.9f at s %.5f, BPSK capacity %.9f at s %.5f", snr[i], c, sup,
            s, cap, 1.0 / c);
    }
  }
}

/* gmi_sums of exact expectations: frames x res bits, one stream of BPSK. */
static void exact_sums(double mu, double c, double *loss, double *sq, gmi_sums *in) {
  const uint64_t frames = 1000;
  const double res = 1000.0;
  for (int k = 0; k < GMI_GRID; k++) {
    const double l = ref_loss(mu, c, gmi_grid_s(k)); /* per bit = per RE */
    loss[k] = l * res * (double)frames;
    sq[k] = (double)frames * (l * l + 1e-4); /* a per-frame spread of 0.01 bit */
  }
  *in = (gmi_sums){1.0, res, frames, loss, sq, 0};
}

static void test_exact_grid(void) {
  const double snr[5] = {-8.0, -3.0, 0.0, 4.0, 8.0};
  const double cs[8] = {1.0, 0.7, 1.4, 1.0 / 6.0, 3.0, 10.0, 45.0, 150.0};
  double worst = 0.0;
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 8; j++) {
      const double mu = 4.0 * pow(10.0, snr[i] / 10.0), c = cs[j];
      double loss[GMI_GRID], sq[GMI_GRID], s_ref;
      gmi_sums in;
      exact_sums(mu, c, loss, sq, &in);
      const double ref = ref_sup(mu, c, &s_ref);
      gmi_sup g;
      gmi_sup_find(&in, 0.95, &g);
      const double rel = fabs(g.gmi - ref) / ref;
      worst = fmax(worst, rel);
      CHECK(rel <= 4e-4 && !g.edge, "Es/N0 %g dB, LLRs x%g: supremum %.7f, reference %.7f (rel %.1e)", snr[i], c,
            g.gmi, ref, rel);
      /* the s found is a good one: the exact GMI there is the supremum's */
      const double at = 1.0 - ref_loss(mu, c, g.s);
      CHECK(ref - at <= 4e-4 * ref, "Es/N0 %g dB, LLRs x%g: s* %.4f gives %.7f, the supremum %.7f (s %.4f)", snr[i],
            c, g.s, at, ref, s_ref);
      /* the interval: +- t_0.975 x 0.01 / sqrt(1000) around it */
      const double half = 0.5 * (g.hi - g.lo);
      CHECK(fabs(half - 1.9623 * 0.01 / sqrt(1000.0)) < 2e-5 && g.lo <= g.gmi && g.gmi <= g.hi,
            "Es/N0 %g dB, LLRs x%g: half-width %.6f", snr[i], c, half);
      CHECK(g.gmi >= gmi_sums_at(&in, GMI_GRID_S1), "never below s = 1");
    }
  printf("gmi_sup_find on exact grids: worst relative error %.2e\n", worst);
}

/* Monte Carlo: `frames` frames of `res` BPSK bits with consistent Gaussian
 * LLRs of mean mu, times c; the grid's sums through soft_label_loss_grid
 * (the backends' per-stream function) and the s = 1 GMI as the run has it. */
static void simulate(double mu, double c, int frames, int res, double *loss, double *sq, double *gmi_s1) {
  memset(loss, 0, sizeof(double) * GMI_GRID);
  memset(sq, 0, sizeof(double) * GMI_GRID);
  double at_1 = 0.0;
  for (int f = 0; f < frames; f++) {
    uint64_t grid[GMI_GRID] = {0}, s1 = 0;
    for (int i = 0; i < res; i++) {
      const uint32_t b = (uint32_t)(test_rng_u64() & 1u);
      double re, im;
      test_rng_cnormal(&re, &im);
      const double m = mu + sqrt(2.0 * mu) * re * sqrt(2.0); /* re has variance 1/2 */
      const float l = (float)(c * (b ? m : -m));
      s1 += soft_label_loss_grid(1, &l, b, grid);
    }
    CHECK(grid[GMI_GRID_S1] == s1, "the grid's s = 1 sum is the streams' loss");
    for (int k = 0; k < GMI_GRID; k++) {
      const double l = ldexp((double)grid[k], -SOFT_LOSS_SHIFT);
      loss[k] += l;
      sq[k] += (l / res) * (l / res);
    }
    at_1 += ldexp((double)s1, -SOFT_LOSS_SHIFT);
  }
  *gmi_s1 = 1.0 - at_1 / ((double)frames * res);
}

static void test_simulated(void) {
  const int frames = (int)test_scaled(400, 40), res = 250;
  const struct {
    double snr, c;
  } cases[] = {{0.0, 1.0}, {4.0, 1.0}, {-3.0, 1.0}, {0.0, 4.0}, {4.0, 0.5}, {-10.0, 12.0}, {-5.0, 8.0}};
  /* (c (mu + 5 sigma) below the clip at 64, which would cost the scaled
   * LLRs information the capacity counts) */
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const double mu = 4.0 * pow(10.0, cases[i].snr / 10.0), c = cases[i].c, cap = bicm_capacity(1, cases[i].snr);
    double loss[GMI_GRID], sq[GMI_GRID], gmi_s1;
    simulate(mu, c, frames, res, loss, sq, &gmi_s1);
    const gmi_sums in = {1.0, (double)res, (uint64_t)frames, loss, sq, 0};
    gmi_sup g;
    gmi_sup_find(&in, 0.95, &g);
    const double half = 0.5 * (g.hi - g.lo), se = half / 1.966;
    printf("simulated Es/N0 %4.1f dB, LLRs x%-4g: GMI %.5f [%.5f, %.5f] at s %.4f, at s = 1 %.5f, capacity %.5f\n",
           cases[i].snr, c, g.gmi, g.lo, g.hi, g.s, gmi_s1, cap);
    /* 4.5 standard errors (a chance below 1e-5 a case), plus the
     * interpolation's 4e-4 and the supremum's bias (a few 1e-4 at most) */
    CHECK(fabs(g.gmi - cap) <= 4.5 * se + 1e-3 * cap, "the supremum %.5f within its interval of the capacity %.5f",
          g.gmi, cap);
    CHECK(g.gmi >= gmi_s1 && g.gmi >= 0.0 && g.lo >= 0.0, "never below s = 1 (%.5f) or 0", gmi_s1);
    if (c == 1.0) {
      /* matched: s* near 1, and nothing gained over s = 1 beyond the noise;
       * 1 +- 0.15 is where GMI(s) falls by much more than an interval */
      CHECK(fabs(g.s - 1.0) <= 0.15 && g.gmi - gmi_s1 <= half, "matched: s* %.4f near 1, gmi %.5f - gmi_s1 %.5f "
            "within the half-width %.5f", g.s, g.gmi, gmi_s1, half);
    } else {
      CHECK(fabs(g.s * c - 1.0) <= 0.25, "LLRs x%g: s* %.4f near %.4f", c, g.s, 1.0 / c);
    }
    /* GMI(s) concave on the grid: the slopes between neighbours fall (a
     * bit's loss is convex in s; rounding to quanta moves a sum by half a
     * quantum a bit) */
    const double q = ldexp(1.0, -SOFT_LOSS_SHIFT); /* each GMI value off by half a quantum at most */
    double prev_slope = INFINITY, prev_step = 1.0;
    int concave = 1;
    for (int k = 0; k < GMI_GRID; k++) {
      const double s0 = k ? gmi_grid_s(k - 1) : 0.0, g0 = k ? gmi_sums_at(&in, k - 1) : 0.0;
      const double step = gmi_grid_s(k) - s0, slope = (gmi_sums_at(&in, k) - g0) / step;
      concave &= slope <= prev_slope + q / step + q / prev_step;
      prev_slope = slope, prev_step = step;
    }
    CHECK(concave, "Es/N0 %g dB, LLRs x%g: GMI(s) concave on the grid", cases[i].snr, c);
  }
  /* LLRs 30 times too confident at -10 dB: far below 0 at s = 1, most of
   * the capacity at s* (the clip at 64 costs the rest) */
  double loss[GMI_GRID], sq[GMI_GRID], gmi_s1;
  const double cap = bicm_capacity(1, -10.0);
  simulate(0.4, 30.0, frames, res, loss, sq, &gmi_s1);
  const gmi_sums in = {1.0, (double)res, (uint64_t)frames, loss, sq, 0};
  gmi_sup g;
  gmi_sup_find(&in, 0.95, &g);
  CHECK(gmi_s1 < -1.0 && g.gmi > 0.5 * cap && g.gmi <= g.hi && g.hi <= cap + 0.05,
        "overconfident LLRs: %.4f at s = 1, %.4f at s* %.4f (capacity %.4f)", gmi_s1, g.gmi, g.s, cap);
}

static void test_edges(void) {
  double loss[GMI_GRID], sq[GMI_GRID], gmi_s1;
  /* LLRs all 0: one bit lost a bit at every s, GMI 0 everywhere */
  for (int k = 0; k < GMI_GRID; k++) loss[k] = 1e6, sq[k] = 1000.0;
  gmi_sums in = {1.0, 1000.0, 1000, loss, sq, 0};
  gmi_sup g;
  gmi_sup_find(&in, 0.95, &g);
  CHECK(g.gmi == 0.0 && g.s == 0.0 && g.lo == 0.0 && g.hi == 0.0 && !g.edge, "erasures: GMI 0 at s 0 (%g at %g)",
        g.gmi, g.s);
  /* useless LLRs (the sign random, |L| large): GMI(s) < 0 for every grid s */
  test_rng_seed(99);
  const int res = 200, frames = 50;
  memset(loss, 0, sizeof loss);
  memset(sq, 0, sizeof sq);
  for (int f = 0; f < frames; f++) {
    uint64_t grid[GMI_GRID] = {0};
    for (int i = 0; i < res; i++) {
      const float l = (float)(test_rng_u01() < 0.5 ? 30.0 : -30.0);
      soft_label_loss_grid(1, &l, (uint32_t)(test_rng_u64() & 1u), grid);
    }
    for (int k = 0; k < GMI_GRID; k++) {
      const double l = ldexp((double)grid[k], -SOFT_LOSS_SHIFT);
      loss[k] += l, sq[k] += (l / res) * (l / res);
    }
  }
  in = (gmi_sums){1.0, (double)res, (uint64_t)frames, loss, sq, 0};
  gmi_sup_find(&in, 0.95, &g);
  int all_negative = 1;
  for (int k = 0; k < GMI_GRID; k++) all_negative &= gmi_sums_at(&in, k) < 0.0;
  CHECK(all_negative && g.gmi >= 0.0 && g.gmi < 1e-3 && g.s < gmi_grid_s(0) && g.lo >= 0.0,
        "useless LLRs: GMI %.6f at s %.5f, interval from %.6f", g.gmi, g.s, g.lo);
  /* LLRs 16 times too cautious: the optimum s = 16 lies past the grid */
  simulate(4.0, 1.0 / 16.0, 100, 100, loss, sq, &gmi_s1);
  in = (gmi_sums){1.0, 100.0, 100, loss, sq, 0};
  gmi_sup_find(&in, 0.95, &g);
  CHECK(g.edge && g.s == gmi_grid_s(GMI_GRID - 1) && g.gmi == gmi_sums_at(&in, GMI_GRID - 1),
        "too cautious: the grid's end, a lower bound (s %g, edge %d)", g.s, g.edge);
  /* one frame: an estimate, no interval; no frames: nothing */
  simulate(4.0, 1.0, 1, 300, loss, sq, &gmi_s1);
  in = (gmi_sums){1.0, 300.0, 1, loss, sq, 0};
  gmi_sup_find(&in, 0.95, &g);
  CHECK(!isnan(g.gmi) && isnan(g.lo) && isnan(g.hi), "one frame: no interval");
  in.frames = 0;
  gmi_sup_find(&in, 0.95, &g);
  CHECK(isnan(g.gmi) && isnan(g.s), "no frames: nothing");
}

int main(void) {
  test_rng_seed(0x6a1e5e7u);
  test_reference();
  test_exact_grid();
  test_simulated();
  test_edges();
  return test_finish("test_gmi_sup");
}
