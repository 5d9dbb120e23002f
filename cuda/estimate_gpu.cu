/* The channel estimation from the pilots: channel/estimate.h's per-element
 * steps, the CPU backend's functions, one thread per output (with DMRS the
 * despreading first, then the frequency interpolation of its estimates).
 * The staged mode runs every step over its y stack and writes Hhat; the
 * fused mode runs the steps up to the pilot symbols' estimates over its
 * pilot rows, and its per-RE kernels interpolate in time themselves
 * (gpu_est_channel, gpu_internal.cuh). lmmse2d: the 2-D filter's sum per
 * RE, in the staged mode est_2d_kernel over the y stack (or DMRS's despread
 * estimates), in the fused mode the per-RE kernels themselves over the pilot
 * rows (or the despread estimates of them: the first pass's only step);
 * gpu_est_channel_2d. */
#include <stdio.h>

#include "cuda/check.h"
#include "cuda/gpu_internal.cuh"

namespace {

constexpr int kBlock = 256;

/* Antenna r's received rows of batch frame f: the staged y stack's frame
 * ([S][K] at y + r R + f R_f; y != NULL), or the fused mode's pilot rows
 * ([yp_rows][K], e.yp; y == NULL). */
__device__ __forceinline__ const cf32 *est_rows_of(const gpu_link &g, const gpu_est &e, const cf32 *y, uint64_t f,
                                                   int r) {
  if (y) return y + (uint64_t)r * g.R + f * g.rf;
  return e.yp + (f * (uint64_t)g.rx + (uint64_t)r) * (uint64_t)e.yp_rows * (uint64_t)g.K;
}

/* LS and frequency interpolation: one thread a (frame, link, pilot symbol,
 * subcarrier), hp[((f*links + e)*pilot_syms + j)*K + k]; from the staged y
 * stack, or (y NULL) the fused pilot rows, where pilot symbol j is row j. */
__global__ void __launch_bounds__(kBlock)
    est_freq_kernel(gpu_link g, gpu_est e, const cf32 *__restrict__ y) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t K = (uint64_t)g.K, per_link = (uint64_t)e.pilot_syms * K;
  if (j >= g.frames * g.links * per_link) return;
  const uint64_t fe = j / per_link, rest = j - fe * per_link, f = fe / g.links;
  const int link = (int)(fe - f * g.links), r = link / g.tx, t = link - r * g.tx;
  const int ps = (int)(rest / K), k = (int)(rest - (uint64_t)ps * K);
  const cf32 *row = est_rows_of(g, e, y, f, r) + (uint64_t)(y ? pilot_symbol_at(&g.re.pilots, ps) : ps) * K;
  e.hp[j] = est_freq_at(e.first, e.w + (uint64_t)t * e.taps * K + k, K, e.taps, e.P, g.K, t, k, row, 1);
}

/* DMRS: the despread LS estimate, one thread a (frame, link, occasion,
 * block), ls[((f*links + e)*occasions + j)*np + i]; from the staged y stack,
 * or (y NULL) the fused pilot rows. */
__global__ void __launch_bounds__(kBlock)
    est_dmrs_ls_kernel(gpu_link g, gpu_est e, const cf32 *__restrict__ y) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t per_link = (uint64_t)e.pilot_syms * (uint64_t)e.np;
  if (j >= g.frames * g.links * per_link) return;
  const uint64_t fe = j / per_link, rest = j - fe * per_link, f = fe / g.links;
  const int link = (int)(fe - f * g.links), r = link / g.tx, t = link - r * g.tx;
  const int occ = (int)(rest / (uint64_t)e.np), i = (int)(rest - (uint64_t)occ * (uint64_t)e.np);
  e.ls[j] = est_dmrs_ls_rows(&g.re.pilots, t, occ, i, est_rows_of(g, e, y, f, r), y == NULL);
}

/* DMRS: frequency interpolation of an occasion's LS estimates, one thread a
 * (frame, link, occasion, subcarrier), hp as est_freq_kernel's. */
__global__ void __launch_bounds__(kBlock) est_dmrs_freq_kernel(gpu_link g, gpu_est e) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t K = (uint64_t)g.K, per_link = (uint64_t)e.pilot_syms * K;
  if (j >= g.frames * g.links * per_link) return;
  const uint64_t fe = j / per_link, rest = j - fe * per_link, f = fe / g.links;
  const int link = (int)(fe - f * g.links), t = link % g.tx;
  const int occ = (int)(rest / K), k = (int)(rest - (uint64_t)occ * K);
  const cf32 *ls = e.ls + ((f * g.links + link) * (uint64_t)e.pilot_syms + occ) * (uint64_t)e.np;
  e.hp[j] = est_freq_dmrs_at(e.first, e.w + (uint64_t)t * e.taps * K + k, K, g.K, e.taps, t, k, ls);
}

/* Time interpolation and the receiver's scaling: one thread a (link, RE),
 * Hhat[e*R + i]. */
__global__ void __launch_bounds__(kBlock)
    est_time_kernel(gpu_link g, gpu_est e, cf32 *__restrict__ Hhat) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= (uint64_t)g.links * g.R) return;
  const uint64_t link = j / g.R, i = j - link * g.R, f = i / g.rf, m = i - f * g.rf;
  const int s = (int)(m / (uint64_t)g.K), k = (int)(m - (uint64_t)s * g.K);
  const int lo = __ldg(e.sym_lo + s);
  const float wl = __ldg(e.sym_w + s);
  const cf32 *base = e.hp + (f * g.links + link) * (uint64_t)e.pilot_syms * g.K + k;
  const cf32 a = base[(uint64_t)lo * g.K];
  const cf32 b = wl != 1.0f ? base[(uint64_t)(lo + 1) * g.K] : a;
  gpu_store(Hhat + j, est_time(wl, a, b, e.shrink));
}

