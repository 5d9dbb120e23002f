/* Private to the CUDA backend (cuda/backend_cuda.cu, draws_gpu.cu, ofdm_gpu.cu,
 * receiver_gpu.cu): the batch description every kernel takes by value, the
 * per-RE random draws (the GPU side of channel/draws.h), and the launchers
 * each .cu file offers the backend.
 *
 * Layouts in device memory, R = frames * R_f REs in the batch, i = f*R_f + m:
 *   SoA stacks   element e of RE i at base[e*R + i] (DESIGN.md), as the CPU.
 *   frame-major  per frame f and antenna a, the frame's R_f REs (symbol-major,
 *                subcarrier fastest) at base[(f*A + a)*R_f + m]: the layout of
 *                the time-domain buffers, whose rows of K subcarriers are the
 *                batched cuFFT transforms, and of Hk[(f*links + e)*K + k]. */
#ifndef OFDMSIM_LINK_GPU_CUH
#define OFDMSIM_LINK_GPU_CUH

#include <cuda_runtime.h>
#include <cufft.h>
#include <curand_kernel.h>
#include <stdint.h>

#include "core/draws.h"
#include "core/spatial.h"
#include "core/cplx.h"
#include "equalizer/smallmat.h"
#include "core/qam.h"

/* Where the fused receiver takes its channel and its received symbols. */
enum gpu_hsrc { HSRC_DRAW = 0, HSRC_TABLE = 1 }; /* rayleigh/awgn per RE | Hk of the frame */
enum gpu_ysrc { YSRC_COMPUTE = 0, YSRC_BUFFER = 1 }; /* y = Hx + n here | the modem's output */

/* One batch of one link, by value in every launch. */
struct gpu_link {
  int tx, rx, links, bps;
  int K, S, cp, L;          /* subcarriers, symbols, cyclic prefix, taps */
  int model;                /* channel_model */
  int spatial_active;       /* correlated or Rician: run chan_spatial_mix */
  int hsrc, ysrc;           /* fused kernel only */
  uint32_t point;
  uint2 key;                /* { lo32(seed), hi32(seed) } */
  uint64_t rf;              /* REs per frame */
  uint64_t nf;              /* time samples per frame, S*(K + cp) */
  uint64_t first_frame, frames, R;
  float noise_std;          /* sqrt(n0), 0: no noise drawn (as the CPU) */
  float diag;               /* N0 on the Gram diagonal (MMSE) or 0 (ZF) */
  float csi_std;            /* sqrt(csi_error_var), 0: perfect CSI */
  float td_scale;           /* 1/sqrt(K): both modem transforms unitary */
};

/* Read-only tables of a link, in device memory (uniform loads, broadcast). */
struct gpu_consts {
  chan_spatial spatial;
  int delay[TDL_MAX_TAPS];
  float amp[TDL_MAX_TAPS];  /* sqrtf(power[l]), as tdl_draw_taps */
};

/* ---- the random streams of channel/draws.h -------------------------------- */

/* Draw `index` of (point, purpose, frame): one evaluation of cuRAND's raw
 * Philox4x32-10 on the counter of draws.h, bitwise the CPU's rng_draw. */
__device__ __forceinline__ rng_words gpu_draw(const gpu_link &g, uint32_t purpose,
                                              uint64_t frame, uint64_t index) {
  const uint64_t sub = rng_subsequence(g.point, purpose, frame);
  const uint4 c = make_uint4((uint32_t)index, (uint32_t)(index >> 32), (uint32_t)sub,
                             (uint32_t)(sub >> 32));
  const uint4 r = curand_Philox4x32_10(c, g.key);
  rng_words w;
  w.w[0] = r.x;
  w.w[1] = r.y;
  w.w[2] = r.z;
  w.w[3] = r.w;
  return w;
}

/* Labels of the NT = tx streams of RE m (RNG_BITS: word k of draw b*R_f + m
 * is stream 4b + k). */
template <int NT>
__device__ __forceinline__ void gpu_labels(const gpu_link &g, uint64_t frame, uint64_t m,
                                           uint32_t *lab) {
  const uint32_t mask = (1u << g.bps) - 1u;
  OFDM_UNROLL
  for (int b = 0; b < (NT + 3) / 4; b++) {
    const rng_words w = gpu_draw(g, RNG_BITS, frame, (uint64_t)b * g.rf + m);
    OFDM_UNROLL
    for (int k = 0; k < 4; k++)
      if (4 * b + k < NT) lab[4 * b + k] = w.w[k] & mask;
  }
}

