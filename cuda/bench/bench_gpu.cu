/* The GPU half of `ofdmsim bench`: the copy-bandwidth ceiling, our inversion
 * kernels next to cuBLAS on the same matrices, and the Philox generator floor.
 * Method (see the brief in app/bench/bench_main.c): working sets several times the L2,
 * warm-up first, median of cudaEvent-timed repetitions, inputs rotated between
 * two buffers, never zeros. */
#include <curand_kernel.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/draws.h"
#include "cuda/check.h"
#include "cuda/bench/bench_gpu.h"
#include "equalizer/smallmat.h"

namespace {

constexpr int kBlock = 256;

/* ---- small RAII helpers: every early `return -1` frees what was taken ---- */

struct DevBuf {
  void *p = nullptr;
  DevBuf() = default;
  DevBuf(const DevBuf &) = delete;
  DevBuf &operator=(const DevBuf &) = delete;
  ~DevBuf() { release(); }
  void release() {
    if (p) cudaFree(p);
    p = nullptr;
  }
  template <class T>
  T *as() const { return static_cast<T *>(p); }
};

struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  ~EventPair() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
};

struct CublasHandle {
  cublasHandle_t h = nullptr;
  ~CublasHandle() {
    if (h) cublasDestroy(h);
  }
};

int dev_alloc(DevBuf &b, size_t bytes, const char *what) {
  const cudaError_t e = cudaMalloc(&b.p, bytes);
  if (e != cudaSuccess) {
    char call[160];
    snprintf(call, sizeof call, "cudaMalloc(%s, %.3f GB)", what, bytes / 1e9);
    gpu_report_failure(__FILE__, __LINE__, call, cudaGetErrorName(e), cudaGetErrorString(e), 0);
    b.p = nullptr;
    return -1;
  }
  return 0;
}

int make_events(EventPair &ev) {
  CUDA_TRY(cudaEventCreate(&ev.start));
  CUDA_TRY(cudaEventCreate(&ev.stop));
  return 0;
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return (v.size() & 1) ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

/* Median over `reps` of the event time of timed(rep); untimed(rep) runs before
 * each timed region (restoring an in-place input, say). Both return 0 or -1. */
template <class Untimed, class Timed>
int time_median_ms(int reps, cudaStream_t s, Untimed &&untimed, Timed &&timed, double *ms_out) {
  EventPair ev;
  if (make_events(ev)) return -1;
  std::vector<double> t;
  for (int r = 0; r < reps; r++) {
    if (untimed(r)) return -1;
    CUDA_TRY(cudaEventRecord(ev.start, s));
    if (timed(r)) return -1;
    CUDA_TRY(cudaEventRecord(ev.stop, s));
    CUDA_TRY(cudaEventSynchronize(ev.stop));
    float ms = 0.0f;
    CUDA_TRY(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    t.push_back(ms);
  }
  *ms_out = median(t);
  return 0;
}

/* Calls f(std::integral_constant<int, n>) so that kernels get n at compile time. */
template <class F>
int with_order(int n, F &&f) {
  switch (n) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 3: return f(std::integral_constant<int, 3>{});
    case 4: return f(std::integral_constant<int, 4>{});
    case 5: return f(std::integral_constant<int, 5>{});
    case 6: return f(std::integral_constant<int, 6>{});
    case 7: return f(std::integral_constant<int, 7>{});
    case 8: return f(std::integral_constant<int, 8>{});
  }
  gpu_report_failure(__FILE__, __LINE__, "with_order", "invalid argument", "n outside 1..8", 0);
  return -1;
}

unsigned blocks_for(size_t threads) { return (unsigned)((threads + kBlock - 1) / kBlock); }

/* ---- kernels --------------------------------------------------------- */

/* Non-constant fill for the copy buffers (never time zeros: some memory systems move them faster). */
__global__ void fill_pattern_kernel(uint32_t *p, size_t words) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = (uint32_t)(i * 2654435761u) ^ 0x5bd1e995u;
}

/* Matrix m of the stack: G = B^H B / N + 0.05 I with B's entries CN(0,1) from
 * Philox keyed by the seed, counter (m, pair, 0, tag). Condition numbers stay
 * below ~100: a typical MMSE Gram matrix, not a stress test (the tests do that). */
