/* The CPU decoder driver: the Z checks of a base-graph row are independent,
 * so they run as vector lanes, LANES at a time. For lanes i0 .. i0+LANES-1 of
 * a row, entry (r, c) with shift s reads bits c*Z + (i+s mod Z): one
 * contiguous run of the column unless it wraps past Z, so a chunk loads and
 * stores the a posteriori LLRs straight from the column (through a small
 * buffer, copied as two runs, only for the chunk that wraps and a last
 * partial chunk). A row's messages lie chunk by chunk, and within a chunk
 * entry by entry, LANES floats each (Z rounded up to Zp = a multiple of
 * LANES): a chunk reads and writes one contiguous run of deg*LANES floats,
 * one stream for the prefetcher rather than deg.
 *
 * Layered schedule: rows in order; for each row q = app - m_old, new
 * messages from q, app = q + m_new, visible to the next row at once. Within a
 * row every entry is a different column and the lanes of an entry a
 * permutation of that column's bits, so chunks touch disjoint LLRs.
 * Flooding: all rows from the previous iteration's app, then
 * app = channel + sum of all messages. */
#include "coding/ldpc_decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coding/ldpc_graph.h"
#include "coding/ldpc_msg.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#define LANES 32
/* Before every loop over a chunk's lanes: GCC otherwise unrolls the
 * iterations first and may fail to re-pack them into vectors (with 16 lanes
 * the normalised min-sum output loop stayed scalar, three times slower);
 * kept as a loop, each vectorises as four 8-float AVX2 or two AVX-512
 * operations. 32 lanes rather than 16: the per-chunk scalar work spreads
 * over twice the lanes (measured 1.2 times as fast at Z = 384). */
#define LANE_LOOP _Pragma("GCC unroll 1")

struct ldpc_decoder {
  ldpc_code code;
  ldpc_decoder_config cfg;
  int zp;           /* Z rounded up to LANES */
  int rows_used;
  float *app;       /* Nb * Z */
  float *chan;      /* Nb * Z: the input (flooding rebuilds app from it) */
  float *msg;       /* nnz * zp: row r from row_start[r]*zp, chunk-major */
  uint8_t *hard;    /* Nb * Z */
};

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
  if (cfg->max_iterations < 1 || (unsigned)cfg->algorithm > LDPC_FLOODING_BP || !(cfg->alpha > 0.0f) ||
      !(cfg->beta >= 0.0f)) {
    snprintf(err, err_len, "ldpc decoder: bad configuration (max_iterations %d, alpha %g, beta %g)",
             cfg->max_iterations, (double)cfg->alpha, (double)cfg->beta);
    return NULL;
  }
  ldpc_decoder *d = calloc(1, sizeof *d);
  const size_t bits = (size_t)code.g->cols * z;
  const int zp = (z + LANES - 1) / LANES * LANES;
  if (d) {
    d->code = code;
    d->cfg = *cfg;
    d->zp = zp;
    d->app = malloc(sizeof(float) * bits);
    d->chan = malloc(sizeof(float) * bits);
    d->msg = calloc((size_t)code.g->nnz * zp, sizeof(float));
    d->hard = malloc(bits);
  }
  if (!d || !d->app || !d->chan || !d->msg || !d->hard) {
    ldpc_decoder_destroy(d);
    snprintf(err, err_len, "ldpc decoder: out of memory");
    return NULL;
  }
  return d;
}

void ldpc_decoder_destroy(ldpc_decoder *d) {
  if (!d) return;
  free(d->app);
  free(d->chan);
  free(d->msg);
  free(d->hard);
  free(d);
}

const float *ldpc_decoder_app(const ldpc_decoder *d) { return d->app; }
/* Where the message of entry e (row r, k-th of the row's deg) to lane i
 * lies: row_start[r]*Zp + ((i / LANES) deg + k) LANES + i mod LANES. */
float ldpc_decoder_message(const ldpc_decoder *d, int entry, int lane) {
  const ldpc_base_graph *g = d->code.g;
  int r = 0;
  while (g->row_start[r + 1] <= entry) r++;
  const int deg = g->row_start[r + 1] - g->row_start[r], k = entry - g->row_start[r];
  return d->msg[(size_t)g->row_start[r] * d->zp + ((size_t)(lane / LANES) * deg + k) * LANES + lane % LANES];
}

