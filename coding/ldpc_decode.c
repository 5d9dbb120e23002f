/* The CPU decoder driver: the input in, the iterations, the syndrome,
 * the decisions out, and the choice of row kernel. The layered min-sum rows
 * run in coding/ldpc_rows_gen.c (plain C) or coding/ldpc_rows_avx2.c (chosen
 * at run time where the CPU has AVX2), on the layout coding/ldpc_rows.h
 * describes; flooding sum-product is here, on the same layout (heads only).
 * The fixed-point min-sum (LDPC_LAYERED_NMS16) has the same driver on int16
 * arrays of that layout: the input quantised once (ldpc16_quantise), its
 * rows in coding/ldpc_rows16_gen.c or coding/ldpc_rows16_avx2.c.
 *
 * Flooding: all rows from the previous iteration's app, then
 * app = channel + sum of all messages. */
#include "coding/ldpc_decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coding/ldpc_graph.h"
#include "coding/ldpc_msg.h"
#include "coding/ldpc_msg16.h"
#include "coding/ldpc_rows.h"

#define LANES LDPC_ROW_LANES
/* Before every loop over a chunk's lanes: GCC otherwise unrolls the
 * iterations first and may fail to re-pack them into vectors. */
#define LANE_LOOP _Pragma("GCC unroll 1")

struct ldpc_decoder {
  ldpc_code code;
  ldpc_decoder_config cfg;
  ldpc_kernel kernel;          /* LDPC_KERNEL_GEN or LDPC_KERNEL_AVX2 */
  ldpc_rows_layer_fn layer;
  int zp;           /* Z rounded up to LANES */
  int zs;           /* app's column stride: Z + LANES (the mirror), rounded up to 16 */
  int rows_used;
  float *app;       /* Nb columns of zs floats (coding/ldpc_rows.h) */
  float *app_out;   /* Nb * Z: app without the mirrors, for ldpc_decoder_app */
  float *chan;      /* Nb * Z: the input (flooding rebuilds app from it) */
  float *msg;       /* nnz * zp: row r from row_start[r]*zp, chunk-major */
  uint8_t *hard;    /* Nb * Z */
  /* LDPC_LAYERED_NMS16 only (else NULL): app and msg in int16, app's
   * columns zs16 apart (Z + LANES rounded up to 32: 64 bytes) */
  ldpc_rows16_layer_fn layer16;
  int zs16;
  int16_t *app16;
  int16_t *msg16;
};

int ldpc_have_avx2(void) {
#if defined(LDPC_ROWS_HAVE_AVX2_KERNEL)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
#else
  return 0;
#endif
}

int ldpc_decoder_set_kernel(ldpc_decoder *d, ldpc_kernel kernel) {
  if ((unsigned)kernel > LDPC_KERNEL_AVX2 || (kernel == LDPC_KERNEL_AVX2 && !ldpc_have_avx2())) return -1;
  if (kernel == LDPC_KERNEL_AUTO) kernel = ldpc_have_avx2() ? LDPC_KERNEL_AVX2 : LDPC_KERNEL_GEN;
  d->kernel = kernel;
  d->layer = ldpc_rows_layer_gen;
  d->layer16 = ldpc_rows16_layer_gen;
#if defined(LDPC_ROWS_HAVE_AVX2_KERNEL)
  if (kernel == LDPC_KERNEL_AVX2) {
    d->layer = ldpc_rows_layer_avx2;
    d->layer16 = ldpc_rows16_layer_avx2;
  }
#endif
  return 0;
}

ldpc_kernel ldpc_decoder_kernel_used(const ldpc_decoder *d) { return d->kernel; }

/* 64-byte aligned (a cache line: a vector load or store across two lines
 * costs two); C11's aligned_alloc wants a multiple of the alignment. */
static void *alloc_lines(size_t bytes) { return aligned_alloc(64, (bytes + 63) & ~(size_t)63); }

void ldpc_decoder_config_default(ldpc_decoder_config *cfg) {
  cfg->algorithm = LDPC_LAYERED_NMS;
  cfg->alpha = 0.75f;
  cfg->beta = 0.5f;
  cfg->max_iterations = 10;
  cfg->full_iterations = 0;
}

