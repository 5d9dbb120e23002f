/* Joint detection (equalizer/detect.h): the sorted QR against its defining
 * identities, exhaustive ML against a double-precision brute force that never
 * forms a QR, K-best against ML (all paths kept), against successive
 * cancellation (K = 1) and against ML's metric (any K), clipping, noise-free
 * decisions, ties, and the CPU time per RE (printed, not asserted). */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "equalizer/detect.h"
#include "testutil.h"

typedef double complex zd;

#define U24 (1.0 / 16777216.0) /* float's unit roundoff */
#define MAXB (MAT_MAX_N * DET_MAX_BPS)

/* Metric error model.  The QR and the searches work in float on y and H, so a
 * candidate's metric m = ||e||^2, e = zq - R s, carries an error in e of
 * order u (||y|| + ||H||_F ||x||) (the backward error of the QR and of the
 * sums; the constant grows with the depth nt), hence in m of order
 * 2 ||e|| |de| + |de|^2 + u m (the final sums):
 *     tol(m) = TOL_C nt u (2 sqrt(m) S + m) + (TOL_C nt u S)^2,
 *     S = ||y|| + ||H||_F sqrt(nt) max|x|.
 * The worst |error| / tol measured over every ML LLR below is printed: at
 * most about 0.3 with TOL_C = 4 (1x1 and 2x1 256-QAM, where ||x|| reaches
 * its largest), so the bound has a margin of 3 and is not loose by orders of
 * magnitude. */
#define TOL_C 4.0

static zd cnormal(void) {
  double re, im;
  test_rng_cnormal(&re, &im);
  return re + I * im;
}
static zd to_zd(cf32 a) { return a.re + I * a.im; }
static cf32 to_cf(zd a) { return cf_make((float)creal(a), (float)cimag(a)); }
static double abs2(zd a) { return creal(a) * creal(a) + cimag(a) * cimag(a); }

static double amax(int bps) {
  if (bps == 1) return 1.0;
  return sqrt(2.0) * (double)((1 << (bps / 2)) - 1) * qam_scale(bps);
}

static double err_scale(int nr, int nt, int bps, const cf32 *h, const cf32 *y) {
  double hf = 0.0, yn = 0.0;
  for (int e = 0; e < nr * nt; e++) hf += abs2(to_zd(h[e]));
  for (int r = 0; r < nr; r++) yn += abs2(to_zd(y[r]));
  return sqrt(yn) + sqrt(hf) * sqrt((double)nt) * amax(bps);
}

static double tol_m(int nt, double S, double m) {
  const double c = TOL_C * nt * U24;
  return c * (2.0 * sqrt(fmax(m, 0.0)) * S + m) + (c * S) * (c * S);
}

/* ||y - H x||^2 in double, x from labels */
static double metric(int nr, int nt, int bps, const cf32 *h, const cf32 *y, const uint32_t *lab) {
  double m = 0.0;
  for (int r = 0; r < nr; r++) {
    zd e = to_zd(y[r]);
    for (int t = 0; t < nt; t++) e -= to_zd(h[r * nt + t]) * to_zd(qam_map(bps, lab[t]));
    m += abs2(e);
  }
  return m;
}

/* A Rayleigh RE: H i.i.d. CN(0, 1), random labels, y = H x + n in double
 * rounded to float. */
static void draw_labels(int nt, int bps, uint32_t *tx) {
  for (int t = 0; t < nt; t++) tx[t] = (uint32_t)(test_rng_u64() >> 40) & ((1u << bps) - 1u);
}

static void rayleigh_re(int nr, int nt, int bps, double n0, cf32 *h, uint32_t *tx, cf32 *y) {
  for (int e = 0; e < nr * nt; e++) h[e] = to_cf(cnormal());
  draw_labels(nt, bps, tx);
  for (int r = 0; r < nr; r++) {
    zd s = sqrt(n0) * cnormal();
    for (int t = 0; t < nt; t++) s += to_zd(h[r * nt + t]) * to_zd(qam_map(bps, tx[t]));
    y[r] = to_cf(s);
  }
}

/* --- the brute force: every candidate, ||y - H x||^2 in double, no QR ------ */
typedef struct bf_result {
  uint32_t lab[MAT_MAX_N];
  double best, second;       /* smallest and second smallest metric */
  double m0[MAXB], m1[MAXB]; /* per bit (t*bps + k): min metric with b = 0 / 1 */
} bf_result;

static void brute(int nr, int nt, int bps, const cf32 *h, const cf32 *y, bf_result *o) {
  const uint32_t M = 1u << bps;
  static zd hs[MAT_MAX_N][256][MAT_MAX_RX]; /* h_rt x(sym), for every t, symbol, r */
  for (int t = 0; t < nt; t++)
    for (uint32_t s = 0; s < M; s++)
      for (int r = 0; r < nr; r++) hs[t][s][r] = to_zd(h[r * nt + t]) * to_zd(qam_map(bps, s));
  o->best = o->second = INFINITY;
  for (int b = 0; b < nt * bps; b++) o->m0[b] = o->m1[b] = INFINITY;
  const uint64_t total = (uint64_t)1 << (bps * nt);
  for (uint64_t c = 0; c < total; c++) {
    double m = 0.0;
    for (int r = 0; r < nr; r++) {
      zd e = to_zd(y[r]);
      for (int t = 0; t < nt; t++) e -= hs[t][(c >> (bps * t)) & (M - 1)][r];
      m += abs2(e);
    }
    if (m < o->best) {
      o->second = o->best;
      o->best = m;
      for (int t = 0; t < nt; t++) o->lab[t] = (uint32_t)(c >> (bps * t)) & (M - 1);
    } else if (m < o->second) {
      o->second = m;
    }
    for (int t = 0; t < nt; t++) {
      const uint32_t l = (uint32_t)(c >> (bps * t)) & (M - 1);
      for (int k = 0; k < bps; k++) {
        double *mm = (l >> k) & 1u ? &o->m1[t * bps + k] : &o->m0[t * bps + k];
        if (m < *mm) *mm = m;
      }
    }
  }
}