/* Where lanes i0 .. i0+LANES-1 of an entry with shift s find their bits:
 * col + ((i0 + s) mod Z) when that run neither wraps past Z nor runs past
 * the last lane; otherwise NULL, and the chunk goes through a small buffer
 * (gather_lanes / scatter_lanes). Reading and writing the column in place
 * matters: a copy through a local array written in pieces and read as whole
 * vectors stalls on store-to-load forwarding, which cost more than the
 * arithmetic. */
static inline float *lanes_at(float *col, int s, int z, int i0) {
  int start = i0 + s;
  if (start >= z) start -= z;
  return i0 + LANES <= z && start + LANES <= z ? col + start : NULL;
}

/* buf[j] = col[(i0 + j + s) mod Z] for the n = min(LANES, Z - i0) lanes
 * below Z, 0 past them: at most two runs, up to the end of the column and on
 * from its start. */
static void gather_lanes(const float *col, int s, int z, int i0, float *buf) {
  int start = i0 + s;
  if (start >= z) start -= z;
  const int n = z - i0 < LANES ? z - i0 : LANES, n1 = z - start < n ? z - start : n;
  memcpy(buf, col + start, sizeof(float) * n1);
  memcpy(buf + n1, col, sizeof(float) * (n - n1));
  memset(buf + n, 0, sizeof(float) * (LANES - n));
}

/* The inverse for the lanes below Z. */
static void scatter_lanes(float *col, int s, int z, int i0, const float *buf) {
  int start = i0 + s;
  if (start >= z) start -= z;
  const int n = z - i0 < LANES ? z - i0 : LANES, n1 = z - start < n ? z - start : n;
  memcpy(col + start, buf, sizeof(float) * n1);
  memcpy(col, buf + n1, sizeof(float) * (n - n1));
}

/* One layered min-sum row (normalised when offset is 0, else offset). The
 * row's column pointers and shifts are looked up once, outside the chunk
 * loop.
 *
 * Where the compiler targets AVX2 the chunk is written with intrinsics, the
 * running minima and signs of its 32 lanes held in registers across the
 * row's entries (GCC's vectorised C loops kept them in memory, loading and
 * storing them for every entry). Every operation is its ldpc_msg.h
 * counterpart, or a regrouping of them that gives the same bits:
 *   ldpc_ms_min1(m1, a)  = a < m1 ? a : m1          = vminps(a, m1)
 *   ldpc_ms_min2         = min(max(a, m1), m2)      = vminps(vmaxps(a, m1), m2)
 *   fabsf                = and with a mask
 *   the sign product     = xor of the whole words, masked to the sign bit
 *                          once per chunk (the other bits never reach a result)
 *   alpha * (|q| == min1 ? min2 : min1), with the product's sign
 *                        = blendv(alpha m1 ^ sgn, alpha m2 ^ sgn, cmpeq) ^ sign(q):
 *                          a select commutes with the scaling (or with
 *                          max(mag - beta, 0)) and with the xors of the sign
 *                          bit, so both are done once per chunk, not per edge
 *   q + m                = vaddps
 * (vminps/vmaxps return their first operand exactly where the C select
 * does.) Other hosts run the plain C loops below.
 *
 * Each 8-lane vector of an entry is read and written in place where its 8
 * bits are contiguous in the column (all but one vector of an entry, for the
 * wrap past Z, and a last partial one); that one goes lane by lane through
 * a small buffer, zero past Z (the chunk-wide two-run memcpy it replaces cost
 * a fifth of the time at Z 384). */
#if defined(__AVX2__)
#define VECS (LANES / 8)
/* Vector u of a chunk: lanes i0 + 8u + j, j < 8, of an entry whose lane i0
 * reads bit `start` of the column, at p = (start + 8u) mod Z; n lanes below
 * Z. NULL when the 8 are not one contiguous run (then read_vec/write_vec). */
