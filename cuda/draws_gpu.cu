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

/* Labels, symbols (or pilots), the true channel and the receiver's estimate
 * of it. */
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
  cf32 sym[NT];
  re_labels(g.re, frame, m, NT, lab);
  re_symbols(g.re, m, NT, lab, sym);
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) {
    labels[(size_t)t * g.R + i] = (uint8_t)lab[t];
    gpu_store(x + (size_t)t * g.R + i, sym[t]);
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
  const rng_words w = re_draw(g.re, RNG_TAPS, tdl_drop_frame(g.fade, g.first_frame + f), qp);
  cf32 *out = taps + f * total;
  out[q] = cf_scale(rng_cnormal_of(w, 0), c->amp[q % g.L]);
  if (q + 1 < total) out[q + 1] = cf_scale(rng_cnormal_of(w, 1), c->amp[(q + 1) % g.L]);
}

/* Spatial correlation across the antenna pairs of each tap, the LOS path on
 * the taps that have one: one thread a (frame, tap), as tdl_draw_taps. */
__global__ void __launch_bounds__(kBlock)
    taps_mix_kernel(gpu_link g, const gpu_consts *__restrict__ c, cf32 *__restrict__ taps) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.frames * (uint64_t)g.L) return;
  const uint64_t f = j / g.L;
  const int l = (int)(j - f * g.L);
  cf32 *t = taps + f * (uint64_t)g.links * g.L;
  cf32 h[LINK_MAX_RX * LINK_MAX_TX];
  for (int e = 0; e < g.links; e++) h[e] = t[e * g.L + l];
  if (c->spatial.correlated) chan_spatial_mix(&c->spatial, h, 0, c->amp[l]);
  if (g.fade.los_amp[l] > 0.0f)
    for (int e = 0; e < g.links; e++) h[e] = tdl_add_los(h[e], g.fade.los_amp[l]);
  for (int e = 0; e < g.links; e++) t[e * g.L + l] = h[e];
}

/* Doppler: the sinusoids of every (frame, antenna pair, tap), and tap 0's
 * thread the frame's LOS term after them, as tdl_draw_sos; with win (the
 * frequency domain) their window factors too, once a frame instead of once
 * a symbol in symbol_link_taps_kernel (two double sines a term: they were most
 * of that kernel's work). */
__global__ void __launch_bounds__(kBlock)
    sos_kernel(gpu_link g, sos_term *__restrict__ sos, float *__restrict__ win) {
  const uint64_t total = (uint64_t)g.links * g.L;
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.frames * total) return;
  const uint64_t f = j / total;
  const int q = (int)(j - f * total);
  sos_term *frame_terms = sos + f * g.fade_terms;
  tdl_sos_terms(g.re, g.fade, g.first_frame + f, q, frame_terms + (uint64_t)q * TDL_SOS_TERMS);
  if (q == 0) frame_terms[g.fade_terms - 1] = tdl_los_term(g.fade, g.first_frame + f);
  if (!win) return;
  float *frame_win = win + f * g.fade_terms;
  tdl_window_factors(frame_terms, (size_t)q * TDL_SOS_TERMS, TDL_SOS_TERMS, g.K, frame_win);
  if (q == 0) tdl_window_factors(frame_terms, g.fade_terms - 1, 1, g.K, frame_win);
}

/* Doppler: every symbol's window-averaged taps, taps[((f*S + s)*links + e)*L
 * + l], as tdl_symbol_taps, in two steps. First each link's sinusoids, one
 * thread a (frame, symbol, link, tap): a thread a (frame, symbol, tap) for
 * all of a tap's links had too few threads for the machine (10,496 on the
 * H200 bench batch of 4x4 TDL-A: 12% achieved occupancy, 23% of the batch's
 * GPU time). */
__global__ void __launch_bounds__(kBlock)
    symbol_link_taps_kernel(gpu_link g, const gpu_consts *__restrict__ c, const sos_term *__restrict__ sos,
                            const float *__restrict__ win, cf32 *__restrict__ taps) {
  const uint64_t per = (uint64_t)g.links * g.L;
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.frames * (uint64_t)g.S * per) return;
  const uint64_t fs = j / per, f = fs / g.S;
  const int q = (int)(j - fs * per), e = q / g.L, l = q - e * g.L, sym = (int)(fs - f * g.S);
  taps[j] = tdl_fading_link_value(g.fade, sos + f * g.fade_terms, win ? win + f * g.fade_terms : NULL, l, e, c->amp[l],
                                  tdl_symbol_centre(sym, g.K, g.cp_frame), g.K);
}

