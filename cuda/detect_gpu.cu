/* Soft outputs and joint detection on the GPU: the LLRs and GMI losses of
 * zf and mmse (x_hat and each stream's post-equalisation variance,
 * equalizer/soft.h), and the joint detectors mmse-sic, kbest and ml
 * (equalizer/sic.h, equalizer/detect.h), the same functions the CPU backend
 * runs per RE.
 *
 * The hard zf/mmse path stays in fused_gpu.cu, lean. zf and mmse with soft
 * outputs run linear_kernel (detect_linear_gpu.cu, compiled per group of
 * shapes), in the (tx, rx) instances every per-RE kernel comes in, from the
 * draws (fused) or the staged stacks; the demapper of one stream is out of
 * line (__noinline__, detect_gpu.cuh), compiled once a file. The joint
 * detectors run over the staged stacks of the batch: kbest with a group of
 * lanes per RE where kbest_gpu.cu has an instance for the shape, modulation
 * and K; ml one thread per RE at compile-time sizes for the shapes of
 * OFDMSIM_ML_GPU_SHAPES (its odometer and bit minima in registers); the rest
 * (mmse-sic, and kbest and ml at other sizes) joint_kernel's single instance
 * with run-time sizes, whose lists and enumeration state live in per-thread
 * local memory. (Called from each of the 40 per-shape instances instead,
 * ptxas compiled the detectors into every one of them: minutes per
 * instance.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "cuda/check.h"
#include "cuda/detect_gpu.cuh"
#include "cuda/gpu_internal.cuh"
#include "cuda/joint_gpu.cuh"
#include "equalizer/detect.h"
#include "equalizer/sic.h"
#include "equalizer/soft.h"

static_assert(SOFT_LOSS_SHIFT == GMI_LOSS_SHIFT, "batch_result.gmi_loss is in soft_loss_q's units");

/* The shapes and modulations ml runs at compile-time sizes (the others at
 * run-time sizes, with the same results): M^nt <= LINK_MAX_ML_CANDIDATES. */
#define OFDMSIM_ML_GPU_SHAPES(X) X(2, 2, 2) X(2, 2, 4) X(2, 2, 6) X(4, 4, 2) X(4, 4, 4)

namespace {

/* What the joint detectors need of the link: scalars only, so the out-of-line
 * call copies no struct to local memory. */
struct joint_args {
  int eq, nr, nt, bps, llr, k;
  float n0, clip;
};

/* One RE through a joint detector: its decisions in lab, its LLRs in llr
 * (NULL: none). Returns 1 when mmse-sic solved a stage in double. */
__device__ __noinline__ int joint_detect(joint_args a, const cf32 *h, const cf32 *y, uint32_t *lab,
                                         float *llr) {
  switch (a.eq) {
    case EQ_MMSE_SIC: return det_mmse_sic(a.nr, a.nt, a.bps, h, y, a.n0, a.llr, lab, llr) > 0;
    case EQ_KBEST: det_kbest(a.nr, a.nt, a.bps, a.k, h, y, a.n0, a.clip, lab, llr); return 0;
    default: det_ml(a.nr, a.nt, a.bps, h, y, a.n0, SOFT_LLR_CLIP, lab, llr); return 0;
  }
}

/* ml with compile-time sizes: the odometer's state, the QR and the bit
 * minima in registers. */
template <int NT, int NR, int BPS>
__device__ __forceinline__ int joint_detect_sized(joint_args a, const cf32 *h, const cf32 *y, uint32_t *lab,
                                                  float *llr) {
  (void)a.nr;
  det_ml(NR, NT, BPS, h, y, a.n0, SOFT_LLR_CLIP, lab, llr);
  return 0;
}

/* The joint detectors over the staged stacks (labels, Hhat, y): decisions
 * as symbols into xhat, errors, fallbacks and GMI losses per frame (per
 * stream, and at the GMI grid's scalings when out.loss_s is given), LLRs
 * exported when asked. NT = 0: one instance with run-time sizes for every
 * detector; else ml at compile-time sizes NT x NR, BPS bits (the instances
 * in OFDMSIM_ML_GPU_SHAPES). */
template <int NT, int NR, int BPS>
__global__ void __launch_bounds__(kBlock)
    joint_kernel(gpu_link g, gpu_stacks st, gpu_detect_out out) {
  uint64_t f, m;
  gpu_frame_position(g, &f, &m);
  __shared__ uint32_t block_err[LINK_MAX_TX];
  __shared__ unsigned long long block_loss[LINK_MAX_TX], block_grid[GMI_GRID];
  if (threadIdx.x < LINK_MAX_TX) {
    block_err[threadIdx.x] = 0;
    block_loss[threadIdx.x] = 0;
  }
  if (threadIdx.x < GMI_GRID) block_grid[threadIdx.x] = 0;
  __syncthreads();
  const int tx = g.tx, soft = g.llr != LLR_OFF;
  if (m < g.rf && pilot_antenna(&g.re.pilots, m) >= 0) {
    joint_re_outputs(g, st, out, f, m, tx, NULL, NULL, block_err, block_loss, block_grid);
  } else if (m < g.rf) {
    const uint64_t i = f * g.rf + m;
    cf32 h[MAT_MAX_RX * MAT_MAX_N], yv[MAT_MAX_RX];
    uint32_t dec[MAT_MAX_N];
    float llr[MAT_MAX_N * SOFT_MAX_BPS];
    const int links = NT ? NT * NR : g.links, rows = NT ? NR : g.rx;
    for (int e = 0; e < links; e++) h[e] = gpu_load(st.Hhat + (size_t)e * g.R + i);
    for (int r = 0; r < rows; r++) yv[r] = gpu_load(st.y + (size_t)r * g.R + i);
    const joint_args a = {g.equalizer, g.rx, tx, g.bps, g.llr, g.kbest_k, g.n0r, g.llr_clip};
    const int solved = NT ? joint_detect_sized<NT, NR, BPS>(a, h, yv, dec, soft ? llr : NULL)
                          : joint_detect(a, h, yv, dec, soft ? llr : NULL);
    if (solved) atomicAdd(&out.fallbacks[f], 1u);
    joint_re_outputs(g, st, out, f, m, tx, dec, soft ? llr : NULL, block_err, block_loss, block_grid);
  }
  __syncthreads();
  joint_block_flush(out, f, tx, block_err, block_loss, block_grid);
}

}  // namespace

