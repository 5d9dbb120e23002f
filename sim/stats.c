/* Wilson intervals, the normal quantile, incomplete gamma tails and the
 * clustered-count consistency test (see stats.h for the reasoning). */
#include "sim/stats.h"

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
  const double nn = (double)n, ph = (double)k / nn, z2 = z * z;
  const double denom = 1.0 + z2 / nn;
  const double centre = (ph + z2 / (2.0 * nn)) / denom;
  const double half = z / denom * sqrt(ph * (1.0 - ph) / nn + z2 / (4.0 * nn * nn));
  /* At k = 0 (k = n) the bound is 0 (1) in exact arithmetic; say so exactly. */
  *lo = k == 0 ? 0.0 : fmax(0.0, centre - half);
  *hi = k == n ? 1.0 : fmin(1.0, centre + half);
}
