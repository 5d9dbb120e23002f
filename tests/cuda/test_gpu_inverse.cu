/* The GPU SoA inversion kernels (cuda/invert.cu) against a double-precision
 * reference on the host, against each other and against the CPU's eq_invert.
 *
 * For every order n = 1..8, 10^6 random Hermitian positive-definite matrices
 * (OFDMSIM_SMALL=1: 3001): a quarter B^H B + 0.1 I with B complex Gaussian,
 * the rest U diag(lambda) U^H with spectral condition numbers log-uniform in
 * [10, 1e3], in [1e3, 1e5], and exactly 1e5 (U a product of three complex
 * Householder reflections, overall scale 1e-2..1e2). Outputs are poisoned with
 * NaN before every launch, so an element a kernel never writes fails.
 *   - every variant (auto, general = Cholesky, pair = two per thread) and the
 *     CPU satisfy max |A X - I| <= 4 n kappa u, computed in double, kappa the
 *     infinity-norm condition number of the float matrix (from a double
 *     Gauss-Jordan inverse), u = 2^-24: the bound of
 *     tests/equalizer/test_inverse.c, which tests the same smallmat functions
 *     on the CPU;
 *   - auto vs general (the 2x2 closed form and the 4x4 block method vs
 *     Cholesky), auto vs pair and auto vs the CPU differ by at most twice that
 *     bound relative to max |A^-1|;
 *   - the GPU outputs are exactly Hermitian (lower = conj(upper), real diagonal);
 *   - non-positive-definite, singular and NaN inputs give all-NaN matrices
 *     and leave their neighbours alone;
 *   - odd M and 8-byte-aligned stacks make pair fall back and stay right;
 *   - bad arguments are refused with -1. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <complex>
#include <thread>
#include <vector>

#include "cuda/check.h"
#include "cuda/gpu.h"
#include "equalizer/smallmat.h"
#include "core/backend.h"
#include "refmath.h"
#include "testutil.h"

extern "C" {
#include "equalizer/equalizer.h"
}

typedef std::complex<double> cd;

static const double kU = 5.9604644775390625e-8; /* 2^-24, float's unit roundoff */
/* tests/equalizer/test_inverse.c's RES_C: max |A X - I| <= RES_C n kappa_inf u. */
static const double kResC = 4.0;

static double residual_bound(int n, double kappa_inf) { return kResC * n * kappa_inf * kU; }

/* ---- host threads ----------------------------------------------------------- */

template <class F>
static void parallel_for(size_t M, F f) {
  unsigned T = std::thread::hardware_concurrency();
  T = std::max(1u, std::min(T, 16u));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < T; t++)
    pool.emplace_back([=] { f(t, M * t / T, M * (t + 1) / T); });
  for (auto &th : pool) th.join();
}

/* ---- random HPD matrices with a known condition number ----------------------- */

/* In [0, 1) (0 included: cnormal takes log(1 - u)), from the harness's
 * per-thread SplitMix64 streams. */
