/* The staged receiver: Gram matrices, equalisation, hard decisions and
 * per-frame, per-stream bit-error counters, one kernel a stage over the SoA
 * stacks (the inversion stage between them is gpu_invert_soa). All matrix
 * algebra is equalizer/smallmat.h and the mapping core/qam.h, the functions the
 * CPU backend runs. */
#include <stdio.h>

#include "cuda/check.h"
#include "cuda/gpu.h"
#include "cuda/gpu_internal.cuh"
#include "equalizer/fallback.h"

namespace {

constexpr int kBlock = 256;

/* ---- staged ---------------------------------------------------------------- */

template <int NT, int NR>
__global__ void __launch_bounds__(kBlock)
    gram_kernel(gpu_link g, const cf32 *__restrict__ Hhat, const cf32 *__restrict__ y,
                cf32 *__restrict__ G, cf32 *__restrict__ z) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= g.R) return;
  cf32 h[NR * NT], yv[NR], gm[NT * NT], zv[NT];
  OFDM_UNROLL
  for (int e = 0; e < NR * NT; e++)
    h[e] = e < g.links ? gpu_load(Hhat + (size_t)e * g.R + i) : cf_make(0.0f, 0.0f);
  OFDM_UNROLL
  for (int r = 0; r < NR; r++)
    yv[r] = r < g.rx ? gpu_load(y + (size_t)r * g.R + i) : cf_make(0.0f, 0.0f);
  mat_gram(NR, NT, h, g.diag, gm);
  mat_herm_mulvec(NR, NT, h, yv, zv);
  OFDM_UNROLL
  for (int e = 0; e < NT * NT; e++) gpu_store(G + (size_t)e * g.R + i, gm[e]);
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) gpu_store(z + (size_t)t * g.R + i, zv[t]);
}

/* RE i of the stacks equalised in double (its float inverse was flagged),
 * counted for its frame. Out of line, as it runs for a tiny share of REs; its
 * arguments are scalars, as a reference to the kernel's gpu_link would make
 * every thread copy that struct to local memory. Writes x_hat itself. */
__device__ __noinline__ void equalize_fallback(const cf32 *Hhat, const cf32 *y, cf32 *xhat,
                                               uint64_t R, uint64_t rf, int tx, int rx, float diag,
                                               uint64_t i, uint32_t *fallbacks) {
  cf32 h[MAT_MAX_RX * MAT_MAX_N], yv[MAT_MAX_RX], xv[MAT_MAX_N];
  for (int e = 0; e < rx * tx; e++) h[e] = gpu_load(Hhat + (size_t)e * R + i);
  for (int r = 0; r < rx; r++) yv[r] = gpu_load(y + (size_t)r * R + i);
  eq_solve_double(rx, tx, h, yv, diag, xv, NULL);
  for (int t = 0; t < tx; t++) gpu_store(xhat + (size_t)t * R + i, xv[t]);
  atomicAdd(&fallbacks[i / rf], 1u);
}

template <int NT>
__global__ void __launch_bounds__(kBlock)
    equalize_kernel(gpu_link g, const cf32 *__restrict__ Ginv, const cf32 *__restrict__ z,
                    const cf32 *__restrict__ Hhat, const cf32 *__restrict__ y,
                    cf32 *__restrict__ xhat, uint32_t *__restrict__ fallbacks) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= g.R) return;
  cf32 gi[NT * NT], zv[NT], xv[NT];
  OFDM_UNROLL
  for (int e = 0; e < NT * NT; e++) gi[e] = gpu_load(Ginv + (size_t)e * g.R + i);
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) zv[t] = gpu_load(z + (size_t)t * g.R + i);
  mat_equalize(NT, gi, zv, g.diag, xv);
  if (eq_flagged(xv[0])) {
    equalize_fallback(Hhat, y, xhat, g.R, g.rf, NT, g.rx, g.diag, i, fallbacks);
    return;
  }
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) gpu_store(xhat + (size_t)t * g.R + i, xv[t]);
}

