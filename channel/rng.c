#include "channel/rng.h"

#include <Random123/philox.h>

rng_words philox4x32_10(const uint32_t ctr[4], const uint32_t key[2]) {
  philox4x32_ctr_t c = {{ctr[0], ctr[1], ctr[2], ctr[3]}};
  philox4x32_key_t k = {{key[0], key[1]}};
  philox4x32_ctr_t r = philox4x32_R(10, c, k);
  rng_words out = {{r.v[0], r.v[1], r.v[2], r.v[3]}};
  return out;
}

rng_words rng_draw(uint64_t seed, uint32_t point, uint32_t purpose, uint64_t frame,
                   uint64_t index) {
  const uint64_t sub = rng_subsequence(point, purpose, frame);
  const uint32_t ctr[4] = {(uint32_t)index, (uint32_t)(index >> 32), (uint32_t)sub,
                           (uint32_t)(sub >> 32)};
  const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  return philox4x32_10(ctr, key);
}
