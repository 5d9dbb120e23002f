/* Result rows -> curves. A curve is one combination of the values of the
 * config keys that differ between the plotted rows (the SNR aside, and the
 * keys that do not change the result: stopping rules, per-run settings), so
 * the legend names what tells the curves apart and the title what they
 * share. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app/plot_internal.h"
#include "config/config_schema.h"
#include "results/results.h"

static void fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* Config-key columns that are not a curve's identity: the SNR is the x axis,
 * the stopping rules decide only how long a point ran, the per-run settings
 * how fast. */
static const char *const not_keys[] = {
    "simulation.snr_db",       "simulation.target_errors",    "simulation.max_bits",
    "simulation.min_frames",   "simulation.target_precision", "simulation.stop_below_ber",
    "simulation.first_frame",  "simulation.backend",          "simulation.threads",
    "simulation.batch_frames", "simulation.gpu_memory_mb",    NULL,
};

/* CSVs written before the config-key columns: their descriptive columns, under
 * the names of the config keys they hold, so old and new files line up. */
static const char *const legacy_keys[][2] = {
    {"tx", "mimo.tx"},         {"rx", "mimo.rx"},           {"modulation", "modulation"},
    {"equalizer", "equalizer"}, {"channel", "channel.model"}, {"domain", "ofdm.domain"},
    {"snr_kind", "simulation.snr_kind"}, {"label", "label"}};
#define N_LEGACY (sizeof legacy_keys / sizeof *legacy_keys)

/* The key that stands for "which file" when rows of several files would
 * otherwise share a curve. */
#define FILE_KEY "file"

static int listed(const char *name, const char *const *list) {
  for (size_t i = 0; list[i]; i++)
    if (!strcmp(name, list[i])) return 1;
  return 0;
}

/* Two cells hold one value: the same text, or the same number ("4", "4.0"). */
static int same_value(const char *a, const char *b) {
  if (!strcmp(a, b)) return 1;
  char *ea, *eb;
  const double x = strtod(a, &ea), y = strtod(b, &eb);
  return ea != a && !*ea && eb != b && !*eb && x == y;
}

/* A value for people: numbers printed round-trip (0.10000000000000001) come
 * back short (0.1); integers and words stay as they are. */
static const char *show_value(const char *v, char *buf, size_t n) {
  char *end;
  const double x = strtod(v, &end);
  if (end == v || *end || !isfinite(x) || strspn(v, "0123456789") == strlen(v)) return v;
  snprintf(buf, n, "%.10g", x);
  return buf;
}

/* The union of the keys of all tables, and where each table keeps them. */
typedef struct key_list {
  char **names;
  size_t n;
  int *cols; /* n_tables x n: the column of key k in table t, or -1 */
} key_list;

static int key_index(const key_list *k, const char *name) {
  for (size_t i = 0; i < k->n; i++)
    if (!strcmp(k->names[i], name)) return (int)i;
  return -1;
}

static int key_add(key_list *k, const char *name) {
  if (key_index(k, name) >= 0) return 0;
  char **grown = realloc(k->names, (k->n + 1) * sizeof *grown);
  if (!grown) return -1;
  k->names = grown;
  if (!(k->names[k->n] = strdup(name))) return -1;
  k->n++;
  return 0;
}

/* Does t carry the config-key columns (dotted names)? */
static int has_config_columns(const result_table *t) {
  for (size_t c = 0; c < t->n_cols; c++)
    if (strchr(t->names[c], '.')) return 1;
  return 0;
}

static int is_key_column(const char *name) {
  return (strchr(name, '.') || !strcmp(name, "modulation") || !strcmp(name, "equalizer")) &&
         !listed(name, not_keys);
}

