/* The CUDA backend object: sizes the batch to the device's memory, owns the
 * buffers, the stream, the events and the cuFFT plans, and runs a batch as
 * either
 *   staged: one kernel per stage, every intermediate in device memory (the
 *           CPU backend's stages and buffers, each timed with events and each
 *           fetchable after the batch), or
 *   fused:  (tdl) the taps and their response, (time domain) the modem, then
 *           one kernel from the draws to the error counters, which are all
 *           that leaves the device.
 * Only the per-frame, per-stream error counters are copied back, once a batch,
 * into pinned memory of the batch's slot: a submitted batch's copy is waited
 * for at its collect, while the next one already runs (backend_submit). */
#include <dirent.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "cuda/backend_cuda.h"
#include "cuda/check.h"
#include "cuda/coded_gpu.cuh"
#include "cuda/gpu.h"
#include "cuda/gpu_internal.cuh"
#include "cuda/joint_gpu.cuh"

#include "channel/estimate.h"
#include "channel/tdl.h"
#include "channel/tdl_grid.h"
#include "core/clock.h"
#include "core/spatial.h"

namespace {

/* The CUDA backend's own options (backend_setting {"cuda", name, value};
 * backend_cuda.h says what each does). */
struct cuda_options {
  uint64_t memory_mb;
  int staged;
  int td_direct;
  int sync; /* every submitted batch run whole at its collect (OFDMSIM_GPU_SYNC=1) */
};

const backend_option_spec kCudaOptionSpecs[] = {
    {"memory_mb", offsetof(cuda_options, memory_mb), BACKEND_OPT_U64, 0, INT64_MAX},
    {"staged", offsetof(cuda_options, staged), BACKEND_OPT_INT, 0, 1},
    {"td_direct", offsetof(cuda_options, td_direct), BACKEND_OPT_INT, 0, 1},
    {"sync", offsetof(cuda_options, sync), BACKEND_OPT_INT, 0, 1},
};

/* REs a batch holds at most: beyond this a batch brings no more speed, only
 * longer waits between progress updates (staged batches are smaller: they
 * keep every intermediate). */
constexpr uint64_t kFusedBatchRes = 1ull << 25;
constexpr uint64_t kStagedBatchRes = 1ull << 23;
/* Frames a batch holds at most: the counters copied back stay small. */
constexpr uint64_t kMaxBatchFrames = 1ull << 20;
/* Bytes a coded batch's own buffers (the LLRs, the coded bits, the decoder's
 * inputs and decisions) take at most, outside the pool. */
constexpr double kCodedBatchBytes = 1024.0 * 1048576.0;
/* Share of the free device memory a backend takes when no cap is given. */
constexpr double kFreeMemoryShare = 0.7;
constexpr size_t kAlign = 256;

/* The stages' events of a batch, then EV_DONE: its counters are on the host. */
enum { EV_START, EV_DRAW, EV_CHANNEL, EV_GRAM, EV_INVERT, EV_EQUALIZE, EV_DEMAP, EV_DECODE, EV_DONE, EV_COUNT };

/* Batches in flight at once: the one whose counters the host reads, and the
 * next, already queued on the stream behind it. */
constexpr int kSlots = BACKEND_IN_FLIGHT;

/* A batch between its launch and the host's reading of its counters. The
 * device buffers are the backend's one set: the stream runs a batch's copies
 * to the host before the next batch's first kernel, so only the host side,
 * the pinned copies the host reads while the next batch runs, and the
 * events, whose times are read then, need one per batch in flight. */
struct batch_slot {
  uint32_t *host;                      /* pinned: errors [frames][tx], then fallbacks [frames] */
  unsigned long long *host_loss;       /* pinned, soft outputs: [frames][tx] */
  unsigned long long *host_loss_s;     /* ... [frames][GMI_GRID] */
  gpu_tb_counts *host_counts;          /* pinned, the coded link: its TBs' outcomes [frames] */
  int decoded;                         /* the coded link: its TBs were decoded (not an export) */
  cudaEvent_t ev[EV_COUNT];
  int events_made;
  gpu_link g;                          /* the batch (frames, first frame) */
  int deferred;                        /* submitted only: run whole at its collect */
  uint64_t first_frame, frames;        /* of a deferred one */
};

struct cuda_state {
  gpu_link g;               /* the link; the batch fields are set per run */
  int staged;
  int sync;                 /* cuda_options.sync */
  uint64_t cap_frames;
  cudaStream_t stream;
  cudaEvent_t *ev;          /* the events of the batch being launched or read */
  batch_slot slot[kSlots];
  int head, queued;         /* the oldest slot in flight, and how many are */
  void *pool;               /* one allocation, carved into the buffers below */
  gpu_consts *consts;
  uint32_t *errors;         /* [frames][tx], then fallbacks [frames], then (fused)
                               the repair list: its length, then R entries */
  unsigned long long *loss; /* soft outputs: GMI losses [frames][tx] */
  unsigned long long *loss_s; /* ... and at the GMI grid's scalings [frames][GMI_GRID] */
  float *cap_llr;           /* LLR export of a batch, allocated when first asked */
  uint8_t *cap_bits;
  size_t cap_res;           /* REs those hold */
  uint8_t *labels;          /* staged: [tx][R] */
  cf32 *x, *H, *Hhat, *y, *G, *Ginv, *z, *xhat; /* staged SoA stacks */
  gpu_tdl tdl;              /* tdl: taps, sinusoids, response tables (gpu_internal.cuh) */
  est_plan eplan;           /* estimation from pilots: the host tables (taps 0: none) */
  gpu_est est;              /* their device copies and the batch's estimates */
  cf32 *xt, *yt;            /* time domain: [f][tx][R_f], [f][rx][R_f] */
  void *fft_work;
  gpu_fft_set fft_tx, fft_rx;
  int have_fft_td;
  int td_transform;         /* fused time domain by the CP-aligned transform (ofdm_gpu.cu) */
  gpu_coded coded;          /* p.code.type ldpc (coded_gpu.cuh); staged only */
};

/* The buffer plan of a batch of `frames` frames: byte offsets into the pool. */
struct layout {
  size_t consts, errors, loss, loss_s, labels, x, H, Hhat, y, G, Ginv, z, xhat, taps, sos, win, resp, Hk, td_delay, td_coef,
      dtaps, poly, est_first, est_w, est_lo, est_wl, hp, est_ls, est_yp, dmrs_seq, xt, yt, work, total;
};

size_t take(size_t *at, size_t bytes) {
  const size_t off = *at;
  *at += (bytes + kAlign - 1) / kAlign * kAlign;
  return bytes ? off : (size_t)-1;
}

/* td_taps: the time-domain discrete taps of the point (tdl_grid's), 0 if
 * none; ep: its estimation tables (ep->taps 0: none). */
layout plan_layout(const link_params *p, int staged, uint64_t frames, size_t work_bytes, int td_taps,
                   const est_plan *ep) {
  const size_t rf = (size_t)link_res_per_frame(p), R = frames * rf, c8 = sizeof(cf32);
  const size_t tx = (size_t)p->tx, rx = (size_t)p->rx, links = tx * rx;
  const int tdl = p->model == CH_TDL, td = p->domain == DOMAIN_TIME;
  const int linear = link_detector_is_linear(p->equalizer); /* the joint detectors need no G */
  layout l;
  size_t at = 0;
  l.consts = take(&at, sizeof(gpu_consts));
  l.errors = take(&at, sizeof(uint32_t) * (frames * (tx + 1) + (staged ? 0 : 1 + R)));
  l.loss = take(&at, p->llr != LLR_OFF ? sizeof(unsigned long long) * frames * tx : 0);
  l.loss_s = take(&at, p->llr != LLR_OFF ? sizeof(unsigned long long) * frames * GMI_GRID : 0);
  l.labels = take(&at, staged ? tx * R : 0);
  l.x = take(&at, staged ? c8 * tx * R : 0);
  l.H = take(&at, staged ? c8 * links * R : 0);
  const int est = ep->taps > 0;
  l.Hhat = take(&at, staged && (p->csi_error_var > 0 || est) ? c8 * links * R : 0);
  l.y = take(&at, staged ? c8 * rx * R : 0);
  l.G = take(&at, staged && linear ? c8 * tx * tx * R : 0);
  l.Ginv = take(&at, staged && linear ? c8 * tx * tx * R : 0);
  l.z = take(&at, staged && linear ? c8 * tx * R : 0);
  l.xhat = take(&at, staged ? c8 * tx * R : 0);
  const int fading = link_doppler_per_sample(p) > 0.0;
  const size_t L = tdl ? (size_t)p->pdp.taps : 0, span = fading ? rf : (size_t)p->subcarriers;
  l.taps = take(&at, c8 * frames * links * L * (fading ? (size_t)p->symbols : 1));
  l.sos = take(&at, fading || link_is_cdl(p) ? sizeof(sos_term) * frames * tdl_fade_terms(p) : 0);
  /* tdl with Doppler in the frequency domain: the terms' window factors */
  l.win = take(&at, fading && !td && tdl && !link_is_cdl(p) ? sizeof(float) * frames * tdl_fade_terms(p) : 0);
  l.resp = take(&at, c8 * L * (size_t)p->subcarriers);
  l.Hk = take(&at, tdl ? c8 * frames * links * span : 0);
  const size_t D = td && tdl && !fading ? (size_t)td_taps : 0;
  l.td_delay = take(&at, sizeof(int) * D);
  l.td_coef = take(&at, sizeof(float) * D * L);
  l.dtaps = take(&at, c8 * frames * links * D);
  /* time domain with Doppler: the taps' cubics of every segment */
  const size_t nf = (size_t)p->symbols * (size_t)(p->subcarriers + p->cp_length);
  const size_t segs = td && tdl && fading ? (size_t)tap_poly_segments(tap_poly_len(link_doppler_per_sample(p), nf), nf) : 0;
  l.poly = take(&at, c8 * frames * segs * L * links * TAP_POLY_COEFS);
  const size_t K = (size_t)p->subcarriers, S = (size_t)p->symbols;
  l.est_first = take(&at, est ? sizeof(int) * tx * K : 0);
  l.est_w = take(&at, est ? c8 * tx * K * (size_t)ep->taps * (ep->tt ? S * (size_t)ep->tt : 1) : 0);
  l.est_lo = take(&at, est ? sizeof(int) * S : 0);
  l.est_wl = take(&at, est ? sizeof(float) * S : 0);
  l.hp = take(&at, est && !ep->tt ? c8 * frames * links * (size_t)ep->pilot_syms * K : 0); /* lmmse2d: none */
  /* DMRS: the despread LS estimates [f][links][occasion][np], the sequence */
  l.est_ls = take(&at, est ? c8 * frames * links * (size_t)ep->pilot_syms * (size_t)ep->np : 0);
  const pilot_grid pg = link_pilot_grid(p);
  /* fused: the pilot rows [f][rx][pilot_symbol_count][K] the estimate is made from */
  l.est_yp = take(&at, est && !staged ? c8 * frames * rx * (size_t)pilot_symbol_count(&pg) * K : 0);
  l.dmrs_seq = take(&at, pg.kind == PILOT_DMRS
                             ? sizeof(uint32_t) * (size_t)(pg.dm.occasions * pg.dm.len) * (size_t)pg.dm.seq_words
                             : 0);
  l.xt = take(&at, td ? c8 * tx * R : 0);
  l.yt = take(&at, td ? c8 * rx * R : 0);
  l.work = take(&at, work_bytes);
  l.total = at;
  return l;
}

template <typename T>
T *carve(void *pool, size_t off) {
  return off == (size_t)-1 ? NULL : reinterpret_cast<T *>(static_cast<char *>(pool) + off);
}

void state_free(cuda_state *s) {
  if (!s) return;
  if (s->have_fft_td) {
    gpu_fft_set_destroy(&s->fft_tx);
    gpu_fft_set_destroy(&s->fft_rx);
  }
  if (s->stream) cudaStreamSynchronize(s->stream); /* a discarded batch may still run */
  for (int k = 0; k < kSlots; k++) {
    batch_slot &sl = s->slot[k];
    for (int i = 0; i < sl.events_made; i++) cudaEventDestroy(sl.ev[i]);
    if (sl.host) cudaFreeHost(sl.host);
    if (sl.host_loss) cudaFreeHost(sl.host_loss);
    if (sl.host_loss_s) cudaFreeHost(sl.host_loss_s);
    if (sl.host_counts) cudaFreeHost(sl.host_counts);
  }
  if (s->pool) cudaFree(s->pool);
  if (s->cap_llr) cudaFree(s->cap_llr);
  if (s->cap_bits) cudaFree(s->cap_bits);
  if (s->stream) cudaStreamDestroy(s->stream);
  est_plan_free(&s->eplan);
  gpu_coded_free(&s->coded);
  cudaGetLastError(); /* teardown failures have no one left to report to */
  free(s);
}

/* ---- the interface --------------------------------------------------------- */

uint64_t cuda_max_frames(backend *b) { return static_cast<cuda_state *>(b->impl)->cap_frames; }

void cuda_destroy(backend *b) {
  state_free(static_cast<cuda_state *>(b->impl));
  free(b);
}

int bad_run(int line, const char *why) {
  gpu_report_failure(__FILE__, line, "backend cuda run", "invalid argument", why, 0);
  return -1;
}

/* The per-frame fallback counters sit after the batch's error counters, and
 * the fused mode's repair list after them. */
uint32_t *fallbacks_of(cuda_state *s, const gpu_link &g) {
  return s->errors + (size_t)g.frames * (size_t)g.tx;
}
uint32_t *repair_of(cuda_state *s, const gpu_link &g) { return fallbacks_of(s, g) + g.frames; }

/* tdl: the batch's taps and their per-subcarrier response Hk (both modes). */
int tdl_response(cuda_state *s, const gpu_link &g) {
  if (g.model != CH_TDL) return 0;
  return gpu_launch_taps(g, s->consts, s->tdl, s->stream);
}

/* The staged batch: the CPU backend's stages, one or more kernels each. */
int run_staged(cuda_state *s, const gpu_link &g) {
  cudaStream_t st = s->stream;
  CUDA_TRY(cudaEventRecord(s->ev[EV_START], st));
  if (tdl_response(s, g)) return -1;
  if (gpu_launch_draw_stage(g, s->consts, s->tdl.Hk, s->labels, s->x, s->H, s->Hhat, st)) return -1;
  /* the coded link: the TBs' coded bits replace the drawn labels and symbols
   * of the data REs (uploaded by run_batch before this) */
  if (s->coded.on && gpu_launch_coded_labels(g, &s->coded, s->labels, s->x, st)) return -1;
  CUDA_TRY(cudaEventRecord(s->ev[EV_DRAW], st));
  if (s->have_fft_td) {
    if (gpu_launch_modem_prepare(g, s->x, s->xt, st)) return -1;
    if (gpu_fft_set_exec(&s->fft_tx, s->xt, g.frames)) return -1;
    if (gpu_launch_modem_channel(g, s->consts, s->xt, s->tdl, s->yt, st)) return -1;
    if (gpu_fft_set_exec(&s->fft_rx, s->yt, g.frames)) return -1;
    if (gpu_launch_frame_to_soa(g, g.rx, s->yt, s->y, st)) return -1;
  } else {
    if (gpu_launch_channel_stage(g, s->H, s->x, s->y, st)) return -1;
  }
  if (s->est.w && gpu_launch_estimate(g, s->est, s->y, s->Hhat, st)) return -1;
  CUDA_TRY(cudaEventRecord(s->ev[EV_CHANNEL], st));
  if (!link_detector_is_linear((eq_kind)g.equalizer)) { /* a joint detector: no linear chain */
    for (int e = EV_GRAM; e < EV_DEMAP; e++) CUDA_TRY(cudaEventRecord(s->ev[e], st));
    return 0;
  }
  if (gpu_launch_gram(g, s->Hhat ? s->Hhat : s->H, s->y, s->G, s->z, st)) return -1;
  CUDA_TRY(cudaEventRecord(s->ev[EV_GRAM], st));
  if (gpu_invert_soa(g.tx, s->G, s->Ginv, (size_t)g.R, st)) return -1;
  CUDA_TRY(cudaEventRecord(s->ev[EV_INVERT], st));
  if (gpu_launch_equalize(g, s->Ginv, s->z, s->Hhat ? s->Hhat : s->H, s->y, s->xhat,
                          fallbacks_of(s, g), st))
    return -1;
  CUDA_TRY(cudaEventRecord(s->ev[EV_EQUALIZE], st));
  if (gpu_launch_demap(g, s->xhat, s->labels, s->errors, st)) return -1;
  CUDA_TRY(cudaEventRecord(s->ev[EV_DEMAP], st));
  return 0;
}

/* The fused modes' time-domain modem, from the draws to the receiver's FFT
 * output: the transmitter's symbols, IFFT, convolution and noise, FFT; or,
 * on the CP-aligned transform path, the noise and its FFT alone. */
int run_modem(cuda_state *s, const gpu_link &g) {
  if (s->td_transform) {
    if (gpu_launch_modem_noise(g, s->yt, s->stream)) return -1;
  } else {
    if (gpu_launch_modem_prepare(g, NULL, s->xt, s->stream)) return -1;
    if (gpu_fft_set_exec(&s->fft_tx, s->xt, g.frames)) return -1;
    if (gpu_launch_modem_channel(g, s->consts, s->xt, s->tdl, s->yt, s->stream)) return -1;
  }
  return gpu_fft_set_exec(&s->fft_rx, s->yt, g.frames);
}

/* What the fused modes' per-RE kernels read, before them on the stream: the
 * taps and their response (tdl), the time-domain modem, the estimates on
 * the pilot symbols (LS); events start, draw and channel around them. */
int fused_front(cuda_state *s, const gpu_link &g) {
  cudaStream_t st = s->stream;
  CUDA_TRY(cudaEventRecord(s->ev[EV_START], st));
  if (tdl_response(s, g)) return -1;
  CUDA_TRY(cudaEventRecord(s->ev[EV_DRAW], st));
  if (s->have_fft_td && run_modem(s, g)) return -1;
  if (g.est.on && gpu_launch_fused_estimate(g, s->consts, s->tdl.Hk, s->yt, st)) return -1;
  CUDA_TRY(cudaEventRecord(s->ev[EV_CHANNEL], st));
  return 0;
}

/* Soft outputs or a joint detector: the detect kernel after the staged
 * stages (from their stacks; for zf and mmse the staged chain has counted the
 * errors) or after the fused mode's taps and modem (from the draws). */
int run_detect(cuda_state *s, const gpu_link &g, float *llr, uint8_t *bits, int at_1, int grid) {
  cudaStream_t st = s->stream;
  const int joint = !link_detector_is_linear((eq_kind)g.equalizer);
  /* the GMI sums asked for (receiver.gmi): s = 1's per stream, the grid's */
  unsigned long long *loss = at_1 || grid ? s->loss : NULL, *loss_s = grid ? s->loss_s : NULL;
  gpu_detect_out out = {!s->staged || joint, s->errors, fallbacks_of(s, g), loss, loss_s, llr, bits};
  if (loss) CUDA_TRY(cudaMemsetAsync(loss, 0, sizeof(unsigned long long) * g.frames * g.tx, st));
  if (loss_s) CUDA_TRY(cudaMemsetAsync(loss_s, 0, sizeof(unsigned long long) * g.frames * GMI_GRID, st));
  if (s->staged) {
    if (run_staged(s, g)) return -1;
    const gpu_stacks stacks = {s->labels, s->Hhat ? s->Hhat : s->H, s->y, joint ? s->xhat : NULL};
    if (gpu_launch_detect(g, s->consts, s->tdl.Hk, s->yt, &stacks, out, st)) return -1;
    CUDA_TRY(cudaEventRecord(s->ev[EV_DEMAP], st));
    return 0;
  }
  if (fused_front(s, g)) return -1;
  if (gpu_launch_detect(g, s->consts, s->tdl.Hk, s->yt, NULL, out, st)) return -1;
  CUDA_TRY(cudaEventRecord(s->ev[EV_INVERT], st));
  return 0;
}

/* Device room for the LLR export of a batch of `res` REs. A batch in flight
 * may still use the old buffers: the stream is waited for before they go. */
int capture_room(cuda_state *s, const gpu_link &g, size_t res) {
  if (res <= s->cap_res) return 0;
  if (s->cap_llr || s->cap_bits) CUDA_TRY(cudaStreamSynchronize(s->stream));
  if (s->cap_llr) cudaFree(s->cap_llr);
  if (s->cap_bits) cudaFree(s->cap_bits);
  s->cap_llr = NULL;
  s->cap_bits = NULL;
  s->cap_res = 0;
  const size_t n = res * (size_t)g.tx * (size_t)g.bps;
  CUDA_TRY(cudaMalloc(&s->cap_llr, sizeof(float) * n));
  CUDA_TRY(cudaMalloc(&s->cap_bits, n));
  s->cap_res = res;
  return 0;
}

/* The fused batch. Events: draw = the taps and their response (tdl), channel
 * = the time-domain modem and (LS) the estimates on the pilot symbols,
 * invert = the fused kernel (draws, channel, Gram, inverse, equalisation,
 * decisions and counting all in one); the other stages take no separate
 * time. loss (NULL: hard decisions): zf/mmse LLRs' GMI losses at s = 1, the
 * fused kernel's Soft instances (gpu_fused_soft_covers). */
int run_fused(cuda_state *s, const gpu_link &g, unsigned long long *loss) {
  cudaStream_t st = s->stream;
  if (loss) CUDA_TRY(cudaMemsetAsync(loss, 0, sizeof(unsigned long long) * g.frames * g.tx, st));
  if (fused_front(s, g)) return -1;
  if (gpu_launch_fused(g, s->consts, s->tdl.Hk, s->yt, s->errors, repair_of(s, g), loss, st)) return -1;
  /* The REs the fused kernel left undecided (flagged inverses), in double:
   * the list's length is read on the device, so no host wait between the
   * kernel and the batch's counters. */
  if (gpu_launch_repair(g, s->consts, s->tdl.Hk, s->yt, repair_of(s, g), s->errors, fallbacks_of(s, g), loss, st))
    return -1;
  CUDA_TRY(cudaEventRecord(s->ev[EV_INVERT], st));
  return 0;
}

double elapsed_s(cuda_state *s, int from, int to) {
  float ms = 0.0f;
  if (cudaEventElapsedTime(&ms, s->ev[from], s->ev[to]) != cudaSuccess) {
    cudaGetLastError();
    return 0.0;
  }
  return ms * 1e-3;
}

/* HARQ: transmissions 1, 2, ... of the batch while a TB is still lost, each
 * on draws of its own (rng_harq_frame: the staged chain at those frame
 * numbers), the same TBs' coded bits at rv tb_harq_rv(t); its LLRs stay on
 * the device, and the TBs still lost alone combined, decoded and judged
 * there (gpu_coded_decode), their outcomes copied back. Its bit errors, fallbacks and losses are
 * left on the device, uncounted: the point's BER and GMI are the first
 * transmission's, already copied out. */
int run_harq(cuda_state *s, const gpu_link &g0, batch_result *out) {
  for (int t = 1; t < s->coded.harq; t++) {
    int lost = 0;
    for (uint64_t f = 0; f < g0.frames && !lost; f++) lost = out->coded[f].harq_error != 0;
    if (!lost) break;
    gpu_link g = g0;
    g.first_frame = rng_harq_frame(g0.first_frame, t);
    if (gpu_coded_encode(g, &s->coded, s->stream, t)) return -1;
    if (run_detect(s, g, s->cap_llr, NULL, 0, 0)) return -1;
    if (gpu_coded_decode(g, &s->coded, s->cap_llr, NULL, s->stream, t, out->coded)) return -1;
    CUDA_TRY(cudaStreamSynchronize(s->stream));
    gpu_coded_collect(g, &s->coded, s->coded.h_counts, out->coded, t);
  }
  return 0;
}

/* Launches a batch into slot k: its kernels, then the copies of its
 * counters to the slot's pinned buffers and EV_DONE, all queued on the
 * stream; nothing waits. want names the outputs (its LLR and bit buffers,
 * where set, are written by the stream: the caller waits for EV_DONE). The
 * coded link's TBs are encoded, decoded and judged on the device by the
 * stream; finish_batch reads their outcomes. */
int launch_batch(backend *b, uint64_t first_frame, uint64_t frames, const batch_result *want, int k) {
  cuda_state *s = static_cast<cuda_state *>(b->impl);
  batch_slot &sl = s->slot[k];
  char why[160];
  if (frames == 0 || frames > s->cap_frames) {
    snprintf(why, sizeof why, "batch of %llu frames, this backend takes 1..%llu",
             (unsigned long long)frames, (unsigned long long)s->cap_frames);
    return bad_run(__LINE__, why);
  }
  if (first_frame + frames > RNG_MAX_FRAMES) {
    snprintf(why, sizeof why, "frames up to %llu, the random streams end at 2^%d",
             (unsigned long long)(first_frame + frames), RNG_FRAME_BITS);
    return bad_run(__LINE__, why);
  }
  gpu_link g = s->g;
  g.first_frame = first_frame;
  g.frames = frames;
  g.R = frames * g.rf;
  g.hsrc = g.model == CH_TDL ? HSRC_TABLE : HSRC_DRAW; /* what the fused kernels read */
  g.ysrc = s->td_transform ? YSRC_NOISE : s->have_fft_td ? YSRC_BUFFER : YSRC_COMPUTE;
  /* fused with LS: the per-RE kernels take their channel from the batch's
   * estimates (the staged mode's Hhat stack holds it there) */
  if (!s->staged && s->est.on) g.est = s->est;
  sl.g = g;
  s->ev = sl.ev;
  const size_t counters = sizeof(uint32_t) * (size_t)frames * (size_t)g.tx;
  const size_t fb_bytes = sizeof(uint32_t) * (size_t)frames;
  const size_t list_len = s->staged ? 0 : sizeof(uint32_t); /* the repair list's length */
  CUDA_TRY(cudaMemsetAsync(s->errors, 0, counters + fb_bytes + list_len, s->stream));
  const int coded = s->coded.on; /* staged, with soft outputs (backend_cuda_create) */
  const int capture = want->llr || want->bits;
  /* zf or mmse LLRs that nothing takes (receiver.gmi = none, uncoded, no
   * export): the batch is the hard link's, on its kernels (the decisions
   * are x_hat's either way: the same counts, without the demapper). The
   * joint detectors keep their soft search, whose decisions are the CPU's. */
  if (g.llr != LLR_OFF && link_detector_is_linear((eq_kind)g.equalizer) && !coded && !capture && !want->gmi_loss &&
      !want->gmi_loss_s)
    g.llr = LLR_OFF;
  /* zf or mmse LLRs taken by their GMI at s = 1 alone (receiver.gmi = s1,
   * uncoded, no export): the fused kernel's Soft instances, where they
   * cover the link; the grid (gmi = sup) and exports stay on the detect
   * kernel */
  const int fused_soft = !s->staged && g.llr != LLR_OFF && !coded && !capture && want->gmi_loss &&
                         !want->gmi_loss_s && gpu_fused_soft_covers(g);
  /* (hard mmse-sic: the fused kernel, or the staged detect kernel) */
  const int detect = !fused_soft && (coded || g.llr != LLR_OFF ||
                                     (s->staged && !link_detector_is_linear((eq_kind)g.equalizer)));
  const int keep_llr = capture || coded; /* the coded link decodes them on the device */
  /* The LLRs, the bits and fetch's buffers go by cudaMemcpyDefault: host
   * memory or, for a library caller (api/), device memory of this GPU. */
  /* the coded link's at the capacity at once (its sizing counted them):
   * no batch in flight waits for a larger one's */
  if (keep_llr && capture_room(s, g, coded ? (size_t)(s->cap_frames * g.rf) : (size_t)g.R)) return -1;
  if (coded && gpu_coded_encode(g, &s->coded, s->stream)) return -1;
  if (detect ? run_detect(s, g, keep_llr ? s->cap_llr : NULL, capture ? s->cap_bits : NULL, want->gmi_loss != NULL,
                          want->gmi_loss_s != NULL)
             : s->staged ? run_staged(s, g) : run_fused(s, g, fused_soft ? s->loss : NULL))
    return -1;
  const int decode = coded && want->coded; /* NULL: the LLRs alone (an export) */
  sl.decoded = decode;
  if (decode && gpu_coded_decode(g, &s->coded, s->cap_llr, sl.host_counts, s->stream)) return -1;
  if (coded) CUDA_TRY(cudaEventRecord(s->ev[EV_DECODE], s->stream));
  /* the counters, then the fallbacks right behind them: one copy */
  CUDA_TRY(cudaMemcpyAsync(sl.host, s->errors, counters + fb_bytes, cudaMemcpyDeviceToHost, s->stream));
  if (want->gmi_loss)
    CUDA_TRY(cudaMemcpyAsync(sl.host_loss, s->loss, sizeof(uint64_t) * frames * (size_t)g.tx,
                             cudaMemcpyDeviceToHost, s->stream));
  if (want->gmi_loss_s)
    CUDA_TRY(cudaMemcpyAsync(sl.host_loss_s, s->loss_s, sizeof(uint64_t) * frames * GMI_GRID,
                             cudaMemcpyDeviceToHost, s->stream));
  const size_t cap_n = (size_t)(frames * g.df) * (size_t)g.tx * (size_t)g.bps; /* data REs only */
  if (want->llr)
    CUDA_TRY(cudaMemcpyAsync(want->llr, s->cap_llr, sizeof(float) * cap_n, cudaMemcpyDefault, s->stream));
  if (want->bits)
    CUDA_TRY(cudaMemcpyAsync(want->bits, s->cap_bits, cap_n, cudaMemcpyDefault, s->stream));
  CUDA_TRY(cudaEventRecord(sl.ev[EV_DONE], s->stream));
  return 0;
}

/* Waits for slot k's batch and gives its counts in out (the outputs it was
 * launched for): the counters from the pinned copies, the stage times from
 * its events, the coded link's outcomes of its TBs, then HARQ's
 * retransmissions (synchronous: each waits for the last's outcomes). */
int finish_batch(backend *b, int k, batch_result *out) {
  cuda_state *s = static_cast<cuda_state *>(b->impl);
  batch_slot &sl = s->slot[k];
  const gpu_link &g = sl.g;
  const uint64_t frames = g.frames;
  CUDA_TRY(cudaEventSynchronize(sl.ev[EV_DONE]));
  s->ev = sl.ev;
  memcpy(out->errors, sl.host, sizeof(uint32_t) * (size_t)frames * (size_t)g.tx);
  if (out->fallbacks) memcpy(out->fallbacks, sl.host + (size_t)frames * (size_t)g.tx, sizeof(uint32_t) * frames);
  if (out->gmi_loss) memcpy(out->gmi_loss, sl.host_loss, sizeof(uint64_t) * frames * (size_t)g.tx);
  if (out->gmi_loss_s) memcpy(out->gmi_loss_s, sl.host_loss_s, sizeof(uint64_t) * frames * GMI_GRID);
  const int coded = s->coded.on, decode = sl.decoded && out->coded;
  if (decode) gpu_coded_collect(g, &s->coded, sl.host_counts, out->coded);
  if (s->staged) {
    out->t.draw = elapsed_s(s, EV_START, EV_DRAW);
    out->t.channel = elapsed_s(s, EV_DRAW, EV_CHANNEL);
    out->t.gram = elapsed_s(s, EV_CHANNEL, EV_GRAM);
    out->t.invert = elapsed_s(s, EV_GRAM, EV_INVERT);
    out->t.equalize = elapsed_s(s, EV_INVERT, EV_EQUALIZE);
    out->t.demap = elapsed_s(s, EV_EQUALIZE, EV_DEMAP);
    if (coded) out->t.demap += elapsed_s(s, EV_DEMAP, EV_DECODE); /* de-rate-matching and decoding */
  } else {
    out->t.draw = elapsed_s(s, EV_START, EV_DRAW);
    out->t.channel = elapsed_s(s, EV_DRAW, EV_CHANNEL);
    out->t.invert = elapsed_s(s, EV_CHANNEL, EV_INVERT);
  }
  /* HARQ's retransmissions after the first's times are read (they record
   * the same events again): their whole time goes to demap */
  if (decode && s->coded.harq > 1) {
    const double h0 = clock_seconds();
    if (run_harq(s, g, out)) return -1;
    out->t.demap += clock_seconds() - h0;
  }
  out->inversions = g.R * link_inversions_per_re(&b->p);
  return 0;
}

/* One batch start to end (backend_run: nothing in flight, slot 0 free). */
int run_batch(backend *b, uint64_t first_frame, uint64_t frames, batch_result *out) {
  if (launch_batch(b, first_frame, frames, out, 0)) return -1;
  return finish_batch(b, 0, out);
}

/* Submitted batches queue in the slots, oldest at head. A coded batch with
 * HARQ (its retransmissions are sent from finish_batch, on the device
 * buffers the next batch would use) and every batch of a backend made with
 * the sync option are deferred: run whole at their collect, as the shell
 * does for a backend without submit. A coded batch without HARQ runs ahead
 * like the others: its TBs' outcomes land in its slot's pinned counters. */
int submit_batch(backend *b, uint64_t first_frame, uint64_t frames, const batch_result *want) {
  cuda_state *s = static_cast<cuda_state *>(b->impl);
  if (s->queued >= kSlots) return backend_fail(b, "cuda backend: %d batches in flight already", s->queued);
  const int k = (s->head + s->queued) % kSlots;
  batch_slot &sl = s->slot[k];
  sl.deferred = s->sync || (s->coded.on && s->coded.harq > 1);
  sl.first_frame = first_frame;
  sl.frames = frames;
  if (!sl.deferred && launch_batch(b, first_frame, frames, want, k)) return -1;
  s->queued++;
  return 0;
}

int collect_batch(backend *b, batch_result *out) {
  cuda_state *s = static_cast<cuda_state *>(b->impl);
  if (s->queued == 0) return backend_fail(b, "cuda backend: no batch in flight to collect");
  const int k = s->head;
  s->head = (s->head + 1) % kSlots;
  s->queued--;
  batch_slot &sl = s->slot[k];
  if (sl.deferred && launch_batch(b, sl.first_frame, sl.frames, out, k)) return -1;
  return finish_batch(b, k, out);
}

int fetch_buffer(backend *b, backend_buffer which, cf32 *dst, size_t count) {
  cuda_state *s = static_cast<cuda_state *>(b->impl);
  const cf32 *src = backend_buffer_pick(which, s->x, s->H, s->y, s->xhat, s->Ginv, s->Hhat ? s->Hhat : s->H);
  const size_t need = backend_buffer_elements(&b->p, which, b->last_frames);
  /* Fused batches materialise none of these: src is NULL there. */
  if (!src) return backend_fail(b, "cuda backend: buffer %d is not kept in %s mode", (int)which,
                                s->staged ? "staged" : "fused");
  if (!dst || need == 0 || count != need)
    return backend_fail(b, "cuda backend: fetch of %zu elements, the batch has %zu", count, need);
  CUDA_TRY(cudaMemcpyAsync(dst, src, sizeof(cf32) * need, cudaMemcpyDefault, s->stream));
  CUDA_TRY(cudaStreamSynchronize(s->stream));
  return 0;
}

/* The interface's error convention: the reason of a -1 goes to backend_error. */
int cuda_run(backend *b, uint64_t first_frame, uint64_t frames, batch_result *out) {
  if (run_batch(b, first_frame, frames, out) == 0) return 0;
  return b->error[0] ? -1 : backend_fail(b, "cuda backend: %s", gpu_last_error());
}

int cuda_fetch(backend *b, backend_buffer which, cf32 *dst, size_t count) {
  if (fetch_buffer(b, which, dst, count) == 0) return 0;
  return b->error[0] ? -1 : backend_fail(b, "cuda backend: %s", gpu_last_error());
}

int cuda_submit(backend *b, uint64_t first_frame, uint64_t frames, const batch_result *want) {
  if (submit_batch(b, first_frame, frames, want) == 0) return 0;
  return b->error[0] ? -1 : backend_fail(b, "cuda backend: %s", gpu_last_error());
}

int cuda_collect(backend *b, batch_result *out) {
  if (collect_batch(b, out) == 0) return 0;
  return b->error[0] ? -1 : backend_fail(b, "cuda backend: %s", gpu_last_error());
}

/* The batches in flight are dropped unread; the stream is waited for, so
 * that the next batch's times and the next point's start are its own. */
void cuda_discard(backend *b) {
  cuda_state *s = static_cast<cuda_state *>(b->impl);
  if (cudaStreamSynchronize(s->stream) != cudaSuccess) cudaGetLastError();
  s->head = s->queued = 0;
}

const struct backend_ops cuda_ops = {"cuda",      cuda_max_frames, cuda_run,    cuda_fetch,
                                     cuda_destroy, cuda_submit,     cuda_collect, cuda_discard};

/* ---- creation ---------------------------------------------------------------- */


gpu_link make_link(const link_params *p, const chan_spatial *sp, const tdl_grid *grid) {
  gpu_link g;
  memset(&g, 0, sizeof g);
  g.re = re_ctx_of(p, sp);
  g.tx = p->tx;
  g.rx = p->rx;
  g.links = p->tx * p->rx;
  g.bps = p->bps;
  g.K = p->subcarriers;
  g.S = p->symbols;
  g.cp = p->domain == DOMAIN_TIME ? p->cp_length : 0;
  g.L = p->model == CH_TDL ? p->pdp.taps : 0;
  g.model = p->model;
  g.rf = link_res_per_frame(p);
  g.df = link_data_res_per_frame(p);
  g.nf = (uint64_t)p->symbols * (uint64_t)(p->subcarriers + g.cp);
  /* The CPU's conversions: float of the double square roots. */
  g.noise_std = p->n0 > 0.0 ? (float)sqrt(p->n0) : 0.0f;
  g.n0r = (float)link_receiver_n0(p);
  g.diag = link_mmse_diagonal(p);
  g.unbias = p->equalizer == EQ_MMSE && p->bps > 2;
  g.equalizer = (int)p->equalizer;
  g.llr = (int)p->llr;
  g.kbest_k = p->kbest_k;
  g.llr_clip = (float)p->llr_clip;
  g.td_scale = (float)(1.0 / sqrt((double)p->subcarriers));
  if (p->model == CH_TDL) {
    g.fade = tdl_fade_of(p);
    g.fading = g.fade.nu > 0.0;
    g.cdl = link_is_cdl(p);
    g.fade_terms = tdl_fade_terms(p);
    g.cp_frame = p->cp_length;
    g.hk_span = g.fading ? g.rf : (uint64_t)p->subcarriers;
    g.poly_len = tap_poly_len(g.fade.nu, g.nf);
    g.poly_segs = tap_poly_segments(g.poly_len, g.nf);
    if (p->domain == DOMAIN_TIME) {
      g.td_taps = g.fading ? 0 : grid->td_taps;
      g.td_max_delay = g.td_taps > 0 ? grid->td_delay[g.td_taps - 1] : 0;
      g.td_shift = grid->td_shift % p->subcarriers;
      /* the tiled Doppler convolution stages this many samples before its outputs */
      g.fade_reach = -1;
      if (g.fading)
        for (int l = 0; l < g.L; l++)
          if (grid->tap_count[l] > 0 && grid->tap_first[l] + grid->tap_count[l] - 1 > g.fade_reach)
            g.fade_reach = grid->tap_first[l] + grid->tap_count[l] - 1;
    }
  }
  return g;
}

/* The transforms of `frames` frames; their shared work-area need in *work. */
int make_ffts(cuda_state *s, const link_params *p, uint64_t frames, size_t *work) {
  size_t w = 0;
  *work = 0;
  if (p->domain == DOMAIN_TIME) {
    s->have_fft_td = 1;
    if (gpu_fft_set_create(&s->fft_tx, p->subcarriers, p->tx * p->symbols, CUFFT_INVERSE, frames,
                           &w))
      return -1;
    if (w > *work) *work = w;
    if (gpu_fft_set_create(&s->fft_rx, p->subcarriers, p->rx * p->symbols, CUFFT_FORWARD, frames,
                           &w))
      return -1;
    if (w > *work) *work = w;
  }
  return 0;
}

void drop_ffts(cuda_state *s) {
  if (s->have_fft_td) {
    gpu_fft_set_destroy(&s->fft_tx);
    gpu_fft_set_destroy(&s->fft_rx);
  }
  s->have_fft_td = 0;
}

/* Copies the library's last failure line into err. */
void failed(char *err, size_t errlen, const char *what) {
  snprintf(err, errlen, "cuda backend: %s: %s", what, gpu_last_error());
}

/* The largest batch that fits the memory budget (70% of the free device
 * memory, or gpu_memory_mb when smaller) and the caps, with its transforms
 * planned: sets s->cap_frames and *work (the shared work area). 0, or -1 with
 * a message in err. */
int size_batch(cuda_state *s, const link_params *p, const cuda_options &o, uint64_t max_batch_frames,
               size_t *work, char *err, size_t errlen) {
  size_t free_b = 0, total_b = 0;
  if (gpu_cuda_failed(cudaMemGetInfo(&free_b, &total_b), __FILE__, __LINE__,
                      "cudaMemGetInfo(&free_b, &total_b)", 0)) {
    failed(err, errlen, "cannot query device memory");
    return -1;
  }
  double budget = kFreeMemoryShare * (double)free_b;
  char budget_src[96];
  snprintf(budget_src, sizeof budget_src, "%.0f%% of the %.1f MB free", 100 * kFreeMemoryShare,
           free_b / 1048576.0);
  if (o.memory_mb && (double)o.memory_mb * 1048576.0 < budget) {
    budget = (double)o.memory_mb * 1048576.0;
    snprintf(budget_src, sizeof budget_src, "gpu_memory_mb = %llu", (unsigned long long)o.memory_mb);
  }
  const uint64_t rf = link_res_per_frame(p);
  const uint64_t batch_res = s->staged ? kStagedBatchRes : kFusedBatchRes;
  uint64_t frames = batch_res / rf ? batch_res / rf : 1;
  if (frames > kMaxBatchFrames) frames = kMaxBatchFrames;
  if (max_batch_frames && frames > max_batch_frames) frames = max_batch_frames;
  /* Bytes a frame from two layouts; the transforms' work area and the plans'
   * own tables (read off the free memory around their creation: the
   * library's code too, the first time) only planning tells, so plan, check,
   * and shrink until everything fits. */
  const int D = s->g.td_taps;
  const size_t fixed = plan_layout(p, s->staged, 0, 0, D, &s->eplan).total;
  const double per_frame = (double)(plan_layout(p, s->staged, 1, 0, D, &s->eplan).total - fixed);
  const double fit = floor((budget - (double)fixed) / per_frame);
  if (fit < (double)frames) frames = fit > 0 ? (uint64_t)fit : 0;
  size_t plan_bytes = 0;
  *work = 0;
  for (;;) {
    if (frames < 1) {
      snprintf(err, errlen,
               "cuda backend: one frame of %llu REs (%d x %d, %s mode) needs %.1f MB of device "
               "memory, more than the %.1f MB allowed (%s)",
               (unsigned long long)rf, p->tx, p->rx, s->staged ? "staged" : "fused",
               (per_frame + (double)(fixed + *work + plan_bytes)) / 1048576.0,
               budget / 1048576.0, budget_src);
      return -1;
    }
    size_t free_before = 0, free_after = 0;
    if (gpu_cuda_failed(cudaMemGetInfo(&free_before, &total_b), __FILE__, __LINE__,
                        "cudaMemGetInfo(&free_before, &total_b)", 0) ||
        make_ffts(s, p, frames, work) ||
        gpu_cuda_failed(cudaMemGetInfo(&free_after, &total_b), __FILE__, __LINE__,
                        "cudaMemGetInfo(&free_after, &total_b)", 0)) {
      failed(err, errlen, "cannot plan the batched FFTs");
      return -1;
    }
    plan_bytes = free_before > free_after ? free_before - free_after : 0;
    const layout l = plan_layout(p, s->staged, frames, *work, D, &s->eplan);
    if ((double)l.total + (double)plan_bytes <= budget) break;
    drop_ffts(s);
    const double refit =
        floor((budget - (double)(fixed + *work + plan_bytes)) / per_frame);
    const uint64_t next = refit > 0 ? (uint64_t)refit : 0;
    frames = next < frames ? next : frames - 1;
  }
  s->cap_frames = frames;
  return 0;
}

/* The stream, the events, one allocation carved into the batch's buffers, the
 * transforms' work area and the link's tables. 0, or -1 after reporting. */
int allocate(cuda_state *s, const link_params *p, const chan_spatial *sp, const tdl_grid *grid, size_t work) {
  const layout l = plan_layout(p, s->staged, s->cap_frames, work, s->g.td_taps, &s->eplan);
  CUDA_TRY(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
  const size_t frames = (size_t)s->cap_frames, tx = (size_t)p->tx;
  for (int k = 0; k < kSlots; k++) {
    batch_slot &sl = s->slot[k];
    for (; sl.events_made < EV_COUNT; sl.events_made++) CUDA_TRY(cudaEventCreate(&sl.ev[sl.events_made]));
    CUDA_TRY(cudaMallocHost(&sl.host, sizeof(uint32_t) * frames * (tx + 1)));
    if (p->llr != LLR_OFF) {
      CUDA_TRY(cudaMallocHost(&sl.host_loss, sizeof(unsigned long long) * frames * tx));
      CUDA_TRY(cudaMallocHost(&sl.host_loss_s, sizeof(unsigned long long) * frames * GMI_GRID));
    }
    if (link_coded(p)) CUDA_TRY(cudaMallocHost(&sl.host_counts, sizeof(gpu_tb_counts) * frames));
  }
  s->ev = s->slot[0].ev;
  CUDA_TRY(cudaMalloc(&s->pool, l.total));
  s->consts = carve<gpu_consts>(s->pool, l.consts);
  s->errors = carve<uint32_t>(s->pool, l.errors);
  s->loss = carve<unsigned long long>(s->pool, l.loss);
  s->loss_s = carve<unsigned long long>(s->pool, l.loss_s);
  s->labels = carve<uint8_t>(s->pool, l.labels);
  s->x = carve<cf32>(s->pool, l.x);
  s->H = carve<cf32>(s->pool, l.H);
  s->Hhat = carve<cf32>(s->pool, l.Hhat);
  s->y = carve<cf32>(s->pool, l.y);
  s->G = carve<cf32>(s->pool, l.G);
  s->Ginv = carve<cf32>(s->pool, l.Ginv);
  s->z = carve<cf32>(s->pool, l.z);
  s->xhat = carve<cf32>(s->pool, l.xhat);
  s->tdl.taps = carve<cf32>(s->pool, l.taps);
  s->tdl.sos = carve<sos_term>(s->pool, l.sos);
  s->tdl.win = carve<float>(s->pool, l.win);
  cf32 *resp = carve<cf32>(s->pool, l.resp);
  s->tdl.resp = resp;
  s->tdl.Hk = carve<cf32>(s->pool, l.Hk);
  int *td_delay = carve<int>(s->pool, l.td_delay);
  float *td_coef = carve<float>(s->pool, l.td_coef);
  s->tdl.td_delay = td_delay;
  s->tdl.td_coef = td_coef;
  s->tdl.dtaps = carve<cf32>(s->pool, l.dtaps);
  s->tdl.poly = carve<cf32>(s->pool, l.poly);
  if (s->eplan.taps) {
    const est_plan &e = s->eplan;
    int *first = carve<int>(s->pool, l.est_first), *lo = carve<int>(s->pool, l.est_lo);
    cf32 *w = carve<cf32>(s->pool, l.est_w);
    float *wl = carve<float>(s->pool, l.est_wl);
    const size_t n = (size_t)e.tx * (size_t)e.K;
    CUDA_TRY(cudaMemcpyAsync(first, e.first, sizeof(int) * n, cudaMemcpyHostToDevice, s->stream));
    if (e.tt) { /* lmmse2d: transposed to [tx][S][tt][taps][K] for coalesced reads (est_2d_at) */
      const size_t S = (size_t)p->symbols, TT = (size_t)e.tt * (size_t)e.taps;
      std::vector<cf32> wt(n * S * TT);
      for (size_t ts = 0; ts < (size_t)e.tx * S; ts++)
        for (size_t k = 0; k < (size_t)e.K; k++)
          for (size_t q = 0; q < TT; q++) wt[(ts * TT + q) * e.K + k] = e.w[(ts * e.K + k) * TT + q];
      CUDA_TRY(cudaMemcpy(w, wt.data(), sizeof(cf32) * wt.size(), cudaMemcpyHostToDevice));
    } else { /* transposed to [tx][taps][K] for the kernels' coalesced reads (est_freq_at) */
      std::vector<cf32> wt(n * (size_t)e.taps);
      for (int t = 0; t < e.tx; t++)
        for (int k = 0; k < e.K; k++)
          for (int i = 0; i < e.taps; i++)
            wt[((size_t)t * e.taps + i) * e.K + k] = e.w[((size_t)t * e.K + k) * e.taps + i];
      CUDA_TRY(cudaMemcpy(w, wt.data(), sizeof(cf32) * wt.size(), cudaMemcpyHostToDevice));
    }
    CUDA_TRY(cudaMemcpyAsync(lo, e.sym_lo, sizeof(int) * (size_t)p->symbols, cudaMemcpyHostToDevice, s->stream));
    CUDA_TRY(cudaMemcpyAsync(wl, e.sym_w, sizeof(float) * (size_t)p->symbols, cudaMemcpyHostToDevice, s->stream));
    const pilot_grid pg = link_pilot_grid(p);
    s->est = gpu_est{first, w, lo, wl, carve<cf32>(s->pool, l.hp), e.taps, e.pilot_syms, p->pilot_spacing,
                     (float)e.shrink, carve<cf32>(s->pool, l.est_ls), e.np, carve<cf32>(s->pool, l.est_yp),
                     pilot_symbol_count(&pg), e.tt, 1};
  }
  if (p->pilot_kind == PILOT_DMRS) {
    /* the DMRS sequence in device memory, where the kernels' re ctx reads it */
    dmrs_grid *d = &s->g.re.pilots.dm;
    const size_t words = (size_t)(d->occasions * d->len) * (size_t)d->seq_words;
    uint32_t *dev = carve<uint32_t>(s->pool, l.dmrs_seq), *host = (uint32_t *)malloc(sizeof(uint32_t) * words);
    if (!host) CUDA_TRY(cudaErrorMemoryAllocation);
    dmrs_fill_sequence(d, p->dmrs_nid, host);
    const cudaError_t rc = cudaMemcpy(dev, host, sizeof(uint32_t) * words, cudaMemcpyHostToDevice);
    free(host);
    CUDA_TRY(rc);
    d->seq = dev;
  }
  s->xt = carve<cf32>(s->pool, l.xt);
  s->yt = carve<cf32>(s->pool, l.yt);
  s->fft_work = carve<void>(s->pool, l.work);
  if (s->have_fft_td && (gpu_fft_set_attach(&s->fft_tx, s->fft_work, s->stream) ||
                         gpu_fft_set_attach(&s->fft_rx, s->fft_work, s->stream)))
    return -1;
  gpu_consts hc;
  memset(&hc, 0, sizeof hc);
  hc.spatial = *sp;
  if (p->model == CH_TDL) {
    const int L = p->pdp.taps;
    for (int i = 0; i < L; i++) {
      hc.amp[i] = sqrtf(p->pdp.power[i]);
      hc.tap_first[i] = grid->tap_first[i];
      hc.tap_count[i] = grid->tap_count[i];
      for (int j = 0; j < grid->tap_count[i]; j++) hc.tap_coef[i][j] = grid->tap_coef[i][j];
    }
    /* a cdl point's geometry (link_params_check vouched for its arrays) */
    char why[160];
    if (link_is_cdl(p) && cdl_geom_make(p, &hc.cdl, why, sizeof why)) return -1;
    CUDA_TRY(cudaMemcpyAsync(resp, grid->resp, sizeof(cf32) * (size_t)L * grid->K, cudaMemcpyHostToDevice,
                             s->stream));
    if (td_delay) {
      CUDA_TRY(cudaMemcpyAsync(td_delay, grid->td_delay, sizeof(int) * (size_t)grid->td_taps,
                               cudaMemcpyHostToDevice, s->stream));
      CUDA_TRY(cudaMemcpyAsync(td_coef, grid->td_coef, sizeof(float) * (size_t)grid->td_taps * L,
                               cudaMemcpyHostToDevice, s->stream));
    }
  }
  CUDA_TRY(cudaMemcpyAsync(s->consts, &hc, sizeof hc, cudaMemcpyHostToDevice, s->stream));
  CUDA_TRY(cudaStreamSynchronize(s->stream));
  return 0;
}

}  // namespace

extern "C" int backend_cuda_available(char *why, size_t whylen) {
  if (gpu_device_count(why, whylen) < 1) return 0;
  return gpu_link_kernels_loadable(why, whylen) == 0;
}

extern "C" int backend_cuda_covers(const link_params *p) {
  return !link_coded(p) || p->llr != LLR_OFF;
}

extern "C" void backend_cuda_describe(char *out, size_t n) {
  gpu_info g;
  char why[256];
  if (gpu_query(gpu_current_device(), &g, why, sizeof why) == 0)
    snprintf(out, n, "%s (compute %d.%d, %d SMs), driver %d, runtime %d", g.name, g.cc_major, g.cc_minor,
             g.sm_count, g.driver_version, g.runtime_version);
  else
    snprintf(out, n, "cuda");
}

/* The GPUs of the node before backend_cuda_pin_rank narrowed them to one
 * (0: not narrowed). */
static int g_pinned_from = 0;

/* The GPUs the driver shows this process, counted without a CUDA call (the
 * call would bring every one of them up): the entries of
 * CUDA_VISIBLE_DEVICES, else the driver's list of GPUs; 0 when unknown. */
static int gpus_without_cuda(char entries[][64], int max) {
  const char *vis = getenv("CUDA_VISIBLE_DEVICES");
  int n = 0;
  if (vis) {
    for (const char *p = vis; *p && n < max;) {
      const size_t len = strcspn(p, ",");
      if (len == 0 || len >= 64) return 0; /* an odd list: leave it as it is */
      memcpy(entries[n], p, len);
      entries[n++][len] = '\0';
      p += len + (p[len] == ',');
    }
    return n;
  }
  DIR *d = opendir("/proc/driver/nvidia/gpus");
  if (!d) return 0;
  for (const struct dirent *e; (e = readdir(d)) && n < max;)
    if (e->d_name[0] != '.') snprintf(entries[n], 64, "%d", n), n++;
  closedir(d);
  return n;
}

extern "C" void backend_cuda_pin_rank(int local_rank, int local_size) {
  const char *pin = getenv("OFDMSIM_GPU_PIN");
  if (local_size < 2 || (pin && !strcmp(pin, "0"))) return;
  char entries[64][64];
  const int n = gpus_without_cuda(entries, 64);
  if (n < 2) return;
  /* CUDA numbers the devices of CUDA_VISIBLE_DEVICES in the order of the
   * unnarrowed numbering, so entry k is the device cudaSetDevice(k) took */
  if (setenv("CUDA_VISIBLE_DEVICES", entries[local_rank % n], 1) == 0) g_pinned_from = n;
}

extern "C" int backend_cuda_bind_rank(int local_rank, int local_size, char *note, size_t notelen) {
  note[0] = '\0';
  char why[256];
  const int count = gpu_device_count(why, sizeof why);
  if (count < 1) return 0;
  if (gpu_use_device(g_pinned_from ? 0 : local_rank % count, note, notelen)) return -1;
  const int node = g_pinned_from ? g_pinned_from : count;
  if (local_size > node && local_rank == 0)
    snprintf(note, notelen, "%d ranks on this node share its %d GPU%s", local_size, node, node == 1 ? "" : "s");
  return 0;
}

extern "C" backend *backend_cuda_create(const link_params *p, const backend_options *opt,
                                             char *err, size_t errlen) {
  /* OFDMSIM_GPU_SYNC=1: every batch whole, one at a time (the counts are
   * the same either way: tests compare the two). OFDMSIM_GPU_STAGED=1: the
   * staged mode wherever the fused one would run (the same counts: the
   * benches time the two in one call) */
  const char *sync_env = getenv("OFDMSIM_GPU_SYNC"), *staged_env = getenv("OFDMSIM_GPU_STAGED");
  cuda_options o = {0, staged_env && !strcmp(staged_env, "1"), 0, sync_env && !strcmp(sync_env, "1")};
  if (opt && backend_options_read(opt, "cuda", kCudaOptionSpecs,
                                  (int)(sizeof kCudaOptionSpecs / sizeof *kCudaOptionSpecs), &o, err, errlen))
    return NULL;
  if (link_coded(p) && !backend_cuda_covers(p)) {
    /* the decoder needs the receiver's LLRs; "auto" runs such a point on
     * the CPU */
    snprintf(err, errlen, "cuda backend: the coded link runs here with soft outputs (llr maxlog or exact); this point "
             "runs on the cpu backend");
    return NULL;
  }
  int joint;
  if (gpu_joint_from_env(&joint, err, errlen)) return NULL;
  gpu_joint_select(joint); /* the same value for every backend of the process */
  backend *b = backend_alloc(&cuda_ops, p, opt, sizeof(cuda_state), err, errlen);
  if (!b) return NULL;
  char why[400];
  if (gpu_shape_check(p->tx, p->rx, why, sizeof why)) {
    snprintf(err, errlen, "cuda backend: %s", why);
    cuda_destroy(b);
    return NULL;
  }
  cuda_state *s = static_cast<cuda_state *>(b->impl);
  chan_spatial sp;
  tdl_grid grid; /* tdl: the point's response tables, uploaded by allocate */
  memset(&grid, 0, sizeof grid);
  if (chan_spatial_init(p, &sp, err, errlen) || (p->model == CH_TDL && tdl_grid_make(p, &grid, err, errlen))) {
    cuda_destroy(b);
    return NULL;
  }
  if (p->estimation == EST_LS &&
      (est_plan_make(p, &s->eplan, err, errlen) || est_plan_matches(&s->eplan, p, err, errlen))) {
    tdl_grid_free(&grid);
    cuda_destroy(b);
    return NULL;
  }
  /* kbest, ml and soft mmse-sic run over the staged stacks (detect_gpu.cu);
   * hard mmse-sic is one more receiver of the fused kernel (fused_gpu.cu);
   * pilots and LS estimation run fused (the estimate on the pilot symbols in
   * a first pass, gpu_launch_fused_estimate) */
  s->staged = o.staged != 0 || !link_fused_receiver(p) ||
              (p->equalizer == EQ_MMSE_SIC && p->tx > GPU_FUSED_SIC_MAX_TX);
  s->sync = o.sync;
  /* the coded link writes its labels between the staged draw and channel
   * stages, which the fused kernel does not separate */
  if (link_coded(p)) s->staged = 1;
  s->g = make_link(p, &sp, &grid);
  int device = 0;
  if (gpu_cuda_failed(cudaGetDevice(&device), __FILE__, __LINE__, "cudaGetDevice(&device)", 0) ||
      gpu_cuda_failed(cudaDeviceGetAttribute(&s->g.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
                      __FILE__, __LINE__, "cudaDeviceGetAttribute(MaxSharedMemoryPerBlockOptin)", 0) ||
      gpu_cuda_failed(cudaDeviceGetAttribute(&s->g.sm_count, cudaDevAttrMultiProcessorCount, device), __FILE__,
                      __LINE__, "cudaDeviceGetAttribute(MultiProcessorCount)", 0)) {
    failed(err, errlen, "cannot query the device");
    tdl_grid_free(&grid);
    cuda_destroy(b);
    return NULL;
  }
  s->td_transform = p->domain == DOMAIN_TIME && !s->staged && !o.td_direct &&
                    gpu_td_transform_applies(s->g);
  if (p->domain == DOMAIN_TIME) b->td_path = s->td_transform ? "CP-aligned transform" : "sample by sample";
  size_t work = 0;
  uint64_t max_frames = opt->max_batch_frames;
  if (link_coded(p)) {
    /* the coded batch's buffers outside the pool: LLRs and coded_gpu's */
    const double per = (double)gpu_coded_bytes_per_frame(p) +
                       (double)link_res_per_frame(p) * (double)p->tx * (double)p->bps * (sizeof(float) + 1);
    const uint64_t cap = (uint64_t)fmax(1.0, floor(kCodedBatchBytes / per));
    if (!max_frames || cap < max_frames) max_frames = cap;
  }
  int rc = size_batch(s, p, o, max_frames, &work, err, errlen);
  if (!rc && allocate(s, p, &sp, &grid, work)) {
    char what[160];
    snprintf(what, sizeof what, "cannot set up %.1f MB for a batch of %llu frames",
             plan_layout(p, s->staged, s->cap_frames, work, s->g.td_taps, &s->eplan).total / 1048576.0,
             (unsigned long long)s->cap_frames);
    failed(err, errlen, what);
    rc = -1;
  }
  tdl_grid_free(&grid);
  if (!rc && link_coded(p) && gpu_coded_init(p, s->cap_frames, &s->coded, s->stream, err, errlen)) rc = -1;
  if (rc) {
    cuda_destroy(b);
    return NULL;
  }
  return b;
}
