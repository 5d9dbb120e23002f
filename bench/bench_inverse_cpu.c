/* CPU inversion throughput of SoA stacks, one core: 2x2 / 4x4 / 8x8 (and the
 * other sizes) through eq_invert (closed forms / 2x2 blocks / Cholesky) and
 * eq_invert_general (Cholesky for every size), in cache and streaming from
 * memory, each next to its floor: a plain copy of the same bytes.
 *
 *   bench_inverse_cpu [seconds per figure, default 0.3]
 *
 * Links with ofdmsim_equalizer only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "equalizer/equalizer.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Well-conditioned Hermitian positive-definite stack: G = A^H A + I, A with
 * entries in [-1, 1]^2 (the figures do not depend on the values as long as
 * nothing is flagged singular: the code has no data-dependent branches). */
static void fill(int n, cf32 *G, size_t m) {
  uint32_t s = 12345u;
  for (size_t i = 0; i < m; i++) {
    cf32 a[MAT_MAX_N * MAT_MAX_N], g[MAT_MAX_N * MAT_MAX_N];
    for (int e = 0; e < n * n; e++) {
      s = s * 1664525u + 1013904223u;
      float re = (float)(s >> 8) * (2.0f / 16777216.0f) - 1.0f;
      s = s * 1664525u + 1013904223u;
      float im = (float)(s >> 8) * (2.0f / 16777216.0f) - 1.0f;
      a[e] = cf_make(re, im);
    }
    mat_gram(n, n, a, 1.0f, g);
    for (int e = 0; e < n * n; e++) G[(size_t)e * m + i] = g[e];
  }
}

typedef void (*invert_fn)(int, const cf32 *, size_t, cf32 *, size_t, size_t);

/* Repeats whole passes over the stack for at least `seconds`; items per second. */
static double rate(invert_fn fn, int n, const cf32 *G, cf32 *X, size_t m, double seconds) {
  fn(n, G, m, X, m, m); /* warm up: page faults, caches */
  size_t done = 0;
  double t0 = now(), t;
  do {
    fn(n, G, m, X, m, m);
    done += m;
    t = now() - t0;
  } while (t < seconds);
  return (double)done / t;
}

static void copy_stack(int n, const cf32 *G, size_t ldg, cf32 *X, size_t ldx, size_t m) {
  (void)ldx;
  memcpy(X, G, (size_t)n * n * ldg * sizeof *G);
  (void)m;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.3;
  if (!(seconds > 0.0)) {
    fprintf(stderr, "usage: %s [seconds per figure > 0]\n", argv[0]);
    return 2;
  }
  /* in cache: 2048 items, at most 1 MiB in and 1 MiB out (8x8);
   * streaming: 64 MiB in and 64 MiB out for every n, beyond the caches */
  const size_t sizes[2] = {2048, 1u << 21};
  const char *where[2] = {"in cache (2048 items)", "streaming (64 MiB)"};
  printf("%-26s %3s %16s %16s %16s %8s\n", "stack", "n", "eq_invert /s", "general /s",
         "copy floor /s", "fast/copy");
  for (int w = 0; w < 2; w++) {
    for (int n = 1; n <= MAT_MAX_N; n++) {
      size_t m = sizes[w];
      if (w == 1) m = sizes[w] * 4 / (size_t)n / (size_t)n; /* same bytes for every n */
      cf32 *G = malloc((size_t)n * n * m * sizeof *G), *X = malloc((size_t)n * n * m * sizeof *X);
      if (!G || !X) {
        fprintf(stderr, "out of memory\n");
        return 1;
      }
      fill(n, G, m);
      double fast = rate(eq_invert, n, G, X, m, seconds);
      double general = rate(eq_invert_general, n, G, X, m, seconds);
      double copy = rate(copy_stack, n, G, X, m, seconds);
      printf("%-26s %3d %16.4g %16.4g %16.4g %7.0f%%\n", where[w], n, fast, general, copy,
             100.0 * fast / copy);
      free(G);
      free(X);
    }
  }
  return 0;
}
