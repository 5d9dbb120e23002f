/* Merging result tables (results_merge.h). */
#include "results/results_merge.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "results/chunks.h"
#include "results/csv_columns.h"
#include "results/gmi_sup.h"
#include "results/results_compare.h"
#include "results/stats.h"
#include "results/str_index.h"

/* The most streams a row may list (mimo.tx is at most 8; room to grow). */
#define MAX_STREAMS 64

/* One input row, with the numbers the merge adds. */
typedef struct part {
  const result_table *t;
  size_t row;
  size_t seq; /* input order over all files */
  uint64_t bits, errors, frames, first_frame, inversions, fallbacks, units;
  uint64_t drops; /* the intervals' units: frames, or drops of channel.drop_frames (chunks.h's tally_drops) */
  uint64_t seed; /* simulation.seed: parts of other seeds tile their frames apart (--pool-seeds) */
  double sum_sq, seconds, inv_per_s;
  uint64_t streams[MAX_STREAMS];
  size_t n_streams;
  int gmi;                    /* the row has GMI sums (a point with soft outputs) */
  double gmi_loss[MAX_STREAMS], gmi_loss_sq;
  int gmi_grid;               /* ... and the GMI grid's (they came later still) */
  double gmi_loss_s[GMI_GRID], gmi_loss_s_sq[GMI_GRID];
  int coded;                  /* the row has coded-link counts (code.type ldpc) */
  tally_coded c;
} part;

/* The rows of one point_key. */
typedef struct group {
  const char *key;
  part **parts;
  size_t n, cap;
  uint64_t point; /* of the row that comes out */
  size_t seq;     /* of its first part */
  char **cells;   /* the merged row */
} group;

/* The columns the merge reads or writes; the rest are copied. */
static const result_column merge_columns[] = {
    COL_POINT, COL_POINT_KEY, COL_BITS, COL_BIT_ERRORS, COL_BER, COL_CI95_LOW, COL_CI95_HIGH,
    COL_STREAM_BIT_ERRORS, COL_FRAMES, COL_STOP, COL_INVERSIONS, COL_INV_PER_S, COL_MBIT_PER_S,
    COL_SECONDS, COL_BACKEND, COL_FALLBACKS, COL_FRAME_ERRORS_SQ, COL_UNITS};
/* ... and of the config's columns, the seed (runs merge only on one seed);
 * the coded link's counts and rates where a row has them (read_coded,
 * merge_coded: blocks .. frame_info_errors_sq);
 * and those it rewrites where a file has them (the GMI came later):
 * gmi, gmi_ci95_low, gmi_ci95_high, stream_gmi, stream_gmi_loss,
 * frame_gmi_loss_sq, gmi_s, gmi_s1, gmi_loss_s and frame_gmi_loss_s_sq,
 * read by read_gmi and written by merge_gmi. */

static int same_header(const result_table *a, const result_table *b, char *err, size_t errlen) {
  const size_t n = a->n_cols < b->n_cols ? a->n_cols : b->n_cols;
  for (size_t c = 0; c < n; c++)
    if (strcmp(a->names[c], b->names[c])) {
      results_fail(err, errlen, "%s:1: expected the header of %s, got column %zu '%s' where %s has '%s'", b->path,
           a->path, c + 1, b->names[c], a->path, a->names[c]);
      return 2;
    }
  if (a->n_cols != b->n_cols) {
    const result_table *longer = a->n_cols > b->n_cols ? a : b;
    results_fail(err, errlen, "%s:1: expected the header of %s, got %zu columns where %s has %zu (first differing column %zu '%s' of %s)",
         b->path, a->path, b->n_cols, a->path, a->n_cols, n + 1, longer->names[n], longer->path);
    return 2;
  }
  return 0;
}

/* "a;b;c" into p->streams. */
static int read_streams(part *p, char *err, size_t errlen) {
  const char *s = result_table_cell(p->t, p->row, result_table_column(p->t, "stream_bit_errors"));
  p->n_streams = 0;
  const char *q = s;
  for (;;) {
    uint64_t x = 0;
    const char *start = q;
    while (*q >= '0' && *q <= '9') {
      const unsigned d = (unsigned)(*q - '0');
      if (x > (UINT64_MAX - d) / 10) break;
      x = 10 * x + d;
      q++;
    }
    if (q == start || (*q && *q != ';') || p->n_streams == MAX_STREAMS) {
      results_fail(err, errlen, "%s:%zu: column stream_bit_errors: expected counts joined by ';', got '%.60s'",
           p->t->path, p->t->lines[p->row], s);
      return 2;
    }
    p->streams[p->n_streams++] = x;
    if (!*q) return 0;
    q++;
  }
}

/* The GMI sums of a row, where it has them (the columns came later, and are
 * empty for a point without soft outputs). */
static int read_gmi(part *p, char *err, size_t errlen) {
  const result_table *t = p->t;
  const int col = result_table_column(t, "stream_gmi_loss");
  p->gmi = 0;
  if (col < 0 || !*result_table_cell(t, p->row, col)) return 0;
  const char *s = result_table_cell(t, p->row, col);
  size_t k = 0;
  for (const char *q = s;; k++) {
    char *end;
    errno = 0;
    const double v = k < MAX_STREAMS ? strtod(q, &end) : NAN;
    if (k >= MAX_STREAMS || end == q || errno || !(v >= 0.0) || (*end && *end != ';')) {
      results_fail(err, errlen, "%s:%zu: column stream_gmi_loss: expected numbers >= 0 joined by ';', got '%.60s'",
                   t->path, t->lines[p->row], s);
      return 2;
    }
    p->gmi_loss[k] = v;
    if (!*end) break;
    q = end + 1;
  }
  if (k + 1 != p->n_streams) {
    results_fail(err, errlen, "%s:%zu: column stream_gmi_loss: expected %zu streams as in stream_bit_errors, got %zu",
                 t->path, t->lines[p->row], p->n_streams, k + 1);
    return 2;
  }
  if (result_table_double(t, p->row, "frame_gmi_loss_sq", &p->gmi_loss_sq, err, errlen)) return 2;
  p->gmi = 1;
  int has_loss, has_sq;
  if (result_table_numbers(t, p->row, "gmi_loss_s", p->gmi_loss_s, GMI_GRID, &has_loss, err, errlen) ||
      result_table_numbers(t, p->row, "frame_gmi_loss_s_sq", p->gmi_loss_s_sq, GMI_GRID, &has_sq, err, errlen))
    return 2;
  if (has_loss != has_sq) {
    results_fail(err, errlen, "%s:%zu: column %s: expected the GMI grid's sums beside those of %s", t->path,
                 t->lines[p->row], has_loss ? "frame_gmi_loss_s_sq" : "gmi_loss_s",
                 has_loss ? "gmi_loss_s" : "frame_gmi_loss_s_sq");
    return 2;
  }
  p->gmi_grid = has_loss;
  return 0;
}

