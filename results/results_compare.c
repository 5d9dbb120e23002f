/* Pairing and testing two result files (results_compare.h). */
#include "results/results_compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/chunks.h"
#include "results/str_index.h"

/* The 97.5% normal quantile the written interval was taken at. */
#define Z975 1.959963984540054

int results_ber_variance(const result_table *t, size_t row, double *ber, double *var, char *err,
                         size_t errlen) {
  uint64_t bits, errors, frames;
  double lo, hi;
  if (result_table_u64(t, row, "bits", &bits, err, errlen) ||
      result_table_u64(t, row, "bit_errors", &errors, err, errlen) ||
      result_table_u64(t, row, "frames", &frames, err, errlen) ||
      result_table_double(t, row, "ci95_low", &lo, err, errlen) ||
      result_table_double(t, row, "ci95_high", &hi, err, errlen))
    return 2;
  if (errors > bits) {
    results_fail(err, errlen, "%s:%zu: column bit_errors: expected at most bits (%llu), got %llu", t->path,
         t->lines[row], (unsigned long long)bits, (unsigned long long)errors);
    return 2;
  }
  if (!(lo <= hi)) {
    results_fail(err, errlen, "%s:%zu: column ci95_high: expected at least ci95_low (%.10g), got %.10g", t->path,
         t->lines[row], lo, hi);
    return 2;
  }
  *ber = bits ? (double)errors / (double)bits : 0.0;
  const double half = (hi - lo) / (2.0 * Z975);
  double v = half * half;
  const int sq_col = result_table_column(t, "frame_errors_sq");
  /* the batches are the drops where the point has them (frame_errors_sq
   * is then over drops: chunks.h's tally_drops) */
  uint64_t drop = 1;
  const int drop_col = result_table_column(t, "channel.drop_frames");
  if (drop_col >= 0 && *result_table_cell(t, row, drop_col) &&
      result_table_u64(t, row, "channel.drop_frames", &drop, err, errlen))
    return 2;
  frames = drops_of_frames(frames, drop);
  if (sq_col >= 0 && frames >= 2 && errors > 0) {
    double sum_sq;
    if (result_table_double(t, row, "frame_errors_sq", &sum_sq, err, errlen)) return 2;
    const double e = (double)errors, f = (double)frames, b = (double)bits / f;
    double between = (sum_sq - e * e / f) / (f - 1.0);
    if (between < 0) between = 0; /* rounding of a near-constant count */
    const double bm = between / f / (b * b);
    if (bm > v) v = bm;
  }
  *var = v;
  return 0;
}

/* A point_key is 16 lowercase hex digits. */
static int valid_key(const char *s) {
  if (strlen(s) != 16) return 0;
  for (; *s; s++)
    if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'))) return 0;
  return 1;
}

/* The columns of the point's identity without the seed: the link columns
 * and every config column (a dotted name) but the seed, the stopping rules,
 * the frame range, the run's settings and the SNR list (a point's SNR is in
 * snr_db and n0). */
int results_identity_column(const char *name) {
  static const char *const link[] = {"tx", "rx", "modulation", "equalizer", "channel", "domain",
                                     "snr_kind", "snr_db", "n0", NULL};
  static const char *const not_identity[] = {
      "simulation.seed", "simulation.backend", "simulation.target_errors", "simulation.max_bits",
      "simulation.min_frames", "simulation.target_precision", "simulation.stop_below_ber",
      "simulation.first_frame", "simulation.threads", "simulation.batch_frames",
      "simulation.gpu_memory_mb", "simulation.snr_db", NULL};
  for (size_t i = 0; link[i]; i++)
    if (!strcmp(name, link[i])) return 1;
  if (!strchr(name, '.')) return 0;
  for (size_t i = 0; not_identity[i]; i++)
    if (!strcmp(name, not_identity[i])) return 0;
  return 1;
}

/* The identity of every row of t over the identity columns both tables
 * have, in the column order of a (so that the two tables' texts compare):
 * an array of n_rows strings, or NULL when out of memory. The columns are
 * looked up once, not per row (a row has some 80). */
