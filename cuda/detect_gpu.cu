/* Soft outputs and joint detection on the GPU, one thread per RE: the LLRs
 * and GMI losses of zf and mmse (x_hat and each stream's post-equalisation
 * variance, equalizer/soft.h), and the joint detectors mmse-sic, kbest and
 * ml (equalizer/sic.h, equalizer/detect.h), the same functions the CPU
 * backend runs per RE.
 *
 * The hard zf/mmse path stays in fused_gpu.cu, lean. zf and mmse with soft
 * outputs run linear_kernel, in the (tx, rx) instances every per-RE kernel
 * comes in, from the draws (fused) or the staged stacks; the demapper of one
 * stream is out of line (__noinline__), compiled once. The joint detectors
 * run joint_kernel, a single instance with run-time sizes, over the staged
 * stacks of the batch: their lists and enumeration state live in per-thread
 * local memory, and their search, not the loads, is what costs. (Called from
 * each of the 40 instances instead, ptxas compiled the detectors into every
 * one of them: minutes per instance.) */
#include <stdio.h>

#include "core/backend.h"
#include "cuda/check.h"
#include "cuda/gpu_internal.cuh"
#include "equalizer/detect.h"
#include "equalizer/fallback.h"
#include "equalizer/sic.h"
#include "equalizer/soft.h"

static_assert(SOFT_LOSS_SHIFT == GMI_LOSS_SHIFT, "batch_result.gmi_loss is in soft_loss_q's units");

namespace {

constexpr int kBlock = 128;

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

/* One stream's soft output: its LLRs (from the equalised symbol z and its
 * variance, or given in `given` by a joint detector), exported to llr/bits
 * when those are not NULL, and its GMI loss against the sent label. */
__device__ __noinline__ unsigned long long soft_stream(int bps, cf32 z, float var, int exact, const float *given,
                                                       uint32_t label, float *llr_out, uint8_t *bits_out) {
  float llr[SOFT_MAX_BPS];
  if (given)
    for (int k = 0; k < bps; k++) llr[k] = given[k];
  else
    soft_demap(bps, z, var, exact, llr);
  for (int k = 0; k < bps; k++) {
    if (llr_out) llr_out[k] = llr[k];
    if (bits_out) bits_out[k] = (uint8_t)((label >> k) & 1u);
  }
  return soft_label_loss(bps, llr, label);
}

/* Adds each thread's per-stream GMI losses to loss_frame[t], as
 * gpu_count_errors does with the errors (integers: any order, same sum). */
template <int NT>
__device__ __forceinline__ void count_loss(const unsigned long long *loss,
                                           unsigned long long *loss_frame) {
  __shared__ unsigned long long block_loss[NT];
  if (threadIdx.x < NT) block_loss[threadIdx.x] = 0;
  __syncthreads();
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) {
    unsigned long long v = loss[t];
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    if ((threadIdx.x & 31) == 0 && v) atomicAdd(&block_loss[t], v);
  }
  __syncthreads();
  if (threadIdx.x < NT && block_loss[threadIdx.x]) atomicAdd(&loss_frame[threadIdx.x], block_loss[threadIdx.x]);
}

template <int NT, int NR>
__global__ void __launch_bounds__(kBlock)
    linear_kernel(gpu_link g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ Hk,
                  const cf32 *__restrict__ yt, gpu_stacks st, int from_stacks, gpu_detect_out out) {
  uint64_t f, m;
  gpu_frame_position(g, &f, &m);
  uint32_t err[NT] = {};
  unsigned long long loss[NT] = {};
  const int soft = g.llr != LLR_OFF;
  if (m < g.rf && pilot_antenna(&g.re.pilots, m) < 0) { /* pilots: nothing to count or export */
    const uint64_t i = f * g.rf + m; /* batch index: the stacks' */
    uint32_t lab[NT], dec[NT];
    cf32 h[NR * NT], yv[NR];
    if (from_stacks) {
      OFDM_UNROLL
      for (int t = 0; t < NT; t++) lab[t] = st.labels[(size_t)t * g.R + i];
      OFDM_UNROLL
      for (int e = 0; e < NR * NT; e++)
        h[e] = e < g.links ? gpu_load(st.Hhat + (size_t)e * g.R + i) : cf_make(0.0f, 0.0f);
      OFDM_UNROLL
      for (int r = 0; r < NR; r++)
        yv[r] = r < g.rx ? gpu_load(st.y + (size_t)r * g.R + i) : cf_make(0.0f, 0.0f);
    } else {
      gpu_re_front<NT, NR>(g, c, Hk, yt, f, m, lab, h, yv);
    }
    uint32_t fallback = 0;
    /* where this RE's stream t exports to: its data RE, stream t, bit 0 */
    const size_t at = (size_t)(f * g.df + pilot_data_index(&g.re.pilots, m)) * NT * (size_t)g.bps;
    {
      /* x_hat and the Gram inverse's diagonal; a flagged float inverse is
       * solved in double, as the fused path's repair kernel does */
      cf32 gm[NT * NT], zv[NT], gi[NT * NT], xv[NT];
      float gd[NT];
      mat_gram(NR, NT, h, g.diag, gm);
      mat_herm_mulvec(NR, NT, h, yv, zv);
      mat_inv_herm(NT, gm, gi);
      mat_equalize(NT, gi, zv, g.diag, xv);
      OFDM_UNROLL
      for (int t = 0; t < NT; t++) gd[t] = gi[t * NT + t].re;
      if (eq_flagged(xv[0])) fallback = eq_solve_double(NR, NT, h, yv, g.diag, xv, gd);
      OFDM_UNROLL
      for (int t = 0; t < NT; t++) {
        dec[t] = qam_demap(g.bps, xv[t]);
        if (soft)
          loss[t] = soft_stream(g.bps, xv[t], soft_post_var(g.equalizer == EQ_MMSE, g.n0r, gd[t]),
                                g.llr == LLR_EXACT, NULL, lab[t], out.llr ? out.llr + at + t * g.bps : NULL,
                                out.bits ? out.bits + at + t * g.bps : NULL);
      }
    }
    OFDM_UNROLL
    for (int t = 0; t < NT; t++) err[t] = (uint32_t)__popc(dec[t] ^ lab[t]);
    if (fallback && out.count) atomicAdd(&out.fallbacks[f], 1u);
  }
  if (out.count) gpu_count_errors<NT>(err, out.errors + f * NT);
  if (out.loss) count_loss<NT>(loss, out.loss + f * NT);
}

