/* The plain C face of the CUDA code: device query and SoA inversion
 * launchers (the GPU half of `ofdmsim bench` has its own, cuda/bench/bench_gpu.h). C callers include this header only (no CUDA
 * header needed); streams travel as void* (a cudaStream_t, NULL = default).
 *
 * Every int-returning function returns 0 on success and -1 on failure, with
 * "file:line: call failed: name (message)" kept for gpu_last_error(); the
 * caller reports it. */
#ifndef OFDMSIM_CUDA_GPU_H
#define OFDMSIM_CUDA_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/cplx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- device ------------------------------------------------------------ */

typedef struct gpu_info {
  int device;
  char name[256];
  int cc_major, cc_minor;
  int sm_count;
  size_t l2_bytes;
  size_t global_mem_bytes;
  size_t free_mem_bytes;      /* at the time of the query */
  double peak_mem_gbs;        /* datasheet: 2 * memory clock * bus width; 0 if unknown */
  int driver_version;         /* e.g. 13000 */
  int runtime_version;
} gpu_info;

/* Number of usable CUDA devices; 0 with the reason in `why` when there is none
 * (no driver, no device, ...). Never prints. */
int gpu_device_count(char *why, size_t whylen);
/* Properties of `device`; -1 with the reason in `why` on failure. */
int gpu_query(int device, gpu_info *info, char *why, size_t whylen);
/* Makes `device` this thread's current device (every later CUDA call of
 * cuda/ runs there). 0, or -1 with the reason in why. */
int gpu_use_device(int device, char *why, size_t whylen);
/* This thread's current device (0 unless gpu_use_device chose another). */
int gpu_current_device(void);
/* The last failure reported by any function of cuda/ ("" if none). */
const char *gpu_last_error(void);

/* ---- SoA inversion ----------------------------------------------------- */

/* Largest matrix order the inversion kernels handle. */
#define GPU_INVERT_MAX_N 8

/* How the kernels read and invert. The stacks are struct-of-arrays: element
 * (r,c) of matrix m at base[(r*n + c)*M + m]. Matrices must be Hermitian
 * positive definite: every variant reads only the upper triangle (r <= c, the
 * real part of the diagonal) and writes every element of every output matrix,
 * exactly Hermitian. A matrix too close to singular for float (cond >~ 1e6,
 * see equalizer/smallmat.h) or not positive definite comes out all NaN. */
typedef enum gpu_invert_variant {
  GPU_INV_AUTO = 0,     /* the fastest measured variant for n (see invert.cu) */
  GPU_INV_ONE = 1,      /* one matrix per thread, 8-byte accesses; 2x2 closed
                           form, 4x4 block (Schur complement), else Cholesky */
  GPU_INV_PAIR = 2,     /* as ONE, two matrices per thread with 16-byte accesses;
                           n <= 4, M even and 16-byte aligned stacks, else ONE */
  GPU_INV_GENERAL = 3   /* as ONE but Cholesky (mat_inv_chol) for every n */
} gpu_invert_variant;

const char *gpu_invert_variant_name(gpu_invert_variant v);

/* dGinv[m] = dG[m]^-1 for the M matrices of order n (1..GPU_INVERT_MAX_N) of
 * two device SoA stacks (must not overlap). Asynchronous on `stream`; returns
 * -1 on a bad argument or a launch error. */
int gpu_invert_soa(int n, const cf32 *dG, cf32 *dGinv, size_t M, void *stream);
/* The same through the general method (Cholesky) at every n: to compare the
 * 2x2 closed form and the 4x4 block method with it. */
int gpu_invert_soa_general(int n, const cf32 *dG, cf32 *dGinv, size_t M, void *stream);
int gpu_invert_soa_variant(int n, gpu_invert_variant v, const cf32 *dG, cf32 *dGinv, size_t M,
                           void *stream);
/* The variant a request runs as for these arguments (AUTO and fallbacks
 * resolved); -1 for an n out of range. */
int gpu_invert_resolved_variant(int n, gpu_invert_variant v, const cf32 *dG, const cf32 *dGinv,
                                size_t M);

#ifdef __cplusplus
}
#endif
#endif
