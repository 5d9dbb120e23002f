/* The CPU backend's fused path: each chunk of CPU_FUSED_CHUNK REs of a frame
 * goes through the whole link (draws, y = Hx + n, CSI error, Gram, inverse,
 * equalisation, the double-precision repair of flagged REs, and the bit
 * errors) in its thread's scratch, which stays in cache; one parallel region
 * a batch. Every step is the staged path's own function on a shorter
 * stride, but for the equaliser of 2x2 and 4x4, which runs in one pass
 * (eq_solve_direct) with the three passes' bits; so the counts are the
 * staged path's bit for bit (tests/cpu/test_fused_cpu.c). What it leaves to
 * the staged path: cpu_fused_covers. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "cpu/channel_cpu.h"
#include "cpu/cpu_internal.h"
#include "cpu/draws_block.h"
#include "equalizer/equalizer.h"
#include "equalizer/fallback.h"

int cpu_fused_covers(const link_params *p) {
  return p->domain == DOMAIN_FREQUENCY && link_detector_is_linear(p->equalizer) &&
         p->llr == LLR_OFF && p->estimation == EST_PERFECT;
}

/* Scratch of one thread, every array [elements][CPU_FUSED_CHUNK]. */
typedef struct fused_scratch {
  uint8_t *labels;
  cf32 *x, *H, *Hhat, *y, *G, *Ginv, *z, *xhat;
  cf32 *Hk;          /* tdl without Doppler: [links][K] of frame `frame` */
  sos_term *sos;     /* tdl with Doppler: the sinusoids of frame `frame` */
  uint64_t frame;    /* the frame Hk or sos holds (UINT64_MAX: none) */
} fused_scratch;

size_t cpu_fused_scratch_bytes(const link_params *p) {
  const size_t tx = (size_t)p->tx, rx = (size_t)p->rx, links = tx * rx;
  size_t per_re = tx + sizeof(cf32) * (tx + links + rx + 2 * tx * tx + 2 * tx);
  if (p->csi_error_var > 0) per_re += sizeof(cf32) * links;
  size_t b = per_re * CPU_FUSED_CHUNK;
  if (p->model == CH_TDL) b += sizeof(cf32) * links * (size_t)p->subcarriers;
  if (link_doppler_per_sample(p) > 0.0) b += sizeof(sos_term) * tdl_fade_terms(p);
  return b + 64 * 11; /* alignment of each array */
}

/* Carves one thread's arrays out of its block (64-byte aligned). */
static fused_scratch carve(const link_params *p, unsigned char *block) {
  const size_t tx = (size_t)p->tx, rx = (size_t)p->rx, links = tx * rx, C = CPU_FUSED_CHUNK;
  size_t at = 0;
#define TAKE(bytes) (at = (at + 63) & ~(size_t)63, at += (bytes), (void *)(block + at - (bytes)))
  fused_scratch f;
  f.labels = TAKE(tx * C);
  f.x = TAKE(sizeof(cf32) * tx * C);
  f.H = TAKE(sizeof(cf32) * links * C);
  f.Hhat = p->csi_error_var > 0 ? TAKE(sizeof(cf32) * links * C) : f.H;
  f.y = TAKE(sizeof(cf32) * rx * C);
  f.G = TAKE(sizeof(cf32) * tx * tx * C);
  f.Ginv = TAKE(sizeof(cf32) * tx * tx * C);
  f.z = TAKE(sizeof(cf32) * tx * C);
  f.xhat = TAKE(sizeof(cf32) * tx * C);
  f.Hk = p->model == CH_TDL ? TAKE(sizeof(cf32) * links * (size_t)p->subcarriers) : NULL;
  f.sos = link_doppler_per_sample(p) > 0.0 ? TAKE(sizeof(sos_term) * tdl_fade_terms(p))
                                           : NULL;
#undef TAKE
  f.frame = UINT64_MAX;
  return f;
}

/* H of the chunk: drawn per RE, or the frame's per-subcarrier response, or
 * with Doppler each symbol's from the frame's sinusoids (the response or the
 * sinusoids kept per thread across the frame's chunks) -- as the draw stage
 * makes it. */