static inline float *vec_in_place(float *col, int z, int p, int n) { return n >= 8 && p + 8 <= z ? col + p : NULL; }
__attribute__((noinline)) static __m256 read_vec(const float *col, int z, int p, int n) {
  float v[8] __attribute__((aligned(32)));
  for (int j = 0; j < 8; j++) {
    int at = p + j;
    at -= at >= z ? z : 0;
    v[j] = j < n ? col[at] : 0.0f;
  }
  return _mm256_load_ps(v);
}
__attribute__((noinline)) static void write_vec(float *col, int z, int p, int n, __m256 x) {
  float v[8] __attribute__((aligned(32)));
  _mm256_store_ps(v, x);
  for (int j = 0; j < 8 && j < n; j++) {
    int at = p + j;
    at -= at >= z ? z : 0;
    col[at] = v[j];
  }
}

static void layer_min_sum(ldpc_decoder *d, int r, int offset) {
  const ldpc_code *code = &d->code;
  const int z = code->z, zp = d->zp;
  const int e0 = code->g->row_start[r], deg = code->g->row_start[r + 1] - e0;
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256 sign_mask = _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u));
  const __m256 alpha = _mm256_set1_ps(d->cfg.alpha), beta = _mm256_set1_ps(d->cfg.beta);
  const __m256 zero = _mm256_setzero_ps(), mag_init = _mm256_set1_ps(LDPC_MAG_INIT);
  const __m256 start_sign = ldpc_sign_start(deg) ? sign_mask : zero;
  float *cols[LDPC_ROW_DEGREE_MAX];
  int shifts[LDPC_ROW_DEGREE_MAX];
  for (int k = 0; k < deg; k++) {
    cols[k] = d->app + (size_t)code->g->col[e0 + k] * z;
    shifts[k] = code->shift[e0 + k];
  }
  float q[LDPC_ROW_DEGREE_MAX][LANES] __attribute__((aligned(32)));
  float *chunk_msg = d->msg + (size_t)e0 * zp;
  for (int i0 = 0; i0 < z; i0 += LANES, chunk_msg += (size_t)deg * LANES) {
    __m256 m1[VECS], m2[VECS], sg[VECS];
    for (int u = 0; u < VECS; u++) {
      m1[u] = m2[u] = mag_init;
      sg[u] = start_sign;
    }
    for (int k = 0; k < deg; k++) {
      int start = i0 + shifts[k];
      start -= start >= z ? z : 0;
      const float *m = chunk_msg + k * LANES;
      const int chunk_in_place = i0 + LANES <= z && start + LANES <= z;
      for (int u = 0; u < VECS; u++) {
        __m256 in;
        if (__builtin_expect(chunk_in_place, 1)) {
          in = _mm256_loadu_ps(cols[k] + start + 8 * u);
        } else {
          int p = start + 8 * u;
          p -= p >= z ? z : 0;
          const int n = z - i0 - 8 * u;
          const float *src = vec_in_place(cols[k], z, p, n);
          in = src ? _mm256_loadu_ps(src) : read_vec(cols[k], z, p, n);
        }
        const __m256 x = _mm256_sub_ps(in, _mm256_loadu_ps(m + 8 * u));
        const __m256 a = _mm256_and_ps(x, abs_mask);
        _mm256_store_ps(q[k] + 8 * u, x);
        m2[u] = _mm256_min_ps(_mm256_max_ps(a, m1[u]), m2[u]);
        m1[u] = _mm256_min_ps(a, m1[u]);
        sg[u] = _mm256_xor_ps(sg[u], x);
      }
    }
    /* Per lane: the two possible messages with the product's sign; m2 and sg
     * are not needed past this point (their registers hold v1, v2). */
    __m256 v1[VECS], v2[VECS];
    for (int u = 0; u < VECS; u++) {
      const __m256 sgn = _mm256_and_ps(sg[u], sign_mask);
      const __m256 a1 = offset ? _mm256_max_ps(_mm256_sub_ps(m1[u], beta), zero) : _mm256_mul_ps(alpha, m1[u]);
      const __m256 a2 = offset ? _mm256_max_ps(_mm256_sub_ps(m2[u], beta), zero) : _mm256_mul_ps(alpha, m2[u]);
      v1[u] = _mm256_xor_ps(a1, sgn);
      v2[u] = _mm256_xor_ps(a2, sgn);
    }
    for (int k = 0; k < deg; k++) {
      int start = i0 + shifts[k];
      start -= start >= z ? z : 0;
      float *m = chunk_msg + k * LANES;
      const int chunk_in_place = i0 + LANES <= z && start + LANES <= z;
      for (int u = 0; u < VECS; u++) {
        const __m256 x = _mm256_load_ps(q[k] + 8 * u);
        const __m256 at_min = _mm256_cmp_ps(_mm256_and_ps(x, abs_mask), m1[u], _CMP_EQ_OQ);
        const __m256 msg = _mm256_xor_ps(_mm256_blendv_ps(v1[u], v2[u], at_min), _mm256_and_ps(x, sign_mask));
        _mm256_storeu_ps(m + 8 * u, msg);
        const __m256 out = _mm256_add_ps(x, msg);
        if (__builtin_expect(chunk_in_place, 1)) {
          _mm256_storeu_ps(cols[k] + start + 8 * u, out);
        } else {
          int p = start + 8 * u;
          p -= p >= z ? z : 0;
          const int n = z - i0 - 8 * u;
          float *dst = vec_in_place(cols[k], z, p, n);
          if (dst)
            _mm256_storeu_ps(dst, out);
          else
            write_vec(cols[k], z, p, n, out);
        }
      }
    }
  }
}
#else
/* The two passes of a min-sum chunk over one entry, as functions so their
 * pointers are restrict parameters: GCC then vectorises the lane loops
 * without run-time overlap checks (with restrict locals it kept them, about
 * as many instructions as the arithmetic). */