/* Then, on the taps with spatial mixing or a line of sight, the mixing, one
 * thread a (frame, symbol, tap), as tdl_fading_taps_win's second step. */
__global__ void __launch_bounds__(kBlock)
    symbol_mix_kernel(gpu_link g, const gpu_consts *__restrict__ c, const sos_term *__restrict__ sos,
                      const float *__restrict__ win, cf32 *__restrict__ taps) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.frames * (uint64_t)g.S * g.L) return;
  const uint64_t fs = j / g.L, f = fs / g.S;
  const int l = (int)(j - fs * g.L), sym = (int)(fs - f * g.S);
  if (!tdl_fading_needs_mix(g.fade, &c->spatial, l)) return;
  cf32 *t = taps + fs * (uint64_t)g.links * g.L;
  cf32 h[LINK_MAX_RX * LINK_MAX_TX];
  for (int e = 0; e < g.links; e++) h[e] = t[e * g.L + l];
  tdl_fading_mix(g.fade, &c->spatial, sos + f * g.fade_terms, win ? win + f * g.fade_terms : NULL, l, c->amp[l],
                 tdl_symbol_centre(sym, g.K, g.cp_frame), g.K, h);
  for (int e = 0; e < g.links; e++) t[e * g.L + l] = h[e];
}

/* cdl: ray n*CDL_RAYS + m of every frame's terms, as cdl_draw_terms. One
 * thread a (frame, cluster, ray). */
__global__ void __launch_bounds__(kBlock)
    cdl_terms_kernel(gpu_link g, const gpu_consts *__restrict__ c, sos_term *__restrict__ sos) {
  const uint64_t per = (uint64_t)g.L * CDL_RAYS;
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.frames * per) return;
  const uint64_t f = j / per, nm = j - f * per;
  float *terms = (float *)(sos + f * g.fade_terms);
  cdl_ray_terms(&c->cdl, g.re, g.first_frame + f, (int)(nm / CDL_RAYS), (int)(nm % CDL_RAYS), terms + nm,
                cdl_terms_amp(terms, g.L) + nm, per);
}

/* cdl: every link's clusters at t = 0 (no Doppler: the frame's taps), or
 * averaged over each symbol's FFT window, taps[((f*S' + s)*links + e)*L + l]
 * as tdl_symbol_taps. One thread a (frame, symbol, cluster). */
__global__ void __launch_bounds__(kBlock)
    cdl_taps_kernel(gpu_link g, const sos_term *__restrict__ sos, cf32 *__restrict__ taps) {
  const int S = g.fading ? g.S : 1;
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.frames * (uint64_t)S * g.L) return;
  const uint64_t fs = j / g.L, f = fs / S;
  const int l = (int)(j - fs * g.L), sym = (int)(fs - f * S);
  cf32 h[LINK_MAX_RX * LINK_MAX_TX];
  const double t = g.fading ? tdl_symbol_centre(sym, g.K, g.cp_frame) : 0.0;
  cdl_taps_at((const float *)(sos + f * g.fade_terms), g.L, g.links, l, t, g.fading ? g.K : 0, h);
  cf32 *out = taps + fs * (uint64_t)g.links * g.L;
  for (int e = 0; e < g.links; e++) out[e * g.L + l] = h[e];
}