template <int NT>
__global__ void __launch_bounds__(kBlock)
    demap_kernel(gpu_link g, const cf32 *__restrict__ xhat, const uint8_t *__restrict__ labels,
                 uint32_t *__restrict__ errors) {
  uint64_t f, m;
  gpu_frame_position(g, &f, &m);
  uint32_t err[NT] = {}; /* zero for threads past the frame's end, and pilot REs */
  if (m < g.rf && pilot_antenna(&g.re.pilots, m) < 0) {
    const uint64_t i = f * g.rf + m;
    cf32 xv[NT];
    uint32_t lab[NT];
    OFDM_UNROLL
    for (int t = 0; t < NT; t++) {
      xv[t] = gpu_load(xhat + (size_t)t * g.R + i);
      lab[t] = labels[(size_t)t * g.R + i];
    }
    OFDM_UNROLL
    for (int t = 0; t < NT; t++) err[t] = re_bit_errors(g.bps, xv[t], lab[t]);
  }
  gpu_count_errors<NT>(err, errors + f * NT);
}

template <int NT, int NR>
struct Gram {
  static int launch(const gpu_link &g, const cf32 *Hhat, const cf32 *y, cf32 *G, cf32 *z,
                    cudaStream_t s) {
    gram_kernel<NT, NR><<<gpu_blocks(g.R, kBlock), kBlock, 0, s>>>(g, Hhat, y, G, z);
    CUDA_TRY_LAUNCH("gram_kernel");
    return 0;
  }
};

template <int NT>
struct Equalize {
  static int launch(const gpu_link &g, const cf32 *Ginv, const cf32 *z, const cf32 *Hhat,
                    const cf32 *y, cf32 *xhat, uint32_t *fallbacks, cudaStream_t s) {
    equalize_kernel<NT><<<gpu_blocks(g.R, kBlock), kBlock, 0, s>>>(g, Ginv, z, Hhat, y, xhat,
                                                                   fallbacks);
    CUDA_TRY_LAUNCH("equalize_kernel");
    return 0;
  }
};

template <int NT>
struct Demap {
  static int launch(const gpu_link &g, const cf32 *xhat, const uint8_t *labels, uint32_t *errors,
                    cudaStream_t s) {
    const int block = gpu_frame_block(g.rf);
    const uint64_t blocks = g.frames * ((g.rf + block - 1) / block);
    demap_kernel<NT><<<(unsigned)blocks, block, 0, s>>>(g, xhat, labels, errors);
    CUDA_TRY_LAUNCH("demap_kernel");
    return 0;
  }
};

}  // namespace

int gpu_frame_block(uint64_t rf) {
  const uint64_t warps = (rf + 31) / 32;
  return warps >= kBlock / 32 ? kBlock : (int)(warps * 32);
}

int gpu_launch_gram(const gpu_link &g, const cf32 *Hhat, const cf32 *y, cf32 *G, cf32 *z,
                    cudaStream_t s) {
  return gpu_dispatch<Gram>(g.tx, g.rx, g, Hhat, y, G, z, s);
}

int gpu_launch_equalize(const gpu_link &g, const cf32 *Ginv, const cf32 *z, const cf32 *Hhat,
                        const cf32 *y, cf32 *xhat, uint32_t *fallbacks, cudaStream_t s) {
  return gpu_dispatch_tx<Equalize>(g.tx, g, Ginv, z, Hhat, y, xhat, fallbacks, s);
}

int gpu_launch_demap(const gpu_link &g, const cf32 *xhat, const uint8_t *labels,
                     uint32_t *errors, cudaStream_t s) {
  return gpu_dispatch_tx<Demap>(g.tx, g, xhat, labels, errors, s);
}

int gpu_link_kernels_loadable(char *why, size_t whylen) {
  cudaFuncAttributes attr;
  const cudaError_t e = cudaFuncGetAttributes(&attr, demap_kernel<1>);
  if (e == cudaSuccess) return 0;
  snprintf(why, whylen,
           "this binary's kernels cannot run on the device: %s (%s); rebuild with "
           "-DCMAKE_CUDA_ARCHITECTURES set to the device's compute capability",
           cudaGetErrorName(e), cudaGetErrorString(e));
  cudaGetLastError();
  return -1;
}
