/* Packing a warp's work: the Soft kernels (cuda/fused_kernel.cuh,
 * cuda/detect_gpu.cuh) compute a bit's loss series only for the bits that
 * need one, and share those out over the warp's lanes instead of leaving
 * each lane its own (a warp runs a branch as often as its busiest lane
 * does). Device code only. */
#ifndef OFDMSIM_CUDA_WARP_PACK_CUH
#define OFDMSIM_CUDA_WARP_PACK_CUH

#include "core/cplx.h"
#include "equalizer/soft.h"

namespace {

/* Packs each lane's values v[k] for the bits k of `need` (k <
 * SOFT_MAX_BPS) into wq, the warp's 32 SOFT_MAX_BPS floats of shared
 * memory, lane after lane (each lane's place: the exclusive prefix of the
 * counts), and returns the warp's total; every lane of the warp calls it.
 * With a total, the values are visible to the whole warp on return, and
 * the caller ends its reads with __syncwarp() before the queue is written
 * again; 0 (the same on every lane) writes nothing. The Soft kernels share
 * out the bits that need a series this way, a bit a lane. */
__device__ __forceinline__ int gpu_warp_pack(unsigned need, const float *v, float *wq) {
  const int lane = (int)(threadIdx.x & 31u);
  const int count = __popc(need);
  int upto = count;
  OFDM_UNROLL
  for (int d = 1; d < 32; d <<= 1) {
    const int below = __shfl_up_sync(0xffffffffu, upto, d);
    if (lane >= d) upto += below;
  }
  const int total = __shfl_sync(0xffffffffu, upto, 31);
  if (total == 0) return 0;
  int at = upto - count;
  OFDM_UNROLL
  for (int k = 0; k < SOFT_MAX_BPS; k++)
    if ((need >> k) & 1u) wq[at++] = v[k];
  __syncwarp();
  return total;
}

}  // namespace

#endif
