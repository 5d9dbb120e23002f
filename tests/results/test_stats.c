/* Wilson intervals, the normal quantile, incomplete gamma tails and the
 * clustered-count consistency test: published values, identities, and
 * Monte-Carlo rejection / coverage rates. */
#include <math.h>
#include <stdint.h>

#include "results/stats.h"
#include "refmath.h"
#include "testutil.h"

/* Successes in n Bernoulli(p) trials, by geometric jumps between successes:
 * O(n p) work, so large n with small p stays cheap. */
static uint64_t draw_binomial(uint64_t *s, uint64_t n, double p) {
  if (p >= 1.0) return n;
  const double l1p = log1p(-p);
  uint64_t k = 0;
  double pos = -1.0;
  for (;;) {
    pos += floor(log(test_splitmix_u01(s)) / l1p) + 1.0;
    if (pos >= (double)n) return k;
    k++;
  }
}

static double phi_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* ---- normal quantile ------------------------------------------------------ */

static void test_normal_quantile(void) {
  CHECK(fabs(normal_quantile(0.975) - 1.959963985) < 1e-9, "q(0.975) = %.12f",
        normal_quantile(0.975));
  CHECK(fabs(normal_quantile(0.025) + 1.959963985) < 1e-9, "q(0.025) = %.12f",
        normal_quantile(0.025));
  CHECK(normal_quantile(0.5) == 0.0 || fabs(normal_quantile(0.5)) < 1e-15, "q(0.5) = %g",
        normal_quantile(0.5));
  CHECK(fabs(normal_quantile(0.8413447460685429) - 1.0) < 1e-9, "q(Phi(1)) = %.12f",
        normal_quantile(0.8413447460685429));
  CHECK(fabs(normal_quantile(1e-10) + 6.361340902404056) < 1e-9, "q(1e-10) = %.12f",
        normal_quantile(1e-10));
  CHECK(fabs(normal_quantile(0.995) - 2.5758293035489) < 1e-9, "q(0.995) = %.12f",
        normal_quantile(0.995));
  /* Round trip over the whole range, in every region of Acklam's fit: the
   * error in x is (Phi(x) - p) / phi(x). */
  double worst = 0.0;
  for (double lp = -300.0; lp < -0.31; lp += 0.0625) {
    const double p = pow(10.0, lp);
    for (int side = 0; side < 2; side++) {
      const double pp = side ? 1.0 - p : p;
      if (pp >= 1.0) continue;
      const double x = normal_quantile(pp);
      const double tail = side ? 0.5 * erfc(x / sqrt(2.0)) : phi_cdf(x); /* exact tail */
      const double want = side ? 1.0 - pp : pp;
      const double dens = exp(-0.5 * x * x) / sqrt(2.0 * 3.14159265358979323846);
      const double err = fabs(tail - want) / dens;
      if (err > worst) worst = err;
    }
  }
  CHECK(worst < 1e-9, "quantile round trip error %.3g", worst);
  CHECK(isinf(normal_quantile(0.0)) && normal_quantile(0.0) < 0, "q(0)");
  CHECK(isinf(normal_quantile(1.0)) && normal_quantile(1.0) > 0, "q(1)");
  CHECK(isnan(normal_quantile(-0.1)) && isnan(normal_quantile(1.1)) &&
            isnan(normal_quantile(NAN)),
        "q outside [0,1]");
}

/* ---- Wilson interval ------------------------------------------------------- */

static void check_wilson(uint64_t k, uint64_t n, double lo_want, double hi_want) {
  double lo, hi;
  wilson_interval(k, n, 0.95, &lo, &hi);
  CHECK(fabs(lo - lo_want) < 5e-5 && fabs(hi - hi_want) < 5e-5,
        "wilson(%llu, %llu) = [%.5f, %.5f], want [%.4f, %.4f]", (unsigned long long)k,
        (unsigned long long)n, lo, hi, lo_want, hi_want);
}

