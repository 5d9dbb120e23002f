/* Curves compared by SNR gap and BER ratio (results_curves.h). */
#include "results/results_curves.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_schema.h"
#include "results/results_compare.h"
#include "results/str_index.h"

/* The 97.5% normal quantile. */
#define Z975 1.959963984540054

double curve_crossing_snr(const double *snr, const double *y, size_t n, double target) {
  const double lt = log10(target);
  for (size_t i = 0; i + 1 < n; i++) {
    const double y0 = y[i] > 0 ? y[i] : 1e-300, y1 = y[i + 1] > 0 ? y[i + 1] : 1e-300;
    if (!(y0 >= target && y1 <= target)) continue;
    const double l0 = log10(y0), l1 = log10(y1);
    if (l0 == l1) return snr[i]; /* flat at the target */
    return snr[i] + (lt - l0) / (l1 - l0) * (snr[i + 1] - snr[i]);
  }
  return NAN;
}

static int is_config_key(const char *name) {
  for (int k = 0; k < KEY_COUNT; k++)
    if (!strcmp(config_keys[k].path, name)) return 1;
  return 0;
}

static int is_key(const char *name, const char *const *keys, size_t n_keys) {
  for (size_t i = 0; i < n_keys; i++)
    if (!strcmp(name, keys[i])) return 1;
  return 0;
}

/* "name=value\x1f..." over the columns cols (indices into t), NULL out of
 * memory. */
static char *text_of(const result_table *t, size_t row, const int *cols, const char *const *names, size_t n,
                     const char *sep) {
  size_t len = 1;
  for (size_t i = 0; i < n; i++) len += strlen(names[i]) + strlen(result_table_cell(t, row, cols[i])) + 2;
  char *s = malloc(len);
  if (!s) return NULL;
  size_t used = 0;
  s[0] = '\0';
  for (size_t i = 0; i < n; i++)
    used += (size_t)snprintf(s + used, len - used, "%s%s=%s", i ? sep : "", names[i], result_table_cell(t, row, cols[i]));
  return s;
}

void curve_result_free(curve_result *r) {
  if (!r) return;
  for (size_t i = 0; r->curves && i < r->n_curves; i++) {
    free(r->curves[i].family);
    free(r->curves[i].value);
    free(r->curves[i].pts);
  }
  for (size_t i = 0; r->pairs && i < r->n_pairs; i++) free(r->pairs[i].ratios);
  free(r->curves);
  free(r->pairs);
  *r = (curve_result){0};
}

static int by_snr(const void *x, const void *y) {
  const curve_point *a = x, *b = y;
  return a->snr < b->snr ? -1 : a->snr > b->snr;
}

/* The crossing of curve c and of its bounds. */
static curve_crossing crossing(const curve *c, double target) {
  curve_crossing x = {NAN, NAN, NAN};
  double *s = calloc(c->n + 1, sizeof *s), *y = calloc(c->n + 1, sizeof *y);
  if (!s || !y) goto done;
  for (size_t i = 0; i < c->n; i++) s[i] = c->pts[i].snr, y[i] = c->pts[i].ber;
  x.snr = curve_crossing_snr(s, y, c->n, target);
  /* the lower bounds reach the target first, the upper bounds last */
  for (size_t i = 0; i < c->n; i++) y[i] = c->pts[i].lo;
  x.snr_lo = curve_crossing_snr(s, y, c->n, target);
  for (size_t i = 0; i < c->n; i++) y[i] = c->pts[i].hi;
  x.snr_hi = curve_crossing_snr(s, y, c->n, target);
done:
  free(s);
  free(y);
  return x;
}

/* Compares b with its reference a into p. 0, or -1 out of memory. */
static int compare_curves(const curve *a, const curve *b, double target, curve_pair *p) {
  p->xa = crossing(a, target);
  p->xb = crossing(b, target);
  p->gap = p->xb.snr - p->xa.snr;
  /* the gap is lowest with B early and A late, highest the other way */
  p->gap_lo = p->gap - hypot(p->xb.snr - p->xb.snr_lo, p->xa.snr_hi - p->xa.snr);
  p->gap_hi = p->gap + hypot(p->xb.snr_hi - p->xb.snr, p->xa.snr - p->xa.snr_lo);
  p->ratios = calloc(b->n + 1, sizeof *p->ratios);
  if (!p->ratios) return -1;
  size_t i = 0, k = 0;
  while (i < a->n && k < b->n) {
    if (a->pts[i].snr < b->pts[k].snr) i++;
    else if (b->pts[k].snr < a->pts[i].snr) k++;
    else {
      const curve_point *x = &a->pts[i++], *y = &b->pts[k++];
      curve_ratio *r = &p->ratios[p->n_ratios++];
      r->snr = x->snr, r->ber_a = x->ber, r->ber_b = y->ber;
      r->ratio = x->ber > 0 ? y->ber / x->ber : NAN;
      r->lo = r->hi = NAN;
      if (x->errors && y->errors) {
        const double h = Z975 * sqrt(x->var / (x->ber * x->ber) + y->var / (y->ber * y->ber));
        r->lo = r->ratio * exp(-h);
        r->hi = r->ratio * exp(h);
      }
    }
  }
  return 0;
}

