/* The CPU backend's coded link (p.code.type ldpc): per frame, the TB's
 * information bits from the point's stream, the 38.212 chain to the coded
 * bits, and those as the labels of the frame's data REs (coding/tb_chain.h);
 * after the receiver, the frame's LLRs back through the chain and the
 * decoder, and the counts per frame. Frames run in parallel, each thread
 * with its own decoder and scratch, so the counts do not depend on the
 * thread count.
 *
 * HARQ (code.harq_transmissions > 1): the backend's run sends the batch
 * again while a TB is lost (backend_cpu.c); transmission t's labels are the
 * same information bits at rv tb_harq_rv(t), and its LLRs are added into
 * each frame's combining buffer (tb_decode_combine) and decoded again for
 * the frames still lost. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/qam.h"
#include "cpu/cpu_internal.h"

int cpu_coded_init(const link_params *p, cpu_state *s, uint64_t frames, char *err, size_t errlen) {
  cpu_coded *c = &s->coded;
  const long g = (long)link_bits_per_frame(p);
  if (tb_plan_make(p->code.tbs, p->code.rate, p->bps, p->tx, g, p->code.rv, &c->plan, err, errlen)) return -1;
  c->on = 1;
  c->harq = link_harq(p);
  for (int t = 1; t < c->harq; t++)
    if (tb_plan_make(p->code.tbs, p->code.rate, p->bps, p->tx, g, tb_harq_rv(t), &c->rplan[t], err, errlen))
      return -1;
  if (c->harq > 1) {
    c->cbuf = malloc(sizeof(float) * (size_t)frames * tb_harq_buffer_floats(&c->plan));
    c->errors = malloc(sizeof(uint32_t) * (size_t)frames * (size_t)p->tx);
    if (!c->cbuf || !c->errors) {
      snprintf(err, errlen, "cpu backend: no memory for HARQ's buffers of %llu frames", (unsigned long long)frames);
      return -1;
    }
  }
  const ldpc_decoder_config cfg = tb_decoder_config((int)p->code.decoder, p->code.scale, p->code.offset,
                                                    p->code.max_iterations, p->code.early_termination);
  const int n = s->nthreads;
  c->scratch_stride = (tb_scratch_bytes(&c->plan) + (size_t)g + 63) & ~(size_t)63;
  c->dec = calloc((size_t)n, sizeof *c->dec);
  c->scratch = aligned_alloc(64, c->scratch_stride * (size_t)n);
  c->info = malloc((size_t)frames * (size_t)p->code.tbs);
  c->llr = malloc(sizeof(float) * (size_t)frames * (size_t)g);
  if (!c->dec || !c->scratch || !c->info || !c->llr) {
    snprintf(err, errlen, "cpu backend: no memory for the coded link of %llu frames", (unsigned long long)frames);
    return -1;
  }
  for (int t = 0; t < n; t++)
    if (!(c->dec[t] = ldpc_decoder_create(c->plan.seg.bg, c->plan.seg.zc, &cfg, err, errlen))) return -1;
  return 0;
}

void cpu_coded_free(cpu_state *s) {
  cpu_coded *c = &s->coded;
  if (c->dec)
    for (int t = 0; t < s->nthreads; t++)
      if (c->dec[t]) ldpc_decoder_destroy(c->dec[t]);
  free(c->dec);
  free(c->scratch);
  free(c->info);
  free(c->llr);
  free(c->cbuf);
  free(c->errors);
  tb_plan_free(&c->plan);
  for (int t = 1; t < LINK_HARQ_MAX; t++) tb_plan_free(&c->rplan[t]);
  memset(c, 0, sizeof *c);
}

void cpu_coded_labels(const link_params *p, cpu_state *s, uint64_t first_frame, uint64_t frames, int t) {
  cpu_coded *c = &s->coded;
  const uint64_t rf = link_res_per_frame(p);
  const size_t R = (size_t)(frames * rf);
  const int tx = p->tx, bps = p->bps, a = p->code.tbs;
#pragma omp parallel for schedule(dynamic, 1) num_threads(s->nthreads)
  for (long f = 0; f < (long)frames; f++) {
    unsigned char *scratch = c->scratch + c->scratch_stride * (size_t)omp_get_thread_num();
    uint8_t *coded = scratch + tb_scratch_bytes(&c->plan);
    uint8_t *info = c->info + (size_t)f * (size_t)a;
    if (t == 0) tb_draw_info(s->re.key, first_frame + (uint64_t)f, a, info);
    tb_encode(t ? &c->rplan[t] : &c->plan, info, coded, scratch);
    for (uint64_t m = 0; m < rf; m++) {
      if (pilot_antenna(&s->re.pilots, m) >= 0) continue;
      const uint64_t d = pilot_data_index(&s->re.pilots, m);
      const size_t i = (size_t)f * rf + m;
      for (int t = 0; t < tx; t++) {
        const uint32_t label = tb_label(coded, d, tx, t, bps);
        s->labels[(size_t)t * R + i] = (uint8_t)label;
        s->x[(size_t)t * R + i] = qam_map(bps, label);
      }
    }
  }
}

void cpu_coded_decode(const link_params *p, cpu_state *s, uint64_t frames, const float *llr, frame_coded *out) {
  cpu_coded *c = &s->coded;
  const size_t g = (size_t)c->plan.g;
#pragma omp parallel for schedule(dynamic, 1) num_threads(s->nthreads)
  for (long f = 0; f < (long)frames; f++) {
    const int th = omp_get_thread_num();
    tb_outcome o;
    const uint8_t *info = c->info + (size_t)f * (size_t)p->code.tbs;
    unsigned char *scratch = c->scratch + c->scratch_stride * (size_t)th;
    if (c->harq > 1) {
      /* the first transmission into a zeroed buffer: tb_decode's outcome */
      float *cbuf = c->cbuf + (size_t)f * tb_harq_buffer_floats(&c->plan);
      memset(cbuf, 0, sizeof(float) * tb_harq_buffer_floats(&c->plan));
      tb_decode_combine(&c->plan, c->dec[th], llr + (size_t)f * g, cbuf, info, &o, scratch);
    } else {
      tb_decode(&c->plan, c->dec[th], llr + (size_t)f * g, info, &o, scratch);
    }
    out[f].tb_error = (uint32_t)o.tb_error;
    out[f].cbs = (uint32_t)c->plan.seg.c;
    out[f].cb_errors = (uint32_t)o.cb_errors;
    out[f].info_errors = (uint32_t)o.info_errors;
    out[f].iterations = (uint32_t)o.iterations;
    out[f].harq_error = (uint32_t)o.tb_error;
    out[f].transmissions = 1;
  }
}

void cpu_coded_retry(const link_params *p, cpu_state *s, uint64_t frames, int t, const float *llr, frame_coded *out) {
  cpu_coded *c = &s->coded;
  const size_t g = (size_t)c->plan.g;
#pragma omp parallel for schedule(dynamic, 1) num_threads(s->nthreads)
  for (long f = 0; f < (long)frames; f++) {
    if (!out[f].harq_error) continue; /* delivered: nothing more was sent */
    const int th = omp_get_thread_num();
    tb_outcome o;
    tb_decode_combine(&c->rplan[t], c->dec[th], llr + (size_t)f * g,
                      c->cbuf + (size_t)f * tb_harq_buffer_floats(&c->plan),
                      c->info + (size_t)f * (size_t)p->code.tbs, &o, c->scratch + c->scratch_stride * (size_t)th);
    out[f].harq_error = (uint32_t)o.tb_error;
    out[f].transmissions = (uint32_t)t + 1;
  }
}
