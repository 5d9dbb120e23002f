/* The per-point response and interpolation tables of a tdl channel (tdl_grid.h). */
#include "channel/tdl_grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double kPi = 3.14159265358979323846;

/* exp(-j 2 pi turns), the phase reduced to [-1/2, 1/2) turns first. */
static cf32 phasor(double turns) {
  turns -= floor(turns + 0.5);
  return cf_make((float)cos(2.0 * kPi * turns), (float)-sin(2.0 * kPi * turns));
}

/* The Hann-windowed sinc at offset x (|x| < W). */
static double interp_coef(double x) {
  if (x == 0.0) return 1.0;
  const double W = TDL_INTERP_HALF;
  return sin(kPi * x) / (kPi * x) * 0.5 * (1.0 + cos(kPi * x / W));
}

/* Tap l's interpolator: n coefficients c[i] at sample offsets first + i. */
static int interp_of(double tau, int *first, double *c) {
  if (tau == floor(tau)) {
    *first = (int)tau;
    c[0] = 1.0;
    return 1;
  }
  const int W = TDL_INTERP_HALF;
  *first = (int)floor(tau) - W + 1;
  for (int i = 0; i < 2 * W; i++) c[i] = interp_coef((double)(*first + i) - tau);
  return 2 * W;
}

void tdl_grid_free(tdl_grid *g) {
  if (!g) return;
  free(g->resp);
  free(g->td_delay);
  free(g->td_coef);
  memset(g, 0, sizeof *g);
}

static void freq_tables(const link_params *p, tdl_grid *g) {
  const int K = g->K;
  for (int l = 0; l < g->L; l++)
    for (int k = 0; k < K; k++) {
      const double kc = 2 * k < K ? k : k - K;
      g->resp[(size_t)l * K + k] = phasor(kc * p->pdp.delay[l] / K);
    }
}

static int time_tables(const link_params *p, tdl_grid *g) {
  const int K = g->K, L = g->L, W2 = 2 * TDL_INTERP_HALF;
  int first[TDL_MAX_TAPS], count[TDL_MAX_TAPS];
  double *c = malloc(sizeof(double) * (size_t)L * W2);
  if (!c) return -1;
  int lo = 0, hi = 0;
  for (int l = 0; l < L; l++) {
    count[l] = interp_of(p->pdp.delay[l], &first[l], c + (size_t)l * W2);
    if (first[l] < lo) lo = first[l];
    if (first[l] + count[l] - 1 > hi) hi = first[l] + count[l] - 1;
  }
  g->td_shift = -lo;
  /* The sample positions some tap reaches, in order. */
  const int span = hi - lo + 1;
  int *slot = malloc(sizeof(int) * (size_t)span);
  if (!slot) {
    free(c);
    return -1;
  }
  for (int d = 0; d < span; d++) slot[d] = -1;
  for (int l = 0; l < L; l++)
    for (int i = 0; i < count[l]; i++) slot[first[l] + i - lo] = 0;
  int n = 0;
  for (int d = 0; d < span; d++)
    if (slot[d] == 0) slot[d] = n++;
  g->td_taps = n;
  g->td_delay = malloc(sizeof(int) * (size_t)n);
  g->td_coef = calloc((size_t)n * L, sizeof(float));
  if (!g->td_delay || !g->td_coef) {
    free(slot);
    free(c);
    return -1;
  }
  for (int d = 0; d < span; d++)
    if (slot[d] >= 0) g->td_delay[slot[d]] = d;
  for (int l = 0; l < L; l++) {
    g->tap_first[l] = first[l] - lo;
    g->tap_count[l] = count[l];
    for (int i = 0; i < count[l]; i++) {
      g->td_coef[(size_t)slot[first[l] + i - lo] * L + l] = (float)c[(size_t)l * W2 + i];
      g->tap_coef[l][i] = (float)c[(size_t)l * W2 + i];
    }
  }
  /* The response of each tap's discrete form with the window rotation: the
   * coefficients as rounded to float, so resp is what the modem applies. */
  for (int l = 0; l < L; l++)
    for (int k = 0; k < K; k++) {
      double re = 0.0, im = 0.0;
      for (int j = 0; j < n; j++) {
        const double a = g->td_coef[(size_t)j * L + l];
        if (a == 0.0) continue;
        const double turns = (double)k * (double)(g->td_delay[j] - g->td_shift) / K;
        const double t = turns - floor(turns + 0.5);
        re += a * cos(2.0 * kPi * t);
        im -= a * sin(2.0 * kPi * t);
      }
      g->resp[(size_t)l * K + k] = cf_make((float)re, (float)im);
    }
  free(slot);
  free(c);
  return 0;
}