template <int N>
__global__ void __launch_bounds__(kBlock) make_hpd_kernel(cf32 *g, size_t M, uint64_t seed) {
  const size_t m = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= M) return;
  const uint2 key = make_uint2((uint32_t)seed, (uint32_t)(seed >> 32));
  const float scale = rsqrtf((float)N);
  cf32 b[N * N], gm[N * N];
  OFDM_UNROLL
  for (int p = 0; p < (N * N + 1) / 2; p++) {
    const uint4 w = curand_Philox4x32_10(
        make_uint4((uint32_t)m, (uint32_t)(m >> 32), (uint32_t)p, 0x6b656e63u), key);
    b[2 * p] = cf_scale(rng_cnormal(w.x, w.y), scale);
    if (2 * p + 1 < N * N) b[2 * p + 1] = cf_scale(rng_cnormal(w.z, w.w), scale);
  }
  mat_gram(N, N, b, 0.05f, gm);
  OFDM_UNROLL
  for (int e = 0; e < N * N; e++) g[(size_t)e * M + m] = gm[e];
}

/* SoA stack -> cuBLAS's layout: matrix m column-major at a + m*n*n. */
__global__ void soa_to_aos_kernel(const cf32 *g, cuComplex *a, int n, size_t M) {
  const size_t m = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= M) return;
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) {
      const cf32 z = g[(size_t)(r * n + c) * M + m];
      a[m * n * n + (size_t)c * n + r] = make_cuComplex(z.re, z.im);
    }
}

__global__ void pointer_array_kernel(cuComplex *base, cuComplex **ptrs, int n, size_t M) {
  const size_t m = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (m < M) ptrs[m] = base + m * (size_t)n * n;
}

/* One complex normal from two words, the way the floor variant `Kind` turns
 * them: CUDA's correctly rounded logf / sincospif (the conversion before the
 * fast one), the raw special-function unit (__logf / __sincosf, no care
 * near u = 1), or rng_cnormal itself (what the simulator draws). */
template <int Kind>
__device__ __forceinline__ cf32 floor_cnormal(uint32_t a, uint32_t b) {
  if (Kind == GPU_FLOOR_OURS) return rng_cnormal(a, b);
  const float u1 = rng_u01(a), u2 = rng_u01(b);
  float s, c, r;
  if (Kind == GPU_FLOOR_PRECISE) {
    r = sqrtf(-logf(u1));
    sincospif(2.0f * u2, &s, &c);
  } else {
    r = sqrtf(-__logf(u1));
    __sincosf(6.2831855f * u2, &s, &c);
  }
  return cf_make(r * c, r * s);
}

__device__ __forceinline__ uint4 floor_words(uint2 key, uint64_t sub, uint64_t idx) {
  return curand_Philox4x32_10(
      make_uint4((uint32_t)idx, (uint32_t)(idx >> 32), (uint32_t)sub, (uint32_t)(sub >> 32)), key);
}

/* The sum of the n CN(0,1) samples of RE i in the pair layout of draws.h
 * (draw p*R + i of subsequence sub: words (0,1) and (2,3) a normal each). */
template <int Kind>
__device__ __forceinline__ float floor_pair_sum(uint2 key, uint64_t sub, int n, uint64_t R, uint64_t i) {
  float acc = 0.0f;
  for (int p = 0; 2 * p < n; p++) {
    const uint4 w = floor_words(key, sub, (uint64_t)p * R + i);
    const cf32 z0 = floor_cnormal<Kind>(w.x, w.y);
    acc += z0.re + z0.im;
    if (2 * p + 1 < n) {
      const cf32 z1 = floor_cnormal<Kind>(w.z, w.w);
      acc += z1.re + z1.im;
    }
  }
  return acc;
}

/* The random numbers one frequency-domain RE of an rx x tx link draws: with
 * Labels its label words (purpose BITS, ceil(tx/4) draws), its channel
 * (CHANNEL, rx*tx CN(0,1)) and its noise (NOISE, rx CN(0,1)), with the
 * counters of draws.h and the conversion of Kind; GPU_FLOOR_STATEFUL instead
 * runs cuRAND's own stateful generator (curand4 for the labels,
 * curand_normal4 for the normals), as many words. Summed into one float per
 * thread so that nothing but the generator costs time. */
