/* The batch decoder's AVX2 kernels (coding/ldpc_batch_kernel.h): one 8-float
 * vector holds one place of the 8 blocks, so a row's check i of every block
 * is one vector per entry, loaded and stored aligned in place.
 *
 * Compiled for AVX2 function by function (the target attribute), whatever
 * -march the rest of the build has: coding/ldpc_batch.c calls them only
 * where the CPU reports AVX2. Each operation is ldpc_batch_layer_gen's, as
 * the one-block decoder's AVX2 kernel (coding/ldpc_rows_avx2.c) spells them and
 * says why they give the same bits:
 *   min1 = vminps(a, m1), min2 = vminps(vmaxps(a, m1), m2), |x| = and,
 *   the sign product = xor of whole words masked to the sign bit at the end,
 *   the message = blendv(v1, v2, |q| == min1) ^ sign(q), with v1, v2 the
 *   scaled (or offset) minima carrying the product's sign,
 *   app = q + m. */
#include "coding/ldpc_batch_kernel.h"

#if defined(LDPC_BATCH_HAVE_AVX2_KERNEL)
#include <immintrin.h>

#include "coding/ldpc_batch.h"
#include "coding/ldpc_msg.h"

#define AVX2 __attribute__((target("avx2")))

AVX2 void ldpc_batch_layer_avx2(const ldpc_batch_state *s, int r, uint32_t keep) {
  const ldpc_code *code = s->code;
  const int z = code->z;
  const int e0 = code->g->row_start[r], deg = code->g->row_start[r + 1] - e0;
  LDPC_AVX2_ROW_CONSTS(s->alpha, s->beta, deg);
  const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  /* all ones in the lanes that keep their LLRs */
  const __m256 keep_lanes =
      _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)keep), lane_bit), lane_bit));
  float *base[LDPC_ROW_DEGREE_MAX];
  int shift[LDPC_ROW_DEGREE_MAX];
  for (int k = 0; k < deg; k++) {
    base[k] = s->app + (size_t)code->g->col[e0 + k] * z * LDPC_BATCH;
    shift[k] = code->shift[e0 + k];
  }
  __m256 q[LDPC_ROW_DEGREE_MAX];
  float *at[LDPC_ROW_DEGREE_MAX];
  float *m = s->msg + (size_t)e0 * z * LDPC_BATCH;
  for (int i = 0; i < z; i++, m += (size_t)deg * LDPC_BATCH) {
    __m256 m1 = mag_init, m2 = mag_init, sg = start_sign;
    for (int k = 0; k < deg; k++) {
      int p = i + shift[k];
      p -= p >= z ? z : 0;
      at[k] = base[k] + (size_t)p * LDPC_BATCH;
      const __m256 x = _mm256_sub_ps(_mm256_load_ps(at[k]), _mm256_load_ps(m + k * LDPC_BATCH));
      const __m256 a = _mm256_and_ps(x, abs_mask);
      q[k] = x;
      m2 = _mm256_min_ps(_mm256_max_ps(a, m1), m2);
      m1 = _mm256_min_ps(a, m1);
      sg = _mm256_xor_ps(sg, x);
    }
    const __m256 sgn = _mm256_and_ps(sg, sign_mask);
    const __m256 a1 = s->offset ? _mm256_max_ps(_mm256_sub_ps(m1, beta), zero) : _mm256_mul_ps(alpha, m1);
    const __m256 a2 = s->offset ? _mm256_max_ps(_mm256_sub_ps(m2, beta), zero) : _mm256_mul_ps(alpha, m2);
    const __m256 v1 = _mm256_xor_ps(a1, sgn), v2 = _mm256_xor_ps(a2, sgn);
    if (__builtin_expect(!keep, 1)) {
      for (int k = 0; k < deg; k++) {
        const __m256 x = q[k];
        const __m256 at_min = _mm256_cmp_ps(_mm256_and_ps(x, abs_mask), m1, _CMP_EQ_OQ);
        const __m256 msg = _mm256_xor_ps(_mm256_blendv_ps(v1, v2, at_min), _mm256_and_ps(x, sign_mask));
        _mm256_store_ps(m + k * LDPC_BATCH, msg);
        _mm256_store_ps(at[k], _mm256_add_ps(x, msg));
      }
    } else {
      for (int k = 0; k < deg; k++) {
        const __m256 x = q[k];
        const __m256 at_min = _mm256_cmp_ps(_mm256_and_ps(x, abs_mask), m1, _CMP_EQ_OQ);
        const __m256 msg = _mm256_xor_ps(_mm256_blendv_ps(v1, v2, at_min), _mm256_and_ps(x, sign_mask));
        _mm256_store_ps(m + k * LDPC_BATCH, msg);
        _mm256_store_ps(at[k], _mm256_blendv_ps(_mm256_add_ps(x, msg), _mm256_load_ps(at[k]), keep_lanes));
      }
    }
  }
}

AVX2 uint32_t ldpc_batch_syndrome_avx2(const ldpc_batch_state *s, int rows, const uint8_t *row_lanes,
                                       uint32_t want) {
  const ldpc_code *code = s->code;
  const int z = code->z;
  const __m256 sign_mask = _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u));
  uint32_t fail = 0;
  for (int r = 0; r < rows && (fail & want) != want; r++) {
    const int e0 = code->g->row_start[r], deg = code->g->row_start[r + 1] - e0;
    /* a check fails where the XOR of its deg hard decisions (1 - sign bit)
     * is 1: where the XOR of the sign bits differs from deg's parity */
    const __m256 odd = (deg & 1) ? sign_mask : _mm256_setzero_ps();
    const float *base[LDPC_ROW_DEGREE_MAX];
    int shift[LDPC_ROW_DEGREE_MAX];
    for (int k = 0; k < deg; k++) {
      base[k] = s->app + (size_t)code->g->col[e0 + k] * z * LDPC_BATCH;
      shift[k] = code->shift[e0 + k];
    }
    __m256 any = _mm256_setzero_ps();
    for (int i = 0; i < z; i++) {
      __m256 x = odd;
      for (int k = 0; k < deg; k++) {
        int p = i + shift[k];
        p -= p >= z ? z : 0;
        x = _mm256_xor_ps(x, _mm256_load_ps(base[k] + (size_t)p * LDPC_BATCH));
      }
      any = _mm256_or_ps(any, x);
    }
    fail |= (uint32_t)_mm256_movemask_ps(any) & row_lanes[r];
  }
  return fail & want;
}
#endif
