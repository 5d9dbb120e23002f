/* cuRAND's Philox on the device against core/rng.h on the host: the random
 * streams (core/draws.h) must not depend on the backend. For many (seed, point,
 * purpose, frame, index) draws, edge values included (index and frame past
 * 2^32, all-ones seeds, the 8-bit purpose and 16-bit point limits):
 *   - curand_Philox4x32_10(counter, key) and curand_init(rng_key(seed, stream), sub, 4*index)
 *     + curand4 give the same 4 words as rng_draw, bit for bit;
 *   - (host) rng_draw as compiled here equals the channel library's
 *     philox4x32_10 on the documented counter;
 *   - curand_uniform of that state is rng_u01 of the first word, bit for bit;
 *   - rng_u01 gives bitwise-equal floats on both sides;
 *   - rng_cnormal agrees within 1e-5 (each side computes the logarithm and
 *     the sine its own fast way: core/draws.h, core/rng_math.h).
 * OFDMSIM_SMALL=1 draws fewer random tuples (sanitizer runs). */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "core/draws.h"
#include "cuda/check.h"
#include "testutil.h"

/* The kernel gets cuRAND's Philox and the host reference exactly the rng_draw
 * of rng.h, as the CPU backend compiles it (rng.h renames Random123's
 * mulhilo32, which would clash with cuRAND's). */
#include <curand_kernel.h>

#include "core/rng.h"
#include "philox_ref.h"

struct tuple_in {
  uint64_t seed, frame, index;
  uint32_t point, purpose;
};

struct tuple_out {
  uint32_t direct[4];   /* curand_Philox4x32_10 on the draws.h counter */
  uint32_t via_init[4]; /* curand_init(rng_key(seed, stream), sub, 4*index) + curand4 */
  float uniform_init;   /* curand_uniform on a fresh curand_init state */
  float u01[4];         /* rng_u01 of the direct words */
  cf32 cn[2];           /* rng_cnormal_of the direct words */
  int init_valid;       /* 4*index fits curand_init's 64-bit offset */
};

__global__ void philox_kernel(const tuple_in *in, tuple_out *out, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const tuple_in t = in[i];
  tuple_out o;
  const uint64_t sub = rng_subsequence(t.purpose, t.frame), k = rng_key(t.seed, t.point);
  const uint4 ctr = make_uint4((uint32_t)t.index, (uint32_t)(t.index >> 32), (uint32_t)sub,
                               (uint32_t)(sub >> 32));
  const uint2 key = make_uint2((uint32_t)k, (uint32_t)(k >> 32));
  const uint4 w = curand_Philox4x32_10(ctr, key);
  o.direct[0] = w.x, o.direct[1] = w.y, o.direct[2] = w.z, o.direct[3] = w.w;
  o.init_valid = t.index < (1ull << 62);
  if (o.init_valid) {
    curandStatePhilox4_32_10_t s;
    curand_init(k, sub, 4 * t.index, &s);
    curandStatePhilox4_32_10_t s2 = s;
    const uint4 v = curand4(&s);
    o.via_init[0] = v.x, o.via_init[1] = v.y, o.via_init[2] = v.z, o.via_init[3] = v.w;
    o.uniform_init = curand_uniform(&s2);
  } else {
    memset(o.via_init, 0, sizeof o.via_init);
    o.uniform_init = 0.0f;
  }
  rng_words rw;
  for (int k = 0; k < 4; k++) {
    rw.w[k] = o.direct[k];
    o.u01[k] = rng_u01(o.direct[k]);
  }
  o.cn[0] = rng_cnormal_of(rw, 0);
  o.cn[1] = rng_cnormal_of(rw, 1);
  out[i] = o;
}