/* The key names of every table, then the column of each in each table. */
static int keys_collect(key_list *k, const result_table *t, size_t n_tables) {
  for (size_t i = 0; i < n_tables; i++) {
    if (has_config_columns(&t[i])) {
      /* in the order of the config columns, where modulation and equalizer
       * come again after mimo.rx, and only then the descriptive columns */
      size_t first = 0;
      while (!strchr(t[i].names[first], '.')) first++;
      for (size_t c = 0; c < t[i].n_cols; c++) {
        const char *name = t[i].names[(first + c) % t[i].n_cols];
        if (is_key_column(name) && key_add(k, name)) return -1;
      }
    } else {
      for (size_t l = 0; l < N_LEGACY; l++)
        if (result_table_column(&t[i], legacy_keys[l][0]) >= 0 && key_add(k, legacy_keys[l][1])) return -1;
    }
  }
  if (!(k->cols = malloc((n_tables * k->n + 1) * sizeof *k->cols))) return -1;
  for (size_t i = 0; i < n_tables; i++) {
    const int modern = has_config_columns(&t[i]);
    for (size_t j = 0; j < k->n; j++) {
      int col = -1;
      if (modern) col = is_key_column(k->names[j]) ? result_table_column(&t[i], k->names[j]) : -1;
      else
        for (size_t l = 0; l < N_LEGACY; l++)
          if (!strcmp(legacy_keys[l][1], k->names[j])) col = result_table_column(&t[i], legacy_keys[l][0]);
      k->cols[i * k->n + j] = col;
    }
  }
  return 0;
}

static void keys_free(key_list *k) {
  for (size_t i = 0; i < k->n; i++) free(k->names[i]);
  free(k->names);
  free(k->cols);
  *k = (key_list){0};
}

/* A plottable row: where it comes from and what is drawn. */
typedef struct row_ref {
  size_t table, row;
  plot_point pt;
  size_t curve;
} row_ref;

typedef struct grouping {
  const result_table *tables;
  size_t n_tables;
  key_list keys;
  row_ref *rows;
  size_t n_rows;
  char *active;            /* keys.n + 1 flags: key j tells curves apart (the last: the file) */
  const char **file_names; /* how the legend names each table */
  size_t *first_row;       /* n_rows: the first row of each curve */
  const char **seen;       /* n_rows: key_splits' first value of each curve */
  size_t n_curves;
} grouping;

/* The value of key j (keys.n: the file) in row r, or NULL where its table
 * has no such column. */
static const char *row_value(const grouping *g, const row_ref *r, size_t j) {
  if (j == g->keys.n) return g->file_names[r->table];
  const int col = g->keys.cols[r->table * g->keys.n + j];
  return col < 0 ? NULL : result_table_cell(&g->tables[r->table], r->row, col);
}

static int values_match(const char *a, const char *b) {
  if (!a || !b) return a == b;
  return same_value(a, b);
}

/* Rows a and b are on one curve: every active key has one value. */
static int same_curve(const grouping *g, const row_ref *a, const row_ref *b) {
  for (size_t j = 0; j <= g->keys.n; j++)
    if (g->active[j] && !values_match(row_value(g, a, j), row_value(g, b, j))) return 0;
  return 1;
}

/* Numbers the curves in order of first appearance, each row compared with
 * the first row of every curve so far (one curve is one value per active
 * key, so its first row stands for all); returns how many. */
static size_t assign_curves(grouping *g) {
  size_t n = 0;
  for (size_t i = 0; i < g->n_rows; i++) {
    size_t c = 0;
    while (c < n && !same_curve(g, &g->rows[g->first_row[c]], &g->rows[i])) c++;
    if (c == n) g->first_row[n++] = i;
    g->rows[i].curve = c;
  }
  g->n_curves = n;
  return n;
}

/* Would key j split a curve: two rows on one curve with different values
 * (rows without the key aside), or from different files (j = keys.n)? */
static int key_splits(const grouping *g, size_t j) {
  for (size_t c = 0; c < g->n_curves; c++) g->seen[c] = NULL;
  for (size_t r = 0; r < g->n_rows; r++) {
    const row_ref *row = &g->rows[r];
    if (j == g->keys.n) {
      if (row->table != g->rows[g->first_row[row->curve]].table) return 1;
      continue;
    }
    const char *v = row_value(g, row, j);
    if (!v) continue;
    if (!g->seen[row->curve]) g->seen[row->curve] = v;
    else if (!same_value(g->seen[row->curve], v)) return 1;
  }
  return 0;
}

