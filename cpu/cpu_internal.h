/* Private to cpu/: the state of one CPU backend and the work decomposition
 * every per-frame loop shares. Buffers are struct-of-arrays over the batch's
 * R REs (element e of RE i at e*R + i), as the GPU's. */
#ifndef OFDMSIM_CPU_INTERNAL_H
#define OFDMSIM_CPU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "channel/estimate.h"
#include "channel/estimate_2d_block.h"
#include "channel/ofdm.h"
#include "channel/tdl.h"
#include "channel/tdl_grid.h"
#include "coding/tb_chain.h"
#include "core/backend.h"
#include "core/re.h"
#include "core/spatial.h"

/* REs per work item: large enough to amortise the loop overhead, small
 * enough that every thread gets several items. */
#define CPU_CHUNK 2048
/* REs a fused chunk carries through the whole link: its scratch (about 160
 * bytes a RE for 2x2, 600 for 4x4) stays within a core's L2. */
#define CPU_FUSED_CHUNK 1024

/* The coded link's state (coded_cpu.c). */
typedef struct cpu_coded {
  int on;
  tb_plan plan;
  int harq;                 /* transmissions at most (1: no HARQ) */
  tb_plan rplan[LINK_HARQ_MAX]; /* HARQ: transmission t's plan (rv tb_harq_rv(t)); [0] unused */
  float *cbuf;              /* HARQ: [frame][C Ncb] the TBs' combining buffers */
  uint32_t *errors;         /* HARQ: a retransmission's bit errors (not counted) */
  long *lost;               /* HARQ: [frame] the frames a retransmission decodes */
  ldpc_batch_decoder **dec; /* one per thread */
  unsigned char *scratch;   /* per thread: tb_chain's scratch, then the G coded bits */
  size_t scratch_stride;
  uint8_t *info;            /* [frame][A] the batch's information bits */
  float *llr;               /* [frame][G] the batch's LLRs (when the caller asks for none) */
} cpu_coded;

typedef struct cpu_state {
  chan_spatial spatial;
  re_ctx re;            /* the per-RE steps' view of the point */
  tdl_grid grid;        /* tdl: the response and time-domain tables of the taps */
  ofdm_modem *modem;    /* time domain */
  est_plan est;         /* estimation from pilots: its tables */
  est_2d_lanes *lanes2d; /* lmmse2d: est's weights lane-major (channel/estimate_2d_block.h) */
  cf32 *hp;             /* its scratch, per thread: est_scratch_elems */
  uint32_t *dmrs_seq;   /* DMRS: the sequence re.pilots.dm.seq points at */
  uint64_t cap_frames;  /* frames the buffers hold */
  int nthreads;
  uint8_t *labels;      /* [tx][R] transmitted labels */
  cf32 *x, *H, *Hhat, *y, *G, *Ginv, *z, *xhat;
  cf32 *taps;           /* tdl: [frame][links][L] of the batch */
  sos_term *sos;        /* tdl with Doppler: [frame][links][L][TDL_SOS_TERMS] */
  cf32 *Hk;             /* tdl, per thread: [links][K] */
  unsigned char *fused; /* the fused path (fused_cpu.c): per thread a block of
                           fused_stride bytes; NULL: the staged stages run */
  size_t fused_stride;
  cpu_coded coded;      /* p.code.type ldpc */
} cpu_state;

/* Work item `it` of a batch: a chunk of one frame, covering the frame-local
 * REs [m0, m0+n) at offset o of the batch. Chunks never cross a frame, so a
 * RE's place in its chunk depends on its frame-local index alone: every RE's
 * arithmetic (vector body or scalar tail) is the same for any batch size. */
typedef struct frame_chunk {
  uint64_t f, m0;
  size_t n, o;
} frame_chunk;

/* A batch of `frames` cut into items of one frame's chunk each: the loop
 * bounds every per-RE stage over the batch shares (R REs in all, rf a frame,
 * per_frame chunks a frame, items in all). */
typedef struct chunk_grid {
  uint64_t rf, per_frame;
  size_t R;
  long items;
} chunk_grid;

static inline chunk_grid cpu_chunk_grid(const link_params *p, uint64_t frames) {
  chunk_grid g;
  g.rf = link_res_per_frame(p);
  g.R = (size_t)(frames * g.rf);
  g.per_frame = (g.rf + CPU_CHUNK - 1) / CPU_CHUNK;
  g.items = (long)(frames * g.per_frame);
  return g;
}

