/* The one-block decoder's plain C row kernel (coding/ldpc_rows.h): the
 * reference the AVX2 kernel must equal, and what a host without AVX2 runs.
 * Each lane is coding/ldpc_msg.h's arithmetic in its order: q = app - m_old
 * edge by edge (min2 before min1, the sign product from ldpc_sign_start),
 * then the messages and app = q + m_new. It reads and writes the columns'
 * heads only (through a small buffer where a chunk wraps past Z or runs past
 * the last lane), never their mirrors. */
#include <math.h>
#include <string.h>

#include "coding/ldpc_msg.h"
#include "coding/ldpc_rows.h"

#define LANES LDPC_ROW_LANES
/* Before every loop over a chunk's lanes: GCC otherwise unrolls the
 * iterations first and may fail to re-pack them into vectors (with 16 lanes
 * the normalised min-sum output loop stayed scalar, three times slower). */
#define LANE_LOOP _Pragma("GCC unroll 1")

/* The two passes of a min-sum chunk over one entry, as functions so their
 * pointers are restrict parameters: GCC then vectorises the lane loops
 * without run-time overlap checks. */
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

void ldpc_rows_layer_gen(const ldpc_rows_state *s, int r, int first) {
  const ldpc_code *code = s->code;
  const int z = code->z, zp = s->zp;
  const int e0 = code->g->row_start[r], deg = code->g->row_start[r + 1] - e0;
  const uint32_t start_sign = ldpc_sign_start(deg);
  /* the old messages of the first iteration */
  static const float zeros[LANES];
  float *cols[LDPC_ROW_DEGREE_MAX];
  int shifts[LDPC_ROW_DEGREE_MAX];
  for (int k = 0; k < deg; k++) {
    cols[k] = s->app + (size_t)code->g->col[e0 + k] * s->zs;
    shifts[k] = code->shift[e0 + k];
  }
  float q[LDPC_ROW_DEGREE_MAX][LANES];
  float *chunk_msg = s->msg + (size_t)e0 * zp;
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
      const float *m_old = first ? zeros : chunk_msg + k * LANES;
      if (full && start + LANES <= z) {
        ms_take(cols[k] + start, m_old, q[k], m1, m2, sg);
      } else {
        ldpc_rows_gather(cols[k], shifts[k], z, i0, v);
        ms_take(v, m_old, q[k], m1, m2, sg);
      }
    }
    for (int k = 0; k < deg; k++) {
      int start = i0 + shifts[k];
      start -= start >= z ? z : 0;
      if (full && start + LANES <= z) {
        ms_give(q[k], m1, m2, sg, s->offset, s->alpha, s->beta, chunk_msg + k * LANES, cols[k] + start);
      } else {
        ms_give(q[k], m1, m2, sg, s->offset, s->alpha, s->beta, chunk_msg + k * LANES, v);
        ldpc_rows_scatter(cols[k], shifts[k], z, i0, v);
      }
    }
  }
}
