/* Closed-form BER against independent code paths: textbook values, direct
 * numerical integration of the Gaussian over every decision region of the
 * actual Gray mapper, a Monte-Carlo run through qam_map/qam_demap, numerical
 * averaging over the Gamma pdf, and the model selection rules. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/qam.h"
#include "results/stats.h"
#include "sim/theory.h"
#include "refmath.h"
#include "testparams.h"
#include "testutil.h"

static const int all_bps[] = {1, 2, 4, 6, 8};
#define NBPS ((int)(sizeof all_bps / sizeof all_bps[0]))

static double rel_err(double got, double want) { return fabs(got - want) / fabs(want); }

static int popcount32(uint32_t x) {
  int n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}

/* ---- textbook values ---------------------------------------------------- */

static void test_known_values(void) {
  /* BPSK and QPSK share the BER at equal Eb/N0: Q(sqrt(2 Eb/N0)). */
  const double eb0 = 1.0, eb10 = 10.0;
  CHECK(rel_err(theory_ber_awgn(1, eb0), 7.8650e-2) < 1e-4, "bpsk 0 dB %.6e",
        theory_ber_awgn(1, eb0));
  CHECK(rel_err(theory_ber_awgn(2, 2 * eb0), 7.8650e-2) < 1e-4, "qpsk 0 dB %.6e",
        theory_ber_awgn(2, 2 * eb0));
  CHECK(rel_err(theory_ber_awgn(1, eb10), 3.8721e-6) < 1e-4, "bpsk 10 dB %.6e",
        theory_ber_awgn(1, eb10));
  CHECK(rel_err(theory_ber_awgn(2, 2 * eb10), 3.8721e-6) < 1e-4, "qpsk 10 dB %.6e",
        theory_ber_awgn(2, 2 * eb10));
  /* 16-QAM at Eb/N0 = 10 dB (Es/N0 = 40): the dominant term is
   * 3/8 erfc(2) = 1.7542e-3 and the next one erfc(6) is 2e-17. */
  const double ber16 = theory_ber_awgn(4, 40.0);
  CHECK(rel_err(ber16, 0.375 * erfc(2.0)) < 1e-12, "16qam 10 dB %.8e", ber16);
  CHECK(ber16 > 1.73e-3 && ber16 < 1.76e-3, "16qam 10 dB %.6e", ber16);
  /* Zero SNR: every bit is a coin flip. Infinite SNR: no errors. */
  for (int i = 0; i < NBPS; i++) {
    CHECK(fabs(theory_ber_awgn(all_bps[i], 0.0) - 0.5) < 1e-12, "bps %d at 0 SNR: %g",
          all_bps[i], theory_ber_awgn(all_bps[i], 0.0));
    CHECK(theory_ber_awgn(all_bps[i], INFINITY) == 0.0, "bps %d at inf SNR", all_bps[i]);
    CHECK(fabs(theory_ber_gamma(all_bps[i], 0.0, 3) - 0.5) < 1e-12, "bps %d gamma at 0 SNR",
          all_bps[i]);
    /* Strictly decreasing in SNR. */
    int mono = 1;
    double prev = 0.5;
    for (double db = -10; db <= 30; db += 0.5) {
      const double b = theory_ber_awgn(all_bps[i], pow(10.0, db / 10.0));
      if (!(b < prev) && b > 0) mono = 0;
      prev = b;
    }
    CHECK(mono, "bps %d awgn BER not decreasing", all_bps[i]);
  }
  /* Bad input. */
  CHECK(isnan(theory_ber_awgn(3, 1.0)) && isnan(theory_ber_awgn(2, -1.0)) &&
            isnan(theory_ber_awgn(2, NAN)),
        "awgn bad input not NAN");
  CHECK(isnan(theory_ber_gamma(2, 1.0, 0)) && isnan(theory_ber_gamma(5, 1.0, 1)) &&
            isnan(theory_ber_gamma(2, -1.0, 1)),
        "gamma bad input not NAN");
}

