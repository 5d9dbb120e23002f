/* The coded link's judgement on the device: cuda/tb_judge_gpu.cuh says how
 * the work is split and why the counts are tb_judge's. */
#include "cuda/tb_judge_gpu.cuh"

#include <stdio.h>

#include "cuda/check.h"
#include "cuda/warp_crc.cuh"

namespace {

constexpr int kMaxWarps = 8; /* warps a TB at most: C > 8 blocks take turns */

__device__ __forceinline__ uint32_t warp_sum(uint32_t v) {
  for (int off = 16; off; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

/* A thread block a TB (blockIdx.x = q), blockDim.x a multiple of 32. Every
 * branch before a shuffle is uniform across the warp (r is the warp's), so
 * the full-mask shuffles see all 32 lanes. */
__global__ void __launch_bounds__(kMaxWarps * 32)
    tb_judge_kernel(ldpc_segmentation seg, int n, const int32_t *__restrict__ list, const uint8_t *__restrict__ bits,
                    size_t stride, const ldpc_decode_result *__restrict__ res, const uint8_t *__restrict__ tb,
                    size_t tb_stride, const uint32_t *__restrict__ cb_crc, gpu_tb_counts *__restrict__ out) {
  __shared__ uint32_t s_crc_failed, s_tb_reg, s_cb_errors, s_info_errors, s_iterations;
  const int q = (int)blockIdx.x;
  if (q >= n) return; /* the whole thread block leaves: no barrier is missed */
  if (threadIdx.x == 0) {
    s_crc_failed = 0;
    s_tb_reg = 0;
    s_cb_errors = 0;
    s_info_errors = 0;
    s_iterations = 0;
  }
  __syncthreads();
  const uint64_t f = list ? (uint64_t)list[q] : (uint64_t)q;
  const int warp = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31), warps = (int)(blockDim.x >> 5);
  const int payload = seg.k_prime - seg.cb_crc, kind = ldpc_tb_crc_kind(&seg);
  const uint8_t *sent = tb + (size_t)f * tb_stride;
  for (int r = warp; r < seg.c; r += warps) {
    const size_t b = (size_t)q * (size_t)seg.c + (size_t)r;
    const uint8_t *d = bits + b * stride;
    const uint32_t crc = seg.cb_crc ? cb_crc[(size_t)f * (size_t)seg.c + (size_t)r] : 0u;
    /* the decisions against the block sent: judge_block's memcmp over K',
     * judge_tb's information bits (TB bits r payload + j below A) */
    uint32_t wrong = 0, info = 0;
    const int info_end = seg.a - r * payload; /* the block's payload bits below it are information */
    for (int j = lane; j < seg.k_prime; j += 32) {
      const uint32_t w = d[j] != ldpc_segment_block_bit(&seg, sent, r, crc, j);
      wrong += w;
      info += w && j < payload && j < info_end;
    }
    wrong = warp_sum(wrong);
    info = warp_sum(info);
    /* crc_check(CRC24B, bits, K'), and the payload's share of the TB's */
    const uint32_t cb_failed =
        seg.cb_crc ? (warp_crc_register(CRC24B, d, seg.k_prime, 0, lane) >> (32 - seg.cb_crc)) != 0u : 0u;
    const uint32_t reg = warp_crc_register(kind, d, payload, (uint64_t)(seg.b - (r + 1) * payload), lane);
    if (lane == 0) {
      atomicOr(&s_crc_failed, cb_failed);
      atomicXor(&s_tb_reg, reg);
      atomicAdd(&s_cb_errors, wrong != 0u);
      atomicAdd(&s_info_errors, info);
      atomicAdd(&s_iterations, (uint32_t)res[b].iterations);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint32_t tb_failed = (s_tb_reg >> (32 - crc_kind_length(kind))) != 0u;
    gpu_tb_counts o;
    o.tb_error = (s_crc_failed | tb_failed) || s_info_errors > 0;
    o.cb_errors = s_cb_errors;
    o.info_errors = s_info_errors;
    o.iterations = s_iterations;
    out[q] = o;
  }
}

}  // namespace

int gpu_tb_judge(const ldpc_segmentation *seg, int n, const int32_t *list, const uint8_t *bits, size_t stride,
                 const ldpc_decode_result *res, const uint8_t *tb, size_t tb_stride, const uint32_t *cb_crc,
                 gpu_tb_counts *out, cudaStream_t st) {
  if (n < 0 || seg->c < 1 || seg->k_prime <= seg->cb_crc || stride < (size_t)seg->k_prime ||
      (seg->cb_crc && !cb_crc)) {
    char why[160];
    snprintf(why, sizeof why, "gpu_tb_judge: %d TBs of %d blocks, K' %d, stride %zu", n, seg->c, seg->k_prime,
             stride);
    gpu_report_failure(__FILE__, __LINE__, why, "bad input", "out of range", 0);
    return -1;
  }
  if (n == 0) return 0;
  const int warps = seg->c < kMaxWarps ? seg->c : kMaxWarps;
  tb_judge_kernel<<<(unsigned)n, (unsigned)(32 * warps), 0, st>>>(*seg, n, list, bits, stride, res, tb, tb_stride,
                                                                  cb_crc, out);
  CUDA_TRY_LAUNCH("tb_judge_kernel");
  return 0;
}
