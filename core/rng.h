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

#endif
