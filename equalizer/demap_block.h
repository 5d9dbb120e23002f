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

/* A max-log LLR signed towards the sent bit at or above this says the exact
 * LLR of the same symbol and bit, signed the same way, is at least
 * SOFT_LOSS_ZERO_FROM, so that the bit's s = 1 loss is 0 quanta
 * (equalizer/soft.h) without the exact LLR being computed. Why: soft_pam_'s
 * exact magnitude is gap + ln(s_own / s_cnt), where gap is the max-log one
 * and each class's sum of terms at most 1, one of them exactly 1, lies in
 * [1, L/2] for L levels a dimension; so it is at least gap - ln(L/2), and
 * its sign is the max-log one's (the decided bit) once gap exceeds that.
 * The margin of 0.01 covers soft_logf_'s half ulp and the sum's rounding
 * (tests/equalizer/test_demap_block.c checks the claim on every
 * constellation). bps outside {1, 2, 4, 6, 8}: +inf (no shortcut). */
float soft_exact_zero_loss_from(int bps);

#endif