static void test_wilson_values(void) {
  check_wilson(0, 10, 0.0, 0.2775);
  check_wilson(5, 10, 0.2366, 0.7634);
  check_wilson(10, 10, 0.7225, 1.0);
  /* Newcombe, Stat. Med. 17 (1998), table I, method 3. */
  check_wilson(81, 263, 0.2553, 0.3662);
  check_wilson(15, 148, 0.0624, 0.1605);
  check_wilson(0, 20, 0.0, 0.1611);
  double lo, hi;
  wilson_interval(0, 10, 0.95, &lo, &hi);
  CHECK(lo == 0.0, "k = 0 lower bound %g, want exactly 0", lo);
  wilson_interval(10, 10, 0.95, &lo, &hi);
  CHECK(hi == 1.0, "k = n upper bound %g, want exactly 1", hi);
  wilson_interval(0, 0, 0.95, &lo, &hi);
  CHECK(lo == 0.0 && hi == 1.0, "n = 0 -> [%g, %g]", lo, hi);
  wilson_interval(11, 10, 0.95, &lo, &hi);
  CHECK(isnan(lo) && isnan(hi), "k > n not NAN");
  wilson_interval(1, 10, 1.0, &lo, &hi);
  CHECK(isnan(lo) && isnan(hi), "conf 1 not NAN");
  /* Symmetry, containment, and widening with confidence. */
  int bad = 0;
  for (uint64_t n = 1; n <= 60; n += 7)
    for (uint64_t k = 0; k <= n; k++) {
      double l1, h1, l2, h2, l3, h3;
      wilson_interval(k, n, 0.95, &l1, &h1);
      wilson_interval(n - k, n, 0.95, &l2, &h2);
      wilson_interval(k, n, 0.99, &l3, &h3);
      const double ph = (double)k / (double)n;
      if (fabs(l1 - (1.0 - h2)) > 1e-12 || fabs(h1 - (1.0 - l2)) > 1e-12) bad++;
      if (!(l1 <= ph && ph <= h1) || l1 < 0.0 || h1 > 1.0) bad++;
      if (!(l3 <= l1 && h3 >= h1)) bad++;
    }
  CHECK(bad == 0, "%d Wilson symmetry/containment/nesting failures", bad);
  /* A large count: half-width close to z sqrt(p(1-p)/n). */
  wilson_interval(1000000, 100000000, 0.95, &lo, &hi);
  const double wald = 1.959963985 * sqrt(0.01 * 0.99 / 1e8);
  CHECK(fabs(0.5 * (hi - lo) - wald) < 1e-3 * wald, "large-n half width %.6g vs %.6g",
        0.5 * (hi - lo), wald);
}

/* Exact coverage of the 95% interval: sum of the binomial pmf over the k
 * whose interval contains p. */
static double exact_coverage(double p, uint64_t n) {
  double cov = 0.0;
  for (uint64_t k = 0; k <= n; k++) {
    double lo, hi;
    wilson_interval(k, n, 0.95, &lo, &hi);
    if (lo <= p && p <= hi) {
      const double lpmf = lgamma((double)n + 1) - lgamma((double)k + 1) -
                          lgamma((double)(n - k) + 1) + (double)k * log(p) +
                          (double)(n - k) * log1p(-p);
      cov += exp(lpmf);
    }
  }
  return cov;
}

static void test_wilson_coverage(void) {
  static const struct { double p; uint64_t n; } cases[] = {
      {0.5, 20}, {0.1, 100}, {0.02, 1000}, {0.001, 30000}, {0.3, 500}};
  uint64_t seed = 2024;
  const int trials = 20000;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const double p = cases[c].p;
    const uint64_t n = cases[c].n;
    int covered = 0;
    for (int t = 0; t < trials; t++) {
      const uint64_t k = draw_binomial(&seed, n, p);
      double lo, hi;
      wilson_interval(k, n, 0.95, &lo, &hi);
      if (lo <= p && p <= hi) covered++;
    }
    const double mc = (double)covered / trials;
    const double exact = exact_coverage(p, n);
    const double sd = sqrt(exact * (1.0 - exact) / trials);
    CHECK(mc > 0.925 && mc < 0.975, "p %g n %llu: MC coverage %.4f", p, (unsigned long long)n, mc);
    CHECK(exact > 0.925 && exact < 0.975, "p %g n %llu: exact coverage %.4f", p,
          (unsigned long long)n, exact);
    CHECK(fabs(mc - exact) < 4.5 * sd, "p %g n %llu: MC %.4f vs exact %.4f", p,
          (unsigned long long)n, mc, exact);
  }
}

/* ---- incomplete gamma ----------------------------------------------------- */

