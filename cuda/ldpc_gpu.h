/* The GPU LDPC decoder's plain C face (cuda/ldpc_gpu.cu): layered
 * normalised or offset min-sum (float or int16) or flooding sum-product
 * (BP) over many code blocks of one base graph and
 * lifting size per launch, the LLRs already on the device. C callers include
 * this header only (no CUDA header needed); streams travel as void* (a
 * cudaStream_t, NULL = the default stream).
 *
 * The contract is GPU equals CPU: for the same input and configuration every
 * block's decisions, iteration count, syndrome flag and rows used are those
 * of ldpc_decoder_execute (coding/ldpc_decode.h), bit for bit: the kernel
 * runs coding/ldpc_msg.h's min-sum functions (coding/ldpc_msg16.h's for
 * nms16; ldpc_phi and ldpc_bp_message for BP) in the CPU's order (rows in
 * order, each row's edges in order, BP's a posteriori sums in the CPU's
 * row order, the same early termination on a zero syndrome), compiled
 * without fused multiply-add.
 *
 * Every int-returning function returns 0 on success and -1 on failure, with
 * the reason kept for gpu_last_error() (cuda/gpu.h) or written to err. */
#ifndef OFDMSIM_CUDA_LDPC_GPU_H
#define OFDMSIM_CUDA_LDPC_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "coding/ldpc_decode.h"
#include "coding/ratematch.h"

/* Where the check-to-variable messages live during a launch. They are kept
 * compressed, 12 bytes per check (row) and lane: the two scaled magnitudes
 * (alpha min1 and alpha min2, or the offset ones), and a word with the
 * edges' sign bits and the index of min1's edge, from which every message of
 * the row is rebuilt exactly. SHARED keeps them beside the a posteriori LLRs
 * in the thread block's shared memory (one code block per SM at BG1 Z 384
 * R 1/2: 181 KB); GLOBAL keeps them in device memory (mostly L2), leaving
 * room for more thread blocks per SM, and measured faster on an H200 at
 * both BG1 Z 384 and BG2 Z 56 (BENCHMARKS.md: 3.88 against 2.68 Gbit/s at
 * BG1 R 1/2, 10 iterations). AUTO: GLOBAL (it fits wherever SHARED does).
 * Flooding BP keeps its messages uncompressed (a float per edge and lane:
 * sum-product messages have no min1/min2 form), always in global memory,
 * whatever the placement asked. */
typedef enum ldpc_gpu_msg_place {
  LDPC_GPU_MSG_AUTO = 0,
  LDPC_GPU_MSG_SHARED = 1,
  LDPC_GPU_MSG_GLOBAL = 2,
} ldpc_gpu_msg_place;

typedef struct ldpc_gpu_decoder ldpc_gpu_decoder;

/* Which kernel a decoder launches; both give the same bits (GPU equals
 * CPU). ROW: the first kernel, one barrier after every base-graph row, each
 * row's edge loop unrolled to the largest degree (19) and predicated.
 * GROUPED (the default): a loop specialised for each row degree, the LLR
 * slots of a row's edges computed once for both passes, and no barrier
 * between consecutive rows that share no column. ROW stays selectable so
 * the two can be timed side by side on a device (tests/cuda/ldpc_gpu_speed.cu).
 * Flooding BP has one kernel of its own, whichever of GROUPED and ROW is
 * selected. */
typedef enum ldpc_gpu_kernel {
  LDPC_GPU_KERNEL_GROUPED = 0,
  LDPC_GPU_KERNEL_ROW = 1,
  /* PAIR (nms16 with the messages in global memory only): the grouped
   * kernel's schedule on two code blocks per thread block, their int16
   * LLRs interleaved in one 32-bit word a slot and the per-edge work on
   * int16x2 (coding/ldpc_msg16x2.h); each block still stops at its own
   * iteration, with the CPU's results. A new nms16 decoder whose messages
   * may live in global memory (AUTO, GLOBAL) starts with it: about 1.8x
   * the grouped kernel on an H200; GROUPED and ROW stay selectable. */
  LDPC_GPU_KERNEL_PAIR = 2,
} ldpc_gpu_kernel;

/* A decoder for base graph bg (1, 2), lifting size z and cfg (algorithm
 * LDPC_LAYERED_NMS, LDPC_LAYERED_OMS, the fixed-point LDPC_LAYERED_NMS16,
 * whose LLRs take 2 bytes of shared memory instead of 4, or
 * LDPC_FLOODING_BP) on the
 * current device (cuda/gpu.h's gpu_use_device). NULL with the reason in err
 * on bad input, when even the a posteriori LLRs of one block do not fit the
 * device's shared memory, or on a CUDA failure. */
ldpc_gpu_decoder *ldpc_gpu_create(int bg, int z, const ldpc_decoder_config *cfg, ldpc_gpu_msg_place place,
                                  char *err, size_t err_len);

/* Decodes nblocks code blocks in one launch (one thread block each, the Z
 * checks of a base-graph row as its threads), asynchronously on stream.
 *
 *   llr   device, nblocks * Nb*Z floats: each block's decoder input as
 *         ratematch_decoder_input lays it out (Nb = 68 or 52), one block
 *         after another;
 *   cols  how many leading columns of each block may carry nonzero LLRs (the
 *         others are treated as 0 and never read; ldpc_gpu_cols_for gives a
 *         safe value from the rate matching parameters); 0 or anything above
 *         Nb: all. Fewer columns mean less shared memory per block, so more
 *         blocks per SM;
 *   bits  device, nblocks * K bytes (K = 22 Z or 10 Z): the hard decisions on
 *         the systematic bits of each block (the punctured 2Z and the
 *         fillers included), one a byte, 0 or 1: the CPU's bits[0 .. K'-1]
 *         are the first K' of them;
 *   res   device, nblocks results, as ldpc_decoder_execute fills them.
 *
 * -1 on bad arguments or a launch failure. */
int ldpc_gpu_decode(ldpc_gpu_decoder *d, const float *llr, int nblocks, int cols, uint8_t *bits,
                    ldpc_decode_result *res, void *stream);

/* The placement the launches of cols columns use (SHARED or GLOBAL), or -1
 * when such a block does not fit. */
int ldpc_gpu_placement(const ldpc_gpu_decoder *d, int cols);

/* Selects the kernel of later launches; -1 on a bad value, or PAIR for a
 * decoder that is not nms16 or keeps its messages in shared memory. */
int ldpc_gpu_set_kernel(ldpc_gpu_decoder *d, ldpc_gpu_kernel kernel);

/* An upper bound on the columns a block rate matched with p can carry
 * nonzero LLRs in: the codeword columns up to the last circular buffer
 * position its E bits (and any fillers skipped between them) can reach. */
int ldpc_gpu_cols_for(const ratematch_block *p);

void ldpc_gpu_destroy(ldpc_gpu_decoder *d);

#ifdef __cplusplus
}
#endif

#endif
