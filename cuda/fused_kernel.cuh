/* The fused kernel and its repair kernel as templates, shared by the two
 * translation units that instantiate them: fused_gpu.cu (hard decisions:
 * zf, mmse, MMSE-SIC) and fused_soft_gpu.cu (zf and mmse with the GMI at
 * s = 1, the Soft instances). Two files so that nvcc compiles the hard
 * instances (per group of shapes) and the soft ones (per shape) in parallel:
 * in one object the Soft instances' per-constellation demappers doubled the
 * longest group's compile time, and with it the whole build's (an H200
 * machine's 16 cores: about 340 s before them, over 700 s with them in the
 * same object).
 * Everything here is in an anonymous namespace: each unit compiles its own
 * instances. */
#ifndef OFDMSIM_CUDA_FUSED_KERNEL_CUH
#define OFDMSIM_CUDA_FUSED_KERNEL_CUH

#include "cuda/gpu_internal.cuh"
#include "equalizer/fallback.h"
#include "equalizer/sic.h"
#include "equalizer/soft.h"

namespace {

constexpr int kBlock = 256;

/* Blocks of kBlock threads an SM must hold at once: a register cap for the
 * small links, whose straight-line RE the compiler would otherwise spread
 * over 110-130 registers, one or two blocks an SM, and lose the latency
 * hiding (measured on an H200: 2x2 QPSK 32.6 G RE/s at 110 registers, 38.6 at
 * 48; 4x4 16-QAM 8.5 at 134, 11.5 at 80). 48 and 80 registers spill
 * nothing there; larger links keep the compiler's choice. */
constexpr int fused_min_blocks(int nt, int nr) { return nt * nr <= 4 ? 5 : nt * nr <= 16 ? 3 : 1; }
/* The same for the Soft instances, whose demapper and double-precision
 * GMI loss add live state to every stream: caps of 80 and 128 registers
 * (ptxas, sm_90: no spill on 2x2 and 4x4; 64 spilled 124 bytes on 2x2). */
constexpr int fused_soft_min_blocks(int nt, int nr) { return nt * nr <= 4 ? 3 : nt * nr <= 16 ? 2 : 1; }

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
 * Pilot REs (comb or NR DMRS) carry no data: they are skipped, neither
 * decided nor counted, as the staged demap skips them. With LS estimation
 * the receiver's channel is the frame's estimate (gpu_re_front through
 * gpu_est_channel), made before this kernel by gpu_launch_fused_estimate.
 *
 * Specialisations take run-time generality out of the common links,
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
 *     41% of the floor with labels, against 40.7 and 83% before it).
 *   Pilots (with Exact only): as Plain, but with pilots (and with or
 *     without LS estimation): the realistic links' receiver without the
 *     spatial mix's, the CSI error's and the flat model's fading code.
 *
 * Sic: the receiver is ordered MMSE-SIC with hard decisions (equalizer/sic.h,
 * noise n0r as the staged joint kernel takes it) instead of zf or mmse: a
 * template parameter, so that the linear instances keep their registers. A
 * stage whose float inverse is flagged lists the RE for the repair kernel,
 * which runs the whole RE again with the double-precision stage
 * (det_mmse_sic): this kernel keeps none of that cold path's local memory.
 * Its register cap is the compiler's: at the linear 4x4's 80 (ptxas, sm_90)
 * the SIC stages spilled 104 bytes and took a 72-byte stack frame.
 *
 * Soft: zf or mmse with LLRs (max-log or exact) and their GMI loss at s = 1
 * (receiver.gmi = s1), no LLR leaving the kernel: each stream's LLRs from
 * x_hat and its post-equalisation variance, their quantised losses summed
 * per frame and stream into `loss` (soft_stream_count: the detect kernel's
 * arithmetic, detect_linear_gpu.cu, so the sums are that kernel's bit for
 * bit). Exact lean links only (gpu_fused_soft_covers); the GMI grid and
 * LLR exports stay on the detect kernel. */
enum fused_mode { kGeneric = 0, kPlain = 1, kPilots = 2 };