/* The cartesian product of edge values, then random tuples. */
static std::vector<tuple_in> make_tuples(size_t n_random) {
  const uint64_t seeds[] = {0, 1, 0xffffffffull, 0x100000000ull, 0x0123456789abcdefull,
                            0xffffffffffffffffull};
  const uint32_t points[] = {0, 1, 255, 65535};
  const uint32_t purposes[] = {RNG_BITS, RNG_CHANNEL, RNG_NOISE, RNG_CSI, RNG_TAPS, RNG_TDNOISE, 255};
  const uint64_t frames[] = {0, 1, 0xffffffffull, 0x100000000ull, 0x100000005ull,
                             (1ull << 40) - 1};
  const uint64_t indices[] = {0, 1, 3, 0xffffffffull, 0x100000000ull, 0x200000007ull,
                              (1ull << 40) + 12345, (1ull << 62) - 1, 1ull << 62,
                              0xffffffffffffffffull};
  std::vector<tuple_in> v;
  for (uint64_t s : seeds)
    for (uint32_t p : points)
      for (uint32_t q : purposes)
        for (uint64_t f : frames)
          for (uint64_t i : indices) v.push_back({s, f, i, p, q});
  uint64_t st = 20261121;
  for (size_t k = 0; k < n_random; k++) {
    tuple_in t;
    t.seed = test_splitmix64(&st);
    t.point = (uint32_t)test_splitmix64(&st); /* the stream key */
    t.purpose = (uint32_t)(test_splitmix64(&st) % 6);
    /* Half the frames and indices small (the common case), half anywhere. */
    const uint64_t r = test_splitmix64(&st);
    t.frame = (r & 1) ? test_splitmix64(&st) % RNG_MAX_FRAMES : test_splitmix64(&st) % 100000;
    t.index = (r & 2) ? test_splitmix64(&st) : test_splitmix64(&st) % (1ull << 24);
    v.push_back(t);
  }
  return v;
}