static const double snrs_db[] = {0.0, 10.0, 20.0, 30.0};
#define NSNR 4

/* --- the symbols: the searches' own map is qam_map, bit for bit ----------- */
static void test_symbols(void) {
  static const int bpss[] = {1, 2, 4, 6, 8};
  int bad = 0;
  for (int b = 0; b < 5; b++) {
    const int bps = bpss[b], hq = det_hq_(bps), li = 1 << (bps - hq), lq = 1 << hq;
    for (uint32_t l = 0; l < 1u << bps; l++) {
      const cf32 a = det_sym_(l, hq, li, lq, qam_scale(bps)), q = qam_map(bps, l);
      bad += memcmp(&a, &q, sizeof a) != 0;
    }
  }
  CHECK(bad == 0, "det_sym_ differs from qam_map on %d labels", bad);
}

/* --- det_sqrd ------------------------------------------------------------ */
/* Every identity below holds to c u times its natural scale, c = nr + nt:
 * MGS's R (and zq, y being carried as one more column) is the exact R of
 * [H y] + dE with ||dE|| ~ c u ||[H y]|| whatever the conditioning (Bjorck and
 * Paige), so the Gram identities, the residual and the metric through the QR
 * hold to that without a condition number; the pivot rule holds to the
 * rounding of the residual norms.  The worst ratios measured are printed
 * (at most 2.7, the residual at 1x1: ||y||^2 - ||zq||^2 in double inherits
 * the few-u relative error of the float |zq|^2); SQRD_TOL = 8 stands above
 * them, and a wrong pivot rule, a wrong R or a Q that is not applied to y
 * exceeds it by orders of magnitude (errors of order 1 are ~10^6 here). */
#define SQRD_TOL 8.0

static double worst(double w, double v) { return v > w || v != v ? v : w; } /* NaN counts as worst */