/* The coded link's counts of a row, where it has them (its blocks cell is
 * not empty). */
static int read_coded(part *p, char *err, size_t errlen) {
  const result_table *t = p->t;
  const int col = result_table_column(t, "blocks");
  p->coded = 0;
  if (col < 0 || !*result_table_cell(t, p->row, col)) return 0;
  tally_coded *c = &p->c;
  if (result_table_u64(t, p->row, "blocks", &c->blocks, err, errlen) ||
      result_table_u64(t, p->row, "block_errors", &c->block_errors, err, errlen) ||
      result_table_u64(t, p->row, "code_blocks", &c->cbs, err, errlen) ||
      result_table_u64(t, p->row, "cb_errors", &c->cb_errors, err, errlen) ||
      result_table_u64(t, p->row, "info_bits", &c->info_bits, err, errlen) ||
      result_table_u64(t, p->row, "info_bit_errors", &c->info_errors, err, errlen) ||
      result_table_u64(t, p->row, "iterations", &c->iterations, err, errlen) ||
      result_table_double(t, p->row, "frame_cb_errors_sq", &c->cb_sq, err, errlen) ||
      result_table_double(t, p->row, "frame_info_errors_sq", &c->info_sq, err, errlen))
    return 2;
  if (c->block_errors > c->blocks || c->cb_errors > c->cbs || c->info_errors > c->info_bits || c->blocks != p->frames) {
    results_fail(err, errlen, "%s:%zu: coded counts that do not add up (block_errors <= blocks = frames, cb_errors <= "
                 "code_blocks, info_bit_errors <= info_bits)", t->path, t->lines[p->row]);
    return 2;
  }
  /* HARQ's counts (a file from before them: one transmission a TB) */
  const int hc = result_table_column(t, "harq_errors");
  if (hc < 0 || !*result_table_cell(t, p->row, hc)) {
    c->harq_errors = c->block_errors;
    c->transmissions = c->transmissions_sq = c->blocks;
    c->delivered_transmissions = c->blocks - c->block_errors;
  } else if (result_table_u64(t, p->row, "harq_errors", &c->harq_errors, err, errlen) ||
             result_table_u64(t, p->row, "transmissions", &c->transmissions, err, errlen) ||
             result_table_u64(t, p->row, "frame_transmissions_sq", &c->transmissions_sq, err, errlen) ||
             result_table_u64(t, p->row, "delivered_transmissions", &c->delivered_transmissions, err, errlen)) {
    return 2;
  } else if (c->harq_errors > c->block_errors || c->transmissions < c->blocks ||
             c->transmissions > LINK_HARQ_MAX * c->blocks || c->transmissions_sq < c->transmissions ||
             c->delivered_transmissions > (p->drops == p->frames ? c->transmissions : c->transmissions_sq)) {
    results_fail(err, errlen, "%s:%zu: HARQ counts that do not add up (harq_errors <= block_errors, blocks <= "
                 "transmissions <= %d blocks, transmissions <= frame_transmissions_sq, delivered_transmissions <= "
                 "transmissions, or over drops frame_transmissions_sq)", t->path, t->lines[p->row], LINK_HARQ_MAX);
    return 2;
  }
  /* the units' squared TB counts (a file from before them: one TB a unit,
   * the counts themselves) */
  const int dc = result_table_column(t, "drop_block_errors_sq");
  if (dc < 0 || !*result_table_cell(t, p->row, dc)) {
    if (p->drops != p->frames) {
      results_fail(err, errlen, "%s:%zu: column drop_block_errors_sq: expected the drops' sums of a point with "
                   "channel.drop_frames > 1, got none", t->path, t->lines[p->row]);
      return 2;
    }
    c->block_sq = c->block_errors;
    c->harq_sq = c->harq_errors;
    c->delivered_sq = c->blocks - c->harq_errors;
  } else if (result_table_u64(t, p->row, "drop_block_errors_sq", &c->block_sq, err, errlen) ||
             result_table_u64(t, p->row, "drop_harq_errors_sq", &c->harq_sq, err, errlen) ||
             result_table_u64(t, p->row, "drop_delivered_sq", &c->delivered_sq, err, errlen)) {
    return 2;
  } else if (c->block_sq < c->block_errors || c->harq_sq < c->harq_errors ||
             c->delivered_sq < c->blocks - c->harq_errors ||
             (double)c->block_sq > (double)c->block_errors * (double)c->block_errors ||
             (double)c->harq_sq > (double)c->harq_errors * (double)c->harq_errors ||
             (double)c->delivered_sq > (double)(c->blocks - c->harq_errors) * (double)(c->blocks - c->harq_errors)) {
    results_fail(err, errlen, "%s:%zu: drop sums that do not add up (each of drop_block_errors_sq, "
                 "drop_harq_errors_sq, drop_delivered_sq between its count and the count squared)", t->path,
                 t->lines[p->row]);
    return 2;
  }
  p->coded = 1;
  return 0;
}

/* Frames per drop of a row (its channel.drop_frames; 1 where the column is
 * empty or absent: no drops). */
static int read_drop_frames(const result_table *t, size_t r, uint64_t *n, char *err, size_t errlen) {
  *n = 1;
  const int col = result_table_column(t, "channel.drop_frames");
  if (col < 0 || !*result_table_cell(t, r, col)) return 0;
  if (result_table_u64(t, r, "channel.drop_frames", n, err, errlen)) return 2;
  if (*n < 1) *n = 1;
  return 0;
}