/* One stream of a soft RE: its bit errors (x_hat's decision against the sent
 * label) and its GMI loss at s = 1, added to err and loss, as the detect
 * kernel's soft_stream computes them for zf and mmse. BPS: the
 * constellation's bits as a literal, so that the demapper's loops over 16
 * levels and 8 bits fold to the constellation's own (the generic demapper
 * with a run-time bps is some 2400 PTX instructions, 300 with bps = 4:
 * most of the soft link's work); the same functions with the same values,
 * so the same results. */
template <int BPS>
__device__ __forceinline__ void soft_stream_bps(const gpu_link &g, cf32 x, float ginv_tt, uint32_t lab,
                                                uint32_t *err, unsigned long long *loss) {
  const int bps = BPS > 0 ? BPS : g.bps; /* 0: the run-time bps */
  *err += (uint32_t)__popc(qam_demap(bps, x) ^ lab);
  float llr[SOFT_MAX_BPS];
  soft_demap(bps, x, soft_post_var(g.equalizer == EQ_MMSE, g.n0r, ginv_tt), g.llr == LLR_EXACT, llr);
  *loss += soft_label_loss(bps, llr, lab);
}
__device__ __forceinline__ void soft_stream_count(const gpu_link &g, cf32 x, float ginv_tt, uint32_t lab,
                                                  uint32_t *err, unsigned long long *loss) {
  switch (g.bps) { /* uniform: one branch a warp */
    case 1: soft_stream_bps<1>(g, x, ginv_tt, lab, err, loss); break;
    case 2: soft_stream_bps<2>(g, x, ginv_tt, lab, err, loss); break;
    case 4: soft_stream_bps<4>(g, x, ginv_tt, lab, err, loss); break;
    case 6: soft_stream_bps<6>(g, x, ginv_tt, lab, err, loss); break;
    case 8: soft_stream_bps<8>(g, x, ginv_tt, lab, err, loss); break;
    default: soft_stream_bps<0>(g, x, ginv_tt, lab, err, loss); break;
  }
}