static void test_sqrd(void) {
  static const int sizes[][2] = {{1, 1}, {2, 2}, {3, 3}, {4, 2}, {4, 4}, {5, 3}, {8, 8}, {16, 8}, {16, 1}};
  test_rng_seed(101);
  for (size_t sz = 0; sz < sizeof sizes / sizeof sizes[0]; sz++) {
    const int nr = sizes[sz][0], nt = sizes[sz][1];
    int bad_perm = 0, bad_shape = 0;
    /* worst error / (c u scale) of each identity, c = nr + nt (the length of
     * the float sums behind an entry): must stay below SQRD_TOL */
    double w_gram = 0.0, w_zq = 0.0, w_res = 0.0, w_order = 0.0, w_metric = 0.0;
    const double cu = (nr + nt) * U24;
    const int trials = 2000;
    for (int trial = 0; trial < trials; trial++) {
      cf32 h[MAT_MAX_RX * MAT_MAX_N], y[MAT_MAX_RX], r[MAT_MAX_N * MAT_MAX_N], zq[MAT_MAX_N];
      int perm[MAT_MAX_N];
      for (int e = 0; e < nr * nt; e++) h[e] = to_cf(cnormal());
      /* every fourth H: a column close to another (cond ~1e3..1e5), where the
       * order of the columns and MGS's accuracy both matter; random scales */
      if (trial % 4 == 3 && nt >= 2) {
        const int a = (int)(test_rng_u64() % (uint64_t)nt), b = (a + 1) % nt;
        const double eps = pow(10.0, -3.0 - 2.0 * test_rng_u01());
        for (int k = 0; k < nr; k++) h[k * nt + b] = to_cf(to_zd(h[k * nt + a]) + eps * cnormal());
      }
      const double scale = pow(10.0, -2.0 + 4.0 * test_rng_u01());
      for (int e = 0; e < nr * nt; e++) h[e] = to_cf(scale * to_zd(h[e]));
      for (int k = 0; k < nr; k++) y[k] = to_cf(scale * 2.0 * cnormal());
      const float res = det_sqrd(nr, nt, h, y, perm, r, zq);

      int seen[MAT_MAX_N] = {0}, okp = 1;
      for (int i = 0; i < nt; i++) {
        if (perm[i] < 0 || perm[i] >= nt || seen[perm[i]]) okp = 0;
        else seen[perm[i]] = 1;
      }
      if (!okp) {
        bad_perm++;
        continue;
      }
      for (int i = 0; i < nt; i++) {
        if (!(r[i * nt + i].re >= 0.0f) || r[i * nt + i].im != 0.0f) bad_shape++;
        for (int j = 0; j < i; j++)
          if (r[i * nt + j].re != 0.0f || r[i * nt + j].im != 0.0f) bad_shape++;
      }
      double hf = 0.0, yn = 0.0;
      for (int e = 0; e < nr * nt; e++) hf += abs2(to_zd(h[e]));
      for (int k = 0; k < nr; k++) yn += abs2(to_zd(y[k]));
      /* R^H R = P^T H^H H P (exact for the R of H + dH, ||dH|| ~ u ||H||,
       * whatever the conditioning), R^H zq = P^T H^H y */
      for (int i = 0; i < nt; i++)
        for (int j = 0; j < nt; j++) {
          zd g = 0.0, rr = 0.0;
          for (int k = 0; k < nr; k++) g += conj(to_zd(h[k * nt + perm[i]])) * to_zd(h[k * nt + perm[j]]);
          for (int m = 0; m < nt; m++) rr += conj(to_zd(r[m * nt + i])) * to_zd(r[m * nt + j]);
          w_gram = worst(w_gram, cabs(g - rr) / (cu * hf));
        }
      for (int i = 0; i < nt; i++) {
        zd g = 0.0, rz = 0.0;
        for (int k = 0; k < nr; k++) g += conj(to_zd(h[k * nt + perm[i]])) * to_zd(y[k]);
        for (int m = 0; m < nt; m++) rz += conj(to_zd(r[m * nt + i])) * to_zd(zq[m]);
        w_zq = worst(w_zq, cabs(g - rz) / (cu * sqrt(hf * yn)));
      }
      double zn = 0.0;
      for (int i = 0; i < nt; i++) zn += abs2(to_zd(zq[i]));
      w_res = worst(w_res, res >= 0.0f ? fabs((double)res - (yn - zn)) / (cu * yn) : INFINITY);
      /* the ordering rule: at step i the chosen column had the smallest
       * residual norm, and column j's residual there is sum_{m=i..j} |r_mj|^2 */
      for (int i = 0; i < nt; i++)
        for (int j = i + 1; j < nt; j++) {
          double rest = 0.0;
          for (int m = i; m <= j; m++) rest += abs2(to_zd(r[m * nt + j]));
          w_order = worst(w_order, (abs2(to_zd(r[i * nt + i])) - rest) / (cu * hf));
        }
      /* the point of it all: ||y - Hx||^2 = ||zq - R P^T x||^2 + res */
      for (int rep = 0; rep < 4; rep++) {
        zd x[MAT_MAX_N];
        double xn = 0.0;
        for (int t = 0; t < nt; t++) {
          x[t] = scale * cnormal();
          xn += abs2(x[t]);
        }
        double direct = 0.0, viaqr = res;
        for (int k = 0; k < nr; k++) {
          zd e = to_zd(y[k]);
          for (int t = 0; t < nt; t++) e -= to_zd(h[k * nt + t]) * x[t];
          direct += abs2(e);
        }
        for (int i = 0; i < nt; i++) {
          zd e = to_zd(zq[i]);
          for (int j = i; j < nt; j++) e -= to_zd(r[i * nt + j]) * x[perm[j]];
          viaqr += abs2(e);
        }
        const double S = sqrt(yn) + sqrt(hf * xn);
        w_metric = worst(w_metric, fabs(direct - viaqr) / (cu * S * S));
      }
    }
    printf("sqrd %2dx%d, %d H: worst error / ((nr+nt) u scale): R^H R %.3f, R^H zq %.3f, residual %.3f, "
           "pivot order %.3f, metric %.3f\n", nr, nt, trials, w_gram, w_zq, w_res, w_order, w_metric);
    CHECK(bad_perm == 0, "sqrd %dx%d: %d permutations invalid", nr, nt, bad_perm);
    CHECK(bad_shape == 0, "sqrd %dx%d: %d entries of R off its shape", nr, nt, bad_shape);
    CHECK(w_gram <= SQRD_TOL, "sqrd %dx%d: R^H R off P^T H^H H P by %.3g (nr+nt) u ||H||_F^2", nr, nt, w_gram);
    CHECK(w_zq <= SQRD_TOL, "sqrd %dx%d: R^H zq off P^T H^H y by %.3g (nr+nt) u ||H|| ||y||", nr, nt, w_zq);
    CHECK(w_res <= SQRD_TOL, "sqrd %dx%d: residual off ||y||^2 - ||zq||^2 by %.3g (nr+nt) u ||y||^2", nr, nt,
          w_res);
    CHECK(w_order <= SQRD_TOL, "sqrd %dx%d: a pivot exceeds a remaining residual by %.3g (nr+nt) u ||H||_F^2", nr,
          nt, w_order);
    CHECK(w_metric <= SQRD_TOL, "sqrd %dx%d: metric through the QR off by %.3g (nr+nt) u S^2", nr, nt, w_metric);
  }
  /* a zero column is taken first, with r_00 = 0 and no NaN anywhere */
  {
    cf32 h[4 * 3], y[4], r[9], zq[3];
    int perm[3];
    for (int e = 0; e < 12; e++) h[e] = to_cf(cnormal());
    for (int k = 0; k < 4; k++) {
      h[k * 3 + 1] = cf_make(0.0f, 0.0f);
      y[k] = to_cf(cnormal());
    }
    const float res = det_sqrd(4, 3, h, y, perm, r, zq);
    int finite = isfinite(res);
    for (int e = 0; e < 9; e++) finite &= isfinite(r[e].re) && isfinite(r[e].im);
    for (int i = 0; i < 3; i++) finite &= isfinite(zq[i].re) && isfinite(zq[i].im);
    CHECK(finite, "sqrd with a zero column: non-finite output");
    CHECK(perm[0] == 1 && r[0].re == 0.0f, "sqrd with a zero column: perm[0] = %d, r_00 = %g", perm[0], r[0].re);
  }
}

/* --- det_ml against the brute force --------------------------------------- */
typedef struct cfg {
  int nr, nt, bps, per_snr;
} cfg;

static double worst_llr_ratio = 0.0;

