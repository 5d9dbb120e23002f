/* zf and mmse with soft outputs on the GPU, one thread per RE, in the (tx,
 * rx) instances every per-RE kernel comes in: x_hat and each stream's
 * post-equalisation variance (equalizer/soft.h), from the draws (fused) or
 * the staged stacks; the launcher is detect_gpu.cu's gpu_launch_detect.
 *
 * Compiled once per group of shapes (OFDMSIM_SHAPE_GROUP, set by CMake;
 * gpu_internal.cuh), each group its own object, so that the groups compile
 * in parallel. */
#include <stdio.h>

#include "cuda/check.h"
#include "cuda/detect_gpu.cuh"
#include "cuda/gpu_internal.cuh"
#include "equalizer/fallback.h"
#include "equalizer/soft.h"

#ifndef OFDMSIM_SHAPE_GROUP
#error "compiled once per group of shapes: CMake sets OFDMSIM_SHAPE_GROUP (cuda/shapes.cmake)"
#endif

namespace {

/* GRID: the GMI grid's sums (out.loss_s, receiver.gmi = sup) at compile
 * time, so that without them (s1, none) the kernel has no grid array and no
 * grid reduction, not even in registers it does not use. */
template <int NT, int NR, bool GRID>
__global__ void __launch_bounds__(kBlock)
    linear_kernel(gpu_link g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ Hk,
                  const cf32 *__restrict__ yt, gpu_stacks st, int from_stacks, gpu_detect_out out) {
  uint64_t f, m;
  gpu_frame_position(g, &f, &m);
  uint32_t err[NT] = {};
  unsigned long long loss[NT] = {};
  uint64_t grid[GRID ? GMI_GRID : 1] = {};
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
                                out.bits ? out.bits + at + t * g.bps : NULL, out.loss != NULL, GRID ? grid : NULL);
      }
    }
    OFDM_UNROLL
    for (int t = 0; t < NT; t++) err[t] = (uint32_t)__popc(dec[t] ^ lab[t]);
    if (fallback && out.count) atomicAdd(&out.fallbacks[f], 1u);
  }
  if (out.count) gpu_count_errors<NT>(err, out.errors + f * NT);
  if (out.loss) gpu_count_loss<NT>(loss, out.loss + f * NT);
  if (GRID) gpu_count_loss<GMI_GRID>(grid, out.loss_s + f * GMI_GRID);
}

}  // namespace

template <int NT, int NR>
int Detect<NT, NR>::launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                           const gpu_stacks *stacks, const gpu_detect_out &out, cudaStream_t s) {
  const uint64_t warps = (g.rf + 31) / 32;
  const int block = warps >= kBlock / 32 ? kBlock : (int)(warps * 32);
  const uint64_t blocks = g.frames * ((g.rf + block - 1) / block);
  const gpu_stacks st = stacks ? *stacks : gpu_stacks{NULL, NULL, NULL, NULL};
  if (out.loss_s)
    linear_kernel<NT, NR, true><<<(unsigned)blocks, block, 0, s>>>(g, c, Hk, yt, st, stacks != NULL, out);
  else
    linear_kernel<NT, NR, false><<<(unsigned)blocks, block, 0, s>>>(g, c, Hk, yt, st, stacks != NULL, out);
  CUDA_TRY_LAUNCH("linear_kernel");
  return 0;
}

/* This group's shapes. */
#define GPU_FAMILY_ Detect
GPU_GROUP_LIST_(OFDMSIM_SHAPE_GROUP)(GPU_INSTANTIATE_)
#undef GPU_FAMILY_

