/* Code block segmentation, 38.212 5.2.2. */
#include "coding/segment.h"

#include <string.h>

#include "coding/ldpc_graph.h"

int ldpc_segment(int tbs, int bg, ldpc_segmentation *s) {
  if (tbs < 1 || (bg != 1 && bg != 2)) return -1;
  memset(s, 0, sizeof *s);
  s->a = tbs;
  s->bg = bg;
  s->tb_crc = tbs > 3824 ? 24 : 16;
  s->b = tbs + s->tb_crc;
  const int kcb = bg == 1 ? 8448 : 3840;
  if (s->b <= kcb) {
    s->cb_crc = 0;
    s->c = 1;
  } else {
    /* Every block carries its own CRC24B, so a block holds Kcb - 24 TB bits. */
    s->cb_crc = 24;
    s->c = (s->b + (kcb - 24) - 1) / (kcb - 24);
  }
  const int b_prime = s->b + s->c * s->cb_crc;
  /* 5.2.2 defines K' = B'/C only for a B' that C divides; every TBS of
   * 38.214 5.1.3.2 is one (its step 4 rounds to whole blocks), others are
   * refused. */
  if (b_prime % s->c) return -1;
  s->k_prime = b_prime / s->c;
  if (bg == 1)
    s->kb = 22;
  else
    s->kb = s->b > 640 ? 10 : s->b > 560 ? 9 : s->b > 192 ? 8 : 6;
  s->zc = ldpc_lifting_at_least((s->k_prime + s->kb - 1) / s->kb);
  if (s->zc < 0) return -1;
  s->k = (bg == 1 ? 22 : 10) * s->zc;
  s->f = s->k - s->k_prime;
  s->n = (bg == 1 ? 66 : 50) * s->zc;
  return 0;
}

void ldpc_segment_block(const ldpc_segmentation *s, const uint8_t *tb_with_crc, int r, uint8_t *block) {
  const int payload = s->k_prime - s->cb_crc;
  memcpy(block, tb_with_crc + (size_t)r * payload, (size_t)payload);
  if (s->cb_crc) crc_attach(CRC24B, block, (size_t)payload);
  memset(block + s->k_prime, 0, (size_t)s->f);
}