/* The response Hk[(f*links + e)*span + s*K + k] = sum_l taps[((f*S' + s)*links
 * + e)*L + l] resp[l*K + k] (S' = 1 without Doppler), in tap order with
 * cf_fma_exact as tdl_response: the same sum, in the same order, for any
 * tiling below.
 *
 * A block of kRespTile threads takes kRespTile subcarriers of one (frame,
 * symbol, group of G links): blockIdx.x the (frame, symbol, group), blockIdx.y
 * the tile of subcarriers. The group's taps go to shared memory first,
 * [l][q] (a tap's G links side by side, zeros past the last link), so that
 * a thread reads a tap's G values with G/2 128-bit shared loads and each
 * resp word once for the group: per tap and link 4 FFMA and about one other
 * instruction. The kernel this replaces took one thread a (frame, group,
 * symbol, k) over a flat index and read each tap from global memory: per
 * tap and link a 64-bit address, a global load and a branch on the group's
 * size beside the 4 FFMA, 15.9 instructions (Nsight Compute on the H200:
 * 2,924 a thread of 8 outputs on TDL-A's 23 taps), where the Doppler path's
 * response a symbol is 69% of its GPU time.
 *
 * G = 8 where the grid fills the machine twice over at that size (Doppler's
 * response a symbol); G = 2 otherwise: a frame's single response with G = 8
 * gave the H200's bench batch of 4x4 TDL-A 65,536 threads, 24% achieved
 * occupancy and a third of the ideal link's GPU time. */
constexpr int kRespLinksWide = 8, kRespLinksNarrow = 2, kRespTile = 128;

template <int G>
__global__ void __launch_bounds__(kRespTile)
    response_kernel(gpu_link g, const cf32 *__restrict__ taps, const cf32 *__restrict__ resp,
                    cf32 *__restrict__ Hk) {
  static_assert(G % 2 == 0, "taps are read two links at a time");
  __shared__ __align__(16) cf32 st[TDL_MAX_TAPS * G];
  const int L = g.L, K = g.K;
  const unsigned groups = (unsigned)(g.links + G - 1) / G, S = (unsigned)(g.hk_span / (uint64_t)K);
  const uint64_t span = g.hk_span;
  /* blockIdx.x = (f*S' + s)*groups + group: 32-bit, a batch has fewer
     than 2^25 REs */
  const unsigned fs = blockIdx.x / groups;
  const int e0 = (int)(blockIdx.x - fs * groups) * G;
  const unsigned f = fs / S, sym = fs - f * S;
  const int n = g.links - e0 < G ? g.links - e0 : G;
  /* 1. the group's taps, transposed to [l][q], zeros for q >= n */
  const cf32 *t = taps + ((uint64_t)fs * g.links + e0) * L;
  for (int i = threadIdx.x; i < G * L; i += kRespTile) {
    const int q = i / L, l = i - q * L;
    st[l * G + q] = q < n ? t[i] : cf_make(0.0f, 0.0f);
  }
  __syncthreads();
  const int k = (int)blockIdx.y * kRespTile + (int)threadIdx.x;
  if (k >= K) return;
  /* 2. the sums, one resp word and G/2 shared loads a tap */
  cf32 acc[G];
  OFDM_UNROLL
  for (int q = 0; q < G; q++) acc[q] = cf_make(0.0f, 0.0f);
  const cf32 *r = resp + k;
  const float4 *sp = reinterpret_cast<const float4 *>(st);
  for (int l = 0; l < L; l++, r += K, sp += G / 2) {
    const cf32 rv = gpu_load(r);
    OFDM_UNROLL
    for (int q = 0; q < G / 2; q++) {
      const float4 v = sp[q];
      acc[2 * q] = cf_fma_exact(acc[2 * q], cf_make(v.x, v.y), rv);
      acc[2 * q + 1] = cf_fma_exact(acc[2 * q + 1], cf_make(v.z, v.w), rv);
    }
  }
  /* 3. the group's outputs */
  cf32 *out = Hk + ((uint64_t)f * g.links + e0) * span + (uint64_t)sym * K + k;
  OFDM_UNROLL
  for (int q = 0; q < G; q++)
    if (q < n) gpu_store(out + (uint64_t)q * span, acc[q]);
}

template <int G>
void launch_response(const gpu_link &g, const gpu_tdl &t, cudaStream_t s) {
  const uint64_t groups = (uint64_t)(g.links + G - 1) / G;
  const dim3 grid((unsigned)(g.frames * (g.hk_span / g.K) * groups), (unsigned)((g.K + kRespTile - 1) / kRespTile));
  response_kernel<G><<<grid, kRespTile, 0, s>>>(g, t.taps, t.resp, t.Hk);
}

