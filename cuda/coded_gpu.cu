/* The CUDA backend's coded link: cuda/coded_gpu.cuh says what runs where. */
#include "cuda/coded_gpu.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/check.h"
#include "cuda/tb_judge_gpu.cuh"

namespace {

constexpr int kBlock = 256;

/* One thread per RE of the batch: a data RE's labels from its frame's coded
 * bits (tb_label's mapping) and their symbols; pilot REs keep the draw
 * stage's pilots. */
__global__ void __launch_bounds__(kBlock)
    coded_labels_kernel(gpu_link g, const uint8_t *__restrict__ coded, long gbits, uint8_t *__restrict__ labels,
                        cf32 *__restrict__ x) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= g.R) return;
  const uint64_t f = i / g.rf, m = i - f * g.rf;
  if (pilot_antenna(&g.re.pilots, m) >= 0) return;
  const uint64_t d = pilot_data_index(&g.re.pilots, m);
  const uint8_t *cb = coded + (size_t)f * (size_t)gbits;
  for (int t = 0; t < g.tx; t++) {
    const uint32_t label = tb_label(cb, d, g.tx, t, g.bps);
    labels[(size_t)t * g.R + i] = (uint8_t)label;
    x[(size_t)t * g.R + i] = qam_map(g.bps, label);
  }
}

/* One thread per decoder input position of every block of the TBs decoded
 * (grid stride): ratematch_decoder_input's value, its buffer sums gathered
 * in ratematch_accumulate's order (ratematch_gather_table). TB q is frame
 * list[q] (HARQ's retransmissions: the frames still lost), or q with list
 * NULL; its blocks' inputs go to in[q C ...], packed, so the decoder takes
 * those TBs alone. With acc (HARQ) the sums start from the frame's
 * combining buffer (from 0 when fresh: the first transmission) and go back
 * into it: the CPU's additions into a kept buffer, one at a time in the
 * same order. */
__global__ void __launch_bounds__(kBlock)
    derm_kernel(const float *__restrict__ llr, long gbits, int nblk, const int32_t *__restrict__ list,
                const gpu_rm_block *__restrict__ blocks, const int32_t *__restrict__ first,
                const int32_t *__restrict__ src, int zc, int ncb, int filler_begin, int filler_end, int nb,
                uint64_t total, float *__restrict__ acc, int fresh, float *__restrict__ in) {
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (uint64_t)gridDim.x * blockDim.x) {
    const uint64_t b = i / (uint64_t)nb;
    const int j = (int)(i - b * (uint64_t)nb);
    const uint64_t q = b / (uint64_t)nblk, r = b - q * (uint64_t)nblk;
    const uint64_t f = list ? (uint64_t)list[q] : q;
    const gpu_rm_block bk = blocks[r];
    const int pos = j - 2 * zc;
    float v = 0.0f;
    if (pos >= filler_begin && pos < filler_end) {
      v = LDPC_LLR_FILLER;
    } else if (pos >= 0 && pos < ncb) {
      const float *l = llr + (size_t)f * (size_t)gbits + (size_t)bk.llr_off;
      float *a = acc ? acc + ((size_t)f * (size_t)nblk + (size_t)r) * (size_t)ncb + (size_t)pos : NULL;
      if (a && !fresh) v = *a;
      for (int k = first[bk.first_off + pos]; k >= 0 && k < bk.e; k += bk.period) v += l[src[bk.src_off + k]];
      if (a) *a = v;
    }
    in[i] = v;
  }
}

}  // namespace

