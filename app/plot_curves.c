/* Result rows -> curves. A curve is one combination of the values of the
 * config keys that differ between the plotted rows (the x axis aside, and the
 * keys that do not change the result: stopping rules, per-run settings), so
 * the legend names what tells the curves apart and the title what they
 * share, both in words ("2x2 ZF", "16-QAM", "TDL-C") with numbers rounded
 * for reading; the raw keys stay with each curve for the script's comments.
 * Every value drawn is checked to be one gnuplot can draw, before anything
 * is written. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app/plot_internal.h"
#include "config/config_schema.h"
#include "config/grow_array.h"
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
    "simulation.target_errors",    "simulation.max_bits",
    "simulation.min_frames",   "simulation.target_precision", "simulation.stop_below_ber",
    "simulation.first_frame",  "simulation.backend",          "simulation.threads",
    "simulation.batch_frames", "simulation.gpu_memory_mb",    NULL,
};

/* CSVs written before the config-key columns: their descriptive columns, under
 * the names of the config keys they hold, so old and new files line up. */
static const char *const legacy_keys[][2] = {
    {"tx", "mimo.tx"},         {"rx", "mimo.rx"},           {"modulation", "modulation"},
    {"equalizer", "equalizer"}, {"channel", "channel.model"}, {"domain", "ofdm.domain"},
    {"snr_kind", "simulation.snr_kind"}, {"label", "label"}, {"snr_db", "simulation.snr_db"}};
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

/* A column that tells curves apart: a config key, not the x axis's. */
static int is_key_column(const char *name, const char *x_key) {
  return (strchr(name, '.') || !strcmp(name, "modulation") || !strcmp(name, "equalizer")) &&
         !listed(name, not_keys) && strcmp(name, x_key);
}

/* The column of config key `name` in t (an older CSV: its descriptive
 * column of that meaning), or -1. */
static int key_column(const result_table *t, const char *name) {
  if (has_config_columns(t))
    return strchr(name, '.') || !strcmp(name, "modulation") || !strcmp(name, "equalizer")
               ? result_table_column(t, name)
               : -1; /* "label", "snr_db": an older CSV's stand-ins */
  for (size_t l = 0; l < N_LEGACY; l++)
    if (!strcmp(legacy_keys[l][1], name)) return result_table_column(t, legacy_keys[l][0]);
  return -1;
}

