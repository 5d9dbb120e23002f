/* The set bits of a word, one instruction on either compiler (popc on the
 * GPU, popcnt or its libgcc fallback on the CPU). */
#ifndef OFDMSIM_POPCOUNT_H
#define OFDMSIM_POPCOUNT_H

#include <stdint.h>

#include "core/cplx.h"

OFDM_HD uint32_t ofdm_popcount(uint32_t w) {
#ifdef __CUDA_ARCH__
  return (uint32_t)__popc(w);
#else
  return (uint32_t)__builtin_popcount(w);
#endif
}

#endif