int results_curves(const result_table *in, size_t n, const char *const *keys, size_t n_keys, double target,
                   curve_result *out, char *err, size_t errlen) {
  *out = (curve_result){0};
  out->target = target;
  for (size_t k = 0; k < n_keys; k++) {
    if (!is_config_key(keys[k]) || !results_identity_column(keys[k])) {
      results_fail(err, errlen,
                   "--by %s: expected a config key that tells points apart (such as equalizer, mimo.tx, "
                   "receiver.channel_estimation), got one that %s",
                   keys[k], is_config_key(keys[k]) ? "is not part of a point's identity (the SNR, the seed, a "
                                                     "stopping rule or a run setting)"
                                                   : "is no config key");
      return 2;
    }
    for (size_t i = 0; i < n; i++)
      if (result_table_column(&in[i], keys[k]) < 0) {
        results_fail(err, errlen, "%s:1: expected a column %s (--by), got none", in[i].path, keys[k]);
        return 2;
      }
  }
  for (size_t i = 0; i < n; i++) {
    static const char *const need[] = {"snr_db", "bits", "bit_errors", "frames", "ci95_low", "ci95_high", NULL};
    if (result_table_require(&in[i], need, err, errlen)) return 2;
  }
  /* the family's columns: the identity config columns of the first table
   * that every table has, but the keys and the SNR (in snr_db) */
  const result_table *t0 = &in[0];
  const char **fam = calloc(t0->n_cols + 1, sizeof *fam);
  int *cols = calloc(t0->n_cols + n_keys + 1, sizeof *cols);
  size_t total = 0, n_fam = 0;
  for (size_t i = 0; i < n; i++) total += in[i].n_rows;
  str_index by_curve, by_family;
  int have_curve = 0, have_family = 0, rc = 2;
  size_t *n_pts = NULL;
  char *ftext = NULL, *vtext = NULL;
  if (!fam || !cols) goto oom;
  for (size_t c = 0; c < t0->n_cols; c++) {
    const char *name = t0->names[c];
    int everywhere = 1;
    for (size_t i = 1; i < n; i++) everywhere &= result_table_column(&in[i], name) >= 0;
    if (is_config_key(name) && results_identity_column(name) && !is_key(name, keys, n_keys) && everywhere &&
        result_table_column(t0, name) == (int)c)
      fam[n_fam++] = name;
  }
  out->curves = calloc(total + 1, sizeof *out->curves);
  n_pts = calloc(total + 1, sizeof *n_pts);
  if (!out->curves || !n_pts || str_index_init(&by_curve, total)) goto oom;
  have_curve = 1;
  if (str_index_init(&by_family, total)) goto oom;
  have_family = 1;
  /* pass 1: the curve of every row */
  size_t *curve_of = calloc(total + 1, sizeof *curve_of);
  if (!curve_of) goto oom;
  for (size_t i = 0, seq = 0; i < n; i++) {
    const result_table *t = &in[i];
    for (size_t c = 0; c < n_fam; c++) cols[c] = result_table_column(t, fam[c]);
    for (size_t k = 0; k < n_keys; k++) cols[n_fam + k] = result_table_column(t, keys[k]);
    for (size_t r = 0; r < t->n_rows; r++, seq++) {
      ftext = text_of(t, r, cols, fam, n_fam, "\x1f");
      vtext = text_of(t, r, cols + n_fam, keys, n_keys, " ");
      char *both = ftext && vtext ? malloc(strlen(ftext) + strlen(vtext) + 2) : NULL;
      if (!both) {
        free(curve_of);
        goto oom;
      }
      sprintf(both, "%s\x1e%s", ftext, vtext);
      size_t first;
      /* the index borrows its keys: the curve keeps them */
      if (str_index_add(&by_curve, both, out->n_curves, &first)) {
        free(both);
        free(curve_of);
        goto oom;
      }
      if (first == out->n_curves) {
        curve *cv = &out->curves[out->n_curves++];
        cv->family = both;
        cv->value = vtext;
        vtext = NULL;
        size_t fam_first;
        if (str_index_add(&by_family, ftext, out->n_families, &fam_first)) {
          free(curve_of);
          goto oom;
        }
        if (fam_first == out->n_families) out->n_families++, ftext = NULL; /* kept by the index */
        cv->family_index = fam_first;
      } else {
        free(both);
      }
      free(ftext);
      free(vtext);
      ftext = vtext = NULL;
      curve_of[seq] = first;
      n_pts[first]++;
    }
  }
  /* pass 2: the points */
  for (size_t c = 0; c < out->n_curves; c++)
    if (!(out->curves[c].pts = calloc(n_pts[c] + 1, sizeof *out->curves[c].pts))) {
      free(curve_of);
      goto oom;
    }
  for (size_t i = 0, seq = 0; i < n; i++) {
    const result_table *t = &in[i];
    for (size_t r = 0; r < t->n_rows; r++, seq++) {
      curve_point p = {t, r, 0, 0, 0, 0, 0, 0, 0};
      if (result_table_u64(t, r, "bits", &p.bits, err, errlen) ||
          result_table_u64(t, r, "bit_errors", &p.errors, err, errlen) ||
          result_table_double(t, r, "snr_db", &p.snr, err, errlen) ||
          result_table_double(t, r, "ci95_low", &p.lo, err, errlen) ||
          result_table_double(t, r, "ci95_high", &p.hi, err, errlen) ||
          results_ber_variance(t, r, &p.ber, &p.var, err, errlen)) {
        free(curve_of);
        goto fail;
      }
      if (!p.bits) continue; /* skipped: no estimate */
      curve *cv = &out->curves[curve_of[seq]];
      cv->pts[cv->n++] = p;
    }
  }
  free(curve_of);
  for (size_t c = 0; c < out->n_curves; c++) {
    curve *cv = &out->curves[c];
    qsort(cv->pts, cv->n, sizeof *cv->pts, by_snr);
    for (size_t k = 1; k < cv->n; k++)
      if (cv->pts[k].snr == cv->pts[k - 1].snr) {
        const curve_point *x = &cv->pts[k - 1], *y = &cv->pts[k];
        results_fail(err, errlen,
                     "%s:%zu and %s:%zu: expected one row per SNR on the curve %s, got two at snr_db %g "
                     "(other seeds or frame ranges of one point: ofdmsim merge them first, --pool-seeds for seeds)",
                     x->t->path, x->t->lines[x->row], y->t->path, y->t->lines[y->row], cv->value, x->snr);
        goto fail;
      }
  }
  /* each curve against its family's first */
  out->pairs = calloc(out->n_curves + 1, sizeof *out->pairs);
  if (!out->pairs) goto oom;
  size_t *ref_of = malloc((out->n_families + 1) * sizeof *ref_of);
  if (!ref_of) goto oom;
  for (size_t f = 0; f < out->n_families; f++) ref_of[f] = SIZE_MAX;
  for (size_t c = 0; c < out->n_curves; c++) {
    size_t *ref_slot = &ref_of[out->curves[c].family_index];
    if (*ref_slot == SIZE_MAX) *ref_slot = c;
    const size_t ref = *ref_slot;
    if (ref == c) continue;
    curve_pair *p = &out->pairs[out->n_pairs++];
    p->a = ref, p->b = c;
    if (compare_curves(&out->curves[ref], &out->curves[c], target, p)) {
      free(ref_of);
      goto oom;
    }
  }
  free(ref_of);
  if (!out->n_pairs) {
    results_fail(err, errlen,
                 "expected curves that differ only in the --by key%s, got %zu curve%s in %zu famil%s that differ "
                 "in other keys too",
                 n_keys == 1 ? "" : "s", out->n_curves, out->n_curves == 1 ? "" : "s", out->n_families,
                 out->n_families == 1 ? "y" : "ies");
    goto fail;
  }
  rc = 0;
  goto done;
oom:
  results_fail(err, errlen, "out of memory");
fail:
  rc = 2;
done:
  free(ftext);
  free(vtext);
  free(fam);
  free(cols);
  free(n_pts);
  if (have_family) {
    /* the family texts the index kept */
    for (size_t i = 0; i < by_family.n_slots; i++) free((char *)by_family.keys[i]);
    str_index_free(&by_family);
  }
  if (have_curve) str_index_free(&by_curve);
  if (rc) curve_result_free(out);
  return rc;
}
