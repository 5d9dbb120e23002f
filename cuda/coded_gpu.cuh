/* The CUDA backend's coded link (p.code.type ldpc), private to
 * cuda/backend_cuda.cu and cuda/coded_gpu.cu.
 *
 * Transmitter: on the device (cuda/tb_encode_gpu.cuh): the TBs' information
 * bits drawn from the CPU's counter-based words (tb_draw_info's), the CRCs,
 * segmentation, LDPC encoding and rate matching by kernels sharing the
 * host's per-bit algebra, so the coded bits are tb_encode's bit for bit and
 * never cross the bus; a kernel after the staged draw stage writes them as
 * the labels and symbols of the data REs (tb_label: frame order, the layers
 * in turn on each RE, pilots left out), so every later stage sees the CPU's
 * transmit frame. Only the information bits come back (A bytes a frame),
 * for the host's judgement.
 *
 * Receiver: the detector's LLRs stay on the device; a de-rate-matching kernel
 * gathers each code block's decoder input through per-block tables made on
 * the host (ratematch_gather_table: the CPU's additions in the CPU's order,
 * so the same floats), the GPU decoder (cuda/ldpc_gpu.h) decodes every block
 * of the batch in one launch, and only its decisions and results come back;
 * the CB and TB CRCs and the counts are tb_judge's, on the host (frames
 * split over up to 16 threads).
 *
 * HARQ (code.harq_transmissions > 1): the backend's run sends the batch
 * again while a TB is lost (backend_cuda.cu), transmission t's coded bits
 * the same information bits at rv tb_harq_rv(t) (encoded again on the
 * device from the TBs kept there); the
 * de-rate-matching kernel then ADDS its LLRs into the batch's combining
 * buffers on the device (d_acc: each block's circular buffer, kept across
 * the transmissions, in ratematch_accumulate's order through transmission
 * t's tables) and decodes every block from them; the host judges the frames
 * still lost (those delivered are decoded too, and ignored: exact and
 * simpler than compacting). */
#ifndef OFDMSIM_CUDA_CODED_GPU_CUH
#define OFDMSIM_CUDA_CODED_GPU_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "coding/tb_chain.h"
#include "core/backend.h"
#include "cuda/gpu_internal.cuh"
#include "cuda/ldpc_gpu.h"
#include "cuda/tb_encode_gpu.cuh"

/* A block's gather parameters on the device. */
struct gpu_rm_block {
  int src_off;   /* its E entries of the src table start here */
  int first_off; /* its Ncb entries of the first table start here */
  int e, period;
  long llr_off;  /* where its E LLRs start in the frame's G */
};

struct gpu_coded {
  int on;
  tb_plan plan;
  int harq;                 /* transmissions at most (1: no HARQ) */
  tb_plan rplan[LINK_HARQ_MAX]; /* HARQ: transmission t's plan (rv tb_harq_rv(t)); [0] unused */
  float *d_acc;             /* HARQ: frames x C x Ncb, the combining buffers */
  ldpc_gpu_decoder *dec;
  int cols;                 /* decoder columns that may carry LLRs */
  int nb, kb;               /* Nb Z and K bits of a block's input and decisions */
  uint64_t frames;          /* the batch capacity these buffers hold */
  gpu_tb_encoder enc;       /* the transmitter's kernels and the batch's TBs */
  uint8_t *h_info;          /* pinned, frames x A: the information bits sent (copied back) */
  int threads;              /* host threads that judge a batch's TBs */
  size_t scratch_stride;
  unsigned char *scratch;   /* tb_judge's scratch, one per thread */
  uint8_t *h_bits;          /* pinned, frames x C x K: the decisions */
  ldpc_decode_result *h_res; /* pinned, frames x C */
  uint8_t *d_coded;
  gpu_rm_block *d_blocks[LINK_HARQ_MAX]; /* per transmission: [0] the first's (plan's) */
  int32_t *d_first[LINK_HARQ_MAX], *d_src[LINK_HARQ_MAX];
  float *d_in;              /* frames x C x Nb Z: the decoder's inputs */
  uint8_t *d_bits;
  ldpc_decode_result *d_res;
};

/* Device and host bytes a batch of `frames` frames needs beyond the backend's
 * pool (for sizing the batch). */
size_t gpu_coded_bytes_per_frame(const link_params *p);

/* The plan, the decoder, the tables and the buffers for batches of `frames`
 * frames. 0, or -1 with the reason in err. */
int gpu_coded_init(const link_params *p, uint64_t frames, gpu_coded *c, cudaStream_t st, char *err,
                   size_t errlen);
void gpu_coded_free(gpu_coded *c);

/* On st: the batch's TBs drawn (t = 0, frames g.first_frame + f; HARQ's
 * t > 0 reuses them) and encoded for transmission t on the device; at
 * t = 0 the information bits' copy to h_info (read after the caller
 * synchronises). */
int gpu_coded_encode(const gpu_link &g, gpu_coded *c, cudaStream_t st, int t = 0);

/* After the staged draw stage: the coded labels and their symbols on the data
 * REs (labels [tx][R], x [tx][R], the staged stacks). */
int gpu_launch_coded_labels(const gpu_link &g, const gpu_coded *c, uint8_t *labels, cf32 *x, cudaStream_t st);

/* The batch's LLRs (llr[f G + ...], batch_result.llr's layout, on the
 * device) de-rate-matched and decoded, the decisions and results copied to
 * the pinned host buffers, all on st (the caller synchronises). */
int gpu_coded_decode(const gpu_link &g, gpu_coded *c, const float *llr, cudaStream_t st, int t = 0);

/* Host, after the stream is synchronised: each frame's outcome (t = 0), or
 * HARQ transmission t's for the frames whose TB is still lost
 * (out[f].harq_error). */
void gpu_coded_judge(const gpu_link &g, gpu_coded *c, frame_coded *out, int t = 0);

#endif
