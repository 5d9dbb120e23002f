/* The CPU backend's fused path: each chunk of CPU_FUSED_CHUNK REs of a frame
 * goes through the whole link (draws, y = Hx + n, the receiver's channel,
 * Gram, inverse, equalisation, the double-precision repair of flagged REs,
 * the bit errors, and with soft outputs the LLRs, their GMI losses and the
 * LLR export) in its thread's scratch, which stays in cache. What must see
 * a whole frame first is made once per frame and thread (fused_frame_cpu.c):
 * the LS estimate from the pilots, and in the time domain the frame through
 * the OFDM modem. Every step is the staged path's own function on a shorter
 * stride, but for the equaliser of 2x2 and 4x4, which runs in one pass
 * (eq_solve_direct_diag) with the three passes' bits; so the counts and the
 * losses are the staged path's bit for bit (tests/cpu/test_fused_cpu.c).
 * What it leaves to the staged path: cpu_fused_covers. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/popcount.h"
#include "cpu/cpu_internal.h"
#include "cpu/draws_block.h"
#include "cpu/fused_cpu.h"
#include "equalizer/demap_block.h"
#include "equalizer/equalizer.h"
#include "equalizer/fallback.h"
#include "equalizer/sic.h"
#include "equalizer/soft.h"
#include "equalizer/soft_block.h"

/* NR DMRS runs staged here (the GPU's fused mode covers it): the fused
 * frame-level LS estimate reads the comb's pattern, not DMRS's OCC blocks. */
int cpu_fused_covers(const link_params *p) {
  return link_fused_receiver(p) && !link_coded(p) && p->pilot_kind != PILOT_DMRS;
}

/* The frame-level work a point needs before its chunks: the time domain's
 * modem or the LS estimate. Such points are run a frame an item. */
static int frame_level(const link_params *p) {
  return p->domain == DOMAIN_TIME || p->estimation == EST_LS;
}

/* The flagged REs of the chunk in double (cpu_repair_flagged's step, the
 * inverse's diagonal from double too when the LLRs need it). */
static uint32_t chunk_repair(const link_params *p, const fused_scratch *f, const cf32 *yc, size_t ldy, size_t n,
                             float diag) {
  const size_t C = CPU_FUSED_CHUNK;
  const int tx = p->tx, rx = p->rx;
  uint32_t solved = 0;
  /* flagged REs are rare: runs of 64 without one are passed over by a test
   * that vectorises */
  for (size_t i0 = 0; i0 < n; i0 += 64) {
    const size_t end = n - i0 < 64 ? n : i0 + 64;
    int any = 0;
    for (size_t i = i0; i < end; i++) any |= eq_flagged(f->xhat[i]);
    if (!any) continue;
    for (size_t i = i0; i < end; i++) {
      if (!eq_flagged(f->xhat[i])) continue;
      cf32 h[LINK_MAX_RX * LINK_MAX_TX], y[LINK_MAX_RX], x[LINK_MAX_TX];
      float gd[LINK_MAX_TX];
      for (int e = 0; e < rx * tx; e++) h[e] = f->Hhat[(size_t)e * C + i];
      for (int r = 0; r < rx; r++) y[r] = yc[(size_t)r * ldy + i];
      solved += (uint32_t)eq_solve_double(rx, tx, h, y, diag, x, f->gdiag ? gd : NULL);
      for (int k = 0; k < tx; k++) f->xhat[(size_t)k * C + i] = x[k];
      if (f->gdiag)
        for (int k = 0; k < tx; k++) f->gdiag[(size_t)k * C + i] = gd[k];
    }
  }
  return solved;
}

/* Equalises the chunk: the one-pass kernel where it has one, the three
 * passes on the rest (their inverse's diagonal kept for the LLRs). */
static void chunk_equalize(const link_params *p, fused_scratch *f, const cf32 *yc, size_t ldy, size_t n,
                           float diag) {
  const size_t C = CPU_FUSED_CHUNK;
  const int tx = p->tx;
  const size_t d = eq_solve_direct_diag(p->rx, tx, f->Hhat, C, yc, ldy, diag, diag, f->xhat, C, f->gdiag, C, n);
  if (d == n) return;
  eq_gram(p->rx, tx, f->Hhat + d, C, yc + d, ldy, diag, f->G, C, f->z, C, n - d);
  eq_invert(tx, f->G, C, f->Ginv, C, n - d);
  eq_apply(tx, f->Ginv, C, f->z, C, diag, f->xhat + d, C, n - d);
  if (f->gdiag)
    for (int t = 0; t < tx; t++)
      for (size_t i = 0; i < n - d; i++) f->gdiag[(size_t)t * C + d + i] = f->Ginv[(size_t)(t * tx + t) * C + i].re;
}

