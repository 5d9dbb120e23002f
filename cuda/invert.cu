/* Inversion of struct-of-arrays stacks of small Hermitian positive-definite
 * matrices: one thread per matrix (two for the PAIR variant), the order N a
 * template argument so the matrix lives in registers, the algebra from
 * equalizer/smallmat.h (the CPU runs the same functions).
 *
 * The work is memory bound: an 8x8 Cholesky inverse is ~3k flops for 800
 * bytes, far under the ~20 flop/byte of an H100, and 2x2 / 4x4 much less.
 * The floor is therefore the bytes moved: the upper triangle read
 * (n(n+1)/2 elements: the smallmat inverses never look below the diagonal, so
 * the compiler drops those loads) plus all n^2 elements written, 8 bytes each.
 * Each load and store is a warp-wide run of consecutive 8-byte (PAIR: 16-byte)
 * words, and all loads of a thread are issued before the first use. */
#include <stdint.h>
#include <stdio.h>

#include "cuda/check.h"
#include "cuda/gpu.h"
#include "equalizer/smallmat.h"

namespace {

constexpr int kBlock = 256;

enum class Algo { BySize, Cholesky };

/* By size (mat_inv_herm's rule), or Cholesky for every size. */
template <int N, Algo A>
__device__ __forceinline__ void invert_one(const cf32 *a, cf32 *x) {
  if (A == Algo::Cholesky) {
    mat_inv_chol(N, a, x);
  } else {
    mat_inv_herm(N, a, x);
  }
}

__device__ __forceinline__ cf32 load_cf(const cf32 *p) {
  const float2 v = __ldg(reinterpret_cast<const float2 *>(p));
  return cf_make(v.x, v.y);
}
__device__ __forceinline__ void store_cf(cf32 *p, cf32 z) {
  *reinterpret_cast<float2 *>(p) = make_float2(z.re, z.im);
}

/* One matrix per thread, exact grid (no loop: the grid covers M). The lower triangle of `a` is set to zero
 * only to keep it defined: the inverses do not read it. */
template <int N, Algo A>
__global__ void __launch_bounds__(kBlock) invert_soa_kernel(const cf32 *__restrict__ g,
                                                            cf32 *__restrict__ ginv, size_t M) {
  const size_t m = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= M) return;
  cf32 a[N * N], x[N * N];
  OFDM_UNROLL
  for (int r = 0; r < N; r++) {
    OFDM_UNROLL
    for (int c = 0; c < N; c++)
      a[r * N + c] = (c >= r) ? load_cf(g + (size_t)(r * N + c) * M + m) : cf_make(0.0f, 0.0f);
  }
  invert_one<N, A>(a, x);
  OFDM_UNROLL
  for (int e = 0; e < N * N; e++) store_cf(ginv + (size_t)e * M + m, x[e]);
}

/* Two neighbouring matrices per thread through 16-byte loads and stores
 * (needs M even and 16-byte aligned bases, checked by the launcher). */
template <int N, Algo A>
__global__ void __launch_bounds__(kBlock) invert_soa_pair_kernel(const cf32 *__restrict__ g,
                                                               cf32 *__restrict__ ginv,
                                                               size_t M) {
  const size_t pair = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const size_t m = 2 * pair;
  if (m >= M) return;
  cf32 a0[N * N], a1[N * N], x0[N * N], x1[N * N];
  OFDM_UNROLL
  for (int r = 0; r < N; r++) {
    OFDM_UNROLL
    for (int c = 0; c < N; c++) {
      if (c >= r) {
        const float4 v = __ldg(reinterpret_cast<const float4 *>(g + (size_t)(r * N + c) * M + m));
        a0[r * N + c] = cf_make(v.x, v.y);
        a1[r * N + c] = cf_make(v.z, v.w);
      } else {
        a0[r * N + c] = cf_make(0.0f, 0.0f);
        a1[r * N + c] = cf_make(0.0f, 0.0f);
      }
    }
  }
  invert_one<N, A>(a0, x0);
  invert_one<N, A>(a1, x1);
  OFDM_UNROLL
  for (int e = 0; e < N * N; e++)
    *reinterpret_cast<float4 *>(ginv + (size_t)e * M + m) =
        make_float4(x0[e].re, x0[e].im, x1[e].re, x1[e].im);
}

/* The variant GPU_INV_AUTO resolves to, per order n (index n). One matrix per
 * thread everywhere until a bench on the target shows PAIR ahead by more than
 * the run-to-run spread (`ofdmsim bench` prints both). */
const gpu_invert_variant kAutoVariant[GPU_INVERT_MAX_N + 1] = {
    GPU_INV_ONE, GPU_INV_ONE, GPU_INV_ONE, GPU_INV_ONE, GPU_INV_ONE,
    GPU_INV_ONE, GPU_INV_ONE, GPU_INV_ONE, GPU_INV_ONE};

/* PAIR keeps two matrices in registers: only worth it (and spill-free) up to 4x4. */
constexpr int kPairMaxN = 4;

/* The launch error (and with OFDMSIM_SYNC_CHECK the kernel's own fault),
 * reported with the kernel's name and order. */
int launch_failed(int line, const char *kernel, int n) {
  char what[96];
  snprintf(what, sizeof what, "%s<%d> launch", kernel, n);
  return gpu_launch_failed(__FILE__, line, what, 0);
}

