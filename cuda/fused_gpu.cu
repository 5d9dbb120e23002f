/* The fused link: one thread per RE from its draws (or the modem's output) to
 * its bit-error counts, everything in registers and nothing stored on the way
 * but the per-frame, per-stream counters. The per-RE formulas are those of
 * core/re.h, shared with the staged kernels and the CPU, and the algebra is
 * equalizer/smallmat.h. */
#include <stdio.h>

#include "cuda/check.h"
#include "cuda/gpu_internal.cuh"
#include "equalizer/fallback.h"

namespace {

constexpr int kBlock = 256;

/* One RE from its draws to its error counts. The channel is drawn here
 * (rayleigh, awgn) or read from the frame's response table (tdl); y is
 * computed here (frequency domain) or read from the modem's output (time
 * domain); the labels are always redrawn, never stored. */
template <int NT, int NR>
__global__ void __launch_bounds__(kBlock)
    fused_kernel(gpu_link g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ Hk,
                 const cf32 *__restrict__ yt, uint32_t *__restrict__ errors,
                 uint32_t *__restrict__ fallbacks) {
  uint64_t f, m;
  gpu_frame_position(g, &f, &m);
  uint32_t err[NT] = {}; /* zero for threads past the frame's end */
  if (m < g.rf) {
    const uint64_t frame = g.first_frame + f;
    uint32_t lab[NT];
    re_labels(g.re, frame, m, NT, lab);
    cf32 h[NR * NT], yv[NR];
    if (g.hsrc == HSRC_TABLE) {
      gpu_channel_table<NT, NR>(g, Hk, f, m, h);
    } else {
      re_channel(g.re, &c->spatial, frame, m, NT, NR, h);
    }
    if (g.ysrc == YSRC_BUFFER) {
      const cf32 *col = yt + f * (uint64_t)g.rx * g.rf + m;
      OFDM_UNROLL
      for (int r = 0; r < NR; r++)
        yv[r] = r < g.rx ? gpu_load(col + (size_t)r * g.rf) : cf_make(0.0f, 0.0f);
    } else {
      cf32 xv[NT];
      OFDM_UNROLL
      for (int t = 0; t < NT; t++) xv[t] = qam_map(g.bps, lab[t]);
      re_apply(g.re, frame, m, NT, NR, h, xv, yv);
    }
    re_csi(g.re, frame, m, NR * NT, h);
    cf32 gm[NT * NT], zv[NT], gi[NT * NT], xv[NT];
    mat_gram(NR, NT, h, g.diag, gm);
    mat_herm_mulvec(NR, NT, h, yv, zv);
    mat_inv_herm(NT, gm, gi);
    mat_equalize(NT, gi, zv, g.diag, xv);
    if (eq_flagged(xv[0])) {
      /* Rare: solved again in double, out of line. On copies, so that only
       * they (not h, yv, xv, which stay in registers) need an address. */
      cf32 hc[NR * NT], yc[NR], xc[NT];
      OFDM_UNROLL
      for (int e = 0; e < NR * NT; e++) hc[e] = h[e];
      OFDM_UNROLL
      for (int r = 0; r < NR; r++) yc[r] = yv[r];
      eq_solve_double(NR, NT, hc, yc, g.diag, xc);
      OFDM_UNROLL
      for (int t = 0; t < NT; t++) xv[t] = xc[t];
      atomicAdd(&fallbacks[f], 1u);
    }
    OFDM_UNROLL
    for (int t = 0; t < NT; t++) err[t] = re_bit_errors(g.bps, xv[t], lab[t]);
  }
  gpu_count_errors<NT>(err, errors + f * NT);
}

template <int NT, int NR>
struct Fused {
  static int launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                    uint32_t *errors, uint32_t *fallbacks, cudaStream_t s) {
    const int block = gpu_frame_block(g.rf);
    const uint64_t blocks = g.frames * ((g.rf + block - 1) / block);
    fused_kernel<NT, NR><<<(unsigned)blocks, block, 0, s>>>(g, c, Hk, yt, errors, fallbacks);
    CUDA_TRY_LAUNCH("fused_kernel");
    return 0;
  }
};

}  // namespace

int gpu_launch_fused(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                     uint32_t *errors, uint32_t *fallbacks, cudaStream_t s) {
  return gpu_dispatch<Fused>(g.tx, g.rx, g, c, Hk, yt, errors, fallbacks, s);
}

