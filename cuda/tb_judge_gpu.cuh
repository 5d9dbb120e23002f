/* The coded link's judgement on the device: tb_judge's CB and TB CRCs and
 * counts (coding/tb_chain.h) for many TBs at once, from the GPU decoder's
 * decisions and the transmitter's TBs, both already in device memory
 * (cuda/ldpc_gpu.h, cuda/tb_encode_gpu.cuh), so that only four counters a
 * TB cross the bus.
 *
 * A thread block a TB, a warp a code block (blocks r, r + warps, ...):
 *   - its decisions against the block sent (ldpc_segment_block_bit of the
 *     sent TB with its CRC and the block's CRC24B remainder, the encoder's
 *     own bits), the lanes over its K' bits: a CB error when any differs,
 *     and the information-bit errors among its payload bits below A;
 *   - its CRC24B over its K' decisions (C > 1) and its payload's share of
 *     the TB CRC (CRC24A or CRC16): the register of its payload times D to
 *     the decided TB's bits after it, so that the XOR of the blocks' is the
 *     register of the whole decided TB (coding/crc_core.h: the CRC is
 *     linear; cuda/warp_crc.cuh);
 * the warps' results meet in shared memory through integer atomics (OR,
 * XOR, sums: the order does not change them), and the TB is lost when a CRC
 * fails or an information bit is wrong: tb_judge's outcome, bit for bit. */
#ifndef OFDMSIM_CUDA_TB_JUDGE_GPU_CUH
#define OFDMSIM_CUDA_TB_JUDGE_GPU_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "coding/tb_chain.h"

/* One TB's outcome (tb_outcome's fields, fixed width for the copy back). */
struct gpu_tb_counts {
  uint32_t tb_error, cb_errors, info_errors, iterations;
};

/* Judges n TBs of segmentation seg on st. TB q is frame f = list[q] (device,
 * n entries), or q with list NULL. Its block r's decisions are
 * bits[(q C + r) stride ...] (the first K' read) and its decoder result
 * res[q C + r] (iterations summed); the TB sent, with its CRC, is
 * tb[f tb_stride ...] (B bits) and block r's CRC24B remainder
 * cb_crc[f C + r] (read only when C > 1); the outcome goes to out[q]. All
 * pointers device memory. 0, or -1 with the reason for gpu_last_error(). */
int gpu_tb_judge(const ldpc_segmentation *seg, int n, const int32_t *list, const uint8_t *bits, size_t stride,
                 const ldpc_decode_result *res, const uint8_t *tb, size_t tb_stride, const uint32_t *cb_crc,
                 gpu_tb_counts *out, cudaStream_t st);

#endif
