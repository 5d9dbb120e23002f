/* Closed-form BER: Gray square QAM over AWGN as a sum of erfc terms, and the
 * same sum averaged over Gamma-distributed SNR (MRC / ZF over Rayleigh). */
#include "sim/theory.h"

#include <math.h>

#define THEORY_MAX_TERMS 15 /* L - 1 for 256-QAM's 16 levels a dimension */
#define THEORY_MAX_L 64     /* well past LINK_MAX_RX; the binomials stay far from overflow */

int theory_erfc_terms(int bps, double *w, double *c2, int max_terms) {
  if (bps == 1) {
    /* Q(sqrt(2 g)) = erfc(sqrt(g)) / 2 */
    if (max_terms < 1) return 0;
    w[0] = 0.5;
    c2[0] = 1.0;
    return 1;
  }
  if (bps != 2 && bps != 4 && bps != 6 && bps != 8) return 0;
  const int half = bps / 2;          /* bits a dimension, log2(L) */
  const int levels = 1 << half;      /* L = sqrt(M) */
  const double m = (double)(1 << bps);
  const int terms = levels - 1;
  if (max_terms < terms) return 0;
  /* Cho & Yoon: bit k of a dimension (k = 1 is the MSB) errs
   * with probability (1/L) sum_i (-1)^floor(i 2^(k-1)/L)
   *   * (2^(k-1) - floor(i 2^(k-1)/L + 1/2)) * erfc((2i+1) sqrt(3 Es/N0 / (2(M-1)))),
   * i < (1 - 2^-k) L; the BER is the mean over the log2(L) bits. Collecting
   * the coefficient of each erfc gives w[i]. */
  for (int i = 0; i < terms; i++) {
    double sum = 0.0;
    for (int k = 1; k <= half; k++) {
      const int pk = 1 << (k - 1);
      const int imax = levels - (levels >> k); /* (1 - 2^-k) L */
      if (i >= imax) continue;
      const int q = (i * pk) / levels;
      const int r = (2 * i * pk + levels) / (2 * levels); /* floor(i 2^(k-1)/L + 1/2) */
      sum += ((q & 1) ? -1.0 : 1.0) * (double)(pk - r);
    }
    w[i] = sum / ((double)levels * (double)half);
    c2[i] = (double)((2 * i + 1) * (2 * i + 1)) * 3.0 / (2.0 * (m - 1.0));
  }
  return terms;
}

double theory_ber_awgn(int bps, double esn0) {
  double w[THEORY_MAX_TERMS], c2[THEORY_MAX_TERMS];
  const int n = theory_erfc_terms(bps, w, c2, THEORY_MAX_TERMS);
  if (n == 0 || !(esn0 >= 0.0)) return NAN;
  double ber = 0.0;
  for (int i = 0; i < n; i++) ber += w[i] * erfc(sqrt(c2[i] * esn0));
  return ber;
}

/* E[Q(sqrt(2 g X))] for X ~ Gamma(L, mean), the classic MRC-over-Rayleigh
 * result (Proakis, Digital Communications, sec. 14.4):
 *   ((1-mu)/2)^L sum_{k<L} C(L-1+k, k) ((1+mu)/2)^k,  mu = sqrt(g mean / (1 + g mean)).
 * 1 - mu is formed as (1 - mu^2)/(1 + mu) so that high SNR keeps its digits. */
static double gamma_avg_q(double g, double mean, int L) {
  const double x = g * mean;
  if (isinf(x)) return 0.0;
  const double mu = sqrt(x / (1.0 + x));
  const double one_minus_mu = (1.0 / (1.0 + x)) / (1.0 + mu);
  const double a = 0.5 * one_minus_mu, b = 0.5 * (1.0 + mu);
  double sum = 0.0, binom = 1.0, bk = 1.0; /* C(L-1+k, k), b^k */
  for (int k = 0; k < L; k++) {
    sum += binom * bk;
    binom = binom * (double)(L + k) / (double)(k + 1);
    bk *= b;
  }
  return pow(a, (double)L) * sum;
}