static double uniform01(uint64_t *s) {
  return (test_splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
}
static cd cnormal(uint64_t *s) {
  const double u1 = 1.0 - uniform01(s), u2 = uniform01(s);
  const double r = sqrt(-log(u1));
  return cd(r * cos(6.283185307179586 * u2), r * sin(6.283185307179586 * u2));
}

/* Spectral condition number of matrix m of a random stack; 0 selects the
 * B^H B + 0.1 I family. */
static double pick_cond(size_t m, uint64_t *s) {
  switch (m % 4) {
    case 0: return 0.0;
    case 1: return pow(10.0, 1.0 + 2.0 * uniform01(s));
    case 2: return pow(10.0, 3.0 + 2.0 * uniform01(s));
    default: return 1e5;
  }
}

/* A = s * U diag(lambda) U^H, lambda from 1 down to 1/cond, U = H3 H2 H1
 * (Householder reflections H = I - 2 v v^H / |v|^2), written to the SoA stack
 * g as float: upper triangle rounded, lower its exact conjugate, real diagonal. */
static void make_hpd(int n, double cond, uint64_t *s, cf32 *g, size_t M, size_t m) {
  cd a[MAT_MAX_N][MAT_MAX_N] = {};
  if (cond == 0.0) { /* B^H B + 0.1 I */
    cd b[MAT_MAX_N][MAT_MAX_N];
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) b[r][c] = cnormal(s);
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) {
        cd acc = r == c ? 0.1 : 0.0;
        for (int k = 0; k < n; k++) acc += std::conj(b[k][r]) * b[k][c];
        a[r][c] = acc;
      }
  } else {
    double lam[MAT_MAX_N];
    lam[0] = 1.0;
    if (n > 1) lam[n - 1] = 1.0 / cond;
    for (int k = 1; k < n - 1; k++) lam[k] = pow(cond, -uniform01(s));
    for (int k = 0; k < n; k++) a[k][k] = lam[k];
    for (int h = 0; h < 3 && n > 1; h++) {
      cd v[MAT_MAX_N], w[MAT_MAX_N];
      double vv = 0.0;
      for (int k = 0; k < n; k++) v[k] = cnormal(s), vv += std::norm(v[k]);
      const double beta = 2.0 / vv;
      cd vaw = 0.0; /* v^H A v, real */
      for (int r = 0; r < n; r++) {
        w[r] = 0.0;
        for (int c = 0; c < n; c++) w[r] += a[r][c] * v[c];
        vaw += std::conj(v[r]) * w[r];
      }
      /* (I - b v v^H) A (I - b v v^H) */
      for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
          a[r][c] += -beta * v[r] * std::conj(w[c]) - beta * w[r] * std::conj(v[c]) +
                     beta * beta * vaw.real() * v[r] * std::conj(v[c]);
    }
  }
  const double scale = pow(10.0, -2.0 + 4.0 * uniform01(s));
  for (int r = 0; r < n; r++)
    for (int c = r; c < n; c++) {
      const cd z = scale * a[r][c];
      const float re = (float)z.real(), im = r == c ? 0.0f : (float)z.imag();
      SOA_AT(g, n, r, c, M, m) = cf_make(re, im);
      SOA_AT(g, n, c, r, M, m) = cf_make(re, -im);
    }
}

/* ---- checks -------------------------------------------------------------------- */

static void load(int n, const cf32 *stack, size_t M, size_t m, cd *a) {
  for (int e = 0; e < n * n; e++) {
    const cf32 z = stack[(size_t)e * M + m];
    a[e] = cd(z.re, z.im);
  }
}

/* The double reference inverse and norm are refmath.h's, the ones the CPU
 * inversion test uses; std::complex<double> arrays are interleaved doubles. */
static int dinv(int n, const cd *a, cd *x) {
  return ref_zinv(n, reinterpret_cast<const double *>(a), reinterpret_cast<double *>(x));
}
static double norm_inf(int n, const cd *a) {
  return ref_znorm_inf(n, reinterpret_cast<const double *>(a));
}

/* max |A X - I| in double; infinite if X holds a NaN. */
static double residual(int n, const cd *a, const cd *x) {
  double worst = 0.0;
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) {
      cd s = (r == c) ? -1.0 : 0.0;
      for (int k = 0; k < n; k++) s += a[r * n + k] * x[k * n + c];
      const double d = std::abs(s);
      if (!(d <= worst)) worst = std::isnan(d) ? INFINITY : d;
    }
  return worst;
}

/* max |X - Y| / scale; infinite if anything is NaN. */
static double max_diff(int n, const cd *x, const cd *y, double scale) {
  double d = 0.0;
  for (int e = 0; e < n * n; e++) {
    const double de = std::abs(x[e] - y[e]);
    if (std::isnan(de)) return INFINITY;
    d = std::max(d, de);
  }
  return d / scale;
}

static int exactly_hermitian(int n, const cf32 *x, size_t M, size_t m) {
  for (int r = 0; r < n; r++) {
    if (SOA_AT(x, n, r, r, M, m).im != 0.0f) return 0;
    for (int c = r + 1; c < n; c++) {
      const cf32 u = SOA_AT(x, n, r, c, M, m), l = SOA_AT(x, n, c, r, M, m);
      if (u.re != l.re || u.im != -l.im) return 0;
    }
  }
  return 1;
}

