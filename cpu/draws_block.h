/* The CPU's draws for a run of consecutive REs of one frame, computed lane
 * by lane in loops the compiler vectorises: Philox4x32-10 on many counters at
 * once, and the Box-Muller normals of core/draws.h on the words. They give
 * bit for bit the numbers of the per-RE steps of core/re.h (re_labels,
 * re_pair_draws, re_channel, re_apply, re_csi), which tests/cpu/
 * test_draws_block.c checks; both backends' layouts (core/draws.h) hold.
 *
 * Addressing as in cpu/channel_cpu.h: a call covers frame-local REs
 * [m0, m0 + n) of `frame`, and element e of local RE i is at ptr[e*ld + i]. */
#ifndef OFDMSIM_DRAWS_BLOCK_H
#define OFDMSIM_DRAWS_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "core/re.h"

/* Draws index0 .. index0 + n - 1 of (purpose, frame) in the stream of key:
 * word k of draw index0 + i at w[k*ldw + i] (Random123's philox4x32_R(10)). */
void rng_block(uint64_t key, uint32_t purpose, uint64_t frame, uint64_t index0, size_t n, uint32_t *w,
               size_t ldw);
/* The same one counter at a time in plain C: rng_block's reference, and its
 * code where the host has no AVX2 (and for a run's last n mod 8 draws). */
void rng_block_gen(uint64_t key, uint32_t purpose, uint64_t frame, uint64_t index0, size_t n, uint32_t *w,
                   size_t ldw);

/* Labels (and the symbols they map to, or the pilots) of the tx streams. */
void block_symbols(const re_ctx *c, uint64_t frame, uint64_t m0, size_t n, uint8_t *labels, cf32 *x, size_t ld);

/* re_pair_draws for n REs: out[e] (+)= scale * CN(0,1) for e < count. */
void block_pair_draws(const re_ctx *c, uint32_t purpose, uint64_t frame, uint64_t m0, size_t n, int count,
                      float scale, int accumulate, cf32 *out, size_t ld);

/* re_channel for n REs (awgn or rayleigh, spatial mixing included). */
void block_channel(const re_ctx *c, const chan_spatial *s, uint64_t frame, uint64_t m0, size_t n, cf32 *H,
                   size_t ld);

/* re_apply for n REs: y = H x + noise. */
void block_apply(const re_ctx *c, uint64_t frame, uint64_t m0, size_t n, const cf32 *H, size_t ldh, const cf32 *x,
                 size_t ldx, cf32 *y, size_t ldy);

/* re_csi for n REs, from H into Hhat (which may be H). */
void block_csi(const re_ctx *c, uint64_t frame, uint64_t m0, size_t n, const cf32 *H, size_t ldh, cf32 *Hhat,
               size_t ldhh);

#endif
