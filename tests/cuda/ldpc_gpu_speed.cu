/* Not a test: prints the GPU LDPC decoder's throughput in information Gbit/s
 * at 5, 10 and 20 layered iterations (early termination never fires: random
 * LLRs far below any threshold, as tests/coding/ldpc_speed.c uses), for BG1
 * Z 384 R 1/2 and a short BG2 block, with the messages in shared and in
 * global memory, beside a floor measured in the same run: the time the
 * device takes to copy, device to device, the bytes an iteration must at
 * least read once (the LLRs of the decoded columns and one float message per
 * decoded edge, the same count as ldpc_speed.c), times the iterations; and
 * a second floor, the device-memory traffic the global-message launches do
 * make: the LLRs read once and the compressed messages (12 bytes a decoded
 * row and lane, cuda/ldpc_gpu.h) read and written every iteration, a
 * copied byte counting as one read and one write. Each line is timed with
 * both kernels (grouped, the default, and the first, row), the same bits,
 * and the nms16 lines with global messages also with the pair kernel (two
 * blocks per thread block as int16x2; its messages take 8 + 4 ceil(deg/8)
 * bytes a row and lane for two blocks, which its floor counts). Flooding BP
 * (its own kernel, full float messages in global memory) has one line per
 * iteration count, its second floor counting its messages instead.
 * Exits 77 without a GPU.
 *
 *   build/tests/ldpc_gpu_speed [blocks per launch for BG1 Z 384, default 2048] */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "cuda/check.h"
#include "cuda/gpu.h"
#include "cuda/ldpc_gpu.h"

extern "C" {
#include "coding/ldpc_graph.h"
}

#define REPS 5

/* Bytes per second of a device-to-device cudaMemcpy of `bytes` (the best of
 * REPS), counting the bytes copied once. */
static double d2d_rate(size_t bytes) {
  void *a = NULL, *b = NULL;
  CUDA_CHECK(cudaMalloc(&a, bytes));
  CUDA_CHECK(cudaMalloc(&b, bytes));
  CUDA_CHECK(cudaMemset(a, 1, bytes));
  cudaEvent_t e0, e1;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  CUDA_CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
  float best = 1e30f;
  for (int r = 0; r < REPS; r++) {
    CUDA_CHECK(cudaEventRecord(e0));
    CUDA_CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaEventRecord(e1));
    CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    best = ms < best ? ms : best;
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
  return (double)bytes / (best * 1e-3);
}

static void run(const char *name, int bg, int z, int k_info, int cols_sent, int nblocks, double copy_rate,
                ldpc_algorithm alg) {
  const ldpc_base_graph *g = ldpc_base_graph_get(bg);
  const int nbits = g->cols * z;
  std::vector<float> llr((size_t)nblocks * nbits, 0.0f);
  unsigned long long x = 88172645463325252ull;
  for (int b = 0; b < nblocks; b++)
    for (int k = 2 * z; k < cols_sent * z; k++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      llr[(size_t)b * nbits + k] = (float)((x >> 11) * (1.0 / 9007199254740992.0)) * 3.0f - 1.5f;
    }
  float *d_llr = NULL;
  uint8_t *d_bits = NULL;
  ldpc_decode_result *d_res = NULL;
  CUDA_CHECK(cudaMalloc(&d_llr, sizeof(float) * llr.size()));
  CUDA_CHECK(cudaMalloc(&d_bits, (size_t)nblocks * g->info_cols * z));
  CUDA_CHECK(cudaMalloc(&d_res, sizeof(ldpc_decode_result) * nblocks));
  CUDA_CHECK(cudaMemcpy(d_llr, llr.data(), sizeof(float) * llr.size(), cudaMemcpyHostToDevice));
  const int rows = cols_sent - g->info_cols;
  const double floor_bytes = sizeof(float) * ((double)cols_sent * z + (double)g->row_start[rows] * z);
  static const int iters[3] = {5, 10, 20};
  static const ldpc_gpu_msg_place places[2] = {LDPC_GPU_MSG_SHARED, LDPC_GPU_MSG_GLOBAL};
  static const char *kernel_names[3] = {"grouped", "row", "pair"};
  /* the pair kernel's message bytes per block, row and lane, summed over
   * the decoded rows */
  double pair_row_bytes = 0.0;
  for (int r = 0; r < rows; r++) pair_row_bytes += (8.0 + 4.0 * ((g->row_start[r + 1] - g->row_start[r] + 7) / 8)) / 2;
  const int zp = (z + 31) / 32 * 32;
  cudaEvent_t e0, e1;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  for (int ki = 0; ki < 3; ki++)
  for (int pi = 0; pi < 2; pi++)
    for (int t = 0; t < 3; t++) {
      if (ki == 2 && (alg != LDPC_LAYERED_NMS16 || pi == 0)) break; /* the pair kernel: nms16, global */
      if (alg == LDPC_FLOODING_BP && (ki != 0 || pi == 0)) break;    /* BP: one kernel, global messages */
      char err[300];
      ldpc_decoder_config cfg;
      ldpc_decoder_config_default(&cfg);
      cfg.max_iterations = iters[t];
      cfg.algorithm = alg;
      ldpc_gpu_decoder *d = ldpc_gpu_create(bg, z, &cfg, places[pi], err, sizeof err);
      if (!d) {
        fprintf(stderr, "%s\n", err);
        exit(1);
      }
      if (ldpc_gpu_placement(d, cols_sent) < 0) {
        printf("%-22s %-6s messages: does not fit shared memory\n", name, pi ? "global" : "shared");
        ldpc_gpu_destroy(d);
        break;
      }
      static const ldpc_gpu_kernel kernels[3] = {LDPC_GPU_KERNEL_GROUPED, LDPC_GPU_KERNEL_ROW, LDPC_GPU_KERNEL_PAIR};
      if (ldpc_gpu_set_kernel(d, kernels[ki]) != 0) exit(1);
      if (ldpc_gpu_decode(d, d_llr, nblocks, cols_sent, d_bits, d_res, NULL) != 0) {
        fprintf(stderr, "%s\n", gpu_last_error());
        exit(1);
      }
      CUDA_CHECK(cudaDeviceSynchronize());
      float best = 1e30f;
      for (int r = 0; r < REPS; r++) {
        CUDA_CHECK(cudaEventRecord(e0));
        ldpc_gpu_decode(d, d_llr, nblocks, cols_sent, d_bits, d_res, NULL);
        CUDA_CHECK(cudaEventRecord(e1));
        CUDA_CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        best = ms < best ? ms : best;
      }
      ldpc_decode_result r0;
      CUDA_CHECK(cudaMemcpy(&r0, d_res, sizeof r0, cudaMemcpyDeviceToHost));
      const double bits = (double)nblocks * k_info;
      const double llr_bytes = alg == LDPC_LAYERED_NMS16 ? sizeof(int16_t) : sizeof(float);
      /* BP: a float a decoded edge and lane, read twice (its row, then the
       * sums) and written once an iteration: 1.5 copies */
      const double msg_bytes = alg == LDPC_FLOODING_BP ? 1.5 * 4.0 * g->row_start[rows] * zp
                               : ki == 2               ? pair_row_bytes * zp
                                                       : 12.0 * rows * zp;
      const double own_bytes = llr_bytes * (double)cols_sent * z / 2 + msg_bytes * iters[t];
      printf("%-22s %-7s kernel %-6s messages %2d it (block 0: %2d): %7.2f Gbit/s info   full-message floor "
             "%7.2f Gbit/s (%.0f KiB/iteration/block), compressed-message floor %7.2f Gbit/s (%d blocks)\n",
             name, kernel_names[ki], pi ? "global" : "shared", iters[t], r0.iterations, bits / (best * 1e-3) * 1e-9,
             k_info / (floor_bytes / copy_rate * iters[t]) * 1e-9, floor_bytes / 1024.0,
             k_info / (own_bytes / copy_rate) * 1e-9, nblocks);
      ldpc_gpu_destroy(d);
    }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(d_llr);
  cudaFree(d_bits);
  cudaFree(d_res);
}