static char **identities(const result_table *t, const result_table *a, const result_table *b) {
  char **ids = calloc(t->n_rows + 1, sizeof *ids);
  int *cols = malloc((a->n_cols + 1) * sizeof *cols);
  if (!ids || !cols) {
    free(ids);
    free(cols);
    return NULL;
  }
  for (size_t c = 0; c < a->n_cols; c++) {
    const char *name = a->names[c];
    /* not identity, a repeated name (its first counts), or not in both */
    cols[c] = !results_identity_column(name) || result_table_column(a, name) != (int)c || result_table_column(b, name) < 0
                  ? -1
                  : result_table_column(t, name);
  }
  for (size_t r = 0; r < t->n_rows; r++) {
    size_t len = 1;
    for (size_t c = 0; c < a->n_cols; c++)
      if (cols[c] >= 0) len += strlen(a->names[c]) + strlen(result_table_cell(t, r, cols[c])) + 2;
    char *id = ids[r] = malloc(len);
    if (!id) break;
    size_t used = 0;
    id[0] = '\0';
    for (size_t c = 0; c < a->n_cols; c++)
      if (cols[c] >= 0)
        used += (size_t)snprintf(id + used, len - used, "%s=%s\x1f", a->names[c], result_table_cell(t, r, cols[c]));
  }
  free(cols);
  for (size_t r = 0; r < t->n_rows; r++)
    if (!ids[r]) {
      for (size_t k = 0; k < t->n_rows; k++) free(ids[k]);
      free(ids);
      return NULL;
    }
  return ids;
}

static void free_identities(char **ids, size_t n) {
  for (size_t r = 0; ids && r < n; r++) free(ids[r]);
  free(ids);
}

/* Every row of t as a side. */
static int read_sides(const result_table *t, compare_side *s, char *err, size_t errlen) {
  const int key_col = result_table_column(t, "point_key");
  const int ff_col = result_table_column(t, "simulation.first_frame");
  const int seed_col = result_table_column(t, "simulation.seed");
  for (size_t r = 0; r < t->n_rows; r++) {
    compare_side *x = &s[r];
    memset(x, 0, sizeof *x);
    x->row = r;
    const char *key = result_table_cell(t, r, key_col);
    if (!valid_key(key)) {
      results_fail(err, errlen, "%s:%zu: column point_key: expected 16 lowercase hex digits, got '%.40s'", t->path,
           t->lines[r], key);
      return 2;
    }
    if (result_table_u64(t, r, "bits", &x->bits, err, errlen) ||
        result_table_u64(t, r, "bit_errors", &x->errors, err, errlen) ||
        result_table_u64(t, r, "frames", &x->frames, err, errlen) ||
        result_table_double(t, r, "ci95_low", &x->lo, err, errlen) ||
        result_table_double(t, r, "ci95_high", &x->hi, err, errlen) ||
        (ff_col >= 0 && result_table_u64(t, r, "simulation.first_frame", &x->first_frame, err, errlen)) ||
        /* empty in a row pooled over seeds (merge --pool-seeds) */
        (seed_col >= 0 && *result_table_cell(t, r, seed_col) &&
         result_table_u64(t, r, "simulation.seed", &x->seed, err, errlen)) ||
        results_ber_variance(t, r, &x->ber, &x->var, err, errlen))
      return 2;
    x->has_seed = seed_col >= 0 && *result_table_cell(t, r, seed_col);
    const int blocks_col = result_table_column(t, "blocks");
    if (blocks_col >= 0 && *result_table_cell(t, r, blocks_col)) {
      if (result_table_u64(t, r, "blocks", &x->blocks, err, errlen) ||
          result_table_u64(t, r, "block_errors", &x->block_errors, err, errlen))
        return 2;
      x->coded = x->blocks > 0 && x->block_errors <= x->blocks;
      const int hc = result_table_column(t, "harq_errors");
      x->harq_errors = x->block_errors;
      if (hc >= 0 && *result_table_cell(t, r, hc) && result_table_u64(t, r, "harq_errors", &x->harq_errors, err, errlen))
        return 2;
      /* the drops and their squared counts (one TB a frame without drops) */
      uint64_t drop = 1;
      const int drop_col = result_table_column(t, "channel.drop_frames");
      if (drop_col >= 0 && *result_table_cell(t, r, drop_col) &&
          result_table_u64(t, r, "channel.drop_frames", &drop, err, errlen))
        return 2;
      x->drops = drops_of_frames(x->blocks, drop);
      x->block_sq = x->block_errors;
      x->harq_sq = x->harq_errors;
      const int dc = result_table_column(t, "drop_block_errors_sq");
      if (dc >= 0 && *result_table_cell(t, r, dc) &&
          (result_table_u64(t, r, "drop_block_errors_sq", &x->block_sq, err, errlen) ||
           result_table_u64(t, r, "drop_harq_errors_sq", &x->harq_sq, err, errlen)))
        return 2;
    }
  }
  return 0;
}

