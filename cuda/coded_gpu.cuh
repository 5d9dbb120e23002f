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
 * transmit frame. The TBs sent stay on the device for the judgement.
 *
 * Receiver: the detector's LLRs stay on the device; a de-rate-matching kernel
 * gathers each code block's decoder input through per-block tables made on
 * the host (ratematch_gather_table: the CPU's additions in the CPU's order,
 * so the same floats), the GPU decoder (cuda/ldpc_gpu.h) decodes every block
 * of the batch in one launch, and the judgement kernel
 * (cuda/tb_judge_gpu.cuh) checks the CB and TB CRCs and counts the errors
 * against the TBs sent, tb_judge's outcome bit for bit: only four counters
 * a TB come back to the host, never the decisions.
 *
 * HARQ (code.harq_transmissions > 1): the backend's run sends the batch
 * again while a TB is lost (backend_cuda.cu), transmission t's coded bits
 * the same information bits at rv tb_harq_rv(t) (encoded again on the
 * device from the TBs kept there). As the CPU does (cpu_coded_retry), only
 * the TBs still lost are combined, decoded and judged: the host lists them
 * (frame order), the de-rate-matching kernel ADDS their LLRs into their
 * combining buffers on the device (d_acc: each frame's blocks' circular
 * buffers, kept across the transmissions, in ratematch_accumulate's order
 * through transmission t's tables) and packs their decoder inputs, so the
 * decoder and the judgement of a retransmission cost in proportion to the
 * TBs lost. (The channel and the detector still run on every frame of the
 * batch: their draws are keyed by the frame's place in it.) */
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
#include "cuda/tb_judge_gpu.cuh"

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
  float *d_acc;             /* HARQ: frames x C x Ncb, the combining buffers (by frame) */
  ldpc_gpu_decoder *dec;
  int cols;                 /* decoder columns that may carry LLRs */
  int nb, kb;               /* Nb Z and K bits of a block's input and decisions */
  uint64_t frames;          /* the batch capacity these buffers hold */
  gpu_tb_encoder enc;       /* the transmitter's kernels and the batch's TBs */
  int listed;               /* TBs the last decode judged: the frames, or those lost */
  int32_t *h_list, *d_list; /* pinned and device, frames: a retransmission's lost frames */
  gpu_tb_counts *d_counts;  /* frames: the outcomes, by list place */
  gpu_tb_counts *h_counts;  /* pinned, frames: a retransmission's outcomes (the first's go
                               to the caller's counters: a batch slot's) */
  uint8_t *d_coded;
  gpu_rm_block *d_blocks[LINK_HARQ_MAX]; /* per transmission: [0] the first's (plan's) */
  int32_t *d_first[LINK_HARQ_MAX], *d_src[LINK_HARQ_MAX];
  float *d_in;              /* frames x C x Nb Z: the decoder's inputs (packed by list place) */
  uint8_t *d_bits;          /* frames x C x K: its decisions (the same places) */
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
 * t > 0 reuses them) and encoded for transmission t on the device. */
int gpu_coded_encode(const gpu_link &g, gpu_coded *c, cudaStream_t st, int t = 0);

/* After the staged draw stage: the coded labels and their symbols on the data
 * REs (labels [tx][R], x [tx][R], the staged stacks). */
int gpu_launch_coded_labels(const gpu_link &g, const gpu_coded *c, uint8_t *labels, cf32 *x, cudaStream_t st);

/* The batch's LLRs (llr[f G + ...], batch_result.llr's layout, on the
 * device) de-rate-matched, decoded and judged, the outcomes copied to the
 * pinned host counters `counts` (g.frames of them; NULL: c->h_counts), all
 * on st (the caller synchronises): at t = 0 every frame's TB; at t > 0
 * (HARQ) those of the frames whose TB is still lost after the transmissions
 * before (prev[f].harq_error, the outcomes so far: read on the host now). */
int gpu_coded_decode(const gpu_link &g, gpu_coded *c, const float *llr, gpu_tb_counts *counts, cudaStream_t st,
                     int t = 0, const frame_coded *prev = NULL);

/* Host, once the copy to `counts` is done: the outcomes of a decode into
 * out, each frame's (t = 0), or HARQ transmission t's for the frames the
 * last decode took (out[f].harq_error, transmissions). */
void gpu_coded_collect(const gpu_link &g, const gpu_coded *c, const gpu_tb_counts *counts, frame_coded *out,
                       int t = 0);

#endif
