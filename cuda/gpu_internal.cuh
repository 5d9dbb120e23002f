/* Private to the CUDA backend (cuda/backend_cuda.cu, draws_gpu.cu, fused_gpu.cu,
 * detect_gpu.cu, detect_linear_gpu.cu, shapes.cu, ofdm_gpu.cu, receiver_gpu.cu): the batch description every kernel takes by
 * value, the GPU-only per-RE helpers (loads, frame positions, error
 * reduction; the link itself is core/re.h), and the launchers each .cu file
 * offers the backend.
 *
 * Layouts in device memory, R = frames * R_f REs in the batch, i = f*R_f + m:
 *   SoA stacks   element e of RE i at base[e*R + i] (one array an element:
 *                a warp's loads coalesce), as the CPU.
 *   frame-major  per frame f and antenna a, the frame's R_f REs (symbol-major,
 *                subcarrier fastest) at base[(f*A + a)*R_f + m]: the layout of
 *                the time-domain buffers, whose rows of K subcarriers are the
 *                batched cuFFT transforms, and of the tdl response
 *                Hk[(f*links + e)*span + j], span = K (one response a frame,
 *                j = k) or R_f (with Doppler, one a symbol: j = m). */
#ifndef OFDMSIM_GPU_INTERNAL_CUH
#define OFDMSIM_GPU_INTERNAL_CUH

#include <cuda_runtime.h>
#include <cufft.h>
#include <curand_kernel.h>
#include <stdint.h>

#include "cuda/check.h"
#include "cuda_shapes.h" /* generated from OFDMSIM_CUDA_SHAPES (CMakeLists.txt) */

#include "channel/cdl_channel.h"
#include "channel/tdl_fading.h"
#include "channel/estimate.h"
#include "channel/tdl_grid.h"
#include "core/cplx.h"
#include "core/qam.h"
#include "core/re.h"
#include "core/spatial.h"
#include "equalizer/smallmat.h"

/* Where the fused receiver takes its channel and its received symbols. */
enum gpu_hsrc { HSRC_DRAW = 0, HSRC_TABLE = 1 }; /* rayleigh/awgn per RE | Hk of the frame */
/* y = Hx + n here | the modem's output | H x here plus the buffer's noise
 * (the time domain's CP-aligned transform path, see gpu_launch_modem_noise) */
enum gpu_ysrc { YSRC_COMPUTE = 0, YSRC_BUFFER = 1, YSRC_NOISE = 2 };

/* Channel estimation from the pilots (device memory; hp NULL without it):
 * the tables of channel/estimate.h's est_plan and the batch's per-pilot-
 * symbol estimates hp [f][links][pilot symbol][K]. */
struct gpu_est {
  const int *first;   /* [tx][K] */
  const cf32 *w;      /* [tx][taps][K] (est_plan's [tx][K][taps] transposed: est_freq_at);
                         lmmse2d [tx][S][tt][taps][K] (the plan's [tx][S][K][tt][taps]
                         transposed: est_2d_at) */
  const int *sym_lo;  /* [S]; lmmse2d: the first pilot symbol of the window */
  const float *sym_w; /* [S] */
  cf32 *hp;
  int taps, pilot_syms, P;
  float shrink;
  cf32 *ls;           /* DMRS: the despread LS estimates [f][links][occasion][np] */
  int np;             /* DMRS: OCC blocks a port per occasion (0: the comb) */
  cf32 *yp;           /* fused: the received rows of the pilot symbols (DMRS: of every
                         DMRS symbol) [f][rx][yp_rows][K]; NULL in staged mode,
                         which reads its y stack */
  int yp_rows;        /* pilot_symbol_count: the comb's pilot symbols, DMRS occasions x len */
  int tt;             /* lmmse2d: pilot symbols of a window (0: hp's two steps) */
  int on;             /* fused mode: the per-RE kernels take their channel from the
                         estimate (gpu_est_channel); 0 in every other copy */
};