/* max |A X - I| of matrix m of two SoA stacks (for the small tests, whose
 * matrices are well conditioned: a fixed bound is enough). */
static double stack_residual(int n, const cf32 *g, const cf32 *x, size_t M, size_t m) {
  cd a[MAT_MAX_N * MAT_MAX_N], b[MAT_MAX_N * MAT_MAX_N];
  load(n, g, M, m, a);
  load(n, x, M, m, b);
  return residual(n, a, b);
}

static int all_nan(int n, const cf32 *x, size_t M, size_t m) {
  for (int e = 0; e < n * n; e++) {
    const cf32 z = x[(size_t)e * M + m];
    if (!std::isnan(z.re) || !std::isnan(z.im)) return 0;
  }
  return 1;
}

/* Poison, invert with variant v, fetch. */
static int run_variant(int n, gpu_invert_variant v, const cf32 *dG, cf32 *dX, size_t M,
                       std::vector<cf32> &host) {
  const size_t bytes = (size_t)n * n * M * sizeof(cf32);
  CUDA_CHECK(cudaMemset(dX, 0xff, bytes)); /* all-ones words: NaN */
  if (gpu_invert_soa_variant(n, v, dG, dX, M, nullptr)) return -1;
  CUDA_CHECK(cudaDeviceSynchronize());
  host.resize((size_t)n * n * M);
  CUDA_CHECK(cudaMemcpy(host.data(), dX, bytes, cudaMemcpyDeviceToHost));
  return 0;
}

/* ---- the tests -------------------------------------------------------------------- */

struct check_totals {
  size_t bad_res[4] = {0, 0, 0, 0};     /* auto, general, pair, cpu */
  size_t bad_diff[3] = {0, 0, 0};       /* general, pair, cpu vs auto */
  size_t bad_herm[3] = {0, 0, 0};       /* auto, general, pair */
  double worst_ratio[4] = {0, 0, 0, 0}; /* residual / (n kappa u) */
  double worst_kappa = 0.0;
  size_t first_bad = (size_t)-1;
};

static void check_outputs(int n, size_t M, const std::vector<cf32> &g,
                          const std::vector<cf32> x[4]);

static void test_random(int n, size_t M) {
  std::vector<cf32> g((size_t)n * n * M);
  parallel_for(M, [&](unsigned t, size_t lo, size_t hi) {
    uint64_t s = 0x5eed0000ull + 977 * (uint64_t)n + 7919 * (uint64_t)t;
    for (size_t m = lo; m < hi; m++) make_hpd(n, n == 1 ? 1.0 : pick_cond(m, &s), &s, g.data(), M, m);
  });

  const size_t bytes = g.size() * sizeof(cf32);
  cf32 *dG = nullptr, *dX = nullptr;
  CUDA_CHECK(cudaMalloc(&dG, bytes));
  CUDA_CHECK(cudaMalloc(&dX, bytes));
  CUDA_CHECK(cudaMemcpy(dG, g.data(), bytes, cudaMemcpyHostToDevice));
  std::vector<cf32> x[4];
  const gpu_invert_variant vars[3] = {GPU_INV_AUTO, GPU_INV_GENERAL, GPU_INV_PAIR};
  for (int k = 0; k < 3; k++)
    CHECK(run_variant(n, vars[k], dG, dX, M, x[k]) == 0, "%dx%d variant %s failed: %s", n, n,
          gpu_invert_variant_name(vars[k]), gpu_last_error());
  CUDA_CHECK(cudaFree(dG));
  CUDA_CHECK(cudaFree(dX));
  x[3].assign((size_t)n * n * M, cf_make(NAN, NAN));
  eq_invert(n, g.data(), M, x[3].data(), M, M);
  for (int k = 0; k < 4; k++)
    if (x[k].size() != g.size()) return; /* a failed launch, already reported */
  check_outputs(n, M, g, x);
}