template <int Kind, int Labels>
__global__ void __launch_bounds__(kBlock) philox_floor_kernel(int tx, int rx, uint64_t R,
                                                             uint64_t seed, float *out) {
  const uint2 key = make_uint2((uint32_t)seed, (uint32_t)(seed >> 32));
  const uint64_t sub_bits = rng_subsequence(RNG_BITS, 0);
  const uint64_t sub_ch = rng_subsequence(RNG_CHANNEL, 0);
  const uint64_t sub_nz = rng_subsequence(RNG_NOISE, 0);
  const int n_ch = rx * tx, n_nz = rx;
  float acc = 0.0f;
  uint32_t labels = 0;
  const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (Kind == GPU_FLOOR_STATEFUL) {
    curandStatePhilox4_32_10_t st;
    curand_init(seed, tid, 0, &st);
    const int quads = (n_ch + n_nz + 1) / 2; /* 4 floats = 2 complex normals each */
    for (uint64_t i = tid; i < R; i += (uint64_t)gridDim.x * blockDim.x) {
      if (Labels)
        for (int b = 0; b < (tx + 3) / 4; b++) {
          const uint4 w = curand4(&st);
          labels ^= w.x ^ w.y ^ w.z ^ w.w;
        }
      for (int q = 0; q < quads; q++) {
        const float4 v = curand_normal4(&st);
        acc += v.x + v.y + v.z + v.w;
      }
    }
  } else {
    for (uint64_t i = tid; i < R; i += (uint64_t)gridDim.x * blockDim.x) {
      if (Labels)
        for (int b = 0; b < (tx + 3) / 4; b++) {
          const uint4 w = floor_words(key, sub_bits, (uint64_t)b * R + i);
          labels ^= w.x ^ w.y ^ w.z ^ w.w;
        }
      acc += floor_pair_sum<Kind>(key, sub_ch, n_ch, R, i);
      acc += floor_pair_sum<Kind>(key, sub_nz, n_nz, R, i);
    }
  }
  out[tid] = acc + (float)(labels & 1u);
}

/* Launches the floor kernel of (kind, labels). */
int launch_floor(int kind, int labels, unsigned blocks, int tx, int rx, uint64_t R, uint64_t seed,
                 float *out) {
#define OFDMSIM_FLOOR_CASE(K)                                                               \
  case K:                                                                                   \
    if (labels) philox_floor_kernel<K, 1><<<blocks, kBlock>>>(tx, rx, R, seed, out);        \
    else philox_floor_kernel<K, 0><<<blocks, kBlock>>>(tx, rx, R, seed, out);               \
    break;
  switch (kind) {
    OFDMSIM_FLOOR_CASE(GPU_FLOOR_PRECISE)
    OFDMSIM_FLOOR_CASE(GPU_FLOOR_STATEFUL)
    OFDMSIM_FLOOR_CASE(GPU_FLOOR_MUFU)
    OFDMSIM_FLOOR_CASE(GPU_FLOOR_OURS)
    default:
      gpu_report_failure(__FILE__, __LINE__, "launch_floor", "invalid argument", "unknown floor kind", 0);
      return -1;
  }
#undef OFDMSIM_FLOOR_CASE
  return gpu_launch_failed(__FILE__, __LINE__, "philox_floor_kernel", 0) ? -1 : 0;
}

int launch_check(int line, const char *kernel) {
  return gpu_launch_failed(__FILE__, line, kernel, 0) ? -1 : 0;
}

int make_hpd_stack(int n, cf32 *g, size_t M, uint64_t seed) {
  return with_order(n, [&](auto order) {
    constexpr int N = decltype(order)::value;
    make_hpd_kernel<N><<<blocks_for(M), kBlock>>>(g, M, seed);
    return launch_check(__LINE__, "make_hpd_kernel");
  });
}

int enough_memory(size_t need, const char *what) {
  size_t free_b = 0, total_b = 0;
  CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  /* Leave room for the libraries' workspaces and the context. */
  if (need + (size_t)512 * 1024 * 1024 > free_b) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s needs %.2f GB of device memory, %.2f GB free; use --matrices",
             what, need / 1e9, free_b / 1e9);
    gpu_report_failure(__FILE__, __LINE__, "gpu_bench", "out of memory", msg, 0);
    return -1;
  }
  return 0;
}

}  // namespace

/* ---- copy ceiling ------------------------------------------------------ */