/* mmse-sic with hard decisions on the chunk's data REs (cpu_detect_joint's
 * step: the same det_mmse_sic on the same channel, y and noise), its bit
 * errors and its REs with a stage solved in double added to frame fl's. */
static void chunk_sic(const link_params *p, const cpu_state *s, const fused_scratch *f, const cf32 *yc,
                      size_t ldy, const uint8_t *lab, size_t ldl, uint64_t fl, uint64_t m0, size_t n,
                      batch_result *out) {
  const size_t C = CPU_FUSED_CHUNK;
  const int tx = p->tx, rx = p->rx, bps = p->bps;
  const float n0 = (float)link_receiver_n0(p);
  uint32_t err[LINK_MAX_TX] = {0}, solved = 0;
  for (size_t j = 0; j < n; j++) {
    if (pilot_antenna(&s->re.pilots, m0 + j) >= 0) continue;
    cf32 h[LINK_MAX_RX * LINK_MAX_TX], y[LINK_MAX_RX];
    uint32_t dec[LINK_MAX_TX];
    for (int e = 0; e < rx * tx; e++) h[e] = f->Hhat[(size_t)e * C + j];
    for (int r = 0; r < rx; r++) y[r] = yc[(size_t)r * ldy + j];
    solved += det_mmse_sic(rx, tx, bps, h, y, n0, LLR_OFF, dec, NULL) > 0;
    for (int t = 0; t < tx; t++) err[t] += ofdm_popcount(dec[t] ^ lab[(size_t)t * ldl + j]);
  }
  for (int t = 0; t < tx; t++) {
#pragma omp atomic
    out->errors[fl * (uint64_t)tx + (uint64_t)t] += err[t];
  }
  if (solved && out->fallbacks) {
#pragma omp atomic
    out->fallbacks[fl] += solved;
  }
}

/* Adds a chunk's per-stream and grid sums to frame fl's. */
static void add_frame_losses(batch_result *out, uint64_t fl, const uint64_t *loss, const uint64_t *grid, int tx) {
  if (out->gmi_loss)
    for (int t = 0; t < tx; t++) {
#pragma omp atomic
      out->gmi_loss[fl * (uint64_t)tx + (uint64_t)t] += loss[t];
    }
  if (out->gmi_loss_s)
    for (int k = 0; k < GMI_GRID; k++) {
#pragma omp atomic
      out->gmi_loss_s[fl * GMI_GRID + (uint64_t)k] += grid[k];
    }
}

/* Each stream's s = 1 loss (soft_label_loss's sum) of the chunk's nb bits,
 * laid out RE by RE, tx streams of bps bits each: the quanta of all the bits
 * at once (soft_losses_q, in vector lanes), then summed by stream. */
static void chunk_losses(const float *llr, const uint8_t *bits, size_t nb, int tx, int bps, uint64_t *loss) {
  enum { STEP = 512 }; /* a whole number of REs for every tx * bps (<= 64) */
  uint32_t q[STEP];
  const size_t per_re = (size_t)(tx * bps), step = STEP / per_re * per_re;
  for (size_t i0 = 0; i0 < nb; i0 += step) {
    const size_t n = nb - i0 < step ? nb - i0 : step;
    soft_losses_q(n, llr + i0, bits + i0, q);
    for (size_t i = 0; i < n; i += per_re)
      for (int t = 0; t < tx; t++)
        for (int k = 0; k < bps; k++) loss[t] += q[i + (size_t)(t * bps + k)];
  }
}

/* The LLRs of a chunk's data REs into f->llr (RE by RE, tx streams of bps
 * bits), their sent bits into f->bits, and both to the caller's arrays where
 * it asks for them; returns the bit count.  The data REs go G at a time
 * through soft_demap_block (the symbols of a stream in vector lanes, the same
 * LLRs as soft_demap's), and their LLRs from its rows into the RE-by-RE
 * layout.  Instantiated below with bps a constant, so that the loops over a
 * symbol's bits unroll. */
