/* The coded link's transmitter on the device: every frame's transport block
 * drawn, CRC'd, segmented, LDPC encoded and rate matched by kernels, the
 * coded bits left in device memory for the labels kernel (cuda/coded_gpu.cu),
 * bit for bit what the host's chain (coding/tb_chain.h: tb_draw_info,
 * tb_encode) gives for the same frame.
 *
 * The per-bit algebra is the host's own, written once for gcc and nvcc:
 * the Philox words (core/rng_words.h) and tb_info_bit, the CRC register
 * (coding/crc_core.h), ldpc_segment_block_bit (coding/segment.h), the
 * encoder's solve order (ldpc_encode_schedule, coding/ldpc_encode.h), the
 * closed forms of bit selection and interleaving (coding/ratematch.h) and
 * tb_label (coding/tb_chain.h).
 *
 * The stages of a batch, one launch each:
 *   1. draws: a thread a Philox draw writes 128 information bits of a frame
 *      (HARQ's retransmissions skip 1-3: the TB is the first's);
 *   2. the TB CRC (CRC24A or CRC16): a warp a frame, each lane the remainder
 *      of its share of the bits, combined by multiplying by powers of D
 *      modulo g(D) (the same polynomial the register divides by;
 *      cuda/warp_crc.cuh, which the receiver's CRC checks share);
 *   3. the CB CRC24Bs (C > 1): a warp a code block, the same way;
 *   4. encoding and rate matching: a thread block a code block, the
 *      codeword in shared memory (threads over the Z lanes of each base
 *      column: the systematic part of rows 0-3, the core parity in the
 *      schedule's order, then every extension row at once), then one thread
 *      an output bit f_o of E_r, written at the block's offset in the
 *      frame's G. */
#ifndef OFDMSIM_CUDA_TB_ENCODE_GPU_CUH
#define OFDMSIM_CUDA_TB_ENCODE_GPU_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "coding/tb_chain.h"
extern "C" { /* C headers without their own C++ guards */
#include "coding/ldpc_encode.h"
}
#include "core/params.h" /* LINK_HARQ_MAX */

/* One lifted code as the encoding kernel reads it (by value: about 1 KB). */
struct gpu_tb_code {
  int rows, cols, kb, z, nnz;
  uint16_t row_start[LDPC_ROWS_MAX + 1];
  uint8_t col[316];
  uint16_t shift[316];
  ldpc_encode_schedule sch;
};

struct gpu_tb_encoder {
  ldpc_segmentation seg;
  gpu_tb_code code;
  long g;                    /* coded bits a frame */
  int plans;                 /* transmissions whose tables are on the device */
  uint64_t frames;           /* the batch capacity */
  size_t tb_stride;          /* bytes a frame of d_tb: B and the last draw's tail, rounded */
  uint8_t *d_tb;             /* frames x tb_stride: information bits, then the TB CRC */
  uint32_t *d_cb_crc;        /* frames x C: each block's CRC24B remainder (C > 1) */
  ratematch_block *d_rm[LINK_HARQ_MAX]; /* per transmission: C blocks' rate matching */
  long *d_offset;            /* C: where block r's E_r bits start in the G (every rv's) */
};

/* The device tables of transmissions 0 .. nplans-1, plans[t] (made by
 * tb_plan_make: the same TB, G and layers, rv by transmission), and the
 * buffers for batches of `frames` frames. 0, or -1 with the reason in err. */
int gpu_tb_encoder_init(gpu_tb_encoder *e, const tb_plan *const *plans, int nplans, uint64_t frames,
                        cudaStream_t st, char *err, size_t errlen);
void gpu_tb_encoder_free(gpu_tb_encoder *e);

/* Device bytes a frame of the encoder's buffers. */
size_t gpu_tb_encoder_bytes_per_frame(const tb_plan *plan);

/* Frames first_frame .. first_frame + frames - 1 of Philox key `key`
 * encoded for transmission t (its plan's rv) into coded[f G .. f G + G - 1]
 * (device), on st. draw: 1 draws the TBs and their CRCs first (the first
 * transmission); 0 encodes those of the last draw again (HARQ's
 * retransmissions). cw, when not NULL (tests), receives every block's whole
 * codeword (frames x C x Nb Z bits) as well. */
int gpu_tb_encode(gpu_tb_encoder *e, int t, uint64_t key, uint64_t first_frame, uint64_t frames, int draw,
                  uint8_t *coded, uint8_t *cw, cudaStream_t st);

/* Copies the last draw's information bits, frames x A (host, pinned for the
 * copy to be asynchronous), on st (tests: the backend judges its TBs on the
 * device, cuda/tb_judge_gpu.cuh, against d_tb). */
int gpu_tb_copy_info(const gpu_tb_encoder *e, uint64_t frames, uint8_t *info, cudaStream_t st);

/* Copies the last draw's TBs with their CRCs, frames x B, to the host (tests). */
int gpu_tb_copy_tb(const gpu_tb_encoder *e, uint64_t frames, uint8_t *tb, cudaStream_t st);

/* Labels of the coded bits (tests, and the same tb_label the backend's
 * labels kernel calls): for `frames` frames of G coded bits each,
 * labels[(f ndata + d) tx + t] = tb_label of data RE d, stream t. */
int gpu_tb_labels(const uint8_t *coded, long g, uint64_t frames, uint64_t ndata, int tx, int bps, uint8_t *labels,
                  cudaStream_t st);

#endif