/* ---- AWGN by numerical integration over the decision regions ----------- */

/* Probability that a N(mean, sigma^2) sample falls in [lo, hi], by composite
 * Simpson on sigma/256 steps over the part within 38 sigma of the mean (the
 * density is below 1e-313 beyond). */
static double gauss_interval(double mean, double sigma, double lo, double hi) {
  lo = fmax(lo, mean - 38.0 * sigma);
  hi = fmin(hi, mean + 38.0 * sigma);
  if (!(hi > lo)) return 0.0;
  long n = (long)ceil((hi - lo) / sigma * 256.0);
  if (n < 2) n = 2;
  if (n & 1) n++;
  const double h = (hi - lo) / (double)n;
  const double norm = 1.0 / (sigma * sqrt(2.0 * 3.14159265358979323846));
  double sum = 0.0;
  for (long i = 0; i <= n; i++) {
    const double u = (lo + h * (double)i - mean) / sigma;
    const double f = exp(-0.5 * u * u);
    sum += f * (i == 0 || i == n ? 1.0 : (i & 1) ? 4.0 : 2.0);
  }
  return sum * h / 3.0 * norm;
}

/* BER of the real mapper at Es/N0: P(rx point | tx point) is the product of
 * the two per-dimension interval probabilities (independent noise of variance
 * N0/2 each), weighted by the Hamming distance of the mapper's own labels. */
static double ber_by_integration(int bps, double esn0) {
  const int dims = bps == 1 ? 1 : 2;
  const int levels = bps == 1 ? 2 : 1 << (bps / 2);
  const double m = (double)(1 << bps);
  const double s = bps == 1 ? 1.0 : sqrt(3.0 / (2.0 * (m - 1.0)));
  const double sigma = sqrt(0.5 / esn0);
  double p1[16][16]; /* [tx level][rx level] */
  for (int i = 0; i < levels; i++) {
    const double a = (2.0 * i - (levels - 1)) * s;
    for (int j = 0; j < levels; j++) {
      const double lo = j == 0 ? -INFINITY : (2.0 * j - levels) * s;
      const double hi = j == levels - 1 ? INFINITY : (2.0 * j + 2.0 - levels) * s;
      p1[i][j] = gauss_interval(a, sigma, lo, hi);
    }
  }
  double errs = 0.0;
  const int qlevels = dims == 2 ? levels : 1;
  for (int ii = 0; ii < levels; ii++)
    for (int iq = 0; iq < qlevels; iq++) {
      const float ai = (float)((2.0 * ii - (levels - 1)) * s);
      const float aq = dims == 2 ? (float)((2.0 * iq - (levels - 1)) * s) : 0.0f;
      const uint32_t tx = qam_demap(bps, cf_make(ai, aq));
      for (int ji = 0; ji < levels; ji++)
        for (int jq = 0; jq < qlevels; jq++) {
          if (ji == ii && jq == iq) continue;
          const float bi = (float)((2.0 * ji - (levels - 1)) * s);
          const float bq = dims == 2 ? (float)((2.0 * jq - (levels - 1)) * s) : 0.0f;
          const uint32_t rx = qam_demap(bps, cf_make(bi, bq));
          const double p = p1[ii][ji] * (dims == 2 ? p1[iq][jq] : 1.0);
          errs += p * popcount32(tx ^ rx);
        }
    }
  return errs / (m * bps);
}

static void test_awgn_integration(void) {
  static const double esn0_db[] = {-5.0, 0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0};
  for (int b = 0; b < NBPS; b++) {
    const int bps = all_bps[b];
    double worst = 0.0, worst_db = 0.0;
    int ran = 0;
    for (size_t k = 0; k < sizeof esn0_db / sizeof esn0_db[0]; k++) {
      const double esn0 = pow(10.0, esn0_db[k] / 10.0);
      const double want = ber_by_integration(bps, esn0);
      if (want < 1e-40) continue; /* nothing left to compare against */
      const double e = rel_err(theory_ber_awgn(bps, esn0), want);
      ran++;
      if (e > worst) worst = e, worst_db = esn0_db[k];
    }
    CHECK(ran >= 5, "bps %d: only %d points compared", bps, ran);
    CHECK(worst < 1e-6, "bps %d: closed form vs integration off by %.3g at %g dB", bps, worst,
          worst_db);
  }
}

