/* Device discovery and the failure reporting behind check.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/check.h"
#include "cuda/gpu.h"

/* One line per process is enough: a caller that got -1 reports it in its own
 * words (the backends through backend_error). */
static char g_last_error[512];

void gpu_report_failure(const char *file, int line, const char *call, const char *name,
                        const char *message, int fatal) {
  snprintf(g_last_error, sizeof g_last_error, "%s:%d: %s failed: %s (%s)", file, line, call,
           name ? name : "?", message ? message : "?");
  if (!fatal) return;
  fprintf(stderr, "%s\n", g_last_error);
  exit(1);
}

extern "C" const char *gpu_last_error(void) { return g_last_error; }

int gpu_sync_check_enabled(void) {
  static int cached = -1;
  if (cached < 0) {
    const char *v = getenv("OFDMSIM_SYNC_CHECK");
    cached = (v && *v && strcmp(v, "0") != 0) ? 1 : 0;
  }
  return cached;
}

const char *cufft_result_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: break;
  }
  return "CUFFT_unknown";
}

const char *cufft_result_message(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "no error";
    case CUFFT_INVALID_PLAN: return "invalid plan handle";
    case CUFFT_ALLOC_FAILED: return "memory allocation failed";
    case CUFFT_INVALID_VALUE: return "invalid argument (bad pointer or parameter)";
    case CUFFT_INTERNAL_ERROR: return "internal library error";
    case CUFFT_EXEC_FAILED: return "the transform failed to execute on the device";
    case CUFFT_SETUP_FAILED: return "library initialisation failed";
    case CUFFT_INVALID_SIZE: return "unsupported transform size";
    case CUFFT_INVALID_DEVICE: return "execution on a different device than the plan's";
    case CUFFT_NO_WORKSPACE: return "no workspace set";
    case CUFFT_NOT_IMPLEMENTED: return "feature not implemented";
    case CUFFT_NOT_SUPPORTED: return "operation not supported for these parameters";
    default: break;
  }
  return "see cufft.h for this code";
}

extern "C" int gpu_device_count(char *why, size_t whylen) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    if (why) snprintf(why, whylen, "cudaGetDeviceCount: %s (%s)", cudaGetErrorName(e),
                      cudaGetErrorString(e));
    /* Clear the sticky error so a later query in this process starts clean. */
    cudaGetLastError();
    return 0;
  }
  if (count == 0 && why) snprintf(why, whylen, "cudaGetDeviceCount reports no CUDA device");
  return count;
}

extern "C" int gpu_use_device(int device, char *why, size_t whylen) {
  const cudaError_t e = cudaSetDevice(device);
  if (e == cudaSuccess) return 0;
  if (why) snprintf(why, whylen, "cudaSetDevice(%d): %s (%s)", device, cudaGetErrorName(e), cudaGetErrorString(e));
  cudaGetLastError();
  return -1;
}

extern "C" int gpu_current_device(void) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return device;
}

extern "C" int gpu_query(int device, gpu_info *info, char *why, size_t whylen) {
  memset(info, 0, sizeof *info);
  cudaDeviceProp prop;
  cudaError_t e = cudaGetDeviceProperties(&prop, device);
  if (e != cudaSuccess) {
    if (why) snprintf(why, whylen, "cudaGetDeviceProperties(%d): %s (%s)", device,
                      cudaGetErrorName(e), cudaGetErrorString(e));
    return -1;
  }
  info->device = device;
  snprintf(info->name, sizeof info->name, "%s", prop.name);
  info->cc_major = prop.major;
  info->cc_minor = prop.minor;
  info->sm_count = prop.multiProcessorCount;
  info->l2_bytes = (size_t)prop.l2CacheSize;
  info->global_mem_bytes = prop.totalGlobalMem;

  /* Memory clock is no longer a cudaDeviceProp field in CUDA 13; the attribute
   * is. Missing attributes only cost the datasheet figure. */
  int clock_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess)
    info->peak_mem_gbs = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  cudaGetLastError();

  cudaDriverGetVersion(&info->driver_version);
  cudaRuntimeGetVersion(&info->runtime_version);

  int current = 0;
  if (cudaGetDevice(&current) == cudaSuccess && current == device) {
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) info->free_mem_bytes = free_b;
  }
  cudaGetLastError();
  return 0;
}
