/* Soft demapping of many symbols at once, on the CPU: soft_demap
 * (equalizer/soft.h) with the symbols in the lanes of a vector instead of one
 * symbol at a time, the same values bit for bit (tests/equalizer/
 * test_demap_block.c). The CPU's fused path calls it (cpu/fused_cpu.c); the
 * GPU keeps the per-symbol function. */
#ifndef OFDMSIM_DEMAP_BLOCK_H
#define OFDMSIM_DEMAP_BLOCK_H

#include <stddef.h>

#include "core/cplx.h"

/* llr[k * ld + i] = soft_demap(bps, z[i], var[i], exact, .)[k] for i < n and
 * k < bps (ld >= n), every input soft_demap takes (NaN, infinities, var <= 0)
 * included. */
void soft_demap_block(int bps, size_t n, const cf32 *z, const float *var, int exact, float *llr, size_t ld);

#endif
