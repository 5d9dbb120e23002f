/* The one-block decoder's AVX2 row kernel (coding/ldpc_rows.h): a chunk's
 * 32 lanes as four 8-float vectors, the running minima and signs held in
 * registers across the row's entries. Compiled for AVX2 function by
 * function (the target attribute), whatever -march the rest of the build
 * has: coding/ldpc_decode.c calls it only where the CPU reports AVX2.
 *
 * Every operation is its coding/ldpc_msg.h counterpart, or a regrouping of
 * them that gives the same bits, as the plain C kernel
 * (coding/ldpc_rows_gen.c) computes them:
 *   ldpc_ms_min1(m1, a)  = a < m1 ? a : m1          = vminps(a, m1)
 *   ldpc_ms_min2         = min(max(a, m1), m2)      = vminps(vmaxps(a, m1), m2)
 *   fabsf                = and with a mask; the sign bit of x = x ^ |x|
 *   the sign product     = xor of the whole words, masked to the sign bit
 *                          once per chunk (the other bits never reach a result)
 *   alpha * (|q| == min1 ? min2 : min1), with the product's sign
 *                        = blendv(alpha m1 ^ sgn, alpha m2 ^ sgn, cmpeq) ^ sign(q):
 *                          a select commutes with the scaling (or with
 *                          max(mag - beta, 0)) and with the xors of the sign
 *                          bit, so both are done once per chunk, not per edge
 *   q + m                = vaddps
 * (vminps/vmaxps return their first operand exactly where the C select
 * does.)
 *
 * Where the time went (BENCHMARKS.md, BG1 Z 384): about 8 cycles an 8-lane
 * edge for some 22 instructions, bound by the core, not by memory (a
 * message array folded into the L1 cache changed nothing). What paid:
 * 64-byte aligned arrays (a vector load or store across a cache line costs
 * two), each column's mirror (the chunk that wraps past Z, a full one or
 * the last, partial one, is then one run like the others, where it went
 * lane by lane, and the test for it left the loop), a pointer per entry
 * stepped chunk by chunk instead of recomputed, and no message read on the
 * first iteration. */
#include "coding/ldpc_rows.h"

#if defined(LDPC_ROWS_HAVE_AVX2_KERNEL)
#include <immintrin.h>

#include "coding/ldpc_msg.h"

#define AVX2 __attribute__((target("avx2")))
#define LANES LDPC_ROW_LANES
#define VECS (LANES / 8)

/* The last chunk where LANES does not divide Z: vector u holds lanes
 * i0 + 8u + j, j < 8, at p = (start + 8u) mod Z, n of them below Z; in
 * place where the 8 are one run below Z, else lane by lane (zero past Z). */
AVX2 static inline float *vec_in_place(float *col, int z, int p, int n) {
  return n >= 8 && p + 8 <= z ? col + p : NULL;
}
AVX2 __attribute__((noinline)) static __m256 read_vec(const float *col, int z, int p, int n) {
  float v[8] __attribute__((aligned(32)));
  for (int j = 0; j < 8; j++) {
    int at = p + j;
    at -= at >= z ? z : 0;
    v[j] = j < n ? col[at] : 0.0f;
  }
  return _mm256_load_ps(v);
}
AVX2 __attribute__((noinline)) static void write_vec(float *col, int z, int p, int n, __m256 x) {
  float v[8] __attribute__((aligned(32)));
  _mm256_store_ps(v, x);
  for (int j = 0; j < 8 && j < n; j++) {
    int at = p + j;
    at -= at >= z ? z : 0;
    col[at] = v[j];
  }
}

/* Pass 1 of a chunk on one entry, vector u: q = app - m_old (app on the
 * first iteration), kept in qk, into the running minima and sign product. */
#define TAKE(u, in)                                                                   \
  do {                                                                                \
    const __m256 x = first ? (in) : _mm256_sub_ps((in), _mm256_load_ps(m + 8 * (u))); \
    const __m256 a = _mm256_and_ps(x, abs_mask);                                      \
    _mm256_store_ps(qk + 8 * (u), x);                                                 \
    m2[u] = _mm256_min_ps(_mm256_max_ps(a, m1[u]), m2[u]);                            \
    m1[u] = _mm256_min_ps(a, m1[u]);                                                  \
    sg[u] = _mm256_xor_ps(sg[u], x);                                                  \
  } while (0)

/* Every entry's LANES bits of the chunk through TAKE, read in place. */
#define TAKE_CHUNK()                                                          \
  for (int k = 0; k < deg; k++) {                                             \
    const float *src = at[k], *m = chunk_msg + k * LANES;                     \
    float *qk = q[k];                                                         \
    for (int u = 0; u < VECS; u++) TAKE(u, _mm256_loadu_ps(src + 8 * u));     \
  }

/* Pass 2, vector u: the new message, stored, and out = q + message. */
#define GIVE(u)                                                                                   \
  const __m256 x = _mm256_load_ps(qk + 8 * (u));                                                  \
  const __m256 ax = _mm256_and_ps(x, abs_mask);                                                   \
  const __m256 at_min = _mm256_cmp_ps(ax, m1[u], _CMP_EQ_OQ);                                     \
  const __m256 msg = _mm256_xor_ps(_mm256_blendv_ps(v1[u], v2[u], at_min), _mm256_xor_ps(x, ax)); \
  _mm256_store_ps(m + 8 * (u), msg);                                                              \
  const __m256 out = _mm256_add_ps(x, msg)

/* Between the passes: per lane the two possible messages with the
 * product's sign (m2 and sg are not needed past this point). */