extern "C" int gpu_bench_copy(size_t bytes, int reps, double *gbs_out, double *ms_out) {
  *gbs_out = NAN;
  if (ms_out) *ms_out = NAN;
  bytes &= ~(size_t)15;
  if (bytes == 0 || reps < 1) {
    gpu_report_failure(__FILE__, __LINE__, "gpu_bench_copy", "invalid argument",
                       "bytes and reps must be positive", 0);
    return -1;
  }
  if (enough_memory(2 * bytes, "the copy bench")) return -1;
  DevBuf src, dst;
  if (dev_alloc(src, bytes, "copy source") || dev_alloc(dst, bytes, "copy destination")) return -1;
  fill_pattern_kernel<<<1024, kBlock>>>(src.as<uint32_t>(), bytes / 4);
  if (launch_check(__LINE__, "fill_pattern_kernel")) return -1;
  cudaStream_t s = 0;
  for (int w = 0; w < 3; w++) CUDA_TRY(cudaMemcpyAsync(dst.p, src.p, bytes, cudaMemcpyDeviceToDevice, s));
  double ms = NAN;
  const int rc = time_median_ms(
      reps, s, [](int) { return 0; },
      [&](int r) {
        /* Alternate the direction so that no run starts from a hot L2. */
        void *to = (r & 1) ? src.p : dst.p;
        const void *from = (r & 1) ? dst.p : src.p;
        CUDA_TRY(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, s));
        return 0;
      },
      &ms);
  if (rc) return -1;
  *gbs_out = 2.0 * (double)bytes / (ms * 1e-3) / 1e9;
  if (ms_out) *ms_out = ms;
  return 0;
}

/* ---- inversion: our variants and cuBLAS -------------------------------- */

static int bench_our_variants(int n, size_t M, int reps, const cf32 *const in[2],
                              cf32 *const out[2], gpu_invert_figures *f) {
  const double bytes = ((double)n * (n + 1) / 2 + (double)n * n) * sizeof(cf32) * (double)M;
  for (int v = GPU_INV_AUTO; v <= GPU_INV_GENERAL; v++) {
    const gpu_invert_variant var = (gpu_invert_variant)v;
    f->variant_used[v] = gpu_invert_resolved_variant(n, var, in[0], out[0], M);
    /* Warm up for 25 ms, not a launch or two: the clocks of an idle GPU take
     * that long to settle, and the variant timed first would pay for it. */
    const auto t0 = std::chrono::steady_clock::now();
    for (int w = 0; std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(25); w++) {
      if (gpu_invert_soa_variant(n, var, in[w & 1], out[w & 1], M, nullptr)) return -1;
      CUDA_TRY(cudaDeviceSynchronize());
    }
    double ms = NAN;
    if (time_median_ms(
            reps, 0, [](int) { return 0; },
            [&](int r) { return gpu_invert_soa_variant(n, var, in[r & 1], out[r & 1], M, nullptr); },
            &ms))
      return -1;
    f->ms[v] = ms;
    f->ginv_s[v] = (double)M / (ms * 1e-3) / 1e9;
    f->bytes_moved[v] = bytes;
  }
  return 0;
}

