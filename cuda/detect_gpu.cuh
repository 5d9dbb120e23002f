/* What detect_gpu.cu (the joint detectors) and detect_linear_gpu.cu (zf and
 * mmse with soft outputs, per shape) share: the block size and the soft
 * output of one stream. Private to those two files. */
#ifndef OFDMSIM_DETECT_GPU_CUH
#define OFDMSIM_DETECT_GPU_CUH

#include "cuda/gpu_internal.cuh"
#include "equalizer/soft.h"

namespace {

constexpr int kBlock = 128;

/* One stream's soft output: its LLRs (from the equalised symbol z and its
 * variance, or given in `given` by a joint detector), exported to llr/bits
 * when those are not NULL, and its GMI loss against the sent label where
 * at_1 (0 returned without: receiver.gmi = none); with a grid (not NULL,
 * receiver.gmi = sup), its losses at the GMI grid's scalings added to it. */
__device__ __noinline__ unsigned long long soft_stream(int bps, cf32 z, float var, int exact, const float *given,
                                                       uint32_t label, float *llr_out, uint8_t *bits_out,
                                                       int at_1, uint64_t *grid) {
  float llr[SOFT_MAX_BPS];
  if (given)
    for (int k = 0; k < bps; k++) llr[k] = given[k];
  else
    soft_demap(bps, z, var, exact, llr);
  for (int k = 0; k < bps; k++) {
    if (llr_out) llr_out[k] = llr[k];
    if (bits_out) bits_out[k] = (uint8_t)((label >> k) & 1u);
  }
  if (grid) return soft_label_loss_grid(bps, llr, label, grid);
  return at_1 ? soft_label_loss(bps, llr, label) : 0;
}

}  // namespace

/* kbest_gpu.cu: K-best with a group of lanes per RE over the staged stacks,
 * for the shapes, modulations and K it instantiates (covers: 1), else 1
 * and nothing launched; 0 launched, -1 a launch failed. */
int gpu_kbest_group_covers(int tx, int rx, int bps, int k);
int gpu_launch_kbest_group(const gpu_link &g, const gpu_stacks &st, const gpu_detect_out &out, cudaStream_t s);

#endif