/* ---- AWGN by Monte-Carlo through the mapper ----------------------------- */

static void test_awgn_monte_carlo(void) {
  /* Linear Es/N0 per bps where each BER is a few 1e-3; 16-QAM's 40 is the
   * Eb/N0 = 10 dB point of the textbook value above. */
  static const double esn0_of[] = {4.0, 8.0, 40.0, 126.0, 500.0};
  uint64_t seed = 12345;
  for (int b = 0; b < NBPS; b++) {
    const int bps = all_bps[b];
    const double esn0 = esn0_of[b];
    const double sigma = sqrt(0.5 / esn0);
    const uint64_t symbols = 1000000;
    uint64_t errors = 0;
    for (uint64_t n = 0; n < symbols; n++) {
      const uint32_t lab = (uint32_t)test_splitmix64(&seed) & ((1u << bps) - 1u);
      const cf32 x = qam_map(bps, lab);
      const double r = sigma * sqrt(-2.0 * log(test_splitmix_u01(&seed)));
      const double t = 6.283185307179586 * test_splitmix_u01(&seed);
      const cf32 y = cf_make(x.re + (float)(r * cos(t)), x.im + (float)(r * sin(t)));
      errors += (uint64_t)popcount32(qam_demap(bps, y) ^ lab);
    }
    const uint64_t bits = symbols * (uint64_t)bps;
    const double want = theory_ber_awgn(bps, esn0);
    CHECK(errors > 1000, "bps %d: only %llu errors", bps, (unsigned long long)errors);
    CHECK(ber_consistent(errors, bits, want, bps, 0.999), "bps %d: MC %.5e vs theory %.5e",
          bps, (double)errors / (double)bits, want);
  }
}

/* ---- fading: numerical average over the Gamma pdf ----------------------- */

/* E[theory_ber_awgn(bps, X)], X ~ Gamma(L, mean), with X = mean * e^s:
 * integrand ber(mean e^s) e^(L s - e^s) / (L-1)!, Simpson over s in [-80, 7]. */
static double gamma_by_integration(int bps, double mean, int L) {
  const double lo = -80.0, hi = 7.0;
  const long n = 60000;
  const double h = (hi - lo) / (double)n;
  const double log_fact = lgamma((double)L);
  double sum = 0.0;
  for (long i = 0; i <= n; i++) {
    const double s = lo + h * (double)i, t = exp(s);
    const double f = theory_ber_awgn(bps, mean * t) * exp(L * s - t - log_fact);
    sum += f * (i == 0 || i == n ? 1.0 : (i & 1) ? 4.0 : 2.0);
  }
  return sum * h / 3.0;
}

static void test_gamma_integration(void) {
  static const double mean_db[] = {-5.0, 5.0, 15.0, 25.0, 35.0};
  for (int b = 0; b < NBPS; b++) {
    const int bps = all_bps[b];
    for (int L = 1; L <= 4; L++) {
      double worst = 0.0, worst_db = 0.0;
      for (size_t k = 0; k < sizeof mean_db / sizeof mean_db[0]; k++) {
        const double mean = pow(10.0, mean_db[k] / 10.0);
        const double e = rel_err(theory_ber_gamma(bps, mean, L), gamma_by_integration(bps, mean, L));
        if (e > worst) worst = e, worst_db = mean_db[k];
      }
      CHECK(worst < 1e-4, "bps %d L %d: closed form vs integration off by %.3g at %g dB", bps, L,
            worst, worst_db);
    }
  }
}