/* One batch of one point, by value in every launch. */
struct gpu_link {
  re_ctx re;                /* what the per-RE steps of core/re.h need */
  int tx, rx, links, bps;   /* copies of re's, for the launchers' arithmetic */
  int K, S, cp, L;          /* subcarriers, symbols, cyclic prefix, taps */
  int model;                /* channel_model */
  int hsrc, ysrc;           /* fused kernel only */
  uint64_t rf;              /* REs per frame */
  uint64_t df;              /* data REs per frame (the rest are pilots) */
  uint64_t nf;              /* time samples per frame, S*(K + cp) */
  uint64_t first_frame, frames, R;
  float noise_std;          /* sqrt(n0), 0: no noise drawn (as the CPU) */
  float diag;               /* N0 on the Gram diagonal (MMSE) or 0 (ZF) */
  int unbias;               /* MMSE's per-stream gain changes a decision (bps > 2) */
  float n0r;                /* the receiver's noise variance (link_receiver_n0) */
  int equalizer, llr;       /* eq_kind, llr_kind */
  int kbest_k;
  float llr_clip;
  float td_scale;           /* 1/sqrt(K): both modem transforms unitary */
  /* tdl */
  int fading;               /* Doppler: taps that change within the frame */
  int cdl;                  /* a cdl point: the sos buffer holds its ray terms */
  uint64_t fade_terms;      /* sos_terms of one frame's buffer (tdl_fade_terms) */
  int cp_frame;             /* the CP in the symbol timing of Doppler (either domain) */
  tdl_fade fade;
  int poly_len;             /* time domain with Doppler: samples a segment of the taps' cubics */
  uint64_t poly_segs;       /* ... and segments a frame (channel/tap_poly.h) */
  uint64_t hk_span;         /* Hk row length: K, or R_f with Doppler */
  int td_taps, td_shift;    /* time domain: discrete taps, FFT window rotation */
  int td_max_delay;         /* the last discrete tap's delay in samples */
  int fade_reach;           /* time domain with Doppler: the farthest interpolator term in samples (-1: none) */
  int smem_optin;           /* the device's opt-in shared memory a block, bytes */
  int sm_count;             /* the device's multiprocessors */
  /* fused mode with LS estimation (est.on): the batch's estimates on the
   * pilot symbols (est.hp; lmmse2d: the pilot rows est.yp, DMRS's despread
   * est.ls), made by gpu_launch_fused_estimate before the per-RE kernels,
   * which take their channel from them (gpu_re_front); est.on 0: the
   * receiver's channel is the drawn one (or its CSI error) */
  gpu_est est;
};

/* Read-only tables of a link, in device memory (uniform loads, broadcast). */
struct gpu_consts {
  chan_spatial spatial;
  float amp[TDL_MAX_TAPS];  /* sqrtf(power[l]), as tdl_draw_taps */
  /* time domain with Doppler: each tap's interpolator (tdl_grid's) */
  int tap_first[TDL_MAX_TAPS], tap_count[TDL_MAX_TAPS];
  float tap_coef[TDL_MAX_TAPS][2 * TDL_INTERP_HALF];
  cdl_geom cdl;             /* a cdl point's geometry (cdl_geom_make) */
};

/* The tdl buffers of a batch (device memory; NULL where the point has none). */
struct gpu_tdl {
  cf32 *taps;         /* [f][links][L]; with Doppler [f][S][links][L], window averages */
  sos_term *sos;      /* Doppler: [f][links][L][TDL_SOS_TERMS]; cdl (with Doppler
                         or not): [f][fade_terms], the frame's ray terms */
  float *win;         /* tdl with Doppler, frequency domain: [f][fade_terms], each
                         term's window factor (tdl_window_factors) */
  const cf32 *resp;   /* [L][K], tdl_grid's */
  cf32 *Hk;           /* [f][links][hk_span] */
  const int *td_delay;   /* time domain without Doppler: [td_taps] */
  const float *td_coef;  /* [td_taps][L] */
  cf32 *dtaps;           /* [f][links][td_taps] */
  cf32 *poly;            /* time domain with Doppler: the taps' cubics
                            [f][poly_segs][L][links][TAP_POLY_COEFS] */
};

