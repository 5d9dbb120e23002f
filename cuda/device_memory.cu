/* Device memory for a library caller's batch buffers (backend_cuda.h). */
#include "cuda/backend_cuda.h"

#include <cstdio>

#include <cuda_runtime.h>

void *backend_cuda_device_alloc(size_t bytes, char *why, size_t whylen) {
  void *p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
  if (e == cudaSuccess) return p;
  cudaGetLastError(); /* an allocation failure must not poison the next call */
  snprintf(why, whylen, "cuda backend: cannot allocate %zu bytes of device memory: %s", bytes,
           cudaGetErrorString(e));
  return nullptr;
}

void backend_cuda_device_free(void *p) {
  if (p) cudaFree(p);
}