template <int NT, int NR, bool Exact, int Mode, bool Sic, bool Soft = false>
__global__ void __launch_bounds__(kBlock, Sic ? 1 : Soft ? fused_soft_min_blocks(NT, NR) : fused_min_blocks(NT, NR))
    fused_kernel(gpu_link g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ Hk,
                 const cf32 *__restrict__ yt, int per_thread, uint32_t *__restrict__ errors,
                 uint32_t *__restrict__ repair, unsigned long long *__restrict__ loss_out) {
  g.tx = g.re.tx = NT;
  if (Exact) {
    g.rx = g.re.rx = NR;
    g.links = g.re.links = NT * NR;
  }
  if (Mode != kGeneric) {
    g.re.spatial = 0;
    g.re.csi_std = 0.0f;
    g.re.fd.nu = 0.0;
    g.re.fd.drop = 1u;
  }
  if (Mode == kPlain) {
    g.re.pilots.spacing = 0;
    g.re.pilots.kind = PILOT_COMB;
    g.est.on = 0;
  }
  /* 32-bit positions: a frame's REs and a batch's blocks fit in 32 bits */
  const uint32_t rf = (uint32_t)g.rf, span = blockDim.x * (uint32_t)per_thread;
  const uint32_t bpf = (rf + span - 1) / span;
  const uint32_t f = blockIdx.x / bpf;
  const uint32_t base = (blockIdx.x - f * bpf) * span + threadIdx.x;
  uint32_t err[NT] = {}; /* stays zero for REs past the frame's end */
  unsigned long long loss[Soft ? NT : 1] = {};
  for (int j = 0; j < per_thread; j++) {
    const uint32_t m = base + (uint32_t)j * blockDim.x;
    if (m >= rf) break;
    if (Mode != kPlain && pilot_antenna(&g.re.pilots, m) >= 0) continue; /* a pilot: no data */
    uint32_t lab[NT];
    cf32 h[NR * NT], yv[NR];
    gpu_re_front<NT, NR>(g, c, Hk, yt, f, m, lab, h, yv);
    if (Sic) {
      uint32_t dec[NT];
      if (sic_stages(NR, NT, g.bps, h, yv, g.n0r, LLR_OFF, dec, NULL, 0) < 0) {
        repair[1 + atomicAdd(&repair[0], 1u)] = f * rf + m;
      } else {
        OFDM_UNROLL
        for (int t = 0; t < NT; t++) err[t] += (uint32_t)__popc(dec[t] ^ lab[t]);
      }
      continue;
    }
    cf32 gm[NT * NT], zv[NT], gi[NT * NT], xv[NT];
    mat_gram(NR, NT, h, g.diag, gm);
    mat_herm_mulvec(NR, NT, h, yv, zv);
    mat_inv_herm(NT, gm, gi);
    if (Soft) {
      /* unbiased always: the LLRs scale with x_hat */
      mat_equalize(NT, gi, zv, g.diag, xv);
      if (eq_flagged(xv[0])) {
        repair[1 + atomicAdd(&repair[0], 1u)] = f * rf + m;
      } else {
        OFDM_UNROLL
        for (int t = 0; t < NT; t++) soft_stream_count(g, xv[t], gi[t * NT + t].re, lab[t], &err[t], &loss[t]);
      }
      continue;
    }
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
  if (Soft) gpu_count_loss<NT>(loss, loss_out + (uint64_t)f * NT);
}

/* One listed RE (batch index i) in double (Sic: MMSE-SIC with its flagged
 * stages in double, det_mmse_sic, as the staged joint kernel runs it; Soft:
 * the double solution's LLRs and GMI loss, from its diagonal of G^-1, as the
 * detect kernel takes them for a flagged RE). */
template <int NT, int NR, bool Sic, bool Soft>
__device__ void repair_one(const gpu_link &g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ Hk,
                           const cf32 *__restrict__ yt, uint64_t i, uint32_t *__restrict__ errors,
                           uint32_t *__restrict__ fallbacks, unsigned long long *__restrict__ loss_out) {
  const uint64_t f = i / g.rf, m = i - f * g.rf;
  uint32_t lab[NT];
  cf32 h[NR * NT], yv[NR], xv[NT];
  float gd[NT];
  gpu_re_front<NT, NR>(g, c, Hk, yt, f, m, lab, h, yv);
  uint32_t dec[NT];
  if (Sic) det_mmse_sic(NR, NT, g.bps, h, yv, g.n0r, LLR_OFF, dec, NULL);
  else eq_solve_double(NR, NT, h, yv, g.diag, xv, Soft ? gd : NULL);
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) {
    uint32_t e = 0;
    unsigned long long l = 0;
    if (Soft) soft_stream_count(g, xv[t], gd[t], lab[t], &e, &l);
    else e = Sic ? (uint32_t)__popc(dec[t] ^ lab[t]) : re_bit_errors(g.bps, xv[t], lab[t]);
    if (e) atomicAdd(&errors[f * NT + t], e);
    if (l) atomicAdd(&loss_out[f * NT + t], l);
  }
  atomicAdd(&fallbacks[f], 1u);
}

/* The listed REs again, equalised in double (equalizer/fallback.h), their
 * errors added to their frame's counters and counted as fallbacks. The list's
 * length is read here, on the device, so that the host never waits for it:
 * the repair follows the fused kernel on the stream, and the next batch
 * follows it before this one's counters reach the host. A fixed grid strides
 * over the list (most batches have none: every thread leaves at once). */
template <int NT, int NR, bool Sic, bool Soft = false>
__global__ void __launch_bounds__(kBlock)
    repair_kernel(gpu_link g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ Hk,
                  const cf32 *__restrict__ yt, const uint32_t *__restrict__ repair,
                  uint32_t *__restrict__ errors, uint32_t *__restrict__ fallbacks,
                  unsigned long long *__restrict__ loss_out) {
  const uint32_t n = repair[0];
  for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
    repair_one<NT, NR, Sic, Soft>(g, c, Hk, yt, repair[1 + k], errors, fallbacks, loss_out);
}

/* The fused grid of a batch: blocks and REs a thread. */
struct fused_grid {
  int block, per_thread;
  unsigned blocks;
};
fused_grid fused_grid_of(const gpu_link &g) {
  fused_grid q;
  q.block = gpu_frame_block(g.rf);
  q.per_thread = fused_per_thread(g.rf, q.block);
  const uint64_t span = (uint64_t)q.block * q.per_thread;
  q.blocks = (unsigned)(g.frames * ((g.rf + span - 1) / span));
  return q;
}

}  // namespace

#endif