static inline frame_chunk cpu_chunk_of(long it, uint64_t rf, uint64_t chunks_per_frame) {
  frame_chunk c;
  c.f = (uint64_t)it / chunks_per_frame;
  c.m0 = ((uint64_t)it % chunks_per_frame) * CPU_CHUNK;
  c.n = (size_t)((rf - c.m0) < CPU_CHUNK ? (rf - c.m0) : CPU_CHUNK);
  c.o = (size_t)(c.f * rf + c.m0);
  return c;
}

/* draws_cpu.c: labels, symbols and channels of a batch (the draw stage). */
void cpu_draw_stage(const link_params *p, cpu_state *s, uint64_t first_frame, uint64_t frames);
/* channel_cpu.c is the y = Hx + n stage (chan_apply); modem_cpu.c the
 * time-domain one: 0, or -1 when the modem's scratch cannot be had. */
int cpu_modem_stage(const link_params *p, cpu_state *s, uint64_t first_frame, uint64_t frames);
/* estimate_cpu.c: the receiver's channel Hhat from the pilots of y
 * (channel/estimate.h), frames in parallel. */
void cpu_estimate_stage(const link_params *p, cpu_state *s, uint64_t frames);
/* receiver_cpu.c: Gram, inversion, equalisation (times in t), then the hard
 * decisions counted per frame and stream into errors[f*tx + t]. */
void cpu_receiver_stage(const link_params *p, cpu_state *s, size_t R, stage_times *t);
void cpu_repair_flagged(const link_params *p, cpu_state *s, uint64_t frames, uint32_t *fallbacks,
                        stage_times *t);
void cpu_count_errors(const link_params *p, const cpu_state *s, uint64_t frames, uint32_t *errors);
/* Bit errors of stream decisions xh against labels lab over frame-local REs
 * [m0, m0+n) of a frame, data REs only (pilots are not counted). */
uint32_t cpu_chunk_bit_errors(const link_params *p, const pilot_grid *pilots, uint64_t m0, size_t n, const cf32 *xh,
                              const uint8_t *lab);
/* fused_cpu.c: whether the fused path covers p (zf or mmse, hard decisions
 * or LLRs with the GMI and their export; mmse-sic with hard decisions; the
 * receiver's channel known, with CSI error or LS-estimated from the pilots
 * (comb or NR DMRS), either domain; not the coded link), and a batch on it
 * (errors, fallbacks and losses added to out's, which backend_run zeroed):
 * 0, or -1 when the time-domain modem's scratch cannot be had. Its scratch: fused_cpu.h. */
int cpu_fused_covers(const link_params *p);
size_t cpu_fused_scratch_bytes(const link_params *p);
int cpu_fused_run(const link_params *p, cpu_state *s, uint64_t first_frame, uint64_t frames, batch_result *out);
/* detect_cpu.c: the joint detectors (mmse-sic, kbest, ml) of a batch, per RE
 * from Hhat and y: their decisions as symbols in xhat (cpu_count_errors
 * counts them), REs with a stage solved in double in out->fallbacks, and with
 * soft outputs the GMI losses (out->gmi_loss, and at the GMI grid's
 * scalings out->gmi_loss_s) and out->llr / out->bits. */
void cpu_detect_joint(const link_params *p, cpu_state *s, uint64_t frames, batch_result *out);
/* The soft outputs of zf and mmse from x_hat and each stream's variance
 * (the Gram inverse's diagonal): GMI losses (per stream, and at the GMI
 * grid's scalings), and LLRs and bits when asked. */
void cpu_soft_linear(const link_params *p, const cpu_state *s, uint64_t frames, batch_result *out);

/* coded_cpu.c: the coded link. Its state for batches of `frames` (0, or -1
 * with the reason), freed by cpu_coded_free; the TBs of a batch encoded into
 * the data REs' labels and symbols (after the draw stage); the batch's LLRs
 * (llr[f*G + ...], the layout of batch_result.llr) decoded into out[f]. */
int cpu_coded_init(const link_params *p, cpu_state *s, uint64_t frames, char *err, size_t errlen);
void cpu_coded_free(cpu_state *s);
/* Transmission t (0: the first, whose information bits are drawn here;
 * t > 0: HARQ's, the same bits at rv tb_harq_rv(t)). */
void cpu_coded_labels(const link_params *p, cpu_state *s, uint64_t first_frame, uint64_t frames, int t);
/* The first transmission's decoding (with HARQ: into the frames' zeroed
 * combining buffers). */
void cpu_coded_decode(const link_params *p, cpu_state *s, uint64_t frames, const float *llr, frame_coded *out);
/* HARQ transmission t's LLRs combined and decoded for the frames whose TB
 * is still lost (out[f].harq_error), their outcome updated. */
void cpu_coded_retry(const link_params *p, cpu_state *s, uint64_t frames, int t, const float *llr, frame_coded *out);

#endif
