/* The CUDA simulation backend (simulation.backend = "cuda"): the link of
 * sim/link.h on one GPU, drawing the same random streams as the CPU backend
 * (cuRAND's raw Philox4x32-10 with the counters of channel/draws.h). Plain C
 * interface, callable from C (sim/link.c) and C++/CUDA alike. */
#ifndef OFDMSIM_BACKEND_CUDA_H
#define OFDMSIM_BACKEND_CUDA_H

#include <stddef.h>

/* cplx.h first, outside the C-linkage block: its inline functions are
 * __host__ __device__ under nvcc and need no C linkage. */
#include "sim/cplx.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "sim/link.h"

/* 1 when a CUDA device is present and usable; else 0 with the reason in why. */
int backend_cuda_available(char *why, size_t whylen);

/* Allocates the device buffers of the largest batch that fits (see max_frames)
 * and creates the cuFFT plans. opt->staged = 1 runs one kernel per stage with
 * every intermediate in device memory (per-stage timing, fetch of every
 * buffer); 0 runs the fused kernels. NULL with a message in err on failure. */
link_backend *backend_cuda_create(const link_params *p, const backend_options *opt, char *err,
                                  size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
