/* The fused kernel's Soft instances: zf or mmse with LLRs (max-log or exact)
 * whose only use is the GMI at s = 1 (receiver.gmi = s1), their losses
 * summed per frame and stream (fused_kernel.cuh, Soft), and the Soft repair
 * kernel for the REs whose float inverse is flagged.
 *
 * Compiled once per shape (OFDMSIM_SHAPE_GROUP = 4x16 and the like, set by
 * CMake: cuda/shapes.cmake's OFDMSIM_CU_PER_SHAPE), beside fused_gpu.cu's
 * hard instances, compiled per group of shapes, so that they all compile in
 * parallel. */
#include <stdio.h>

#include "cuda/check.h"
#include "cuda/fused_kernel.cuh"

#ifndef OFDMSIM_SHAPE_GROUP
#error "compiled once per shape: CMake sets OFDMSIM_SHAPE_GROUP (cuda/shapes.cmake)"
#endif

namespace {

/* The Soft instances (zf/mmse, GMI at s = 1): exact lean links only, the
 * caller having checked gpu_fused_soft_covers. */
template <int NT, int NR>
void launch_fused_soft(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt, uint32_t *errors,
                       uint32_t *repair, unsigned long long *loss, cudaStream_t s) {
  const fused_grid q = fused_grid_of(g);
  if (pilot_any(&g.re.pilots))
    fused_kernel<NT, NR, true, kPilots, false, true>
        <<<q.blocks, q.block, 0, s>>>(g, c, Hk, yt, q.per_thread, errors, repair, loss);
  else
    fused_kernel<NT, NR, true, kPlain, false, true>
        <<<q.blocks, q.block, 0, s>>>(g, c, Hk, yt, q.per_thread, errors, repair, loss);
}

/* The Soft instances of a shape: only up to GPU_FUSED_SOFT_MAX_TX streams
 * (gpu_internal.cuh), as the SIC ones; above it gpu_fused_soft_covers says
 * no and the backend takes those links on the detect kernel. */
template <int NT, int NR, bool Compiled = (NT <= GPU_FUSED_SOFT_MAX_TX)>
struct SoftInstances {
  static int launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt, uint32_t *errors,
                    uint32_t *repair, unsigned long long *loss, cudaStream_t s) {
    if (NR != 1 && g.rx != NR) return gpu_fused_soft_refused(g);
    launch_fused_soft<NT, NR>(g, c, Hk, yt, errors, repair, loss, s);
    return 0;
  }
  static void repair(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt, const uint32_t *repair,
                     uint32_t *errors, uint32_t *fallbacks, unsigned long long *loss, unsigned blocks,
                     cudaStream_t s) {
    repair_kernel<NT, NR, false, true><<<blocks, kBlock, 0, s>>>(g, c, Hk, yt, repair, errors, fallbacks, loss);
  }
};
template <int NT, int NR>
struct SoftInstances<NT, NR, false> {
  static int launch(const gpu_link &g, const gpu_consts *, const cf32 *, const cf32 *, uint32_t *, uint32_t *,
                    unsigned long long *, cudaStream_t) {
    return gpu_fused_soft_refused(g);
  }
  static void repair(const gpu_link &, const gpu_consts *, const cf32 *, const cf32 *, const uint32_t *, uint32_t *,
                     uint32_t *, unsigned long long *, unsigned, cudaStream_t) {}
};

}  // namespace

template <int NT, int NR>
int FusedSoft<NT, NR>::launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                              uint32_t *errors, uint32_t *repair, unsigned long long *loss, cudaStream_t s) {
  return SoftInstances<NT, NR>::launch(g, c, Hk, yt, errors, repair, loss, s);
}

template <int NT, int NR>
void FusedSoft<NT, NR>::repair(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                               const uint32_t *repair, uint32_t *errors, uint32_t *fallbacks,
                               unsigned long long *loss, unsigned blocks, cudaStream_t s) {
  SoftInstances<NT, NR>::repair(g, c, Hk, yt, repair, errors, fallbacks, loss, blocks, s);
}

/* This object's shape. */
#define GPU_FAMILY_ FusedSoft
GPU_GROUP_LIST_(OFDMSIM_SHAPE_GROUP)(GPU_INSTANTIATE_)
#undef GPU_FAMILY_
