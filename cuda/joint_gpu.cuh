/* What the joint detectors' kernels share (detect_gpu.cu's thread
 * kernels, kbest_gpu.cu's lane groups, kbest_reg_gpu.cu's register kernel):
 * the per-RE output step and the block's flush, which kernel runs where
 * several cover a point, and their launchers. Private to those files, the
 * backend (which checks OFDMSIM_GPU_JOINT) and the GPU tests. */
#ifndef OFDMSIM_JOINT_GPU_CUH
#define OFDMSIM_JOINT_GPU_CUH

#include <stddef.h>

#include "cuda/detect_gpu.cuh"
#include "cuda/gpu_internal.cuh"

/* Which kernels K-best and ML take where several cover a point, for
 * side-by-side measurements (every choice gives the same lists, decisions
 * and LLRs, bit for bit):
 *   JOINT_BEST    the fastest each: K-best with the lists in registers, one
 *                 thread per RE (kbest_reg_gpu.cu) where it has an instance,
 *                 else in lane groups (kbest_gpu.cu); ML at compile-time
 *                 sizes (detect_gpu.cu);
 *   JOINT_GROUP   K-best in lane groups, ML at compile-time sizes (the
 *                 kernels of 2026-11-28 morning);
 *   JOINT_THREAD  both in joint_kernel's one instance with run-time sizes
 *                 (the kernels of 2026-11-25).
 * The process's choice comes from OFDMSIM_GPU_JOINT (unset or "best",
 * "group", "thread"), read when a CUDA backend is created; the tests set it
 * with gpu_joint_select. */
enum gpu_joint { JOINT_BEST = 0, JOINT_GROUP = 1, JOINT_THREAD = 2 };

/* OFDMSIM_GPU_JOINT into *joint: 0, or -1 for a value not listed above, with
 * "cuda backend: ..." and what was expected in why (the backend refuses to
 * start then). */
int gpu_joint_from_env(int *joint, char *why, size_t whylen);
/* The choice gpu_launch_detect makes from now on (a gpu_joint). */
void gpu_joint_select(int joint);

/* detect_gpu.cu: does ml run at compile-time sizes for this shape and
 * modulation (the others: the thread kernel with run-time sizes)? */
int gpu_ml_sized_covers(int tx, int rx, int bps);

/* kbest_reg_gpu.cu: K-best with the lists in registers, one thread per RE,
 * for the shapes, modulations and K it instantiates (covers: 1), else 1 and
 * nothing launched; 0 launched, -1 a launch failed. */
int gpu_kbest_reg_covers(int tx, int rx, int bps, int k);
int gpu_launch_kbest_reg(const gpu_link &g, const gpu_stacks &st, const gpu_detect_out &out, cudaStream_t s);

namespace {

/* The per-RE outputs of the joint detectors (detect_gpu.cu's thread
 * kernels, kbest_gpu.cu's group kernel, kbest_reg_gpu.cu's register
 * kernel), one thread per RE m of frame f: stream t's decision dec[t] as a
 * symbol into xhat, its bit errors into block_err[t], and with soft outputs
 * (llr not NULL, llr[t*bps + k]) its LLRs exported and its GMI losses into
 * block_loss[t] and, at the grid's scalings, block_grid. A pilot RE
 * (dec NULL) gets x_hat 0, as the CPU's, and counts nothing. */
__device__ __forceinline__ void joint_re_outputs(const gpu_link &g, const gpu_stacks &st, const gpu_detect_out &out,
                                                 uint64_t f, uint64_t m, int tx, const uint32_t *dec,
                                                 const float *llr, uint32_t *block_err,
                                                 unsigned long long *block_loss, unsigned long long *block_grid) {
  const uint64_t i = f * g.rf + m;
  if (!dec) {
    for (int t = 0; t < tx; t++) gpu_store(st.xhat + (size_t)t * g.R + i, cf_make(0.0f, 0.0f));
    return;
  }
  const size_t at = (size_t)(f * g.df + pilot_data_index(&g.re.pilots, m)) * (size_t)tx * (size_t)g.bps;
  uint64_t grid[GMI_GRID] = {};
  for (int t = 0; t < tx; t++) {
    const uint32_t lab = st.labels[(size_t)t * g.R + i];
    gpu_store(st.xhat + (size_t)t * g.R + i, qam_map(g.bps, dec[t]));
    const uint32_t e = (uint32_t)__popc(dec[t] ^ lab);
    if (e) atomicAdd(&block_err[t], e);
    if (!llr) continue;
    const unsigned long long l =
        soft_stream(g.bps, cf_make(0.0f, 0.0f), 0.0f, 0, llr + t * g.bps, lab,
                    out.llr ? out.llr + at + t * g.bps : NULL, out.bits ? out.bits + at + t * g.bps : NULL,
                    out.loss != NULL, out.loss_s ? grid : NULL);
    if (l) atomicAdd(&block_loss[t], l);
  }
  if (llr && out.loss_s)
    for (int k = 0; k < GMI_GRID; k++)
      if (grid[k]) atomicAdd(&block_grid[k], (unsigned long long)grid[k]);
}

/* A block's sums into frame f's counters (after a __syncthreads): errors
 * and losses per stream, losses at the GMI grid's scalings. */
__device__ __forceinline__ void joint_block_flush(const gpu_detect_out &out, uint64_t f, int tx,
                                                  const uint32_t *block_err, const unsigned long long *block_loss,
                                                  const unsigned long long *block_grid) {
  const int tid = threadIdx.x;
  if (tid < tx) {
    if (block_err[tid]) atomicAdd(&out.errors[f * tx + tid], block_err[tid]);
    if (out.loss && block_loss[tid]) atomicAdd(&out.loss[f * tx + tid], block_loss[tid]);
  }
  if (out.loss_s && tid < GMI_GRID && block_grid[tid]) atomicAdd(&out.loss_s[f * GMI_GRID + tid], block_grid[tid]);
}

}  // namespace

#endif