/* cuBLAS on the same first input stack; our AUTO output of it in `ours`. */
static int bench_cublas(int n, size_t M, int reps, const cf32 *in, const cf32 *ours,
                        gpu_invert_figures *f) {
  const size_t elems = (size_t)n * n * M;
  if (M > 0x7fffffffu) {
    gpu_report_failure(__FILE__, __LINE__, "bench_cublas", "invalid argument",
                       "cuBLAS batch counts are int: at most 2^31-1 matrices", 0);
    return -1;
  }
  if (enough_memory(2 * elems * sizeof(cuComplex) + 2 * M * sizeof(void *) +
                        (size_t)(n + 1) * M * sizeof(int),
                    "the cuBLAS comparison"))
    return -1;
  DevBuf a, c, aptr, cptr, piv, info;
  if (dev_alloc(a, elems * sizeof(cuComplex), "cuBLAS A") ||
      dev_alloc(c, elems * sizeof(cuComplex), "cuBLAS C") ||
      dev_alloc(aptr, M * sizeof(void *), "cuBLAS A pointers") ||
      dev_alloc(cptr, M * sizeof(void *), "cuBLAS C pointers") ||
      dev_alloc(piv, (size_t)n * M * sizeof(int), "cuBLAS pivots") ||
      dev_alloc(info, M * sizeof(int), "cuBLAS info"))
    return -1;
  pointer_array_kernel<<<blocks_for(M), kBlock>>>(a.as<cuComplex>(), aptr.as<cuComplex *>(), n, M);
  if (launch_check(__LINE__, "pointer_array_kernel")) return -1;
  pointer_array_kernel<<<blocks_for(M), kBlock>>>(c.as<cuComplex>(), cptr.as<cuComplex *>(), n, M);
  if (launch_check(__LINE__, "pointer_array_kernel")) return -1;
  auto restore_a = [&](int) {
    soa_to_aos_kernel<<<blocks_for(M), kBlock>>>(in, a.as<cuComplex>(), n, M);
    return launch_check(__LINE__, "soa_to_aos_kernel");
  };

  CublasHandle handle;
  CUBLAS_TRY(cublasCreate(&handle.h));
  CUBLAS_TRY(cublasSetStream(handle.h, 0));
  const int batch = (int)M;
  cuComplex *const *A = aptr.as<cuComplex *>();
  cuComplex *const *C = cptr.as<cuComplex *>();

  f->cublas_matinv_ginv_s = NAN;
  if (n <= 32) {
    if (restore_a(0)) return -1;
    CUBLAS_TRY(cublasCmatinvBatched(handle.h, n, A, n, C, n, info.as<int>(), batch)); /* warm-up */
    double ms = NAN;
    if (time_median_ms(
            reps, 0, [](int) { return 0; },
            [&](int) {
              CUBLAS_TRY(cublasCmatinvBatched(handle.h, n, A, n, C, n, info.as<int>(), batch));
              return 0;
            },
            &ms))
      return -1;
    f->cublas_matinv_ginv_s = (double)M / (ms * 1e-3) / 1e9;
  }

  /* getrf works in place: A is restored from the SoA input before every
   * repetition, outside the timed region. */
  auto getrf_getri = [&](int) {
    CUBLAS_TRY(cublasCgetrfBatched(handle.h, n, A, n, piv.as<int>(), info.as<int>(), batch));
    CUBLAS_TRY(cublasCgetriBatched(handle.h, n, A, n, piv.as<int>(), C, n, info.as<int>(), batch));
    return 0;
  };
  if (restore_a(0) || getrf_getri(0)) return -1; /* warm-up */
  double ms = NAN;
  if (time_median_ms(reps, 0, restore_a, getrf_getri, &ms)) return -1;
  f->cublas_getrf_getri_ginv_s = (double)M / (ms * 1e-3) / 1e9;

  /* One more factorisation to read getrf's own info (getri overwrote it). */
  if (restore_a(0)) return -1;
  CUBLAS_TRY(cublasCgetrfBatched(handle.h, n, A, n, piv.as<int>(), info.as<int>(), batch));
  std::vector<int> h_info(M);
  CUDA_TRY(cudaMemcpy(h_info.data(), info.p, M * sizeof(int), cudaMemcpyDeviceToHost));
  f->cublas_singular = (int)std::count_if(h_info.begin(), h_info.end(), [](int i) { return i != 0; });
  CUBLAS_TRY(cublasCgetriBatched(handle.h, n, A, n, piv.as<int>(), C, n, info.as<int>(), batch));

  /* Agreement with ours over a sample of the first matrices. */
  const size_t S = std::min(M, (size_t)65536);
  std::vector<cf32> h_ours((size_t)n * n * S);
  std::vector<cuComplex> h_theirs((size_t)n * n * S);
  CUDA_TRY(cudaMemcpy2D(h_ours.data(), S * sizeof(cf32), ours, M * sizeof(cf32), S * sizeof(cf32),
                        (size_t)n * n, cudaMemcpyDeviceToHost));
  CUDA_TRY(cudaMemcpy(h_theirs.data(), c.p, h_theirs.size() * sizeof(cuComplex),
                      cudaMemcpyDeviceToHost));
  double worst = 0.0;
  for (size_t m = 0; m < S; m++) {
    double diff = 0.0, scale = 0.0;
    for (int r = 0; r < n; r++)
      for (int col = 0; col < n; col++) {
        const cf32 x = h_ours[(size_t)(r * n + col) * S + m];
        const cuComplex y = h_theirs[m * n * n + (size_t)col * n + r];
        diff = std::max(diff, (double)std::hypot(x.re - y.x, x.im - y.y));
        scale = std::max(scale, (double)std::hypot(y.x, y.y));
      }
    const double rel = diff / scale;
    worst = std::isnan(rel) ? INFINITY : std::max(worst, rel);
  }
  f->max_rel_diff_vs_cublas = worst;
  return 0;
}

