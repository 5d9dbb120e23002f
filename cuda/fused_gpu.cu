/* The fused link: one thread per RE from its draws (or the modem's output) to
 * its bit-error counts, everything in registers and nothing stored on the way
 * but the per-frame, per-stream counters. The per-RE formulas are those of
 * core/re.h, shared with the staged kernels and the CPU, and the algebra is
 * equalizer/smallmat.h.
 *
 * Compiled once per group of (tx, rx) shapes (OFDMSIM_SHAPE_GROUP, set by
 * CMake; gpu_internal.cuh), each group its own object, so that the groups'
 * kernels compile in parallel. The kernel templates are fused_kernel.cuh's;
 * this file instantiates the hard-decision ones, fused_soft_gpu.cu the
 * Soft ones (GMI at s = 1). */
#include <stdio.h>

#include "cuda/check.h"
#include "cuda/fused_kernel.cuh"

#ifndef OFDMSIM_SHAPE_GROUP
#error "compiled once per group of shapes: CMake sets OFDMSIM_SHAPE_GROUP (cuda/shapes.cmake)"
#endif

namespace {

/* The fused mode's pilot rows, LS estimation's input: the received rows of
 * every pilot symbol (DMRS: every DMRS symbol), all rx antennas, one thread
 * a (frame, row q, subcarrier k) from its draws (or the modem's output) as
 * the fused kernel computes y, yp[((f rx + r) yp_rows + q) K + k]: the
 * staged y stack's values on those symbols. */
template <int NT, int NR>
__global__ void __launch_bounds__(kBlock)
    pilot_rows_kernel(gpu_link g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ Hk,
                      const cf32 *__restrict__ yt) {
  g.est.on = 0; /* y alone: the receiver's channel is not asked for */
  const uint64_t K = (uint64_t)g.K, per_frame = (uint64_t)g.est.yp_rows * K;
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.frames * per_frame) return;
  const uint64_t f = j / per_frame, rest = j - f * per_frame;
  const int q = (int)(rest / K), k = (int)(rest - (uint64_t)q * K);
  const uint64_t m = (uint64_t)gpu_pilot_row_symbol(&g.re.pilots, q) * K + (uint64_t)k;
  uint32_t lab[NT];
  cf32 h[NR * NT], yv[NR];
  gpu_re_front<NT, NR>(g, c, Hk, yt, f, m, lab, h, yv);
  cf32 *out = g.est.yp + f * (uint64_t)g.rx * per_frame + rest;
  OFDM_UNROLL
  for (int r = 0; r < NR; r++)
    if (r < g.rx) gpu_store(out + (uint64_t)r * per_frame, yv[r]);
}

}  // namespace

template <int NT, int NR>
int PilotRows<NT, NR>::launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                              cudaStream_t s) {
  const uint64_t n = g.frames * (uint64_t)g.est.yp_rows * (uint64_t)g.K;
  pilot_rows_kernel<NT, NR><<<gpu_blocks(n, kBlock), kBlock, 0, s>>>(g, c, Hk, yt);
  CUDA_TRY_LAUNCH("pilot_rows_kernel");
  return 0;
}

namespace {

/* The fused kernel's instances of one receiver (Sic or zf/mmse). */
template <int NT, int NR, bool Sic>
void launch_fused(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt, uint32_t *errors,
                  uint32_t *repair, cudaStream_t s) {
  const fused_grid q = fused_grid_of(g);
  /* no mix, no CSI error, no fading in time or drops of the flat model;
   * Plain also no pilots */
  const bool lean = gpu_link_lean(g);
  const bool pilots = pilot_any(&g.re.pilots);
  const bool plain = lean && !pilots;
  /* (rx < NR exists only for NR > 1: no such kernel for NR = 1) */
  constexpr bool kPadded = NR > 1;
  if ((NR == 1 || g.rx == NR) && plain)
    fused_kernel<NT, NR, true, kPlain, Sic>
        <<<q.blocks, q.block, 0, s>>>(g, c, Hk, yt, q.per_thread, errors, repair, NULL);
  else if ((NR == 1 || g.rx == NR) && lean && pilots)
    fused_kernel<NT, NR, true, kPilots, Sic>
        <<<q.blocks, q.block, 0, s>>>(g, c, Hk, yt, q.per_thread, errors, repair, NULL);
  else if (NR == 1 || g.rx == NR)
    fused_kernel<NT, NR, true, kGeneric, Sic>
        <<<q.blocks, q.block, 0, s>>>(g, c, Hk, yt, q.per_thread, errors, repair, NULL);
  else
    fused_kernel<NT, NR, !kPadded, kGeneric, Sic>
        <<<q.blocks, q.block, 0, s>>>(g, c, Hk, yt, q.per_thread, errors, repair, NULL);
}

}  // namespace

