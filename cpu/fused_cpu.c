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

int cpu_fused_covers(const link_params *p) { return link_fused_receiver(p) && !link_coded(p); }

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

/* Each stream's s = 1 loss (soft_label_loss's sum) of the chunk's nd data
 * REs, its bits in rows of f->llr and f->bits (soft_res' layout): the
 * quanta of a row's bits at once, in vector lanes, summed (soft_losses_sum_q). */
static void chunk_losses(const fused_scratch *f, size_t nd, int tx, int bps, uint64_t *loss) {
  const size_t C = CPU_FUSED_CHUNK;
  for (int t = 0; t < tx; t++)
    for (int k = 0; k < bps; k++) {
      const size_t row = (size_t)(t * bps + k) * C;
      loss[t] += soft_losses_sum_q(nd, f->llr + row, f->bits + row);
    }
}

/* One stream's s = 1 loss over its nd data REs (z, var; lt its labels, at
 * their positions, NULL: in order) when that loss is all the point wants of
 * its exact LLRs (receiver.gmi = "s1", none exported): max-log LLRs first,
 * cheap; a symbol whose every bit's max-log LLR, signed towards the sent
 * bit, reaches soft_exact_zero_loss_from has exact losses of 0 quanta
 * (equalizer/demap_block.h says why), so only the others get exact LLRs and
 * the series. The sum is the exact LLRs' bit for bit: the symbols left out
 * add 0 there too. At the benchmarks' 20 dB most symbols are left out. Uses
 * the stream's rows of f->llr and f->bits as scratch. */
static inline uint64_t exact_s1_loss(const int bps, size_t nd, const cf32 *z, const float *var, const uint8_t *lt,
                                     const uint32_t *at, const fused_scratch *f, int t) {
  enum { C = CPU_FUSED_CHUNK };
  float *rows = f->llr + (size_t)t * bps * C;
  uint8_t *bits = f->bits + (size_t)t * bps * C;
  cf32 zc[C];
  float vc[C];
  uint8_t lc[C];
  soft_demap_block(bps, nd, z, var, 0, rows, C);
  const float from = soft_exact_zero_loss_from(bps);
  const uint8_t *l = lt;
  if (at) {
    for (size_t i = 0; i < nd; i++) lc[i] = lt[at[i]];
    l = lc;
  }
  /* which symbols keep a bit short of `from`: a plain loop over the rows,
   * which GCC vectorises; then those symbols packed */
  uint8_t keep[C];
  for (size_t i = 0; i < nd; i++) {
    int settled = 1;
    for (int k = 0; k < bps; k++) {
      const float v = rows[(size_t)k * C + i];
      settled &= ((l[i] >> k) & 1u ? v : -v) >= from;
    }
    keep[i] = (uint8_t)!settled;
  }
  size_t nc = 0;
  for (size_t i = 0; i < nd; i++) {
    zc[nc] = z[i];
    vc[nc] = var[i];
    lc[nc] = l[i]; /* nc <= i: a label not yet read is not overwritten */
    nc += keep[i];
  }
  soft_demap_block(bps, nc, zc, vc, 1, rows, C);
  uint64_t sum = 0;
  for (int k = 0; k < bps; k++) {
    uint8_t *row = bits + (size_t)k * C;
    for (size_t i = 0; i < nc; i++) row[i] = (uint8_t)((lc[i] >> k) & 1u);
    sum += soft_losses_sum_q(nc, rows + (size_t)k * C, row);
  }
  return sum;
}

/* The LLRs of a chunk's data REs and their sent bits into f->llr and
 * f->bits, a row per stream and label bit (row t * bps + k, the data REs in
 * order: the rows soft_demap_block writes, soft_demap's LLRs bit for bit), and
 * both to the caller's arrays, RE by RE, where it asks for them; returns the
 * count of data REs.  Instantiated below with bps a constant, so that the
 * loops over a symbol's bits unroll. */