/* out[e] (+)= scale * w_e for e < count, w the CN(0,1) pair layout of draws.h:
 * draw (e/2)*R_f + m, words (0,1) -> even e, (2,3) -> odd e. accumulate = 0
 * overwrites. The arithmetic is channel.c's add_pair_draws, element for element. */
template <int N>
__device__ __forceinline__ void gpu_pair_draws(const gpu_link &g, uint32_t purpose,
                                               uint64_t frame, uint64_t m, int count, float scale,
                                               int accumulate, cf32 *out) {
  OFDM_UNROLL
  for (int e = 0; e < N; e += 2) {
    if (e >= count) break;
    const rng_words w = gpu_draw(g, purpose, frame, (uint64_t)(e / 2) * g.rf + m);
    const cf32 z0 = cf_scale(rng_cnormal_of(w, 0), scale);
    out[e] = accumulate ? cf_add(out[e], z0) : z0;
    if (e + 1 < count && e + 1 < N) {
      const cf32 z1 = cf_scale(rng_cnormal_of(w, 1), scale);
      out[e + 1] = accumulate ? cf_add(out[e + 1], z1) : z1;
    }
  }
}

/* Register arrays: every kernel is instantiated for NT = tx streams exactly
 * and NR >= rx receive rows (a power of two: rows rx..NR-1 are zero, which
 * adds exact zeros to the Gram sums), and indexes them only with unrolled
 * loop counters, so the arrays stay in registers. */

/* The channel of RE m when it is drawn per RE: awgn's identity, or rayleigh's
 * i.i.d. draws (RNG_CHANNEL) through the shared spatial/Rician mixing. h:
 * NR*NT elements, element (r,t) at h[r*NT + t]; rows >= rx are zeroed. */
template <int NT, int NR>
__device__ __forceinline__ void gpu_channel_re(const gpu_link &g, const gpu_consts *c,
                                               uint64_t frame, uint64_t m, cf32 *h) {
  OFDM_UNROLL
  for (int e = 0; e < NR * NT; e++) h[e] = cf_make(0.0f, 0.0f);
  if (g.model == CH_AWGN) {
    OFDM_UNROLL
    for (int e = 0; e < NR * NT; e++)
      if (e / NT == e % NT && e < g.links) h[e] = cf_make(1.0f, 0.0f);
    return;
  }
  gpu_pair_draws<NR * NT>(g, RNG_CHANNEL, frame, m, g.links, 1.0f, 0, h);
  if (g.spatial_active) {
    /* The mixing walks its loops with run-time sizes: it gets a copy, so that
     * only the copy (not h) has to live in local memory. */
    cf32 tmp[NR * NT];
    OFDM_UNROLL
    for (int e = 0; e < NR * NT; e++) tmp[e] = h[e];
    chan_spatial_mix(&c->spatial, tmp, 1, 1.0f);
    OFDM_UNROLL
    for (int e = 0; e < NR * NT; e++)
      if (e < g.links) h[e] = tmp[e];
  }
}

/* y = H x (+ sqrt(n0) w, RNG_NOISE), in chan_apply's order: h0*x0, then one
 * multiply-add a stream. Rows >= rx of y are zeroed. */
template <int NT, int NR>
__device__ __forceinline__ void gpu_apply_re(const gpu_link &g, uint64_t frame, uint64_t m,
                                             const cf32 *h, const cf32 *x, cf32 *y) {
  OFDM_UNROLL
  for (int r = 0; r < NR; r++) {
    cf32 acc = cf_mul(h[r * NT], x[0]);
    OFDM_UNROLL
    for (int t = 1; t < NT; t++) acc = cf_fma(acc, h[r * NT + t], x[t]);
    y[r] = r < g.rx ? acc : cf_make(0.0f, 0.0f);
  }
  if (g.noise_std > 0.0f) gpu_pair_draws<NR>(g, RNG_NOISE, frame, m, g.rx, g.noise_std, 1, y);
}

/* Imperfect CSI: Hhat = H + sqrt(var) E, E from RNG_CSI, in place. */
template <int N>
__device__ __forceinline__ void gpu_csi_re(const gpu_link &g, uint64_t frame, uint64_t m,
                                           cf32 *h) {
  if (g.csi_std > 0.0f) gpu_pair_draws<N>(g, RNG_CSI, frame, m, g.links, g.csi_std, 1, h);
}

__device__ __forceinline__ cf32 gpu_load(const cf32 *p) {
  const float2 v = __ldg(reinterpret_cast<const float2 *>(p));
  return cf_make(v.x, v.y);
}
__device__ __forceinline__ void gpu_store(cf32 *p, cf32 v) {
  *reinterpret_cast<float2 *>(p) = make_float2(v.re, v.im);
}