/* The variance of a side's rate of lost TBs, e of its blocks, by batch
 * means over its drops (sq: the drops' squared counts); 0 without two. */
static double drop_variance(const compare_side *x, uint64_t e, uint64_t sq) {
  if (x->drops < 2) return 0.0;
  const double n = (double)x->drops, k = (double)e, b = (double)x->blocks / n;
  const double between = fmax(0.0, ((double)sq - k * k / n) / (n - 1.0));
  return between / n / (b * b);
}

/* One count of lost TBs of a coded pair (ea of a's blocks, eb of b's): on
 * the same draws within the tolerance of the bit errors, else a z-test of
 * the rates (one TB a frame, frames independent: binomial variances). */
static int lost_agree(uint64_t ea, uint64_t eb, uint64_t sqa, uint64_t sqb, const compare_pair *p,
                      const compare_options *o, double alpha_each, int same_draws) {
  const compare_side *a = &p->a, *b = &p->b;
  if (same_draws) {
    const double d = fabs((double)eb - (double)ea);
    const double e_max = (double)(ea > eb ? ea : eb);
    return a->blocks == b->blocks && d <= o->same_rel * e_max + o->same_abs;
  }
  const double pa = (double)ea / (double)a->blocks, pb = (double)eb / (double)b->blocks;
  const double pool = (double)(ea + eb) / (double)(a->blocks + b->blocks);
  double v = pool * (1.0 - pool) * (1.0 / (double)a->blocks + 1.0 / (double)b->blocks);
  /* over drops the TBs of a drop share its channel: each side's variance
   * by batch means over its drops where that is the larger */
  if (a->drops != a->blocks || b->drops != b->blocks)
    v = fmax(v, drop_variance(a, ea, sqa) + drop_variance(b, eb, sqb));
  if (!(v > 0)) return pa == pb;
  return erfc(fabs(pb - pa) / sqrt(v) / sqrt(2.0)) >= alpha_each;
}

/* A coded pair's block errors, of the first transmission and after HARQ.
 * 1 when they agree (or a side is not coded). */
static int blocks_agree(const compare_pair *p, const compare_options *o, double alpha_each, int same_draws) {
  const compare_side *a = &p->a, *b = &p->b;
  if (!a->coded || !b->coded) return 1;
  return lost_agree(a->block_errors, b->block_errors, a->block_sq, b->block_sq, p, o, alpha_each, same_draws) &&
         lost_agree(a->harq_errors, b->harq_errors, a->harq_sq, b->harq_sq, p, o, alpha_each, same_draws);
}

/* The z-test and the same-draws rule of one pair with both sides run. */
static void decide(compare_pair *p, const compare_options *o, double alpha_each) {
  const compare_side *a = &p->a, *b = &p->b;
  const double v = a->var + b->var, d = b->ber - a->ber;
  if (v > 0) p->z = d / sqrt(v);
  else p->z = d == 0 ? 0.0 : copysign(INFINITY, d);
  p->p = erfc(fabs(p->z) / sqrt(2.0));
  p->z_ok = p->p >= alpha_each;
  p->diff = (long long)b->errors - (long long)a->errors;
  p->same_draws = p->match == MATCH_KEY && a->first_frame == b->first_frame && a->frames == b->frames;
  if (p->same_draws) {
    const double e_max = (double)(a->errors > b->errors ? a->errors : b->errors);
    p->draws_ok = a->bits == b->bits && fabs((double)p->diff) <= o->same_rel * e_max + o->same_abs;
    p->rule = !p->draws_ok ? "same draws" : !p->z_ok ? "z-test" : "same draws";
    p->verdict = p->draws_ok && p->z_ok ? CMP_AGREE : CMP_DIFFER;
    if (p->verdict == CMP_AGREE && !blocks_agree(p, o, alpha_each, 1)) {
      p->rule = "same draws (blocks)";
      p->verdict = CMP_DIFFER;
    }
  } else if (o->require_same_draws) {
    p->rule = "frame ranges";
    p->verdict = CMP_DIFFER;
  } else {
    p->rule = "z-test";
    p->verdict = p->z_ok ? CMP_AGREE : CMP_DIFFER;
    if (p->verdict == CMP_AGREE && !blocks_agree(p, o, alpha_each, 0)) {
      p->rule = "BLER z-test";
      p->verdict = CMP_DIFFER;
    }
  }
}

void compare_result_free(compare_result *r) {
  if (!r) return;
  free(r->pairs);
  *r = (compare_result){0};
}

/* occ[r]: the n-th (from 1) row of t with row r's key, for "#n"; one pass
 * with an index (the count kept at the key's first row). 0, or -1 out of
 * memory. */