static void test_ml(void) {
  static const cfg cfgs[] = {
      {2, 2, 2, 1000}, {2, 2, 4, 1000}, {2, 2, 6, 500}, {3, 3, 2, 1000}, {4, 4, 2, 500}, {4, 4, 4, 250},
      {4, 2, 4, 1000}, {2, 2, 1, 500},  {1, 1, 8, 500}, {2, 1, 8, 500},  {3, 2, 6, 200}, {8, 8, 1, 200},
      {16, 8, 1, 100}, {2, 2, 8, 25},
  };
  test_rng_seed(202);
  for (size_t ci = 0; ci < sizeof cfgs / sizeof cfgs[0]; ci++) {
    const cfg c = cfgs[ci];
    int res = 0, ties = 0, wrong = 0, bad_llr = 0, tie_inconsistent = 0;
    double worst = 0.0;
    for (int si = 0; si < NSNR; si++) {
      const double n0 = pow(10.0, -snrs_db[si] / 10.0);
      for (int rep = 0; rep < c.per_snr; rep++, res++) {
        cf32 h[MAT_MAX_RX * MAT_MAX_N], y[MAT_MAX_RX];
        uint32_t tx[MAT_MAX_N], lab[MAT_MAX_N];
        float llr[MAXB];
        bf_result bf;
        rayleigh_re(c.nr, c.nt, c.bps, n0, h, tx, y);
        brute(c.nr, c.nt, c.bps, h, y, &bf);
        det_ml(c.nr, c.nt, c.bps, h, y, (float)n0, 1e4f, lab, llr);
        const double S = err_scale(c.nr, c.nt, c.bps, h, y);
        const int tie =
            bf.second - bf.best <= fmax(1e-4 * bf.best, tol_m(c.nt, S, bf.best) + tol_m(c.nt, S, bf.second));
        ties += tie;
        if (memcmp(lab, bf.lab, sizeof(uint32_t) * (size_t)c.nt) != 0) {
          if (!tie) wrong++;
          /* a tie decided the other way must still be a near-best candidate */
          const double m = metric(c.nr, c.nt, c.bps, h, y, lab);
          if (!(m - bf.best <= fmax(1e-4 * bf.best, 2.0 * tol_m(c.nt, S, m)))) tie_inconsistent++;
        }
        for (int b = 0; b < c.nt * c.bps; b++) {
          const double ref = (bf.m0[b] - bf.m1[b]) / n0;
          const double tol = (tol_m(c.nt, S, bf.m0[b]) + tol_m(c.nt, S, bf.m1[b])) / n0 + 2.0 * U24 * fabs(ref);
          const double ratio = fabs((double)llr[b] - ref) / tol;
          worst = fmax(worst, ratio);
          if (!(ratio <= 1.0)) bad_llr++;
        }
      }
    }
    worst_llr_ratio = fmax(worst_llr_ratio, worst);
    printf("ml %2dx%d bps %d: %d REs at 0..30 dB, %d near-ties, %d wrong, worst LLR error / tol %.3g\n", c.nr,
           c.nt, c.bps, res, ties, wrong, worst);
    CHECK(wrong == 0, "ml %dx%d bps %d: %d decisions differ from the brute force outside near-ties", c.nr, c.nt,
          c.bps, wrong);
    CHECK(tie_inconsistent == 0, "ml %dx%d bps %d: %d tie decisions far from the best metric", c.nr, c.nt, c.bps,
          tie_inconsistent);
    /* rare: at most 1% (and 2 in a small sample) */
    CHECK(ties <= 2 + res / 100, "ml %dx%d bps %d: %d near-ties of %d REs: not rare", c.nr, c.nt, c.bps, ties, res);
    CHECK(bad_llr == 0, "ml %dx%d bps %d: %d LLRs off the brute force's max-log", c.nr, c.nt, c.bps, bad_llr);
  }
  printf("ml: worst LLR error / tolerance over all configurations %.3g (TOL_C = %.0f)\n", worst_llr_ratio, TOL_C);
}

/* --- det_kbest with every path kept is det_ml ----------------------------- */
static void test_kbest_full(void) {
  static const cfg cfgs[] = {{2, 2, 2, 400}, {2, 2, 4, 400}, {4, 4, 2, 300}, {2, 2, 1, 200},
                             {1, 1, 8, 200}, {8, 8, 1, 100}, {4, 2, 4, 200}};
  test_rng_seed(303);
  for (size_t ci = 0; ci < sizeof cfgs / sizeof cfgs[0]; ci++) {
    const cfg c = cfgs[ci];
    const int K = 1 << (c.bps * c.nt);
    int res = 0, diff_dec = 0, diff_llr = 0, identical = 0, nllr = 0;
    for (int si = 0; si < NSNR; si++) {
      const double n0 = pow(10.0, -snrs_db[si] / 10.0);
      for (int rep = 0; rep < c.per_snr; rep++, res++) {
        cf32 h[MAT_MAX_RX * MAT_MAX_N], y[MAT_MAX_RX];
        uint32_t tx[MAT_MAX_N], lm[MAT_MAX_N], lk[MAT_MAX_N];
        float am[MAXB], ak[MAXB];
        rayleigh_re(c.nr, c.nt, c.bps, n0, h, tx, y);
        det_ml(c.nr, c.nt, c.bps, h, y, (float)n0, 1e4f, lm, am);
        det_kbest(c.nr, c.nt, c.bps, K, h, y, (float)n0, 1e4f, lk, ak);
        if (memcmp(lm, lk, sizeof(uint32_t) * (size_t)c.nt) != 0) diff_dec++;
        for (int b = 0; b < c.nt * c.bps; b++, nllr++) {
          identical += am[b] == ak[b];
          if (!(fabs(am[b] - ak[b]) <= 4.0 * U24 * fmax(fabs(am[b]), fabs(ak[b])))) diff_llr++;
        }
      }
    }
    printf("kbest K = %d = M^nt, %dx%d bps %d: %d REs, %d decisions differ from ml, %d of %d LLRs bitwise equal\n",
           K, c.nr, c.nt, c.bps, res, diff_dec, identical, nllr);
    CHECK(diff_dec == 0, "kbest K=%d %dx%d bps %d: %d decisions differ from ml", K, c.nr, c.nt, c.bps, diff_dec);
    CHECK(diff_llr == 0, "kbest K=%d %dx%d bps %d: %d LLRs differ from ml beyond rounding", K, c.nr, c.nt, c.bps,
          diff_llr);
  }
}

