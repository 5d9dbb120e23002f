/* The per-point tables of channel estimation (estimate.h), in double. */
#include "channel/estimate.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel/tdl_grid.h"

typedef double complex cd;

void est_plan_free(est_plan *e) {
  if (!e) return;
  free(e->first);
  free(e->w);
  free(e->sym_lo);
  free(e->sym_w);
  memset(e, 0, sizeof *e);
}

/* E[H_a conj(H_b)] of one link between subcarriers a and b: the profile's
 * taps (NLOS powers and the LOS path on tap 0) through their response as
 * the chain applies them; awgn (g NULL) is flat. */
static cd corr_at(const link_params *p, const tdl_grid *g, int a, int b) {
  if (!g) return 1.0;
  const int K = g->K;
  double re = 0.0, im = 0.0;
  for (int l = 0; l < g->L; l++) {
    const cf32 ra = g->resp[(size_t)l * K + a], rb = g->resp[(size_t)l * K + b];
    /* ra conj(rb), in reals */
    const double pw = (double)p->pdp.power[l] + (l == 0 ? (double)p->pdp.los_power : 0.0);
    re += pw * ((double)ra.re * rb.re + (double)ra.im * rb.im);
    im += pw * ((double)ra.im * rb.re - (double)ra.re * rb.im);
  }
  return re + im * I;
}

static double norm2(cd z) { return creal(z) * creal(z) + cimag(z) * cimag(z); }

/* In-place inverse of the n x n matrix a (row-major) by Gauss-Jordan with
 * partial pivoting (by squared magnitude); -1 when singular. gcc builds
 * the file with -fcx-limited-range: its complex products and quotients are the
 * textbook formulas (the matrices are well scaled: a covariance plus N0). */
static int invert(int n, cd *a, cd *inv) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) inv[i * n + j] = i == j;
  for (int c = 0; c < n; c++) {
    int piv = c;
    for (int r = c + 1; r < n; r++)
      if (norm2(a[r * n + c]) > norm2(a[piv * n + c])) piv = r;
    if (norm2(a[piv * n + c]) == 0.0) return -1;
    for (int j = 0; j < n; j++) {
      cd t = a[c * n + j];
      a[c * n + j] = a[piv * n + j];
      a[piv * n + j] = t;
      t = inv[c * n + j];
      inv[c * n + j] = inv[piv * n + j];
      inv[piv * n + j] = t;
    }
    const cd d = 1.0 / a[c * n + c];
    for (int j = 0; j < n; j++) {
      a[c * n + j] *= d;
      inv[c * n + j] *= d;
    }
    for (int r = 0; r < n; r++) {
      if (r == c) continue;
      const cd f = a[r * n + c];
      if (f == 0.0) continue;
      for (int j = 0; j < n; j++) {
        a[r * n + j] -= f * a[c * n + j];
        inv[r * n + j] -= f * inv[c * n + j];
      }
    }
  }
  return 0;
}

/* Antenna t's pilots in frequency order (channel/tdl_grid.h: subcarrier k
 * sits at kc = k below K/2 and k - K from K/2 on, the band -fs/2 .. fs/2):
 * the pilots from K/2 up (negative frequencies) come first, then those from
 * 0. Window position j is pilot (j + start) mod np, est_freq's wrap; pos[j]
 * is its frequency kc. Neighbours in this order are neighbours in the band
 * (across DC too); the two ends are the band edges, which no interpolation
 * reaches across: with continuous delays the response at K/2 - 1 (the top of
 * the band) has nothing to do with the one at K/2 (its bottom). */
static int freq_order(int K, int P, int t, int np, double *pos) {
  int start = 0;
  while (start < np && 2 * (t + start * P) < K) start++;
  if (start == np) start = 0;
  for (int j = 0; j < np; j++) {
    const int kp = t + ((j + start) % np) * P;
    pos[j] = 2 * kp < K ? kp : kp - K;
  }
  return start;
}

/* The weights of a subcarrier at frequency kc for nearest and linear over
 * the np pilots at frequencies pos[] (ascending): *first is the window's
 * position j. Nearest takes the closest pilot (a tie goes to the higher
 * one); linear the two around kc, and beyond the first or the last pilot
 * the line through the two nearest, extrapolated (an end pilot's value held
 * would be off by the channel's slope times the distance). */
static void simple_weights(interp_kind kind, int taps, int np, const double *pos, double kc, int *first, cd *w) {
  int j = 0; /* the last pilot at or below kc, or 0 */
  while (j + 1 < np && pos[j + 1] <= kc) j++;
  if (kind == INTERP_NEAREST || taps == 1) {
    *first = j + 1 < np && pos[j + 1] - kc <= kc - pos[j] ? j + 1 : j;
    w[0] = 1.0;
    return;
  }
  j = j > np - 2 ? np - 2 : j;
  const double x = (kc - pos[j]) / (pos[j + 1] - pos[j]);
  *first = j, w[0] = 1.0 - x, w[1] = x;
}