static int occurrences(const result_table *t, int key_col, size_t *occ) {
  str_index x;
  size_t *count = calloc(t->n_rows + 1, sizeof *count);
  if (!count || str_index_init(&x, t->n_rows)) {
    free(count);
    return -1;
  }
  int rc = 0;
  for (size_t r = 0; r < t->n_rows && !rc; r++) {
    size_t first;
    rc = str_index_add(&x, result_table_cell(t, r, key_col), r, &first);
    if (!rc) occ[r] = ++count[first];
  }
  str_index_free(&x);
  free(count);
  return rc;
}

static void key_text(const result_table *t, int key_col, size_t row, size_t k, char *out, size_t n) {
  if (k > 1) snprintf(out, n, "%s#%zu", result_table_cell(t, row, key_col), k);
  else snprintf(out, n, "%s", result_table_cell(t, row, key_col));
}

/* b's rows by a text of each (its key, its identity), for pairing a's rows
 * with the first unused row of b with the same text. */
static int index_rows(str_index *x, size_t n, const char *(*text)(const void *, size_t), const void *ctx) {
  if (str_index_init(x, n)) return -1;
  for (size_t s = 0; s < n; s++)
    if (str_index_add(x, text(ctx, s), s, NULL)) {
      str_index_free(x);
      return -1;
    }
  return 0;
}

typedef struct key_ctx {
  const result_table *t;
  int col;
} key_ctx;

static const char *key_of(const void *ctx, size_t row) {
  const key_ctx *k = ctx;
  return result_table_cell(k->t, row, k->col);
}

static const char *id_of(const void *ctx, size_t row) { return ((char *const *)ctx)[row]; }

/* The first row of b under text that is unused and passes ok (NULL: any),
 * or -1. (A text's list is as long as the rows that share it: one, but for
 * repeated keys or several seeds of one point.) */
static int first_unused(const str_index *x, const char *text, const int *used,
                        int (*ok)(const void *, size_t), const void *ctx) {
  for (size_t e = str_index_find(x, text); e != SIZE_MAX; e = str_index_next(x, e)) {
    const size_t s = str_index_value(x, e);
    if (!used[s] && (!ok || ok(ctx, s))) return (int)s;
  }
  return -1;
}

typedef struct seed_ctx {
  const compare_side *sb;
  uint64_t seed;
  int has_seed;
} seed_ctx;

/* Pairs by config are of other seeds only (a seed's own rows pair by key);
 * a row pooled over seeds has none, and pairs with any. */
static int other_seed(const void *ctx, size_t s) {
  const seed_ctx *c = ctx;
  return !c->has_seed || !c->sb[s].has_seed || c->sb[s].seed != c->seed;
}

