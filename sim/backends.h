/* Which backend serves a name: "cpu", "cuda", or "auto" (the GPU when this
 * build has the CUDA backend and a device is usable, else the CPU). The only
 * place that knows every backend. */
#ifndef OFDMSIM_BACKENDS_H
#define OFDMSIM_BACKENDS_H

#include <stddef.h>

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backend a name stands for ("auto" resolved once, here): "cpu" or
 * "cuda"; NULL with the reason in why for an unknown name or for "cuda"
 * without a usable GPU. */
const char *backends_resolve(const char *name, char *why, size_t whylen);

/* 1 when this build has the CUDA backend and a device is usable; else 0 with
 * the reason in why. */
int backends_cuda_usable(char *why, size_t whylen);

/* The GPU of a process that is rank local_rank of local_size on its node
 * (the MPI engine): device local_rank modulo the devices CUDA shows it
 * (CUDA_VISIBLE_DEVICES applies). A note in note ("" when none) when ranks
 * must share devices. 0, or -1 with the reason in note; without a CUDA
 * backend or device, 0 and nothing done. */
int backends_use_gpu_of_rank(int local_rank, int local_size, char *note, size_t notelen);

/* backends_resolve, then that backend's create. NULL with a message in err. */
backend *backends_create(const char *name, const link_params *p, const backend_options *opt,
                         char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
