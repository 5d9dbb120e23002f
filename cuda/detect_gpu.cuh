/* What detect_gpu.cu (the joint detectors) and detect_linear_gpu.cu (zf and
 * mmse with soft outputs, per shape) share: the block size and the soft
 * output of one stream. Private to those two files. */
#ifndef OFDMSIM_DETECT_GPU_CUH
#define OFDMSIM_DETECT_GPU_CUH

#include "cuda/gpu_internal.cuh"
#include "equalizer/soft.h"
#include "cuda/warp_pack.cuh"

namespace {

constexpr int kBlock = 128;

/* One stream's soft output: its LLRs (from the equalised symbol z and its
 * variance, or given in `given` by a joint detector), exported to llr/bits
 * when those are not NULL, and its GMI loss against the sent label where
 * at_1 (0 returned without: receiver.gmi = none); with a grid (not NULL,
 * receiver.gmi = sup), its losses at the GMI grid's scalings added to it. */
__device__ __noinline__ unsigned long long soft_stream(int bps, cf32 z, float var, int exact, const float *given,
                                                       uint32_t label, float *llr_out, uint8_t *bits_out,
                                                       int at_1, uint64_t *grid, float *signed_out = NULL) {
  float llr[SOFT_MAX_BPS];
  if (given)
    for (int k = 0; k < bps; k++) llr[k] = given[k];
  else
    soft_demap(bps, z, var, exact, llr);
  for (int k = 0; k < bps; k++) {
    if (llr_out) llr_out[k] = llr[k];
    if (bits_out) bits_out[k] = (uint8_t)((label >> k) & 1u);
    if (signed_out) signed_out[k] = soft_signed_llr_(llr[k], (label >> k) & 1u);
  }
  if (grid) return soft_label_loss_grid(bps, llr, label, grid);
  return at_1 ? soft_label_loss(bps, llr, label) : 0;
}

/* The GMI grid's sums but s = 1's (soft_grid_bit_) of a warp's streams,
 * every lane of the warp calling (have: whether the lane holds an RE; ms
 * its streams' signed LLRs, SOFT_MAX_BPS a stream). A right bit at the clip
 * (at high SNR most bits: 74% at the benchmarks' 20 dB) has the same losses
 * as any other such bit: they are counted, and the count times one's
 * quanta added. The others are packed over the warp's lanes into wq (this
 * warp's 32 SOFT_MAX_BPS floats of shared memory) and shared out a bit a
 * lane, so a warp runs the grid's 22 series (s = 1's apart) about as often
 * as its lanes hold such bits, not as often as its busiest lane does. Every
 * loss is a whole number of quanta, so the sums are soft_label_loss_grid's
 * bit for bit, whichever lane adds which. */
template <int NT>
__device__ __forceinline__ void soft_grid_packed(int bps, bool have, const float *ms, uint64_t *grid, float *wq) {
  const int lane = (int)(threadIdx.x & 31u);
  double acc[GMI_GRID];
  OFDM_UNROLL
  for (int k = 0; k < GMI_GRID; k++) acc[k] = 0.0;
  uint64_t clipped = 0;
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) {
    unsigned need = 0;
    if (have) {
      OFDM_UNROLL
      for (int k = 0; k < SOFT_MAX_BPS; k++) {
        if (k >= bps) continue;
        const int at_clip = ms[t * SOFT_MAX_BPS + k] == SOFT_LLR_CLIP;
        clipped += (uint64_t)at_clip;
        need |= (unsigned)!at_clip << k;
      }
    }
    const int total = gpu_warp_pack(need, ms + t * SOFT_MAX_BPS, wq);
    if (total == 0) continue;
    for (int i = lane; i < total; i += 32) soft_grid_bit_(wq[i], 1u, acc);
    __syncwarp(); /* the queue is read before the next stream's writes */
  }
  OFDM_UNROLL
  for (int k = 0; k < GMI_GRID; k++) grid[k] += (uint64_t)(int64_t)acc[k]; /* < 2^53: exact */
  if (clipped) {
    double q[GMI_GRID];
    OFDM_UNROLL
    for (int k = 0; k < GMI_GRID; k++) q[k] = 0.0;
    soft_grid_bit_(SOFT_LLR_CLIP, 1u, q);
    OFDM_UNROLL
    for (int k = 0; k < GMI_GRID; k++) grid[k] += clipped * (uint64_t)(int64_t)q[k];
  }
}

}  // namespace

/* kbest_gpu.cu: K-best with a group of lanes per RE over the staged stacks,
 * for the shapes, modulations and K it instantiates (covers: 1), else 1
 * and nothing launched; 0 launched, -1 a launch failed. */
int gpu_kbest_group_covers(int tx, int rx, int bps, int k);
int gpu_launch_kbest_group(const gpu_link &g, const gpu_stacks &st, const gpu_detect_out &out, cudaStream_t s);

#endif