static inline size_t soft_res(const int bps, const link_params *p, const cpu_state *s, const fused_scratch *f,
                              const uint8_t *lab, size_t ldl, uint64_t fl, uint64_t m0, size_t n, batch_result *out) {
  enum { G = 64 };
  const size_t C = CPU_FUSED_CHUNK;
  const int tx = p->tx, mmse = p->equalizer == EQ_MMSE, exact = p->llr == LLR_EXACT;
  const float n0 = (float)link_receiver_n0(p);
  const uint64_t df = link_data_res_per_frame(p);
  const size_t per_re = (size_t)(tx * bps);
  size_t nb = 0, j = 0;
  while (j < n) {
    uint32_t at[G]; /* the group's data REs */
    size_t m = 0;
    for (; j < n && m < G; j++)
      if (pilot_antenna(&s->re.pilots, m0 + j) < 0) at[m++] = (uint32_t)j;
    float *llr = f->llr + nb;
    uint8_t *bits = f->bits + nb;
    for (int t = 0; t < tx; t++) {
      cf32 z[G];
      float var[G], l[SOFT_MAX_BPS * G];
      for (size_t i = 0; i < m; i++) {
        z[i] = f->xhat[(size_t)t * C + at[i]];
        var[i] = soft_post_var(mmse, n0, f->gdiag[(size_t)t * C + at[i]]);
      }
      soft_demap_block(bps, m, z, var, exact, l, G);
      for (size_t i = 0; i < m; i++) {
        const uint32_t label = lab[(size_t)t * ldl + at[i]];
        for (int k = 0; k < bps; k++) {
          llr[i * per_re + (size_t)(t * bps + k)] = l[(size_t)k * G + i];
          bits[i * per_re + (size_t)(t * bps + k)] = (uint8_t)((label >> k) & 1u);
        }
      }
    }
    if (out->llr || out->bits)
      for (size_t i = 0; i < m; i++) {
        const size_t to = (size_t)(fl * df + pilot_data_index(&s->re.pilots, m0 + at[i])) * per_re;
        if (out->llr) memcpy(out->llr + to, llr + i * per_re, sizeof(float) * per_re);
        if (out->bits) memcpy(out->bits + to, bits + i * per_re, per_re);
      }
    nb += m * per_re;
  }
  return nb;
}

#if defined(__GNUC__)
#define SOFT_FLATTEN __attribute__((flatten))
#else
#define SOFT_FLATTEN
#endif
#define SOFT_RES_AT(name, bits)                                                                                 \
  static SOFT_FLATTEN size_t name(const link_params *p, const cpu_state *s, const fused_scratch *f,             \
                                  const uint8_t *lab, size_t ldl, uint64_t fl, uint64_t m0, size_t n,        \
                                  batch_result *out) {                                                        \
    return soft_res(bits, p, s, f, lab, ldl, fl, m0, n, out);                                                 \
  }
SOFT_RES_AT(soft_res_2, 2)
SOFT_RES_AT(soft_res_4, 4)
SOFT_RES_AT(soft_res_6, 6)
SOFT_RES_AT(soft_res_any, p->bps)

/* The soft outputs of the chunk's data REs (cpu_soft_linear's step): LLRs
 * from x_hat and each stream's variance, the GMI losses (at s = 1 per
 * stream; at the grid's other scalings all the chunk's bits at once, in
 * vector lanes: soft_grid_losses), and the LLRs and bits where the caller
 * asks for them. */
static void chunk_soft(const link_params *p, const cpu_state *s, const fused_scratch *f, const uint8_t *lab,
                       size_t ldl, uint64_t fl, uint64_t m0, size_t n, batch_result *out) {
  const int tx = p->tx, bps = p->bps;
  uint64_t loss[LINK_MAX_TX] = {0}, grid[GMI_GRID] = {0};
  const int at_1 = out->gmi_loss || out->gmi_loss_s; /* receiver.gmi = none: no loss at all */
  size_t nb; /* the chunk's bits in f->llr, f->bits */
  switch (bps) { /* a constant bps in each: soft_res's comment says why */
    case 2: nb = soft_res_2(p, s, f, lab, ldl, fl, m0, n, out); break;
    case 4: nb = soft_res_4(p, s, f, lab, ldl, fl, m0, n, out); break;
    case 6: nb = soft_res_6(p, s, f, lab, ldl, fl, m0, n, out); break;
    default: nb = soft_res_any(p, s, f, lab, ldl, fl, m0, n, out); break;
  }
  if (at_1) chunk_losses(f->llr, f->bits, nb, tx, bps, loss);
  if (out->gmi_loss_s) {
    soft_grid_losses(nb, f->llr, f->bits, grid);
    for (int t = 0; t < tx; t++) grid[GMI_GRID_S1] += loss[t];
  }
  add_frame_losses(out, fl, loss, grid, tx);
}

/* One chunk, frame-local REs [m0, m0 + n) of frame first_frame + fl, through
 * the receiver. Its labels and y come from the frame's arrays where a frame
 * pass made them (the time domain), else they are drawn here. */
