/* The staged mode's transmitter and channel stages (one thread per RE over the
 * batch's SoA stacks) and the multipath taps of a batch (both modes). The
 * per-RE formulas are those of core/re.h, which the fused kernel and the CPU
 * share. */
#include <stdio.h>

#include "cuda/check.h"
#include "cuda/gpu_internal.cuh"

namespace {

constexpr int kBlock = 256;

/* RE i of the batch -> its frame (batch-local) and frame-local index. */
__device__ __forceinline__ void gpu_split(const gpu_link &g, uint64_t i, uint64_t *f,
                                          uint64_t *m) {
  *f = i / g.rf;
  *m = i - *f * g.rf;
}

/* Labels, symbols, the true channel and the receiver's estimate of it. */
template <int NT, int NR>
__global__ void __launch_bounds__(kBlock)
    draw_stage_kernel(gpu_link g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ Hk,
                      uint8_t *__restrict__ labels, cf32 *__restrict__ x, cf32 *__restrict__ H,
                      cf32 *__restrict__ Hhat) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= g.R) return;
  uint64_t f, m;
  gpu_split(g, i, &f, &m);
  const uint64_t frame = g.first_frame + f;
  uint32_t lab[NT];
  re_labels(g.re, frame, m, NT, lab);
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) {
    labels[(size_t)t * g.R + i] = (uint8_t)lab[t];
    gpu_store(x + (size_t)t * g.R + i, qam_map(g.bps, lab[t]));
  }
  cf32 h[NR * NT];
  if (g.model == CH_TDL) {
    gpu_channel_table<NT, NR>(g, Hk, f, m, h);
  } else {
    cf32 scratch[NR * NT];
    re_channel(g.re, &c->spatial, frame, m, NT, NR, h, scratch);
  }
  OFDM_UNROLL
  for (int e = 0; e < NR * NT; e++)
    if (e < g.links) gpu_store(H + (size_t)e * g.R + i, h[e]);
  if (Hhat) {
    re_csi(g.re, frame, m, NR * NT, h);
    OFDM_UNROLL
    for (int e = 0; e < NR * NT; e++)
      if (e < g.links) gpu_store(Hhat + (size_t)e * g.R + i, h[e]);
  }
}

/* y = H x + n over the stacks. */
template <int NT, int NR>
__global__ void __launch_bounds__(kBlock)
    channel_stage_kernel(gpu_link g, const cf32 *__restrict__ H, const cf32 *__restrict__ x,
                         cf32 *__restrict__ y) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= g.R) return;
  uint64_t f, m;
  gpu_split(g, i, &f, &m);
  cf32 h[NR * NT], xv[NT], yv[NR];
  OFDM_UNROLL
  for (int e = 0; e < NR * NT; e++)
    h[e] = e < g.links ? gpu_load(H + (size_t)e * g.R + i) : cf_make(0.0f, 0.0f);
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) xv[t] = gpu_load(x + (size_t)t * g.R + i);
  re_apply(g.re, g.first_frame + f, m, NT, NR, h, xv, yv);
  OFDM_UNROLL
  for (int r = 0; r < NR; r++)
    if (r < g.rx) gpu_store(y + (size_t)r * g.R + i, yv[r]);
}

template <int NT, int NR>
struct DrawStage {
  static int launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, uint8_t *labels,
                    cf32 *x, cf32 *H, cf32 *Hhat, cudaStream_t s) {
    draw_stage_kernel<NT, NR><<<gpu_blocks(g.R, kBlock), kBlock, 0, s>>>(g, c, Hk, labels, x, H,
                                                                        Hhat);
    CUDA_TRY_LAUNCH("draw_stage_kernel");
    return 0;
  }
};

template <int NT, int NR>
struct ChannelStage {
  static int launch(const gpu_link &g, const cf32 *H, const cf32 *x, cf32 *y, cudaStream_t s) {
    channel_stage_kernel<NT, NR><<<gpu_blocks(g.R, kBlock), kBlock, 0, s>>>(g, H, x, y);
    CUDA_TRY_LAUNCH("channel_stage_kernel");
    return 0;
  }
};

/* Taps of the batch, taps[(f*links + e)*L + l] ~ CN(0, power[l]): RNG_TAPS
 * index q/2 for q = e*L + l, as tdl_draw_taps. One thread a pair of taps. */
