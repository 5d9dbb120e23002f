/* Which backend serves a name: "cpu", "cuda", or "auto" (the GPU when this
 * build has the CUDA backend and a device is usable, else the CPU). The only
 * place that knows every backend: a table of descriptors (name, usable here,
 * create, describe), so that no file above it includes a backend's headers
 * or asks which backends the build has. */
#ifndef OFDMSIM_BACKENDS_H
#define OFDMSIM_BACKENDS_H

#include <stddef.h>

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backend a name stands for ("auto" resolved once, here): "cpu" or
 * "cuda"; NULL with the reason in why for an unknown name or for a backend
 * not usable here ("backend cuda: why"). */
const char *backends_resolve(const char *name, char *why, size_t whylen);

/* 1 when the backend `name` ("cpu", "cuda") is in this build and usable on
 * this machine (for cuda: a device is present and the kernels load); else 0
 * with the reason in why ("this build has no CUDA backend ...", "unknown
 * backend ..."). */
int backends_usable(const char *name, char *why, size_t whylen);

/* What runs the backend `name`, for the results' provenance and the bench:
 * the CPU model and the calling thread's OpenMP threads, or the current GPU
 * with its driver and runtime versions; the name itself when there is no
 * more to say. */
void backends_describe(const char *name, char *out, size_t n);

/* The GPU of a process that is rank local_rank of local_size on its node
 * (the MPI engine): device local_rank modulo the devices CUDA shows it
 * (CUDA_VISIBLE_DEVICES applies). A note in note ("" when none) when ranks
 * must share devices. 0, or -1 with the reason in note; without a CUDA
 * backend or device, 0 and nothing done. */
int backends_use_gpu_of_rank(int local_rank, int local_size, char *note, size_t notelen);

/* Called before anything touches a device (right after MPI_Init): shows a
 * rank of several on its node only the GPU backends_use_gpu_of_rank will
 * give it, so each process's driver brings up one GPU, not all of them
 * (OFDMSIM_GPU_PIN=0 keeps every GPU shown). Nothing without CUDA. */
void backends_pin_rank(int local_rank, int local_size);

/* Takes the GPU of the rank (backends_use_gpu_of_rank's choice) on a
 * thread of its own, so that the driver's set-up of the device (most of a
 * GPU rank's start-up) runs while MPI_Init does; the next
 * backends_use_gpu_of_rank waits for it and answers with its result.
 * Nothing without CUDA. */
void backends_warm_rank(int local_rank, int local_size);

/* backends_resolve, then that backend's create with opt (its settings for
 * the other backends are ignored); a point that backend does not simulate
 * (the coded link on cuda, for now) goes to the next usable one that does,
 * the CPU last. NULL with a message in err. */
backend *backends_create(const char *name, const link_params *p, const backend_options *opt,
                         char *err, size_t errlen);

/* Whether the backend `name` ("cpu", "cuda") computes on a device whose
 * memory may hold batch_result.llr/bits and fetch's destination (1), or on
 * the host (0). */
int backends_on_device(const char *name);
/* Device memory of that backend's current device for a library caller's
 * buffers: NULL with the reason in why (on a host backend, or when none is
 * left). */
void *backends_device_alloc(const char *name, size_t bytes, char *why, size_t whylen);
void backends_device_free(const char *name, void *p);

#ifdef __cplusplus
}
#endif
#endif
