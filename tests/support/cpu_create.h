/* A CPU backend with the options the CPU backend's tests vary: staged or
 * fused, the thread count, the batch size. */
#ifndef OFDMSIM_TEST_CPU_CREATE_H
#define OFDMSIM_TEST_CPU_CREATE_H

#include <stdint.h>

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* backend_cpu_create of p with `staged` (0: fused where the point allows),
 * `threads` (0: all) and batches of at most `batch` frames (0: the
 * backend's choice); NULL after a failed CHECK naming the reason. */
backend *tc_cpu_create(const link_params *p, int staged, int threads, uint64_t batch);

/* The coded link's frames [0, frames) of p on a CPU backend (tc_cpu_create,
 * fused where the point allows), in batches of at most `batch`: coded[f] for each, and,
 * where llr and bits are not NULL, the export (link_bits_per_frame values a
 * frame). 0, or -1 after a failed CHECK. */
int tc_run_coded(const link_params *p, int threads, uint64_t batch, uint64_t frames, frame_coded *coded, float *llr,
                 uint8_t *bits);

#ifdef __cplusplus
}
#endif
#endif