ldpc_decoder *ldpc_decoder_create(int bg, int z, const ldpc_decoder_config *cfg, char *err, size_t err_len) {
  ldpc_code code;
  if (ldpc_code_init(&code, bg, z) != 0) {
    snprintf(err, err_len, "ldpc decoder: no code for base graph %d and lifting size %d", bg, z);
    return NULL;
  }
  if (cfg->max_iterations < 1 || (unsigned)cfg->algorithm > LDPC_LAYERED_NMS16 || !(cfg->alpha > 0.0f) ||
      !(cfg->beta >= 0.0f)) {
    snprintf(err, err_len, "ldpc decoder: bad configuration (max_iterations %d, alpha %g, beta %g)",
             cfg->max_iterations, (double)cfg->alpha, (double)cfg->beta);
    return NULL;
  }
  ldpc_decoder *d = calloc(1, sizeof *d);
  const size_t bits = (size_t)code.g->cols * z;
  const int zp = (z + LANES - 1) / LANES * LANES, zs = (z + LANES + 15) / 16 * 16;
  if (d) {
    d->code = code;
    d->cfg = *cfg;
    d->zp = zp;
    d->zs = zs;
    ldpc_decoder_set_kernel(d, LDPC_KERNEL_AUTO);
    d->app = alloc_lines(sizeof(float) * (size_t)code.g->cols * zs);
    d->app_out = malloc(sizeof(float) * bits);
    d->chan = malloc(sizeof(float) * bits);
    d->msg = alloc_lines(sizeof(float) * (size_t)code.g->nnz * zp);
    d->hard = malloc(bits);
    if (cfg->algorithm == LDPC_LAYERED_NMS16) {
      d->zs16 = (z + LANES + 31) / 32 * 32;
      d->app16 = alloc_lines(sizeof(int16_t) * (size_t)code.g->cols * d->zs16);
      d->msg16 = alloc_lines(sizeof(int16_t) * (size_t)code.g->nnz * zp);
    }
  }
  if (!d || !d->app || !d->app_out || !d->chan || !d->msg || !d->hard ||
      (cfg->algorithm == LDPC_LAYERED_NMS16 && (!d->app16 || !d->msg16))) {
    ldpc_decoder_destroy(d);
    snprintf(err, err_len, "ldpc decoder: out of memory");
    return NULL;
  }
  /* defined values in the lanes past Z too (messages) and past the mirrors
   * (app), which the AVX2 kernel reads into lanes no result sees */
  memset(d->msg, 0, sizeof(float) * (size_t)code.g->nnz * zp);
  memset(d->app, 0, sizeof(float) * (size_t)code.g->cols * zs);
  if (d->app16) {
    memset(d->msg16, 0, sizeof(int16_t) * (size_t)code.g->nnz * zp);
    memset(d->app16, 0, sizeof(int16_t) * (size_t)code.g->cols * d->zs16);
  }
  return d;
}

void ldpc_decoder_destroy(ldpc_decoder *d) {
  if (!d) return;
  free(d->app);
  free(d->app_out);
  free(d->chan);
  free(d->msg);
  free(d->hard);
  free(d->app16);
  free(d->msg16);
  free(d);
}

const float *ldpc_decoder_app(const ldpc_decoder *d) {
  const int z = d->code.z;
  for (int c = 0; c < d->code.g->cols; c++)
    if (d->app16)
      for (int i = 0; i < z; i++) d->app_out[(size_t)c * z + i] = ldpc16_value(d->app16[(size_t)c * d->zs16 + i]);
    else
      memcpy(d->app_out + (size_t)c * z, d->app + (size_t)c * d->zs, sizeof(float) * (size_t)z);
  return d->app_out;
}
/* Where the message of entry e (row r, k-th of the row's deg) to lane i
 * lies: row_start[r]*Zp + ((i / LANES) deg + k) LANES + i mod LANES. */
float ldpc_decoder_message(const ldpc_decoder *d, int entry, int lane) {
  const ldpc_base_graph *g = d->code.g;
  int r = 0;
  while (g->row_start[r + 1] <= entry) r++;
  const int deg = g->row_start[r + 1] - g->row_start[r], k = entry - g->row_start[r];
  const size_t at = (size_t)g->row_start[r] * d->zp + ((size_t)(lane / LANES) * deg + k) * LANES + lane % LANES;
  return d->msg16 ? ldpc16_value(d->msg16[at]) : d->msg[at];
}

/* Where lanes i0 .. i0+LANES-1 of an entry with shift s find their bits:
 * col + ((i0 + s) mod Z) when that run neither wraps past Z nor runs past
 * the last lane; otherwise NULL, and the chunk goes through a small buffer
 * (ldpc_rows_gather / ldpc_rows_scatter). */
static inline float *lanes_at(float *col, int s, int z, int i0) {
  int start = i0 + s;
  if (start >= z) start -= z;
  return i0 + LANES <= z && start + LANES <= z ? col + start : NULL;
}