/* ---- the per-RE link -------------------------------------------------------
 * Labels, channel per RE, y = Hx + n, CSI error and bit errors are the
 * shared steps of core/re.h, called with g.re and NT/NR as sizes. */

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
  /* 32-bit division: R_f <= LINK_MAX_RES = 2^24, and grids have < 2^31 blocks */
  const uint32_t bpf = ((uint32_t)g.rf + blockDim.x - 1) / blockDim.x;
  const uint32_t fb = blockIdx.x / bpf;
  *f = fb;
  *m = (uint64_t)(blockIdx.x - fb * bpf) * blockDim.x + threadIdx.x;
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

/* Adds each thread's NT sums (per-stream GMI losses, or the GMI grid's
 * GMI_GRID) to loss_frame[t], as gpu_count_errors does with the errors
 * (integers: any order, same sum). */
template <int NT, typename T>
__device__ __forceinline__ void gpu_count_loss(const T *loss, unsigned long long *loss_frame) {
  __shared__ unsigned long long block_loss[NT];
  if (threadIdx.x < NT) block_loss[threadIdx.x] = 0;
  __syncthreads();
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) {
    unsigned long long v = loss[t];
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    if ((threadIdx.x & 31) == 0 && v) atomicAdd(&block_loss[t], v);
  }
  __syncthreads();
  if (threadIdx.x < NT && block_loss[threadIdx.x]) atomicAdd(&loss_frame[threadIdx.x], block_loss[threadIdx.x]);
}

/* The channel of RE m of batch frame f from the response table (tdl: every
 * symbol of the frame sees its subcarrier's response, or with Doppler its
 * own symbol's). Hk holds the batch's frames, links x hk_span each; rows >=
 * rx of h are zeroed. */
template <int NT, int NR>
__device__ __forceinline__ void gpu_channel_table(const gpu_link &g, const cf32 *Hk, uint64_t f,
                                                  uint64_t m, cf32 *h) {
  const cf32 *row = Hk + f * (uint64_t)g.links * g.hk_span + m % g.hk_span;
  OFDM_UNROLL
  for (int e = 0; e < NR * NT; e++)
    h[e] = e < g.links ? gpu_load(row + (size_t)e * g.hk_span) : cf_make(0.0f, 0.0f);
}

/* lmmse2d in the fused mode: est_2d's sum for every link of the RE, from
 * the pilot rows g.est.yp (the comb: row j is pilot symbol j, so a window's
 * rows are K apart where the staged y stack has them pg.every K apart) or
 * DMRS's despread LS estimates g.est.ls, as est_2d_kernel reads them in the
 * staged mode. Transmit antenna t's weights do not depend on the receive
 * antenna, so each is read once for the t's NR links; each link's sum runs
 * in est_2d's order (window row j, then pilot i), with its operations, so
 * the estimate is est_2d's bit for bit. Rows >= rx of h are zeroed. */