static void test_rayleigh_textbook(void) {
  int bad = 0;
  for (double db = -10; db <= 50; db += 2.5) {
    const double g = pow(10.0, db / 10.0);
    /* BPSK, one branch: (1 - sqrt(g/(1+g)))/2; QPSK per bit sees g/2. */
    const double bpsk1 = 0.5 * (1.0 - sqrt(g / (1.0 + g)));
    const double qpsk1 = 0.5 * (1.0 - sqrt(0.5 * g / (1.0 + 0.5 * g)));
    /* BPSK, two branches (Proakis): ((1-mu)/2)^2 (2 + mu). */
    const double mu = sqrt(g / (1.0 + g));
    const double bpsk2 = 0.25 * (1.0 - mu) * (1.0 - mu) * (2.0 + mu);
    /* The subtraction 1 - mu loses digits at high SNR in these reference
     * forms, so the tolerance grows with g. */
    const double tol = 1e-12 * (1.0 + g);
    if (rel_err(theory_ber_gamma(1, g, 1), bpsk1) > tol) bad++;
    if (rel_err(theory_ber_gamma(2, g, 1), qpsk1) > tol) bad++;
    if (rel_err(theory_ber_gamma(1, g, 2), bpsk2) > tol * (1.0 + g)) bad++;
  }
  CHECK(bad == 0, "%d textbook Rayleigh values missed", bad);
  /* High SNR slope: BPSK L=1 -> 1/(4g), L=2 -> 3/(16 g^2), also far beyond
   * where a naive 1 - mu would have lost its digits. */
  static const double gs[] = {1e8, 1e14};
  for (int i = 0; i < 2; i++) {
    const double g = gs[i];
    CHECK(rel_err(theory_ber_gamma(1, g, 1), 1.0 / (4.0 * g)) < 1e-6,
          "bpsk L=1 asymptote at %g: %.6e", g, theory_ber_gamma(1, g, 1));
    CHECK(rel_err(theory_ber_gamma(1, g, 2), 3.0 / (16.0 * g * g)) < 1e-6,
          "bpsk L=2 asymptote at %g: %.6e", g, theory_ber_gamma(1, g, 2));
  }
}

/* ---- model selection ----------------------------------------------------- */

/* 2x2 16-QAM ZF over i.i.d. Rayleigh at Es/N0 = 10 dB; one OFDM symbol of 64
 * subcarriers (the frame shape does not enter the closed forms). */
static link_params base_params(void) {
  link_params p = tp_point(2, 2, 4, CH_RAYLEIGH, 64, 1, 0);
  p.equalizer = EQ_ZF;
  p.snr_kind = SNR_ESNO;
  p.snr_db = 10.0;
  p.n0 = 0.1;
  return p;
}

static void expect(const link_params *p, double want, const char *want_what, const char *label) {
  const char *what = "unset";
  const double got = theory_ber(p, &what);
  if (isnan(want)) {
    CHECK(isnan(got), "%s: got %g, want NAN", label, got);
  } else {
    CHECK(rel_err(got, want) < 1e-12, "%s: got %.10g, want %.10g", label, got, want);
  }
  CHECK(strcmp(what, want_what) == 0, "%s: what '%s', want '%s'", label, what, want_what);
  /* what may be NULL. */
  const double again = theory_ber(p, NULL);
  CHECK((isnan(got) && isnan(again)) || got == again, "%s: NULL what changed the result", label);
}