/* lmmse2d: every RE from the pilots of its window at once (est_2d), one
 * thread a (link, RE), Hhat[e*R + i]; the window's rows are the received
 * pilot symbols (the comb) or the despread LS estimates (DMRS). */
__global__ void __launch_bounds__(kBlock)
    est_2d_kernel(gpu_link g, gpu_est e, const cf32 *__restrict__ y, cf32 *__restrict__ Hhat) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= (uint64_t)g.links * g.R) return;
  const uint64_t link = j / g.R, i = j - link * g.R, f = i / g.rf, m = i - f * g.rf;
  const int s = (int)(m / (uint64_t)g.K), k = (int)(m - (uint64_t)s * g.K);
  const int r = (int)link / g.tx, t = (int)link - r * g.tx, lo = __ldg(e.sym_lo + s);
  const pilot_grid *pg = &g.re.pilots;
  /* the weights transposed, [tx][S][tt][taps][K] (est_2d_at, step K) */
  const cf32 *wk = e.w + ((size_t)t * (size_t)g.S + (size_t)s) * (size_t)(e.tt * e.taps) * (size_t)g.K + (size_t)k;
  cf32 h;
  if (e.np > 0) {
    const cf32 *rows = e.ls + ((f * g.links + link) * (uint64_t)e.pilot_syms + (uint64_t)lo) * (uint64_t)e.np;
    h = est_2d_at(e.first, wk, (size_t)g.K, e.taps, e.tt, g.K, t, k, e.np, 0, 1, rows, (size_t)e.np, e.shrink);
  } else {
    const cf32 *rows = y + (uint64_t)r * g.R + f * g.rf + (uint64_t)pilot_symbol_at(pg, lo) * (uint64_t)g.K;
    h = est_2d_at(e.first, wk, (size_t)g.K, e.taps, e.tt, g.K, t, k, pilot_count(pg, t), t, e.P, rows,
                  (size_t)pg->every * (size_t)g.K, e.shrink);
  }
  gpu_store(Hhat + j, h);
}

/* The estimates on the pilot symbols, e.hp: from the staged y stack, or (y
 * NULL) the fused pilot rows e.yp. */
int estimate_pilots(const gpu_link &g, const gpu_est &e, const cf32 *y, cudaStream_t s) {
  const uint64_t n = g.frames * g.links * (uint64_t)e.pilot_syms * (uint64_t)g.K;
  if (e.np > 0) {
    const uint64_t nls = g.frames * g.links * (uint64_t)e.pilot_syms * (uint64_t)e.np;
    est_dmrs_ls_kernel<<<gpu_blocks(nls, kBlock), kBlock, 0, s>>>(g, e, y);
    CUDA_TRY_LAUNCH("est_dmrs_ls_kernel");
    est_dmrs_freq_kernel<<<gpu_blocks(n, kBlock), kBlock, 0, s>>>(g, e);
    CUDA_TRY_LAUNCH("est_dmrs_freq_kernel");
  } else {
    est_freq_kernel<<<gpu_blocks(n, kBlock), kBlock, 0, s>>>(g, e, y);
    CUDA_TRY_LAUNCH("est_freq_kernel");
  }
  return 0;
}

}  // namespace

int gpu_launch_estimate_pilots(const gpu_link &g, const gpu_est &e, cudaStream_t s) {
  if (!e.yp) {
    gpu_report_failure(__FILE__, __LINE__, "gpu_launch_estimate_pilots", "invalid argument",
                       "the fused mode's pilot rows are missing", 0);
    return -1;
  }
  if (e.tt > 0) { /* lmmse2d: the per-RE kernels filter the rows themselves */
    if (e.np > 0) {
      const uint64_t nls = g.frames * g.links * (uint64_t)e.pilot_syms * (uint64_t)e.np;
      est_dmrs_ls_kernel<<<gpu_blocks(nls, kBlock), kBlock, 0, s>>>(g, e, NULL);
      CUDA_TRY_LAUNCH("est_dmrs_ls_kernel");
    }
    return 0;
  }
  return estimate_pilots(g, e, NULL, s);
}

int gpu_launch_estimate(const gpu_link &g, const gpu_est &e, const cf32 *y, cf32 *Hhat, cudaStream_t s) {
  if (e.tt > 0) {
    if (e.np > 0) {
      const uint64_t nls = g.frames * g.links * (uint64_t)e.pilot_syms * (uint64_t)e.np;
      est_dmrs_ls_kernel<<<gpu_blocks(nls, kBlock), kBlock, 0, s>>>(g, e, y);
      CUDA_TRY_LAUNCH("est_dmrs_ls_kernel");
    }
    est_2d_kernel<<<gpu_blocks((uint64_t)g.links * g.R, kBlock), kBlock, 0, s>>>(g, e, y, Hhat);
    CUDA_TRY_LAUNCH("est_2d_kernel");
    return 0;
  }
  if (estimate_pilots(g, e, y, s)) return -1;
  est_time_kernel<<<gpu_blocks((uint64_t)g.links * g.R, kBlock), kBlock, 0, s>>>(g, e, Hhat);
  CUDA_TRY_LAUNCH("est_time_kernel");
  return 0;
}