/* x[0..3]: gpu auto, gpu general, gpu pair, cpu eq_invert of the stack g. */
static void check_outputs(int n, size_t M, const std::vector<cf32> &g,
                          const std::vector<cf32> x[4]) {
  std::vector<check_totals> part(16);
  parallel_for(M, [&](unsigned t, size_t lo, size_t hi) {
    check_totals &c = part[t];
    cd a[MAT_MAX_N * MAT_MAX_N], ref[MAT_MAX_N * MAT_MAX_N], xs[4][MAT_MAX_N * MAT_MAX_N];
    for (size_t m = lo; m < hi; m++) {
      load(n, g.data(), M, m, a);
      int bad = !dinv(n, a, ref);
      const double kappa = norm_inf(n, a) * norm_inf(n, ref);
      const double bound = residual_bound(n, kappa);
      double ref_max = 0.0;
      for (int e = 0; e < n * n; e++) ref_max = std::max(ref_max, std::abs(ref[e]));
      c.worst_kappa = std::max(c.worst_kappa, kappa);
      int finite[4];
      for (int k = 0; k < 4; k++) {
        load(n, x[k].data(), M, m, xs[k]);
        const double r = residual(n, a, xs[k]);
        finite[k] = r < INFINITY;
        c.worst_ratio[k] = std::max(c.worst_ratio[k], r / (n * kappa * kU));
        if (!(r <= bound)) c.bad_res[k]++, bad = 1;
      }
      for (int k = 1; k < 4; k++)
        if (!(max_diff(n, xs[0], xs[k], ref_max) <= 2.0 * bound)) c.bad_diff[k - 1]++, bad = 1;
      /* (NaN outputs already failed above; this counts finite asymmetric ones) */
      for (int k = 0; k < 3; k++)
        if (finite[k] && !exactly_hermitian(n, x[k].data(), M, m)) c.bad_herm[k]++, bad = 1;
      if (bad && m < c.first_bad) c.first_bad = m;
    }
  });
  check_totals tot;
  for (const check_totals &c : part) {
    for (int k = 0; k < 4; k++) {
      tot.bad_res[k] += c.bad_res[k];
      tot.worst_ratio[k] = std::max(tot.worst_ratio[k], c.worst_ratio[k]);
    }
    for (int k = 0; k < 3; k++) tot.bad_diff[k] += c.bad_diff[k], tot.bad_herm[k] += c.bad_herm[k];
    tot.worst_kappa = std::max(tot.worst_kappa, c.worst_kappa);
    tot.first_bad = std::min(tot.first_bad, c.first_bad);
  }
  const char *names[4] = {"gpu auto", "gpu general", "gpu pair", "cpu eq_invert"};
  for (int k = 0; k < 4; k++)
    CHECK(tot.bad_res[k] == 0, "%dx%d %s: %zu of %zu matrices with max|A X - I| > %g n kappa u "
          "(worst ratio %.3g, first bad matrix %zu)", n, n, names[k], tot.bad_res[k], M, kResC,
          tot.worst_ratio[k], tot.first_bad);
  for (int k = 0; k < 3; k++)
    CHECK(tot.bad_diff[k] == 0, "%dx%d gpu auto vs %s: %zu of %zu matrices differ by more than "
          "twice the bound", n, n, names[k + 1], tot.bad_diff[k], M);
  for (int k = 0; k < 3; k++)
    CHECK(tot.bad_herm[k] == 0, "%dx%d %s: %zu of %zu outputs not exactly Hermitian", n, n,
          names[k], tot.bad_herm[k], M);
  printf("  %dx%d: %zu matrices, max kappa_inf %.3g; worst max|AX-I|/(n kappa u): auto %.3f, "
         "general %.3f, pair %.3f, cpu %.3f\n", n, n, M, tot.worst_kappa, tot.worst_ratio[0],
         tot.worst_ratio[1], tot.worst_ratio[2], tot.worst_ratio[3]);
}

/* Matrices 0..3 broken (negative definite, zero, NaN on the diagonal,
 * rank one), the rest fine: the broken ones come out all NaN, the others
 * invert. */