static int read_part(part *p, char *err, size_t errlen) {
  const result_table *t = p->t;
  const size_t r = p->row;
  if (result_table_u64(t, r, "bits", &p->bits, err, errlen) ||
      result_table_u64(t, r, "bit_errors", &p->errors, err, errlen) ||
      result_table_u64(t, r, "frames", &p->frames, err, errlen) ||
      result_table_u64(t, r, "inversions", &p->inversions, err, errlen) ||
      result_table_u64(t, r, "fallbacks", &p->fallbacks, err, errlen) ||
      result_table_u64(t, r, "units", &p->units, err, errlen) ||
      result_table_double(t, r, "frame_errors_sq", &p->sum_sq, err, errlen) ||
      result_table_double(t, r, "seconds", &p->seconds, err, errlen) ||
      result_table_double(t, r, "inv_per_s", &p->inv_per_s, err, errlen) || read_streams(p, err, errlen))
    return 2;
  uint64_t drop;
  if (read_drop_frames(t, r, &drop, err, errlen)) return 2;
  p->drops = drops_of_frames(p->frames, drop);
  if (read_gmi(p, err, errlen) || read_coded(p, err, errlen)) return 2;
  if (result_table_u64(t, r, "simulation.seed", &p->seed, err, errlen)) {
    if (!*result_table_cell(t, r, result_table_column(t, "simulation.seed")))
      results_fail(err, errlen, "%s:%zu: column simulation.seed: expected the row's seed, got none (a row pooled "
                   "over seeds is not pooled again: pool the runs it came from)", t->path, t->lines[r]);
    return 2;
  }
  p->first_frame = 0; /* before simulation.first_frame existed every run began at frame 0 */
  if (result_table_column(t, "simulation.first_frame") >= 0 &&
      result_table_u64(t, r, "simulation.first_frame", &p->first_frame, err, errlen))
    return 2;
  if (p->first_frame > UINT64_MAX - p->frames) {
    results_fail(err, errlen, "%s:%zu: expected simulation.first_frame + frames below 2^64, got %llu + %llu", t->path,
         t->lines[r], (unsigned long long)p->first_frame, (unsigned long long)p->frames);
    return 2;
  }
  /* a part's sums of squares are over whole drops from its first frame on */
  if (p->first_frame % drop) {
    results_fail(err, errlen, "%s:%zu: column simulation.first_frame: expected a multiple of channel.drop_frames %llu "
                 "(a drop's first frame), got %llu", t->path, t->lines[r], (unsigned long long)drop,
                 (unsigned long long)p->first_frame);
    return 2;
  }
  return 0;
}

static void frames_text(const part *p, char *out, size_t n) {
  snprintf(out, n, "frames %llu..%llu of %s:%zu", (unsigned long long)p->first_frame,
           (unsigned long long)(p->first_frame + p->frames - 1), p->t->path, p->t->lines[p->row]);
}

/* The parts with data, in the order of their frames, must tile one range. */
static int check_tiling(const group *g, part **data, size_t n, char *err, size_t errlen) {
  for (size_t i = 1; i < n; i++) {
    const part *a = data[i - 1], *b = data[i];
    if (a->seed != b->seed) continue; /* pooled: each seed's parts tile on their own */
    const uint64_t end = a->first_frame + a->frames;
    if (b->first_frame == end) continue;
    char fa[512], fb[512];
    frames_text(a, fa, sizeof fa);
    frames_text(b, fb, sizeof fb);
    if (b->first_frame < end)
      results_fail(err, errlen, "point %s: %s overlap %s (an interrupted point is a prefix of its re-run: keep one of them)",
           g->key, fa, fb);
    else
      results_fail(err, errlen, "point %s: %s and %s leave frames %llu..%llu out (the parts of a point must tile one range of frames)",
           g->key, fa, fb, (unsigned long long)end, (unsigned long long)(b->first_frame - 1));
    return 2;
  }
  return 0;
}

/* A real-valued cell as the run writes it (csv_columns.h's csv_real). */
static char *real(int digits, double v) {
  char buf[64];
  csv_real_text(buf, sizeof buf, digits, v);
  return strdup(buf);
}

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return strdup(buf);
}

/* Sets the cell of column `name` (if the table has it) to v, which it takes. */
static int set_cell(const result_table *t, char **cells, const char *name, char *v) {
  const int c = result_table_column(t, name);
  if (!v) return -1;
  if (c < 0) {
    free(v);
    return 0;
  }
  free(cells[c]);
  cells[c] = v;
  return 0;
}

/* Adds x to *sum; -1 when it overflows. */
static int add_u64(uint64_t *sum, uint64_t x) {
  if (*sum > UINT64_MAX - x) return -1;
  *sum += x;
  return 0;
}

/* "cpu" and "cuda" -> "cpu+cuda"; a part's own '+' list is split first, so
 * merging merged files lists each backend once. */
