/* Encoding by the structure of the base graphs. With s_r the XOR of row r's
 * systematic terms (lambda_r, Z bits) and p_0..p_3 the core parity columns:
 *
 *   rows 0..3:  sum over core entries (r, j) of P^{v_rj} p_j = s_r
 *   rows 4.. :  p_r (the row's own extension column, shift 0)
 *               = s_r + the row's core parity terms
 *
 * Adding rows 0..3 cancels p_1..p_3 (each appears twice with the same shift)
 * and two of the three p_0 terms (equal shifts), leaving P^v p_0 = sum s_r
 * with v the odd shift out; then each of rows 0..3 with one unknown left gives
 * that one, and the extension rows are direct. (P^v x)_i = x_{(i+v) mod Z}.
 * The order is ldpc_encode_schedule_make's, which the device encoder follows
 * too. */
#include "coding/ldpc_encode.h"

#include <string.h>

/* acc ^= P^v x: acc_i ^= x_{(i+v) mod Z}, as two straight runs. */
static void xor_rotated(uint8_t *acc, const uint8_t *x, int v, int z) {
  for (int i = 0; i < z - v; i++) acc[i] ^= x[i + v];
  for (int i = z - v; i < z; i++) acc[i] ^= x[i + v - z];
}

/* x = P^-v y: x_{(i+v) mod Z} = y_i. */
static void unrotate(uint8_t *x, const uint8_t *y, int v, int z) {
  for (int i = 0; i < z - v; i++) x[i + v] = y[i];
  for (int i = z - v; i < z; i++) x[i + v - z] = y[i];
}

int ldpc_encode_schedule_make(const ldpc_code *code, ldpc_encode_schedule *s) {
  const ldpc_base_graph *g = code->g;
  const int kb = g->info_cols, p0 = kb;
  memset(s, 0, sizeof *s);
  /* p_0's three shifts in rows 0..3: two equal, the odd one out solves it */
  int v0[3], n0 = 0;
  for (int r = 0; r < 4; r++)
    for (int e = g->row_start[r]; e < g->row_start[r + 1]; e++)
      if (g->col[e] == p0) {
        if (n0 == 3) return -1;
        v0[n0++] = code->shift[e];
      }
  if (n0 != 3) return -1;
  s->odd = v0[0] == v0[1] ? v0[2] : v0[0] == v0[2] ? v0[1] : v0[1] == v0[2] ? v0[0] : -1;
  if (s->odd < 0) return -1;
  /* p_1..p_3 by peeling rows 0..3: a row with one unknown column left */
  int known = 1, steps = 0; /* bit j: core column p0 + j solved */
  for (int pass = 0; pass < 4 && known != 15; pass++)
    for (int r = 0; r < 4; r++) {
      int unknown = -1, unknown_shift = 0, count = 0;
      for (int e = g->row_start[r]; e < g->row_start[r + 1]; e++) {
        const int j = g->col[e] - p0;
        if (j >= 0 && j < 4 && !(known & (1 << j))) {
          unknown = j;
          unknown_shift = code->shift[e];
          count++;
        }
      }
      if (count != 1 || steps == 3) continue;
      s->peel_row[steps] = r;
      s->peel_col[steps] = unknown;
      s->peel_shift[steps] = unknown_shift;
      steps++;
      known |= 1 << unknown;
    }
  if (known != 15 || steps != 3) return -1;
  /* extension rows: the last entry is the row's own column at shift 0 (an
   * identity block), every other a systematic or core column */
  for (int r = 4; r < g->rows; r++) {
    const int last = g->row_start[r + 1] - 1;
    if (g->col[last] != kb + r || code->shift[last] != 0) return -1;
    for (int e = g->row_start[r]; e < last; e++)
      if (g->col[e] >= kb + 4) return -1;
  }
  return 0;
}

int ldpc_encode(const ldpc_code *code, const uint8_t *info, uint8_t *cw) {
  const ldpc_base_graph *g = code->g;
  const int z = code->z, kb = g->info_cols;
  const int p0 = kb; /* first core parity column */
  ldpc_encode_schedule sch;
  if (ldpc_encode_schedule_make(code, &sch)) return -1;
  memcpy(cw, info, (size_t)kb * z);
  memset(cw + (size_t)kb * z, 0, (size_t)(g->cols - kb) * z);

  /* s_r for every row: the systematic part of each check. */
  uint8_t s[LDPC_ROWS_MAX][LDPC_Z_MAX];
  for (int r = 0; r < g->rows; r++) {
    memset(s[r], 0, (size_t)z);
    for (int e = g->row_start[r]; e < g->row_start[r + 1] && g->col[e] < kb; e++)
      xor_rotated(s[r], cw + (size_t)g->col[e] * z, code->shift[e], z);
  }

  /* p_0 from the sum of rows 0..3. */
  uint8_t sum[LDPC_Z_MAX];
  memset(sum, 0, (size_t)z);
  for (int r = 0; r < 4; r++)
    for (int i = 0; i < z; i++) sum[i] ^= s[r][i];
  unrotate(cw + (size_t)p0 * z, sum, sch.odd, z);

  /* p_1..p_3 in the schedule's order, each from the one row it is the
   * unknown of. */
  for (int step = 0; step < 3; step++) {
    const int r = sch.peel_row[step], unknown = sch.peel_col[step];
    uint8_t acc[LDPC_Z_MAX];
    memcpy(acc, s[r], (size_t)z);
    for (int e = g->row_start[r]; e < g->row_start[r + 1]; e++) {
      const int j = g->col[e] - p0;
      if (j >= 0 && j < 4 && j != unknown) xor_rotated(acc, cw + (size_t)g->col[e] * z, code->shift[e], z);
    }
    unrotate(cw + (size_t)(p0 + unknown) * z, acc, sch.peel_shift[step], z);
  }

  /* Extension rows: everything before the row's own (last) entry is known. */
  for (int r = 4; r < g->rows; r++) {
    const int last = g->row_start[r + 1] - 1;
    uint8_t *p = cw + (size_t)(kb + r) * z;
    memcpy(p, s[r], (size_t)z);
    for (int e = g->row_start[r]; e < last; e++)
      if (g->col[e] >= kb) xor_rotated(p, cw + (size_t)g->col[e] * z, code->shift[e], z);
  }
  return 0;
}