/* --- K = 1 is successive cancellation on the sorted QR -------------------- */
static void test_kbest_sic(void) {
  static const cfg cfgs[] = {{4, 4, 4, 250}, {4, 4, 2, 250}, {8, 8, 2, 250}, {4, 2, 6, 250},
                             {2, 2, 8, 250}, {3, 3, 1, 250}, {16, 8, 4, 100}};
  const float clip = 37.5f;
  test_rng_seed(404);
  for (size_t ci = 0; ci < sizeof cfgs / sizeof cfgs[0]; ci++) {
    const cfg c = cfgs[ci];
    const uint32_t M = 1u << c.bps;
    int res = 0, ambiguous = 0, diff = 0, not_clip = 0;
    for (int si = 0; si < NSNR; si++) {
      const double n0 = pow(10.0, -snrs_db[si] / 10.0);
      for (int rep = 0; rep < c.per_snr; rep++, res++) {
        cf32 h[MAT_MAX_RX * MAT_MAX_N], y[MAT_MAX_RX], r[MAT_MAX_N * MAT_MAX_N], zq[MAT_MAX_N];
        uint32_t tx[MAT_MAX_N], lk[MAT_MAX_N], sic[MAT_MAX_N];
        int perm[MAT_MAX_N];
        float ak[MAXB];
        rayleigh_re(c.nr, c.nt, c.bps, n0, h, tx, y);
        det_kbest(c.nr, c.nt, c.bps, 1, h, y, (float)n0, clip, lk, ak);
        /* ZF-SIC in double on the float QR: last row first, cancel, decide the
         * nearest point of r_ii x to b_i */
        (void)det_sqrd(c.nr, c.nt, h, y, perm, r, zq);
        int amb = 0;
        for (int i = c.nt - 1; i >= 0; i--) {
          zd b = to_zd(zq[i]);
          for (int j = i + 1; j < c.nt; j++) b -= to_zd(r[i * c.nt + j]) * to_zd(qam_map(c.bps, sic[j]));
          const double rii = r[i * c.nt + i].re;
          double d1 = INFINITY, d2 = INFINITY;
          for (uint32_t s = 0; s < M; s++) {
            const double d = abs2(b - rii * to_zd(qam_map(c.bps, s)));
            if (d < d1) {
              d2 = d1;
              d1 = d;
              sic[i] = s;
            } else if (d < d2) {
              d2 = d;
            }
          }
          if (d2 - d1 <= 1e-5 * (abs2(b) + rii * rii * amax(c.bps) * amax(c.bps))) amb = 1;
        }
        if (amb) {
          ambiguous++;
        } else {
          for (int i = 0; i < c.nt; i++) diff += lk[perm[i]] != sic[i];
        }
        for (int t = 0; t < c.nt; t++)
          for (int k = 0; k < c.bps; k++)
            not_clip += ak[t * c.bps + k] != ((lk[t] >> k) & 1u ? clip : -clip);
      }
    }
    printf("kbest K = 1, %dx%d bps %d: %d REs, %d with a near-tie decision, %d decisions differ from SIC\n", c.nr,
           c.nt, c.bps, res, ambiguous, diff);
    CHECK(diff == 0, "kbest K=1 %dx%d bps %d: %d decisions differ from SQRD ZF-SIC", c.nr, c.nt, c.bps, diff);
    CHECK(ambiguous <= 2 + res / 100, "kbest K=1 %dx%d bps %d: %d ambiguous REs of %d", c.nr, c.nt, c.bps,
          ambiguous, res);
    CHECK(not_clip == 0, "kbest K=1 %dx%d bps %d: %d LLRs not +-clip with the decision's sign", c.nr, c.nt, c.bps,
          not_clip);
  }
}

/* --- any K: never a better metric than ML, LLR signs and magnitudes -------- */
static void test_kbest_small(void) {
  static const cfg cfgs[] = {{4, 4, 4, 100}, {4, 4, 2, 150}, {2, 2, 6, 150}, {8, 8, 1, 100}};
  static const int ks[] = {1, 2, 3, 4, 8, 16, 32, 64, 256};
  const float clip = 1e6f;
  test_rng_seed(505);
  for (size_t ci = 0; ci < sizeof cfgs / sizeof cfgs[0]; ci++) {
    const cfg c = cfgs[ci];
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
      const int K = ks[ki];
      if (K >= 1 << (c.bps * c.nt)) continue;
      int res = 0, better = 0, worse = 0, same = 0, bad_sign = 0, bad_mag = 0, clipped = 0;
      for (int si = 0; si < NSNR; si++) {
        const double n0 = pow(10.0, -snrs_db[si] / 10.0);
        for (int rep = 0; rep < c.per_snr; rep++, res++) {
          cf32 h[MAT_MAX_RX * MAT_MAX_N], y[MAT_MAX_RX];
          uint32_t tx[MAT_MAX_N], lm[MAT_MAX_N], lk[MAT_MAX_N];
          float am[MAXB], ak[MAXB];
          rayleigh_re(c.nr, c.nt, c.bps, n0, h, tx, y);
          det_ml(c.nr, c.nt, c.bps, h, y, (float)n0, clip, lm, am);
          det_kbest(c.nr, c.nt, c.bps, K, h, y, (float)n0, clip, lk, ak);
          const double S = err_scale(c.nr, c.nt, c.bps, h, y);
          const double mm = metric(c.nr, c.nt, c.bps, h, y, lm), mk = metric(c.nr, c.nt, c.bps, h, y, lk);
          const int eq = memcmp(lm, lk, sizeof(uint32_t) * (size_t)c.nt) == 0;
          same += eq;
          worse += !eq && mk > mm;
          if (!(mk >= mm - (tol_m(c.nt, S, mm) + tol_m(c.nt, S, mk)))) better++;
          for (int t = 0; t < c.nt; t++)
            for (int k = 0; k < c.bps; k++) {
              const float v = ak[t * c.bps + k];
              /* the best candidate is in the list: the sign is its bit's */
              if ((lk[t] >> k) & 1u ? !(v >= 0.0f) : !(v <= 0.0f)) bad_sign++;
              clipped += fabsf(v) == clip;
              /* same decision: the same best metric (same arithmetic), and a
               * counter-hypothesis over the list is no better than over all */
              if (eq && fabsf(v) != clip && !(fabsf(v) >= fabsf(am[t * c.bps + k]))) bad_mag++;
            }
        }
      }
      printf("kbest K = %3d, %dx%d bps %d: %d REs, %d as ml, %d worse metric, %d LLRs clipped\n", K, c.nr, c.nt,
             c.bps, res, same, worse, clipped);
      CHECK(better == 0, "kbest K=%d %dx%d bps %d: %d decisions with a smaller metric than ml", K, c.nr, c.nt,
            c.bps, better);
      CHECK(bad_sign == 0, "kbest K=%d %dx%d bps %d: %d LLR signs against the decision", K, c.nr, c.nt, c.bps,
            bad_sign);
      CHECK(bad_mag == 0, "kbest K=%d %dx%d bps %d: %d |LLR| below ml's with the same decision", K, c.nr, c.nt,
            c.bps, bad_mag);
    }
  }
}

