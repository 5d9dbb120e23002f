/* Status checks for the CUDA runtime and the CUDA libraries (cuFFT, cuBLAS),
 * for .cu files only. Every failure is described by the call as written, the
 * file and line, the library's code and message, e.g.
 *
 *   cuda/invert.cu:212: cudaMalloc(&p, bytes) failed: cudaErrorMemoryAllocation
 *   (out of memory)
 *
 * Two flavours:
 *   *_CHECK(call)  prints and exits with status 1 (tools, tests, bench);
 *   *_TRY(call)    records the message for gpu_last_error() and makes the
 *                  enclosing function return -1 (library code: its caller
 *                  decides what a failure means and reports it, as every
 *                  backend does through backend_error).
 * Kernel launches report nothing by themselves: follow each with
 * CUDA_CHECK_LAUNCH() / CUDA_TRY_LAUNCH(). With OFDMSIM_SYNC_CHECK=1 in the
 * environment these also synchronise the device, so an asynchronous fault
 * (illegal address, ...) is reported at the launch that caused it rather than
 * at some later, unrelated call. */
#ifndef OFDMSIM_CUDA_CHECK_H
#define OFDMSIM_CUDA_CHECK_H

#include <stdlib.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cufft.h>

/* Keeps "file:line: call failed: name (message)" as the last error
 * (gpu_last_error() in gpu.h); fatal: also print it and exit with status 1.
 * Defined in device.cu. */
void gpu_report_failure(const char *file, int line, const char *call, const char *name,
                        const char *message, int fatal);
/* 1 when OFDMSIM_SYNC_CHECK is set to anything but "0" (read once). */
int gpu_sync_check_enabled(void);

const char *cufft_result_name(cufftResult r);
const char *cufft_result_message(cufftResult r);

/* Each *_failed helper returns 1 (after reporting) when the status is an error. */
static inline int gpu_cuda_failed(cudaError_t e, const char *file, int line, const char *call,
                                  int fatal) {
  if (e == cudaSuccess) return 0;
  gpu_report_failure(file, line, call, cudaGetErrorName(e), cudaGetErrorString(e), fatal);
  return 1;
}
static inline int gpu_cufft_failed(cufftResult r, const char *file, int line, const char *call,
                                   int fatal) {
  if (r == CUFFT_SUCCESS) return 0;
  gpu_report_failure(file, line, call, cufft_result_name(r), cufft_result_message(r), fatal);
  return 1;
}
static inline int gpu_cublas_failed(cublasStatus_t s, const char *file, int line,
                                    const char *call, int fatal) {
  if (s == CUBLAS_STATUS_SUCCESS) return 0;
  gpu_report_failure(file, line, call, cublasGetStatusName(s), cublasGetStatusString(s), fatal);
  return 1;
}
/* The launch error, and with OFDMSIM_SYNC_CHECK the kernel's own fault. */
static inline int gpu_launch_failed(const char *file, int line, const char *what, int fatal) {
  if (gpu_cuda_failed(cudaGetLastError(), file, line, what, fatal)) return 1;
  if (gpu_sync_check_enabled())
    return gpu_cuda_failed(cudaDeviceSynchronize(), file, line, what, fatal);
  return 0;
}

#define GPU_RETURN_IF_(failed) \
  do {                         \
    if (failed) return -1;     \
  } while (0)

#define CUDA_CHECK(call) ((void)gpu_cuda_failed((call), __FILE__, __LINE__, #call, 1))
#define CUDA_TRY(call) GPU_RETURN_IF_(gpu_cuda_failed((call), __FILE__, __LINE__, #call, 0))
#define CUFFT_CHECK(call) ((void)gpu_cufft_failed((call), __FILE__, __LINE__, #call, 1))
#define CUFFT_TRY(call) GPU_RETURN_IF_(gpu_cufft_failed((call), __FILE__, __LINE__, #call, 0))
#define CUBLAS_CHECK(call) ((void)gpu_cublas_failed((call), __FILE__, __LINE__, #call, 1))
#define CUBLAS_TRY(call) GPU_RETURN_IF_(gpu_cublas_failed((call), __FILE__, __LINE__, #call, 0))
/* After kernel<<<...>>>(...): name the kernel in `what` ("invert_kernel<4>"). */
#define CUDA_CHECK_LAUNCH(what) ((void)gpu_launch_failed(__FILE__, __LINE__, what, 1))
#define CUDA_TRY_LAUNCH(what) GPU_RETURN_IF_(gpu_launch_failed(__FILE__, __LINE__, what, 0))

#endif
