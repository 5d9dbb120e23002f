/* The CPU backend's coded link (p.code.type ldpc): per frame, the TB's
 * information bits from the point's stream, the 38.212 chain to the coded
 * bits, and those as the labels of the frame's data REs (coding/tb_chain.h);
 * after the receiver, the frame's LLRs back through the chain and the
 * decoder, and the counts per frame. Frames are decoded TB_GROUP at a time
 * (tb_decode_group: their code blocks 8 to a vector of the batch decoder),
 * groups in parallel, each thread with its own decoder and scratch; a
 * frame's counts depend on its own LLRs alone (the batch decoder's lanes are
 * independent), so not on the thread count nor on which frames share a group.
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
    c->lost = malloc(sizeof(long) * (size_t)frames);
    if (!c->cbuf || !c->errors || !c->lost) {
      snprintf(err, errlen, "cpu backend: no memory for HARQ's buffers of %llu frames", (unsigned long long)frames);
      return -1;
    }
  }
  const ldpc_decoder_config cfg = tb_decoder_config((int)p->code.decoder, p->code.scale, p->code.offset,
                                                    p->code.max_iterations, p->code.early_termination);
  const int n = s->nthreads;
  /* the labels' scratch (tb_encode's and the G coded bits), or the decoder's */
  const size_t enc = tb_scratch_bytes(&c->plan) + (size_t)g, dec = tb_group_scratch_bytes(&c->plan);
  c->scratch_stride = ((enc > dec ? enc : dec) + 63) & ~(size_t)63;
  c->dec = calloc((size_t)n, sizeof *c->dec);
  c->scratch = aligned_alloc(64, c->scratch_stride * (size_t)n);
  c->info = malloc((size_t)frames * (size_t)p->code.tbs);
  c->llr = malloc(sizeof(float) * (size_t)frames * (size_t)g);
  if (!c->dec || !c->scratch || !c->info || !c->llr) {
    snprintf(err, errlen, "cpu backend: no memory for the coded link of %llu frames", (unsigned long long)frames);
    return -1;
  }
  for (int t = 0; t < n; t++)
    if (!(c->dec[t] = ldpc_batch_create(c->plan.seg.bg, c->plan.seg.zc, &cfg, LDPC_KERNEL_AUTO, err, errlen)))
      return -1;
  return 0;
}

void cpu_coded_free(cpu_state *s) {
  cpu_coded *c = &s->coded;
  if (c->dec)
    for (int t = 0; t < s->nthreads; t++)
      if (c->dec[t]) ldpc_batch_destroy(c->dec[t]);
  free(c->dec);
  free(c->scratch);
  free(c->info);
  free(c->llr);
  free(c->cbuf);
  free(c->errors);
  free(c->lost);
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

/* Frames list[0 .. n-1] (n <= TB_GROUP) through tb_decode_group on thread
 * th's decoder: transmission t's LLRs (llr[f G ...]), combined into the
 * frames' buffers with HARQ. */
static void decode_group(const link_params *p, cpu_coded *c, int th, const long *list, int n, const float *llr,
                         const tb_plan *plan, tb_outcome *o) {
  const size_t g = (size_t)c->plan.g, nbuf = c->harq > 1 ? tb_harq_buffer_floats(&c->plan) : 0;
  const float *in[TB_GROUP];
  float *cbuf[TB_GROUP];
  const uint8_t *info[TB_GROUP];
  for (int j = 0; j < n; j++) {
    in[j] = llr + (size_t)list[j] * g;
    cbuf[j] = c->harq > 1 ? c->cbuf + (size_t)list[j] * nbuf : NULL;
    info[j] = c->info + (size_t)list[j] * (size_t)p->code.tbs;
  }
  tb_decode_group(plan, c->dec[th], n, in, c->harq > 1 ? cbuf : NULL, info, o,
                  c->scratch + c->scratch_stride * (size_t)th);
}

void cpu_coded_decode(const link_params *p, cpu_state *s, uint64_t frames, const float *llr, frame_coded *out) {
  cpu_coded *c = &s->coded;
  const long groups = (long)((frames + TB_GROUP - 1) / TB_GROUP);
#pragma omp parallel for schedule(dynamic, 1) num_threads(s->nthreads)
  for (long q = 0; q < groups; q++) {
    long list[TB_GROUP];
    int n = 0;
    for (long f = q * TB_GROUP; f < (long)frames && n < TB_GROUP; f++) list[n++] = f;
    /* HARQ: the first transmission into zeroed buffers, tb_decode's outcome */
    if (c->harq > 1)
      for (int j = 0; j < n; j++)
        memset(c->cbuf + (size_t)list[j] * tb_harq_buffer_floats(&c->plan), 0,
               sizeof(float) * tb_harq_buffer_floats(&c->plan));
    tb_outcome o[TB_GROUP];
    decode_group(p, c, omp_get_thread_num(), list, n, llr, &c->plan, o);
    for (int j = 0; j < n; j++) {
      frame_coded *x = &out[list[j]];
      x->tb_error = (uint32_t)o[j].tb_error;
      x->cbs = (uint32_t)c->plan.seg.c;
      x->cb_errors = (uint32_t)o[j].cb_errors;
      x->info_errors = (uint32_t)o[j].info_errors;
      x->iterations = (uint32_t)o[j].iterations;
      x->harq_error = (uint32_t)o[j].tb_error;
      x->transmissions = 1;
    }
  }
}

void cpu_coded_retry(const link_params *p, cpu_state *s, uint64_t frames, int t, const float *llr, frame_coded *out) {
  cpu_coded *c = &s->coded;
  /* the frames still lost (a delivered frame was not sent again), in order,
   * TB_GROUP to a group */
  long *lost = c->lost, nlost = 0;
  for (long f = 0; f < (long)frames; f++)
    if (out[f].harq_error) lost[nlost++] = f;
  const long groups = (nlost + TB_GROUP - 1) / TB_GROUP;
#pragma omp parallel for schedule(dynamic, 1) num_threads(s->nthreads)
  for (long q = 0; q < groups; q++) {
    const int n = nlost - q * TB_GROUP < TB_GROUP ? (int)(nlost - q * TB_GROUP) : TB_GROUP;
    tb_outcome o[TB_GROUP];
    decode_group(p, c, omp_get_thread_num(), lost + q * TB_GROUP, n, llr, &c->rplan[t], o);
    for (int j = 0; j < n; j++) {
      out[lost[q * TB_GROUP + j]].harq_error = (uint32_t)o[j].tb_error;
      out[lost[q * TB_GROUP + j]].transmissions = (uint32_t)t + 1;
    }
  }
}