static double poisson_upper_direct(double lambda, int k) { /* P(N >= k) */
  double term = exp(-lambda), below = 0.0;
  for (int j = 0; j < k; j++) {
    below += term;
    term *= lambda / (j + 1);
  }
  return 1.0 - below;
}

static void test_gamma(void) {
  int bad = 0;
  for (double x = 0.01; x < 60.0; x *= 1.3) {
    if (fabs(gamma_p(1.0, x) - (-expm1(-x))) > 1e-13) bad++;
    if (fabs(gamma_q(1.0, x) - exp(-x)) > 1e-13 * fmax(1.0, exp(-x) * 1e3)) bad++;
    if (fabs(gamma_p(0.5, x) - erf(sqrt(x))) > 1e-13) bad++;
    if (fabs(gamma_p(3.7, x) + gamma_q(3.7, x) - 1.0) > 1e-13) bad++;
  }
  CHECK(bad == 0, "%d incomplete gamma identity failures", bad);
  bad = 0;
  for (int k = 1; k <= 40; k += 3)
    for (double lambda = 0.5; lambda < 40.0; lambda *= 1.7) {
      const double want = poisson_upper_direct(lambda, k);
      if (want > 1e-6 && fabs(gamma_p(k, lambda) - want) > 1e-11) bad++;
    }
  CHECK(bad == 0, "%d Poisson tail mismatches", bad);
  /* P(a, a) -> 1/2 + 1/(3 sqrt(2 pi a)) for large a. */
  const double a = 1e6;
  const double want = 0.5 + 1.0 / (3.0 * sqrt(2.0 * 3.14159265358979323846 * a));
  CHECK(fabs(gamma_p(a, a) - want) < 1e-7, "P(1e6, 1e6) = %.10f want %.10f", gamma_p(a, a), want);
  CHECK(isnan(gamma_p(0.0, 1.0)) && isnan(gamma_q(1.0, -1.0)), "gamma bad input");
  CHECK(gamma_p(2.0, 0.0) == 0.0 && gamma_q(2.0, 0.0) == 1.0, "gamma at x = 0");
}

/* ---- ber_consistent ------------------------------------------------------- */

static void test_consistent_basic(void) {
  static const double means[] = {100.0, 1e4, 1e6};
  static const int clusters[] = {1, 8, 32};
  const uint64_t bits = 100000000ULL;
  int bad = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const double mu = means[i], c = clusters[j];
      const double p = mu / (double)bits;
      if (!ber_consistent((uint64_t)llround(mu), bits, p, clusters[j], 0.95)) bad++;
      const double off = 10.0 * sqrt(c * mu);
      if (ber_consistent((uint64_t)llround(mu + off), bits, p, clusters[j], 0.95)) bad++;
      if (mu - off > 0 && ber_consistent((uint64_t)llround(mu - off), bits, p, clusters[j], 0.95))
        bad++;
    }
  CHECK(bad == 0, "%d accept-the-mean / reject-10-sigma failures", bad);
  /* Binomial tails at c = 1: 2 sigma out is accepted, 5 sigma rejected. */
  CHECK(ber_consistent(10200, 10000000, 1e-3, 1, 0.99) && ber_consistent(9800, 10000000, 1e-3, 1, 0.99),
        "2 sigma rejected at 99%%");
  CHECK(!ber_consistent(10500, 10000000, 1e-3, 1, 0.99), "5 sigma high accepted at 99%%");
  CHECK(!ber_consistent(9500, 10000000, 1e-3, 1, 0.99), "5 sigma low accepted at 99%%");
  /* Zero expected errors. */
  CHECK(ber_consistent(0, 1000, 0.0, 4, 0.95) && !ber_consistent(1, 1000, 0.0, 4, 0.95),
        "p = 0");
  CHECK(ber_consistent(0, 1000, 1e-6, 4, 0.95), "no errors when about none expected");
  CHECK(!ber_consistent(0, 100000000, 1e-3, 4, 0.95), "no errors when 1e5 expected");
  /* Invalid arguments are never consistent. */
  CHECK(!ber_consistent(11, 10, 0.5, 1, 0.95) && !ber_consistent(1, 10, 1.5, 1, 0.95) &&
            !ber_consistent(1, 10, 0.1, 0, 0.95) && !ber_consistent(1, 10, 0.1, 1, 1.0),
        "invalid arguments accepted");
}

