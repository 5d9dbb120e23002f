/* The fixed-point decoder's plain C row kernel (coding/ldpc_rows.h,
 * ldpc_rows16_state): the reference its AVX2 kernel (coding/ldpc_rows16_avx2.c)
 * must equal, and what a host without AVX2 runs. Each lane is
 * coding/ldpc_msg16.h's arithmetic in the float kernel's order
 * (coding/ldpc_rows_gen.c): q = sat(app - m_old) edge by edge (min2 before
 * min1, the sign product from ldpc16_sign_start), then the messages and
 * app = sat(q + m_new). Heads only, never the mirrors. */
#include <string.h>

#include "coding/ldpc_msg16.h"
#include "coding/ldpc_rows.h"

#define LANES LDPC_ROW_LANES
#define LANE_LOOP _Pragma("GCC unroll 1")

static inline void take(const int16_t *restrict src, const int16_t *restrict m, int16_t *restrict qk,
                        int32_t *restrict m1, int32_t *restrict m2, int32_t *restrict sg) {
  LANE_LOOP for (int j = 0; j < LANES; j++) {
    const int16_t x = ldpc16_sat((int32_t)src[j] - m[j]);
    const int32_t a = ldpc16_mag(x);
    qk[j] = x;
    m2[j] = ldpc16_min2(m1[j], m2[j], a);
    m1[j] = ldpc16_min1(m1[j], a);
    sg[j] ^= ldpc16_sign(x);
  }
}

static inline void give(const int16_t *restrict qk, const int32_t *restrict m1, const int32_t *restrict m2,
                        const int32_t *restrict sg, int32_t k, int16_t *restrict m, int16_t *restrict out) {
  LANE_LOOP for (int j = 0; j < LANES; j++) {
    const int16_t x = ldpc16_message(qk[j], m1[j], m2[j], sg[j], k);
    m[j] = x;
    out[j] = ldpc16_sat((int32_t)qk[j] + x);
  }
}

void ldpc_rows16_layer_gen(const ldpc_rows16_state *s, int r, int first) {
  const ldpc_code *code = s->code;
  const int z = code->z, zp = s->zp;
  const int e0 = code->g->row_start[r], deg = code->g->row_start[r + 1] - e0;
  const int32_t start_sign = ldpc16_sign_start(deg);
  static const int16_t zeros[LANES];
  int16_t *cols[LDPC_ROW_DEGREE_MAX];
  int shifts[LDPC_ROW_DEGREE_MAX];
  for (int k = 0; k < deg; k++) {
    cols[k] = s->app + (size_t)code->g->col[e0 + k] * s->zs;
    shifts[k] = code->shift[e0 + k];
  }
  int16_t q[LDPC_ROW_DEGREE_MAX][LANES];
  int16_t *chunk_msg = s->msg + (size_t)e0 * zp;
  for (int i0 = 0; i0 < z; i0 += LANES, chunk_msg += (size_t)deg * LANES) {
    const int full = i0 + LANES <= z;
    int32_t m1[LANES], m2[LANES], sg[LANES];
    int16_t v[LANES];
    LANE_LOOP for (int j = 0; j < LANES; j++) {
      m1[j] = m2[j] = LDPC16_MAG_MAX;
      sg[j] = start_sign;
    }
    for (int k = 0; k < deg; k++) {
      int start = i0 + shifts[k];
      start -= start >= z ? z : 0;
      const int16_t *m_old = first ? zeros : chunk_msg + k * LANES;
      if (full && start + LANES <= z) {
        take(cols[k] + start, m_old, q[k], m1, m2, sg);
      } else {
        ldpc_rows_gather16(cols[k], shifts[k], z, i0, v);
        take(v, m_old, q[k], m1, m2, sg);
      }
    }
    for (int k = 0; k < deg; k++) {
      int start = i0 + shifts[k];
      start -= start >= z ? z : 0;
      if (full && start + LANES <= z) {
        give(q[k], m1, m2, sg, s->scale_k, chunk_msg + k * LANES, cols[k] + start);
      } else {
        give(q[k], m1, m2, sg, s->scale_k, chunk_msg + k * LANES, v);
        ldpc_rows_scatter16(cols[k], shifts[k], z, i0, v);
      }
    }
  }
}