static void test_broken_inputs(int n) {
  const size_t M = 257;
  std::vector<cf32> g((size_t)n * n * M);
  uint64_t s = 99 + (uint64_t)n;
  for (size_t m = 0; m < M; m++) make_hpd(n, 0.0, &s, g.data(), M, m);
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) {
      SOA_AT(g.data(), n, r, c, M, 0) = cf_make(r == c ? -1.0f : 0.0f, 0.0f);
      SOA_AT(g.data(), n, r, c, M, 1) = cf_make(0.0f, 0.0f);
      SOA_AT(g.data(), n, r, c, M, 3) = cf_make(1.0f, 0.0f); /* all ones: rank 1 */
    }
  SOA_AT(g.data(), n, 0, 0, M, 2) = cf_make(NAN, 0.0f);
  const size_t first_good = n == 1 ? 3 : 4; /* for n = 1 "rank one" is [1]: PD */
  cf32 *dG = nullptr, *dX = nullptr;
  const size_t bytes = g.size() * sizeof(cf32);
  CUDA_CHECK(cudaMalloc(&dG, bytes));
  CUDA_CHECK(cudaMalloc(&dX, bytes));
  CUDA_CHECK(cudaMemcpy(dG, g.data(), bytes, cudaMemcpyHostToDevice));
  const gpu_invert_variant vars[3] = {GPU_INV_AUTO, GPU_INV_GENERAL, GPU_INV_PAIR};
  for (int k = 0; k < 3; k++) {
    std::vector<cf32> x;
    if (run_variant(n, vars[k], dG, dX, M, x)) {
      CHECK(0, "%dx%d %s launch failed: %s", n, n, gpu_invert_variant_name(vars[k]),
            gpu_last_error());
      continue;
    }
    for (size_t m = 0; m < 3; m++)
      CHECK(all_nan(n, x.data(), M, m), "%dx%d %s: broken matrix %zu not all NaN", n, n,
            gpu_invert_variant_name(vars[k]), m);
    if (n > 1)
      CHECK(all_nan(n, x.data(), M, 3), "%dx%d %s: rank-one matrix not all NaN", n, n,
            gpu_invert_variant_name(vars[k]));
    size_t bad = 0;
    for (size_t m = first_good; m < M; m++)
      if (!(stack_residual(n, g.data(), x.data(), M, m) <= 1e-3)) bad++;
    CHECK(bad == 0, "%dx%d %s: %zu good neighbours of broken matrices wrong", n, n,
          gpu_invert_variant_name(vars[k]), bad);
  }
  CUDA_CHECK(cudaFree(dG));
  CUDA_CHECK(cudaFree(dX));
}

/* pair needs M even and 16-byte aligned stacks: otherwise it must fall back
 * to one matrix per thread (the same kernel as auto: bitwise equal). */
