/* CPU inversion: stacks of random Hermitian positive-definite matrices (never
 * zeros) in the SoA layout the simulator uses, inverted by eq_invert and
 * eq_invert_general over OpenMP chunks; median of repeated passes after a
 * warm-up, then a residual check of the fast path's output. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench/bench_internal.h"
#include "core/clock.h"
#include "core/rng.h"
#include "equalizer/equalizer.h"
#include "equalizer/smallmat.h"

/* A CPU stack larger than this adds nothing but page faults (it is far past
 * any CPU cache already). */
#define BENCH_CPU_STACK_BYTES ((size_t)1 << 29)

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median_of(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return (n & 1) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* G = B^H B / n + 0.05 I, B with CN(0,1) entries: the matrices of the GPU
 * bench (same formula, other draws). */
static void make_hpd_cpu(int n, cf32 *g, size_t M, uint64_t seed) {
  const float scale = 1.0f / sqrtf((float)n);
#pragma omp parallel for schedule(static)
  for (size_t m = 0; m < M; m++) {
    cf32 b[MAT_MAX_N * MAT_MAX_N], gm[MAT_MAX_N * MAT_MAX_N];
    for (int p = 0; 2 * p < n * n; p++) {
      const rng_words w = rng_draw(seed, 0, 0, (uint64_t)m * 32 + (uint64_t)p);
      b[2 * p] = cf_scale(rng_cnormal_of(w, 0), scale);
      if (2 * p + 1 < n * n) b[2 * p + 1] = cf_scale(rng_cnormal_of(w, 1), scale);
    }
    mat_gram(n, n, b, 0.05f, gm);
    for (int e = 0; e < n * n; e++) g[(size_t)e * M + m] = gm[e];
  }
}

/* One pass over the stack, each OpenMP thread inverting its own contiguous
 * chunk (the chunks generation touched first, so pages are local). */
static double cpu_invert_pass(int n, const cf32 *g, cf32 *gi, size_t M, int general) {
  const double t0 = clock_seconds();
#pragma omp parallel
  {
    const size_t T = (size_t)omp_get_num_threads(), id = (size_t)omp_get_thread_num();
    const size_t lo = M * id / T, hi = M * (id + 1) / T;
    if (hi > lo) {
      if (general) eq_invert_general(n, g + lo, M, gi + lo, M, hi - lo);
      else eq_invert(n, g + lo, M, gi + lo, M, hi - lo);
    }
  }
  return clock_seconds() - t0;
}

static double max_residual(int n, const cf32 *g, const cf32 *gi, size_t M, size_t sample) {
  double worst = 0.0;
  for (size_t m = 0; m < sample && m < M; m++)
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) {
        double re = (r == c) ? -1.0 : 0.0, im = 0.0;
        for (int k = 0; k < n; k++) {
          const cf32 a = g[(size_t)(r * n + k) * M + m], x = gi[(size_t)(k * n + c) * M + m];
          re += (double)a.re * x.re - (double)a.im * x.im;
          im += (double)a.re * x.im + (double)a.im * x.re;
        }
        const double d = sqrt(re * re + im * im);
        worst = (d > worst || isnan(d)) ? (isnan(d) ? INFINITY : d) : worst;
      }
  return worst;
}

static int bench_cpu_invert(int n, size_t M, int reps, uint64_t seed, cpu_invert_fig *f) {
  memset(f, 0, sizeof *f);
  f->n = n;
  f->matrices = M;
  f->ms = f->minv_s = f->ms_general = f->minv_s_general = f->max_residual = NAN;
  const size_t elems = (size_t)n * n * M;
  cf32 *g = malloc(elems * sizeof *g), *gi = malloc(elems * sizeof *gi);
  double *t = malloc((size_t)reps * sizeof *t);
  if (!g || !gi || !t) {
    fprintf(stderr, "ofdmsim bench: cannot allocate 2 x %.2f GB for the %dx%d CPU stacks\n",
            elems * sizeof *g / 1e9, n, n);
    free(g), free(gi), free(t);
    return -1;
  }
  make_hpd_cpu(n, g, M, seed);
  for (int general = 0; general <= 1; general++) {
    cpu_invert_pass(n, g, gi, M, general); /* warm-up: page faults, thread start */
    for (int r = 0; r < reps; r++) t[r] = cpu_invert_pass(n, g, gi, M, general);
    const double s = median_of(t, reps);
    if (general) {
      f->ms_general = 1e3 * s;
      f->minv_s_general = M / s / 1e6;
    } else {
      f->ms = 1e3 * s;
      f->minv_s = M / s / 1e6;
    }
  }
  /* The last pass was the general one; check the fast path's output. */
  cpu_invert_pass(n, g, gi, M, 0);
  f->max_residual = max_residual(n, g, gi, M, 4096);
  f->ok = f->max_residual <= BENCH_RESIDUAL_LIMIT;
  if (!f->ok)
    fprintf(stderr, "ofdmsim bench: CPU %dx%d inverse wrong: max |G Ginv - I| = %.3g > %.0e\n", n,
            n, f->max_residual, BENCH_RESIDUAL_LIMIT);
  free(g), free(gi), free(t);
  return f->ok ? 0 : -1;
}

int bench_cpu(const bench_opts *o, bench_results *R) {
  int failures = 0;
  for (int i = 0; i < o->n_sizes; i++) {
    const int n = o->sizes[i];
    size_t M = o->matrices ? o->matrices : BENCH_MIN_MATRICES;
    const size_t cap = BENCH_CPU_STACK_BYTES / ((size_t)n * n * sizeof(cf32));
    if (!o->matrices && M > cap) M = cap;
    bench_progress("CPU %dx%d inversion: %zu matrices, %d threads", n, n, M, omp_get_max_threads());
    if (bench_cpu_invert(n, M, o->reps, o->seed, &R->cpu[i])) failures++;
  }
  return failures;
}
