/* The GPU half of `ofdmsim bench`, a target of its own (ofdmsim_cuda_bench)
 * so that the product library does not link cuBLAS, which only the bench's
 * baselines use: copy bandwidth, every inversion variant beside cuBLAS, and
 * the generator floors. Plain C, errors as cuda/gpu.h's. */
#ifndef OFDMSIM_CUDA_BENCH_GPU_H
#define OFDMSIM_CUDA_BENCH_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "cuda/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif


/* Device-to-device copy bandwidth, GB/s counting bytes read + written, median
 * of `reps` cudaMemcpyAsync of `bytes`. */
int gpu_bench_copy(size_t bytes, int reps, double *gbs_out, double *ms_out);

#define GPU_BENCH_VARIANTS 4   /* indexed by gpu_invert_variant */

typedef struct gpu_invert_figures {
  int n;
  size_t matrices;
  /* Our kernels, per variant (index gpu_invert_variant; NAN = not run). */
  double ms[GPU_BENCH_VARIANTS];         /* median time of one launch over all matrices */
  double ginv_s[GPU_BENCH_VARIANTS];     /* G inversions per second */
  double bytes_moved[GPU_BENCH_VARIANTS];/* bytes the variant reads + writes per launch */
  int variant_used[GPU_BENCH_VARIANTS];  /* what AUTO / PAIR resolved to */
  /* cuBLAS on the same matrices (array-of-pointers layout), library calls only. */
  double cublas_matinv_ginv_s;           /* cublasCmatinvBatched; NAN when n > 32 */
  double cublas_getrf_getri_ginv_s;      /* cublasCgetrfBatched + cublasCgetriBatched */
  /* Agreement of our AUTO output with cuBLAS getrf/getri over a sample:
   * max |ours - theirs| / max |theirs| per matrix. */
  double max_rel_diff_vs_cublas;
  int cublas_singular;                   /* matrices getrf reported singular */
} gpu_invert_figures;

/* Times every variant and the cuBLAS baselines on `matrices` random Hermitian
 * positive-definite matrices of order n (G = B^H B / n + 0.05 I, B with CN(0,1)
 * entries, drawn on the device from `seed`), median of `reps` after warm-up,
 * rotating between two input/output pairs. Fails (-1) when the device lacks
 * the memory. */
int gpu_bench_invert(int n, size_t matrices, int reps, uint64_t seed, gpu_invert_figures *out);

/* The generator floor of the frequency-domain pipeline: Philox4x32-10 draws
 * turned into the rx*tx channel and rx noise CN(0,1) samples of each RE, with
 * `with_labels` also the label words the fused path draws, summed so nothing
 * is stored. G REs per second. The kinds are the conversions compared: */
typedef enum gpu_floor_kind {
  GPU_FLOOR_PRECISE = 0,  /* counter Philox, CUDA's correctly rounded logf / sincospif */
  GPU_FLOOR_STATEFUL = 1, /* cuRAND's stateful generator: curand4, curand_normal4 */
  GPU_FLOOR_MUFU = 2,     /* counter Philox, raw __logf / __sincosf */
  GPU_FLOOR_OURS = 3,     /* counter Philox, rng_cnormal: what the simulator draws */
  GPU_FLOOR_KINDS = 4
} gpu_floor_kind;
int gpu_bench_philox(int tx, int rx, size_t res, int reps, int kind, int with_labels,
                     double *gres_s_out, double *ms_out);

#ifdef __cplusplus
}
#endif

#endif