int main(int argc, char **argv) {
  char why[256];
  if (gpu_device_count(why, sizeof why) == 0) {
    printf("ldpc_gpu_speed: skipped: %s\n", why);
    return 77;
  }
  gpu_info info;
  if (gpu_query(0, &info, why, sizeof why) == 0) printf("device: %s, %d SMs\n", info.name, info.sm_count);
  const int nblocks = argc > 1 ? atoi(argv[1]) : 2048;
  const double rate = d2d_rate((size_t)1 << 30);
  printf("device-to-device copy: %.0f GB/s (bytes copied per second)\n", rate * 1e-9);
  printf("floors, both at that copy rate: full-message = the decoded columns' LLRs and one 4-byte message per\n"
         "decoded edge, read once per iteration (what an uncompressed decoder must at least move; the kernels\n"
         "do not move it); compressed-message = the LLRs read once plus 12 bytes per decoded row and lane\n"
         "(scaled min1, min2, sign bits and min1's edge) read and written every iteration: the global\n"
         "messages' own device-memory traffic, the bound the kernels work under\n");
  /* BG1 Z 384 R 1/2: K 8448, E 16896 = 44 Z after the 2Z punctured bits:
   * columns 0..45, rows 0..23. */
  run("BG1 Z384 R1/2 NMS", 1, 384, 8448, 46, nblocks, rate, LDPC_LAYERED_NMS);
  /* the fixed-point decoder (coding/ldpc_msg16.h), int16 LLRs in shared memory */
  run("BG1 Z384 R1/2 NMS16", 1, 384, 8448, 46, nblocks, rate, LDPC_LAYERED_NMS16);
  /* BG2 Z 56 R 1/3: K' 560, 1680 bits = 30 Z sent: columns 0..31, rows 0..21. */
  run("BG2 Z56 R1/3 NMS", 2, 56, 560, 32, nblocks * 8, rate, LDPC_LAYERED_NMS);
  run("BG2 Z56 R1/3 NMS16", 2, 56, 560, 32, nblocks * 8, rate, LDPC_LAYERED_NMS16);
  /* flooding sum-product (the BP kernel; its full messages in global memory) */
  run("BG1 Z384 R1/2 BP", 1, 384, 8448, 46, nblocks, rate, LDPC_FLOODING_BP);
  run("BG2 Z56 R1/3 BP", 2, 56, 560, 32, nblocks * 8, rate, LDPC_FLOODING_BP);
  return 0;
}