static inline void ms_take(const float *restrict src, const float *restrict m, float *restrict qk,
                           float *restrict m1, float *restrict m2, uint32_t *restrict sg) {
  LANE_LOOP for (int j = 0; j < LANES; j++) {
    const float x = src[j] - m[j], a = fabsf(x);
    qk[j] = x;
    m2[j] = ldpc_ms_min2(m1[j], m2[j], a);
    m1[j] = ldpc_ms_min1(m1[j], a);
    sg[j] ^= ldpc_sign_bit(x);
  }
}

static inline void ms_give(const float *restrict qk, const float *restrict m1, const float *restrict m2,
                           const uint32_t *restrict sg, int offset, float alpha, float beta, float *restrict m,
                           float *restrict out) {
  if (offset)
    LANE_LOOP for (int j = 0; j < LANES; j++) {
      const float x = ldpc_ms_message_offset(qk[j], m1[j], m2[j], sg[j], beta);
      m[j] = x;
      out[j] = qk[j] + x;
    }
  else
    LANE_LOOP for (int j = 0; j < LANES; j++) {
      const float x = ldpc_ms_message_scaled(qk[j], m1[j], m2[j], sg[j], alpha);
      m[j] = x;
      out[j] = qk[j] + x;
    }
}

/* One layered min-sum row (normalised when offset is 0, else offset). The
 * row's column pointers and shifts are looked up once, outside the chunk
 * loop: per chunk and entry only the start lane and the in-place test are
 * left of the scalar work, which otherwise took as many instructions as the
 * vector arithmetic. */
