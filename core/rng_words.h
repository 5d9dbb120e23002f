/* Draw `index` of (point key, purpose, frame) on either side: cuRAND's raw
 * Philox4x32-10 on the device and Random123's on the host (core/rng.h),
 * bitwise the same words (the layouts are core/draws.h's). */
#ifndef OFDMSIM_RNG_WORDS_H
#define OFDMSIM_RNG_WORDS_H

#include <stdint.h>

#include "core/draws.h"
#include "core/rng.h"
#ifdef __CUDACC__
#include <curand_kernel.h>
#endif

OFDM_HD rng_words rng_words_at(uint64_t key, uint32_t purpose, uint64_t frame, uint64_t index) {
#ifdef __CUDA_ARCH__
  const uint64_t sub = rng_subsequence(purpose, frame);
  const uint4 ctr = make_uint4((uint32_t)index, (uint32_t)(index >> 32), (uint32_t)sub,
                               (uint32_t)(sub >> 32));
  const uint4 r = curand_Philox4x32_10(ctr, make_uint2((uint32_t)key, (uint32_t)(key >> 32)));
  rng_words w;
  w.w[0] = r.x;
  w.w[1] = r.y;
  w.w[2] = r.z;
  w.w[3] = r.w;
  return w;
#else
  return rng_draw(key, purpose, frame, index);
#endif
}

#endif