/* The modem's discrete taps, d[(f*links + e)*n + j] = sum_l coef[j*L + l]
 * taps[(f*links + e)*L + l], as tdl_discrete_taps. */
__global__ void __launch_bounds__(kBlock)
    discrete_taps_kernel(gpu_link g, const cf32 *__restrict__ taps, const float *__restrict__ coef,
                         cf32 *__restrict__ d) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t n = (uint64_t)g.td_taps;
  if (j >= g.frames * g.links * n) return;
  const uint64_t fe = j / n, jj = j - fe * n;
  const cf32 *t = taps + fe * g.L;
  cf32 acc = cf_make(0.0f, 0.0f);
  for (int l = 0; l < g.L; l++) acc = cf_fma_real(acc, __ldg(coef + jj * g.L + l), t[l]);
  d[j] = acc;
}

/* Whether any tap has a line of sight. */
bool any_los(const gpu_link &g) {
  for (int l = 0; l < g.L; l++)
    if (g.fade.los_amp[l] > 0.0f) return true;
  return false;
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

int gpu_launch_taps(const gpu_link &g, const gpu_consts *c, const gpu_tdl &t, cudaStream_t s) {
  if (g.cdl) {
    cdl_terms_kernel<<<gpu_blocks(g.frames * (uint64_t)g.L * CDL_RAYS, kBlock), kBlock, 0, s>>>(g, c, t.sos);
    CUDA_TRY_LAUNCH("cdl_terms_kernel");
    const uint64_t S = g.fading ? (uint64_t)g.S : 1;
    cdl_taps_kernel<<<gpu_blocks(g.frames * S * g.L, kBlock), kBlock, 0, s>>>(g, t.sos, t.taps);
    CUDA_TRY_LAUNCH("cdl_taps_kernel");
  } else if (g.fading) {
    const uint64_t n = g.frames * (uint64_t)g.links * g.L;
    sos_kernel<<<gpu_blocks(n, kBlock), kBlock, 0, s>>>(g, t.sos, t.win);
    CUDA_TRY_LAUNCH("sos_kernel");
    const uint64_t symbol_taps = g.frames * (uint64_t)g.S * g.L;
    symbol_link_taps_kernel<<<gpu_blocks(symbol_taps * g.links, kBlock), kBlock, 0, s>>>(g, c, t.sos, t.win, t.taps);
    CUDA_TRY_LAUNCH("symbol_link_taps_kernel");
    if (g.re.spatial || any_los(g)) {
      symbol_mix_kernel<<<gpu_blocks(symbol_taps, kBlock), kBlock, 0, s>>>(g, c, t.sos, t.win, t.taps);
      CUDA_TRY_LAUNCH("symbol_mix_kernel");
    }
  } else {
    const uint64_t pairs = ((uint64_t)g.links * g.L + 1) / 2;
    taps_draw_kernel<<<gpu_blocks(g.frames * pairs, kBlock), kBlock, 0, s>>>(g, c, t.taps);
    CUDA_TRY_LAUNCH("taps_draw_kernel");
    if (g.re.spatial || any_los(g)) {
      taps_mix_kernel<<<gpu_blocks(g.frames * g.L, kBlock), kBlock, 0, s>>>(g, c, t.taps);
      CUDA_TRY_LAUNCH("taps_mix_kernel");
    }
  }
  /* threads resident at once: 53 registers a thread (56 allocated) allow 1,152 a SM */
  const uint64_t resident = (uint64_t)(g.sm_count > 0 ? g.sm_count : 128) * 1152;
  const uint64_t wide = g.frames * (uint64_t)((g.links + kRespLinksWide - 1) / kRespLinksWide) * g.hk_span;
  if (wide >= 2 * resident) launch_response<kRespLinksWide>(g, t, s);
  else launch_response<kRespLinksNarrow>(g, t, s);
  CUDA_TRY_LAUNCH("response_kernel");
  if (t.dtaps) {
    discrete_taps_kernel<<<gpu_blocks(g.frames * g.links * (uint64_t)g.td_taps, kBlock), kBlock, 0, s>>>(
        g, t.taps, t.td_coef, t.dtaps);
    CUDA_TRY_LAUNCH("discrete_taps_kernel");
  }
  return 0;
}
