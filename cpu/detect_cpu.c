/* The CPU backend's joint detectors and soft outputs: mmse-sic, kbest and ml
 * per RE from the channel estimate and the received vector (equalizer/sic.h,
 * equalizer/detect.h), and the LLRs, GMI losses and LLR export of every
 * detector (equalizer/soft.h). Work items are chunks of one frame
 * (cpu_chunk_of), so a frame's sums are whole per item and added once. */
#include "core/clock.h"
#include "cpu/cpu_internal.h"
#include "equalizer/detect.h"
#include "equalizer/sic.h"
#include "equalizer/soft.h"

_Static_assert(SOFT_LOSS_SHIFT == GMI_LOSS_SHIFT, "batch_result.gmi_loss is in soft_loss_q's units");

/* Adds a work item's per-stream losses to its frame's. */
static void add_losses(uint64_t *frame_loss, const uint64_t *loss, int tx) {
  for (int t = 0; t < tx; t++) {
#pragma omp atomic
    frame_loss[t] += loss[t];
  }
}

/* A work item's GMI sums: per stream at s = 1, and at the grid's scalings. */
typedef struct {
  uint64_t stream[LINK_MAX_TX], grid[GMI_GRID];
} item_sums;

/* Adds stream t's loss against its sent label: the s = 1 loss where
 * out->gmi_loss is asked for, and with out->gmi_loss_s the loss at every
 * grid scaling too; neither (receiver.gmi = none): nothing, no logarithm
 * taken. */
static void item_add(item_sums *a, const batch_result *out, int t, int bps, const float *llr, uint32_t label) {
  if (out->gmi_loss_s) a->stream[t] += soft_label_loss_grid(bps, llr, label, a->grid);
  else if (out->gmi_loss) a->stream[t] += soft_label_loss(bps, llr, label);
}

/* A work item's sums to its frame f. */
static void add_frame_losses(batch_result *out, uint64_t f, const item_sums *a, int tx) {
  if (out->gmi_loss) add_losses(out->gmi_loss + f * (uint64_t)tx, a->stream, tx);
  if (out->gmi_loss_s) add_losses(out->gmi_loss_s + f * GMI_GRID, a->grid, GMI_GRID);
}

/* The LLRs and bits of RE i (batch index) of frame f at frame-local m
 * into the export arrays, at its data-RE index (pilots are not exported). */
static void capture(const link_params *p, const cpu_state *s, size_t R, size_t i, uint64_t f, uint64_t m,
                    const float *llr, batch_result *out) {
  const int tx = p->tx, bps = p->bps;
  const size_t d = (size_t)(f * link_data_res_per_frame(p) + pilot_data_index(&s->re.pilots, m));
  for (int t = 0; t < tx; t++)
    for (int k = 0; k < bps; k++) {
      const size_t at = (d * (size_t)tx + (size_t)t) * (size_t)bps + (size_t)k;
      if (out->llr) out->llr[at] = llr[t * bps + k];
      if (out->bits) out->bits[at] = (uint8_t)((s->labels[(size_t)t * R + i] >> k) & 1u);
    }
}

void cpu_detect_joint(const link_params *p, cpu_state *s, uint64_t frames, batch_result *out) {
  const double t0 = clock_seconds();
  const chunk_grid g = cpu_chunk_grid(p, frames);
  const size_t R = g.R;
  const int tx = p->tx, rx = p->rx, bps = p->bps, soft = p->llr != LLR_OFF;
  const float n0 = (float)link_receiver_n0(p);
#pragma omp parallel for schedule(dynamic, 4)
  for (long it = 0; it < g.items; it++) {
    const frame_chunk c = cpu_chunk_of(it, g.rf, g.per_frame);
    item_sums sums = {{0}, {0}};
    uint32_t solved = 0;
    for (size_t j = 0; j < c.n; j++) {
      const size_t i = c.o + j;
      if (pilot_antenna(&s->re.pilots, c.m0 + j) >= 0) {
        /* a pilot RE: nothing to detect or count */
        for (int t = 0; t < tx; t++) s->xhat[(size_t)t * R + i] = cf_make(0.0f, 0.0f);
        continue;
      }
      cf32 h[LINK_MAX_RX * LINK_MAX_TX], y[LINK_MAX_RX];
      uint32_t lab[LINK_MAX_TX];
      float llr[LINK_MAX_TX * 8];
      for (int e = 0; e < rx * tx; e++) h[e] = s->Hhat[(size_t)e * R + i];
      for (int r = 0; r < rx; r++) y[r] = s->y[(size_t)r * R + i];
      float *l = soft ? llr : NULL;
      switch (p->equalizer) {
        case EQ_MMSE_SIC: solved += det_mmse_sic(rx, tx, bps, h, y, n0, p->llr, lab, l) > 0; break;
        case EQ_KBEST: det_kbest(rx, tx, bps, p->kbest_k, h, y, n0, (float)p->llr_clip, lab, l); break;
        default: det_ml(rx, tx, bps, h, y, n0, SOFT_LLR_CLIP, lab, l); break;
      }
      /* the decisions as symbols: cpu_count_errors demaps them back exactly */
      for (int t = 0; t < tx; t++) s->xhat[(size_t)t * R + i] = qam_map(bps, lab[t]);
      if (!soft) continue;
      for (int t = 0; t < tx; t++) item_add(&sums, out, t, bps, llr + t * bps, s->labels[(size_t)t * R + i]);
      if (out->llr || out->bits) capture(p, s, R, i, c.f, c.m0 + j, llr, out);
    }
    if (soft) add_frame_losses(out, c.f, &sums, tx);
    if (solved && out->fallbacks) {
#pragma omp atomic
      out->fallbacks[c.f] += solved;
    }
  }
  out->t.equalize += clock_seconds() - t0;
}

void cpu_soft_linear(const link_params *p, const cpu_state *s, uint64_t frames, batch_result *out) {
  /* nothing asked of the LLRs (receiver.gmi = none, no export): the hard
   * decisions already counted are the point's whole result */
  if (!out->gmi_loss && !out->gmi_loss_s && !out->llr && !out->bits) return;
  const double t0 = clock_seconds();
  const chunk_grid g = cpu_chunk_grid(p, frames);
  const size_t R = g.R;
  const int tx = p->tx, bps = p->bps, mmse = p->equalizer == EQ_MMSE, exact = p->llr == LLR_EXACT;
  const float n0 = (float)link_receiver_n0(p);
#pragma omp parallel for schedule(dynamic, 4)
  for (long it = 0; it < g.items; it++) {
    const frame_chunk c = cpu_chunk_of(it, g.rf, g.per_frame);
    item_sums sums = {{0}, {0}};
    for (size_t j = 0; j < c.n; j++) {
      const size_t i = c.o + j;
      if (pilot_antenna(&s->re.pilots, c.m0 + j) >= 0) continue;
      float llr[LINK_MAX_TX * 8];
      for (int t = 0; t < tx; t++) {
        /* the stream's post-equalisation variance from its Gram-inverse diagonal */
        const float g = s->Ginv[(size_t)(t * tx + t) * R + i].re;
        soft_demap(bps, s->xhat[(size_t)t * R + i], soft_post_var(mmse, n0, g), exact, llr + t * bps);
        item_add(&sums, out, t, bps, llr + t * bps, s->labels[(size_t)t * R + i]);
      }
      if (out->llr || out->bits) capture(p, s, R, i, c.f, c.m0 + j, llr, out);
    }
    add_frame_losses(out, c.f, &sums, tx);
  }
  out->t.demap += clock_seconds() - t0;
}