/* One flooding sum-product row: new messages from the app of the previous
 * iteration (which this pass does not change). */
static void row_sum_product(ldpc_decoder *d, int r) {
  const ldpc_code *code = &d->code;
  const int z = code->z, zp = d->zp;
  const int e0 = code->g->row_start[r], deg = code->g->row_start[r + 1] - e0;
  const uint32_t start_sign = ldpc_sign_start(deg);
  float q[LDPC_ROW_DEGREE_MAX][LANES], ph[LDPC_ROW_DEGREE_MAX][LANES];
  for (int i0 = 0; i0 < z; i0 += LANES) {
    float sum[LANES], v[LANES];
    uint32_t sg[LANES];
    LANE_LOOP for (int j = 0; j < LANES; j++) {
      sum[j] = 0.0f;
      sg[j] = start_sign;
    }
    float *chunk_msg = d->msg + (size_t)e0 * zp + (size_t)i0 * deg;
    for (int k = 0; k < deg; k++) {
      const int e = e0 + k;
      const float *restrict m = chunk_msg + k * LANES;
      float *col = d->app + (size_t)code->g->col[e] * d->zs;
      const float *src = lanes_at(col, code->shift[e], z, i0);
      if (!src) {
        ldpc_rows_gather(col, code->shift[e], z, i0, v);
        src = v;
      }
      LANE_LOOP for (int j = 0; j < LANES; j++) {
        q[k][j] = src[j] - m[j];
        ph[k][j] = ldpc_phi(fabsf(q[k][j]));
        sum[j] += ph[k][j];
        sg[j] ^= ldpc_sign_bit(q[k][j]);
      }
    }
    for (int k = 0; k < deg; k++) {
      float *restrict m = chunk_msg + k * LANES;
      LANE_LOOP for (int j = 0; j < LANES; j++) m[j] = ldpc_bp_message(q[k][j], ph[k][j], sum[j], sg[j]);
    }
  }
}

/* app = llr, column by column, each mirror its column's first LANES LLRs. */
static void app_load(ldpc_decoder *d, const float *llr) {
  const int z = d->code.z, head = z < LANES ? z : LANES;
  for (int c = 0; c < d->code.g->cols; c++) {
    float *col = d->app + (size_t)c * d->zs;
    memcpy(col, llr + (size_t)c * z, sizeof(float) * (size_t)z);
    memcpy(col + z, col, sizeof(float) * (size_t)head);
  }
}

/* The int16 app: each LLR quantised (coding/ldpc_msg16.h), each mirror its
 * column's first LANES values. */
static void app16_load(ldpc_decoder *d, const float *llr) {
  const int z = d->code.z, head = z < LANES ? z : LANES;
  for (int c = 0; c < d->code.g->cols; c++) {
    int16_t *col = d->app16 + (size_t)c * d->zs16;
    for (int i = 0; i < z; i++) col[i] = ldpc16_quantise(llr[(size_t)c * z + i]);
    memcpy(col + z, col, sizeof(int16_t) * (size_t)head);
  }
}

/* Flooding: app = channel + every message of the decoded rows. */
static void flood_collect(ldpc_decoder *d) {
  const ldpc_code *code = &d->code;
  const int z = code->z, zp = d->zp;
  app_load(d, d->chan);
  for (int r = 0; r < d->rows_used; r++) {
    const int e0 = code->g->row_start[r], deg = code->g->row_start[r + 1] - e0;
    for (int i0 = 0; i0 < z; i0 += LANES) {
      const float *chunk_msg = d->msg + (size_t)e0 * zp + (size_t)i0 * deg;
      for (int k = 0; k < deg; k++) {
        const float *restrict m = chunk_msg + k * LANES;
        float *col = d->app + (size_t)code->g->col[e0 + k] * d->zs;
        const int s = code->shift[e0 + k];
        float *dst = lanes_at(col, s, z, i0);
        if (dst) {
          LANE_LOOP for (int j = 0; j < LANES; j++) dst[j] += m[j];
        } else {
          float v[LANES];
          ldpc_rows_gather(col, s, z, i0, v);
          for (int j = 0; j < LANES; j++) v[j] += m[j];
          ldpc_rows_scatter(col, s, z, i0, v);
        }
      }
    }
  }
}