/* Keys that, when they differ, mostly follow another key that differs too
 * (the default cyclic prefix is an eighth of the subcarriers; two runs with
 * other seeds usually differ in more than the seed) and the label of an old
 * CSV (its sweep keys, already columns): they join the legend only where
 * they tell rows apart that the other keys do not. */
static const char *const secondary_keys[] = {"ofdm.cp_length", "simulation.seed", "label", NULL};

/* The keys that differ: every config key with two values among the rows
 * that have it; then each secondary key only where it separates what those
 * keys do not; then the file, where rows of two files would share a curve
 * (the same point run twice). Either way each curve is one combination of
 * the values of all differing keys; the legend just skips the redundant. */
static size_t choose_keys(grouping *g) {
  for (size_t j = 0; j < g->keys.n; j++) {
    if (listed(g->keys.names[j], secondary_keys)) continue;
    const char *first = NULL;
    for (size_t r = 0; r < g->n_rows && !g->active[j]; r++) {
      const char *v = row_value(g, &g->rows[r], j);
      if (!v) continue;
      if (!first) first = v;
      else if (!same_value(first, v)) g->active[j] = 1;
    }
  }
  size_t n = assign_curves(g);
  for (size_t k = 0; secondary_keys[k]; k++) {
    const int j = key_index(&g->keys, secondary_keys[k]);
    if (j >= 0 && key_splits(g, (size_t)j)) {
      g->active[j] = 1;
      n = assign_curves(g);
    }
  }
  if (g->n_tables > 1 && key_splits(g, g->keys.n)) {
    g->active[g->keys.n] = 1;
    n = assign_curves(g);
  }
  return n;
}

/* A growing string. */
typedef struct text {
  char *s;
  size_t n, cap;
  int oom;
} text;

