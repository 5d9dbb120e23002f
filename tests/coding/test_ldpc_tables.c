/* The embedded base graphs against the CSVs they were generated from (parsed
 * here on their own), the entry counts of 38.212 (316 in BG1, 197 in BG2),
 * and the 51 lifting sizes of Table 5.3.2-1 with their sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coding/ldpc_graph.h"
#include "testutil.h"

typedef struct {
  int row, col, v[8];
} csv_entry;

/* Reads rows `row;col;V0;...;V7` after the two header lines; a line with an
 * empty first field continues the last row. Returns the count, -1 when the
 * file is missing. */
static int read_csv(const char *name, csv_entry *out, int cap) {
  const char *root = getenv("OFDMSIM_SOURCE_DIR");
  char path[1024];
  snprintf(path, sizeof path, "%s/coding/tables/%s", root ? root : ".", name);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[256];
  int n = 0, row = -1, lineno = 0;
  while (fgets(line, sizeof line, f)) {
    if (++lineno <= 2 || line[0] == '\n') continue;
    char *p = line;
    if (*p != ';') row = (int)strtol(p, &p, 10);
    csv_entry e;
    e.row = row;
    e.col = (int)strtol(p + 1, &p, 10);
    for (int s = 0; s < 8; s++) e.v[s] = (int)strtol(p + 1, &p, 10);
    if (n < cap) out[n] = e;
    n++;
  }
  fclose(f);
  return n;
}

static void check_graph(const ldpc_base_graph *g, const char *csv, int rows, int cols, int info, int nnz) {
  csv_entry *e = malloc(sizeof(csv_entry) * 400);
  const int n = read_csv(csv, e, 400);
  CHECK(n == nnz, "%s: %d entries in the CSV, 38.212 has %d", csv, n, nnz);
  CHECK(g->nnz == nnz && g->rows == rows && g->cols == cols && g->info_cols == info,
        "bg%d: %d entries, %dx%d, %d systematic", g->id, g->nnz, g->rows, g->cols, g->info_cols);
  if (n != nnz || g->nnz != nnz) {
    free(e);
    return;
  }
  int row_deg[LDPC_ROWS_MAX] = {0}, col_deg_csv[LDPC_COLS_MAX] = {0}, col_deg_tab[LDPC_COLS_MAX] = {0};
  int bad = 0;
  for (int k = 0; k < n; k++) {
    row_deg[e[k].row]++;
    col_deg_csv[e[k].col]++;
    col_deg_tab[g->col[k]]++;
    /* Entry k of the table must be entry k of the CSV: same row (by the row
     * starts), column and all eight shifts. */
    const int in_row = k >= g->row_start[e[k].row] && k < g->row_start[e[k].row + 1];
    int same = in_row && g->col[k] == e[k].col;
    for (int s = 0; s < 8; s++) same = same && g->shift[k][s] == e[k].v[s];
    if (!same && bad++ < 5) CHECK(same, "bg%d entry %d (row %d col %d) differs from the CSV", g->id, k, e[k].row, e[k].col);
  }
  CHECK(bad == 0, "bg%d: %d entries differ", g->id, bad);
  int row_total = 0, col_total = 0, rows_ok = 1, cols_ok = 1;
  for (int r = 0; r < rows; r++) {
    rows_ok &= row_deg[r] == g->row_start[r + 1] - g->row_start[r];
    row_total += row_deg[r];
  }
  for (int c = 0; c < cols; c++) {
    cols_ok &= col_deg_csv[c] == col_deg_tab[c];
    col_total += col_deg_tab[c];
  }
  CHECK(rows_ok && cols_ok, "bg%d: row or column degrees differ from the CSV", g->id);
  CHECK(row_total == nnz && col_total == nnz, "bg%d: degree totals %d %d", g->id, row_total, col_total);
  /* The shape 38.212 describes: each extension row r >= 4 ends on its own
   * column info+r, which no other row touches (degree one). */
  int ext_ok = 1;
  for (int r = 4; r < rows; r++) {
    const int last = g->row_start[r + 1] - 1;
    ext_ok &= g->col[last] == info + r && col_deg_tab[info + r] == 1;
  }
  CHECK(ext_ok, "bg%d: the extension parity columns are not a diagonal of degree one", g->id);
  free(e);
}

