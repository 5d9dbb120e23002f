/* The CPU side of the random streams (see draws.h): Random123's Philox4x32-10,
 * bit-identical to cuRAND's Philox4_32_10 for the same key and counter. */
#ifndef OFDMSIM_RNG_H
#define OFDMSIM_RNG_H

#include <math.h>
/* cuRAND's curand_kernel.h also defines a global mulhilo32: Random123's is
 * renamed while its header is read, so a .cu file may include both. */
#define mulhilo32 r123_mulhilo32
#include <Random123/philox.h>
#undef mulhilo32

#include "core/draws.h"

/* The four words of draw `index` of (purpose, frame) in the stream of Philox
 * key `key` (rng_key of the point). Inline: it sits in the innermost loop of
 * every draw. */
static inline rng_words rng_draw(uint64_t key, uint32_t purpose, uint64_t frame, uint64_t index) {
  const uint64_t sub = rng_subsequence(purpose, frame);
  philox4x32_ctr_t c = {{(uint32_t)index, (uint32_t)(index >> 32), (uint32_t)sub, (uint32_t)(sub >> 32)}};
  philox4x32_key_t k = {{(uint32_t)key, (uint32_t)(key >> 32)}};
  const philox4x32_ctr_t r = philox4x32_R(10, c, k);
  rng_words out = {{r.v[0], r.v[1], r.v[2], r.v[3]}};
  return out;
}

/* Draws index0 .. index0 + n - 1 of (purpose, frame), word k of draw
 * index0 + i at w[k*ldw + i]: rng_draw's words, one counter a lane in 32-bit
 * words (Philox4x32-10 with Random123's constants), a loop gcc vectorises
 * at -O3. Inline so that the channel layer's loops get it too (the CPU
 * backend's rng_block adds intrinsics on top). */
static inline void rng_draw_run(uint64_t key, uint32_t purpose, uint64_t frame, uint64_t index0, size_t n,
                                uint32_t *w, size_t ldw) {
  const uint64_t sub = rng_subsequence(purpose, frame);
  const uint32_t c2 = (uint32_t)sub, c3 = (uint32_t)(sub >> 32);
  const uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
  for (size_t i = 0; i < n; i++) {
    const uint64_t idx = index0 + i;
    uint32_t x0 = (uint32_t)idx, x1 = (uint32_t)(idx >> 32), x2 = c2, x3 = c3, a = k0, b = k1;
    for (int r = 0; r < 10; r++) {
      const uint64_t p0 = (uint64_t)0xD2511F53u * x0, p1 = (uint64_t)0xCD9E8D57u * x2;
      const uint32_t y0 = (uint32_t)(p1 >> 32) ^ x1 ^ a, y2 = (uint32_t)(p0 >> 32) ^ x3 ^ b;
      x1 = (uint32_t)p1;
      x3 = (uint32_t)p0;
      x0 = y0;
      x2 = y2;
      a += 0x9E3779B9u;
      b += 0xBB67AE85u;
    }
    w[i] = x0;
    w[ldw + i] = x1;
    w[2 * ldw + i] = x2;
    w[3 * ldw + i] = x3;
  }
}

#endif