template <int NT, int NR>
__device__ __forceinline__ void gpu_est_channel_2d(const gpu_link &g, uint64_t f, uint64_t m, cf32 *h) {
  const gpu_est &e = g.est;
  const uint32_t K = (uint32_t)g.K;
  const uint32_t s = (uint32_t)m / K, k = (uint32_t)m - s * K; /* R_f < 2^32 */
  const int lo = __ldg(e.sym_lo + s), tt = e.tt, taps = e.taps;
  const pilot_grid *pg = &g.re.pilots;
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) {
    const size_t at = (size_t)t * K + k;
    const int i0 = __ldg(e.first + at);
    /* the weights transposed, [tx][S][tt][taps][K]: (j, i) at wk[(j taps + i) K] */
    const cf32 *wk = e.w + ((size_t)t * (size_t)g.S + s) * (size_t)(tt * taps) * K + k;
    /* the window's first row of each receive antenna, its row stride, the
     * pilots' count, offset and step (est_2d's np, off, step) */
    const cf32 *rows[NR];
    size_t stride;
    int np, off, step;
    if (e.np > 0) {
      stride = (size_t)e.np;
      np = e.np;
      off = 0;
      step = 1;
      OFDM_UNROLL
      for (int r = 0; r < NR; r++)
        rows[r] = e.ls + ((f * g.links + (uint64_t)(r * NT + t)) * (uint64_t)e.pilot_syms + (uint64_t)lo) * stride;
    } else {
      stride = K;
      np = pilot_count(pg, t);
      off = t;
      step = e.P;
      OFDM_UNROLL
      for (int r = 0; r < NR; r++)
        rows[r] = e.yp + ((f * (uint64_t)g.rx + (uint64_t)r) * (uint64_t)e.yp_rows + (uint64_t)lo) * K;
    }
    cf32 acc[NR];
    OFDM_UNROLL
    for (int r = 0; r < NR; r++) acc[r] = cf_make(0.0f, 0.0f);
    for (int jw = 0; jw < tt; jw++) {
      for (int i = 0; i < taps; i++) {
        const int ip = i0 + i < np ? i0 + i : i0 + i - np;
        const cf32 w = gpu_load(wk + (size_t)(jw * taps + i) * K);
        const size_t col = (size_t)jw * stride + (size_t)off + (size_t)ip * (size_t)step;
        OFDM_UNROLL
        for (int r = 0; r < NR; r++)
          if (r < g.rx) acc[r] = cf_fma_exact(acc[r], w, gpu_load(rows[r] + col));
      }
    }
    OFDM_UNROLL
    for (int r = 0; r < NR; r++) h[r * NT + t] = r < g.rx ? cf_scale(acc[r], e.shrink) : cf_make(0.0f, 0.0f);
  }
}

/* The receiver's channel of RE m of batch frame f in the fused mode with LS
 * estimation: the time interpolation of the frame's pilot-symbol estimates
 * g.est.hp and the receiver's scaling (est_time), as the staged mode's
 * est_time_kernel writes Hhat, element by element the same operations; rows
 * >= rx of h are zeroed. */
template <int NT, int NR>
__device__ __forceinline__ void gpu_est_channel(const gpu_link &g, uint64_t f, uint64_t m, cf32 *h) {
  const uint32_t K = (uint32_t)g.K;
  const uint32_t s = (uint32_t)m / K, k = (uint32_t)m - s * K; /* R_f < 2^32 */
  const int lo = __ldg(g.est.sym_lo + s);
  const float wl = __ldg(g.est.sym_w + s);
  const uint64_t span = (uint64_t)g.est.pilot_syms * K;
  const cf32 *base = g.est.hp + f * (uint64_t)g.links * span + (uint64_t)lo * K + k;
  OFDM_UNROLL
  for (int e = 0; e < NR * NT; e++) {
    if (e < g.links) {
      const cf32 a = gpu_load(base + (size_t)e * span);
      const cf32 b = wl != 1.0f ? gpu_load(base + (size_t)e * span + K) : a;
      h[e] = est_time(wl, a, b, g.est.shrink);
    } else {
      h[e] = cf_make(0.0f, 0.0f);
    }
  }
}

