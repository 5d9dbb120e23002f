/* The interval of a point's BER (clustered errors), Wilson's interval, and the
 * normal and Student t quantiles behind them (see stats.h for the reasoning). */
#include "results/stats.h"

#include <math.h>

/* Acklam's rational approximation (relative error 1.15e-9) on the lower half,
 * then one Halley step on Phi(x) - p, which brings it to machine precision.
 * The upper half goes through symmetry because 1 - p is exact for p >= 0.5,
 * while the lower tail's small p keeps all its digits. */
double normal_quantile(double p) {
  if (!(p >= 0.0 && p <= 1.0)) return NAN;
  if (p == 0.0) return -INFINITY;
  if (p == 1.0) return INFINITY;
  if (p > 0.5) return -normal_quantile(1.0 - p);

  static const double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02,
                              -2.759285104469687e+02, 1.383577518672690e+02,
                              -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02,
                              -1.556989798598866e+02, 6.680131188771972e+01,
                              -1.328068155288572e+01};
  static const double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01,
                              -2.400758277161838e+00, -2.549732539343734e+00,
                              4.374664141464968e+00, 2.938163982698783e+00};
  static const double d[4] = {7.784695709041462e-03, 3.224671290700398e-01,
                              2.445134137142996e+00, 3.754408661907416e+00};
  const double p_low = 0.02425;
  double x;
  if (p < p_low) {
    const double q = sqrt(-2.0 * log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
  }
  /* Halley: f = Phi(x) - p, f' = phi(x), f'' = -x phi(x). */
  const double e = 0.5 * erfc(-x / sqrt(2.0)) - p;
  const double u = e * 2.5066282746310002 * exp(0.5 * x * x);
  return x - u / (1.0 + 0.5 * x * u);
}

/* Wilson's score interval on a real-valued sample: ph successes out of nn. */
static void wilson_real(double ph, double nn, double z, double *lo, double *hi) {
  const double z2 = z * z;
  const double denom = 1.0 + z2 / nn;
  const double centre = (ph + z2 / (2.0 * nn)) / denom;
  const double half = z / denom * sqrt(ph * (1.0 - ph) / nn + z2 / (4.0 * nn * nn));
  *lo = fmax(0.0, centre - half);
  *hi = fmin(1.0, centre + half);
}

void wilson_interval(uint64_t k, uint64_t n, double conf, double *lo, double *hi) {
  if (k > n || !(conf > 0.0 && conf < 1.0)) {
    *lo = *hi = NAN;
    return;
  }
  if (n == 0) {
    *lo = 0.0;
    *hi = 1.0;
    return;
  }
  const double z = -normal_quantile(0.5 * (1.0 - conf));
  wilson_real((double)k / (double)n, (double)n, z, lo, hi);
  /* At k = 0 (k = n) the bound is 0 (1) in exact arithmetic; say so exactly. */
  if (k == 0) *lo = 0.0;
  if (k == n) *hi = 1.0;
}

/* The regularised incomplete beta I_x(a, b) by Lentz's continued fraction
 * (Numerical Recipes 6.4), on the side of x where it converges fast. */
static double beta_cf(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (fabs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m < 10000; m++) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a - 1.0 + m2) * (a + m2));
    d = 1.0 + aa * d;
    d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
    c = 1.0 + aa / c;
    if (fabs(c) < tiny) c = tiny;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2));
    d = 1.0 + aa * d;
    d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
    c = 1.0 + aa / c;
    if (fabs(c) < tiny) c = tiny;
    const double del = d * c;
    h *= del;
    if (fabs(del - 1.0) < 1e-15) break;
  }
  return h;
}

static double incomplete_beta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_cf(a, b, x) / a;
  return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

/* P(T > t) for t >= 0, T Student's t with df degrees of freedom. */
static double t_upper_tail(double t, double df) {
  return 0.5 * incomplete_beta(0.5 * df, 0.5, df / (df + t * t));
}

double t_quantile(double p, double df) {
  if (!(p > 0.0 && p < 1.0) || !(df > 0.0)) return NAN;
  if (p < 0.5) return -t_quantile(1.0 - p, df);
  if (p == 0.5) return 0.0;
  if (df >= 30.0) {
    /* The Cornish-Fisher expansion in 1/df (Abramowitz and Stegun 26.7.5):
     * its error is below 1e-6 from 30 degrees of freedom on, and it is what
     * lets the precision rule evaluate the interval after every frame. */
    const double z = normal_quantile(p), z2 = z * z;
    const double g1 = (z2 + 1.0) * z / 4.0;
    const double g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
    const double g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
    const double g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0;
    return z + g1 / df + g2 / (df * df) + g3 / (df * df * df) + g4 / (df * df * df * df);
  }
  /* Bisection on the upper tail, bracketed by 0 and a bound that doubles
   * until it holds: 60 halvings leave it exact to double precision. */
  const double tail = 1.0 - p;
  double lo = 0.0, hi = 1.0;
  while (t_upper_tail(hi, df) > tail) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    const double mid = 0.5 * (lo + hi);
    if (t_upper_tail(mid, df) > tail) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

void ber_interval(const ber_sample *s, double conf, double *lo, double *hi) {
  if (!(conf > 0.0 && conf < 1.0) || s->errors > s->bits) {
    *lo = *hi = NAN;
    return;
  }
  if (s->bits == 0) {
    *lo = 0.0;
    *hi = 1.0;
    return;
  }
  const double z = -normal_quantile(0.5 * (1.0 - conf));
  const double B = (double)s->bits, ph = (double)s->errors / B, n = (double)s->frames;
  /* The effective sample: how many independent bits the data are worth. */
  double n_eff = (double)s->units;
  if (s->errors > 0 && s->frames >= 2 && ph < 1.0) {
    const double b = B / n, E = (double)s->errors;
    const double s2 = fmax(0.0, (s->sum_sq - E * E / n) / (n - 1.0)); /* of e_f */
    const double var = s2 / (n * b * b);                               /* of ph */
    const double deff = fmax(1.0, var / (ph * (1.0 - ph) / B));
    const double t = t_quantile(0.5 * (1.0 + conf), n - 1.0);
    n_eff = B / deff * (z / t) * (z / t);
  }
  if (n_eff > B) n_eff = B;
  if (!(n_eff >= 1.0)) n_eff = 1.0;
  wilson_real(ph, n_eff, z, lo, hi);
  if (s->errors == 0) *lo = 0.0;
}

void mean_interval(double sum, double sum_sq, uint64_t n, double conf, double *lo, double *hi) {
  *lo = *hi = NAN;
  if (n < 2 || !(conf > 0.0 && conf < 1.0)) return;
  const double k = (double)n, mean = sum / k;
  const double var = fmax(0.0, (sum_sq - sum * mean) / (k - 1.0));
  const double half = t_quantile(0.5 + 0.5 * conf, k - 1.0) * sqrt(var / k);
  *lo = mean - half;
  *hi = mean + half;
}
