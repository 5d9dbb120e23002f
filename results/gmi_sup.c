/* The supremum of the GMI over the LLR scaling (gmi_sup.h). */
#include "results/gmi_sup.h"

#include <math.h>
#include <string.h>

#include "results/stats.h"

/* The candidates: s = 0 (index 0) and the grid (index k + 1). */
#define POINTS (GMI_GRID + 1)
#define NODES 5

double gmi_sums_at(const gmi_sums *in, int k) {
  return in->full - in->loss[k] / ((double)in->frames * in->res);
}

/* The interpolation variable of candidate i: s itself near s = 0, log2 s
 * elsewhere (exact: the grid is 2^((k - GMI_GRID_S1) / 2)). */
static double var_of(int i, int linear) {
  if (i == 0) return 0.0;
  return linear ? gmi_grid_s(i - 1) : 0.5 * (double)(i - 1 - GMI_GRID_S1);
}

/* The polynomial through (x[j], y[j]), j < NODES, at v (Lagrange's form). */
static double interpolate(const double *x, const double *y, double v) {
  double sum = 0.0;
  for (int j = 0; j < NODES; j++) {
    double w = 1.0;
    for (int m = 0; m < NODES; m++)
      if (m != j) w *= (v - x[m]) / (x[j] - x[m]);
    sum += w * y[j];
  }
  return sum;
}

/* The maximum of that polynomial over [a, c] (golden section): its
 * abscissa in *v, the value returned. */
static double maximise(const double *x, const double *y, double a, double c, double *v) {
  const double r = 0.5 * (sqrt(5.0) - 1.0);
  double x1 = c - r * (c - a), x2 = a + r * (c - a);
  double f1 = interpolate(x, y, x1), f2 = interpolate(x, y, x2);
  for (int it = 0; it < 100 && c - a > 1e-12 * (1.0 + fabs(c)); it++) {
    if (f1 < f2) {
      a = x1, x1 = x2, f1 = f2;
      x2 = a + r * (c - a), f2 = interpolate(x, y, x2);
    } else {
      c = x2, x2 = x1, f2 = f1;
      x1 = c - r * (c - a), f1 = interpolate(x, y, x1);
    }
  }
  *v = f1 > f2 ? x1 : x2;
  return f1 > f2 ? f1 : f2;
}

/* The polynomial through the five candidates from `first` in the variable
 * (linear: s, else log2 s), maximised over [var(lo), var(hi)]; improves
 * *best (and *v, *linear_best) where it beats it. */
static void refine(const double *g, int first, int lo, int hi, int linear, double *best, double *v, int *linear_best) {
  double x[NODES], y[NODES], at;
  for (int j = 0; j < NODES; j++) x[j] = var_of(first + j, linear), y[j] = g[first + j];
  const double f = maximise(x, y, var_of(lo, linear), var_of(hi, linear), &at);
  if (f > *best) *best = f, *v = at, *linear_best = linear;
}

void gmi_loss_interval(double sum, double sum_sq, uint64_t frames, uint64_t units, double conf, double *lo,
                       double *hi) {
  if (!units || units == frames) {
    mean_interval(sum, sum_sq, frames, conf, lo, hi);
    return;
  }
  mean_interval(sum, sum_sq, units, conf, lo, hi);
  const double per_frame = (double)units / (double)frames;
  *lo *= per_frame;
  *hi *= per_frame;
}

void gmi_sup_find(const gmi_sums *in, double conf, gmi_sup *out) {
  out->gmi = out->lo = out->hi = out->s = NAN;
  out->edge = 0;
  if (!in->frames || !(in->res > 0)) return;
  double g[POINTS], half[POINTS];
  g[0] = half[0] = 0.0; /* s = 0: every bit costs exactly one bit, in every frame */
  for (int k = 0; k < GMI_GRID; k++) {
    double lo, hi;
    g[k + 1] = gmi_sums_at(in, k);
    gmi_loss_interval(in->loss[k] / in->res, in->loss_sq[k], in->frames, in->units, conf, &lo, &hi);
    half[k + 1] = 0.5 * (hi - lo);
  }
  int b = 0;
  for (int i = 1; i < POINTS; i++)
    if (g[i] > g[b]) b = i;
  /* Concavity puts the maximum between b's neighbours. Between s = 0 and
   * the grid's first point, in s (the five lowest candidates, s = 0
   * among them); from the first point up, in log2 s (five around b). */
  double best = g[b], v = var_of(b, b == 0);
  int linear = b == 0;
  if (b == POINTS - 1) {
    out->edge = 1;
  } else {
    if (b <= 1) refine(g, 0, 0, 1, 1, &best, &v, &linear);
    if (b >= 1) {
      int first = b - 2 < 1 ? 1 : b - 2;
      if (first + NODES > POINTS) first = POINTS - NODES;
      refine(g, first, b == 1 ? 1 : b - 1, b + 1, 0, &best, &v, &linear);
    }
  }
  out->gmi = best;
  out->s = linear ? v : exp2(v);
  /* the half-width at s*: linear (in the variable s* was found in) between
   * the candidates around it */
  int lo_i = b, hi_i = b;
  if (v < var_of(b, linear) && b > 0) lo_i = b - 1;
  else if (v > var_of(b, linear) && b + 1 < POINTS) hi_i = b + 1;
  double h = half[b];
  if (lo_i != hi_i) {
    const double x0 = var_of(lo_i, linear), x1 = var_of(hi_i, linear), w = (v - x0) / (x1 - x0);
    h = (1.0 - w) * half[lo_i] + w * half[hi_i];
  }
  if ((in->units ? in->units : in->frames) >= 2 && !isnan(h)) {
    out->lo = fmax(0.0, best - h);
    out->hi = best + h;
  }
}

void tally_gmi_sup(const sim_point *pt, const tally *t, double conf, gmi_sup *out) {
  const link_params *p = &pt->p;
  double loss[GMI_GRID];
  memcpy(loss, t->gmi_loss_s, sizeof loss);
  /* s = 1 from the per-stream sums, added as tally_gmi adds them: GMI(1) is
   * then gmi_s1 to the bit (the grid's sum differs at most in the order of
   * its additions), and the supremum never below it */
  double at_1 = 0.0;
  for (int k = 0; k < p->tx; k++) at_1 += t->gmi_loss[k];
  loss[GMI_GRID_S1] = at_1;
  const gmi_sums in = {(double)p->bps * p->tx, (double)link_data_res_per_frame(p), t->frames, loss,
                       t->gmi_loss_s_sq, tally_drops(pt, t)};
  if (!link_gmi_loss(p)) {
    gmi_sup_find(&(gmi_sums){0}, conf, out);
    return;
  }
  if (!link_gmi_grid(p)) {
    /* s = 1 alone: GMI(1) and the interval of its mean loss */
    out->gmi = out->lo = out->hi = out->s = NAN;
    out->edge = 0;
    if (!t->frames || !(in.res > 0)) return;
    out->gmi = gmi_sums_at(&in, GMI_GRID_S1);
    double lo, hi;
    gmi_loss_interval(at_1 / in.res, t->gmi_loss_sq, t->frames, in.units, conf, &lo, &hi);
    if (in.units >= 2 && !isnan(lo) && !isnan(hi)) {
      out->lo = fmax(0.0, in.full - hi);
      out->hi = in.full - lo;
    }
    return;
  }
  gmi_sup_find(&in, conf, out);
}