/* The front half of one RE: its labels, its channel as the receiver sees it
 * and its received vector. The channel is drawn here (rayleigh, awgn) or read
 * from the frame's response table (tdl); y is computed here (frequency
 * domain), read from the modem's output (time domain, convolved sample by
 * sample), or H x computed here plus the modem's transformed noise (time
 * domain, CP-aligned transform); the labels are always redrawn, never
 * stored; with LS estimation in the fused mode the receiver's channel is
 * then the frame's estimate (gpu_est_channel). The fused kernel's repair,
 * the fused pilot rows and the soft detectors (detect_linear_gpu.cu)
 * compute exactly this. */
template <int NT, int NR>
__device__ __forceinline__ void gpu_re_front(const gpu_link &g, const gpu_consts *c, const cf32 *Hk,
                                         const cf32 *yt, uint64_t f, uint64_t m, uint32_t *lab,
                                         cf32 *h, cf32 *yv) {
  const uint64_t frame = g.first_frame + f;
  re_labels(g.re, frame, m, NT, lab);
  if (g.hsrc == HSRC_TABLE) {
    gpu_channel_table<NT, NR>(g, Hk, f, m, h);
  } else {
    cf32 scratch[NR * NT];
    re_channel(g.re, &c->spatial, frame, m, NT, NR, h, scratch);
  }
  if (g.ysrc == YSRC_BUFFER) {  /* (a pilot RE's symbols are re_symbols') */
    const cf32 *col = yt + f * (uint64_t)g.rx * g.rf + m;
    OFDM_UNROLL
    for (int r = 0; r < NR; r++)
      yv[r] = r < g.rx ? gpu_load(col + (size_t)r * g.rf) : cf_make(0.0f, 0.0f);
  } else if (g.ysrc == YSRC_NOISE) {
    cf32 xv[NT];
    re_symbols(g.re, m, NT, lab, xv);
    re_mix(g.re, NT, NR, h, xv, yv);
    const cf32 *col = yt + f * (uint64_t)g.rx * g.rf + m;
    OFDM_UNROLL
    for (int r = 0; r < NR; r++)
      if (r < g.rx) yv[r] = cf_add(yv[r], gpu_load(col + (size_t)r * g.rf));
  } else {
    cf32 xv[NT];
    re_symbols(g.re, m, NT, lab, xv);
    re_apply(g.re, frame, m, NT, NR, h, xv, yv);
  }
  re_csi(g.re, frame, m, NR * NT, h);
  /* LS estimation (fused mode): the receiver's channel is the estimate, the
   * drawn one having made y (the staged mode's Hhat replaces H alike) */
  if (g.est.on) {
    if (g.est.tt > 0) gpu_est_channel_2d<NT, NR>(g, f, m, h);
    else gpu_est_channel<NT, NR>(g, f, m, h);
  }
}

/* The register rows of a link with rx receive antennas: rx rounded up to a
 * power of two, the NR of its kernels. */
constexpr int gpu_rows_of(int rx) { return rx <= 1 ? 1 : rx <= 2 ? 2 : rx <= 4 ? 4 : rx <= 8 ? 8 : 16; }

/* 1 when this build compiled the per-RE kernels of shape (nt, nr): CMake's
 * OFDMSIM_CUDA_SHAPES (cuda_shapes.h, generated; default all 40). */
#define GPU_SHAPE_IS_(a, b) || (nt == (a) && nr == (b))
constexpr bool gpu_shape_compiled(int nt, int nr) { return false OFDMSIM_CUDA_SHAPE_LIST(GPU_SHAPE_IS_); }

/* The link's shape against the compiled ones: 0, or -1 with a message that
 * names the option (backend_cuda_create refuses such a point rather than
 * run something else). */
int gpu_shape_check(int tx, int rx, char *err, size_t errlen);

/* K<NT, NR>::launch(args...) where the shape is compiled; a shape left out of
 * this build reports a failure instead (creation refuses it first, so only a
 * caller that skipped gpu_shape_check gets here) and is never instantiated,
 * so it costs no compile time. */
