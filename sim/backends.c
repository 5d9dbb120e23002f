/* The backend registry: names to backends, "auto" resolved once (backends.h). */
#include "sim/backends.h"

#include <stdio.h>
#include <string.h>

#include "cpu/backend_cpu.h"
#ifdef OFDMSIM_HAVE_CUDA
#include "cuda/backend_cuda.h"
#include "cuda/gpu.h"
#endif

int backends_cuda_usable(char *why, size_t whylen) {
#ifdef OFDMSIM_HAVE_CUDA
  return backend_cuda_available(why, whylen);
#else
  snprintf(why, whylen, "this build has no CUDA backend (configure with a CUDA compiler)");
  return 0;
#endif
}

int backends_use_gpu_of_rank(int local_rank, int local_size, char *note, size_t notelen) {
  note[0] = '\0';
#ifdef OFDMSIM_HAVE_CUDA
  char why[256];
  const int count = gpu_device_count(why, sizeof why);
  if (count < 1) return 0;
  if (gpu_use_device(local_rank % count, note, notelen)) return -1;
  if (local_size > count && local_rank == 0)
    snprintf(note, notelen, "%d ranks on this node share its %d GPU%s", local_size, count, count == 1 ? "" : "s");
#else
  (void)local_rank;
  (void)local_size;
  (void)notelen;
#endif
  return 0;
}

const char *backends_resolve(const char *name, char *why, size_t whylen) {
  char reason[256] = "";
  if (!strcmp(name, "cpu")) return "cpu";
  if (!strcmp(name, "auto")) return backends_cuda_usable(reason, sizeof reason) ? "cuda" : "cpu";
  if (!strcmp(name, "cuda")) {
    if (backends_cuda_usable(reason, sizeof reason)) return "cuda";
    snprintf(why, whylen, "backend cuda: %s", reason);
    return NULL;
  }
  snprintf(why, whylen, "unknown backend '%s'", name);
  return NULL;
}

backend *backends_create(const char *name, const link_params *p, const backend_options *opt,
                         char *err, size_t errlen) {
  const char *resolved = backends_resolve(name, err, errlen);
  if (!resolved) return NULL;
#ifdef OFDMSIM_HAVE_CUDA
  if (!strcmp(resolved, "cuda")) return backend_cuda_create(p, opt, err, errlen);
#endif
  return backend_cpu_create(p, opt, err, errlen);
}
