#include "bicm_ref.h"

#include <math.h>

/* Bit-wise capacity of one real dimension: an L-level Gray PAM, levels
 * a_i = (2i - (L-1)) s, noise N(0, sigma^2).  With equiprobable levels
 *     sum_j I(b_j; y) = nb - (1/L) sum_i E_n[ sum_j log2( sum_all p(y|a) / sum_{a: b_j(a) = b_j(a_i)} p(y|a) ) ],
 * y = a_i + n, since I(b; y) = E log2 p(y|b)/p(y) and p(y|b) = (2/L) sum_{class b} p(y|a),
 * p(y) = (1/L) sum_all p(y|a).  In t = n / sigma the likelihoods are
 * exp(-(d_k + t)^2 / 2), d_k = (a_i - a_k)/sigma, summed as log-sum-exp
 * (shifted by their maximum), and the expectation is the integral against the
 * standard normal density phi(t). */
typedef struct pam {
  int levels, bits;
  double s, sigma;
} pam;

static unsigned gray(unsigned i) { return i ^ (i >> 1); }

/* phi(t) * sum_j log2(S_all / S_class(j)) for transmitted level i */
static double integrand(const pam *p, int i, double t) {
  double m[16], mx = -INFINITY;
  for (int k = 0; k < p->levels; k++) {
    const double u = (double)(2 * (i - k)) * p->s / p->sigma + t;
    m[k] = -0.5 * u * u;
    mx = m[k] > mx ? m[k] : mx;
  }
  double all = 0.0;
  for (int k = 0; k < p->levels; k++) all += exp(m[k] - mx);
  double sum = 0.0;
  for (int j = 0; j < p->bits; j++) {
    const unsigned b = (gray((unsigned)i) >> j) & 1u;
    double cls = 0.0;
    for (int k = 0; k < p->levels; k++)
      if (((gray((unsigned)k) >> j) & 1u) == b) cls += exp(m[k] - mx);
    /* cls includes level i's own term exp(m_i - mx) >= exp(-t^2/2) >= e^-72
     * on |t| <= 12, so it never underflows */
    sum += log2(all / cls);
  }
  return sum * exp(-0.5 * t * t) * 0.39894228040143267794; /* 1/sqrt(2 pi) */
}

/* Gauss-Kronrod 7/15 (QUADPACK's qk15): Kronrod nodes xgk (xgk[1], [3], [5],
 * [7] are the Gauss ones), weights wgk, Gauss weights wg. */
static const double xgk[8] = {0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
                              0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
                              0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
                              0.207784955007898467600689403773245, 0.000000000000000000000000000000000};
static const double wgk[8] = {0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
                              0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
                              0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
                              0.204432940075298892414161999234649, 0.209482141084727828012999174891714};
static const double wg[4] = {0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
                             0.381830050505118944950369775488975, 0.417959183673469387755102040816327};

static double gk15(const pam *p, int i, double a, double b, double *err) {
  const double c = 0.5 * (a + b), h = 0.5 * (b - a);
  const double fc = integrand(p, i, c);
  double k = fc * wgk[7], g = fc * wg[3];
  for (int j = 0; j < 7; j++) {
    const double f = integrand(p, i, c - h * xgk[j]) + integrand(p, i, c + h * xgk[j]);
    k += wgk[j] * f;
    if (j & 1) g += wg[j / 2] * f;
  }
  *err = fabs((k - g) * h);
  return k * h;
}

/* Adaptive bisection until the Gauss/Kronrod difference is below tol on each
 * piece (tol halved with each split). */
static double adapt(const pam *p, int i, double a, double b, double tol, int depth) {
  double err;
  const double v = gk15(p, i, a, b, &err);
  if (err <= tol || depth >= 40) return v;
  const double m = 0.5 * (a + b);
  return adapt(p, i, a, m, 0.5 * tol, depth + 1) + adapt(p, i, m, b, 0.5 * tol, depth + 1);
}

static double pam_bitwise_capacity(const pam *p) {
  /* phi beyond |t| = 12 has mass 3.6e-33; the integrand grows only
   * polynomially in t there */
  const double T = 12.0;
  double loss = 0.0;
  for (int i = 0; i < p->levels; i++) {
    /* pieces bounded by the decision thresholds (where the integrand turns
     * fastest at high SNR): y = a_i + sigma t at the midpoint (2m+1-(L-1)) s */
    double cut[18];
    int nc = 0;
    cut[nc++] = -T;
    for (int m = 0; m + 1 < p->levels; m++) {
      const double t = ((double)(2 * m + 1 - (p->levels - 1)) * p->s - (double)(2 * i - (p->levels - 1)) * p->s) / p->sigma;
      if (t > -T && t < T) cut[nc++] = t;
    }
    cut[nc++] = T;
    /* the thresholds ascend with m, so the cuts are sorted */
    for (int c = 0; c + 1 < nc; c++) loss += adapt(p, i, cut[c], cut[c + 1], 1e-13, 0);
  }
  return (double)p->bits - loss / (double)p->levels;
}

double bicm_capacity(int bps, double esn0_db) {
  if (bps != 1 && bps != 2 && bps != 4 && bps != 6 && bps != 8) return NAN;
  const double n0 = pow(10.0, -esn0_db / 10.0);
  pam p;
  p.sigma = sqrt(0.5 * n0);
  if (bps == 1) {
    p.levels = 2;
    p.bits = 1;
    p.s = 1.0;
    return pam_bitwise_capacity(&p);
  }
  p.bits = bps / 2;
  p.levels = 1 << p.bits;
  p.s = sqrt(3.0 / (2.0 * (double)((1 << bps) - 1)));
  return 2.0 * pam_bitwise_capacity(&p);
}
