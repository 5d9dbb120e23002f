/* The GPU figures of `ofdmsim bench`, measured by cuda/bench/bench_gpu.cu: the
 * device-to-device copy bandwidth (the floor a kernel's bytes moved are read
 * against), every inversion variant next to cuBLAS on the same matrices, and
 * the Philox rate of the random numbers the draw stage needs. A gpu_*
 * function that fails says nothing itself; every failure is told here. */
#ifdef OFDMSIM_HAVE_CUDA
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "app/bench/bench_internal.h"

const int bench_philox_links[BENCH_PHILOX_LINKS][2] = {{2, 2}, {4, 4}};

/* "ofdmsim bench: <what> failed: <why>" on stderr; returns 1 (one failure). */
static int gpu_failed(const char *why, const char *what_fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int gpu_failed(const char *why, const char *what_fmt, ...) {
  va_list ap;
  va_start(ap, what_fmt);
  fputs("ofdmsim bench: ", stderr);
  vfprintf(stderr, what_fmt, ap);
  fprintf(stderr, " failed: %s\n", why);
  va_end(ap);
  return 1;
}

/* Matrices per stack: the bytes one inversion moves, 4x the L2 and 1 GiB at
 * least, so the kernels run in the regime the copy floor is measured in (a
 * 250 MB stack is over in ~70 us, where launch ramp-up costs several %). */
static size_t gpu_default_matrices(int n, size_t l2) {
  const size_t per = ((size_t)n * (n + 1) / 2 + (size_t)n * n) * sizeof(cf32);
  size_t bytes = 4 * l2;
  if (bytes < ((size_t)1 << 30)) bytes = (size_t)1 << 30;
  size_t need = (bytes + per - 1) / per;
  if (need < BENCH_MIN_MATRICES) need = BENCH_MIN_MATRICES;
  /* A multiple of 256 matrices starts every element array of the stack on a
   * 2 KiB boundary, as the simulator's batches (whole frames) do; an odd M
   * misaligns all but the first and costs extra memory sectors per warp. */
  return (need + 255) / 256 * 256;
}

static int bench_gpu_invert(const bench_opts *o, gpu_part *g) {
  int failures = 0;
  for (int i = 0; i < o->n_sizes; i++) {
    const int n = o->sizes[i];
    const size_t M = o->matrices ? o->matrices : gpu_default_matrices(n, g->info.l2_bytes);
    bench_progress("GPU %dx%d inversion: %zu matrices, our variants and cuBLAS", n, n, M);
    g->inv_ok[i] = gpu_bench_invert(n, M, o->reps, o->seed, &g->inv[i]) == 0;
    if (!g->inv_ok[i]) {
      failures += gpu_failed(gpu_last_error(), "GPU %dx%d inversion bench", n, n);
    } else if (!(g->inv[i].max_rel_diff_vs_cublas <= BENCH_RESIDUAL_LIMIT)) {
      fprintf(stderr, "ofdmsim bench: GPU %dx%d inverse disagrees with cuBLAS: %.3g\n", n, n,
              g->inv[i].max_rel_diff_vs_cublas);
      g->inv_ok[i] = 0;
      failures++;
    }
  }
  return failures;
}

const char *const bench_floor_names[GPU_FLOOR_KINDS] = {"precise", "stateful", "mufu", "ours"};

double bench_fastest_floor(const gpu_part *g, int k, int *kind) {
  double best = NAN;
  *kind = -1;
  for (int v = 0; v < GPU_FLOOR_KINDS; v++)
    if (g->philox_ok[k][v][1] && !(g->philox_gres[k][v][1] <= best)) {
      best = g->philox_gres[k][v][1];
      *kind = v;
    }
  return best;
}

static int bench_gpu_philox(const bench_opts *o, gpu_part *g) {
  int failures = 0;
  g->philox_res = o->small ? ((size_t)1 << 14) : ((size_t)1 << 26);
  for (int k = 0; k < BENCH_PHILOX_LINKS; k++) {
    const int tx = bench_philox_links[k][0], rx = bench_philox_links[k][1];
    bench_progress("GPU generator floors %dx%d: %zu REs, %d conversions, with and without labels",
                   tx, rx, g->philox_res, GPU_FLOOR_KINDS);
    for (int v = 0; v < GPU_FLOOR_KINDS; v++)
      for (int lab = 0; lab < 2; lab++) {
        g->philox_ok[k][v][lab] = gpu_bench_philox(tx, rx, g->philox_res, o->reps, v, lab,
                                                   &g->philox_gres[k][v][lab], &g->philox_ms[k][v][lab]) == 0;
        if (!g->philox_ok[k][v][lab])
          failures += gpu_failed(gpu_last_error(), "GPU generator floor %dx%d (%s%s)", tx, rx,
                                 bench_floor_names[v], lab ? ", labels" : "");
      }
  }
  return failures;
}

int bench_gpu(const bench_opts *o, gpu_part *g) {
  g->copy_gbs = g->copy_ms = NAN;
  for (int k = 0; k < BENCH_PHILOX_LINKS; k++)
    for (int v = 0; v < GPU_FLOOR_KINDS; v++)
      for (int lab = 0; lab < 2; lab++) g->philox_gres[k][v][lab] = g->philox_ms[k][v][lab] = NAN;
  /* gpu_query gives its reason in `why` rather than in gpu_last_error() */
  if (gpu_query(0, &g->info, g->why, sizeof g->why)) return gpu_failed(g->why, "GPU query");
  int failures = 0;
  g->copy_bytes = o->small ? ((size_t)16 << 20) : 4 * g->info.l2_bytes;
  if (g->copy_bytes < ((size_t)1 << 30) && !o->small) g->copy_bytes = (size_t)1 << 30;
  bench_progress("GPU %s: copy bandwidth, %.2f GB", g->info.name, g->copy_bytes / 1e9);
  g->copy_ok = gpu_bench_copy(g->copy_bytes, o->reps, &g->copy_gbs, &g->copy_ms) == 0;
  if (!g->copy_ok) failures += gpu_failed(gpu_last_error(), "GPU copy bandwidth bench");
  failures += bench_gpu_invert(o, g);
  failures += bench_gpu_philox(o, g);
  return failures;
}
#endif
