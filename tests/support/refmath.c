#include "refmath.h"

#include <complex.h>
#include <math.h>

/* Series and Lentz continued fraction for the regularised incomplete gamma
 * (Numerical Recipes 6.2): each converges fast on its own side of x = a + 1,
 * in O(sqrt(a)) terms near the peak, so even counts of 1e9 are cheap. */
static double gamma_prefactor(double a, double x) {
  return exp(a * log(x) - x - lgamma(a));
}

static double gamma_p_series(double a, double x) {
  double ap = a, del = 1.0 / a, sum = del;
  for (long i = 0; i < 100000000L; i++) {
    ap += 1.0;
    del *= x / ap;
    sum += del;
    if (fabs(del) < fabs(sum) * 1e-16) break;
  }
  return sum * gamma_prefactor(a, x);
}

static double gamma_q_fraction(double a, double x) {
  const double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  for (long i = 1; i < 100000000L; i++) {
    const double an = -(double)i * ((double)i - a);
    b += 2.0;
    d = an * d + b;
    if (fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (fabs(del - 1.0) < 1e-16) break;
  }
  return h * gamma_prefactor(a, x);
}

double gamma_p(double a, double x) {
  if (!(a > 0.0) || !(x >= 0.0) || isinf(a)) return NAN;
  if (x == 0.0) return 0.0;
  if (isinf(x)) return 1.0;
  return x < a + 1.0 ? gamma_p_series(a, x) : 1.0 - gamma_q_fraction(a, x);
}

double gamma_q(double a, double x) {
  if (!(a > 0.0) || !(x >= 0.0) || isinf(a)) return NAN;
  if (x == 0.0) return 1.0;
  if (isinf(x)) return 0.0;
  return x < a + 1.0 ? 1.0 - gamma_p_series(a, x) : gamma_q_fraction(a, x);
}

int ber_consistent(uint64_t errors, uint64_t bits, double p, int cluster, double conf) {
  if (errors > bits || !(p >= 0.0 && p <= 1.0) || cluster < 1 || !(conf > 0.0 && conf < 1.0))
    return 0;
  const double c = (double)cluster;
  const double k = (double)errors / c;            /* clusters, if all were full */
  const double lambda = (double)bits * p / c;     /* their expected number */
  const double tail = 0.5 * (1.0 - conf);
  if (lambda == 0.0) return errors == 0;
  /* P(N >= k) with N ~ Poisson(lambda); 1 at k = 0. */
  const double upper = k > 0.0 ? gamma_p(k, lambda) : 1.0;
  /* P(N <= k) */
  const double lower = gamma_q(k + 1.0, lambda);
  return upper > tail && lower > tail;
}

float eq_predicted_error_var(eq_kind kind, float n0, cf32 ginv_tt) {
  if (kind == EQ_ZF) return n0 * ginv_tt.re;
  /* mu = 1 - n0 (G^-1)_tt is the gain of stream t in W H; the unbiased
   * estimate's SINR is mu / (1 - mu). */
  float mu = 1.0f - n0 * ginv_tt.re;
  return (1.0f - mu) / mu;
}

typedef double complex zd;

static zd ref_entry(const double *a, int e) { return CMPLX(a[2 * e], a[2 * e + 1]); }

int ref_zinv(int n, const double *a, double *x) {
  if (n < 1 || n > REF_MAX_N) return 0;
  zd m[REF_MAX_N][2 * REF_MAX_N]; /* [A | I], reduced to [I | A^-1] */
  for (int r = 0; r < n; r++)
    for (int c = 0; c < 2 * n; c++)
      m[r][c] = c < n ? ref_entry(a, r * n + c) : (c - n == r ? 1.0 : 0.0);
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int r = k + 1; r < n; r++)
      if (cabs(m[r][k]) > cabs(m[p][k])) p = r;
    if (cabs(m[p][k]) == 0.0) return 0;
    for (int c = 0; c < 2 * n; c++) {
      const zd t = m[k][c];
      m[k][c] = m[p][c];
      m[p][c] = t;
    }
    const zd piv = m[k][k];
    for (int c = 0; c < 2 * n; c++) m[k][c] /= piv;
    for (int r = 0; r < n; r++) {
      if (r == k) continue;
      const zd f = m[r][k];
      for (int c = 0; c < 2 * n; c++) m[r][c] -= f * m[k][c];
    }
  }
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) {
      x[2 * (r * n + c)] = creal(m[r][n + c]);
      x[2 * (r * n + c) + 1] = cimag(m[r][n + c]);
    }
  return 1;
}

double ref_znorm_inf(int n, const double *a) {
  double best = 0.0;
  for (int r = 0; r < n; r++) {
    double s = 0.0;
    for (int c = 0; c < n; c++) s += cabs(ref_entry(a, r * n + c));
    if (s > best) best = s;
  }
  return best;
}

double ref_bessel_j0(double x) {
  const double q = 0.25 * x * x;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 100 && fabs(term) > 1e-18; k++) {
    term *= -q / ((double)k * (double)k);
    sum += term;
  }
  return sum;
}

void ref_acc_add(ref_acc *a, double v) {
  a->n += 1.0;
  const double d = v - a->mean;
  a->mean += d / a->n;
  a->m2 += d * (v - a->mean);
}

double ref_acc_se(const ref_acc *a) { return a->n > 1.0 ? sqrt(a->m2 / (a->n - 1.0) / a->n) : INFINITY; }