static inline size_t soft_res(const int bps, const link_params *p, const cpu_state *s, const fused_scratch *f,
                              const uint8_t *lab, size_t ldl, uint64_t fl, uint64_t m0, size_t n, batch_result *out,
                              uint64_t *s1_loss) {
  enum { C = CPU_FUSED_CHUNK };
  const int tx = p->tx, mmse = p->equalizer == EQ_MMSE, exact = p->llr == LLR_EXACT;
  const float n0 = (float)link_receiver_n0(p);
  uint32_t at[C]; /* the data REs */
  float var[C];
  cf32 zd[C];
  size_t nd = 0;
  for (size_t j = 0; j < n; j++) {
    at[nd] = (uint32_t)j;
    nd += pilot_antenna(&s->re.pilots, m0 + j) < 0;
  }
  const int all = nd == n; /* every RE data: rows straight from x_hat */
  for (int t = 0; t < tx; t++) {
    const cf32 *xt = f->xhat + (size_t)t * C;
    const float *gt = f->gdiag + (size_t)t * C;
    const uint8_t *lt = lab + (size_t)t * ldl;
    if (all) {
      for (size_t i = 0; i < nd; i++) var[i] = soft_post_var(mmse, n0, gt[i]);
    } else {
      for (size_t i = 0; i < nd; i++) {
        zd[i] = xt[at[i]];
        var[i] = soft_post_var(mmse, n0, gt[at[i]]);
      }
    }
    if (s1_loss) { /* the s = 1 loss alone: exact_s1_loss */
      s1_loss[t] += exact_s1_loss(bps, nd, all ? xt : zd, var, lt, all ? NULL : at, f, t);
      continue;
    }
    soft_demap_block(bps, nd, all ? xt : zd, var, exact, f->llr + (size_t)t * bps * C, C);
    for (int k = 0; k < bps; k++) {
      uint8_t *row = f->bits + (size_t)(t * bps + k) * C;
      if (all)
        for (size_t i = 0; i < nd; i++) row[i] = (uint8_t)((lt[i] >> k) & 1u);
      else
        for (size_t i = 0; i < nd; i++) row[i] = (uint8_t)((lt[at[i]] >> k) & 1u);
    }
  }
  if (out->llr || out->bits) {
    const uint64_t df = link_data_res_per_frame(p);
    const size_t per_re = (size_t)(tx * bps);
    for (size_t i = 0; i < nd; i++) {
      const size_t to = (size_t)(fl * df + pilot_data_index(&s->re.pilots, m0 + at[i])) * per_re;
      for (size_t r = 0; r < per_re; r++) {
        if (out->llr) out->llr[to + r] = f->llr[r * C + i];
        if (out->bits) out->bits[to + r] = f->bits[r * C + i];
      }
    }
  }
  return nd;
}

#if defined(__GNUC__)
#define SOFT_FLATTEN __attribute__((flatten))
#else
#define SOFT_FLATTEN
#endif
#define SOFT_RES_AT(name, bits)                                                                                 \
  static SOFT_FLATTEN size_t name(const link_params *p, const cpu_state *s, const fused_scratch *f,             \
                                  const uint8_t *lab, size_t ldl, uint64_t fl, uint64_t m0, size_t n,        \
                                  batch_result *out, uint64_t *s1_loss) {                                     \
    return soft_res(bits, p, s, f, lab, ldl, fl, m0, n, out, s1_loss);                                        \
  }
SOFT_RES_AT(soft_res_2, 2)
SOFT_RES_AT(soft_res_4, 4)
SOFT_RES_AT(soft_res_6, 6)
SOFT_RES_AT(soft_res_any, p->bps)

/* The soft outputs of the chunk's data REs (cpu_soft_linear's step): LLRs
 * from x_hat and each stream's variance, the GMI losses (at s = 1 per
 * stream; at the grid's other scalings a row of bits at a time, in vector
 * lanes: soft_grid_losses), and the LLRs and bits where the caller asks for
 * them. */
static void chunk_soft(const link_params *p, const cpu_state *s, const fused_scratch *f, const uint8_t *lab,
                       size_t ldl, uint64_t fl, uint64_t m0, size_t n, batch_result *out) {
  const int tx = p->tx, bps = p->bps;
  uint64_t loss[LINK_MAX_TX] = {0}, grid[GMI_GRID] = {0};
  const int at_1 = out->gmi_loss || out->gmi_loss_s; /* receiver.gmi = none: no loss at all */
  /* exact LLRs wanted for their s = 1 loss alone: exact_s1_loss */
  uint64_t *s1 = at_1 && !out->gmi_loss_s && !out->llr && !out->bits && p->llr == LLR_EXACT ? loss : NULL;
  size_t nd; /* the chunk's data REs: rows of f->llr, f->bits */
  switch (bps) { /* a constant bps in each: soft_res's comment says why */
    case 2: nd = soft_res_2(p, s, f, lab, ldl, fl, m0, n, out, s1); break;
    case 4: nd = soft_res_4(p, s, f, lab, ldl, fl, m0, n, out, s1); break;
    case 6: nd = soft_res_6(p, s, f, lab, ldl, fl, m0, n, out, s1); break;
    default: nd = soft_res_any(p, s, f, lab, ldl, fl, m0, n, out, s1); break;
  }
  if (at_1 && !s1) chunk_losses(f, nd, tx, bps, loss);
  if (out->gmi_loss_s) {
    for (int r = 0; r < tx * bps; r++)
      soft_grid_losses(nd, f->llr + (size_t)r * CPU_FUSED_CHUNK, f->bits + (size_t)r * CPU_FUSED_CHUNK, grid);
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