/* Rejection rates at 95% for counts that truly have the expected mean.
 * size: each RE of `cluster` bits errs with probability q and then loses
 * `fixed` bits, or a uniform 1..cluster when fixed is 0. */
static double rejection_rate(uint64_t *seed, uint64_t res, int cluster, double q, int fixed,
                             int trials) {
  const double mean_bits = fixed ? fixed : 0.5 * (cluster + 1);
  const double p = q * mean_bits / cluster;
  int rejected = 0;
  for (int t = 0; t < trials; t++) {
    const uint64_t hits = draw_binomial(seed, res, q);
    uint64_t errors = 0;
    for (uint64_t h = 0; h < hits; h++)
      errors += fixed ? (uint64_t)fixed : 1 + test_splitmix64(seed) % (uint64_t)cluster;
    if (!ber_consistent(errors, res * (uint64_t)cluster, p, cluster, 0.95)) rejected++;
  }
  return (double)rejected / trials;
}

static void test_consistent_rates(void) {
  uint64_t seed = 77;
  const int trials = 4000;
  const double sd = sqrt(0.05 * 0.95 / trials);
  /* Plain binomial bits (cluster 1): the Poisson test runs a little under
   * its nominal size because the count is discrete and binomial. */
  const double r1 = rejection_rate(&seed, 2000000, 1, 1e-4, 1, trials);
  CHECK(r1 > 0.015 && r1 < 0.05 + 3 * sd, "cluster 1: rejection rate %.4f", r1);
  /* Every error a full cluster of 16: the worst case the test is built for,
   * so it should sit near the nominal 5%. */
  const double r2 = rejection_rate(&seed, 1000000, 16, 3e-4, 16, trials);
  CHECK(r2 > 0.015 && r2 < 0.05 + 3 * sd, "full clusters: rejection rate %.4f", r2);
  /* Mixed cluster sizes: more concentrated than full clusters -> fewer
   * rejections, never more than nominal. */
  const double r3 = rejection_rate(&seed, 1000000, 16, 3e-4, 0, trials);
  CHECK(r3 < 0.05 + 3 * sd, "mixed clusters: rejection rate %.4f", r3);
  /* The same counts judged as if they were unclustered bits are rejected far
   * too often: the cluster bound is what keeps the test honest. */
  int rejected = 0;
  for (int t = 0; t < 1000; t++) {
    const uint64_t hits = draw_binomial(&seed, 1000000, 3e-4);
    if (!ber_consistent(hits * 16, 16000000, 3e-4, 1, 0.95)) rejected++;
  }
  CHECK(rejected > 300, "full clusters judged as cluster 1 rejected only %d/1000", rejected);
}

/* Student t quantiles against published values (to the 7 digits tables
 * give), on both sides of df = 30 where the bisection hands over to the
 * Cornish-Fisher expansion, and the symmetry and limits. */
static void test_t_quantile(void) {
  static const struct {
    double p, df, t;
  } v[] = {{0.975, 1, 12.7062047}, {0.975, 2, 4.3026527}, {0.975, 5, 2.5705818},
           {0.975, 9, 2.2621572},  {0.975, 29, 2.0452296}, {0.975, 30, 2.0422725},
           {0.975, 31, 2.0395134}, {0.975, 100, 1.9839715}, {0.975, 1000, 1.9623391},
           {0.995, 30, 2.7499957}, {0.995, 10, 3.1692727}, {0.9, 40, 1.3030771}};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    const double t = t_quantile(v[i].p, v[i].df);
    CHECK(fabs(t - v[i].t) < 2e-6 * v[i].t, "t(%g, %g) = %.9f, expected %.7f", v[i].p, v[i].df, t, v[i].t);
    CHECK(t_quantile(1.0 - v[i].p, v[i].df) == -t, "symmetry at df %g", v[i].df);
  }
  CHECK(fabs(t_quantile(0.975, 1e9) - 1.959963985) < 1e-8, "large df tends to z");
  CHECK(isnan(t_quantile(0.0, 5)) && isnan(t_quantile(0.5, 0)), "bad arguments give NAN");
}

int main(void) {
  test_normal_quantile();
  test_t_quantile();
  test_wilson_values();
  test_wilson_coverage();
  test_gamma();
  test_consistent_basic();
  test_consistent_rates();
  return test_finish("test_stats");
}