extern "C" int gpu_bench_invert(int n, size_t M, int reps, uint64_t seed, gpu_invert_figures *f) {
  memset(f, 0, sizeof *f);
  f->n = n;
  f->matrices = M;
  for (int v = 0; v < GPU_BENCH_VARIANTS; v++) f->ms[v] = f->ginv_s[v] = NAN;
  f->cublas_matinv_ginv_s = f->cublas_getrf_getri_ginv_s = f->max_rel_diff_vs_cublas = NAN;
  if (n < 1 || n > GPU_INVERT_MAX_N || M < 2 || reps < 1) {
    gpu_report_failure(__FILE__, __LINE__, "gpu_bench_invert", "invalid argument",
                       "need 1 <= n <= 8, M >= 2, reps >= 1", 0);
    return -1;
  }
  const size_t stack_bytes = (size_t)n * n * M * sizeof(cf32);
  if (enough_memory(4 * stack_bytes, "the inversion bench")) return -1;
  DevBuf in0, in1, out0, out1;
  if (dev_alloc(in0, stack_bytes, "input stack 0") || dev_alloc(in1, stack_bytes, "input stack 1") ||
      dev_alloc(out0, stack_bytes, "output stack 0") ||
      dev_alloc(out1, stack_bytes, "output stack 1"))
    return -1;
  if (make_hpd_stack(n, in0.as<cf32>(), M, seed) || make_hpd_stack(n, in1.as<cf32>(), M, seed + 1))
    return -1;
  const cf32 *const in[2] = {in0.as<cf32>(), in1.as<cf32>()};
  cf32 *const out[2] = {out0.as<cf32>(), out1.as<cf32>()};
  if (bench_our_variants(n, M, reps, in, out, f)) return -1;

  /* The second pair is no longer needed: give its memory to cuBLAS. */
  in1.release();
  out1.release();
  if (gpu_invert_soa(n, in[0], out[0], M, nullptr)) return -1;
  if (bench_cublas(n, M, reps, in[0], out[0], f)) return -1;
  CUDA_TRY(cudaDeviceSynchronize());
  return 0;
}

/* ---- generator floor --------------------------------------------------- */

extern "C" int gpu_bench_philox(int tx, int rx, size_t res, int reps, int kind, int with_labels,
                                double *gres_s_out, double *ms_out) {
  *gres_s_out = NAN;
  if (ms_out) *ms_out = NAN;
  if (tx < 1 || rx < 1 || res == 0 || reps < 1) {
    gpu_report_failure(__FILE__, __LINE__, "gpu_bench_philox", "invalid argument",
                       "tx, rx, res and reps must be positive", 0);
    return -1;
  }
  int device = 0, sms = 0;
  CUDA_TRY(cudaGetDevice(&device));
  CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  /* Enough resident threads to hide the special-function latency, few enough
   * that each loops over many REs. */
  const unsigned blocks = (unsigned)std::min<size_t>((size_t)sms * 8, (res + kBlock - 1) / kBlock);
  DevBuf out;
  if (dev_alloc(out, (size_t)blocks * kBlock * sizeof(float), "philox sums")) return -1;
  auto run = [&](int r) {
    return launch_floor(kind, with_labels, blocks, tx, rx, res, 1000 + (uint64_t)r, out.as<float>());
  };
  if (run(0) || run(1)) return -1;
  double ms = NAN;
  if (time_median_ms(reps, 0, [](int) { return 0; }, run, &ms)) return -1;
  /* The sums must be finite: a NaN would mean a broken conversion. */
  std::vector<float> h((size_t)blocks * kBlock);
  CUDA_TRY(cudaMemcpy(h.data(), out.p, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (float x : h)
    if (!std::isfinite(x)) {
      gpu_report_failure(__FILE__, __LINE__, "philox_floor_kernel", "non-finite sum",
                         "a Philox normal came out NaN or infinite", 0);
      return -1;
    }
  *gres_s_out = (double)res / (ms * 1e-3) / 1e9;
  if (ms_out) *ms_out = ms;
  return 0;
}
