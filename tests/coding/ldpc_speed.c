/* Not a test: prints the LDPC decoders' throughput in information Mbit/s on
 * this core at 5, 10 and 20 iterations (early termination off: the input is
 * random LLRs far below any threshold, so no block meets its syndrome), for BG1 Z 384
 * R 1/2 and a short BG2 block, beside a floor measured in the same run: the
 * time memcpy takes to move the bytes an iteration must at least read once
 * (the LLRs of the decoded columns and the messages of the decoded entries),
 * times the iterations. The layered decoders are timed twice: one block at
 * a time (ldpc_decoder_execute) and LDPC_BATCH blocks a call
 * (ldpc_batch_execute, the kernel this CPU runs; the floor is per block
 * either way).
 *
 *   build/tests/ldpc_speed [blocks a round, default 4]
 *   build/tests/ldpc_speed sweep   one block against a batch at 10
 *                                  iterations over lifting sizes, R 1/2 (BG1)
 *                                  and 1/3 (BG2): where batching stops paying
 *                                  (LDPC_BATCH_Z_MAX) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coding/ldpc_batch.h"
#include "coding/ldpc_decode.h"
#include "coding/ldpc_graph.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The fastest of several short rounds, each timing `calls` calls in CPU
 * time: on a shared machine the other processes only ever slow a round down
 * (cache, memory bandwidth, a busy sibling thread), so the best round is the
 * figure closest to this core alone. */
#define ROUNDS 15

/* Seconds per memcpy over `bytes`, between page-aligned buffers (malloc's
 * placement alone changed glibc's copy time seven-fold here). */
static double memcpy_seconds(size_t bytes) {
  const size_t padded = (bytes + 4095) / 4096 * 4096;
  char *a = aligned_alloc(4096, padded), *b = aligned_alloc(4096, padded);
  memset(a, 1, bytes);
  memset(b, 2, bytes);
  double best = 1e30;
  for (int round = 0; round < ROUNDS; round++) {
    const double t0 = now();
    for (int n = 0; n < 50; n++) {
      memcpy(n & 1 ? a : b, n & 1 ? b : a, bytes);
      a[n] ^= 1;
    }
    const double t = (now() - t0) / 50;
    best = t < best ? t : best;
  }
  volatile char sink = a[bytes / 2] + b[bytes / 3];
  (void)sink;
  free(a);
  free(b);
  return best;
}

static void run(const char *name, int bg, int z, int k_info, int cols_sent, ldpc_algorithm alg, int calls) {
  char err[200];
  const ldpc_base_graph *g = ldpc_base_graph_get(bg);
  const int nbits = g->cols * z;
  float *llr = calloc((size_t)nbits, sizeof(float));
  /* Random LLRs of +-0.5..1.5 on the sent columns (2 .. cols_sent-1) and the
   * systematic ones: a block far below threshold, so every iteration runs. */
  unsigned long long x = 88172645463325252ull;
  for (int k = 2 * z; k < cols_sent * z; k++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    llr[k] = (float)((x >> 11) * (1.0 / 9007199254740992.0)) * 3.0f - 1.5f;
  }
  uint8_t *bits = malloc((size_t)k_info);
  const int rows = cols_sent - g->info_cols;
  const size_t floor_bytes = sizeof(float) * ((size_t)cols_sent * z + (size_t)g->row_start[rows] * z);
  const double per_iteration_floor = memcpy_seconds(floor_bytes);
  static const int iters[3] = {5, 10, 20};
  for (int t = 0; t < 3; t++) {
    ldpc_decoder_config cfg;
    ldpc_decoder_config_default(&cfg);
    cfg.algorithm = alg;
    cfg.max_iterations = iters[t];
    ldpc_decoder *d = ldpc_decoder_create(bg, z, &cfg, err, sizeof err);
    ldpc_decode_result res;
    double per_block = 1e30;
    long it = 0, n = 0;
    for (int round = 0; round < ROUNDS; round++) {
      const double t0 = now();
      for (int c = 0; c < calls; c++) {
        ldpc_decoder_execute(d, llr, k_info, bits, &res);
        it += res.iterations;
        n++;
      }
      const double t = (now() - t0) / calls;
      per_block = t < per_block ? t : per_block;
    }
    printf("%-28s %2d it (mean %4.1f): %8.1f Mbit/s info   floor %8.1f Mbit/s (%.0f KiB/iteration)\n", name,
           iters[t], (double)it / (double)n, k_info / per_block * 1e-6,
           k_info / (per_iteration_floor * iters[t]) * 1e-6, floor_bytes / 1024.0);
    ldpc_decoder_destroy(d);
    if (alg == LDPC_FLOODING_BP || alg == LDPC_LAYERED_NMS16) continue; /* not batched (coding/ldpc_batch.h) */
    /* the batch decoder: LDPC_BATCH copies of the block a call */
    ldpc_batch_decoder *bd = ldpc_batch_create(bg, z, &cfg, LDPC_KERNEL_AUTO, err, sizeof err);
    const float *in[LDPC_BATCH];
    uint8_t *out[LDPC_BATCH];
    ldpc_decode_result bres[LDPC_BATCH];
    for (int b = 0; b < LDPC_BATCH; b++) {
      in[b] = llr;
      out[b] = bits;
    }
    per_block = 1e30;
    it = n = 0;
    for (int round = 0; round < ROUNDS; round++) {
      const double t0 = now();
      for (int c = 0; c < (calls + 1) / 2; c++) {
        ldpc_batch_execute(bd, LDPC_BATCH, in, k_info, out, bres);
        it += bres[0].iterations;
        n++;
      }
      const double t = (now() - t0) / ((calls + 1) / 2) / LDPC_BATCH;
      per_block = t < per_block ? t : per_block;
    }
    printf("%-28s %2d it (mean %4.1f): %8.1f Mbit/s info   batch of %d, %s kernel\n", name, iters[t],
           (double)it / (double)n, k_info / per_block * 1e-6, LDPC_BATCH,
           ldpc_batch_kernel_used(bd) == LDPC_KERNEL_AVX2 ? "AVX2" : "plain C");
    ldpc_batch_destroy(bd);
  }
  free(llr);
  free(bits);
}