template <int N, Algo A>
int launch_one(const cf32 *dG, cf32 *dGinv, size_t M, cudaStream_t s) {
  const size_t blocks = (M + kBlock - 1) / kBlock;
  invert_soa_kernel<N, A><<<(unsigned)blocks, kBlock, 0, s>>>(dG, dGinv, M);
  return launch_failed(__LINE__, A == Algo::Cholesky ? "invert_soa_kernel[cholesky]"
                                                     : "invert_soa_kernel", N) ? -1 : 0;
}

template <int N>
int launch_pair(const cf32 *dG, cf32 *dGinv, size_t M, cudaStream_t s) {
  if constexpr (N > kPairMaxN) {
    return launch_one<N, Algo::BySize>(dG, dGinv, M, s);
  } else {
    const size_t blocks = (M / 2 + kBlock - 1) / kBlock;
    invert_soa_pair_kernel<N, Algo::BySize><<<(unsigned)blocks, kBlock, 0, s>>>(dG, dGinv, M);
    return launch_failed(__LINE__, "invert_soa_pair_kernel", N) ? -1 : 0;
  }
}

template <int N>
int launch_variant(gpu_invert_variant v, const cf32 *dG, cf32 *dGinv, size_t M, cudaStream_t s) {
  switch (v) {
    case GPU_INV_GENERAL: return launch_one<N, Algo::Cholesky>(dG, dGinv, M, s);
    case GPU_INV_PAIR: return launch_pair<N>(dG, dGinv, M, s);
    default: return launch_one<N, Algo::BySize>(dG, dGinv, M, s);
  }
}

int bad_argument(int line, const char *why) {
  gpu_report_failure(__FILE__, line, "gpu_invert_soa", "invalid argument", why, 0);
  return -1;
}

/* What a variant request becomes for this n, M and alignment. */
gpu_invert_variant resolve_variant(int n, gpu_invert_variant v, const cf32 *dG,
                                   const cf32 *dGinv, size_t M) {
  if (v == GPU_INV_AUTO) v = kAutoVariant[n];
  if (v == GPU_INV_PAIR &&
      (n > kPairMaxN || (M & 1) || ((uintptr_t)dG & 15) || ((uintptr_t)dGinv & 15)))
    v = GPU_INV_ONE;
  return v;
}

}  // namespace

extern "C" const char *gpu_invert_variant_name(gpu_invert_variant v) {
  switch (v) {
    case GPU_INV_AUTO: return "auto";
    case GPU_INV_ONE: return "one";
    case GPU_INV_PAIR: return "pair";
    case GPU_INV_GENERAL: return "general";
  }
  return "unknown";
}

extern "C" int gpu_invert_resolved_variant(int n, gpu_invert_variant v, const cf32 *dG,
                                           const cf32 *dGinv, size_t M) {
  if (n < 1 || n > GPU_INVERT_MAX_N) return -1;
  return (int)resolve_variant(n, v, dG, dGinv, M);
}

extern "C" int gpu_invert_soa_variant(int n, gpu_invert_variant v, const cf32 *dG, cf32 *dGinv,
                                      size_t M, void *stream) {
  char msg[160];
  if (n < 1 || n > GPU_INVERT_MAX_N) {
    snprintf(msg, sizeof msg, "order n = %d outside 1..%d", n, GPU_INVERT_MAX_N);
    return bad_argument(__LINE__, msg);
  }
  if (v < GPU_INV_AUTO || v > GPU_INV_GENERAL) {
    snprintf(msg, sizeof msg, "unknown variant %d", (int)v);
    return bad_argument(__LINE__, msg);
  }
  if (M == 0) return 0;
  if (!dG || !dGinv) return bad_argument(__LINE__, "NULL stack pointer");
  if (((uintptr_t)dG & 7) || ((uintptr_t)dGinv & 7))
    return bad_argument(__LINE__, "stack pointers must be 8-byte aligned (cf32)");
  const size_t bytes = (size_t)n * n * M * sizeof(cf32);
  if ((const char *)dG < (const char *)dGinv + bytes &&
      (const char *)dGinv < (const char *)dG + bytes)
    return bad_argument(__LINE__, "input and output stacks overlap");
  /* One thread a matrix: the grid's x dimension takes 2^31-1 blocks. */
  if ((M + kBlock - 1) / kBlock > 0x7fffffffu) {
    snprintf(msg, sizeof msg, "M = %zu matrices exceeds one launch; split the stack", M);
    return bad_argument(__LINE__, msg);
  }
  v = resolve_variant(n, v, dG, dGinv, M);
  cudaStream_t s = (cudaStream_t)stream;
  switch (n) {
    case 1: return launch_variant<1>(v, dG, dGinv, M, s);
    case 2: return launch_variant<2>(v, dG, dGinv, M, s);
    case 3: return launch_variant<3>(v, dG, dGinv, M, s);
    case 4: return launch_variant<4>(v, dG, dGinv, M, s);
    case 5: return launch_variant<5>(v, dG, dGinv, M, s);
    case 6: return launch_variant<6>(v, dG, dGinv, M, s);
    case 7: return launch_variant<7>(v, dG, dGinv, M, s);
    default: return launch_variant<8>(v, dG, dGinv, M, s);
  }
}

extern "C" int gpu_invert_soa(int n, const cf32 *dG, cf32 *dGinv, size_t M, void *stream) {
  return gpu_invert_soa_variant(n, GPU_INV_AUTO, dG, dGinv, M, stream);
}

extern "C" int gpu_invert_soa_general(int n, const cf32 *dG, cf32 *dGinv, size_t M,
                                      void *stream) {
  return gpu_invert_soa_variant(n, GPU_INV_GENERAL, dG, dGinv, M, stream);
}