template <template <int, int> class K, int NT, int NR, bool Compiled = gpu_shape_compiled(NT, NR)>
struct gpu_shape_call {
  template <typename... A>
  static int launch(A... args) {
    return K<NT, NR>::launch(args...);
  }
};
template <template <int, int> class K, int NT, int NR>
struct gpu_shape_call<K, NT, NR, false> {
  template <typename... A>
  static int launch(A...) {
    gpu_report_failure(__FILE__, __LINE__, "gpu_dispatch", "shape not compiled",
                       "this build has no kernels of this (tx, rx) shape (OFDMSIM_CUDA_SHAPES)", 0);
    return -1;
  }
};

/* Calls K<NT, NR>::launch(args...) for NT = tx and NR = gpu_rows_of(rx): the
 * register-array instantiations every per-RE kernel comes in. */
template <template <int, int> class K, int NT, typename... A>
int gpu_dispatch_rx(int rx, A... args) {
  if (rx <= 1) return gpu_shape_call<K, NT, 1>::launch(args...);
  if (rx <= 2) return gpu_shape_call<K, NT, 2>::launch(args...);
  if (rx <= 4) return gpu_shape_call<K, NT, 4>::launch(args...);
  if (rx <= 8) return gpu_shape_call<K, NT, 8>::launch(args...);
  return gpu_shape_call<K, NT, 16>::launch(args...);
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
/* tdl: the batch's taps (drawn, mixed, the LOS added; with Doppler the
 * sinusoids and each symbol's window averages), their response Hk through
 * resp, and in the time domain without Doppler the modem's discrete taps. */
int gpu_launch_taps(const gpu_link &g, const gpu_consts *c, const gpu_tdl &t, cudaStream_t s);

/* estimate_gpu.cu: the receiver's channel Hhat [links][R] from the pilots
 * of the staged y [rx][R] (channel/estimate.h's steps, as the CPU). */
int gpu_launch_estimate(const gpu_link &g, const gpu_est &e, const cf32 *y, cf32 *Hhat, cudaStream_t s);
/* The fused mode's first pass: the batch's estimates on the pilot symbols,
 * e.hp, from the received pilot rows e.yp (gpu_launch_pilot_rows), by the
 * staged mode's steps (LS, DMRS despreading, frequency interpolation); the
 * per-RE kernels then interpolate in time (gpu_est_channel). lmmse2d: only
 * DMRS's despreading (e.ls); the per-RE kernels filter the rows
 * (gpu_est_channel_2d). */
int gpu_launch_estimate_pilots(const gpu_link &g, const gpu_est &e, cudaStream_t s);
/* The symbol of row q of the pilot rows (gpu_est.yp). */
__device__ __forceinline__ int gpu_pilot_row_symbol(const pilot_grid *pg, int q) {
  return pg->kind == PILOT_DMRS ? dmrs_symbol_at(&pg->dm, q) : pilot_symbol_at(pg, q);
}

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
/* After the IFFT: CP, linear convolution with the discrete taps (awgn:
 * antenna r receives stream r; Doppler: the taps evaluated per sample
 * through each one's interpolator), RNG_TDNOISE, CP removal with the window
 * rotation, the unitary scale of the FFT to come; yt frame-major
 * [f][rx][R_f], the FFT input. */
int gpu_launch_modem_channel(const gpu_link &g, const gpu_consts *c, const cf32 *xt, const gpu_tdl &t, cf32 *yt,
                             cudaStream_t s);
/* The CP-aligned transform path's time-domain half (see ofdm_gpu.cu): only
 * the RNG_TDNOISE noise of the kept samples, as gpu_launch_modem_channel adds
 * it to the convolution (CP removal, window rotation, unitary scale); after
 * the FFT the fused kernels add H x (YSRC_NOISE). For fixed taps that reach
 * no further back than the CP: gpu_td_transform_applies. */
int gpu_launch_modem_noise(const gpu_link &g, cf32 *yt, cudaStream_t s);
int gpu_td_transform_applies(const gpu_link &g);
/* Frame-major [f][A][R_f] -> SoA [A][R] (staged mode's y). */
int gpu_launch_frame_to_soa(const gpu_link &g, int A, const cf32 *fm, cf32 *soa, cudaStream_t s);

/* receiver_gpu.cu */
int gpu_launch_gram(const gpu_link &g, const cf32 *Hhat, const cf32 *y, cf32 *G, cf32 *z,
                    cudaStream_t s);
/* x_hat; REs whose float inverse was flagged are equalised in double from
 * Hhat and y and counted in fallbacks[frame]. */
int gpu_launch_equalize(const gpu_link &g, const cf32 *Ginv, const cf32 *z, const cf32 *Hhat,
                        const cf32 *y, cf32 *xhat, uint32_t *fallbacks, cudaStream_t s);
int gpu_launch_demap(const gpu_link &g, const cf32 *xhat, const uint8_t *labels,
                     uint32_t *errors, cudaStream_t s);
/* 0 when this binary holds kernels the current device can run. */
int gpu_link_kernels_loadable(char *why, size_t whylen);

/* fused_gpu.cu: everything from the draws (or the modem's output) to the error
 * counters, one thread per RE, nothing stored on the way. Hk: tdl's response
 * table (hsrc = HSRC_TABLE); yt: the modem's output (ysrc = YSRC_BUFFER).
 * loss (NULL: hard decisions): zf or mmse with LLRs, their GMI losses at
 * s = 1 summed into loss [f][tx] (set to zero before), on links that
 * gpu_fused_soft_covers. */
int gpu_launch_fused(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                     uint32_t *errors, uint32_t *repair, unsigned long long *loss, cudaStream_t s);
/* A link without the generic fused kernel's run-time steps: no spatial mix or
 * Rician mixing, no CSI error, no fading in time or drops of the flat model
 * (pilots and estimation, tdl, CDL and the time domain are all lean). */
static inline bool gpu_link_lean(const gpu_link &g) {
  return !g.re.spatial && g.re.csi_std <= 0.0f && !(g.re.fd.nu > 0.0) && g.re.fd.drop == 1u;
}
/* 1 when the fused kernel's Soft instances take this link's LLRs and GMI at
 * s = 1: zf or mmse, tx up to GPU_FUSED_SOFT_MAX_TX, rx a compiled row count
 * (no padded rows), lean. */
int gpu_fused_soft_covers(const gpu_link &g);
/* detect_gpu.cu: the soft outputs of zf and mmse and the joint detectors
 * (mmse-sic, kbest, ml), one thread per RE. Sources: stacks == NULL: the RE's
 * draws as the fused kernel takes them (Hk, yt as there); else the staged
 * stacks (labels, Hhat, y). Outputs: errors and fallbacks (when count != 0:
 * the staged linear chain counts those itself), loss [f][tx] (GMI, NULL
 * without soft outputs), llr/bits (the export layout of batch_result, NULL
 * when not asked), xhat (staged joint detectors: the decisions as symbols). */
struct gpu_stacks {
  const uint8_t *labels;
  const cf32 *Hhat, *y;
  cf32 *xhat;
};
struct gpu_detect_out {
  int count;
  uint32_t *errors, *fallbacks;
  unsigned long long *loss;
  unsigned long long *loss_s; /* the GMI grid's losses [frames][GMI_GRID], NULL: not asked */
  float *llr;
  uint8_t *bits;
};
int gpu_launch_detect(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                      const gpu_stacks *stacks, const gpu_detect_out &out, cudaStream_t s);

/* The per-shape launchers of the kernels compiled once per group of shapes
 * (fused_gpu.cu and detect_linear_gpu.cu: CMake compiles each once per
 * group, fused_soft_gpu.cu once per shape, OFDMSIM_SHAPE_GROUP, so that they
 * compile in parallel): declared
 * here, defined and instantiated there for the group's shapes only, and
 * called through gpu_dispatch (shapes.cu, detect_gpu.cu). */
/* The fused kernel's hard MMSE-SIC instances exist up to this many streams.
 * Above it the backend runs hard MMSE-SIC on the staged path (the same
 * counts): nvcc's time on the unrolled stages doubles a shape's fused
 * object (8x16: 115 s without SIC, 225 s with it, one core), and the
 * eight-stream group set the whole build's critical path. */
#define GPU_FUSED_SIC_MAX_TX 4
/* A fused MMSE-SIC launch of a shape above GPU_FUSED_SIC_MAX_TX: reports the
 * error and returns -1 (never reached: the backend stages those points). */
int gpu_fused_sic_refused(int nt);
/* The fused kernel's Soft instances (GMI at s = 1) exist up to this many
 * streams, for the same reason: the 8x16 object's compile time, and with it
 * the build's critical path. */
#define GPU_FUSED_SOFT_MAX_TX 4
/* A fused soft launch of a link gpu_fused_soft_covers refuses: reports it,
 * -1 (never reached: the backend runs those on the detect kernel). */
int gpu_fused_soft_refused(const gpu_link &g);
template <int NT, int NR>
struct Fused {
  static int launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt, uint32_t *errors,
                    uint32_t *repair, unsigned long long *loss, cudaStream_t s);
};
/* The Soft instances' launchers (fused_soft_gpu.cu, an object per shape so
 * that they compile beside fused_gpu.cu's): called by Fused and
 * Repair when a loss buffer is given. */
