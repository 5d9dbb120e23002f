/* The time autocorrelation of the chain's fading (fading_corr.h). */
#include "channel/fading_corr.h"

#include <math.h>

#include "channel/tdl_fading.h"

static const double kPi = 3.14159265358979323846;

/* D(f)^2 in double (tdl_dirichlet's formula). */
static double dirichlet2(double f, int K) {
  const double x = kPi * f;
  if (fabs(x) < 1e-12 || K <= 1) return 1.0;
  const double d = sin(x * K) / (K * sin(x));
  return d * d;
}

/* The integrand is smooth and periodic in a, so the trapezoid rule over
 * equally spaced angles converges faster than any power of their number;
 * 512 angles resolve lags up to nu t of about 70 cycles (a frame at the
 * largest Doppler, a quarter of the subcarrier spacing, spans S / 4). */
#define CORR_ANGLES 512

double fading_corr_nlos(double nu, int K, double t) {
  if (nu == 0.0) return 1.0;
  double sum = 0.0;
  for (int i = 0; i < CORR_ANGLES; i++) {
    const double f = nu * cos(2.0 * kPi * (i + 0.5) / CORR_ANGLES);
    sum += dirichlet2(f, K) * cos(2.0 * kPi * f * t);
  }
  return sum / CORR_ANGLES;
}

void fading_corr_los(double nu, int K, double t, double *re, double *im) {
  const double f = nu * TDL_LOS_COS, g = dirichlet2(f, K);
  *re = g * cos(2.0 * kPi * f * t);
  *im = g * sin(2.0 * kPi * f * t);
}