/* --- noise-free, well-conditioned: every decision right -------------------- */
static void random_unitary(int n, zd *u) {
  for (int e = 0; e < n * n; e++) u[e] = cnormal();
  for (int col = 0; col < n; col++) {
    for (int pass = 0; pass < 2; pass++)
      for (int k = 0; k < col; k++) {
        zd d = 0.0;
        for (int r = 0; r < n; r++) d += conj(u[r * n + k]) * u[r * n + col];
        for (int r = 0; r < n; r++) u[r * n + col] -= d * u[r * n + k];
      }
    double s = 0.0;
    for (int r = 0; r < n; r++) s += abs2(u[r * n + col]);
    s = 1.0 / sqrt(s);
    for (int r = 0; r < n; r++) u[r * n + col] *= s;
  }
}

static void test_noise_free(void) {
  static const cfg cfgs[] = {{2, 2, 4, 200}, {4, 4, 4, 100}, {4, 2, 6, 200}, {2, 2, 8, 20},
                             {8, 8, 2, 50},  {16, 8, 1, 100}, {1, 1, 8, 200}, {3, 3, 2, 200}};
  static const int ks[] = {1, 2, 16, 256};
  const float clip = 20.0f;
  test_rng_seed(606);
  for (size_t ci = 0; ci < sizeof cfgs / sizeof cfgs[0]; ci++) {
    const cfg c = cfgs[ci];
    const int ml_ok = c.bps * c.nt <= 16; /* M^nt <= LINK_MAX_ML_CANDIDATES */
    int wrong_ml = 0, wrong_k = 0, bad_llr = 0;
    for (int rep = 0; rep < c.per_snr; rep++) {
      /* H = U diag(d) V^H, U's first nt columns, d in [0.7, 1.4], times a
       * scale log-uniform in [1e-3, 1e3]: cond(H) <= 2 */
      zd u[MAT_MAX_RX * MAT_MAX_RX], v[MAT_MAX_N * MAT_MAX_N];
      double d[MAT_MAX_N];
      random_unitary(c.nr, u);
      random_unitary(c.nt, v);
      const double scale = pow(10.0, -3.0 + 6.0 * test_rng_u01());
      for (int t = 0; t < c.nt; t++) d[t] = scale * (0.7 + 0.7 * test_rng_u01());
      cf32 h[MAT_MAX_RX * MAT_MAX_N], y[MAT_MAX_RX];
      uint32_t tx[MAT_MAX_N], lab[MAT_MAX_N];
      float llr[MAXB];
      for (int r = 0; r < c.nr; r++)
        for (int t = 0; t < c.nt; t++) {
          zd s = 0.0;
          for (int k = 0; k < c.nt; k++) s += u[r * c.nr + k] * d[k] * conj(v[t * c.nt + k]);
          h[r * c.nt + t] = to_cf(s);
        }
      draw_labels(c.nt, c.bps, tx);
      for (int r = 0; r < c.nr; r++) {
        zd s = 0.0;
        for (int t = 0; t < c.nt; t++) s += to_zd(h[r * c.nt + t]) * to_zd(qam_map(c.bps, tx[t]));
        y[r] = to_cf(s);
      }
      for (int pass = 0; pass < 2; pass++) {
        const float n0 = pass == 0 ? 0.0f : (float)(1e-2 * scale * scale);
        if (ml_ok) {
          det_ml(c.nr, c.nt, c.bps, h, y, n0, clip, lab, llr);
          wrong_ml += memcmp(lab, tx, sizeof(uint32_t) * (size_t)c.nt) != 0;
          for (int t = 0; pass == 0 && t < c.nt; t++)
            for (int k = 0; k < c.bps; k++) bad_llr += llr[t * c.bps + k] != ((tx[t] >> k) & 1u ? clip : -clip);
        }
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
          det_kbest(c.nr, c.nt, c.bps, ks[ki], h, y, n0, clip, lab, llr);
          wrong_k += memcmp(lab, tx, sizeof(uint32_t) * (size_t)c.nt) != 0;
          for (int t = 0; pass == 0 && t < c.nt; t++)
            for (int k = 0; k < c.bps; k++) bad_llr += llr[t * c.bps + k] != ((tx[t] >> k) & 1u ? clip : -clip);
          /* hard output only */
          det_kbest(c.nr, c.nt, c.bps, ks[ki], h, y, n0, clip, lab, NULL);
          wrong_k += memcmp(lab, tx, sizeof(uint32_t) * (size_t)c.nt) != 0;
        }
      }
    }
    printf("noise-free %2dx%d bps %d: %d channels, cond <= 2, ml %s, kbest K = 1, 2, 16, 256\n", c.nr, c.nt, c.bps,
           c.per_snr, ml_ok ? "and" : "skipped (M^nt too large),");
    CHECK(wrong_ml == 0, "noise-free %dx%d bps %d: %d wrong ml decisions", c.nr, c.nt, c.bps, wrong_ml);
    CHECK(wrong_k == 0, "noise-free %dx%d bps %d: %d wrong kbest decisions", c.nr, c.nt, c.bps, wrong_k);
    CHECK(bad_llr == 0, "noise-free %dx%d bps %d: %d LLRs not +-clip with the sent bit's sign", c.nr, c.nt, c.bps,
          bad_llr);
  }
}