double theory_ber_gamma(int bps, double mean_esn0, int L) {
  double w[THEORY_MAX_TERMS], c2[THEORY_MAX_TERMS];
  const int n = theory_erfc_terms(bps, w, c2, THEORY_MAX_TERMS);
  if (n == 0 || !(mean_esn0 >= 0.0) || L < 1 || L > THEORY_MAX_L) return NAN;
  /* erfc(y) = 2 Q(y sqrt(2)), so erfc(sqrt(c2 X)) = 2 Q(sqrt(2 c2 X)): g = c2. */
  double ber = 0.0;
  for (int i = 0; i < n; i++) ber += w[i] * 2.0 * gamma_avg_q(c2[i], mean_esn0, L);
  return ber;
}

/* Static labels for the CSV, one per diversity order up to LINK_MAX_RX:
 * PREFIX "L=1 exact" ... PREFIX "L=16 exact" (index 0 unused). */
#define DIVERSITY_LABELS(prefix)                                                          \
  {"",                  prefix "L=1 exact",  prefix "L=2 exact",  prefix "L=3 exact",  \
   prefix "L=4 exact",  prefix "L=5 exact",  prefix "L=6 exact",  prefix "L=7 exact",  \
   prefix "L=8 exact",  prefix "L=9 exact",  prefix "L=10 exact", prefix "L=11 exact", \
   prefix "L=12 exact", prefix "L=13 exact", prefix "L=14 exact", prefix "L=15 exact", \
   prefix "L=16 exact"}
static const char *const mrc_what[LINK_MAX_RX + 1] = DIVERSITY_LABELS("rayleigh mrc ");
static const char *const zf_what[LINK_MAX_RX + 1] = DIVERSITY_LABELS("zf iid rayleigh ");

static int bps_supported(int bps) {
  return bps == 1 || bps == 2 || bps == 4 || bps == 6 || bps == 8;
}

static double no_closed_form(const char **what) {
  if (what) *what = "";
  return NAN;
}

double theory_ber(const link_params *p, const char **what) {
  if (!p || p->tx < 1 || p->tx > LINK_MAX_TX || p->rx < 1 || p->rx > LINK_MAX_RX ||
      !bps_supported(p->bps) || !(p->n0 >= 0.0))
    return no_closed_form(what);
  /* Any impairment on top of the plain model breaks the closed forms. */
  if (p->rho_tx != 0.0 || p->rho_rx != 0.0 || p->k_factor != 0.0 || p->csi_error_var != 0.0 ||
      p->estimation != EST_PERFECT)
    return no_closed_form(what);
  const double esn0 = 1.0 / p->n0; /* +inf for a noiseless link: BER 0 */

  switch (p->model) {
    case CH_AWGN:
      /* H = I: ZF passes y through, bias-corrected MMSE scales it back, and
       * the joint detectors decide each stream from its own y alone. */
      if (p->tx != p->rx) return no_closed_form(what);
      if (what) *what = "awgn exact";
      return theory_ber_awgn(p->bps, esn0);
    case CH_RAYLEIGH:
      if (p->tx == 1) {
        /* One stream: every detector is MRC (ZF and MMSE up to a positive
         * scale that bias correction removes; mmse-sic, kbest and ml decide
         * the one stream by its nearest point), so their decisions coincide. */
        if (what) *what = mrc_what[p->rx];
        return theory_ber_gamma(p->bps, esn0, p->rx);
      }
      if (p->equalizer == EQ_ZF && p->rx >= p->tx) {
        /* ZF over i.i.d. Rayleigh: each stream's post-detection SNR is
         * Es/N0 / [(H^H H)^-1]_tt, which is Gamma(rx - tx + 1, Es/N0). */
        const int L = p->rx - p->tx + 1;
        if (what) *what = zf_what[L];
        return theory_ber_gamma(p->bps, esn0, L);
      }
      return no_closed_form(what);
    default:
      return no_closed_form(what);
  }
}
