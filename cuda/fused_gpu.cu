/* The fused link: one thread per RE from its draws (or the modem's output) to
 * its bit-error counts, everything in registers and nothing stored on the way
 * but the per-frame, per-stream counters. The per-RE formulas are those of
 * core/re.h, shared with the staged kernels and the CPU, and the algebra is
 * equalizer/smallmat.h.
 *
 * Compiled once per group of (tx, rx) shapes (OFDMSIM_SHAPE_GROUP, set by
 * CMake; gpu_internal.cuh), each group its own object, so that the groups'
 * kernels compile in parallel. */
#include <stdio.h>

#include "cuda/check.h"
#include "cuda/gpu_internal.cuh"
#include "equalizer/fallback.h"

#ifndef OFDMSIM_SHAPE_GROUP
#error "compiled once per group of shapes: CMake sets OFDMSIM_SHAPE_GROUP (cuda/shapes.cmake)"
#endif

namespace {

constexpr int kBlock = 256;

/* Blocks of kBlock threads an SM must hold at once: a register cap for the
 * small links, whose straight-line RE the compiler would otherwise spread
 * over 110-130 registers, one or two blocks an SM, and lose the latency
 * hiding (measured on an H200: 2x2 QPSK 32.6 G RE/s at 110 registers, 38.6 at
 * 48; 4x4 16-QAM 8.5 at 134, 11.5 at 80). 48 and 80 registers spill
 * nothing there; larger links keep the compiler's choice. */
constexpr int fused_min_blocks(int nt, int nr) { return nt * nr <= 4 ? 5 : nt * nr <= 16 ? 3 : 1; }

/* REs of one frame a thread takes in turn: enough that its set-up (frame
 * position, key, the block's error reduction) is spread over several, few
 * enough that a batch still fills the GPU many times over. */
constexpr int kMaxPerThread = 8;

/* REs a thread of a `block`-thread block takes for frames of rf REs. */
int fused_per_thread(uint64_t rf, int block) {
  const uint64_t rounds = (rf + (uint64_t)block - 1) / (uint64_t)block;
  return rounds < (uint64_t)kMaxPerThread ? (int)rounds : kMaxPerThread;
}

/* REs m from their draws to their error counts: block b of frame f = b / bpf
 * covers REs [(b mod bpf) * span, + span) of the frame, span = blockDim *
 * per_thread, thread x takes m = base + x + j * blockDim (a warp's REs stay
 * contiguous, so Hk and yt loads coalesce). An RE whose float inverse is
 * flagged singular is not decided here: it goes on the repair list (batch
 * index f*R_f + m) for repair_kernel, so that this kernel, which runs for
 * every RE, carries none of the double-precision path's registers.
 * MMSE's unbiasing (a positive gain per stream) changes no sign, so BPSK and
 * QPSK decide without it (g.unbias = 0 there).
 *
 * Two specialisations take run-time generality out of the common links,
 * where it costs instructions even when its branches are not taken (they cut
 * the RE into blocks the scheduler cannot interleave, and the spatial mix's
 * scratch lives in local memory). Measured with Nsight Compute on 2x2 QPSK
 * MMSE (instructions a RE): 629 generic, 551 both.
 *   Exact: rx == NR. The shape becomes compile-time constants (the launcher
 *     dispatches on tx, so tx == NT always): no selects zeroing the padding
 *     rows of an rx below NR.
 *   Plain (with Exact only): no spatial correlation or Rician mixing, no CSI
 *     error, no pilots, no fading in time or drops of the flat model; those
 *     steps vanish at compile time. The flat model's fading process
 *     (core/flat_fading.h) works on a run-time-sized scratch and in double:
 *     left live, it put a 368-byte stack frame and 196 bytes of spill loads
 *     in the 2x2 kernel and halved its rate (H200: 2x2 QPSK 20.4 G REs/s,
 *     41% of the floor with labels, against 40.7 and 83% before it). */
template <int NT, int NR, bool Exact, bool Plain>
__global__ void __launch_bounds__(kBlock, fused_min_blocks(NT, NR))
    fused_kernel(gpu_link g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ Hk,
                 const cf32 *__restrict__ yt, int per_thread, uint32_t *__restrict__ errors,
                 uint32_t *__restrict__ repair) {
  g.tx = g.re.tx = NT;
  if (Exact) {
    g.rx = g.re.rx = NR;
    g.links = g.re.links = NT * NR;
  }
  if (Plain) {
    g.re.spatial = 0;
    g.re.csi_std = 0.0f;
    g.re.pilots.spacing = 0;
    g.re.pilots.kind = PILOT_COMB;
    g.re.fd.nu = 0.0;
    g.re.fd.drop = 1u;
  }
  /* 32-bit positions: a frame's REs and a batch's blocks fit in 32 bits */
  const uint32_t rf = (uint32_t)g.rf, span = blockDim.x * (uint32_t)per_thread;
  const uint32_t bpf = (rf + span - 1) / span;
  const uint32_t f = blockIdx.x / bpf;
  const uint32_t base = (blockIdx.x - f * bpf) * span + threadIdx.x;
  uint32_t err[NT] = {}; /* stays zero for REs past the frame's end */
  for (int j = 0; j < per_thread; j++) {
    const uint32_t m = base + (uint32_t)j * blockDim.x;
    if (m >= rf) break;
    uint32_t lab[NT];
    cf32 h[NR * NT], yv[NR];
    gpu_re_front<NT, NR>(g, c, Hk, yt, f, m, lab, h, yv);
    cf32 gm[NT * NT], zv[NT], gi[NT * NT], xv[NT];
    mat_gram(NR, NT, h, g.diag, gm);
    mat_herm_mulvec(NR, NT, h, yv, zv);
    mat_inv_herm(NT, gm, gi);
    mat_mulvec(NT, gi, zv, xv);
    if (g.unbias) {
      OFDM_UNROLL
      for (int t = 0; t < NT; t++) xv[t] = cf_scale(xv[t], mat_unbias_gain(g.diag, gi[t * NT + t]));
    }
    if (eq_flagged(xv[0])) {
      repair[1 + atomicAdd(&repair[0], 1u)] = f * rf + m;
    } else {
      OFDM_UNROLL
      for (int t = 0; t < NT; t++) err[t] += re_bit_errors_q(&g.re.qam, xv[t], lab[t]);
    }
  }
  gpu_count_errors<NT>(err, errors + (uint64_t)f * NT);
}

/* One listed RE (batch index i) in double. */
template <int NT, int NR>
__device__ void repair_one(const gpu_link &g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ Hk,
                           const cf32 *__restrict__ yt, uint64_t i, uint32_t *__restrict__ errors,
                           uint32_t *__restrict__ fallbacks) {
  const uint64_t f = i / g.rf, m = i - f * g.rf;
  uint32_t lab[NT];
  cf32 h[NR * NT], yv[NR], xv[NT];
  gpu_re_front<NT, NR>(g, c, Hk, yt, f, m, lab, h, yv);
  eq_solve_double(NR, NT, h, yv, g.diag, xv, NULL);
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) {
    const uint32_t e = re_bit_errors(g.bps, xv[t], lab[t]);
    if (e) atomicAdd(&errors[f * NT + t], e);
  }
  atomicAdd(&fallbacks[f], 1u);
}