int tdl_grid_make(const link_params *p, tdl_grid *g, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  if (!p || p->model != CH_TDL || p->pdp.taps < 1 || p->pdp.taps > TDL_MAX_TAPS) {
    snprintf(err, errlen, "tdl_grid_make: not a tdl point with 1..%d taps", TDL_MAX_TAPS);
    return -1;
  }
  g->K = p->subcarriers;
  g->L = p->pdp.taps;
  g->resp = malloc(sizeof(cf32) * (size_t)g->K * (size_t)g->L);
  int rc = g->resp ? 0 : -1;
  if (!rc && p->domain == DOMAIN_TIME) rc = time_tables(p, g);
  else if (!rc) freq_tables(p, g);
  if (rc) {
    snprintf(err, errlen, "tdl_grid_make: out of memory for %d taps x %d subcarriers", g->L, g->K);
    tdl_grid_free(g);
    return -1;
  }
  return 0;
}

/* Subcarriers side by side in tdl_response. */
enum { RESP_BLOCK = 64 };

/* Per subcarrier the chain acc = cf_fma_exact(acc, taps_l, resp_l,k) over
 * l = 0 .. L-1 from +0, as written out component by component below; the
 * chains of RESP_BLOCK subcarriers run side by side, each the same
 * operations in the same order, so the loop over them vectorises (one
 * chain alone waits on its fmaf's latency at every tap). */
void tdl_response(const tdl_grid *g, int links, const cf32 *taps, int k0, int n, cf32 *Hk, size_t ldh) {
  const int L = g->L, K = g->K;
  for (int e = 0; e < links; e++)
    for (int j0 = 0; j0 < n; j0 += RESP_BLOCK) {
      const int nb = n - j0 < RESP_BLOCK ? n - j0 : RESP_BLOCK;
      float ar[RESP_BLOCK], ai[RESP_BLOCK];
      for (int q = 0; q < nb; q++) ar[q] = ai[q] = 0.0f;
      for (int l = 0; l < L; l++) {
        const cf32 h = taps[e * L + l];
        const cf32 *restrict b = g->resp + (size_t)l * K + k0 + j0;
        for (int q = 0; q < nb; q++) {
          ar[q] = fmaf(h.re, b[q].re, fmaf(-h.im, b[q].im, ar[q]));
          ai[q] = fmaf(h.re, b[q].im, fmaf(h.im, b[q].re, ai[q]));
        }
      }
      cf32 *out = Hk + (size_t)e * ldh + j0;
      for (int q = 0; q < nb; q++) out[q] = cf_make(ar[q], ai[q]);
    }
}

void tdl_discrete_taps(const tdl_grid *g, int links, const cf32 *taps, cf32 *d) {
  const int L = g->L, n = g->td_taps;
  for (int e = 0; e < links; e++)
    for (int j = 0; j < n; j++) {
      float re = 0.0f, im = 0.0f;
      for (int l = 0; l < L; l++) {
        const float a = g->td_coef[(size_t)j * L + l];
        const cf32 acc = cf_fma_real(cf_make(re, im), a, taps[e * L + l]);
        re = acc.re;
        im = acc.im;
      }
      d[(size_t)e * n + j] = cf_make(re, im);
    }
}
