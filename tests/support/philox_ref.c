/* Random123's Philox4x32-10 compiled once: the tests' reference (philox_ref.h). */
#include "philox_ref.h"

#include "core/rng.h"

rng_words philox4x32_10(const uint32_t ctr[4], const uint32_t key[2]) {
  philox4x32_ctr_t c = {{ctr[0], ctr[1], ctr[2], ctr[3]}};
  philox4x32_key_t k = {{key[0], key[1]}};
  philox4x32_ctr_t r = philox4x32_R(10, c, k);
  rng_words out = {{r.v[0], r.v[1], r.v[2], r.v[3]}};
  return out;
}