int results_compare(const result_table *a, const result_table *b, const compare_options *o,
                    compare_result *out, char *err, size_t errlen) {
  *out = (compare_result){0};
  const result_table *tables[2] = {a, b};
  for (int i = 0; i < 2; i++) {
    if (result_table_column(tables[i], "point_key") < 0) {
      results_fail(err, errlen,
           "%s:1: expected a point_key column (the point's identity, which pairs the rows), got none: "
           "the file was written before point keys existed; run it again",
           tables[i]->path);
      return 2;
    }
    static const char *const need[] = {"bits", "bit_errors", "frames", "ci95_low", "ci95_high", NULL};
    if (result_table_require(tables[i], need, err, errlen)) return 2;
  }
  int rc = 2;
  compare_side *sa = calloc(a->n_rows + 1, sizeof *sa), *sb = calloc(b->n_rows + 1, sizeof *sb);
  int *b_of_a = malloc((a->n_rows + 1) * sizeof *b_of_a), *b_used = calloc(b->n_rows + 1, sizeof *b_used);
  compare_match *how = malloc((a->n_rows + 1) * sizeof *how);
  compare_pair *pairs = calloc(a->n_rows + b->n_rows + 1, sizeof *pairs);
  char **id_a = NULL, **id_b = NULL;
  size_t *occ_a = malloc((a->n_rows + 1) * sizeof *occ_a), *occ_b = malloc((b->n_rows + 1) * sizeof *occ_b);
  str_index index_b;
  int indexed = 0;
  if (!sa || !sb || !b_of_a || !b_used || !how || !pairs || !occ_a || !occ_b) {
    results_fail(err, errlen, "out of memory");
    goto done;
  }
  if (read_sides(a, sa, err, errlen) || read_sides(b, sb, err, errlen)) goto done;
  const int ka = result_table_column(a, "point_key"), kb = result_table_column(b, "point_key");
  /* By key: the n-th row of a key in a with the n-th in b (b's rows found
   * through an index: linear, not quadratic, in the rows). */
  size_t n_matched = 0;
  const key_ctx kctx = {b, kb};
  if (index_rows(&index_b, b->n_rows, key_of, &kctx)) {
    results_fail(err, errlen, "out of memory");
    goto done;
  }
  indexed = 1;
  for (size_t r = 0; r < a->n_rows; r++) {
    const int s = first_unused(&index_b, result_table_cell(a, r, ka), b_used, NULL, NULL);
    b_of_a[r] = s;
    if (s >= 0) b_used[s] = 1, how[r] = MATCH_KEY, n_matched++;
  }
  /* Across seeds: by the config without the seed. */
  if (n_matched < a->n_rows && n_matched < b->n_rows && result_table_column(a, "simulation.seed") >= 0 &&
      result_table_column(b, "simulation.seed") >= 0) {
    str_index_free(&index_b);
    indexed = 0;
    if (!(id_a = identities(a, a, b)) || !(id_b = identities(b, a, b)) ||
        index_rows(&index_b, b->n_rows, id_of, id_b)) {
      results_fail(err, errlen, "out of memory");
      goto done;
    }
    indexed = 1;
    for (size_t r = 0; r < a->n_rows; r++) {
      if (b_of_a[r] >= 0) continue;
      const seed_ctx sc = {sb, sa[r].seed, sa[r].has_seed};
      const int s = first_unused(&index_b, id_a[r], b_used, other_seed, &sc);
      if (s >= 0) b_of_a[r] = s, b_used[s] = 1, how[r] = MATCH_CONFIG, n_matched++;
    }
  }
  if (occurrences(a, ka, occ_a) || occurrences(b, kb, occ_b)) {
    results_fail(err, errlen, "out of memory");
    goto done;
  }
  if (!n_matched) {
    results_fail(err, errlen,
         "%s and %s: expected points common to both files, got none (no point_key of one is in the "
         "other, nor a row with the same config under another seed); to compare curves that differ in "
         "a key, such as equalizer: ofdmsim compare A.csv B.csv --by equalizer",
         a->path, b->path);
    goto done;
  }
  size_t n = 0;
  for (size_t r = 0; r < a->n_rows; r++) {
    compare_pair *p = &pairs[n++];
    p->z = p->p = NAN;
    p->has_a = 1;
    p->a = sa[r];
    key_text(a, ka, r, occ_a[r], p->key, sizeof p->key);
    if (b_of_a[r] < 0) {
      p->verdict = CMP_ONLY_A;
      out->n_only_a++;
      continue;
    }
    p->has_b = 1;
    p->b = sb[b_of_a[r]];
    p->match = how[r];
    if (p->match == MATCH_CONFIG) {
      key_text(b, kb, (size_t)b_of_a[r], occ_b[b_of_a[r]], p->other_key, sizeof p->other_key);
      out->n_by_config++;
    }
    if (!p->a.bits || !p->b.bits) {
      p->verdict = CMP_SKIPPED;
      out->n_skipped++;
    } else {
      out->n_compared++;
    }
  }
  for (size_t s = 0; s < b->n_rows; s++) {
    if (b_used[s]) continue;
    compare_pair *p = &pairs[n++];
    p->z = p->p = NAN;
    p->has_b = 1;
    p->b = sb[s];
    key_text(b, kb, s, occ_b[s], p->key, sizeof p->key);
    p->verdict = CMP_ONLY_B;
    out->n_only_b++;
  }
  out->alpha_each = out->n_compared ? o->alpha / (double)out->n_compared : o->alpha;
  for (size_t i = 0; i < n; i++) {
    compare_pair *p = &pairs[i];
    if (!p->has_a || !p->has_b || p->verdict == CMP_SKIPPED) continue;
    decide(p, o, out->alpha_each);
    if (p->same_draws) out->n_same_draws++;
    if (p->verdict == CMP_AGREE) out->n_agree++;
    else out->n_differ++;
  }
  out->pairs = pairs;
  out->n_pairs = n;
  pairs = NULL;
  rc = 0;
done:
  free(sa);
  free(sb);
  free(b_of_a);
  free(b_used);
  free(how);
  free(pairs);
  free_identities(id_a, a->n_rows);
  free_identities(id_b, b->n_rows);
  free(occ_a);
  free(occ_b);
  if (indexed) str_index_free(&index_b);
  return rc;
}