int main(void) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    printf("test_gpu_philox: skipped, no CUDA device (%s)\n",
           e != cudaSuccess ? cudaGetErrorString(e) : "count 0");
    return TEST_SKIP;
  }
  const int small = test_small_mode();
  const std::vector<tuple_in> tuples = make_tuples(small ? 2000 : 1000000);
  const size_t n = tuples.size();

  tuple_in *d_in = nullptr;
  tuple_out *d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(tuple_in)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(tuple_out)));
  CUDA_CHECK(cudaMemcpy(d_in, tuples.data(), n * sizeof(tuple_in), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_out, 0xff, n * sizeof(tuple_out))); /* poison */
  philox_kernel<<<(unsigned)((n + 255) / 256), 256>>>(d_in, d_out, n);
  CUDA_CHECK_LAUNCH("philox_kernel");
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<tuple_out> out(n);
  CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(tuple_out), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));

  /* Count mismatches per property, print the first few of each. */
  size_t bad_lib = 0, bad_direct = 0, bad_init = 0, bad_uniform = 0, bad_u01 = 0, bad_cn = 0, init_checked = 0;
  double worst_cn = 0.0;
  for (size_t i = 0; i < n; i++) {
    const tuple_in &t = tuples[i];
    const tuple_out &o = out[i];
    const uint64_t k = rng_key(t.seed, t.point);
    const rng_words h = rng_draw(k, t.purpose, t.frame, t.index);
    /* The same draw through the channel library's compiled generator: the
     * header's rng_draw as built here is the one the C code runs. */
    const uint64_t sub = rng_subsequence(t.purpose, t.frame);
    const uint32_t ctr[4] = {(uint32_t)t.index, (uint32_t)(t.index >> 32), (uint32_t)sub,
                             (uint32_t)(sub >> 32)};
    const uint32_t key[2] = {(uint32_t)k, (uint32_t)(k >> 32)};
    const rng_words lib = philox4x32_10(ctr, key);
    if (memcmp(lib.w, h.w, sizeof h.w) != 0 && bad_lib++ < 5)
      fprintf(stderr, "rng_draw (header, built by nvcc's host compiler) differs from the channel "
              "library's philox4x32_10: %08x vs %08x\n", h.w[0], lib.w[0]);
    const int direct_ok = memcmp(h.w, o.direct, sizeof h.w) == 0;
    if (!direct_ok && bad_direct++ < 5)
      fprintf(stderr,
              "direct Philox differs: seed %016llx point %u purpose %u frame %llu index %llu: "
              "device %08x %08x %08x %08x host %08x %08x %08x %08x\n",
              (unsigned long long)t.seed, t.point, t.purpose, (unsigned long long)t.frame,
              (unsigned long long)t.index, o.direct[0], o.direct[1], o.direct[2], o.direct[3],
              h.w[0], h.w[1], h.w[2], h.w[3]);
    if (o.init_valid == 1) {
      init_checked++;
      if (memcmp(h.w, o.via_init, sizeof h.w) != 0 && bad_init++ < 5)
        fprintf(stderr,
                "curand_init+curand4 differs: seed %016llx sub %016llx index %llu: device %08x "
                "%08x %08x %08x host %08x %08x %08x %08x\n",
                (unsigned long long)t.seed,
                (unsigned long long)rng_subsequence(t.purpose, t.frame),
                (unsigned long long)t.index, o.via_init[0], o.via_init[1], o.via_init[2],
                o.via_init[3], h.w[0], h.w[1], h.w[2], h.w[3]);
      const float hu = rng_u01(h.w[0]);
      if (memcmp(&hu, &o.uniform_init, sizeof hu) != 0 && bad_uniform++ < 5)
        fprintf(stderr, "curand_uniform %.9g != rng_u01 %.9g (word %08x)\n", o.uniform_init, hu,
                h.w[0]);
    } else if (o.init_valid != 0) {
      bad_init++; /* poisoned: the kernel never wrote this tuple */
    }
    if (!direct_ok) continue; /* the conversions are compared on equal words only */
    for (int k = 0; k < 4; k++) {
      const float hu = rng_u01(h.w[k]);
      if (memcmp(&hu, &o.u01[k], sizeof hu) != 0 && bad_u01++ < 5)
        fprintf(stderr, "rng_u01(%08x): device %.9g host %.9g\n", h.w[k], o.u01[k], hu);
    }
    for (int k = 0; k < 2; k++) {
      const cf32 hc = rng_cnormal_of(h, k);
      const double d = fmax(fabs((double)hc.re - o.cn[k].re), fabs((double)hc.im - o.cn[k].im));
      if (!(d <= 1e-5) && bad_cn++ < 5)
        fprintf(stderr, "rng_cnormal words %08x %08x: device (%.9g, %.9g) host (%.9g, %.9g)\n",
                h.w[2 * k], h.w[2 * k + 1], o.cn[k].re, o.cn[k].im, hc.re, hc.im);
      if (d > worst_cn || isnan(d)) worst_cn = isnan(d) ? INFINITY : d;
    }
  }
  CHECK(bad_lib == 0, "%zu of %zu host rng_draw values differ from philox4x32_10", bad_lib, n);
  CHECK(bad_direct == 0, "%zu of %zu direct Philox draws differ from rng_draw", bad_direct, n);
  CHECK(init_checked > n / 2, "curand_init path checked on %zu tuples only", init_checked);
  CHECK(bad_init == 0, "%zu of %zu curand_init+curand4 draws differ from rng_draw", bad_init,
        init_checked);
  CHECK(bad_uniform == 0, "%zu curand_uniform values differ from rng_u01", bad_uniform);
  CHECK(bad_u01 == 0, "%zu rng_u01 values differ between device and host", bad_u01);
  CHECK(bad_cn == 0, "%zu rng_cnormal values differ by more than 1e-5", bad_cn);
  printf("test_gpu_philox: %zu tuples, %zu through curand_init; max |cnormal device - host| = "
         "%.3g\n", n, init_checked, worst_cn);
  return test_finish("test_gpu_philox");
}