static void fused_chunk(const link_params *p, cpu_state *s, fused_scratch *f, uint64_t first_frame, uint64_t fl,
                        uint64_t m0, size_t n, batch_result *out) {
  const size_t C = CPU_FUSED_CHUNK;
  const uint64_t frame = first_frame + fl;
  const int tx = p->tx;
  const float diag = link_mmse_diagonal(p);
  const uint8_t *lab = f->labels;
  const cf32 *yc = f->y;
  size_t ldl = C, ldy = C;
  if (p->domain == DOMAIN_TIME) {
    /* the frame pass made the labels and y; H only where the receiver
     * knows it */
    lab = f->frame_labels + m0;
    yc = f->frame_y + m0;
    ldl = ldy = (size_t)link_res_per_frame(p);
    if (p->estimation != EST_LS) fused_chunk_channel(p, s, f, frame, m0, n);
  } else {
    block_symbols(&s->re, frame, m0, n, f->labels, f->x, C);
    fused_chunk_channel(p, s, f, frame, m0, n);
    block_apply(&s->re, frame, m0, n, f->H, C, f->x, C, f->y, C);
  }
  if (p->estimation == EST_LS) fused_chunk_estimate(p, s, f, m0, n);
  else if (f->Hhat != f->H) block_csi(&s->re, frame, m0, n, f->H, C, f->Hhat, C);
  if (p->equalizer == EQ_MMSE_SIC) {
    chunk_sic(p, s, f, yc, ldy, lab, ldl, fl, m0, n, out);
    return;
  }
  chunk_equalize(p, f, yc, ldy, n, diag);
  const uint32_t solved = chunk_repair(p, f, yc, ldy, n, diag);
  if (solved && out->fallbacks) {
#pragma omp atomic
    out->fallbacks[fl] += solved;
  }
  for (int t = 0; t < tx; t++) {
    const uint32_t e =
        cpu_chunk_bit_errors(p, &s->re.pilots, m0, n, f->xhat + (size_t)t * C, lab + (size_t)t * ldl);
#pragma omp atomic
    out->errors[fl * (uint64_t)tx + (uint64_t)t] += e;
  }
  /* LLRs where something takes them: the GMI sums (receiver.gmi), the export */
  if (p->llr != LLR_OFF && (out->gmi_loss || out->gmi_loss_s || out->llr || out->bits))
    chunk_soft(p, s, f, lab, ldl, fl, m0, n, out);
}

int cpu_fused_run(const link_params *p, cpu_state *s, uint64_t first_frame, uint64_t frames, batch_result *out) {
  const double t0 = clock_seconds();
  const uint64_t rf = link_res_per_frame(p);
  const uint64_t chunks_per_frame = (rf + CPU_FUSED_CHUNK - 1) / CPU_FUSED_CHUNK;
  const size_t C = CPU_FUSED_CHUNK;
  int rc = 0;
  if (frame_level(p)) {
    /* a frame an item: its frame pass once, then its chunks */
#pragma omp parallel num_threads(s->nthreads) reduction(| : rc)
    {
      fused_scratch f = fused_carve(p, s, s->fused + (size_t)omp_get_thread_num() * s->fused_stride);
#pragma omp for schedule(dynamic, 1)
      for (long fl = 0; fl < (long)frames; fl++) {
        if (fused_frame(p, s, &f, first_frame + (uint64_t)fl)) {
          rc = 1;
          continue;
        }
        for (uint64_t m0 = 0; m0 < rf; m0 += C)
          fused_chunk(p, s, &f, first_frame, (uint64_t)fl, m0, (size_t)(rf - m0 < C ? rf - m0 : C), out);
      }
    }
  } else {
    const long items = (long)(frames * chunks_per_frame);
    /* contiguous runs of items a thread, so that a tdl frame's response is
     * made about once */
#pragma omp parallel num_threads(s->nthreads)
    {
      fused_scratch f = fused_carve(p, s, s->fused + (size_t)omp_get_thread_num() * s->fused_stride);
#pragma omp for schedule(static)
      for (long it = 0; it < items; it++) {
        const uint64_t fl = (uint64_t)it / chunks_per_frame, m0 = ((uint64_t)it % chunks_per_frame) * C;
        fused_chunk(p, s, &f, first_frame, fl, m0, (size_t)(rf - m0 < C ? rf - m0 : C), out);
      }
    }
  }
  /* one pass does it all: reported as the inversion stage, as the GPU's
   * fused kernel is */
  out->t.invert = clock_seconds() - t0;
  out->inversions = (uint64_t)frames * rf * link_inversions_per_re(p);
  return rc ? -1 : 0;
}
