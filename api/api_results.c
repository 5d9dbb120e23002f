/* Results through the library (ofdmsim.h): the program's CSV reader, every
 * column typed. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "results/csv_columns.h"

/* The fixed columns' types, as README's "Result files" describes them. */
static ofdmsim_type fixed_type(const char *name) {
  static const result_column ints[] = {COL_POINT,  COL_TX,         COL_RX,        COL_BITS, COL_BIT_ERRORS,
                                       COL_FRAMES, COL_INVERSIONS, COL_FALLBACKS, COL_UNITS};
  static const result_column reals[] = {COL_SNR_DB,       COL_N0,          COL_BER,          COL_CI95_LOW,
                                        COL_CI95_HIGH,    COL_THEORY_BER,  COL_INV_PER_S,    COL_MBIT_PER_S,
                                        COL_SECONDS,      COL_FRAME_ERRORS_SQ, COL_GMI,      COL_GMI_CI95_LOW,
                                        COL_GMI_CI95_HIGH, COL_FRAME_GMI_LOSS_SQ};
  for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
    if (!strcmp(name, result_column_name(ints[i]))) return OFDMSIM_INT;
  for (size_t i = 0; i < sizeof reals / sizeof *reals; i++)
    if (!strcmp(name, result_column_name(reals[i]))) return OFDMSIM_REAL;
  for (int c = 0; c < COL_COUNT; c++)
    if (!strcmp(name, result_column_name((result_column)c))) return OFDMSIM_TEXT;
  return (ofdmsim_type)-1; /* a config key's column: by its cells */
}

static int is_int(const char *s, int64_t *v) {
  if (!*s) return 0;
  char *end;
  errno = 0;
  const long long x = strtoll(s, &end, 10);
  if (errno || *end) return 0;
  if (v) *v = x;
  return 1;
}

/* An empty cell is a missing number (NaN). */
static int is_real(const char *s, double *v) {
  if (!*s) return v ? (*v = NAN, 1) : 1;
  char *end;
  const double x = strtod(s, &end);
  if (*end) return 0;
  if (v) *v = x;
  return 1;
}

/* Whether every cell of column c reads as `type`; a column of reals all
 * empty only when `all_empty` allows it (a fixed column of reals: NaN
 * throughout, e.g. theory_ber where no closed form exists). */
static int column_is(const result_table *t, size_t c, ofdmsim_type type, int all_empty) {
  size_t empty = 0;
  for (size_t r = 0; r < t->n_rows; r++) {
    const char *s = t->cells[r * t->n_cols + c];
    empty += !*s;
    if (type == OFDMSIM_INT ? !is_int(s, NULL) : type == OFDMSIM_REAL ? !is_real(s, NULL) : 0) return 0;
  }
  return type != OFDMSIM_REAL || all_empty || empty < t->n_rows;
}

/* A fixed column keeps its type where its cells allow it (an older or a
 * hand-made file may not); any other is integers, else numbers, else text. */
static ofdmsim_type type_of(const result_table *t, size_t c) {
  const ofdmsim_type fixed = fixed_type(t->names[c]);
  if (fixed == OFDMSIM_TEXT) return OFDMSIM_TEXT;
  if ((int)fixed >= 0 && column_is(t, c, fixed, 1)) return fixed;
  if (t->n_rows && column_is(t, c, OFDMSIM_INT, 0)) return OFDMSIM_INT;
  if (t->n_rows && column_is(t, c, OFDMSIM_REAL, 0)) return OFDMSIM_REAL;
  return (int)fixed >= 0 && t->n_rows == 0 ? fixed : OFDMSIM_TEXT;
}

ofdmsim_status api_results_from_csv(ofdmsim_results **out, const char *path) {
  *out = NULL;
  ofdmsim_results *r = calloc(1, sizeof *r);
  if (!r) return api_fail(OFDMSIM_ERR_RUNTIME, "out of memory");
  char err[1024] = "";
  if (result_table_read(&r->t, path, err, sizeof err)) {
    free(r);
    return api_fail(OFDMSIM_ERR_CONFIG, "%s", err);
  }
  r->types = malloc((r->t.n_cols ? r->t.n_cols : 1) * sizeof *r->types);
  if (!r->types) {
    ofdmsim_results_free(r);
    return api_fail(OFDMSIM_ERR_RUNTIME, "out of memory");
  }
  for (size_t c = 0; c < r->t.n_cols; c++) r->types[c] = type_of(&r->t, c);
  *out = r;
  return OFDMSIM_OK;
}

ofdmsim_status ofdmsim_results_read(ofdmsim_results **out, const char *csv_path) {
  if (!out || !csv_path) return api_fail(OFDMSIM_ERR_CONFIG, "ofdmsim_results_read: no path");
  return api_results_from_csv(out, csv_path);
}

void ofdmsim_results_free(ofdmsim_results *r) {
  if (!r) return;
  result_table_free(&r->t);
  free(r->types);
  free(r);
}

size_t ofdmsim_results_rows(const ofdmsim_results *r) { return r ? r->t.n_rows : 0; }
size_t ofdmsim_results_columns(const ofdmsim_results *r) { return r ? r->t.n_cols : 0; }

const char *ofdmsim_results_column_name(const ofdmsim_results *r, size_t col) {
  return r && col < r->t.n_cols ? r->t.names[col] : NULL;
}

ofdmsim_type ofdmsim_results_column_type(const ofdmsim_results *r, size_t col) {
  return r && col < r->t.n_cols ? r->types[col] : OFDMSIM_TEXT;
}

/* The column exists and has the type asked for. */
static ofdmsim_status typed(const ofdmsim_results *r, size_t col, ofdmsim_type type) {
  if (!r || col >= r->t.n_cols) return api_fail(OFDMSIM_ERR_CONFIG, "column %zu: out of range", col);
  if (r->types[col] != type)
    return api_fail(OFDMSIM_ERR_CONFIG, "column %s: not a column of %s", r->t.names[col],
                    type == OFDMSIM_INT ? "integers" : "reals");
  return OFDMSIM_OK;
}

ofdmsim_status ofdmsim_results_ints(const ofdmsim_results *r, size_t col, int64_t *dst) {
  const ofdmsim_status rc = typed(r, col, OFDMSIM_INT);
  for (size_t i = 0; !rc && i < r->t.n_rows; i++) is_int(r->t.cells[i * r->t.n_cols + col], &dst[i]);
  return rc;
}

ofdmsim_status ofdmsim_results_reals(const ofdmsim_results *r, size_t col, double *dst) {
  const ofdmsim_status rc = typed(r, col, OFDMSIM_REAL);
  for (size_t i = 0; !rc && i < r->t.n_rows; i++) is_real(r->t.cells[i * r->t.n_cols + col], &dst[i]);
  return rc;
}

const char *ofdmsim_results_text(const ofdmsim_results *r, size_t row, size_t col) {
  return r ? result_table_cell(&r->t, row, (int)col) : "";
}