size_t gpu_coded_bytes_per_frame(const link_params *p) {
  /* the coded bits, the encoder's TBs and block CRCs, per block its decoder
   * input (floats), decisions and result, and per TB its counts (device and
   * pinned) and its place in a retransmission's list (device and pinned) */
  const long g = (long)link_bits_per_frame(p);
  tb_plan pl;
  char err[256];
  if (tb_plan_make(p->code.tbs, p->code.rate, p->bps, p->tx, g, p->code.rv, &pl, err, sizeof err)) return 0;
  const size_t nb = (size_t)(pl.seg.bg == 1 ? 68 : 52) * (size_t)pl.seg.zc;
  const size_t kb = (size_t)(pl.seg.bg == 1 ? 22 : 10) * (size_t)pl.seg.zc;
  const size_t c = (size_t)pl.seg.c;
  /* HARQ: the combining buffers, Ncb floats a block */
  const size_t acc = link_harq(p) > 1 ? sizeof(float) * tb_harq_buffer_floats(&pl) : 0;
  const size_t enc = gpu_tb_encoder_bytes_per_frame(&pl);
  /* flooding BP: its decoder's messages, a float per edge and lane a block
   * (cuda/ldpc_gpu.h; BG1 Z 384: 474 KiB, 4.6 times the block's input) */
  const size_t zp = ((size_t)pl.seg.zc + 31) / 32 * 32;
  const size_t bp = p->code.decoder == CODE_DEC_BP ? sizeof(float) * (pl.seg.bg == 1 ? 316 : 197) * zp : 0;
  tb_plan_free(&pl);
  return (size_t)g + enc + acc + 2 * (sizeof(gpu_tb_counts) + sizeof(int32_t)) +
         c * (sizeof(float) * nb + kb + sizeof(ldpc_decode_result) + bp);
}