static void test_pair_fallback(int n) {
  const size_t M = 4097; /* odd, and one past a whole block */
  std::vector<cf32> g((size_t)n * n * M);
  uint64_t s = 4242 + (uint64_t)n;
  for (size_t m = 0; m < M; m++) make_hpd(n, 0.0, &s, g.data(), M, m);
  const size_t bytes = g.size() * sizeof(cf32);
  cf32 *dG = nullptr, *dX = nullptr;
  CUDA_CHECK(cudaMalloc(&dG, bytes + 16));
  CUDA_CHECK(cudaMalloc(&dX, bytes + 16));
  CUDA_CHECK(cudaMemcpy(dG, g.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(gpu_invert_resolved_variant(n, GPU_INV_PAIR, dG, dX, M) == GPU_INV_ONE,
        "%dx%d: pair with odd M must run as one", n, n);
  std::vector<cf32> pair, one;
  CHECK(run_variant(n, GPU_INV_PAIR, dG, dX, M, pair) == 0, "pair odd M launch");
  CHECK(run_variant(n, GPU_INV_ONE, dG, dX, M, one) == 0, "one odd M launch");
  CHECK(pair.size() == one.size() && memcmp(pair.data(), one.data(), bytes) == 0,
        "%dx%d: pair with odd M is not the one-per-thread result", n, n);
  size_t bad = 0;
  for (size_t m = 0; m < M && pair.size() == g.size(); m++)
    if (!(stack_residual(n, g.data(), pair.data(), M, m) <= 1e-3)) bad++;
  CHECK(bad == 0, "%dx%d pair odd M: %zu wrong", n, n, bad);

  /* Even M, stacks 8 bytes off a 16-byte boundary. */
  const size_t Me = M - 1;
  std::vector<cf32> ge((size_t)n * n * Me);
  for (size_t m = 0; m < Me; m++) make_hpd(n, 0.0, &s, ge.data(), Me, m);
  cf32 *dG8 = dG + 1, *dX8 = dX + 1;
  CUDA_CHECK(cudaMemcpy(dG8, ge.data(), ge.size() * sizeof(cf32), cudaMemcpyHostToDevice));
  CHECK(gpu_invert_resolved_variant(n, GPU_INV_PAIR, dG8, dX8, Me) == GPU_INV_ONE,
        "%dx%d: pair on 8-byte aligned stacks must run as one", n, n);
  std::vector<cf32> xe;
  CHECK(run_variant(n, GPU_INV_PAIR, dG8, dX8, Me, xe) == 0, "pair unaligned launch");
  bad = 0;
  for (size_t m = 0; m < Me && xe.size() == ge.size(); m++)
    if (!(stack_residual(n, ge.data(), xe.data(), Me, m) <= 1e-3)) bad++;
  CHECK(bad == 0, "%dx%d pair unaligned: %zu wrong", n, n, bad);
  CUDA_CHECK(cudaFree(dG));
  CUDA_CHECK(cudaFree(dX));
}

static void test_arguments(void) {
  cf32 *d = nullptr;
  const size_t M = 64;
  CUDA_CHECK(cudaMalloc(&d, 3 * 4 * 4 * M * sizeof(cf32)));
  cf32 *a = d, *b = d + 16 * M;
  fprintf(stderr, "(the next lines are refusals the test provokes)\n");
  CHECK(gpu_invert_soa(0, a, b, M, nullptr) == -1, "n = 0 accepted");
  CHECK(gpu_invert_soa(9, a, b, M, nullptr) == -1, "n = 9 accepted");
  CHECK(gpu_invert_soa(4, a, a + 8, M, nullptr) == -1, "overlapping stacks accepted");
  CHECK(gpu_invert_soa(4, nullptr, b, M, nullptr) == -1, "NULL input accepted");
  CHECK(gpu_invert_soa(4, (const cf32 *)((char *)a + 4), b, M, nullptr) == -1,
        "4-byte aligned input accepted");
  CHECK(gpu_invert_soa_variant(4, (gpu_invert_variant)17, a, b, M, nullptr) == -1,
        "unknown variant accepted");
  CHECK(strstr(gpu_last_error(), "variant") != nullptr, "last error names the problem: %s",
        gpu_last_error());
  CHECK(gpu_invert_soa(4, a, b, 0, nullptr) == 0, "M = 0 is a no-op");
  CHECK(gpu_invert_resolved_variant(0, GPU_INV_AUTO, a, b, M) == -1, "resolve n = 0");
  CHECK(gpu_invert_resolved_variant(8, GPU_INV_PAIR, a, b, M) == GPU_INV_ONE,
        "pair falls back to one above 4x4");
  CHECK(gpu_invert_resolved_variant(2, GPU_INV_PAIR, a, b, M) == GPU_INV_PAIR,
        "pair runs as pair for 2x2, even M, aligned");
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(d));
}

int main(void) {
  char why[256] = "";
  if (gpu_device_count(why, sizeof why) == 0) {
    printf("test_gpu_inverse: skipped: %s\n", why);
    return TEST_SKIP;
  }
  const size_t M = test_small_mode() ? 3001 : 1000000;
  test_arguments();
  for (int n = 1; n <= GPU_INVERT_MAX_N; n++) {
    test_random(n, M);
    test_broken_inputs(n);
    if (n <= 4) test_pair_fallback(n);
  }
  return test_finish("test_gpu_inverse");
}
