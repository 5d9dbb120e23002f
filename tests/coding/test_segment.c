/* Code block segmentation against examples worked by hand from 38.212 5.2.2,
 * and the blocks' contents (payload, CRC24B, fillers). */
#include <stdlib.h>
#include <string.h>

#include "coding/segment.h"
#include "testutil.h"

typedef struct {
  int a, bg;
  int tb_crc, c, cb_crc, k_prime, kb, zc, k, f;
} seg_case;

/* Each line: B = A + L_TB; C = 1 when B <= Kcb (8448 / 3840), else
 * ceil(B / (Kcb - 24)); K' = (B + 24 C [C > 1]) / C; Kb 22 (BG1) or by B
 * (BG2: > 640: 10, > 560: 9, > 192: 8, else 6); Zc the smallest lifting
 * size with Kb Zc >= K'; K = 22 or 10 Zc; F = K - K'. */
static const seg_case cases[] = {
    /* A 100, BG2: B 116 <= 192: Kb 6, K' 116, Zc >= 19.3: 20, K 200, F 84 */
    {100, 2, 16, 1, 0, 116, 6, 20, 200, 84},
    /* A 400, BG2: B 416: Kb 8, Zc >= 52: 52, K 520, F 104 */
    {400, 2, 16, 1, 0, 416, 8, 52, 520, 104},
    /* A 600, BG2: B 616: Kb 9, Zc >= 68.4: 72, K 720, F 104 */
    {600, 2, 16, 1, 0, 616, 9, 72, 720, 104},
    /* A 1000, BG2: B 1016: Kb 10, Zc >= 101.6: 104, K 1040, F 24 */
    {1000, 2, 16, 1, 0, 1016, 10, 104, 1040, 24},
    /* A 8424, BG1: B 8448 = Kcb: one block, Zc 384, no fillers */
    {8424, 1, 24, 1, 0, 8448, 22, 384, 8448, 0},
    /* A 16824, BG1: B 16848, C = ceil(16848/8424) = 2, K' = (16848+48)/2 = 8448, F 0 */
    {16824, 1, 24, 2, 24, 8448, 22, 384, 8448, 0},
    /* A 213176, BG1: B 213200, C = ceil(213200/8424) = 26, B' 213824, K' 8224,
     * Zc >= 373.8: 384, F = 8448 - 8224 = 224 */
    {213176, 1, 24, 26, 24, 8224, 22, 384, 8448, 224},
    /* A 9984, BG2: B 10008, C = ceil(10008/3816) = 3, B' 10080, K' 3360,
     * Zc >= 336: 352, K 3520, F 160 */
    {9984, 2, 24, 3, 24, 3360, 10, 352, 3520, 160},
    /* A 3824, BG1: CRC16, B 3840, Zc >= 174.5: 176, K 3872, F 32 */
    {3824, 1, 16, 1, 0, 3840, 22, 176, 3872, 32},
};

int main(void) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const seg_case *w = &cases[i];
    ldpc_segmentation s;
    const int rc = ldpc_segment(w->a, w->bg, &s);
    CHECK(rc == 0 && s.tb_crc == w->tb_crc && s.b == w->a + w->tb_crc && s.c == w->c && s.cb_crc == w->cb_crc &&
              s.k_prime == w->k_prime && s.kb == w->kb && s.zc == w->zc && s.k == w->k && s.f == w->f &&
              s.n == (w->bg == 1 ? 66 : 50) * w->zc,
          "A %d BG%d: C %d L %d K' %d Kb %d Zc %d K %d F %d", w->a, w->bg, s.c, s.cb_crc, s.k_prime, s.kb, s.zc, s.k,
          s.f);
    if (rc != 0) continue;

    /* The blocks: each holds its share of the TB, checks with CRC24B when
     * C > 1, ends in F zeros; together the shares are the TB with its CRC. */
    test_rng_seed(1000 + i);
    uint8_t *tb = malloc((size_t)s.b), *back = malloc((size_t)s.b), *blk = malloc((size_t)s.k);
    for (int j = 0; j < s.a; j++) tb[j] = (uint8_t)(test_rng_u64() & 1);
    crc_attach(ldpc_tb_crc_kind(&s), tb, (size_t)s.a);
    int ok = 1;
    const int payload = s.k_prime - s.cb_crc;
    for (int r = 0; r < s.c; r++) {
      memset(blk, 7, (size_t)s.k);
      ldpc_segment_block(&s, tb, r, blk);
      if (s.c > 1) ok &= crc_check(CRC24B, blk, (size_t)s.k_prime);
      /* the one-bit-at-a-time form the device encoder reads blocks by */
      const uint32_t rem = s.cb_crc ? crc_remainder(CRC24B, tb + (size_t)r * payload, (size_t)payload) : 0;
      for (int j = 0; j < s.k; j++) ok &= ldpc_segment_block_bit(&s, tb, r, rem, j) == blk[j];
      for (int j = s.k_prime; j < s.k; j++) ok &= blk[j] == 0;
      memcpy(back + (size_t)r * payload, blk, (size_t)payload);
    }
    ok &= memcmp(back, tb, (size_t)s.b) == 0 && crc_check(ldpc_tb_crc_kind(&s), back, (size_t)s.b);
    CHECK(ok, "A %d BG%d: block contents", w->a, w->bg);
    free(tb);
    free(back);
    free(blk);
  }
  ldpc_segmentation s;
  CHECK(ldpc_segment(0, 1, &s) == -1 && ldpc_segment(100, 3, &s) == -1, "bad input accepted");
  /* A 16825, BG1: B 16849, C 3, B' 16921: not divisible by 3 (no 38.214
   * TBS is like that): refused. */
  CHECK(ldpc_segment(16825, 1, &s) == -1, "indivisible B' accepted");
  return test_finish("test_segment");
}
