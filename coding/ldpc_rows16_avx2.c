/* The fixed-point decoder's AVX2 row kernel (coding/ldpc_rows.h,
 * ldpc_rows16_state): a chunk's 32 lanes as two 16-lane int16 vectors, the
 * running minima and signs in registers across the row's entries; the
 * layout, the mirrors and the in-place partial chunk as the float AVX2
 * kernel (coding/ldpc_rows_avx2.c) handles them, at twice the lanes a
 * vector. Compiled for AVX2 function by function (the target attribute);
 * coding/ldpc_decode.c calls it only where the CPU reports AVX2.
 *
 * Every operation is its coding/ldpc_msg16.h counterpart, as the plain C
 * kernel (coding/ldpc_rows16_gen.c) computes it:
 *   ldpc16_sat(a - b), ldpc16_sat(a + b)
 *                     = subs/adds_epi16(a, b): neither saturates, by
 *                       coding/ldpc_msg16.h's bound (|values| <= 31744)
 *   ldpc16_mag(x)     = min_epi16(abs_epi16(x), 1024)
 *   min1, min2        = min_epi16(a, m1), min_epi16(max_epi16(a, m1), m2)
 *   the sign product  = xor of the whole words, its mask (srai 15) taken
 *                       once per chunk
 *   ldpc16_scale(m, k) = mulhrs_epi16(m, k): ((m k >> 14) + 1) >> 1, which
 *                       is (m k + 2^14) >> 15
 *   the message       = blendv(v1, v2, |q| == min1) conditionally negated by
 *                       q's sign, v1 and v2 the scaled minima carrying the
 *                       product's sign: a select commutes with the scaling
 *                       and a negation of a magnitude in [0, 32767] is exact,
 *                       so negating twice is negating by the XOR of the masks. */
#include "coding/ldpc_rows.h"

#if defined(LDPC_ROWS_HAVE_AVX2_KERNEL)
#include <immintrin.h>

#include "coding/ldpc_msg16.h"

#define AVX2 __attribute__((target("avx2")))
#define LANES LDPC_ROW_LANES
#define VL 16
#define VECS (LANES / VL)

/* (x ^ s) - s: x negated where the mask s is all ones. */
#define NEG_WHERE(x, s) _mm256_sub_epi16(_mm256_xor_si256((x), (s)), (s))

#define TAKE(u, in)                                                                                         \
  do {                                                                                                      \
    const __m256i x = first ? (in) : _mm256_subs_epi16((in), _mm256_load_si256((const __m256i *)(m + VL * (u)))); \
    const __m256i a = _mm256_min_epi16(_mm256_abs_epi16(x), mag_init);                                      \
    _mm256_store_si256((__m256i *)(qk + VL * (u)), x);                                                      \
    m2[u] = _mm256_min_epi16(_mm256_max_epi16(a, m1[u]), m2[u]);                                            \
    m1[u] = _mm256_min_epi16(a, m1[u]);                                                                     \
    sg[u] = _mm256_xor_si256(sg[u], x);                                                                     \
  } while (0)

#define TAKE_CHUNK()                                                                                  \
  for (int k = 0; k < deg; k++) {                                                                     \
    const int16_t *src = at[k], *m = chunk_msg + k * LANES;                                          \
    int16_t *qk = q[k];                                                                               \
    for (int u = 0; u < VECS; u++) TAKE(u, _mm256_loadu_si256((const __m256i *)(src + VL * u)));     \
  }

/* The two possible messages per lane with the product's sign. */
#define MESSAGES()                                                                 \
  __m256i v1[VECS], v2[VECS];                                                      \
  for (int u = 0; u < VECS; u++) {                                                 \
    const __m256i sgn = _mm256_srai_epi16(sg[u], 15);                              \
    v1[u] = NEG_WHERE(_mm256_mulhrs_epi16(m1[u], scale), sgn);                     \
    v2[u] = NEG_WHERE(_mm256_mulhrs_epi16(m2[u], scale), sgn);                     \
  }

/* Pass 2, vector u: the new message, stored, and out = sat(q + message). */
#define GIVE(u)                                                                                         \
  const __m256i x = _mm256_load_si256((const __m256i *)(qk + VL * (u)));                                \
  const __m256i at_min = _mm256_cmpeq_epi16(_mm256_min_epi16(_mm256_abs_epi16(x), mag_init), m1[u]);   \
  const __m256i msg = NEG_WHERE(_mm256_blendv_epi8(v1[u], v2[u], at_min), _mm256_srai_epi16(x, 15));   \
  _mm256_store_si256((__m256i *)(m + VL * (u)), msg);                                                    \
  const __m256i out = _mm256_adds_epi16(x, msg)

#define START_CHUNK()                      \
  __m256i m1[VECS], m2[VECS], sg[VECS];    \
  for (int u = 0; u < VECS; u++) {         \
    m1[u] = m2[u] = mag_init;              \
    sg[u] = start_sign;                    \
  }