int gpu_coded_init(const link_params *p, uint64_t frames, gpu_coded *c, cudaStream_t st, char *err,
                   size_t errlen) {
  memset(c, 0, sizeof *c);
  const long g = (long)link_bits_per_frame(p);
  if (tb_plan_make(p->code.tbs, p->code.rate, p->bps, p->tx, g, p->code.rv, &c->plan, err, errlen)) return -1;
  c->on = 1;
  c->frames = frames;
  c->harq = link_harq(p);
  for (int t = 1; t < c->harq; t++)
    if (tb_plan_make(p->code.tbs, p->code.rate, p->bps, p->tx, g, tb_harq_rv(t), &c->rplan[t], err, errlen))
      return -1;
  const ldpc_segmentation *s = &c->plan.seg;
  const ldpc_decoder_config cfg = tb_decoder_config((int)p->code.decoder, p->code.scale, p->code.offset,
                                                    p->code.max_iterations, p->code.early_termination);
  if (!(c->dec = ldpc_gpu_create(s->bg, s->zc, &cfg, LDPC_GPU_MSG_AUTO, err, errlen))) return -1;
  c->nb = (s->bg == 1 ? 68 : 52) * s->zc;
  c->kb = (s->bg == 1 ? 22 : 10) * s->zc;
  /* the tables: each block's first (Ncb) and src (E), per transmission;
   * the decoder's columns those of any transmission's (combining adds) */
  size_t nsrc = 0, nfirst = 0;
  for (int r = 0; r < s->c; r++) {
    nsrc += (size_t)c->plan.rm[r].e;
    nfirst += (size_t)c->plan.rm[r].ncb;
    for (int t = 0; t < c->harq; t++) {
      const int cols = ldpc_gpu_cols_for(t ? &c->rplan[t].rm[r] : &c->plan.rm[r]);
      if (cols > c->cols) c->cols = cols;
    }
  }
  if (ldpc_gpu_placement(c->dec, c->cols) < 0) {
    snprintf(err, errlen, "cuda backend: an LDPC block of base graph %d, Z %d does not fit the device", s->bg,
             s->zc);
    return -1;
  }
  gpu_rm_block *hb = (gpu_rm_block *)calloc((size_t)s->c, sizeof *hb);
  int32_t *hfirst = (int32_t *)malloc(sizeof(int32_t) * nfirst), *hsrc = (int32_t *)malloc(sizeof(int32_t) * nsrc);
  const size_t nblocks = (size_t)frames * (size_t)s->c;
  const int bad = !hb || !hfirst || !hsrc;
  cudaError_t e = cudaSuccess;
  if (!bad) {
    e = cudaMallocHost(&c->h_counts, (size_t)frames * sizeof(gpu_tb_counts));
    if (e == cudaSuccess) e = cudaMallocHost(&c->h_list, (size_t)frames * sizeof(int32_t));
    if (e == cudaSuccess) e = cudaMalloc(&c->d_counts, (size_t)frames * sizeof(gpu_tb_counts));
    if (e == cudaSuccess) e = cudaMalloc(&c->d_list, (size_t)frames * sizeof(int32_t));
    if (e == cudaSuccess) e = cudaMalloc(&c->d_coded, (size_t)frames * (size_t)g);
    if (e == cudaSuccess) e = cudaMalloc(&c->d_in, sizeof(float) * nblocks * (size_t)c->nb);
    if (e == cudaSuccess) e = cudaMalloc(&c->d_bits, nblocks * (size_t)c->kb);
    if (e == cudaSuccess) e = cudaMalloc(&c->d_res, nblocks * sizeof(ldpc_decode_result));
    if (e == cudaSuccess && c->harq > 1)
      e = cudaMalloc(&c->d_acc, sizeof(float) * (size_t)frames * tb_harq_buffer_floats(&c->plan));
  }
  /* each transmission's tables, made on the host and uploaded (the host
   * tables are reused for the next: each copy is waited for) */
  for (int t = 0; !bad && e == cudaSuccess && t < c->harq; t++) {
    const tb_plan *pl = t ? &c->rplan[t] : &c->plan;
    size_t so = 0, fo = 0;
    for (int r = 0; r < s->c; r++) {
      const ratematch_block *rm = &pl->rm[r];
      hb[r].src_off = (int)so;
      hb[r].first_off = (int)fo;
      hb[r].e = rm->e;
      hb[r].period = ratematch_gather_table(rm, hfirst + fo, hsrc + so);
      /* the table's sources are coded-bit indices of the block; the LLRs
       * come in the receivers' (label bit) order, and the block starts on a
       * symbol, so each source moves within its symbol (label_order.h) */
      for (int k = 0; k < rm->e; k++) hsrc[so + (size_t)k] = (int32_t)tb_llr_index((size_t)hsrc[so + (size_t)k], pl->qm);
      hb[r].llr_off = pl->offset[r];
      so += (size_t)rm->e;
      fo += (size_t)rm->ncb;
    }
    e = cudaMalloc(&c->d_blocks[t], sizeof(gpu_rm_block) * (size_t)s->c);
    if (e == cudaSuccess) e = cudaMalloc(&c->d_first[t], sizeof(int32_t) * nfirst);
    if (e == cudaSuccess) e = cudaMalloc(&c->d_src[t], sizeof(int32_t) * nsrc);
    if (e == cudaSuccess) e = cudaMemcpyAsync(c->d_blocks[t], hb, sizeof(gpu_rm_block) * (size_t)s->c,
                                              cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(c->d_first[t], hfirst, sizeof(int32_t) * nfirst, cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess) e = cudaMemcpyAsync(c->d_src[t], hsrc, sizeof(int32_t) * nsrc, cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
  }
  free(hb);
  free(hfirst);
  free(hsrc);
  if (bad || e != cudaSuccess) {
    snprintf(err, errlen, "cuda backend: the coded link's buffers for %llu frames (%d code blocks each): %s",
             (unsigned long long)frames, s->c, bad ? "no host memory" : cudaGetErrorString(e));
    cudaGetLastError();
    return -1;
  }
  /* the transmitter: every transmission's plan (rv by transmission) */
  const tb_plan *plans[LINK_HARQ_MAX];
  for (int t = 0; t < c->harq; t++) plans[t] = t ? &c->rplan[t] : &c->plan;
  return gpu_tb_encoder_init(&c->enc, plans, c->harq, frames, st, err, errlen);
}

void gpu_coded_free(gpu_coded *c) {
  if (c->dec) ldpc_gpu_destroy(c->dec);
  gpu_tb_encoder_free(&c->enc);
  if (c->h_counts) cudaFreeHost(c->h_counts);
  if (c->h_list) cudaFreeHost(c->h_list);
  if (c->d_counts) cudaFree(c->d_counts);
  if (c->d_list) cudaFree(c->d_list);
  if (c->d_coded) cudaFree(c->d_coded);
  for (int t = 0; t < LINK_HARQ_MAX; t++) {
    if (c->d_blocks[t]) cudaFree(c->d_blocks[t]);
    if (c->d_first[t]) cudaFree(c->d_first[t]);
    if (c->d_src[t]) cudaFree(c->d_src[t]);
  }
  if (c->d_acc) cudaFree(c->d_acc);
  if (c->d_in) cudaFree(c->d_in);
  if (c->d_bits) cudaFree(c->d_bits);
  if (c->d_res) cudaFree(c->d_res);
  cudaGetLastError(); /* teardown failures have no one left to report to */
  tb_plan_free(&c->plan);
  for (int t = 1; t < LINK_HARQ_MAX; t++) tb_plan_free(&c->rplan[t]);
  memset(c, 0, sizeof *c);
}

int gpu_coded_encode(const gpu_link &g, gpu_coded *c, cudaStream_t st, int t) {
  return gpu_tb_encode(&c->enc, t, g.re.key, g.first_frame, g.frames, t == 0, c->d_coded, NULL, st);
}

int gpu_launch_coded_labels(const gpu_link &g, const gpu_coded *c, uint8_t *labels, cf32 *x, cudaStream_t st) {
  const unsigned blocks = (unsigned)((g.R + kBlock - 1) / kBlock);
  coded_labels_kernel<<<blocks, kBlock, 0, st>>>(g, c->d_coded, c->plan.g, labels, x);
  CUDA_TRY_LAUNCH("coded_labels_kernel");
  return 0;
}

int gpu_coded_decode(const gpu_link &g, gpu_coded *c, const float *llr, gpu_tb_counts *counts, cudaStream_t st,
                     int t, const frame_coded *prev) {
  const tb_plan &pl = c->plan;
  const int nblk = pl.seg.c;
  /* the TBs to decode: every frame's at first; then those still lost,
   * listed in frame order (cpu_coded_retry's), the list on the device */
  const int32_t *list = NULL;
  int n = (int)g.frames;
  if (t > 0) {
    if (!prev || t >= c->harq) {
      gpu_report_failure(__FILE__, __LINE__, "gpu_coded_decode", "bad input",
                         "a retransmission needs the outcomes so far and a transmission within HARQ's", 0);
      return -1;
    }
    n = 0;
    for (uint64_t f = 0; f < g.frames; f++)
      if (prev[f].harq_error) c->h_list[n++] = (int32_t)f;
    if (n > 0)
      CUDA_TRY(cudaMemcpyAsync(c->d_list, c->h_list, sizeof(int32_t) * (size_t)n, cudaMemcpyHostToDevice, st));
    list = c->d_list;
  }
  c->listed = n;
  if (n == 0) return 0;
  const size_t nblocks = (size_t)n * (size_t)nblk;
  const uint64_t total = (uint64_t)nblocks * (uint64_t)c->nb;
  const uint64_t want = (total + kBlock - 1) / kBlock;
  const unsigned grid = (unsigned)(want < (1u << 20) ? want : (1u << 20));
  /* the fillers and Ncb are every transmission's (rv moves k0 alone) */
  derm_kernel<<<grid, kBlock, 0, st>>>(llr, pl.g, nblk, list, c->d_blocks[t], c->d_first[t], c->d_src[t],
                                       pl.seg.zc, pl.rm[0].ncb, pl.rm[0].filler_begin, pl.rm[0].filler_end, c->nb,
                                       total, c->d_acc, t == 0, c->d_in);
  CUDA_TRY_LAUNCH("derm_kernel");
  if (ldpc_gpu_decode(c->dec, c->d_in, (int)nblocks, c->cols, c->d_bits, c->d_res, st)) return -1;
  /* the CRCs and counts against the TBs the encoder kept: four counters a
   * TB come back, not its decisions */
  if (gpu_tb_judge(&pl.seg, n, list, c->d_bits, (size_t)c->kb, c->d_res, c->enc.d_tb, c->enc.tb_stride,
                   c->enc.d_cb_crc, c->d_counts, st))
    return -1;
  CUDA_TRY(cudaMemcpyAsync(counts ? counts : c->h_counts, c->d_counts, sizeof(gpu_tb_counts) * (size_t)n,
                           cudaMemcpyDeviceToHost, st));
  return 0;
}

void gpu_coded_collect(const gpu_link &g, const gpu_coded *c, const gpu_tb_counts *counts, frame_coded *out,
                       int t) {
  if (t > 0) {
    /* the frames retransmitted: delivered now or still lost */
    for (int q = 0; q < c->listed; q++) {
      frame_coded *x = &out[c->h_list[q]];
      x->harq_error = counts[q].tb_error;
      x->transmissions = (uint32_t)t + 1;
    }
    return;
  }
  for (uint64_t f = 0; f < g.frames; f++) {
    const gpu_tb_counts &o = counts[f];
    frame_coded *x = &out[f];
    x->harq_error = o.tb_error;
    x->transmissions = 1;
    x->tb_error = o.tb_error;
    x->cbs = (uint32_t)c->plan.seg.c;
    x->cb_errors = o.cb_errors;
    x->info_errors = o.info_errors;
    x->iterations = o.iterations;
  }
}