/* Antenna t's weights on every subcarrier, and per subcarrier the noise
 * part N0 sum |w|^2 and the model part of their error (what remains of the
 * LMMSE filter's error without its noise; 0 for nearest and linear, whose
 * receiver does not count it). Windows are positions in frequency order
 * (freq_order), stored as pilot indices. */
static int antenna_weights(const link_params *p, const tdl_grid *g, est_plan *e, int t, double *noise,
                           double *model) {
  const int K = e->K, T = e->taps, P = p->pilot_spacing, np = pilot_count(&e->pg, t);
  const double n0 = p->n0;
  cd R[EST_LMMSE_TAPS * EST_LMMSE_TAPS], A[EST_LMMSE_TAPS * EST_LMMSE_TAPS], Ai[EST_LMMSE_TAPS * EST_LMMSE_TAPS],
      w[EST_LMMSE_TAPS], c[EST_LMMSE_TAPS];
  double *pos = malloc(sizeof(double) * (size_t)np);
  if (!pos) return -1;
  const int start = freq_order(K, P, t, np, pos);
#define PILOT_SC(j) (t + (((j) + start) % np) * P) /* the subcarrier of window position j */
  int window = -1; /* the window R and Ai were made for */
  for (int k = 0; k < K; k++) {
    const size_t at = (size_t)t * K + k;
    const double kc = 2 * k < K ? k : k - K;
    int f;
    if (p->interpolation != INTERP_LMMSE) {
      simple_weights(p->interpolation, T, np, pos, kc, &f, w);
    } else {
      int below = 0; /* the last pilot at or below kc */
      while (below + 1 < np && pos[below + 1] <= kc) below++;
      f = below - T / 2 + 1;
      f = f < 0 ? 0 : f > np - T ? np - T : f;
      if (f != window) {
        /* the pilots' correlations R (Hermitian): a window moved by d < T
         * pilots keeps the overlap, shifted; the rest is computed */
        const int d = f - window, keep = window >= 0 && d > 0 && d < T ? T - d : 0;
        for (int i = 0; i < keep; i++)
          for (int j = i; j < keep; j++) R[i * T + j] = R[(i + d) * T + j + d];
        for (int i = 0; i < T; i++)
          for (int j = i < keep ? keep : i; j < T; j++) R[i * T + j] = corr_at(p, g, PILOT_SC(f + i), PILOT_SC(f + j));
        for (int i = 0; i < T; i++)
          for (int j = 0; j < T; j++) A[i * T + j] = (j >= i ? R[i * T + j] : conj(R[j * T + i])) + (i == j ? n0 : 0.0);
        if (invert(T, A, Ai)) {
          free(pos);
          return -1;
        }
        window = f;
      }
      for (int j = 0; j < T; j++) c[j] = corr_at(p, g, k, PILOT_SC(f + j));
      /* orthogonality: c_j = sum_i w_i A_ij, so w = A^-T c */
      for (int i = 0; i < T; i++) {
        w[i] = 0.0;
        for (int j = 0; j < T; j++) w[i] += Ai[j * T + i] * c[j];
      }
    }
    e->first[at] = (f + start) % np;
    double nz = 0.0;
    for (int i = 0; i < T; i++) {
      e->w[at * T + i] = cf_make((float)creal(w[i]), (float)cimag(w[i]));
      nz += creal(w[i] * conj(w[i]));
    }
    noise[at] = n0 * nz;
    model[at] = 0.0;
    if (p->interpolation == INTERP_LMMSE) {
      /* E|H_k - w^T h|^2 = R_kk - 2 Re sum_i conj(w_i) c_i + w^T A conj(w); the
       * orthogonality above makes w^T A conj(w) = sum_j conj(w_j) c_j, so the
       * error is R_kk - Re sum_i conj(w_i) c_i, less the noise part */
      cd cross = 0.0;
      for (int i = 0; i < T; i++) cross += conj(w[i]) * c[i];
      const double total = creal(corr_at(p, g, k, k)) - creal(cross);
      model[at] = fmax(total - noise[at], 0.0);
    }
  }
#undef PILOT_SC
  free(pos);
  return 0;
}

/* Step 3's weights, and the point's error variance averaged over the data
 * REs from each subcarrier's noise and model parts. */