/* Seconds per block at 10 iterations, one block a call (batch 0) or
 * LDPC_BATCH a call, best of ROUNDS rounds of 8 blocks. */
static double block_seconds(int bg, int z, int cols_sent, int batch) {
  char err[200];
  const ldpc_base_graph *g = ldpc_base_graph_get(bg);
  const int nbits = g->cols * z, k = g->info_cols * z;
  float *llr = calloc((size_t)nbits, sizeof(float));
  unsigned long long x = 88172645463325252ull;
  for (int j = 2 * z; j < cols_sent * z; j++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    llr[j] = (float)((x >> 11) * (1.0 / 9007199254740992.0)) * 3.0f - 1.5f;
  }
  ldpc_decoder_config cfg;
  ldpc_decoder_config_default(&cfg);
  uint8_t *bits = malloc((size_t)k);
  const float *in[LDPC_BATCH];
  uint8_t *out[LDPC_BATCH];
  ldpc_decode_result res[LDPC_BATCH];
  for (int b = 0; b < LDPC_BATCH; b++) {
    in[b] = llr;
    out[b] = bits;
  }
  ldpc_decoder *d = ldpc_decoder_create(bg, z, &cfg, err, sizeof err);
  ldpc_batch_decoder *bd = ldpc_batch_create(bg, z, &cfg, LDPC_KERNEL_AUTO, err, sizeof err);
  double best = 1e30;
  for (int round = 0; round < ROUNDS; round++) {
    const double t0 = now();
    if (batch)
      ldpc_batch_execute(bd, LDPC_BATCH, in, k, out, res);
    else
      for (int b = 0; b < LDPC_BATCH; b++) ldpc_decoder_execute(d, llr, k, bits, res);
    const double t = (now() - t0) / LDPC_BATCH;
    best = t < best ? t : best;
  }
  ldpc_decoder_destroy(d);
  ldpc_batch_destroy(bd);
  free(llr);
  free(bits);
  return best;
}

static void sweep(void) {
  static const int zs[] = {16, 32, 40, 56, 64, 72, 96, 104, 128, 144, 176, 208, 256, 320, 384};
  for (int bg = 1; bg <= 2; bg++)
    for (size_t i = 0; i < sizeof zs / sizeof zs[0]; i++) {
      const int z = zs[i], k = (bg == 1 ? 22 : 10) * z, cols = bg == 1 ? 46 : 32;
      /* one block and a batch in turn, so both see the same load */
      double one = 1e30, batch = 1e30;
      for (int t = 0; t < 3; t++) {
        const double a = block_seconds(bg, z, cols, 0), b = block_seconds(bg, z, cols, 1);
        one = a < one ? a : one;
        batch = b < batch ? b : batch;
      }
      printf("BG%d Z %3d, 10 it: one block %6.1f Mbit/s, batch of %d %6.1f Mbit/s (batch/one %.2f)\n", bg, z,
             k / one * 1e-6, LDPC_BATCH, k / batch * 1e-6, one / batch);
    }
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "sweep") == 0) {
    sweep();
    return 0;
  }
  const int calls = argc > 1 ? atoi(argv[1]) : 4;
  /* BG1 Z 384 R 1/2: K 8448, E 16896 = 44 Z after the 2Z punctured bits:
   * columns 0..45, rows 0..23. */
  run("BG1 Z384 R1/2 layered NMS", 1, 384, 8448, 46, LDPC_LAYERED_NMS, calls);
  run("BG1 Z384 R1/2 layered OMS", 1, 384, 8448, 46, LDPC_LAYERED_OMS, calls);
  /* BG2 Z 56 (K' 560 of K 560) R 1/3 in round numbers: 1680 bits = 30 Z
   * sent, columns 0..31, rows 0..21. */
  run("BG2 Z56 R1/3 layered NMS", 2, 56, 560, 32, LDPC_LAYERED_NMS, calls);
  /* the fixed-point decoder (coding/ldpc_msg16.h) on the same blocks */
  run("BG1 Z384 R1/2 layered NMS16", 1, 384, 8448, 46, LDPC_LAYERED_NMS16, calls);
  run("BG2 Z56 R1/3 layered NMS16", 2, 56, 560, 32, LDPC_LAYERED_NMS16, calls);
  run("BG1 Z384 R1/2 flooding BP", 1, 384, 8448, 46, LDPC_FLOODING_BP, calls);
  return 0;
}