/* out where lane 16u + j < n, else what dst holds. */
AVX2 static inline void store_below(int16_t *dst, __m256i out, int u, int n) {
  const __m256i lane = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m256i keep = _mm256_cmpgt_epi16(_mm256_add_epi16(lane, _mm256_set1_epi16((short)(VL * u))),
                                          _mm256_set1_epi16((short)(n - 1)));
  _mm256_storeu_si256((__m256i *)dst, _mm256_blendv_epi8(out, _mm256_loadu_si256((const __m256i *)dst), keep));
}

AVX2 static inline __attribute__((always_inline)) void layer(const ldpc_rows16_state *s, int r, const int first) {
  const ldpc_code *code = s->code;
  const int z = code->z, zp = s->zp;
  const int e0 = code->g->row_start[r], deg = code->g->row_start[r + 1] - e0;
  /* the magnitude bound, also where the minima start */
  const __m256i mag_init = _mm256_set1_epi16(LDPC16_MAG_MAX);
  const __m256i scale = _mm256_set1_epi16((short)s->scale_k);
  const __m256i start_sign = _mm256_set1_epi16((short)ldpc16_sign_start(deg));
  LDPC_ROW_CURSORS(int16_t, s, code, e0, deg, z);
  int16_t q[LDPC_ROW_DEGREE_MAX][LANES] __attribute__((aligned(32)));
  int16_t *chunk_msg = s->msg + (size_t)e0 * zp;
  int i0 = 0;
  /* Full chunks, in place (past Z: in the mirror). */
  for (; i0 + LANES <= z; i0 += LANES, chunk_msg += (size_t)deg * LANES) {
    START_CHUNK();
    TAKE_CHUNK();
    MESSAGES();
    for (int k = 0; k < deg; k++) {
      int16_t *dst = at[k], *m = chunk_msg + k * LANES, *next = dst + LANES;
      const int16_t *qk = q[k];
      at[k] = next >= ends[k] ? next - z : next;
      for (int u = 0; u < VECS; u++) {
        GIVE(u);
        _mm256_storeu_si256((__m256i *)(dst + VL * u), out);
      }
    }
  }
  if (i0 < z && z >= LANES) {
    /* The last, partial chunk of n lanes, in place as the float kernel does
     * it: the lanes past n read what lies after them and are not written. */
    const int n = z - i0;
    START_CHUNK();
    TAKE_CHUNK();
    MESSAGES();
    for (int k = 0; k < deg; k++) {
      int16_t *dst = at[k], *m = chunk_msg + k * LANES;
      const int16_t *qk = q[k];
      for (int u = 0; u < VECS; u++) {
        GIVE(u);
        if (VL * u + VL <= n)
          _mm256_storeu_si256((__m256i *)(dst + VL * u), out);
        else if (VL * u < n)
          store_below(dst + VL * u, out, u, n);
      }
    }
  } else if (i0 < z) {
    /* Z < LANES: one chunk, through a buffer (the heads only). */
    int16_t buf[LDPC_ROW_DEGREE_MAX][LANES] __attribute__((aligned(32)));
    START_CHUNK();
    for (int k = 0; k < deg; k++) {
      ldpc_rows_gather16(cols[k], shifts[k], z, 0, buf[k]);
      const int16_t *m = chunk_msg + k * LANES;
      int16_t *qk = q[k];
      for (int u = 0; u < VECS; u++) TAKE(u, _mm256_load_si256((const __m256i *)(buf[k] + VL * u)));
    }
    MESSAGES();
    for (int k = 0; k < deg; k++) {
      int16_t *m = chunk_msg + k * LANES;
      const int16_t *qk = q[k];
      for (int u = 0; u < VECS; u++) {
        GIVE(u);
        _mm256_store_si256((__m256i *)(buf[k] + VL * u), out);
      }
      ldpc_rows_scatter16(cols[k], shifts[k], z, 0, buf[k]);
    }
  }
  /* The mirrors equal their heads again (coding/ldpc_rows.h). */
  if (z >= LANES) {
    const __m256i lane = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (int k = 0; k < deg; k++) {
      int16_t *head = cols[k], *mirror = cols[k] + z;
      const __m256i w = _mm256_set1_epi16((short)wrap[k]);
      for (int u = 0; u < VECS; u++) {
        const __m256i from_mirror = _mm256_cmpgt_epi16(w, _mm256_add_epi16(lane, _mm256_set1_epi16((short)(VL * u))));
        const __m256i v = _mm256_blendv_epi8(_mm256_load_si256((const __m256i *)(head + VL * u)),
                                             _mm256_loadu_si256((const __m256i *)(mirror + VL * u)), from_mirror);
        _mm256_store_si256((__m256i *)(head + VL * u), v);
        _mm256_storeu_si256((__m256i *)(mirror + VL * u), v);
      }
    }
  }
}

AVX2 void ldpc_rows16_layer_avx2(const ldpc_rows16_state *s, int r, int first) {
  if (first)
    layer(s, r, 1);
  else
    layer(s, r, 0);
}
#endif