static void layer_min_sum(ldpc_decoder *d, int r, int offset) {
  const ldpc_code *code = &d->code;
  const int z = code->z, zp = d->zp;
  const int e0 = code->g->row_start[r], deg = code->g->row_start[r + 1] - e0;
  const float alpha = d->cfg.alpha, beta = d->cfg.beta;
  const uint32_t start_sign = ldpc_sign_start(deg);
  float *cols[LDPC_ROW_DEGREE_MAX];
  int shifts[LDPC_ROW_DEGREE_MAX];
  for (int k = 0; k < deg; k++) {
    cols[k] = d->app + (size_t)code->g->col[e0 + k] * z;
    shifts[k] = code->shift[e0 + k];
  }
  float q[LDPC_ROW_DEGREE_MAX][LANES];
  float *chunk_msg = d->msg + (size_t)e0 * zp;
  for (int i0 = 0; i0 < z; i0 += LANES, chunk_msg += (size_t)deg * LANES) {
    const int full = i0 + LANES <= z;
    float m1[LANES], m2[LANES], v[LANES];
    uint32_t sg[LANES];
    LANE_LOOP for (int j = 0; j < LANES; j++) {
      m1[j] = m2[j] = LDPC_MAG_INIT;
      sg[j] = start_sign;
    }
    for (int k = 0; k < deg; k++) {
      int start = i0 + shifts[k];
      start -= start >= z ? z : 0;
      if (full && start + LANES <= z) {
        ms_take(cols[k] + start, chunk_msg + k * LANES, q[k], m1, m2, sg);
      } else {
        gather_lanes(cols[k], shifts[k], z, i0, v);
        ms_take(v, chunk_msg + k * LANES, q[k], m1, m2, sg);
      }
    }
    for (int k = 0; k < deg; k++) {
      int start = i0 + shifts[k];
      start -= start >= z ? z : 0;
      if (full && start + LANES <= z) {
        ms_give(q[k], m1, m2, sg, offset, alpha, beta, chunk_msg + k * LANES, cols[k] + start);
      } else {
        ms_give(q[k], m1, m2, sg, offset, alpha, beta, chunk_msg + k * LANES, v);
        scatter_lanes(cols[k], shifts[k], z, i0, v);
      }
    }
  }
}
#endif

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
      float *col = d->app + (size_t)code->g->col[e] * z;
      const float *src = lanes_at(col, code->shift[e], z, i0);
      if (!src) {
        gather_lanes(col, code->shift[e], z, i0, v);
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

/* Flooding: app = channel + every message of the decoded rows. */
static void flood_collect(ldpc_decoder *d) {
  const ldpc_code *code = &d->code;
  const int z = code->z, zp = d->zp;
  memcpy(d->app, d->chan, sizeof(float) * (size_t)code->g->cols * z);
  for (int r = 0; r < d->rows_used; r++) {
    const int e0 = code->g->row_start[r], deg = code->g->row_start[r + 1] - e0;
    for (int i0 = 0; i0 < z; i0 += LANES) {
      const float *chunk_msg = d->msg + (size_t)e0 * zp + (size_t)i0 * deg;
      for (int k = 0; k < deg; k++) {
        const float *restrict m = chunk_msg + k * LANES;
        float *col = d->app + (size_t)code->g->col[e0 + k] * z;
        const int s = code->shift[e0 + k];
        float *dst = lanes_at(col, s, z, i0);
        if (dst) {
          LANE_LOOP for (int j = 0; j < LANES; j++) dst[j] += m[j];
        } else {
          float v[LANES];
          gather_lanes(col, s, z, i0, v);
          for (int j = 0; j < LANES; j++) v[j] += m[j];
          scatter_lanes(col, s, z, i0, v);
        }
      }
    }
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
  const float *restrict app = d->app;
  int done = 0; /* columns decided */
  for (int r = 0; r < d->rows_used; r++) {
    const int need = code->g->col[code->g->row_start[r + 1] - 1] + 1;
    for (int i = done * z; i < need * z; i++) h[i] = ldpc_hard_bit(app[i]);
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
  memcpy(d->app, llr, sizeof(float) * nbits);
  /* Only flooding rebuilds the app from the input. */
  if (d->cfg.algorithm == LDPC_FLOODING_BP) memcpy(d->chan, llr, sizeof(float) * nbits);
  memset(d->msg, 0, sizeof(float) * (size_t)code->g->row_start[d->rows_used] * d->zp);

  int it = 0, ok = 0;
  while (it < d->cfg.max_iterations && !(ok && !d->cfg.full_iterations)) {
    switch (d->cfg.algorithm) {
      case LDPC_LAYERED_NMS:
      case LDPC_LAYERED_OMS:
        for (int r = 0; r < d->rows_used; r++) layer_min_sum(d, r, d->cfg.algorithm == LDPC_LAYERED_OMS);
        break;
      case LDPC_FLOODING_BP:
        for (int r = 0; r < d->rows_used; r++) row_sum_product(d, r);
        flood_collect(d);
        break;
    }
    it++;
    ok = syndrome_zero(d);
  }
  for (int k = 0; k < k_prime; k++) bits[k] = ldpc_hard_bit(d->app[k]);
  res->iterations = it;
  res->syndrome_ok = ok;
  res->rows_used = d->rows_used;
  return 0;
}