int gpu_ml_sized_covers(int tx, int rx, int bps) {
#define OFDMSIM_ML_COVERS(nt, nr, b) \
  if (tx == nt && rx == nr && bps == b) return 1;
  OFDMSIM_ML_GPU_SHAPES(OFDMSIM_ML_COVERS)
#undef OFDMSIM_ML_COVERS
  return 0;
}

namespace {
int g_joint = JOINT_BEST; /* gpu_joint: set by the backend from the environment, or by a test */
}  // namespace

void gpu_joint_select(int joint) { g_joint = joint; }

int gpu_joint_from_env(int *joint, char *why, size_t whylen) {
  const char *v = getenv("OFDMSIM_GPU_JOINT");
  *joint = JOINT_BEST;
  if (!v || !*v || !strcmp(v, "best")) return 0;
  if (!strcmp(v, "group")) *joint = JOINT_GROUP;
  else if (!strcmp(v, "thread")) *joint = JOINT_THREAD;
  else {
    snprintf(why, whylen, "cuda backend: OFDMSIM_GPU_JOINT=%s: expected best, group or thread", v);
    return -1;
  }
  return 0;
}

int gpu_launch_detect(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                      const gpu_stacks *stacks, const gpu_detect_out &out, cudaStream_t s) {
  if (link_detector_is_linear((eq_kind)g.equalizer))
    return gpu_dispatch<Detect>(g.tx, g.rx, g, c, Hk, yt, stacks, out, s);
  if (!stacks) {
    gpu_report_failure(__FILE__, __LINE__, "gpu_launch_detect", "invalid argument",
                       "the joint detectors run over the staged stacks", 0);
    return -1;
  }
  if (g.equalizer == EQ_KBEST && g_joint == JOINT_BEST) {
    const int rc = gpu_launch_kbest_reg(g, *stacks, out, s);
    if (rc <= 0) return rc;
  }
  if (g.equalizer == EQ_KBEST && g_joint != JOINT_THREAD) {
    const int rc = gpu_launch_kbest_group(g, *stacks, out, s);
    if (rc <= 0) return rc;
  }
  const uint64_t warps = (g.rf + 31) / 32;
  const int block = warps >= kBlock / 32 ? kBlock : (int)(warps * 32);
  const uint64_t blocks = g.frames * ((g.rf + block - 1) / block);
  if (g.equalizer == EQ_ML && g_joint != JOINT_THREAD) {
#define OFDMSIM_ML_LAUNCH(nt, nr, b)                                         \
  if (g.tx == nt && g.rx == nr && g.bps == b) {                              \
    joint_kernel<nt, nr, b><<<(unsigned)blocks, block, 0, s>>>(g, *stacks, out); \
    CUDA_TRY_LAUNCH("joint_kernel (ml)");                                     \
    return 0;                                                                \
  }
    OFDMSIM_ML_GPU_SHAPES(OFDMSIM_ML_LAUNCH)
#undef OFDMSIM_ML_LAUNCH
  }
  joint_kernel<0, 0, 0><<<(unsigned)blocks, block, 0, s>>>(g, *stacks, out);
  CUDA_TRY_LAUNCH("joint_kernel");
  return 0;
}