/* h[i] = the hard decision on column c's LLR i, i < n (float or int16). */
static void hard_column(const ldpc_decoder *d, int c, int n, uint8_t *restrict h) {
  if (d->app16) {
    const int16_t *restrict col = d->app16 + (size_t)c * d->zs16;
    for (int i = 0; i < n; i++) h[i] = ldpc16_hard_bit(col[i]);
  } else {
    const float *restrict col = d->app + (size_t)c * d->zs;
    for (int i = 0; i < n; i++) h[i] = ldpc_hard_bit(col[i]);
  }
}

/* 1 when the hard decisions of app meet every decoded check. The decisions
 * are taken column by column as the rows reach them (a row's columns
 * ascend), so a failing row early in the graph, the usual case before the
 * last iteration, costs only the columns up to it. */
static int syndrome_zero(ldpc_decoder *d) {
  const ldpc_code *code = &d->code;
  const int z = code->z;
  uint8_t *restrict h = d->hard;
  int done = 0; /* columns decided */
  for (int r = 0; r < d->rows_used; r++) {
    const int need = code->g->col[code->g->row_start[r + 1] - 1] + 1;
    for (int c = done; c < need; c++) hard_column(d, c, z, h + (size_t)c * z);
    done = need > done ? need : done;
    uint8_t par[LDPC_Z_MAX];
    memset(par, 0, (size_t)z);
    for (int e = code->g->row_start[r]; e < code->g->row_start[r + 1]; e++) {
      const uint8_t *restrict col = h + (size_t)code->g->col[e] * z;
      const int s = code->shift[e];
      for (int i = 0; i < z - s; i++) par[i] ^= col[i + s];
      for (int i = z - s; i < z; i++) par[i] ^= col[i + s - z];
    }
    uint8_t any = 0;
    for (int i = 0; i < z; i++) any |= par[i];
    if (any) return 0;
  }
  return 1;
}

/* Rows whose extension parity column (or a core column) has a nonzero LLR. */
static int rows_to_decode(const ldpc_decoder *d, const float *llr) {
  const ldpc_base_graph *g = d->code.g;
  const int z = d->code.z;
  for (int c = g->cols - 1; c >= g->info_cols + 4; c--)
    for (int i = 0; i < z; i++)
      if (llr[(size_t)c * z + i] != 0.0f) return c - g->info_cols + 1;
  return 4;
}

int ldpc_decoder_execute(ldpc_decoder *d, const float *llr, int k_prime, uint8_t *bits, ldpc_decode_result *res) {
  const ldpc_code *code = &d->code;
  const int z = code->z;
  if (k_prime < 1 || k_prime > ldpc_k(code)) return -1;
  const size_t nbits = (size_t)code->g->cols * z;
  d->rows_used = rows_to_decode(d, llr);
  if (d->app16)
    app16_load(d, llr);
  else
    app_load(d, llr);
  /* Only flooding rebuilds the app from the input, and reads its messages
   * before it writes them (the layered kernels' first iteration reads
   * none). */
  if (d->cfg.algorithm == LDPC_FLOODING_BP) {
    memcpy(d->chan, llr, sizeof(float) * nbits);
    memset(d->msg, 0, sizeof(float) * (size_t)code->g->row_start[d->rows_used] * d->zp);
  }
  const ldpc_rows_state st = {code, d->app, d->msg, d->zs, d->zp, d->cfg.alpha, d->cfg.beta,
                              d->cfg.algorithm == LDPC_LAYERED_OMS};
  const ldpc_rows16_state st16 = {code, d->app16, d->msg16, d->zs16, d->zp, ldpc16_scale_k(d->cfg.alpha)};

  int it = 0, ok = 0;
  while (it < d->cfg.max_iterations && !(ok && !d->cfg.full_iterations)) {
    switch (d->cfg.algorithm) {
      case LDPC_LAYERED_NMS:
      case LDPC_LAYERED_OMS:
        for (int r = 0; r < d->rows_used; r++) d->layer(&st, r, it == 0);
        break;
      case LDPC_LAYERED_NMS16:
        for (int r = 0; r < d->rows_used; r++) d->layer16(&st16, r, it == 0);
        break;
      case LDPC_FLOODING_BP:
        for (int r = 0; r < d->rows_used; r++) row_sum_product(d, r);
        flood_collect(d);
        break;
    }
    it++;
    ok = syndrome_zero(d);
  }
  for (int c = 0; c * z < k_prime; c++) {
    const int n = k_prime - c * z < z ? k_prime - c * z : z;
    hard_column(d, c, n, bits + (size_t)c * z);
  }
  res->iterations = it;
  res->syndrome_ok = ok;
  res->rows_used = d->rows_used;
  return 0;
}