/* The listed REs again, equalised in double (equalizer/fallback.h), their
 * errors added to their frame's counters and counted as fallbacks. The list's
 * length is read here, on the device, so that the host never waits for it:
 * the repair follows the fused kernel on the stream, and the next batch
 * follows it before this one's counters reach the host. A fixed grid strides
 * over the list (most batches have none: every thread leaves at once). */
template <int NT, int NR>
__global__ void __launch_bounds__(kBlock)
    repair_kernel(gpu_link g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ Hk,
                  const cf32 *__restrict__ yt, const uint32_t *__restrict__ repair,
                  uint32_t *__restrict__ errors, uint32_t *__restrict__ fallbacks) {
  const uint32_t n = repair[0];
  for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
    repair_one<NT, NR>(g, c, Hk, yt, repair[1 + k], errors, fallbacks);
}

}  // namespace

template <int NT, int NR>
int Fused<NT, NR>::launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt, uint32_t *errors,
                          uint32_t *repair, cudaStream_t s) {
  const int block = gpu_frame_block(g.rf);
  const int per_thread = fused_per_thread(g.rf, block);
  const uint64_t span = (uint64_t)block * per_thread;
  const uint64_t blocks = g.frames * ((g.rf + span - 1) / span);
  const bool plain = !g.re.spatial && g.re.csi_std <= 0.0f && !pilot_any(&g.re.pilots) && !(g.re.fd.nu > 0.0) &&
                     g.re.fd.drop == 1u;
  /* (rx < NR exists only for NR > 1: no such kernel for NR = 1) */
  constexpr bool kPadded = NR > 1;
  if ((NR == 1 || g.rx == NR) && plain)
    fused_kernel<NT, NR, true, true><<<(unsigned)blocks, block, 0, s>>>(g, c, Hk, yt, per_thread, errors, repair);
  else if (NR == 1 || g.rx == NR)
    fused_kernel<NT, NR, true, false><<<(unsigned)blocks, block, 0, s>>>(g, c, Hk, yt, per_thread, errors, repair);
  else
    fused_kernel<NT, NR, !kPadded, false><<<(unsigned)blocks, block, 0, s>>>(g, c, Hk, yt, per_thread, errors,
                                                                            repair);
  CUDA_TRY_LAUNCH("fused_kernel");
  return 0;
}

template <int NT, int NR>
int Repair<NT, NR>::launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                           const uint32_t *repair, uint32_t *errors, uint32_t *fallbacks, cudaStream_t s) {
  /* enough blocks to fill the device when every RE is listed, no more */
  const unsigned most = (unsigned)(g.sm_count > 0 ? g.sm_count : 128) * (2048 / kBlock);
  const unsigned blocks = gpu_blocks(g.R, kBlock) < most ? gpu_blocks(g.R, kBlock) : most;
  repair_kernel<NT, NR><<<blocks, kBlock, 0, s>>>(g, c, Hk, yt, repair, errors, fallbacks);
  CUDA_TRY_LAUNCH("repair_kernel");
  return 0;
}

/* This group's shapes (the launchers, gpu_launch_fused and gpu_launch_repair,
 * are shapes.cu's). */
#define GPU_FAMILY_ Fused
GPU_GROUP_LIST_(OFDMSIM_SHAPE_GROUP)(GPU_INSTANTIATE_)
#undef GPU_FAMILY_
#define GPU_FAMILY_ Repair
GPU_GROUP_LIST_(OFDMSIM_SHAPE_GROUP)(GPU_INSTANTIATE_)
#undef GPU_FAMILY_