/* --- exact ties: a stream the channel does not see ------------------------- */
static void test_ties(void) {
  test_rng_seed(707);
  int bad = 0;
  for (int rep = 0; rep < 200; rep++) {
    const int nr = 2, nt = 2, bps = 4;
    cf32 h[4], y[2];
    uint32_t tx[2], lab[2];
    float llr[8];
    h[0] = to_cf(cnormal());
    h[2] = to_cf(cnormal());
    h[1] = h[3] = cf_make(0.0f, 0.0f); /* stream 1 unseen: all its symbols tie */
    draw_labels(nt, bps, tx);
    for (int r = 0; r < nr; r++) y[r] = to_cf(to_zd(h[r * nt]) * to_zd(qam_map(bps, tx[0])));
    det_ml(nr, nt, bps, h, y, 0.1f, 50.0f, lab, llr);
    bad += lab[0] != tx[0] || lab[1] != 0u;
    for (int k = 0; k < bps; k++) bad += llr[bps + k] != 0.0f; /* m0 == m1 exactly */
    det_kbest(nr, nt, bps, 256, h, y, 0.1f, 50.0f, lab, llr);
    bad += lab[0] != tx[0] || lab[1] != 0u;
    for (int k = 0; k < bps; k++) bad += llr[bps + k] != 0.0f;
    det_kbest(nr, nt, bps, 1, h, y, 0.1f, 50.0f, lab, llr);
    bad += lab[0] != tx[0] || lab[1] != 0u;
    for (int k = 0; k < bps; k++) bad += llr[bps + k] != -50.0f;
  }
  CHECK(bad == 0, "ties: %d outputs off (the unseen stream: label 0 first in both orders, LLR 0 or -clip)", bad);
}

/* --- K-best's order: the list is the K first children by (key, g) ------- */
/* A reference K-best that keeps every child of a layer and sorts them all
 * (qsort on the key of the metric, then the generation index g = p*M + c)
 * before keeping K: the order equalizer/detect.h defines, reached by a
 * different algorithm from det_kbest's insertion (and from the GPU's
 * selection).  The metrics come from the same helpers, so the lists must be
 * equal entry for entry: decisions and LLRs bit for bit, also where metrics
 * tie exactly (H and y on an integer grid, a zero column) and where every
 * metric is NaN (a NaN in y). */
typedef struct {
  uint32_t key, g;
  float v;
  uint64_t path;
} ref_child;

static int ref_cmp(const void *a, const void *b) {
  const ref_child *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->g < y->g ? -1 : x->g > y->g;
}

static void ref_kbest(int nr, int nt, int bps, int K, const cf32 *h, const cf32 *y, float n0, float clip,
                      uint32_t *lab, float *llr) {
  cf32 r[MAT_MAX_N * MAT_MAX_N], zq[MAT_MAX_N];
  int perm[MAT_MAX_N];
  (void)det_sqrd(nr, nt, h, y, perm, r, zq);
  const int hq = det_hq_(bps), li = 1 << (bps - hq), lq = 1 << hq, M = 1 << bps;
  const float sc = qam_scale(bps);
  static ref_child ch[LINK_MAX_KBEST << 8];
  static float pm[LINK_MAX_KBEST];
  static uint64_t path[LINK_MAX_KBEST];
  int n = 1;
  pm[0] = 0.0f;
  path[0] = 0u;
  for (int i = nt - 1; i >= 0; i--) {
    int nc = 0;
    for (int p = 0; p < n; p++) {
      const cf32 b = det_kbest_b_(nt, i, hq, li, lq, sc, r, zq, path[p]);
      float sqi[DET_MAX_LEVELS], sqq[DET_MAX_LEVELS];
      det_kbest_sq_(b, r[i * nt + i].re, li, lq, DET_MAX_LEVELS, sc, sqi, sqq);
      for (int c = 0; c < M; c++) {
        const float v = pm[p] + (sqi[c >> hq] + sqq[c & (lq - 1)]);
        ch[nc++] = (ref_child){det_key_(v), (uint32_t)(p * M + c), v, path[p] | ((uint64_t)c << (8 * i))};
      }
    }
    qsort(ch, (size_t)nc, sizeof ch[0], ref_cmp);
    n = nc < K ? nc : K;
    for (int e = 0; e < n; e++) {
      pm[e] = ch[e].v;
      path[e] = ch[e].path;
    }
  }
  float m0[MAXB], m1[MAXB];
  uint32_t bl[MAT_MAX_N];
  for (int e = 0; e < MAXB; e++) m0[e] = m1[e] = INFINITY;
  for (int e = 0; e < n; e++)
    for (int i = 0; i < nt; i++)
      for (int k = 0; k < bps; k++) {
        const int one = (int)((path[e] >> (8 * i + k)) & 1u);
        float *m = one ? &m1[i * DET_MAX_BPS + k] : &m0[i * DET_MAX_BPS + k];
        *m = pm[e] < *m ? pm[e] : *m;
      }
  for (int i = 0; i < nt; i++) bl[i] = (uint32_t)(path[0] >> (8 * i)) & 0xffu;
  det_output_(nt, bps, DET_MAX_BPS, perm, bl, m0, m1, n0, clip, lab, llr);
}

