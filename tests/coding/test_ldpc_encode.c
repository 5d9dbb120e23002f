/* The encoder for both base graphs and all 51 lifting sizes (so every set):
 * H c = 0 over GF(2), checked here on the expanded parity-check matrix built
 * from the base graph's V values, and the systematic bits are the input. */
#include <stdlib.h>
#include <string.h>

#include "coding/ldpc_encode.h"
#include "testutil.h"

/* The number of unsatisfied checks of cw: check r*Z + i sums bits
 * c*Z + (i + V mod Z) mod Z over the row's entries. */
static int unsatisfied_checks(const ldpc_base_graph *g, int set, int z, const uint8_t *cw) {
  int bad = 0;
  for (int r = 0; r < g->rows; r++)
    for (int i = 0; i < z; i++) {
      int parity = 0;
      for (int e = g->row_start[r]; e < g->row_start[r + 1]; e++)
        parity ^= cw[g->col[e] * z + (i + g->shift[e][set] % z) % z];
      bad += parity;
    }
  return bad;
}

int main(void) {
  int zs[LDPC_NUM_Z];
  ldpc_lifting_sizes(zs);
  test_rng_seed(5);
  uint8_t *info = malloc(22 * 384), *cw = malloc(68 * 384);
  for (int bg = 1; bg <= 2; bg++) {
    int all_ok = 1, sys_ok = 1, sets_seen = 0;
    for (int zi = 0; zi < LDPC_NUM_Z; zi++) {
      const int z = zs[zi];
      ldpc_code code;
      ldpc_code_init(&code, bg, z);
      sets_seen |= 1 << code.set;
      const int k = ldpc_k(&code);
      /* Two words a size: random fillers count F (the last F bits zero). */
      for (int trial = 0; trial < 2; trial++) {
        const int f = (int)(test_rng_u64() % (unsigned)(k / 4 + 1));
        for (int j = 0; j < k; j++) info[j] = j < k - f ? (uint8_t)(test_rng_u64() & 1) : 0;
        const int rc = ldpc_encode(&code, info, cw);
        const int bad = unsatisfied_checks(code.g, code.set, z, cw);
        if (rc != 0 || bad != 0) {
          all_ok = 0;
          CHECK(rc == 0 && bad == 0, "BG%d Z %d: rc %d, %d unsatisfied checks", bg, z, rc, bad);
        }
        sys_ok &= memcmp(cw, info, (size_t)k) == 0;
        /* The checker can fail: one flipped parity bit breaks a check. */
        if (zi == LDPC_NUM_Z - 1 && trial == 0) {
          cw[k + 5] ^= 1;
          CHECK(unsatisfied_checks(code.g, code.set, z, cw) > 0, "BG%d: a flipped bit goes unnoticed", bg);
        }
      }
    }
    CHECK(all_ok, "BG%d: some codewords fail H c = 0", bg);
    CHECK(sys_ok, "BG%d: systematic part differs from the input", bg);
    CHECK(sets_seen == 0xFF, "BG%d: sets covered 0x%x", bg, sets_seen);
  }
  /* Linearity over GF(2): the codeword of a XOR b is the XOR of the codewords
   * (an encoder that, say, mixed in a constant would fail it). */
  ldpc_code code;
  ldpc_code_init(&code, 1, 384);
  uint8_t *b = malloc(22 * 384), *cw_a = malloc(68 * 384), *cw_b = malloc(68 * 384);
  for (int j = 0; j < 22 * 384; j++) {
    info[j] = (uint8_t)(test_rng_u64() & 1);
    b[j] = (uint8_t)(test_rng_u64() & 1);
  }
  ldpc_encode(&code, info, cw_a);
  ldpc_encode(&code, b, cw_b);
  for (int j = 0; j < 22 * 384; j++) info[j] ^= b[j];
  ldpc_encode(&code, info, cw);
  int lin = 1;
  for (int j = 0; j < 68 * 384; j++) lin &= cw[j] == (cw_a[j] ^ cw_b[j]);
  CHECK(lin, "encoding is not linear");
  free(b);
  free(cw_a);
  free(cw_b);
  free(info);
  free(cw);
  return test_finish("test_ldpc_encode");
}
