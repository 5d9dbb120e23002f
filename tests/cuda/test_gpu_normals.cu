/* The device's Gaussian conversion (rng_cnormal of core/draws.h, built from the
 * special-function unit's logarithm and sine) on 2^30 complex normals of one
 * Philox stream, 2^31 real N(0, 1/2) parts, each scaled by sqrt(2) to z ~
 * N(0, 1). Against exact values:
 *   - moments: E z = 0, E z^2 = 1, E z^3 = 0, E z^4 = 3 and E[re im] = 0, each
 *     within 5 standard errors of its sample mean (Var z^k = E z^2k - (E z^k)^2:
 *     1, 2, 15, 96; Var(2 re im) = 1);
 *   - tails: the counts of |z| > 3, 4, 5 against N erfc(t / sqrt 2), and of
 *     |w|^2 > 10 and |w|^2 < 1e-4, 1e-6 (w the complex normal: P(|w|^2 > t) =
 *     e^-t; the small ones probe the series near u = 1) against the binomial
 *     mean, each within 5 standard deviations;
 *   - accuracy: every normal within 5e-6 (each component) of the exact
 *     Box-Muller transform of its two uniforms, computed in double.
 * With about 15 checks at 5 sigma, a correct conversion fails one of them
 * with probability ~1e-5; a biased radius or angle of 1e-4 already moves the
 * fourth moment or the tails by many sigma. OFDMSIM_SMALL=1 uses 2^24 normals
 * (sanitizer runs). */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curand_kernel.h>

#include "core/draws.h"
#include "cuda/check.h"
#include "testutil.h"

namespace {

enum { M1, M2, M3, M4, CROSS, NMOM };
enum { T3, T4, T5, R10, R1E4, R1E6, NTAIL };

struct sums {
  double mom[NMOM];
  unsigned long long tail[NTAIL];
  unsigned int worst_bits; /* max |device - exact| as float bits (non-negative floats order as ints) */
};

__device__ void add_part(double z, double *m, unsigned long long *t) {
  const double z2 = z * z;
  m[M1] += z;
  m[M2] += z2;
  m[M3] += z2 * z;
  m[M4] += z2 * z2;
  const double a = fabs(z);
  t[T3] += a > 3.0;
  t[T4] += a > 4.0;
  t[T5] += a > 5.0;
}

/* Thread-local sums over a grid-stride loop, then one atomic per thread and
 * field (2^30 / threads normals each: the double sums stay exact enough). */
__global__ void normals_kernel(uint64_t n, uint64_t key, sums *out) {
  double m[NMOM] = {};
  unsigned long long t[NTAIL] = {};
  float worst = 0.0f;
  const uint2 k = make_uint2((uint32_t)key, (uint32_t)(key >> 32));
  const uint64_t sub = rng_subsequence(RNG_CHANNEL, 12345);
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n / 2;
       i += (uint64_t)gridDim.x * blockDim.x) {
    const uint4 w4 = curand_Philox4x32_10(
        make_uint4((uint32_t)i, (uint32_t)(i >> 32), (uint32_t)sub, (uint32_t)(sub >> 32)), k);
    rng_words w = {{w4.x, w4.y, w4.z, w4.w}};
    for (int j = 0; j < 2; j++) {
      const cf32 c = rng_cnormal_of(w, j);
      add_part(M_SQRT2 * c.re, m, t);
      add_part(M_SQRT2 * c.im, m, t);
      m[CROSS] += 2.0 * c.re * c.im;
      const double r2 = (double)c.re * c.re + (double)c.im * c.im;
      t[R10] += r2 > 10.0;
      t[R1E4] += r2 < 1e-4;
      t[R1E6] += r2 < 1e-6;
      /* the exact transform of the same float uniforms */
      const double u1 = rng_u01(w.w[2 * j]), u2 = rng_u01(w.w[2 * j + 1]);
      const double r = sqrt(-log(u1));
      double s, co;
      sincospi(2.0 * u2, &s, &co);
      const float d = (float)fmax(fabs(c.re - r * co), fabs(c.im - r * s));
      worst = d > worst || d != d ? (d != d ? INFINITY : d) : worst;
    }
  }
  for (int q = 0; q < NMOM; q++) atomicAdd(&out->mom[q], m[q]);
  for (int q = 0; q < NTAIL; q++) atomicAdd(&out->tail[q], t[q]);
  atomicMax(&out->worst_bits, __float_as_uint(worst));
}

/* |observed - expected| <= 5 sd, printed either way. */
void check_near(const char *what, double got, double want, double sd) {
  const double z = (got - want) / sd;
  printf("  %-22s %.6g (exact %.6g, %+.2f sd)\n", what, got, want, z);
  CHECK(fabs(z) <= 5.0, "%s: %.6g vs %.6g is %.2f standard deviations off", what, got, want, z);
}

void check_count(const char *what, unsigned long long got, double trials, double p) {
  check_near(what, (double)got, trials * p, sqrt(trials * p * (1.0 - p)));
}

}  // namespace

int main(void) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    printf("test_gpu_normals: skipped, no CUDA device (%s)\n",
           e != cudaSuccess ? cudaGetErrorString(e) : "count 0");
    return TEST_SKIP;
  }
  const int small = test_small_mode();
  const uint64_t n = small ? (1ull << 24) : (1ull << 30); /* complex normals */

  sums *d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, sizeof(sums)));
  CUDA_CHECK(cudaMemset(d, 0, sizeof(sums)));
  normals_kernel<<<132 * 16, 256>>>(n, 0x0123456789abcdefull, d);
  CUDA_CHECK_LAUNCH("normals_kernel");
  sums h;
  CUDA_CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d));

  const double parts = 2.0 * (double)n; /* real N(0,1) samples */
  printf("test_gpu_normals: %llu complex normals\n", (unsigned long long)n);
  check_near("E z", h.mom[M1] / parts, 0.0, 1.0 / sqrt(parts));
  check_near("E z^2", h.mom[M2] / parts, 1.0, sqrt(2.0 / parts));
  check_near("E z^3", h.mom[M3] / parts, 0.0, sqrt(15.0 / parts));
  check_near("E z^4", h.mom[M4] / parts, 3.0, sqrt(96.0 / parts));
  check_near("E 2 re im", h.mom[CROSS] / (double)n, 0.0, 1.0 / sqrt((double)n));
  check_count("#(|z| > 3)", h.tail[T3], parts, erfc(3.0 / M_SQRT2));
  check_count("#(|z| > 4)", h.tail[T4], parts, erfc(4.0 / M_SQRT2));
  check_count("#(|z| > 5)", h.tail[T5], parts, erfc(5.0 / M_SQRT2));
  check_count("#(|w|^2 > 10)", h.tail[R10], (double)n, exp(-10.0));
  check_count("#(|w|^2 < 1e-4)", h.tail[R1E4], (double)n, -expm1(-1e-4));
  check_count("#(|w|^2 < 1e-6)", h.tail[R1E6], (double)n, -expm1(-1e-6));
  float worst;
  memcpy(&worst, &h.worst_bits, sizeof worst);
  printf("  max |normal - exact transform| = %.3g (tolerance 5e-6)\n", worst);
  CHECK(worst <= 5e-6f, "a normal is %.3g from the exact transform of its uniforms (> 5e-6)", worst);
  return test_finish("test_gpu_normals");
}