template <int NT, int NR>
struct FusedSoft {
  static int launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt, uint32_t *errors,
                    uint32_t *repair, unsigned long long *loss, cudaStream_t s);
  static void repair(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt, const uint32_t *repair,
                     uint32_t *errors, uint32_t *fallbacks, unsigned long long *loss, unsigned blocks,
                     cudaStream_t s);
};
template <int NT, int NR>
struct Repair {
  static int launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt, const uint32_t *repair,
                    uint32_t *errors, uint32_t *fallbacks, unsigned long long *loss, cudaStream_t s);
};
template <int NT, int NR>
struct PilotRows {
  static int launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt, cudaStream_t s);
};
template <int NT, int NR>
struct Detect {
  static int launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt, const gpu_stacks *stacks,
                    const gpu_detect_out &out, cudaStream_t s);
};
/* The explicit instantiations of one group's shapes (a group's translation
 * unit, after the definitions): GPU_INSTANTIATE_GROUP(Fused). */
#define GPU_INSTANTIATE_(nt, nr) template struct GPU_FAMILY_<nt, nr>;
#define GPU_GROUP_LIST_(g) GPU_GROUP_LIST2_(g)
#define GPU_GROUP_LIST2_(g) OFDMSIM_CUDA_SHAPE_GROUP_##g

/* repair: [0] the number n of REs the fused kernel could not decide (float
 * inverse flagged), [1..n] their batch indices. gpu_launch_repair equalises
 * those n again in double and adds their errors and fallbacks per frame
 * (with loss: the fused soft launch's, their GMI losses too);
 * n is read on the device (launched after every fused batch, it costs a
 * launch when the list is empty), so the host never waits for the list. */
int gpu_launch_repair(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                      const uint32_t *repair, uint32_t *errors, uint32_t *fallbacks, unsigned long long *loss,
                      cudaStream_t s);

/* The fused mode's first pass with LS estimation (g.est.on): the pilot
 * rows g.est.yp from the draws (or the modem's output, Hk and yt as the
 * fused kernel takes them), then the estimates on the pilot symbols g.est.hp
 * (gpu_launch_estimate_pilots; lmmse2d: DMRS's despread estimates, or
 * nothing), which the per-RE kernels after it read. */
int gpu_launch_fused_estimate(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                              cudaStream_t s);

#endif