/* The MMSE-SIC instances of a shape: only up to GPU_FUSED_SIC_MAX_TX streams
 * (gpu_internal.cuh); above it the backend runs hard MMSE-SIC staged, and a
 * launch here is refused rather than compiled. */
template <int NT, int NR, bool Compiled = (NT <= GPU_FUSED_SIC_MAX_TX)>
struct FusedSic {
  static int launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt, uint32_t *errors,
                    uint32_t *repair, cudaStream_t s) {
    launch_fused<NT, NR, true>(g, c, Hk, yt, errors, repair, s);
    return 0;
  }
  static int repair(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt, const uint32_t *repair,
                    uint32_t *errors, uint32_t *fallbacks, unsigned blocks, cudaStream_t s) {
    repair_kernel<NT, NR, true><<<blocks, kBlock, 0, s>>>(g, c, Hk, yt, repair, errors, fallbacks, NULL);
    return 0;
  }
};
template <int NT, int NR>
struct FusedSic<NT, NR, false> {
  static int launch(const gpu_link &, const gpu_consts *, const cf32 *, const cf32 *, uint32_t *, uint32_t *,
                    cudaStream_t) {
    return gpu_fused_sic_refused(NT);
  }
  static int repair(const gpu_link &, const gpu_consts *, const cf32 *, const cf32 *, const uint32_t *, uint32_t *,
                    uint32_t *, unsigned, cudaStream_t) {
    return gpu_fused_sic_refused(NT);
  }
};

template <int NT, int NR>
int Fused<NT, NR>::launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt, uint32_t *errors,
                          uint32_t *repair, unsigned long long *loss, cudaStream_t s) {
  if (loss) {
    if (FusedSoft<NT, NR>::launch(g, c, Hk, yt, errors, repair, loss, s)) return -1;
  } else if (g.equalizer == EQ_MMSE_SIC) {
    if (FusedSic<NT, NR>::launch(g, c, Hk, yt, errors, repair, s)) return -1;
  } else {
    launch_fused<NT, NR, false>(g, c, Hk, yt, errors, repair, s);
  }
  CUDA_TRY_LAUNCH("fused_kernel");
  return 0;
}

template <int NT, int NR>
int Repair<NT, NR>::launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                           const uint32_t *repair, uint32_t *errors, uint32_t *fallbacks, unsigned long long *loss,
                           cudaStream_t s) {
  /* enough blocks to fill the device when every RE is listed, no more */
  const unsigned most = (unsigned)(g.sm_count > 0 ? g.sm_count : 128) * (2048 / kBlock);
  const unsigned blocks = gpu_blocks(g.R, kBlock) < most ? gpu_blocks(g.R, kBlock) : most;
  if (loss) {
    FusedSoft<NT, NR>::repair(g, c, Hk, yt, repair, errors, fallbacks, loss, blocks, s);
  } else if (g.equalizer == EQ_MMSE_SIC) {
    if (FusedSic<NT, NR>::repair(g, c, Hk, yt, repair, errors, fallbacks, blocks, s)) return -1;
  } else {
    repair_kernel<NT, NR, false><<<blocks, kBlock, 0, s>>>(g, c, Hk, yt, repair, errors, fallbacks, NULL);
  }
  CUDA_TRY_LAUNCH("repair_kernel");
  return 0;
}

/* This group's shapes (the launchers, gpu_launch_fused, gpu_launch_repair
 * and gpu_launch_fused_estimate, are shapes.cu's). */
#define GPU_FAMILY_ Fused
GPU_GROUP_LIST_(OFDMSIM_SHAPE_GROUP)(GPU_INSTANTIATE_)
#undef GPU_FAMILY_
#define GPU_FAMILY_ Repair
GPU_GROUP_LIST_(OFDMSIM_SHAPE_GROUP)(GPU_INSTANTIATE_)
#undef GPU_FAMILY_
#define GPU_FAMILY_ PilotRows
GPU_GROUP_LIST_(OFDMSIM_SHAPE_GROUP)(GPU_INSTANTIATE_)
#undef GPU_FAMILY_