__global__ void __launch_bounds__(kBlock)
    taps_draw_kernel(gpu_link g, const gpu_consts *__restrict__ c, cf32 *__restrict__ taps) {
  const uint64_t total = (uint64_t)g.links * g.L, pairs = (total + 1) / 2;
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.frames * pairs) return;
  const uint64_t f = j / pairs, qp = j - f * pairs, q = 2 * qp;
  const rng_words w = re_draw(g.re, RNG_TAPS, g.first_frame + f, qp);
  cf32 *out = taps + f * total;
  out[q] = cf_scale(rng_cnormal_of(w, 0), c->amp[q % g.L]);
  if (q + 1 < total) out[q + 1] = cf_scale(rng_cnormal_of(w, 1), c->amp[(q + 1) % g.L]);
}

/* Spatial correlation across the antenna pairs of each tap, Rician on tap 0:
 * one thread a (frame, tap), through the shared chan_spatial_mix. */
__global__ void __launch_bounds__(kBlock)
    taps_mix_kernel(gpu_link g, const gpu_consts *__restrict__ c, cf32 *__restrict__ taps) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.frames * (uint64_t)g.L) return;
  const uint64_t f = j / g.L;
  const int l = (int)(j - f * g.L);
  cf32 *t = taps + f * (uint64_t)g.links * g.L;
  cf32 h[LINK_MAX_RX * LINK_MAX_TX];
  for (int e = 0; e < g.links; e++) h[e] = t[e * g.L + l];
  chan_spatial_mix(&c->spatial, h, l == 0, c->amp[l]);
  for (int e = 0; e < g.links; e++) t[e * g.L + l] = h[e];
}

/* The delay line on the K-point grid, Hk[(f*links + e)*K + d mod K] += tap,
 * zeroed beforehand: the input of the forward transforms that give the
 * per-subcarrier response (tdl_freq_response's layout and aliasing). */
__global__ void __launch_bounds__(kBlock)
    taps_place_kernel(gpu_link g, const gpu_consts *__restrict__ c,
                      const cf32 *__restrict__ taps, cf32 *__restrict__ Hk) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.frames * (uint64_t)g.links) return;
  const cf32 *t = taps + j * g.L;
  cf32 *row = Hk + j * g.K;
  for (int l = 0; l < g.L; l++) {
    const int d = c->delay[l] % g.K;
    row[d] = cf_add(row[d], t[l]);
  }
}

}  // namespace

int gpu_launch_draw_stage(const gpu_link &g, const gpu_consts *c, const cf32 *Hk,
                          uint8_t *labels, cf32 *x, cf32 *H, cf32 *Hhat, cudaStream_t s) {
  return gpu_dispatch<DrawStage>(g.tx, g.rx, g, c, Hk, labels, x, H, Hhat, s);
}

int gpu_launch_channel_stage(const gpu_link &g, const cf32 *H, const cf32 *x, cf32 *y,
                             cudaStream_t s) {
  return gpu_dispatch<ChannelStage>(g.tx, g.rx, g, H, x, y, s);
}

int gpu_launch_taps(const gpu_link &g, const gpu_consts *c, cf32 *taps, cf32 *Hk,
                    cudaStream_t s) {
  const uint64_t pairs = ((uint64_t)g.links * g.L + 1) / 2;
  taps_draw_kernel<<<gpu_blocks(g.frames * pairs, kBlock), kBlock, 0, s>>>(g, c, taps);
  CUDA_TRY_LAUNCH("taps_draw_kernel");
  if (g.re.spatial) {
    taps_mix_kernel<<<gpu_blocks(g.frames * g.L, kBlock), kBlock, 0, s>>>(g, c, taps);
    CUDA_TRY_LAUNCH("taps_mix_kernel");
  }
  CUDA_TRY(cudaMemsetAsync(Hk, 0, sizeof(cf32) * g.frames * g.links * g.K, s));
  taps_place_kernel<<<gpu_blocks(g.frames * g.links, kBlock), kBlock, 0, s>>>(g, c, taps, Hk);
  CUDA_TRY_LAUNCH("taps_place_kernel");
  return 0;
}