static char *join_backends(part **data, size_t n) {
  char out[1024] = "";
  size_t used = 0;
  for (size_t i = 0; i < n; i++) {
    char copy[512];
    snprintf(copy, sizeof copy, "%s", result_table_cell(data[i]->t, data[i]->row, result_table_column(data[i]->t, "backend")));
    char *save = NULL;
    for (char *tok = strtok_r(copy, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
      int seen = 0;
      const size_t len = strlen(tok);
      for (const char *q = out; *q && !seen; q = strchr(q, '+') ? strchr(q, '+') + 1 : q + strlen(q))
        seen = !strncmp(q, tok, len) && (q[len] == '+' || q[len] == '\0');
      if (!seen && used + len + 2 < sizeof out) used += (size_t)snprintf(out + used, sizeof out - used, "%s%s", used ? "+" : "", tok);
    }
  }
  return strdup(out);
}

/* The GMI grid's columns of the merged row: the sums add up, the supremum
 * over the scaling comes from them as the run's does (gmi_sup.h), with s = 1
 * from the streams' losses (total). */
static int merge_gmi_grid(const group *g, part **data, size_t n, char **cells, double full, double res,
                          uint64_t frames, uint64_t drops, double total, char *err, size_t errlen) {
  const result_table *t = data[n - 1]->t;
  double loss[GMI_GRID] = {0}, sq[GMI_GRID] = {0};
  for (size_t i = 0; i < n; i++) {
    if (!data[i]->gmi_grid) {
      results_fail(err, errlen, "point %s: %s:%zu has no GMI grid sums (gmi_loss_s) where %s:%zu has them", g->key,
                   data[i]->t->path, data[i]->t->lines[data[i]->row], data[0]->t->path,
                   data[0]->t->lines[data[0]->row]);
      return 2;
    }
    for (int k = 0; k < GMI_GRID; k++) loss[k] += data[i]->gmi_loss_s[k], sq[k] += data[i]->gmi_loss_s_sq[k];
  }
  char loss_text[GMI_GRID * 26 + 1] = "", sq_text[GMI_GRID * 26 + 1] = "";
  size_t a = 0, b = 0;
  for (int k = 0; k < GMI_GRID; k++) {
    char x[64], y[64];
    csv_real_text(x, sizeof x, 17, loss[k]);
    csv_real_text(y, sizeof y, 17, sq[k]);
    a += (size_t)snprintf(loss_text + a, sizeof loss_text - a, "%s%s", k ? ";" : "", x);
    b += (size_t)snprintf(sq_text + b, sizeof sq_text - b, "%s%s", k ? ";" : "", y);
  }
  loss[GMI_GRID_S1] = total;
  const gmi_sums in = {full, res, frames, loss, sq, drops};
  gmi_sup sup;
  gmi_sup_find(&in, 0.95, &sup);
  if (set_cell(t, cells, "gmi", real(10, sup.gmi)) ||
      set_cell(t, cells, "gmi_ci95_low", isnan(sup.lo) ? strdup("") : real(10, sup.lo)) ||
      set_cell(t, cells, "gmi_ci95_high", isnan(sup.hi) ? strdup("") : real(10, sup.hi)) ||
      set_cell(t, cells, "gmi_s", real(10, sup.s)) ||
      set_cell(t, cells, "gmi_s1", real(10, full - total / ((double)frames * res))) ||
      set_cell(t, cells, "gmi_loss_s", strdup(loss_text)) ||
      set_cell(t, cells, "frame_gmi_loss_s_sq", strdup(sq_text))) {
    results_fail(err, errlen, "out of memory");
    return 2;
  }
  return 0;
}

/* The GMI columns of the merged row: the losses add up, the estimates and
 * the interval come from the sums (chunks.h's tally_gmi, from the columns;
 * the supremum over the scaling where the rows have the grid's sums). */
static int merge_gmi(const group *g, part **data, size_t n, char **cells, char *err, size_t errlen) {
  const result_table *t = data[n - 1]->t;
  double loss[MAX_STREAMS] = {0}, sq = 0.0, total = 0.0;
  uint64_t frames = 0, bits = 0, drops = 0;
  const size_t tx = data[0]->n_streams;
  for (size_t i = 0; i < n; i++) {
    if (!data[i]->gmi) {
      results_fail(err, errlen, "point %s: %s:%zu has no GMI where %s:%zu has one", g->key, data[i]->t->path,
                   data[i]->t->lines[data[i]->row], data[0]->t->path, data[0]->t->lines[data[0]->row]);
      return 2;
    }
    for (size_t k = 0; k < tx; k++) loss[k] += data[i]->gmi_loss[k];
    sq += data[i]->gmi_loss_sq;
    frames += data[i]->frames;
    drops += data[i]->drops;
    bits += data[i]->bits;
  }
  /* bits per RE (tx x bits per symbol) and REs: from the bits of a frame */
  uint64_t bps = 0;
  const char *mod = result_table_cell(t, data[n - 1]->row, result_table_column(t, "modulation"));
  const int v = name_to_value(&modulation_names, mod);
  if (v <= 0 || !frames) {
    results_fail(err, errlen, "point %s: %s:%zu: expected a modulation name, got '%.40s'", g->key, t->path,
                 t->lines[data[n - 1]->row], mod);
    return 2;
  }
  bps = (uint64_t)v;
  const double res = (double)bits / (double)frames / (double)(tx * bps); /* REs per frame */
  const double uses = (double)frames * res;
  char streams_gmi[MAX_STREAMS * 24 + 1] = "", streams_loss[MAX_STREAMS * 26 + 1] = "";
  size_t a = 0, b = 0;
  for (size_t k = 0; k < tx; k++) {
    total += loss[k];
    char x[64], y[64];
    csv_real_text(x, sizeof x, 10, (double)bps - loss[k] / uses);
    csv_real_text(y, sizeof y, 17, loss[k]);
    a += (size_t)snprintf(streams_gmi + a, sizeof streams_gmi - a, "%s%s", k ? ";" : "", x);
    b += (size_t)snprintf(streams_loss + b, sizeof streams_loss - b, "%s%s", k ? ";" : "", y);
  }
  const double full = (double)(tx * bps);
  if (set_cell(t, cells, "stream_gmi", strdup(streams_gmi)) ||
      set_cell(t, cells, "stream_gmi_loss", strdup(streams_loss)) ||
      set_cell(t, cells, "frame_gmi_loss_sq", real(17, sq))) {
    results_fail(err, errlen, "out of memory");
    return 2;
  }
  /* with the grid's sums: the supremum over the scaling, as the run writes it */
  if (data[0]->gmi_grid) return merge_gmi_grid(g, data, n, cells, full, res, frames, drops, total, err, errlen);
  for (size_t i = 1; i < n; i++)
    if (data[i]->gmi_grid) {
      results_fail(err, errlen, "point %s: %s:%zu has no GMI grid sums (gmi_loss_s) where %s:%zu has them", g->key,
                   data[0]->t->path, data[0]->t->lines[data[0]->row], data[i]->t->path,
                   data[i]->t->lines[data[i]->row]);
      return 2;
    }
  /* rows written before the grid came, or with receiver.gmi = s1: the GMI
   * at s = 1, as they have it (gmi_s stays empty: no supremum was taken) */
  double llo, lhi;
  gmi_loss_interval(total / res, sq, frames, drops, 0.95, &llo, &lhi);
  if (set_cell(t, cells, "gmi", real(10, full - total / uses)) || set_cell(t, cells, "gmi_s1", real(10, full - total / uses)) ||
      set_cell(t, cells, "gmi_ci95_low", isnan(lhi) ? strdup("") : real(10, full - lhi)) ||
      set_cell(t, cells, "gmi_ci95_high", isnan(llo) ? strdup("") : real(10, full - llo))) {
    results_fail(err, errlen, "out of memory");
    return 2;
  }
  return 0;
}

/* The coded link's columns of the merged row: the counts add up, the rates
 * and the intervals come from the sums as the run's (chunks.h); the
 * throughput's TB size and frame from the row's config columns. */
static int merge_coded(const group *g, part **data, size_t n, char **cells, char *err, size_t errlen) {
  const part *last = data[n - 1];
  const result_table *t = last->t;
  tally_coded c = {0};
  uint64_t frames = 0, drops = 0;
  for (size_t i = 0; i < n; i++) {
    if (!data[i]->coded) {
      results_fail(err, errlen, "point %s: %s:%zu has no coded counts where %s:%zu has them", g->key,
                   data[i]->t->path, data[i]->t->lines[data[i]->row], data[0]->t->path, data[0]->t->lines[data[0]->row]);
      return 2;
    }
    tally_coded_add(&c, &data[i]->c);
    frames += data[i]->frames;
    drops += data[i]->drops;
  }
  double tbs, k, sym, cp, spacing;
  if (result_table_double(t, last->row, "code.tbs", &tbs, err, errlen) ||
      result_table_double(t, last->row, "ofdm.subcarriers", &k, err, errlen) ||
      result_table_double(t, last->row, "ofdm.symbols", &sym, err, errlen) ||
      result_table_double(t, last->row, "ofdm.cp_length", &cp, err, errlen) ||
      result_table_double(t, last->row, "ofdm.subcarrier_spacing", &spacing, err, errlen))
    return 2;
  double lo, hi;
  const ber_sample b = {c.blocks, c.block_errors, drops, (double)c.block_sq, drops};
  ber_interval(&b, 0.95, &lo, &hi);
  const double full = tbs / (k * sym), frame_s = sym * (k + cp) / (k * spacing);
  const double delivered = (double)(c.blocks - c.block_errors) * tbs;
  if (set_cell(t, cells, "blocks", format("%llu", (unsigned long long)c.blocks)) ||
      set_cell(t, cells, "block_errors", format("%llu", (unsigned long long)c.block_errors)) ||
      set_cell(t, cells, "bler", real(10, (double)c.block_errors / (double)c.blocks)) ||
      set_cell(t, cells, "bler_ci95_low", real(10, lo)) || set_cell(t, cells, "bler_ci95_high", real(10, hi)) ||
      set_cell(t, cells, "code_blocks", format("%llu", (unsigned long long)c.cbs)) ||
      set_cell(t, cells, "cb_errors", format("%llu", (unsigned long long)c.cb_errors)) ||
      set_cell(t, cells, "cbler", real(10, (double)c.cb_errors / (double)c.cbs)) ||
      set_cell(t, cells, "info_bits", format("%llu", (unsigned long long)c.info_bits)) ||
      set_cell(t, cells, "info_bit_errors", format("%llu", (unsigned long long)c.info_errors)) ||
      set_cell(t, cells, "coded_ber", real(10, (double)c.info_errors / (double)c.info_bits)) ||
      set_cell(t, cells, "iterations", format("%llu", (unsigned long long)c.iterations)) ||
      set_cell(t, cells, "mean_iterations", real(6, (double)c.iterations / (double)c.cbs)) ||
      set_cell(t, cells, "throughput", real(10, delivered / ((double)frames * k * sym))) ||
      set_cell(t, cells, "throughput_ci95_low", real(10, (1.0 - hi) * full)) ||
      set_cell(t, cells, "throughput_ci95_high", real(10, (1.0 - lo) * full)) ||
      set_cell(t, cells, "throughput_bps", real(10, delivered / ((double)frames * frame_s))) ||
      set_cell(t, cells, "frame_cb_errors_sq", real(17, c.cb_sq)) ||
      set_cell(t, cells, "frame_info_errors_sq", real(17, c.info_sq))) {
    results_fail(err, errlen, "out of memory");
    return 2;
  }
  /* HARQ's: the residual BLER as the BLER, the mean transmissions' t
   * interval and the throughput's delta method (chunks.h) from the sums */
  const ber_sample hb = {c.blocks, c.harq_errors, drops, (double)c.harq_sq, drops};
  ber_interval(&hb, 0.95, &lo, &hi);
  double tlo, thi, hlo, hhi;
  transmissions_interval(&c, drops, 0.95, &tlo, &thi);
  harq_throughput_interval(&c, drops, tbs, k * sym, 0.95, &hlo, &hhi);
  const double harq_delivered = (double)(c.blocks - c.harq_errors) * tbs;
  if (set_cell(t, cells, "harq_errors", format("%llu", (unsigned long long)c.harq_errors)) ||
      set_cell(t, cells, "residual_bler", real(10, (double)c.harq_errors / (double)c.blocks)) ||
      set_cell(t, cells, "residual_bler_ci95_low", real(10, lo)) ||
      set_cell(t, cells, "residual_bler_ci95_high", real(10, hi)) ||
      set_cell(t, cells, "transmissions", format("%llu", (unsigned long long)c.transmissions)) ||
      set_cell(t, cells, "mean_transmissions", real(10, (double)c.transmissions / (double)c.blocks)) ||
      set_cell(t, cells, "mean_transmissions_ci95_low", real(10, tlo)) ||
      set_cell(t, cells, "mean_transmissions_ci95_high", real(10, thi)) ||
      set_cell(t, cells, "harq_throughput", real(10, harq_delivered / ((double)c.transmissions * k * sym))) ||
      set_cell(t, cells, "harq_throughput_ci95_low", real(10, hlo)) ||
      set_cell(t, cells, "harq_throughput_ci95_high", real(10, hhi)) ||
      set_cell(t, cells, "harq_throughput_bps", real(10, harq_delivered / ((double)c.transmissions * frame_s))) ||
      set_cell(t, cells, "frame_transmissions_sq", format("%llu", (unsigned long long)c.transmissions_sq)) ||
      set_cell(t, cells, "delivered_transmissions", format("%llu", (unsigned long long)c.delivered_transmissions)) ||
      (result_table_column(t, "drop_block_errors_sq") >= 0 &&
       (set_cell(t, cells, "drop_block_errors_sq", format("%llu", (unsigned long long)c.block_sq)) ||
        set_cell(t, cells, "drop_harq_errors_sq", format("%llu", (unsigned long long)c.harq_sq)) ||
        set_cell(t, cells, "drop_delivered_sq", format("%llu", (unsigned long long)c.delivered_sq))))) {
    results_fail(err, errlen, "out of memory");
    return 2;
  }
  return 0;
}

/* The merged row of a point whose n data parts (n >= 2) are in frame order. */
static int merge_row(const group *g, part **data, size_t n, char **cells, char *err, size_t errlen) {
  const part *last = data[n - 1];
  const result_table *t = last->t;
  ber_sample s = {0, 0, 0, 0.0, 0};
  uint64_t inversions = 0, fallbacks = 0, streams[MAX_STREAMS] = {0}, drops = 0;
  double seconds = 0, inv_seconds = 0;
  int inv_known = 1;
  for (size_t i = 0; i < n; i++) {
    const part *p = data[i];
    if (p->n_streams != data[0]->n_streams) {
      results_fail(err, errlen, "point %s: %s:%zu lists %zu streams in stream_bit_errors, %s:%zu lists %zu", g->key,
           data[0]->t->path, data[0]->t->lines[data[0]->row], data[0]->n_streams, p->t->path,
           p->t->lines[p->row], p->n_streams);
      return 2;
    }
    int over = add_u64(&s.bits, p->bits) | add_u64(&s.errors, p->errors) | add_u64(&s.frames, p->frames) |
               add_u64(&s.units, p->units) | add_u64(&inversions, p->inversions) |
               add_u64(&fallbacks, p->fallbacks) | add_u64(&drops, p->drops);
    for (size_t k = 0; k < p->n_streams; k++) over |= add_u64(&streams[k], p->streams[k]);
    if (over) {
      results_fail(err, errlen, "point %s: expected counts that add up below 2^64, got an overflow at %s:%zu", g->key,
           p->t->path, p->t->lines[p->row]);
      return 2;
    }
    s.sum_sq += p->sum_sq;
    seconds += p->seconds;
    if (p->inversions > 0) {
      if (p->inv_per_s > 0) inv_seconds += (double)p->inversions / p->inv_per_s;
      else inv_known = 0;
    }
  }
  double lo, hi;
  /* the clusters of the interval are the drops (the frames without them) */
  const ber_sample su = {s.bits, s.errors, drops, s.sum_sq, s.units};
  ber_interval(&su, 0.95, &lo, &hi);
  if (data[0]->gmi && merge_gmi(g, data, n, cells, err, errlen)) return 2;
  if (data[0]->coded && merge_coded(g, data, n, cells, err, errlen)) return 2;
  char st[MAX_STREAMS * 21 + 1] = "";
  size_t used = 0;
  for (size_t k = 0; k < data[0]->n_streams; k++)
    used += (size_t)snprintf(st + used, sizeof st - used, "%s%llu", k ? ";" : "", (unsigned long long)streams[k]);
  const double ber = s.bits ? (double)s.errors / (double)s.bits : 0.0;
  const double mbit = seconds > 0 ? (double)s.bits / seconds / 1e6 : 0.0;
  const double ips = inv_known && inv_seconds > 0 ? (double)inversions / inv_seconds : 0.0;
  if (set_cell(t, cells, "bits", format("%llu", (unsigned long long)s.bits)) ||
      set_cell(t, cells, "bit_errors", format("%llu", (unsigned long long)s.errors)) ||
      set_cell(t, cells, "ber", real(10, ber)) ||
      set_cell(t, cells, "ci95_low", real(10, lo)) ||
      set_cell(t, cells, "ci95_high", real(10, hi)) ||
      set_cell(t, cells, "stream_bit_errors", strdup(st)) ||
      set_cell(t, cells, "frames", format("%llu", (unsigned long long)s.frames)) ||
      set_cell(t, cells, "inversions", format("%llu", (unsigned long long)inversions)) ||
      set_cell(t, cells, "inv_per_s", real(6, ips)) ||
      set_cell(t, cells, "mbit_per_s", real(6, mbit)) ||
      set_cell(t, cells, "seconds", real(6, seconds)) ||
      set_cell(t, cells, "backend", join_backends(data, n)) ||
      set_cell(t, cells, "fallbacks", format("%llu", (unsigned long long)fallbacks)) ||
      set_cell(t, cells, "frame_errors_sq", real(17, s.sum_sq)) ||
      set_cell(t, cells, "units", format("%llu", (unsigned long long)s.units)) ||
      set_cell(t, cells, "simulation.first_frame", format("%llu", (unsigned long long)data[0]->first_frame))) {
    results_fail(err, errlen, "out of memory");
    return 2;
  }
  return 0;
}

/* The identity cells of a row pooled over seeds: no one seed, stream key or
 * point key is its own, so simulation.seed and stream_key are left empty
 * (the seeds are listed in the sidecar) and point_key becomes a hash of the
 * parts' keys in seed order, the same for the same seeds and no part's
 * (compare must not take the pool for the same draws as one of its seeds). */
static int pooled_identity(const result_table *t, part **data, size_t n, char **cells, char *err, size_t errlen) {
  uint64_t h = 1469598103934665603ULL;
  const int kc = result_table_column(t, "point_key");
  for (size_t i = 0; i < n; i++) {
    if (i && data[i]->seed == data[i - 1]->seed) continue; /* one seed's parts share a key */
    for (const char *q = result_table_cell(data[i]->t, data[i]->row, kc); *q; q++)
      h = (h ^ (unsigned char)*q) * 1099511628211ULL;
    h = (h ^ ';') * 1099511628211ULL;
  }
  h ^= h >> 31;
  h *= 0x7fb5d329728ea185ULL;
  h ^= h >> 27;
  if (set_cell(t, cells, "point_key", format("%016llx", (unsigned long long)h)) ||
      set_cell(t, cells, "simulation.seed", strdup("")) || set_cell(t, cells, "stream_key", strdup(""))) {
    results_fail(err, errlen, "out of memory");
    return 2;
  }
  return 0;
}

/* A copy of a row's cells. */
static char **copy_row(const result_table *t, size_t row) {
  char **cells = calloc(t->n_cols, sizeof *cells);
  for (size_t c = 0; cells && c < t->n_cols; c++)
    if (!(cells[c] = strdup(result_table_cell(t, row, (int)c)))) {
      for (size_t k = 0; k < c; k++) free(cells[k]);
      free(cells);
      return NULL;
    }
  return cells;
}

/* The merged row of g into g->cells. */
static int merge_group(group *g, char *err, size_t errlen) {
  part **data = malloc(g->n * sizeof *data);
  if (!data) {
    results_fail(err, errlen, "out of memory");
    return 2;
  }
  size_t n = 0;
  for (size_t i = 0; i < g->n; i++)
    if (g->parts[i]->bits > 0) data[n++] = g->parts[i];
  /* seed then frame order (stable: insertion sort keeps the input order of
   * equals; one seed but with --pool-seeds) */
  for (size_t i = 1; i < n; i++)
    for (size_t k = i; k > 0 && (data[k]->seed < data[k - 1]->seed ||
                                 (data[k]->seed == data[k - 1]->seed && data[k]->first_frame < data[k - 1]->first_frame));
         k--) {
      part *x = data[k];
      data[k] = data[k - 1];
      data[k - 1] = x;
    }
  int rc = check_tiling(g, data, n, err, errlen);
  /* no data at all: the point is skipped in every part, its first row stands */
  const part *out = n ? data[n - 1] : g->parts[0];
  if (!rc && !(g->cells = copy_row(out->t, out->row))) {
    results_fail(err, errlen, "out of memory");
    rc = 2;
  }
  if (!rc && n >= 2) rc = merge_row(g, data, n, g->cells, err, errlen);
  if (!rc && n >= 2 && data[0]->seed != data[n - 1]->seed) rc = pooled_identity(out->t, data, n, g->cells, err, errlen);
  if (!rc) {
    char e2[256];
    if (result_table_u64(out->t, out->row, "point", &g->point, e2, sizeof e2)) {
      results_fail(err, errlen, "%s", e2);
      rc = 2;
    }
  }
  free(data);
  return rc;
}

static int by_point(const void *x, const void *y) {
  const group *a = x, *b = y;
  if (a->point != b->point) return a->point < b->point ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int results_merge(const result_table *in, size_t n, result_table *out, char *err, size_t errlen) {
  return results_merge_pooled(in, n, 0, out, NULL, NULL, err, errlen);
}

/* The identity of every row of t without its seed (results_identity_column),
 * for pooling; NULL out of memory. */
static char **pool_keys(const result_table *t) {
  char **ids = calloc(t->n_rows + 1, sizeof *ids);
  int *cols = malloc((t->n_cols + 1) * sizeof *cols);
  size_t n = 0;
  if (!ids || !cols) goto fail;
  for (size_t c = 0; c < t->n_cols; c++)
    if (results_identity_column(t->names[c]) && result_table_column(t, t->names[c]) == (int)c) cols[n++] = (int)c;
  for (size_t r = 0; r < t->n_rows; r++) {
    size_t len = 1;
    for (size_t k = 0; k < n; k++) len += strlen(t->names[cols[k]]) + strlen(result_table_cell(t, r, cols[k])) + 2;
    if (!(ids[r] = malloc(len))) goto fail;
    size_t used = 0;
    ids[r][0] = '\0';
    for (size_t k = 0; k < n; k++)
      used += (size_t)snprintf(ids[r] + used, len - used, "%s=%s\x1f", t->names[cols[k]], result_table_cell(t, r, cols[k]));
  }
  free(cols);
  return ids;
fail:
  for (size_t r = 0; ids && r < t->n_rows; r++) free(ids[r]);
  free(ids);
  free(cols);
  return NULL;
}

static int by_u64(const void *x, const void *y) {
  const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

int results_merge_pooled(const result_table *in, size_t n, int pool_seeds, result_table *out, uint64_t **seeds,
                         size_t *n_seeds, char *err, size_t errlen) {
  *out = (result_table){0};
  if (seeds) *seeds = NULL;
  if (n_seeds) *n_seeds = 0;
  if (n == 0) {
    results_fail(err, errlen, "expected input files, got none");
    return 2;
  }
  for (size_t i = 0; i < n; i++) {
    if (i && same_header(&in[0], &in[i], err, errlen)) return 2;
    const char *need[sizeof merge_columns / sizeof *merge_columns + 2];
    size_t k = 0;
    for (; k < sizeof merge_columns / sizeof *merge_columns; k++) need[k] = result_column_name(merge_columns[k]);
    need[k++] = "simulation.seed";
    need[k] = NULL;
    if (result_table_require(&in[i], need, err, errlen)) return 2;
  }
  /* one seed (the seeds, when pooled) */
  if (pool_seeds && seeds && n_seeds) {
    size_t total_rows = 0, m = 0;
    for (size_t i = 0; i < n; i++) total_rows += in[i].n_rows;
    uint64_t *list = malloc((total_rows + 1) * sizeof *list);
    if (!list) {
      results_fail(err, errlen, "out of memory");
      return 2;
    }
    for (size_t i = 0; i < n; i++)
      for (size_t r = 0; r < in[i].n_rows; r++)
        if (result_table_u64(&in[i], r, "simulation.seed", &list[m], err, errlen)) {
          if (!*result_table_cell(&in[i], r, result_table_column(&in[i], "simulation.seed")))
            results_fail(err, errlen, "%s:%zu: column simulation.seed: expected the row's seed, got none (a row "
                         "pooled over seeds is not pooled again: pool the runs it came from)",
                         in[i].path, in[i].lines[r]);
          free(list);
          return 2;
        } else {
          m++;
        }
    qsort(list, m, sizeof *list, by_u64);
    size_t u = 0;
    for (size_t k = 0; k < m; k++)
      if (!u || list[k] != list[u - 1]) list[u++] = list[k];
    *seeds = list;
    *n_seeds = u;
  }
  const result_table *seed_t = NULL;
  size_t seed_row = 0;
  uint64_t seed = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t r = 0; r < in[i].n_rows; r++) {
      uint64_t s;
      if (result_table_u64(&in[i], r, "simulation.seed", &s, err, errlen)) return 2;
      if (!seed_t) {
        seed_t = &in[i], seed_row = r, seed = s;
      } else if (s != seed && !pool_seeds) {
        results_fail(err, errlen,
             "%s:%zu has simulation.seed %llu but %s:%zu has %llu: merge adds parts of one seed's draws "
             "(results of other seeds are independent estimates: --pool-seeds adds them up, "
             "ofdmsim compare tests them against each other)",
             in[i].path, in[i].lines[r], (unsigned long long)s, seed_t->path, seed_t->lines[seed_row],
             (unsigned long long)seed);
        return 2;
      }
    }
  size_t total = 0;
  for (size_t i = 0; i < n; i++) total += in[i].n_rows;
  int rc = 2;
  part *parts = calloc(total + 1, sizeof *parts);
  group *groups = calloc(total + 1, sizeof *groups);
  size_t n_groups = 0;
  str_index by_key; /* point_key (pooled: the identity) -> its group */
  const int index_ok = !str_index_init(&by_key, total);
  char ***pooled = calloc(n, sizeof *pooled);
  if (!parts || !groups || !index_ok || !pooled) {
    results_fail(err, errlen, "out of memory");
    goto done;
  }
  size_t seq = 0;
  for (size_t i = 0; i < n; i++) {
    const int key_col = result_table_column(&in[i], "point_key");
    /* pooled, a point is its identity without the seed: the rows of all
     * seeds of one point fall in one group */
    if (pool_seeds && !(pooled[i] = pool_keys(&in[i]))) {
      results_fail(err, errlen, "out of memory");
      goto done;
    }
    for (size_t r = 0; r < in[i].n_rows; r++, seq++) {
      part *p = &parts[seq];
      p->t = &in[i], p->row = r, p->seq = seq;
      if (read_part(p, err, errlen)) goto done;
      const char *key = pool_seeds ? pooled[i][r] : result_table_cell(&in[i], r, key_col);
      if (!*result_table_cell(&in[i], r, key_col)) {
        results_fail(err, errlen, "%s:%zu: column point_key: expected the point's key, got ''", in[i].path, in[i].lines[r]);
        goto done;
      }
      size_t first;
      if (str_index_add(&by_key, key, n_groups, &first)) {
        results_fail(err, errlen, "out of memory");
        goto done;
      }
      group *g = &groups[first];
      if (first == n_groups) {
        n_groups++;
        g->key = key;
        g->seq = seq;
      }
      if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 4;
        part **grown = realloc(g->parts, g->cap * sizeof *grown);
        if (!grown) {
          results_fail(err, errlen, "out of memory");
          goto done;
        }
        g->parts = grown;
      }
      g->parts[g->n++] = p;
    }
  }
  for (size_t k = 0; k < n_groups; k++)
    if (merge_group(&groups[k], err, errlen)) goto done;
  qsort(groups, n_groups, sizeof *groups, by_point);
  /* the table that comes out */
  out->n_cols = in[0].n_cols;
  out->names = calloc(out->n_cols, sizeof *out->names);
  out->cells = calloc(n_groups * out->n_cols + 1, sizeof *out->cells);
  out->lines = calloc(n_groups + 1, sizeof *out->lines);
  if (!out->names || !out->cells || !out->lines) goto oom;
  for (size_t c = 0; c < out->n_cols; c++)
    if (!(out->names[c] = strdup(in[0].names[c]))) goto oom;
  for (size_t k = 0; k < n_groups; k++) {
    memcpy(out->cells + k * out->n_cols, groups[k].cells, out->n_cols * sizeof *out->cells);
    free(groups[k].cells);
    groups[k].cells = NULL;
    out->lines[k] = k + 2;
    out->n_rows = k + 1;
  }
  rc = 0;
  goto done;
oom:
  results_fail(err, errlen, "out of memory");
  rc = 2;
done:
  for (size_t k = 0; groups && k < n_groups; k++) {
    free(groups[k].parts);
    if (groups[k].cells)
      for (size_t c = 0; c < in[0].n_cols; c++) free(groups[k].cells[c]);
    free(groups[k].cells);
  }
  free(groups);
  free(parts);
  if (index_ok) str_index_free(&by_key);
  for (size_t i = 0; pooled && i < n; i++) {
    for (size_t r = 0; pooled[i] && r < in[i].n_rows; r++) free(pooled[i][r]);
    free(pooled[i]);
  }
  free(pooled);
  if (rc) {
    result_table_free(out);
    if (seeds) free(*seeds), *seeds = NULL;
    if (n_seeds) *n_seeds = 0;
  }
  return rc;
}

/* ---- writing ----------------------------------------------------------------- */

static int write_field(FILE *f, const char *s, int quote) {
  if (!quote) quote = strpbrk(s, ",\"\r\n") != NULL;
  if (!quote) return fputs(s, f) < 0 ? -1 : 0;
  if (fputc('"', f) == EOF) return -1;
  for (; *s; s++) {
    if (*s == '"' && fputc('"', f) == EOF) return -1;
    if (fputc(*s, f) == EOF) return -1;
  }
  return fputc('"', f) == EOF ? -1 : 0;
}

int results_write_csv(FILE *f, const result_table *t) {
  for (size_t c = 0; c < t->n_cols; c++)
    if ((c && fputc(',', f) == EOF) || write_field(f, t->names[c], 0)) return -1;
  if (fputc('\n', f) == EOF) return -1;
  const int label = result_table_column(t, "label");
  for (size_t r = 0; r < t->n_rows; r++) {
    for (size_t c = 0; c < t->n_cols; c++)
      if ((c && fputc(',', f) == EOF) || write_field(f, result_table_cell(t, r, (int)c), (int)c == label))
        return -1;
    if (fputc('\n', f) == EOF) return -1;
  }
  return ferror(f) ? -1 : 0;
}
