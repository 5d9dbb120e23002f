/* The CUDA simulation backend (simulation.backend = "cuda"): the per-RE link
 * of core/re.h on one GPU, drawing the same random streams as the CPU backend
 * (cuRAND's raw Philox4x32-10 with the counters of core/draws.h). Plain C
 * interface, callable from C (the registry, sim/backends.c) and C++/CUDA
 * alike. */
#ifndef OFDMSIM_BACKEND_CUDA_H
#define OFDMSIM_BACKEND_CUDA_H

#include <stddef.h>

/* cplx.h first, outside the C-linkage block: its inline functions are
 * __host__ __device__ under nvcc and need no C linkage. */
#include "core/cplx.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "core/backend.h"

/* 1 when a CUDA device is present and usable; else 0 with the reason in why. */
int backend_cuda_available(char *why, size_t whylen);

/* 1 when the CUDA backend simulates point p: every uncoded point; a coded
 * one (code.type ldpc, any decoder: nms, oms, nms16 or flooding bp) with
 * soft outputs (llr maxlog or exact), which the decoder reads on the
 * device. Others run on the CPU backend ("auto"). */
int backend_cuda_covers(const link_params *p);

/* What runs the CUDA backend, for the results' provenance: the current
 * device's name, compute capability, SMs, driver and runtime ("cuda" when it
 * cannot be queried). */
void backend_cuda_describe(char *out, size_t n);

/* Makes the GPU of a process that is rank local_rank of local_size on its
 * node its device: device local_rank modulo the devices CUDA shows it
 * (CUDA_VISIBLE_DEVICES applies). A note in note ("" when none) when ranks
 * must share devices. 0, or -1 with the reason in note; with no device, 0
 * and nothing done. */
int backend_cuda_bind_rank(int local_rank, int local_size, char *note, size_t notelen);

/* Before the process's first CUDA call: shows rank local_rank of local_size
 * only its own GPU (CUDA_VISIBLE_DEVICES narrowed to the entry
 * backend_cuda_bind_rank would take), so that the driver brings up one GPU
 * per process instead of every GPU of the node in every rank at once (what
 * made a rank's start-up grow with the ranks, BENCHMARKS.md). Nothing when
 * one rank runs, when one GPU is shown, or when OFDMSIM_GPU_PIN=0. */
void backend_cuda_pin_rank(int local_rank, int local_size);

/* Its options (backend_setting {"cuda", ...}):
 *   memory_mb  a cap on device memory, 0 (default) = what is free;
 *   staged     1 = one kernel per stage, every intermediate in device memory
 *              (per-stage timing, fetch); 0 (default) = fused; its default
 *              is 1 when the environment has OFDMSIM_GPU_STAGED=1 (the
 *              benches time both modes of one binary: the counts are the
 *              same);
 *   td_direct  1 = the time domain convolves sample by sample even where the
 *              fused mode's CP-aligned transform applies (cuda/ofdm_gpu.cu;
 *              bench, tests);
 *   sync       1 = every submitted batch runs whole at its collect, one at
 *              a time (what every batch did before submit); its default is 1
 *              when the environment has OFDMSIM_GPU_SYNC=1 (tests compare
 *              the two: the counts are the same).
 *
 * Sizes the batch (max_frames: what fits in 70% of the free device memory, or
 * in memory_mb when that is smaller, cuFFT work area and plans
 * included; at most 2^25 REs fused, 2^23 staged, 2^20 frames, and
 * opt->max_batch_frames), allocates its buffers in one piece and plans the
 * batched FFTs, all once. NULL with a message in err on failure, e.g. when not
 * even one frame fits.
 *
 * staged = 1: one kernel per stage, every intermediate in device memory;
 *   batch_result.t holds each stage's device time (cudaEvent) and fetch
 *   returns BUF_X, H, Y, XHAT and GINV of the last batch, in the CPU
 *   backend's layout and count rules (the last batch's buffers are kept).
 * staged = 0 (fused, the default): the taps and their per-subcarrier
 *   response (tdl, timed as draw), the time-domain modem (timed as channel),
 *   with LS estimation the pilot rows and the estimates on the pilot symbols
 *   (timed as channel), then one kernel from the draws to the error
 *   counters, pilot REs skipped (timed as invert: its
 *   Gram, inverse, equalisation and decisions are not separable), so the
 *   driver's inversions/s is the whole receiver's rate. No per-RE buffer
 *   exists: fetch returns -1 for every buffer.
 * Soft outputs (p.llr != off) of zf and mmse take one kernel from the draws
 * (fused) or the stacks (staged) to the counters and GMI losses; the joint
 * detectors (mmse-sic, kbest, ml) always run staged (their kernel reads the
 * stacks), without the Gram stages (no BUF_GINV), BUF_XHAT holding their
 * decisions. batch_result.llr/bits are filled when asked.
 * run returns -1 after printing the failing call, file, line and the CUDA,
 * cuFFT or cuRAND message; only the per-frame counters come back to the host,
 * one copy a batch.
 * submit (backend_submit) queues a batch's kernels and the copy of its
 * counters to pinned host memory on the one stream and returns; collect
 * waits for that copy alone (an event), so the batch submitted after it runs
 * while the caller folds these counts. The fused mode's repair of flagged
 * REs reads its list's length on the device for that. Coded batches (their
 * TBs are judged, and HARQ retransmits, on the host) run whole at their
 * collect. */
backend *backend_cuda_create(const link_params *p, const backend_options *opt, char *err,
                                  size_t errlen);

/* Device memory of the current GPU for a library caller's buffers (api/'s
 * link hands its LLRs to PyTorch or CuPy without a copy to the host):
 * batch_result.llr and .bits and fetch's destination may be such memory.
 * NULL with the reason in why. */
void *backend_cuda_device_alloc(size_t bytes, char *why, size_t whylen);
void backend_cuda_device_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
