/* The CPU backend's draw stage: labels and symbols, the channel of every RE
 * (per RE for awgn/rayleigh, per frame and subcarrier for tdl), and the
 * receiver's imperfect estimate of it. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/channel_cpu.h"
#include "cpu/cpu_internal.h"
#include "cpu/draws_block.h"

/* Taps and per-subcarrier H of a tdl frame: the same H for each symbol, or
 * with Doppler each symbol's from its window-averaged taps (the sinusoids
 * kept in sos for the time-domain modem). */
static void fill_tdl_frame(const link_params *p, cpu_state *s, uint64_t frame, cf32 *taps, sos_term *sos,
                           cf32 *Hk, cf32 *H, size_t ld) {
  const int links = p->rx * p->tx, K = p->subcarriers;
  if (sos) {
    tdl_draw_sos(p, frame, sos);
    float *win = link_is_cdl(p) ? NULL : malloc(sizeof(float) * tdl_fade_terms(p));
    if (win) tdl_frame_window(p, sos, win); /* (without it, the same taps computed as they go) */
    for (int sym = 0; sym < p->symbols; sym++) {
      tdl_symbol_taps_win(p, &s->spatial, sos, win, sym, taps);
      tdl_response(&s->grid, links, taps, 0, K, Hk, (size_t)K);
      for (int e = 0; e < links; e++)
        memcpy(H + (size_t)e * ld + (size_t)sym * K, Hk + (size_t)e * K, sizeof(cf32) * K);
    }
    free(win);
    return;
  }
  tdl_draw_taps(p, &s->spatial, frame, taps);
  tdl_response(&s->grid, links, taps, 0, K, Hk, (size_t)K);
  for (int e = 0; e < links; e++)
    for (int sym = 0; sym < p->symbols; sym++)
      memcpy(H + (size_t)e * ld + (size_t)sym * K, Hk + (size_t)e * K, sizeof(cf32) * K);
}

void cpu_draw_stage(const link_params *p, cpu_state *s, uint64_t first_frame, uint64_t frames) {
  const uint64_t rf = link_res_per_frame(p);
  const size_t R = (size_t)(frames * rf);
  const int links = p->rx * p->tx;
  const uint64_t chunks_per_frame = (rf + CPU_CHUNK - 1) / CPU_CHUNK;
  const long items = (long)(frames * chunks_per_frame);
#pragma omp parallel for schedule(dynamic, 4)
  for (long it = 0; it < items; it++) {
    const frame_chunk c = cpu_chunk_of(it, rf, chunks_per_frame);
    block_symbols(&s->re, first_frame + c.f, c.m0, c.n, s->labels + c.o, s->x + c.o, R);
    if (p->model != CH_TDL) chan_fill(p, &s->spatial, NULL, first_frame + c.f, c.m0, c.n, s->H + c.o, R);
  }
  if (p->model == CH_TDL) {
    /* Hk is scratch per thread, sized when the backend was made. */
#pragma omp parallel for schedule(dynamic, 1) num_threads(s->nthreads)
    for (long f = 0; f < (long)frames; f++) {
      const int th = omp_get_thread_num();
      const size_t q = (size_t)f * links * p->pdp.taps;
      fill_tdl_frame(p, s, first_frame + (uint64_t)f, s->taps + q, s->sos ? s->sos + (size_t)f * tdl_fade_terms(p) : NULL,
                     s->Hk + (size_t)th * links * p->subcarriers, s->H + (size_t)f * rf, R);
    }
  }
  if (s->Hhat != s->H) {
#pragma omp parallel for schedule(dynamic, 4)
    for (long it = 0; it < items; it++) {
      const frame_chunk c = cpu_chunk_of(it, rf, chunks_per_frame);
      chan_csi_error(p, first_frame + c.f, c.m0, c.n, s->H + c.o, R, s->Hhat + c.o, R);
    }
  }
}