static void chunk_channel(const link_params *p, cpu_state *s, fused_scratch *f, uint64_t frame, uint64_t m0,
                          size_t n) {
  const size_t C = CPU_FUSED_CHUNK;
  if (p->model != CH_TDL) {
    block_channel(&s->re, &s->spatial, frame, m0, n, f->H, C);
    return;
  }
  if (f->sos) {
    if (f->frame != frame) tdl_draw_sos(p, frame, f->sos);
    f->frame = frame;
    chan_fill_fading(p, &s->spatial, &s->grid, f->sos, m0, n, f->H, C);
    return;
  }
  const int links = p->rx * p->tx, K = p->subcarriers;
  if (f->frame != frame) {
    cf32 taps[LINK_MAX_RX * LINK_MAX_TX * TDL_MAX_TAPS];
    tdl_draw_taps(p, &s->spatial, frame, taps);
    tdl_response(&s->grid, links, taps, 0, K, f->Hk, (size_t)K);
    f->frame = frame;
  }
  for (int e = 0; e < links; e++)
    for (size_t j = 0; j < n;) { /* runs of consecutive subcarriers */
      const size_t k = (size_t)((m0 + j) % (uint64_t)K), run = (size_t)K - k < n - j ? (size_t)K - k : n - j;
      memcpy(f->H + (size_t)e * C + j, f->Hk + (size_t)e * K + k, sizeof(cf32) * run);
      j += run;
    }
}

/* The flagged REs of the chunk in double (cpu_repair_flagged's step). */
static uint32_t chunk_repair(const link_params *p, fused_scratch *f, size_t n, float diag) {
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
      for (int e = 0; e < rx * tx; e++) h[e] = f->Hhat[(size_t)e * C + i];
      for (int r = 0; r < rx; r++) y[r] = f->y[(size_t)r * C + i];
      solved += (uint32_t)eq_solve_double(rx, tx, h, y, diag, x, NULL);
      for (int k = 0; k < tx; k++) f->xhat[(size_t)k * C + i] = x[k];
    }
  }
  return solved;
}

void cpu_fused_run(const link_params *p, cpu_state *s, uint64_t first_frame, uint64_t frames, batch_result *out) {
  const double t0 = clock_seconds();
  const uint64_t rf = link_res_per_frame(p);
  const uint64_t chunks_per_frame = (rf + CPU_FUSED_CHUNK - 1) / CPU_FUSED_CHUNK;
  const long items = (long)(frames * chunks_per_frame);
  const int tx = p->tx;
  const size_t C = CPU_FUSED_CHUNK;
  const float diag = link_mmse_diagonal(p);
  /* contiguous runs of items a thread, so that a tdl frame's response is
   * made about once */
#pragma omp parallel num_threads(s->nthreads)
  {
    fused_scratch f = carve(p, s->fused + (size_t)omp_get_thread_num() * s->fused_stride);
#pragma omp for schedule(static)
    for (long it = 0; it < items; it++) {
      const uint64_t fl = (uint64_t)it / chunks_per_frame, frame = first_frame + fl;
      const uint64_t m0 = ((uint64_t)it % chunks_per_frame) * C;
      const size_t n = (size_t)(rf - m0 < C ? rf - m0 : C);
      block_symbols(&s->re, frame, m0, n, f.labels, f.x, C);
      chunk_channel(p, s, &f, frame, m0, n);
      block_apply(&s->re, frame, m0, n, f.H, C, f.x, C, f.y, C);
      if (f.Hhat != f.H) block_csi(&s->re, frame, m0, n, f.H, C, f.Hhat, C);
      /* the one-pass kernel where it has one, the three passes on the rest */
      const size_t d = eq_solve_direct(p->rx, tx, f.Hhat, C, f.y, C, diag, diag, f.xhat, C, n);
      if (d < n) {
        eq_gram(p->rx, tx, f.Hhat + d, C, f.y + d, C, diag, f.G, C, f.z, C, n - d);
        eq_invert(tx, f.G, C, f.Ginv, C, n - d);
        eq_apply(tx, f.Ginv, C, f.z, C, diag, f.xhat + d, C, n - d);
      }
      const uint32_t solved = chunk_repair(p, &f, n, diag);
      if (solved && out->fallbacks) {
#pragma omp atomic
        out->fallbacks[fl] += solved;
      }
      for (int t = 0; t < tx; t++) {
        const uint32_t e = cpu_chunk_bit_errors(p, &s->re.pilots, m0, n, f.xhat + (size_t)t * C,
                                                f.labels + (size_t)t * C);
#pragma omp atomic
        out->errors[fl * (uint64_t)tx + (uint64_t)t] += e;
      }
    }
  }
  /* one pass does it all: reported as the inversion stage, as the GPU's
   * fused kernel is */
  out->t.invert = clock_seconds() - t0;
  out->inversions = (uint64_t)frames * rf;
}