static void text_add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(text *t, const char *fmt, ...) {
  if (t->oom) return;
  va_list ap;
  va_start(ap, fmt);
  const int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (t->n + (size_t)len + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 64;
    while (cap < t->n + (size_t)len + 1) cap *= 2;
    char *grown = realloc(t->s, cap);
    if (!grown) {
      t->oom = 1;
      return;
    }
    t->s = grown;
    t->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
  va_end(ap);
  t->n += (size_t)len;
}

/* The text, or NULL when out of memory; an empty text is "". */
static char *text_take(text *t) {
  if (t->oom) {
    free(t->s);
    return NULL;
  }
  return t->s ? t->s : strdup("");
}

/* "file=a.csv mimo.tx=4 equalizer=zf": the active keys of a curve's row
 * (the label, itself "key=value ...", as it is); "simulated" for a lone
 * curve. */
static char *legend_of(const grouping *g, const row_ref *r) {
  text t = {0};
  for (size_t step = 0; step <= g->keys.n; step++) {
    const size_t j = step == 0 ? g->keys.n : step - 1; /* the file first */
    if (!g->active[j]) continue;
    const char *v = row_value(g, r, j);
    if (!v || !*v) continue; /* a key that does not apply to this curve */
    char buf[64];
    if (j == g->keys.n) text_add(&t, "%s%s=%s", t.n ? " " : "", FILE_KEY, v);
    else if (!strcmp(g->keys.names[j], "label")) text_add(&t, "%s%s", t.n ? " " : "", v);
    else text_add(&t, "%s%s=%s", t.n ? " " : "", g->keys.names[j], show_value(v, buf, sizeof buf));
  }
  if (!t.oom && !t.n) text_add(&t, "simulated");
  return text_take(&t);
}

/* The shared value of key `name` over all rows (those without it aside),
 * or NULL when it differs, is missing or is empty. */
static const char *common_value(const grouping *g, const char *name) {
  const int j = key_index(&g->keys, name);
  if (j < 0 || g->active[j]) return NULL;
  const char *first = NULL;
  for (size_t r = 0; r < g->n_rows; r++) {
    const char *v = row_value(g, &g->rows[r], (size_t)j);
    if (!v || !*v) continue;
    if (!first) first = v;
    else if (!same_value(first, v)) return NULL; /* a secondary key that differs */
  }
  return first;
}

static int is_zero(const char *v) {
  char *end;
  const double x = strtod(v, &end);
  return end != v && !*end && x == 0;
}

static void upper(const char *v, char *out, size_t n) {
  size_t i = 0;
  for (; v[i] && i + 1 < n; i++) out[i] = (char)(v[i] >= 'a' && v[i] <= 'z' ? v[i] - 'a' + 'A' : v[i]);
  out[i] = '\0';
}

/* The title: what every curve shares, in words where the key is known
 * ("2x2 QPSK ZF, Rayleigh"), leaving out what says nothing about the link
 * (the seed, the SNR kind: the x axis says it) and zeros of the impairments;
 * other shared keys as "name=value" where they differ from the key's
 * default (a run of configs/default.cfg would otherwise title itself with
 * every receiver and OFDM setting it left alone, wider than the picture). */
static char *title_of(const grouping *g) {
  static const char *const said[] = {
      "mimo.tx", "mimo.rx", "modulation", "equalizer", "channel.model", "channel.profile",
      "channel.delay_spread", "channel.rho_tx", "channel.rho_rx", "channel.k_factor", "channel.csi_error_var",
      "ofdm.domain", "ofdm.subcarriers", "ofdm.symbols", "ofdm.cp_length", "simulation.seed",
      "simulation.snr_kind", "label", NULL};
  text t = {0};
  char a[64], b[64];
  const char *tx = common_value(g, "mimo.tx"), *rx = common_value(g, "mimo.rx");
  if (tx && rx) text_add(&t, "%sx%s MIMO", tx, rx);
  else if (tx) text_add(&t, "%s tx", tx);
  else if (rx) text_add(&t, "%s rx", rx);
  const char *v;
  if ((v = common_value(g, "modulation"))) upper(v, a, sizeof a), text_add(&t, "%s%s", t.n ? " " : "", a);
  if ((v = common_value(g, "equalizer"))) upper(v, a, sizeof a), text_add(&t, "%s%s", t.n ? " " : "", a);
  const char *model = common_value(g, "channel.model");
  if (model && !strcmp(model, "tdl")) {
    const char *profile = common_value(g, "channel.profile"),
               *spread = common_value(g, "channel.delay_spread");
    if (profile && !strncmp(profile, "tdl-", 4)) upper(profile, a, sizeof a); /* TR 38.901's TDL-C */
    else snprintf(a, sizeof a, "TDL%s%s", profile ? " " : "", profile ? profile : "");
    text_add(&t, "%s%s", t.n ? ", " : "", a);
    if (spread) text_add(&t, " (delay spread %s)", show_value(spread, a, sizeof a));
  } else if (model) {
    text_add(&t, "%s%s", t.n ? ", " : "",
             !strcmp(model, "rayleigh") ? "Rayleigh"
             : !strcmp(model, "awgn")   ? "AWGN"
                                        : model);
  }
  static const char *const impairments[][2] = {
      {"channel.rho_tx", "rho_tx"}, {"channel.rho_rx", "rho_rx"}, {"channel.k_factor", "K"},
      {"channel.csi_error_var", "CSI error var"}};
  for (size_t i = 0; i < sizeof impairments / sizeof *impairments; i++)
    if ((v = common_value(g, impairments[i][0])) && !is_zero(v))
      text_add(&t, "%s%s %s", t.n ? ", " : "", impairments[i][1], show_value(v, a, sizeof a));
  const char *domain = common_value(g, "ofdm.domain");
  if (domain && !strcmp(domain, "time")) {
    const char *sc = common_value(g, "ofdm.subcarriers"), *cp = common_value(g, "ofdm.cp_length");
    text_add(&t, "%stime-domain OFDM", t.n ? ", " : "");
    if (sc && cp) text_add(&t, " (%s subcarriers, CP %s)", sc, cp);
    else if (sc) text_add(&t, " (%s subcarriers)", sc);
  }
  for (size_t j = 0; j < g->keys.n; j++) {
    const char *name = g->keys.names[j];
    if (listed(name, said) || !(v = common_value(g, name)) || config_key_default_is(name, v)) continue;
    const char *dot = strrchr(name, '.');
    text_add(&t, "%s%s=%s", t.n ? ", " : "", dot ? dot + 1 : name, show_value(v, b, sizeof b));
  }
  return text_take(&t);
}

/* The x axis: the SNR definition all rows share; a mix is a differing key
 * and the legend says which curve is which. */
static char *xlabel_of(const grouping *g) {
  const int j = key_index(&g->keys, "simulation.snr_kind");
  if (j >= 0 && g->active[j]) return strdup("SNR (dB), see legend");
  const char *kind = common_value(g, "simulation.snr_kind");
  if (kind && !strcmp(kind, "ebno")) return strdup("Eb/N0 (dB)");
  if (kind && !strcmp(kind, "esno")) return strdup("Es/N0 (dB)");
  return strdup("SNR (dB)");
}

/* Row r of t as a point; 0, 1 for a skipped row (bits = 0), or 2 with the
 * message. */
static int read_point(const result_table *t, size_t r, int theory_col, plot_point *p, char *err,
                      size_t errlen) {
  uint64_t bits = 0, errors = 0;
  if (result_table_u64(t, r, "bits", &bits, err, errlen)) return 2;
  if (!bits) return 1;
  if (result_table_u64(t, r, "bit_errors", &errors, err, errlen) ||
      result_table_double(t, r, "snr_db", &p->snr, err, errlen) ||
      result_table_double(t, r, "ber", &p->ber, err, errlen) ||
      result_table_double(t, r, "ci95_low", &p->low, err, errlen) ||
      result_table_double(t, r, "ci95_high", &p->high, err, errlen))
    return 2;
  p->zero = errors == 0;
  p->theory = NAN;
  if (*result_table_cell(t, r, theory_col)) {
    if (result_table_double(t, r, "theory_ber", &p->theory, err, errlen)) return 2;
    if (!(p->theory > 0)) p->theory = NAN; /* nothing to draw on a log axis */
  }
  if (!p->zero && !(p->ber > 0)) {
    fail(err, errlen, "%s:%zu: column ber: expected a BER above 0 with %llu bit errors, got '%s'", t->path,
         t->lines[r], (unsigned long long)errors, result_table_cell(t, r, result_table_column(t, "ber")));
    return 2;
  }
  if (!(p->high > 0) || p->high < p->ber) {
    fail(err, errlen,
         "%s:%zu: column ci95_high: expected an upper bound above 0 and at least the BER, got '%s'", t->path,
         t->lines[r], result_table_cell(t, r, result_table_column(t, "ci95_high")));
    return 2;
  }
  return 0;
}

/* Every plottable row of every table into g->rows. */
static int collect_rows(grouping *g, char *err, size_t errlen) {
  static const char *const needed[] = {"snr_db", "bits", "bit_errors", "ber", "ci95_low", "ci95_high", NULL};
  size_t total = 0;
  for (size_t i = 0; i < g->n_tables; i++) total += g->tables[i].n_rows;
  if (!(g->rows = calloc(total + 1, sizeof *g->rows))) {
    fail(err, errlen, "out of memory");
    return 2;
  }
  for (size_t i = 0; i < g->n_tables; i++) {
    const result_table *t = &g->tables[i];
    if (result_table_require(t, needed, err, errlen)) return 2;
    const int theory_col = result_table_column(t, "theory_ber");
    size_t drawn = 0;
    for (size_t r = 0; r < t->n_rows; r++) {
      row_ref *ref = &g->rows[g->n_rows];
      const int rc = read_point(t, r, theory_col, &ref->pt, err, errlen);
      if (rc == 2) return 2;
      if (rc == 1) continue;
      ref->table = i;
      ref->row = r;
      g->n_rows++;
      drawn++;
    }
    if (!drawn) {
      if (t->n_rows)
        fail(err, errlen, "%s:%zu: expected a row to plot (bits > 0), got %zu row%s, all skipped (bits = 0)",
             t->path, t->lines[0], t->n_rows, t->n_rows == 1 ? "" : "s");
      else fail(err, errlen, "%s:2: expected a row to plot after the header, got none", t->path);
      return 2;
    }
  }
  return 0;
}

/* The legend's name of each table: its base name, or the path as given when
 * two tables share a base name. */
static int name_files(grouping *g) {
  if (!(g->file_names = calloc(g->n_tables + 1, sizeof *g->file_names))) return -1;
  for (size_t i = 0; i < g->n_tables; i++) {
    const char *slash = strrchr(g->tables[i].path, '/');
    g->file_names[i] = slash ? slash + 1 : g->tables[i].path;
  }
  for (size_t i = 0; i < g->n_tables; i++)
    for (size_t k = 0; k < g->n_tables; k++)
      if (i != k && !strcmp(g->file_names[i], g->file_names[k])) {
        g->file_names[i] = g->tables[i].path;
        break;
      }
  return 0;
}

static int by_snr(const void *a, const void *b) {
  const plot_point *x = a, *y = b;
  return (x->snr > y->snr) - (x->snr < y->snr);
}

/* The curves of g's grouping into d. */
static int build_curves(const grouping *g, size_t n_curves, plot_data *d) {
  if (!(d->curves = calloc(n_curves, sizeof *d->curves))) return -1;
  d->n_curves = n_curves;
  for (size_t r = 0; r < g->n_rows; r++) {
    plot_curve *c = &d->curves[g->rows[r].curve];
    if (!c->legend && !(c->legend = legend_of(g, &g->rows[r]))) return -1;
    if (c->n == c->cap) {
      const size_t cap = c->cap ? 2 * c->cap : 8;
      plot_point *grown = realloc(c->points, cap * sizeof *grown);
      if (!grown) return -1;
      c->points = grown;
      c->cap = cap;
    }
    c->points[c->n++] = g->rows[r].pt;
    d->n_points++;
  }
  /* the rows of a curve may come in any order (several files, a reversed
   * SNR list); lines join them by SNR. qsort is not stable, but points at one
   * SNR are drawn alike whatever their order. */
  for (size_t i = 0; i < n_curves; i++)
    qsort(d->curves[i].points, d->curves[i].n, sizeof *d->curves[i].points, by_snr);
  if (!(d->title = title_of(g)) || !(d->xlabel = xlabel_of(g))) return -1;
  return 0;
}

int plot_data_load(plot_data *d, char *const *paths, size_t n_paths, char *err, size_t errlen) {
  *d = (plot_data){0};
  result_table *tables = calloc(n_paths + 1, sizeof *tables);
  grouping g = {.tables = tables, .n_tables = n_paths};
  int rc = 2;
  if (!tables) goto oom;
  for (size_t i = 0; i < n_paths; i++)
    if (result_table_read(&tables[i], paths[i], err, errlen)) goto done;
  if (collect_rows(&g, err, errlen)) goto done;
  if (keys_collect(&g.keys, tables, n_paths) || name_files(&g) || !(g.active = calloc(g.keys.n + 1, 1)) ||
      !(g.first_row = calloc(g.n_rows + 1, sizeof *g.first_row)) ||
      !(g.seen = calloc(g.n_rows + 1, sizeof *g.seen)))
    goto oom;
  const size_t n_curves = choose_keys(&g);
  if (build_curves(&g, n_curves, d)) goto oom;
  rc = 0;
  goto done;
oom:
  fail(err, errlen, "out of memory");
done:
  if (rc) plot_data_free(d);
  keys_free(&g.keys);
  free(g.rows);
  free(g.active);
  free(g.file_names);
  free(g.first_row);
  free(g.seen);
  for (size_t i = 0; tables && i < n_paths; i++) result_table_free(&tables[i]);
  free(tables);
  return rc;
}

void plot_data_free(plot_data *d) {
  for (size_t i = 0; d->curves && i < d->n_curves; i++) {
    free(d->curves[i].legend);
    free(d->curves[i].points);
  }
  free(d->curves);
  free(d->title);
  free(d->xlabel);
  *d = (plot_data){0};
}