static void time_weights(const link_params *p, est_plan *e, const double *noise, const double *model) {
  const pilot_grid *pg = &e->pg;
  const int n = e->pilot_syms, K = e->K, S = p->symbols, P = p->pilot_spacing;
  double all_n = 0, all_m = 0, data_n = 0, data_m = 0; /* sums over antennas and subcarriers */
  for (int t = 0; t < e->tx; t++)
    for (int k = 0; k < K; k++) {
      const double nz = noise[(size_t)t * K + k], md = model[(size_t)t * K + k];
      all_n += nz, all_m += md;
      if (k % P >= e->tx) data_n += nz, data_m += md;
    }
  double sum = 0.0, res = 0.0;
  for (int s = 0; s < S; s++) {
    int lo = 0;
    double wl = 1.0;
    if (n > 1 && s > pilot_symbol_at(pg, 0)) {
      if (s >= pilot_symbol_at(pg, n - 1)) {
        lo = n - 1;
      } else {
        lo = (s - p->pilot_first) / p->pilot_every;
        wl = 1.0 - (double)(s - pilot_symbol_at(pg, lo)) / p->pilot_every;
      }
    }
    e->sym_lo[s] = lo;
    e->sym_w[s] = (float)wl;
    const double gain = wl * wl + (1.0 - wl) * (1.0 - wl);
    const int pilot = pilot_on_symbol(pg, s);
    sum += pilot ? data_m + gain * data_n : all_m + gain * all_n;
    res += (double)(pilot ? K - pilot_res_per_symbol(pg) : K) * e->tx;
  }
  const double v = res > 0 ? sum / res : 0.0;
  if (p->interpolation == INTERP_LMMSE) {
    e->shrink = 1.0;
    e->error_var = v;
  } else {
    e->shrink = 1.0 / (1.0 + v);
    e->error_var = v / (1.0 + v);
  }
}

int est_plan_make(const link_params *p, est_plan *e, char *err, size_t errlen) {
  memset(e, 0, sizeof *e);
  if (p->estimation != EST_LS || p->pilot_spacing <= 0) {
    snprintf(err, errlen, "channel estimation: not an ls point with pilots");
    return -1;
  }
  e->pg = link_pilot_grid(p);
  e->K = p->subcarriers;
  e->tx = p->tx;
  e->pilot_syms = pilot_symbol_count(&e->pg);
  int min_np = e->K;
  for (int t = 0; t < e->tx; t++)
    if (pilot_count(&e->pg, t) < min_np) min_np = pilot_count(&e->pg, t);
  const int want = p->interpolation == INTERP_NEAREST ? 1 : p->interpolation == INTERP_LINEAR ? 2 : EST_LMMSE_TAPS;
  e->taps = want < min_np ? want : min_np;
  const size_t n = (size_t)e->tx * (size_t)e->K;
  e->first = malloc(sizeof(int) * n);
  e->w = malloc(sizeof(cf32) * n * (size_t)e->taps);
  e->sym_lo = malloc(sizeof(int) * (size_t)p->symbols);
  e->sym_w = malloc(sizeof(float) * (size_t)p->symbols);
  double *noise = malloc(sizeof(double) * n), *model = malloc(sizeof(double) * n);
  tdl_grid g;
  memset(&g, 0, sizeof g);
  int rc = 0;
  if (!e->first || !e->w || !e->sym_lo || !e->sym_w || !noise || !model) {
    snprintf(err, errlen, "channel estimation: no memory for the tables of %d subcarriers", e->K);
    rc = -1;
  } else if (p->model == CH_TDL && tdl_grid_make(p, &g, err, errlen)) {
    rc = -1;
  } else {
    for (int t = 0; t < e->tx && !rc; t++)
      if (antenna_weights(p, p->model == CH_TDL ? &g : NULL, e, t, noise, model)) {
        snprintf(err, errlen, "channel estimation: the LMMSE filter of antenna %d is singular", t);
        rc = -1;
      }
    if (!rc) time_weights(p, e, noise, model);
  }
  tdl_grid_free(&g);
  free(noise);
  free(model);
  if (rc) est_plan_free(e);
  return rc;
}

int est_resolve(link_params *p, char *err, size_t errlen) {
  p->est_error_var = 0.0;
  p->est_shrink = 1.0;
  if (p->estimation != EST_LS) return 0;
  est_plan e;
  if (est_plan_make(p, &e, err, errlen)) return -1;
  p->est_error_var = e.error_var;
  p->est_shrink = e.shrink;
  est_plan_free(&e);
  return 0;
}

int est_plan_matches(const est_plan *e, const link_params *p, char *err, size_t errlen) {
  if (fabs(e->error_var - p->est_error_var) <= 1e-12 * fmax(1.0, e->error_var) &&
      fabs(e->shrink - p->est_shrink) <= 1e-12)
    return 0;
  snprintf(err, errlen,
           "channel estimation: the point's est_error_var %g and est_shrink %g are not its pilots' (%g, %g): "
           "est_resolve was not run on it",
           p->est_error_var, p->est_shrink, e->error_var, e->shrink);
  return -1;
}