/* ---- the receiver's per-RE pieces (staged and fused kernels) -------------- */

/* Frame-aligned grids: the blocks of a frame never hold another frame's REs,
 * so a block's error counts belong to one frame. Block b covers REs
 * [(b mod bpf)*blockDim, ...) of frame b / bpf, bpf = ceil(R_f / blockDim). */
__device__ __forceinline__ void gpu_frame_position(const gpu_link &g, uint64_t *f, uint64_t *m) {
  const uint64_t bpf = (g.rf + blockDim.x - 1) / blockDim.x;
  *f = blockIdx.x / bpf;
  *m = (blockIdx.x - *f * bpf) * blockDim.x + threadIdx.x;
}

/* Adds each thread's per-stream error counts to errors[f*tx + t]: a warp
 * reduction, one shared-memory atomic a warp, one global atomic a block and
 * stream. Every thread of the block must call it (inactive ones with zeros). */
template <int NT>
__device__ __forceinline__ void gpu_count_errors(const uint32_t *err, uint32_t *errors_frame) {
  __shared__ uint32_t block_err[NT];
  if (threadIdx.x < NT) block_err[threadIdx.x] = 0;
  __syncthreads();
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) {
    const uint32_t v = __reduce_add_sync(0xffffffffu, err[t]);
    if ((threadIdx.x & 31) == 0 && v) atomicAdd(&block_err[t], v);
  }
  __syncthreads();
  if (threadIdx.x < NT && block_err[threadIdx.x])
    atomicAdd(&errors_frame[threadIdx.x], block_err[threadIdx.x]);
}

/* The channel of RE m of batch frame f from a per-subcarrier table (tdl block
 * fading: every symbol of the frame sees its subcarrier's response). Hk holds
 * the batch's frames, links x K each; rows >= rx of h are zeroed. */
template <int NT, int NR>
__device__ __forceinline__ void gpu_channel_table(const gpu_link &g, const cf32 *Hk, uint64_t f,
                                                  uint64_t m, cf32 *h) {
  const cf32 *row = Hk + f * (uint64_t)g.links * g.K + m % (uint64_t)g.K;
  OFDM_UNROLL
  for (int e = 0; e < NR * NT; e++)
    h[e] = e < g.links ? gpu_load(row + (size_t)e * g.K) : cf_make(0.0f, 0.0f);
}

/* Bit errors of one RE's NT streams. */
template <int NT>
__device__ __forceinline__ void gpu_re_errors(int bps, const cf32 *xhat, const uint32_t *lab,
                                              uint32_t *err) {
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) err[t] = (uint32_t)__popc(qam_demap(bps, xhat[t]) ^ lab[t]);
}

/* Calls K<NT, NR>::launch(args...) for NT = tx and the smallest power of two
 * NR >= rx: the register-array instantiations every per-RE kernel comes in. */
template <template <int, int> class K, int NT, typename... A>
int gpu_dispatch_rx(int rx, A... args) {
  if (rx <= 1) return K<NT, 1>::launch(args...);
  if (rx <= 2) return K<NT, 2>::launch(args...);
  if (rx <= 4) return K<NT, 4>::launch(args...);
  if (rx <= 8) return K<NT, 8>::launch(args...);
  return K<NT, 16>::launch(args...);
}
/* Calls K<NT>::launch(args...) for NT = tx: the one switch over stream counts. */
template <template <int> class K, typename... A>
int gpu_dispatch_tx(int tx, A... args) {
  switch (tx) {
    case 1: return K<1>::launch(args...);
    case 2: return K<2>::launch(args...);
    case 3: return K<3>::launch(args...);
    case 4: return K<4>::launch(args...);
    case 5: return K<5>::launch(args...);
    case 6: return K<6>::launch(args...);
    case 7: return K<7>::launch(args...);
    default: return K<8>::launch(args...);
  }
}
template <template <int, int> class K>
struct gpu_rx_of {
  template <int NT>
  struct at {
    template <typename... A>
    static int launch(int rx, A... args) {
      return gpu_dispatch_rx<K, NT>(rx, args...);
    }
  };
};
template <template <int, int> class K, typename... A>
int gpu_dispatch(int tx, int rx, A... args) {
  return gpu_dispatch_tx<gpu_rx_of<K>::template at>(tx, rx, args...);
}