#define MESSAGES()                                                                                              \
  __m256 v1[VECS], v2[VECS];                                                                                    \
  for (int u = 0; u < VECS; u++) {                                                                              \
    const __m256 sgn = _mm256_and_ps(sg[u], sign_mask);                                                         \
    const __m256 a1 = s->offset ? _mm256_max_ps(_mm256_sub_ps(m1[u], beta), zero) : _mm256_mul_ps(alpha, m1[u]); \
    const __m256 a2 = s->offset ? _mm256_max_ps(_mm256_sub_ps(m2[u], beta), zero) : _mm256_mul_ps(alpha, m2[u]); \
    v1[u] = _mm256_xor_ps(a1, sgn);                                                                             \
    v2[u] = _mm256_xor_ps(a2, sgn);                                                                             \
  }

#define START_CHUNK()                     \
  __m256 m1[VECS], m2[VECS], sg[VECS];    \
  for (int u = 0; u < VECS; u++) {        \
    m1[u] = m2[u] = mag_init;             \
    sg[u] = start_sign;                   \
  }

AVX2 static inline __attribute__((always_inline)) void layer(const ldpc_rows_state *s, int r, const int first) {
  const ldpc_code *code = s->code;
  const int z = code->z, zp = s->zp;
  const int e0 = code->g->row_start[r], deg = code->g->row_start[r + 1] - e0;
  LDPC_AVX2_ROW_CONSTS(s->alpha, s->beta, deg);
  /* per entry: its column, shift, where its next full chunk starts (at),
   * and how many bits of it the one full chunk that wraps writes to the
   * mirror (wrap; 0 when none does) */
  LDPC_ROW_CURSORS(float, s, code, e0, deg, z);
  float q[LDPC_ROW_DEGREE_MAX][LANES] __attribute__((aligned(32)));
  float *chunk_msg = s->msg + (size_t)e0 * zp;
  int i0 = 0;
  /* Full chunks: every entry's LANES bits are one run, read and written in
   * place (past Z: in the mirror). */
  for (; i0 + LANES <= z; i0 += LANES, chunk_msg += (size_t)deg * LANES) {
    START_CHUNK();
    TAKE_CHUNK();
    MESSAGES();
    for (int k = 0; k < deg; k++) {
      float *dst = at[k], *m = chunk_msg + k * LANES, *next = dst + LANES;
      const float *qk = q[k];
      at[k] = next >= ends[k] ? next - z : next;
      for (int u = 0; u < VECS; u++) {
        GIVE(u);
        _mm256_storeu_ps(dst + 8 * u, out);
      }
    }
  }
  /* The last chunk when LANES does not divide Z: n < LANES lanes. Past one
   * chunk, each entry's n bits are one run too (up to n - 1 floats into the
   * mirror), read with the LANES - n lanes after them (lanes past Z, whose
   * values no real lane sees) and written back up to lane n only: the one
   * vector across n keeps what its place held past n. Below one chunk (Z
   * < LANES, where a run may pass the mirror's Z floats) lane by lane. */
  if (i0 < z && z >= LANES) {
    const int n = z - i0;
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    START_CHUNK();
    TAKE_CHUNK();
    MESSAGES();
    for (int k = 0; k < deg; k++) {
      float *dst = at[k], *m = chunk_msg + k * LANES;
      const float *qk = q[k];
      for (int u = 0; u < VECS; u++) {
        GIVE(u);
        if (8 * u + 8 <= n) {
          _mm256_storeu_ps(dst + 8 * u, out);
        } else if (8 * u < n) {
          const __m256 keep = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_add_epi32(lane, _mm256_set1_epi32(8 * u)),
                                                                     _mm256_set1_epi32(n - 1)));
          _mm256_storeu_ps(dst + 8 * u, _mm256_blendv_ps(out, _mm256_loadu_ps(dst + 8 * u), keep));
        }
      }
    }
  } else if (i0 < z) {
    START_CHUNK();
    for (int k = 0; k < deg; k++) {
      int start = i0 + shifts[k];
      start -= start >= z ? z : 0;
      const float *m = chunk_msg + k * LANES;
      float *qk = q[k];
      for (int u = 0; u < VECS; u++) {
        int p = start + 8 * u;
        p -= p >= z ? z : 0;
        const int n = z - i0 - 8 * u;
        const float *src = vec_in_place(cols[k], z, p, n);
        TAKE(u, src ? _mm256_loadu_ps(src) : read_vec(cols[k], z, p, n));
      }
    }
    MESSAGES();
    for (int k = 0; k < deg; k++) {
      int start = i0 + shifts[k];
      start -= start >= z ? z : 0;
      float *m = chunk_msg + k * LANES;
      const float *qk = q[k];
      for (int u = 0; u < VECS; u++) {
        GIVE(u);
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
  /* The mirrors equal their heads again: the first wrap[k] bits of column k
   * were written to its mirror, the others (if at all) to its head. */
  if (z >= LANES) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int k = 0; k < deg; k++) {
      float *head = cols[k], *mirror = cols[k] + z;
      const __m256i w = _mm256_set1_epi32(wrap[k]);
      for (int u = 0; u < VECS; u++) {
        const __m256 from_mirror =
            _mm256_castsi256_ps(_mm256_cmpgt_epi32(w, _mm256_add_epi32(lane, _mm256_set1_epi32(8 * u))));
        const __m256 v = _mm256_blendv_ps(_mm256_load_ps(head + 8 * u), _mm256_loadu_ps(mirror + 8 * u), from_mirror);
        _mm256_store_ps(head + 8 * u, v);
        _mm256_storeu_ps(mirror + 8 * u, v);
      }
    }
  }
}

AVX2 void ldpc_rows_layer_avx2(const ldpc_rows_state *s, int r, int first) {
  if (first)
    layer(s, r, 1);
  else
    layer(s, r, 0);
}
#endif
