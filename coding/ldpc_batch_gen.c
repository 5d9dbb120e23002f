/* The batch decoder's plain C kernels (coding/ldpc_batch_kernel.h): the
 * reference the AVX2 kernels must equal, and what a host without AVX2 runs.
 * Each lane is ldpc_decoder_execute's arithmetic for its block, spelled with
 * coding/ldpc_msg.h's functions in its order: q = app - m_old edge by edge
 * (min2 before min1, the sign product from ldpc_sign_start), then the
 * messages and app = q + m_new. */
#include <math.h>
#include <string.h>

#include "coding/ldpc_batch.h"
#include "coding/ldpc_batch_kernel.h"
#include "coding/ldpc_msg.h"

#define B LDPC_BATCH

void ldpc_batch_layer_gen(const ldpc_batch_state *s, int r, uint32_t keep) {
  const ldpc_code *code = s->code;
  const int z = code->z;
  const int e0 = code->g->row_start[r], deg = code->g->row_start[r + 1] - e0;
  const uint32_t start_sign = ldpc_sign_start(deg);
  float q[LDPC_ROW_DEGREE_MAX][B];
  float *at[LDPC_ROW_DEGREE_MAX];
  for (int i = 0; i < z; i++) {
    float *m = s->msg + ((size_t)e0 * z + (size_t)i * deg) * B;
    float m1[B], m2[B];
    uint32_t sg[B];
    for (int b = 0; b < B; b++) {
      m1[b] = m2[b] = LDPC_MAG_INIT;
      sg[b] = start_sign;
    }
    for (int k = 0; k < deg; k++) {
      int p = i + code->shift[e0 + k];
      p -= p >= z ? z : 0;
      at[k] = s->app + ((size_t)code->g->col[e0 + k] * z + (size_t)p) * B;
      for (int b = 0; b < B; b++) {
        const float x = at[k][b] - m[k * B + b], a = fabsf(x);
        q[k][b] = x;
        m2[b] = ldpc_ms_min2(m1[b], m2[b], a);
        m1[b] = ldpc_ms_min1(m1[b], a);
        sg[b] ^= ldpc_sign_bit(x);
      }
    }
    for (int k = 0; k < deg; k++)
      for (int b = 0; b < B; b++) {
        const float x = s->offset ? ldpc_ms_message_offset(q[k][b], m1[b], m2[b], sg[b], s->beta)
                                  : ldpc_ms_message_scaled(q[k][b], m1[b], m2[b], sg[b], s->alpha);
        m[k * B + b] = x;
        if (!((keep >> b) & 1u)) at[k][b] = q[k][b] + x;
      }
  }
}

uint32_t ldpc_batch_syndrome_gen(const ldpc_batch_state *s, int rows, const uint8_t *row_lanes, uint32_t want) {
  const ldpc_code *code = s->code;
  const int z = code->z;
  uint32_t fail = 0;
  for (int r = 0; r < rows && (fail & want) != want; r++) {
    const int e0 = code->g->row_start[r], deg = code->g->row_start[r + 1] - e0;
    uint32_t row_fail = 0;
    for (int i = 0; i < z; i++)
      for (int b = 0; b < B; b++) {
        /* the XOR of the deg hard decisions (1 where the sign bit is clear) */
        uint8_t par = 0;
        for (int k = 0; k < deg; k++) {
          int p = i + code->shift[e0 + k];
          p -= p >= z ? z : 0;
          par ^= ldpc_hard_bit(s->app[((size_t)code->g->col[e0 + k] * z + (size_t)p) * B + b]);
        }
        row_fail |= (uint32_t)par << b;
      }
    fail |= row_fail & row_lanes[r];
  }
  return fail & want;
}