/* The key names of every table, then the column of each in each table. */
static int keys_collect(key_list *k, const result_table *t, size_t n_tables, const char *x_key) {
  for (size_t i = 0; i < n_tables; i++) {
    if (has_config_columns(&t[i])) {
      /* in the order of the config columns, where modulation and equalizer
       * come again after mimo.rx, and only then the descriptive columns */
      size_t first = 0;
      while (!strchr(t[i].names[first], '.')) first++;
      for (size_t c = 0; c < t[i].n_cols; c++) {
        const char *name = t[i].names[(first + c) % t[i].n_cols];
        if (is_key_column(name, x_key) && key_add(k, name)) return -1;
      }
    } else {
      for (size_t l = 0; l < N_LEGACY; l++)
        if (strcmp(legacy_keys[l][1], x_key) && result_table_column(&t[i], legacy_keys[l][0]) >= 0 &&
            key_add(k, legacy_keys[l][1]))
          return -1;
    }
  }
  if (!(k->cols = malloc((n_tables * k->n + 1) * sizeof *k->cols))) return -1;
  for (size_t i = 0; i < n_tables; i++) {
    for (size_t j = 0; j < k->n; j++) k->cols[i * k->n + j] = key_column(&t[i], k->names[j]);
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

/* What --y draws: a column with its 95% interval. */
typedef struct quantity {
  const char *name;              /* --y */
  const char *col, *low, *high;  /* the value and its interval's columns */
  int log;                       /* an error rate: a log axis, where 0 is drawn as an upper bound */
  const char *axis;              /* the y axis's label */
  const char *none_hint;         /* why a row may have an empty cell, or NULL */
} quantity;

static const quantity quantities[] = {
    {"ber", "ber", "ci95_low", "ci95_high", 1, "BER", NULL},
    {"bler", "bler", "bler_ci95_low", "bler_ci95_high", 1, "BLER",
     "the BLER is written for coded points: code.type = \"ldpc\""},
    {"gmi", "gmi", "gmi_ci95_low", "gmi_ci95_high", 0, "GMI (bit per resource element, all streams)",
     "the GMI is written for points with soft outputs: receiver.llr = maxlog or exact"},
    {"throughput", "throughput", "throughput_ci95_low", "throughput_ci95_high", 0,
     "Throughput (delivered information bits per resource element)",
     "the throughput is written for coded points: code.type = \"ldpc\""},
    {"residual_bler", "residual_bler", "residual_bler_ci95_low", "residual_bler_ci95_high", 1,
     "Residual BLER after HARQ", "the residual BLER is written for coded points: code.type = \"ldpc\""},
    {"harq_throughput", "harq_throughput", "harq_throughput_ci95_low", "harq_throughput_ci95_high", 0,
     "Throughput after HARQ (delivered information bits per resource element sent)",
     "the throughput after HARQ is written for coded points: code.type = \"ldpc\""},
};
const char *const plot_y_names[] = {"ber", "bler", "gmi", "throughput", "residual_bler", "harq_throughput", NULL};

/* The SNR's config key: the x axis unless --x names another. */
#define SNR_KEY "simulation.snr_db"

typedef struct grouping {
  const result_table *tables;
  size_t n_tables;
  const quantity *q;
  const char *x_key;       /* SNR_KEY or --x */
  int *x_cols;             /* n_tables: the x column of each table */
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

/* "file=a.csv mimo.tx=4 equalizer=zf": the active keys of a curve's row as
 * the CSV has them, for the script's comments; "" for a lone curve. */
static char *keys_of(const grouping *g, const row_ref *r) {
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
  return text_take(&t);
}

/* A number for reading: `digits` significant digits (389.1581111 -> 389.2),
 * whole numbers and numbers of more digits than that whole (1024, 12346),
 * exponents short (1e-7); words as they are. */
static const char *round_value(const char *v, int digits, char *buf, size_t n) {
  char *end;
  const double x = strtod(v, &end);
  if (end == v || *end || !isfinite(x)) return v;
  if ((x == floor(x) || fabs(x) >= pow(10, digits - 1)) && fabs(x) < 1e15) snprintf(buf, n, "%.0f", x);
  else snprintf(buf, n, "%.*g", digits, x);
  char *e = strchr(buf, 'e');
  if (e) { /* 1e-07 -> 1e-7, 1e+20 -> 1e20 */
    char *m = e + 1;
    if (*m == '+') memmove(m, m + 1, strlen(m));
    if (*m == '-') m++;
    while (*m == '0' && m[1]) memmove(m, m + 1, strlen(m));
  }
  return buf;
}

/* The words for a choice: key, value, words. */
static const char *const choice_words[][3] = {
    {"modulation", "bpsk", "BPSK"},
    {"modulation", "qpsk", "QPSK"},
    {"modulation", "16qam", "16-QAM"},
    {"modulation", "64qam", "64-QAM"},
    {"modulation", "256qam", "256-QAM"},
    {"equalizer", "zf", "ZF"},
    {"equalizer", "mmse", "MMSE"},
    {"equalizer", "mmse-sic", "MMSE-SIC"},
    {"equalizer", "kbest", "K-best"},
    {"equalizer", "ml", "ML"},
    {"channel.model", "awgn", "AWGN"},
    {"channel.model", "rayleigh", "Rayleigh"},
    {"channel.model", "tdl", "TDL"},
    {"channel.profile", "exp", "exponential TDL"},
    {"channel.profile", "tdl-a", "TDL-A"},
    {"channel.profile", "tdl-b", "TDL-B"},
    {"channel.profile", "tdl-c", "TDL-C"},
    {"channel.profile", "tdl-d", "TDL-D"},
    {"channel.profile", "tdl-e", "TDL-E"},
    {"channel.profile", "custom", "custom PDP"},
    {"channel.delays", "continuous", "continuous delays"},
    {"channel.delays", "sample", "delays on the sample grid"},
    {"ofdm.domain", "frequency", "frequency domain"},
    {"ofdm.domain", "time", "time-domain OFDM"},
    {"simulation.snr_kind", "ebno", "Eb/N0"},
    {"simulation.snr_kind", "esno", "Es/N0"},
    {"simulation.snr_kind", "snr", "SNR"},
    {"simulation.ebno_overhead", "excluded", "pilot and CP energy excluded"},
    {"simulation.ebno_overhead", "charged", "pilot and CP energy charged"},
    {"receiver.llr", "off", "hard decisions"},
    {"receiver.llr", "maxlog", "max-log LLRs"},
    {"receiver.llr", "exact", "exact LLRs"},
    {"receiver.channel_estimation", "perfect", "perfect CSI"},
    {"receiver.channel_estimation", "ls", "LS estimation"},
    {"receiver.interpolation", "nearest", "nearest-pilot interpolation"},
    {"receiver.interpolation", "linear", "linear interpolation"},
    {"receiver.interpolation", "lmmse", "LMMSE interpolation"},
    {"receiver.interpolation", "lmmse2d", "2-D LMMSE interpolation"},
};

/* The words for a number: key, words around the value (%s). */
static const char *const number_words[][2] = {
    {"mimo.tx", "%s tx"},
    {"mimo.rx", "%s rx"},
    {"channel.delay_spread", "delay spread %s samples"},
    {"channel.delay_spread_ns", "delay spread %s ns"},
    {"channel.doppler_hz", "Doppler %s Hz"},
    {"channel.speed_kmh", "%s km/h"},
    {"channel.carrier_ghz", "carrier %s GHz"},
    {"channel.rho_tx", "rho_tx %s"},
    {"channel.rho_rx", "rho_rx %s"},
    {"channel.k_factor", "K-factor %s"},
    {"channel.csi_error_var", "CSI error variance %s"},
    {"ofdm.subcarriers", "%s subcarriers"},
    {"ofdm.symbols", "%s symbols"},
    {"ofdm.cp_length", "CP %s"},
    {"ofdm.subcarrier_spacing", "subcarrier spacing %s Hz"},
    {"pilots.spacing", "pilot spacing %s"},
    {"pilots.first_symbol", "first pilot symbol %s"},
    {"pilots.symbol_spacing", "pilot symbol spacing %s"},
    {"receiver.kbest_k", "K=%s"},
    {"receiver.llr_clip", "LLR clip %s"},
    {"simulation.seed", "seed %s"},
};

/* Key `name` at value v in words, after sep: "16-QAM", "Doppler 389.2 Hz",
 * "seed 2"; a key without words as "name=value" (the last part of its
 * name); the label of an older CSV as it is. */
static void add_words(text *t, const char *sep, const char *name, const char *v, int digits) {
  char buf[64];
  for (size_t i = 0; i < sizeof choice_words / sizeof *choice_words; i++)
    if (!strcmp(choice_words[i][0], name) && !strcmp(choice_words[i][1], v)) {
      text_add(t, "%s%s", sep, choice_words[i][2]);
      return;
    }
  for (size_t i = 0; i < sizeof number_words / sizeof *number_words; i++)
    if (!strcmp(number_words[i][0], name)) {
      text_add(t, "%s", sep);
      const char *at = strstr(number_words[i][1], "%s");
      text_add(t, "%.*s%s%s", (int)(at - number_words[i][1]), number_words[i][1],
               round_value(v, digits, buf, sizeof buf), at + 2);
      return;
    }
  if (!strcmp(name, "label")) {
    text_add(t, "%s%s", sep, v);
    return;
  }
  const char *dot = strrchr(name, '.');
  text_add(t, "%s%s=%s", sep, dot ? dot + 1 : name, round_value(v, digits, buf, sizeof buf));
}

/* The value of key `name` in row r when it tells curves apart, else NULL. */
static const char *active_value(const grouping *g, const row_ref *r, const char *name) {
  const int j = key_index(&g->keys, name);
  if (j < 0 || !g->active[j]) return NULL;
  const char *v = row_value(g, r, (size_t)j);
  return v && *v ? v : NULL;
}

static const char *any_value(const grouping *g, const row_ref *r, const char *name) {
  const int j = key_index(&g->keys, name);
  const char *v = j < 0 ? NULL : row_value(g, r, (size_t)j);
  return v && *v ? v : NULL;
}

/* Does key j differ between the rows of table ti? */
static int varies_within(const grouping *g, size_t ti, size_t j) {
  const char *first = NULL;
  for (size_t r = 0; r < g->n_rows; r++) {
    if (g->rows[r].table != ti) continue;
    const char *v = row_value(g, &g->rows[r], j);
    if (!v) continue;
    if (!first) first = v;
    else if (!same_value(first, v)) return 1;
  }
  return 0;
}

/* What goes before the next part of a label: nothing first, ": " after the
 * file's name (the first `head` characters), else `joiner`. */
static const char *sep_after(const text *t, size_t head, const char *joiner) {
  return t->n == 0 ? "" : t->n == head ? ": " : joiner;
}

/* A curve's label for readers: what tells it apart, in words, numbers
 * rounded to `digits` significant digits: "2x2 ZF", "16-QAM, TDL-C",
 * "a.csv: 2x2 MMSE, seed 2"; "simulated" for a lone curve. The MIMO size,
 * the modulation and the detector read as one phrase ("4x4 16-QAM MMSE"),
 * the rest as a list: first the keys that differ within the curve's own
 * file, then those that tell its file apart. With terse, a key of the
 * second kind at its default is left out (files of different runs differ in
 * many keys; "pilot spacing 0" says little), and so is the spread in
 * samples where the config gave it in ns. */
static char *label_of(const grouping *g, const row_ref *r, int digits, int terse) {
  static const char *const handled[] = {"mimo.tx", "mimo.rx", "modulation", "equalizer", "channel.profile",
                                        "simulation.snr_kind", SNR_KEY, NULL};
  text t = {0};
  const char *v;
  if (g->active[g->keys.n]) text_add(&t, "%s", g->file_names[r->table]);
  const size_t head = t.n;
  const char *tx = any_value(g, r, "mimo.tx"), *rx = any_value(g, r, "mimo.rx");
  if ((active_value(g, r, "mimo.tx") || active_value(g, r, "mimo.rx")) && tx && rx)
    text_add(&t, "%s%sx%s", t.n ? ": " : "", tx, rx);
  else if ((v = active_value(g, r, "mimo.tx"))) add_words(&t, t.n ? ": " : "", "mimo.tx", v, digits);
  else if ((v = active_value(g, r, "mimo.rx"))) add_words(&t, t.n ? ": " : "", "mimo.rx", v, digits);
  if ((v = active_value(g, r, "modulation"))) add_words(&t, sep_after(&t, head, " "), "modulation", v, digits);
  if ((v = active_value(g, r, "equalizer"))) add_words(&t, sep_after(&t, head, " "), "equalizer", v, digits);
  /* the SNR, when it is no axis, with its definition: "Eb/N0 10 dB" */
  if ((v = active_value(g, r, SNR_KEY))) {
    const char *kind = any_value(g, r, "simulation.snr_kind");
    add_words(&t, sep_after(&t, head, ", "), "simulation.snr_kind", kind ? kind : "snr", digits);
    char buf[64];
    text_add(&t, " %s dB", round_value(v, digits, buf, sizeof buf));
  } else if ((v = active_value(g, r, "simulation.snr_kind"))) {
    add_words(&t, sep_after(&t, head, ", "), "simulation.snr_kind", v, digits);
  }
  const char *model = active_value(g, r, "channel.model"), *profile = any_value(g, r, "channel.profile");
  for (size_t step = 0; step < 2 * g->keys.n; step++) {
    const size_t j = step % g->keys.n;
    const char *name = g->keys.names[j];
    if (!g->active[j] || listed(name, handled) || !(v = active_value(g, r, name))) continue;
    const int within = varies_within(g, r->table, j);
    if (within != (step < g->keys.n)) continue;
    if (terse && !within && strcmp(name, "channel.model") && config_key_default_is(name, v)) continue;
    if (terse && !strcmp(name, "channel.delay_spread") && any_value(g, r, "channel.delay_spread_ns")) continue;
    const char *sep = sep_after(&t, head, ", ");
    if (!strcmp(name, "channel.model") && model && !strcmp(model, "tdl") && profile)
      add_words(&t, sep, "channel.profile", profile, digits);
    else add_words(&t, sep, name, v, digits);
  }
  if (!model && (v = active_value(g, r, "channel.profile")))
    add_words(&t, sep_after(&t, head, ", "), "channel.profile", v, digits);
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

/* The title: what every curve shares, in words ("2x2 MIMO QPSK ZF,
 * Rayleigh", "delay spread 300 ns", "Doppler 389.2 Hz"), numbers rounded to
 * four significant digits, leaving out what says nothing about the link
 * (the seed; the SNR definition, which the x axis says) and zeros of the
 * impairments; other shared keys only where they differ from the key's
 * default (a run of configs/default.cfg would otherwise title itself with
 * every receiver and OFDM setting it left alone, wider than the picture).
 * Its parts are joined by ", ", where the script may break its lines. */
static char *title_of(const grouping *g) {
  static const char *const said[] = {
      "mimo.tx", "mimo.rx", "modulation", "equalizer", "channel.model", "channel.profile",
      "channel.delay_spread", "channel.delay_spread_ns", "channel.rho_tx", "channel.rho_rx",
      "channel.k_factor", "channel.csi_error_var", "ofdm.domain", "ofdm.subcarriers", "ofdm.symbols",
      "ofdm.cp_length", "simulation.seed", "simulation.snr_kind", "simulation.ebno_overhead", SNR_KEY, "label",
      NULL};
  const int digits = 4;
  text t = {0};
  char a[64];
  const char *tx = common_value(g, "mimo.tx"), *rx = common_value(g, "mimo.rx");
  if (tx && rx) text_add(&t, "%sx%s MIMO", tx, rx);
  else if (tx) add_words(&t, "", "mimo.tx", tx, digits);
  else if (rx) add_words(&t, "", "mimo.rx", rx, digits);
  const char *v;
  if ((v = common_value(g, "modulation"))) add_words(&t, t.n ? " " : "", "modulation", v, digits);
  if ((v = common_value(g, "equalizer"))) add_words(&t, t.n ? " " : "", "equalizer", v, digits);
  const char *model = common_value(g, "channel.model");
  if (model && !strcmp(model, "tdl")) {
    const char *profile = common_value(g, "channel.profile");
    add_words(&t, t.n ? ", " : "", profile ? "channel.profile" : "channel.model", profile ? profile : model,
              digits);
    const char *ns = common_value(g, "channel.delay_spread_ns"), *spread = common_value(g, "channel.delay_spread");
    /* the spread in ns where the config gave it; in samples it follows from the ns */
    if (ns) add_words(&t, ", ", "channel.delay_spread_ns", ns, digits);
    else if (spread) add_words(&t, ", ", "channel.delay_spread", spread, digits);
  } else if (model) {
    add_words(&t, t.n ? ", " : "", "channel.model", model, digits);
  }
  static const char *const impairments[] = {"channel.rho_tx", "channel.rho_rx", "channel.k_factor",
                                            "channel.csi_error_var"};
  for (size_t i = 0; i < sizeof impairments / sizeof *impairments; i++)
    if ((v = common_value(g, impairments[i])) && !is_zero(v))
      add_words(&t, t.n ? ", " : "", impairments[i], v, digits);
  const char *domain = common_value(g, "ofdm.domain");
  if (domain && !strcmp(domain, "time")) {
    const char *sc = common_value(g, "ofdm.subcarriers"), *cp = common_value(g, "ofdm.cp_length");
    text_add(&t, "%stime-domain OFDM", t.n ? ", " : "");
    if (sc && cp) text_add(&t, " (%s subcarriers, CP %s)", sc, cp);
    else if (sc) text_add(&t, " (%s subcarriers)", sc);
  }
  /* the SNR, when --x puts another key on the axis */
  if (strcmp(g->x_key, SNR_KEY) && (v = common_value(g, SNR_KEY))) {
    const char *kind = common_value(g, "simulation.snr_kind");
    add_words(&t, t.n ? ", " : "", "simulation.snr_kind", kind ? kind : "snr", digits);
    text_add(&t, " %s dB", round_value(v, digits, a, sizeof a));
  }
  for (size_t j = 0; j < g->keys.n; j++) {
    const char *name = g->keys.names[j];
    if (listed(name, said) || !(v = common_value(g, name)) || config_key_default_is(name, v)) continue;
    add_words(&t, t.n ? ", " : "", name, v, digits);
  }
  return text_take(&t);
}

/* The x axis's label: the SNR with its definition (README, "SNR
 * definitions"), or the --x key in words. */
static char *xlabel_of(const grouping *g) {
  static const char *const axes[][2] = {
      {"channel.doppler_hz", "Maximum Doppler shift (Hz)"},
      {"channel.speed_kmh", "Speed (km/h)"},
      {"channel.carrier_ghz", "Carrier frequency (GHz)"},
      {"channel.delay_spread_ns", "RMS delay spread (ns)"},
      {"channel.delay_spread", "RMS delay spread (samples)"},
      {"channel.k_factor", "Rician K-factor (linear)"},
      {"channel.rho_tx", "Transmit antenna correlation rho_tx"},
      {"channel.rho_rx", "Receive antenna correlation rho_rx"},
      {"channel.csi_error_var", "CSI error variance"},
      {"mimo.tx", "Transmit streams"},
      {"mimo.rx", "Receive antennas"},
      {"ofdm.subcarriers", "Subcarriers"},
      {"ofdm.symbols", "OFDM symbols per frame"},
      {"ofdm.cp_length", "Cyclic prefix (samples)"},
      {"ofdm.subcarrier_spacing", "Subcarrier spacing (Hz)"},
      {"pilots.spacing", "Pilot spacing (subcarriers)"},
      {"receiver.kbest_k", "K-best survivors K"},
  };
  if (strcmp(g->x_key, SNR_KEY)) {
    for (size_t i = 0; i < sizeof axes / sizeof *axes; i++)
      if (!strcmp(axes[i][0], g->x_key)) return strdup(axes[i][1]);
    return strdup(g->x_key);
  }
  const int j = key_index(&g->keys, "simulation.snr_kind");
  if (j >= 0 && g->active[j]) return strdup("SNR (dB), its definition per curve in the legend");
  const char *kind = common_value(g, "simulation.snr_kind");
  if (kind && !strcmp(kind, "ebno")) {
    const char *overhead = common_value(g, "simulation.ebno_overhead");
    return strdup(overhead && !strcmp(overhead, "charged") ? "Eb/N0 per stream, pilot and CP energy charged (dB)"
                                                           : "Eb/N0 per stream (dB)");
  }
  if (kind && !strcmp(kind, "esno")) return strdup("Es/N0 per stream (dB)");
  if (kind && !strcmp(kind, "snr")) return strdup("SNR per receive antenna (dB)");
  return strdup("SNR (dB)");
}

/* The range a value of key `name` may have on the x axis: the config's own
 * (an SNR of 1e308 dB is no point gnuplot can place, nor one a run makes),
 * never wider than +-1e15. */
static void x_range(const char *name, double *lo, double *hi) {
  *lo = -1e15, *hi = 1e15;
  const int k = config_key_find(name);
  if (k < 0) return;
  const config_key *key = &config_keys[k];
  if (key->type == KT_INT) *lo = fmax(*lo, (double)key->imin), *hi = fmin(*hi, (double)key->imax);
  else if (key->type == KT_NUMBER || key->type == KT_NUMBERS) *lo = fmax(*lo, key->lo), *hi = fmin(*hi, key->hi);
}

/* The message for cell (r, col) of t: what was expected, what it holds. */
static int bad_cell(const result_table *t, size_t r, int col, const char *expected, char *err, size_t errlen) {
  fail(err, errlen, "%s:%zu: column %s: expected %s, got '%s'", t->path, t->lines[r], t->names[col], expected,
       result_table_cell(t, r, col));
  return 2;
}

/* The number in cell (r, col); 0, or 2 with the message. */
static int cell_number(const result_table *t, size_t r, int col, double *v, char *err, size_t errlen) {
  return result_table_double(t, r, t->names[col], v, err, errlen) ? 2 : 0;
}

/* Row r of table ti as a point; 0, 1 for a row with nothing to draw (bits =
 * 0: skipped; an empty cell of the quantity: a GMI without soft outputs), or
 * 2 with the message. Every drawn value is checked to be one gnuplot can
 * draw on its axis. */
static int read_point(const grouping *g, size_t ti, size_t r, plot_point *p, char *err, size_t errlen) {
  const result_table *t = &g->tables[ti];
  const quantity *q = g->q;
  uint64_t bits = 0, errors = 0;
  if (result_table_u64(t, r, "bits", &bits, err, errlen)) return 2;
  if (!bits) return 1;
  const int ycol = result_table_column(t, q->col), lcol = result_table_column(t, q->low),
            hcol = result_table_column(t, q->high), xcol = g->x_cols[ti];
  if (!*result_table_cell(t, r, ycol) && q->none_hint) return 1;
  if (cell_number(t, r, xcol, &p->x, err, errlen) || cell_number(t, r, ycol, &p->y, err, errlen)) return 2;
  double lo, hi;
  x_range(g->x_key, &lo, &hi);
  if (!(p->x >= lo && p->x <= hi)) {
    char expected[160];
    snprintf(expected, sizeof expected, "a number in [%g, %g] (the range of %s)", lo, hi, g->x_key);
    return bad_cell(t, r, xcol, expected, err, errlen);
  }
  p->low = p->high = NAN;
  if (lcol >= 0 && hcol >= 0 && (cell_number(t, r, lcol, &p->low, err, errlen) ||
                                 cell_number(t, r, hcol, &p->high, err, errlen)))
    return 2;
  p->theory = NAN;
  p->zero = 0;
  if (!q->log) {
    /* a linear axis: any size gnuplot's arithmetic keeps finite */
    if (!(fabs(p->y) <= 1e12)) return bad_cell(t, r, ycol, "a number within +-1e12", err, errlen);
    if (!isnan(p->low) && !(fabs(p->low) <= 1e12 && p->low <= p->y))
      return bad_cell(t, r, lcol, "a lower bound within +-1e12, at most the value", err, errlen);
    if (!isnan(p->high) && !(fabs(p->high) <= 1e12 && p->high >= p->y))
      return bad_cell(t, r, hcol, "an upper bound within +-1e12, at least the value", err, errlen);
    return 0;
  }
  /* a rate on a log axis: 0 (no error: its upper bound is drawn) or 1e-300..1 */
  if (!strcmp(q->name, "ber")) {
    if (result_table_u64(t, r, "bit_errors", &errors, err, errlen)) return 2;
    p->zero = errors == 0;
    if (!p->zero && !(p->y > 0)) {
      fail(err, errlen, "%s:%zu: column ber: expected a BER above 0 with %llu bit errors, got '%s'", t->path,
           t->lines[r], (unsigned long long)errors, result_table_cell(t, r, ycol));
      return 2;
    }
    const int theory_col = result_table_column(t, "theory_ber");
    if (theory_col >= 0 && *result_table_cell(t, r, theory_col)) {
      if (cell_number(t, r, theory_col, &p->theory, err, errlen)) return 2;
      if (!(p->theory >= 0 && p->theory <= 1)) return bad_cell(t, r, theory_col, "a BER in [0, 1]", err, errlen);
      if (!(p->theory >= 1e-300)) p->theory = NAN; /* nothing to draw on a log axis */
    }
  } else {
    p->zero = p->y == 0;
  }
  if (!(p->y >= 0 && p->y <= 1) || (p->y > 0 && p->y < 1e-300))
    return bad_cell(t, r, ycol, "an error rate, 0 or in [1e-300, 1]", err, errlen);
  if (isnan(p->high)) {
    fail(err, errlen, "%s:1: --y %s: expected columns %s and %s (the 95%% interval), got a header without them",
         t->path, q->name, q->low, q->high);
    return 2;
  }
  if (!(p->high > 0) || p->high < p->y || p->high > 1 || p->high < 1e-300)
    return bad_cell(t, r, hcol, "an upper bound in [1e-300, 1], at least the value", err, errlen);
  if (!(p->low >= 0 && p->low <= p->y))
    return bad_cell(t, r, lcol, "a lower bound in [0, the value]", err, errlen);
  return 0;
}

/* The x column of every table into g->x_cols; 0, or 2 with the message. */
static int find_x(grouping *g, char *err, size_t errlen) {
  const int k = config_key_find(g->x_key);
  if (k >= 0 && config_keys[k].type == KT_CHOICE) {
    fail(err, errlen, "--x %s: expected a numeric config key, got one whose values are names", g->x_key);
    return 2;
  }
  for (size_t i = 0; i < g->n_tables; i++) {
    const result_table *t = &g->tables[i];
    const int snr = !strcmp(g->x_key, SNR_KEY);
    g->x_cols[i] = snr ? result_table_column(t, "snr_db") : key_column(t, g->x_key);
    if (g->x_cols[i] < 0) {
      fail(err, errlen, "%s:1: %s%s: expected a column '%s', got a header without it", t->path,
           snr ? "" : "--x ", snr ? "the x axis" : g->x_key, snr ? "snr_db" : g->x_key);
      return 2;
    }
  }
  return 0;
}

/* Every plottable row of every table into g->rows. */
static int collect_rows(grouping *g, char *err, size_t errlen) {
  static const char *const needed[] = {"bits", "bit_errors", NULL};
  size_t total = 0;
  for (size_t i = 0; i < g->n_tables; i++) total += g->tables[i].n_rows;
  if (!(g->rows = calloc(total + 1, sizeof *g->rows))) {
    fail(err, errlen, "out of memory");
    return 2;
  }
  for (size_t i = 0; i < g->n_tables; i++) {
    const result_table *t = &g->tables[i];
    if (result_table_require(t, needed, err, errlen)) return 2;
    if (result_table_column(t, g->q->col) < 0) {
      fail(err, errlen, "%s:1: --y %s: expected a column '%s', got a header without it", t->path, g->q->name,
           g->q->col);
      return 2;
    }
    size_t drawn = 0, skipped = 0, empty = 0;
    for (size_t r = 0; r < t->n_rows; r++) {
      row_ref *ref = &g->rows[g->n_rows];
      const int rc = read_point(g, i, r, &ref->pt, err, errlen);
      if (rc == 2) return 2;
      if (rc == 1) {
        uint64_t bits = 1;
        result_table_u64(t, r, "bits", &bits, err, errlen);
        if (bits) empty++;
        else skipped++;
        continue;
      }
      ref->table = i;
      ref->row = r;
      g->n_rows++;
      drawn++;
    }
    if (!drawn) {
      if (empty)
        fail(err, errlen, "%s:%zu: --y %s: expected a row with a value in column %s, got %zu row%s without (%s)",
             t->path, t->lines[0], g->q->name, g->q->col, t->n_rows, t->n_rows == 1 ? "" : "s",
             g->q->none_hint ? g->q->none_hint : "empty");
      else if (t->n_rows)
        fail(err, errlen, "%s:%zu: expected a row to plot (bits > 0), got %zu row%s, all skipped (bits = 0)",
             t->path, t->lines[0], t->n_rows, t->n_rows == 1 ? "" : "s");
      else fail(err, errlen, "%s:2: expected a row to plot after the header, got none", t->path);
      return 2;
    }
  }
  return 0;
}

/* --x needs a key whose values differ; where they do not, the message lists
 * the numeric keys that do. 0, or 2 with the message. */
static int x_varies(const grouping *g, char *err, size_t errlen) {
  for (size_t r = 1; r < g->n_rows; r++)
    if (g->rows[r].pt.x != g->rows[0].pt.x) return 0;
  text t = {0};
  for (size_t j = 0; j < g->keys.n; j++) {
    const char *first = NULL;
    int numeric = 1, differs = 0;
    for (size_t r = 0; r < g->n_rows && numeric; r++) {
      const char *v = row_value(g, &g->rows[r], j);
      char *end;
      if (!v || !*v || (strtod(v, &end), *end)) numeric = 0;
      else if (!first) first = v;
      else if (!same_value(first, v)) differs = 1;
    }
    if (numeric && differs) text_add(&t, "%s%s", t.n ? ", " : "", g->keys.names[j]);
  }
  char *list = text_take(&t);
  fail(err, errlen, "--x %s: expected a key whose value differs between the rows, got %g in every row%s%s%s",
       g->x_key, g->rows[0].pt.x, list && *list ? " (numeric keys that differ: " : " (no numeric key differs",
       list && *list ? list : "", ")");
  free(list);
  return 2;
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

static int by_x(const void *a, const void *b) {
  const plot_point *x = a, *y = b;
  return (x->x > y->x) - (x->x < y->x);
}

/* Do two curves carry one label? */
static int labels_collide(const plot_data *d) {
  for (size_t i = 0; i < d->n_curves; i++)
    for (size_t k = i + 1; k < d->n_curves; k++)
      if (!strcmp(d->curves[i].label, d->curves[k].label)) return 1;
  return 0;
}

/* The labels of the curves: every differing key, rounded to four digits;
 * where a label runs longer than a key can show (files of different runs
 * differ in many keys), the terse ones; where rounding makes two alike
 * (389.158 and 389.161 Hz), ten digits; where even that does, the raw keys,
 * which always differ. */
#define LABEL_LONG 45
static int label_curves(const grouping *g, plot_data *d) {
  static const int digits[] = {4, 4, 10}, terse[] = {0, 1, 0};
  for (size_t pass = 0; pass < 4; pass++) {
    size_t longest = 0;
    for (size_t c = 0; c < d->n_curves; c++) {
      free(d->curves[c].label);
      const row_ref *r = &g->rows[g->first_row[c]];
      d->curves[c].label = pass < 3 ? label_of(g, r, digits[pass], terse[pass])
                                    : strdup(*d->curves[c].keys ? d->curves[c].keys : "simulated");
      if (!d->curves[c].label) return -1;
      if (strlen(d->curves[c].label) > longest) longest = strlen(d->curves[c].label);
    }
    if (!labels_collide(d) && (pass > 0 || longest <= LABEL_LONG)) break;
  }
  return 0;
}

/* The curves of g's grouping into d. */
static int build_curves(const grouping *g, size_t n_curves, plot_data *d) {
  if (!(d->curves = calloc(n_curves, sizeof *d->curves))) return -1;
  d->n_curves = n_curves;
  for (size_t r = 0; r < g->n_rows; r++) {
    plot_curve *c = &d->curves[g->rows[r].curve];
    if (!c->keys && !(c->keys = keys_of(g, &g->rows[r]))) return -1;
    plot_point *grown = grow_array(c->points, &c->cap, c->n + 1, sizeof *grown, 8);
    if (!grown) return -1;
    c->points = grown;
    c->points[c->n++] = g->rows[r].pt;
    d->n_points++;
  }
  /* the rows of a curve may come in any order (several files, a reversed
   * SNR list); lines join them by x. qsort is not stable, but points at one
   * x are drawn alike whatever their order. */
  for (size_t i = 0; i < n_curves; i++)
    qsort(d->curves[i].points, d->curves[i].n, sizeof *d->curves[i].points, by_x);
  if (label_curves(g, d) || !(d->title = title_of(g)) || !(d->xlabel = xlabel_of(g))) return -1;
  d->ylabel = g->q->axis;
  d->log_y = g->q->log;
  d->x_counts = strcmp(g->x_key, SNR_KEY) != 0;
  for (size_t r = 0; r < g->n_rows && d->x_counts; r++)
    if (g->rows[r].pt.x != floor(g->rows[r].pt.x)) d->x_counts = 0;
  return 0;
}

int plot_data_load(plot_data *d, const plot_request *q, char *const *paths, size_t n_paths, char *err,
                   size_t errlen) {
  *d = (plot_data){0};
  result_table *tables = calloc(n_paths + 1, sizeof *tables);
  grouping g = {.tables = tables, .n_tables = n_paths, .q = &quantities[0], .x_key = SNR_KEY};
  for (size_t i = 0; q->y && i < sizeof quantities / sizeof *quantities; i++)
    if (!strcmp(quantities[i].name, q->y)) g.q = &quantities[i];
  if (q->x && strcmp(q->x, "snr_db")) g.x_key = q->x;
  int rc = 2;
  if (!tables || !(g.x_cols = calloc(n_paths + 1, sizeof *g.x_cols))) goto oom;
  for (size_t i = 0; i < n_paths; i++)
    if (result_table_read(&tables[i], paths[i], err, errlen)) goto done;
  if (find_x(&g, err, errlen) || collect_rows(&g, err, errlen)) goto done;
  if (keys_collect(&g.keys, tables, n_paths, g.x_key) || name_files(&g) ||
      !(g.active = calloc(g.keys.n + 1, 1)) || !(g.first_row = calloc(g.n_rows + 1, sizeof *g.first_row)) ||
      !(g.seen = calloc(g.n_rows + 1, sizeof *g.seen)))
    goto oom;
  if (strcmp(g.x_key, SNR_KEY) && x_varies(&g, err, errlen)) goto done;
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
  free(g.x_cols);
  for (size_t i = 0; tables && i < n_paths; i++) result_table_free(&tables[i]);
  free(tables);
  return rc;
}

void plot_data_free(plot_data *d) {
  for (size_t i = 0; d->curves && i < d->n_curves; i++) {
    free(d->curves[i].label);
    free(d->curves[i].keys);
    free(d->curves[i].points);
  }
  free(d->curves);
  free(d->title);
  free(d->xlabel);
  *d = (plot_data){0};
}