static void test_selection(void) {
  link_params p = base_params();

  p.model = CH_AWGN;
  expect(&p, theory_ber_awgn(4, 10.0), "awgn exact", "awgn 2x2 zf");
  p.equalizer = EQ_MMSE;
  expect(&p, theory_ber_awgn(4, 10.0), "awgn exact", "awgn 2x2 mmse");
  p.domain = DOMAIN_TIME;
  expect(&p, theory_ber_awgn(4, 10.0), "awgn exact", "awgn time domain");
  p.rx = 4;
  expect(&p, NAN, "", "awgn tx != rx");
  p.rx = 2;
  p.csi_error_var = 0.01;
  expect(&p, NAN, "", "awgn csi error");

  p = base_params();
  p.tx = 1;
  p.rx = 2;
  p.equalizer = EQ_MMSE;
  expect(&p, theory_ber_gamma(4, 10.0, 2), "rayleigh mrc L=2 exact", "1x2 mmse");
  p.equalizer = EQ_ZF;
  expect(&p, theory_ber_gamma(4, 10.0, 2), "rayleigh mrc L=2 exact", "1x2 zf");
  p.rx = 1;
  p.bps = 1;
  p.n0 = 0.5;
  expect(&p, 0.5 * (1.0 - sqrt(2.0 / 3.0)), "rayleigh mrc L=1 exact", "1x1 bpsk");
  p.rx = 16;
  expect(&p, theory_ber_gamma(1, 2.0, 16), "rayleigh mrc L=16 exact", "1x16");
  p.domain = DOMAIN_TIME;
  expect(&p, theory_ber_gamma(1, 2.0, 16), "rayleigh mrc L=16 exact", "1x16 time domain");

  p = base_params();
  p.tx = 2;
  p.rx = 4;
  p.bps = 6;
  p.n0 = 0.01;
  expect(&p, theory_ber_gamma(6, 100.0, 3), "zf iid rayleigh L=3 exact", "2x4 zf");
  p.tx = 4;
  expect(&p, theory_ber_gamma(6, 100.0, 1), "zf iid rayleigh L=1 exact", "4x4 zf");
  p.tx = 8;
  p.rx = 16;
  expect(&p, theory_ber_gamma(6, 100.0, 9), "zf iid rayleigh L=9 exact", "8x16 zf");
  p.tx = 4;
  p.rx = 2;
  expect(&p, NAN, "", "4x2 zf (rx < tx)");
  p.rx = 4;
  p.equalizer = EQ_MMSE;
  expect(&p, NAN, "", "4x4 mmse");

  /* Everything that leaves the plain i.i.d. models has no closed form: each
   * case is the base point with one departure. */
  static const char *const no_closed_form[] = {"tdl", "rho_tx", "rho_rx", "rician", "csi error",
                                               "bps 3", "tx 0", "rx too large", "negative n0"};
  enum { NO_CLOSED_FORM = sizeof no_closed_form / sizeof no_closed_form[0] };
  link_params q[NO_CLOSED_FORM];
  for (int i = 0; i < NO_CLOSED_FORM; i++) q[i] = base_params();
  q[0].model = CH_TDL;
  q[1].rho_tx = 0.5;
  q[2].rho_rx = 0.3;
  q[3].k_factor = 3.0;
  q[4].csi_error_var = 0.1;
  q[5].bps = 3;
  q[6].tx = 0;
  q[7].rx = LINK_MAX_RX + 1;
  q[7].tx = 1;
  q[8].n0 = -1.0;
  for (int i = 0; i < NO_CLOSED_FORM; i++) expect(&q[i], NAN, "", no_closed_form[i]);

  /* Es/N0 = 1/n0, whatever snr_kind produced n0; n0 = 0 is error free. */
  p = base_params();
  p.model = CH_AWGN;
  p.snr_kind = SNR_EBNO;
  p.n0 = 1.0 / 40.0;
  expect(&p, theory_ber_awgn(4, 40.0), "awgn exact", "awgn from n0");
  p.n0 = 0.0;
  const char *what = NULL;
  CHECK(theory_ber(&p, &what) == 0.0 && strcmp(what, "awgn exact") == 0, "noiseless awgn");
  p.model = CH_RAYLEIGH;
  CHECK(theory_ber(&p, &what) == 0.0 && strcmp(what, "zf iid rayleigh L=1 exact") == 0,
        "noiseless rayleigh");
}

int main(void) {
  test_known_values();
  test_awgn_integration();
  test_awgn_monte_carlo();
  test_gamma_integration();
  test_rayleigh_textbook();
  test_selection();
  return test_finish("test_theory");
}