static void test_kbest_order(void) {
  static const cfg cfgs[] = {{2, 2, 2, 0}, {2, 2, 4, 0}, {4, 4, 2, 0}, {4, 4, 4, 0}, {3, 3, 6, 0}, {4, 2, 1, 0}};
  static const int ks[] = {1, 3, 16, 17, 64};
  test_rng_seed(909);
  for (size_t ci = 0; ci < sizeof cfgs / sizeof cfgs[0]; ci++) {
    const cfg c = cfgs[ci];
    int dec_off = 0, llr_off = 0, res = 0;
    for (int rep = 0; rep < 300; rep++) {
      cf32 h[MAT_MAX_RX * MAT_MAX_N], y[MAT_MAX_RX];
      uint32_t tx[MAT_MAX_N];
      const int kind = rep % 4; /* rayleigh, integer grid, zero column, NaN in y */
      rayleigh_re(c.nr, c.nt, c.bps, 0.05, h, tx, y);
      if (kind == 1) {
        for (int e = 0; e < c.nr * c.nt; e++) h[e] = cf_make(roundf(h[e].re * 1.5f), roundf(h[e].im * 1.5f));
        for (int r = 0; r < c.nr; r++) y[r] = cf_make(roundf(y[r].re * 2.0f) / 2.0f, roundf(y[r].im * 2.0f) / 2.0f);
      }
      if (kind == 2)
        for (int r = 0; r < c.nr; r++) h[r * c.nt + rep % c.nt] = cf_make(0.0f, 0.0f);
      if (kind == 3 && rep % 8 == 3) y[0].re = NAN;
      for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        uint32_t la[MAT_MAX_N], lb[MAT_MAX_N];
        float a[MAXB], b[MAXB];
        det_kbest(c.nr, c.nt, c.bps, ks[ki], h, y, 0.05f, 30.0f, la, a);
        ref_kbest(c.nr, c.nt, c.bps, ks[ki], h, y, 0.05f, 30.0f, lb, b);
        for (int t = 0; t < c.nt; t++) {
          dec_off += la[t] != lb[t];
          for (int k = 0; k < c.bps; k++) llr_off += memcmp(&a[t * c.bps + k], &b[t * c.bps + k], sizeof(float)) != 0;
        }
        res++;
      }
    }
    printf("kbest order %dx%d bps %d: %d searches (K = 1, 3, 16, 17, 64), %d decisions and %d LLRs differ from "
           "the full sort\n", c.nr, c.nt, c.bps, res, dec_off, llr_off);
    CHECK(dec_off == 0 && llr_off == 0, "kbest order %dx%d bps %d: %d decisions, %d LLRs differ from the sort by "
          "(key, g)", c.nr, c.nt, c.bps, dec_off, llr_off);
  }
}

/* --- CPU time per RE (printed only) ---------------------------------------- */
static void timing(void) {
  static const cfg cfgs[] = {{2, 2, 4, 20000}, {4, 4, 4, 300}};
  test_rng_seed(808);
  for (size_t ci = 0; ci < 2; ci++) {
    const cfg c = cfgs[ci];
    const int n = c.per_snr;
    cf32 *h = malloc(sizeof(cf32) * (size_t)n * MAT_MAX_RX * MAT_MAX_N);
    cf32 *y = malloc(sizeof(cf32) * (size_t)n * MAT_MAX_RX);
    uint32_t tx[MAT_MAX_N], lab[MAT_MAX_N];
    float llr[MAXB];
    if (!h || !y) abort();
    for (int i = 0; i < n; i++)
      rayleigh_re(c.nr, c.nt, c.bps, 0.1, h + (size_t)i * c.nr * c.nt, tx, y + (size_t)i * c.nr);
    uint32_t sink = 0;
    double t0 = clock_seconds();
    for (int i = 0; i < n; i++) {
      det_ml(c.nr, c.nt, c.bps, h + (size_t)i * c.nr * c.nt, y + (size_t)i * c.nr, 0.1f, 1e4f, lab, llr);
      sink += lab[0] + (llr[0] > 0.0f);
    }
    const double tml = (clock_seconds() - t0) / n;
    printf("time %dx%d bps %d: ml %.2f us/RE (with LLRs)", c.nr, c.nt, c.bps, 1e6 * tml);
    static const int ks[] = {4, 16, 64, 256};
    for (int ki = 0; ki < 4; ki++) {
      t0 = clock_seconds();
      for (int i = 0; i < n; i++) {
        det_kbest(c.nr, c.nt, c.bps, ks[ki], h + (size_t)i * c.nr * c.nt, y + (size_t)i * c.nr, 0.1f, 1e4f, lab,
                  llr);
        sink += lab[0] + (llr[0] > 0.0f);
      }
      printf(", kbest K=%d %.2f us", ks[ki], 1e6 * (clock_seconds() - t0) / n);
    }
    printf(" (sink %u)\n", sink & 1u);
    free(h);
    free(y);
  }
}

int main(void) {
  test_symbols();
  test_sqrd();
  test_ml();
  test_kbest_full();
  test_kbest_sic();
  test_kbest_small();
  test_noise_free();
  test_ties();
  test_kbest_order();
  timing();
  return test_finish("test_detect");
}