int main(void) {
  check_graph(&ldpc_bg1, "bg1.csv", 46, 68, 22, 316);
  check_graph(&ldpc_bg2, "bg2.csv", 42, 52, 10, 197);
  CHECK(ldpc_base_graph_get(1) == &ldpc_bg1 && ldpc_base_graph_get(2) == &ldpc_bg2 && !ldpc_base_graph_get(3),
        "base graph lookup");

  /* Table 5.3.2-1, written out set by set. */
  static const int sets[8][8] = {{2, 4, 8, 16, 32, 64, 128, 256},  {3, 6, 12, 24, 48, 96, 192, 384},
                                 {5, 10, 20, 40, 80, 160, 320},     {7, 14, 28, 56, 112, 224},
                                 {9, 18, 36, 72, 144, 288},         {11, 22, 44, 88, 176, 352},
                                 {13, 26, 52, 104, 208},            {15, 30, 60, 120, 240}};
  int member[LDPC_Z_MAX + 1];
  for (int z = 0; z <= LDPC_Z_MAX; z++) member[z] = -1;
  int count = 0;
  for (int s = 0; s < 8; s++)
    for (int j = 0; j < 8 && sets[s][j]; j++) {
      member[sets[s][j]] = s;
      count++;
    }
  CHECK(count == 51, "the table lists %d sizes", count);
  int z[LDPC_NUM_Z];
  ldpc_lifting_sizes(z);
  int listed_ok = 1, ascending = 1;
  for (int i = 0; i < LDPC_NUM_Z; i++) {
    listed_ok &= z[i] >= 2 && z[i] <= LDPC_Z_MAX && member[z[i]] >= 0;
    if (i) ascending &= z[i] > z[i - 1];
  }
  CHECK(listed_ok && ascending, "ldpc_lifting_sizes: not the table's 51 values, ascending");
  int set_ok = 1, next_ok = 1;
  for (int v = 0; v <= LDPC_Z_MAX + 1; v++) {
    const int want = v <= LDPC_Z_MAX ? member[v] : -1;
    set_ok &= ldpc_lifting_set(v) == want;
    /* The next size at or above v, from the table. */
    int next = -1;
    for (int w = v < 2 ? 2 : v; w <= LDPC_Z_MAX && next < 0; w++)
      if (member[w] >= 0) next = w;
    next_ok &= ldpc_lifting_at_least(v) == next;
  }
  CHECK(set_ok, "ldpc_lifting_set differs from Table 5.3.2-1");
  CHECK(next_ok, "ldpc_lifting_at_least differs from the table");

  /* A lifted code's shifts are V mod Z of its set's column. */
  ldpc_code code;
  int mod_ok = 1;
  for (int bg = 1; bg <= 2; bg++)
    for (int i = 0; i < LDPC_NUM_Z; i++) {
      mod_ok &= ldpc_code_init(&code, bg, z[i]) == 0 && code.set == member[z[i]];
      for (int e = 0; e < code.g->nnz; e++) mod_ok &= code.shift[e] == code.g->shift[e][code.set] % z[i];
    }
  CHECK(mod_ok, "lifted shifts are not V mod Z");
  CHECK(ldpc_code_init(&code, 1, 17) == -1 && ldpc_code_init(&code, 3, 384) == -1, "bad codes accepted");
  CHECK(ldpc_codeword_bits(&(ldpc_code){&ldpc_bg1, 384, 1, {0}}) == 68 * 384, "codeword length");
  return test_finish("test_ldpc_tables");
}