/* Blocks of 256 threads covering n items (the launchers' flat grids). */
static inline unsigned gpu_blocks(uint64_t n, int block) {
  return (unsigned)((n + (uint64_t)block - 1) / (uint64_t)block);
}

/* ---- launchers (each returns 0, or -1 after reporting the failing call) ---- */

/* Threads a block for kernels whose blocks never span two frames: the frame's
 * REs rounded up to whole warps, at most 256 (receiver_gpu.cu). */
int gpu_frame_block(uint64_t rf);

/* draws_gpu.cu */
/* Labels [tx][R] (uint8), x [tx][R], and for rayleigh/awgn H [links][R]; for
 * tdl, H is expanded from Hk (frame-major) instead. Hhat: H + CSI error
 * (NULL when the CSI is perfect). */
int gpu_launch_draw_stage(const gpu_link &g, const gpu_consts *c, const cf32 *Hk,
                          uint8_t *labels, cf32 *x, cf32 *H, cf32 *Hhat, cudaStream_t s);
/* y = Hx + n per RE over SoA stacks (frequency domain). */
int gpu_launch_channel_stage(const gpu_link &g, const cf32 *H, const cf32 *x, cf32 *y,
                             cudaStream_t s);
/* tdl: the batch's taps [f][links][L] (drawn, mixed) and their delay-line
 * placement in Hk [f][links][K] ready for the forward transforms. */
int gpu_launch_taps(const gpu_link &g, const gpu_consts *c, cf32 *taps, cf32 *Hk,
                    cudaStream_t s);

/* ofdm_gpu.cu: batched K-point transforms over whole frames, planned once for
 * every power-of-two number of frames up to the cap and executed as the
 * binary decomposition of a batch's frame count, so a batch of any size runs
 * exactly its own frames; all plans share one work area. */
struct gpu_fft_set {
  int K;
  int per_frame;           /* transforms of one frame */
  int direction;           /* CUFFT_FORWARD or CUFFT_INVERSE */
  int levels;              /* plans for 1, 2, 4, ... 2^(levels-1) frames */
  cufftHandle plan[40];
  int made[40];
};
/* Makes the plans (without work areas: *work_bytes gets the largest need). */
int gpu_fft_set_create(gpu_fft_set *f, int K, int per_frame, int direction, uint64_t max_frames,
                       size_t *work_bytes);
int gpu_fft_set_attach(gpu_fft_set *f, void *work, cudaStream_t s);
/* In place on `frames` frames of data (per_frame*K elements each) at d. */
int gpu_fft_set_exec(gpu_fft_set *f, cf32 *d, uint64_t frames);
void gpu_fft_set_destroy(gpu_fft_set *f);

/* Time-domain modem halves around the transforms. x_soa: the staged stack
 * [tx][R], or NULL to draw the labels and symbols right here (fused). xt:
 * frame-major [f][tx][R_f], the IFFT input. */
int gpu_launch_modem_prepare(const gpu_link &g, const cf32 *x_soa, cf32 *xt, cudaStream_t s);
/* After the IFFT: CP, linear convolution with the taps (awgn: antenna r
 * receives stream r), RNG_TDNOISE, CP removal, the unitary scale of the FFT to
 * come; yt frame-major [f][rx][R_f], the FFT input. */
int gpu_launch_modem_channel(const gpu_link &g, const gpu_consts *c, const cf32 *xt,
                             const cf32 *taps, cf32 *yt, cudaStream_t s);
/* Frame-major [f][A][R_f] -> SoA [A][R] (staged mode's y). */
int gpu_launch_frame_to_soa(const gpu_link &g, int A, const cf32 *fm, cf32 *soa, cudaStream_t s);

/* receiver_gpu.cu */
int gpu_launch_gram(const gpu_link &g, const cf32 *Hhat, const cf32 *y, cf32 *G, cf32 *z,
                    cudaStream_t s);
int gpu_launch_equalize(const gpu_link &g, const cf32 *Ginv, const cf32 *z, cf32 *xhat,
                        cudaStream_t s);
int gpu_launch_demap(const gpu_link &g, const cf32 *xhat, const uint8_t *labels,
                     uint32_t *errors, cudaStream_t s);
/* 0 when this binary holds kernels the current device can run. */
int gpu_link_kernels_loadable(char *why, size_t whylen);

/* fused_gpu.cu: everything from the draws (or the modem's output) to the error
 * counters, one thread per RE, nothing stored on the way. Hk: tdl's response
 * table (hsrc = HSRC_TABLE); yt: the modem's output (ysrc = YSRC_BUFFER). */
int gpu_launch_fused(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                     uint32_t *errors, cudaStream_t s);

#endif