/* The joint detectors over the staged stacks (labels, Hhat, y): decisions
 * as symbols into xhat, errors, fallbacks and GMI losses per frame, LLRs
 * exported when asked. One instance, run-time sizes. */
__global__ void __launch_bounds__(kBlock)
    joint_kernel(gpu_link g, gpu_stacks st, gpu_detect_out out) {
  uint64_t f, m;
  gpu_frame_position(g, &f, &m);
  __shared__ uint32_t block_err[LINK_MAX_TX];
  __shared__ unsigned long long block_loss[LINK_MAX_TX];
  if (threadIdx.x < LINK_MAX_TX) {
    block_err[threadIdx.x] = 0;
    block_loss[threadIdx.x] = 0;
  }
  __syncthreads();
  const int tx = g.tx, soft = g.llr != LLR_OFF;
  if (m < g.rf && pilot_antenna(&g.re.pilots, m) >= 0) {
    /* a pilot RE: nothing to detect or count (x_hat 0, as the CPU's) */
    for (int t = 0; t < tx; t++) gpu_store(st.xhat + (size_t)t * g.R + f * g.rf + m, cf_make(0.0f, 0.0f));
  } else if (m < g.rf) {
    const uint64_t i = f * g.rf + m;
    cf32 h[MAT_MAX_RX * MAT_MAX_N], yv[MAT_MAX_RX];
    uint32_t dec[MAT_MAX_N];
    float llr[MAT_MAX_N * SOFT_MAX_BPS];
    for (int e = 0; e < g.links; e++) h[e] = gpu_load(st.Hhat + (size_t)e * g.R + i);
    for (int r = 0; r < g.rx; r++) yv[r] = gpu_load(st.y + (size_t)r * g.R + i);
    const joint_args a = {g.equalizer, g.rx, tx, g.bps, g.llr, g.kbest_k, g.n0r, g.llr_clip};
    if (joint_detect(a, h, yv, dec, soft ? llr : NULL)) atomicAdd(&out.fallbacks[f], 1u);
    const size_t at = (size_t)(f * g.df + pilot_data_index(&g.re.pilots, m)) * (size_t)tx * (size_t)g.bps;
    for (int t = 0; t < tx; t++) {
      const uint32_t lab = st.labels[(size_t)t * g.R + i];
      gpu_store(st.xhat + (size_t)t * g.R + i, qam_map(g.bps, dec[t]));
      const uint32_t e = (uint32_t)__popc(dec[t] ^ lab);
      if (e) atomicAdd(&block_err[t], e);
      if (!soft) continue;
      const unsigned long long l =
          soft_stream(g.bps, cf_make(0.0f, 0.0f), 0.0f, 0, llr + t * g.bps, lab,
                      out.llr ? out.llr + at + t * g.bps : NULL, out.bits ? out.bits + at + t * g.bps : NULL);
      if (l) atomicAdd(&block_loss[t], l);
    }
  }
  __syncthreads();
  if (threadIdx.x < tx) {
    if (block_err[threadIdx.x]) atomicAdd(&out.errors[f * tx + threadIdx.x], block_err[threadIdx.x]);
    if (out.loss && block_loss[threadIdx.x]) atomicAdd(&out.loss[f * tx + threadIdx.x], block_loss[threadIdx.x]);
  }
}

template <int NT, int NR>
struct Detect {
  static int launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                    const gpu_stacks *stacks, const gpu_detect_out &out, cudaStream_t s) {
    const uint64_t warps = (g.rf + 31) / 32;
    const int block = warps >= kBlock / 32 ? kBlock : (int)(warps * 32);
    const uint64_t blocks = g.frames * ((g.rf + block - 1) / block);
    const gpu_stacks st = stacks ? *stacks : gpu_stacks{NULL, NULL, NULL, NULL};
    linear_kernel<NT, NR><<<(unsigned)blocks, block, 0, s>>>(g, c, Hk, yt, st, stacks != NULL, out);
    CUDA_TRY_LAUNCH("linear_kernel");
    return 0;
  }
};

}  // namespace

int gpu_launch_detect(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                      const gpu_stacks *stacks, const gpu_detect_out &out, cudaStream_t s) {
  if (link_detector_is_linear((eq_kind)g.equalizer))
    return gpu_dispatch<Detect>(g.tx, g.rx, g, c, Hk, yt, stacks, out, s);
  if (!stacks) {
    gpu_report_failure(__FILE__, __LINE__, "gpu_launch_detect", "invalid argument",
                       "the joint detectors run over the staged stacks", 0);
    return -1;
  }
  const uint64_t warps = (g.rf + 31) / 32;
  const int block = warps >= kBlock / 32 ? kBlock : (int)(warps * 32);
  const uint64_t blocks = g.frames * ((g.rf + block - 1) / block);
  joint_kernel<<<(unsigned)blocks, block, 0, s>>>(g, *stacks, out);
  CUDA_TRY_LAUNCH("joint_kernel");
  return 0;
}
