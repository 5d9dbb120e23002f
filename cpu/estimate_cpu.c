/* The CPU backend's channel estimation from the pilots: per frame and link
 * (r, t), LS and frequency interpolation on each pilot symbol (with DMRS:
 * the despread LS estimates of each occasion first) into the thread's
 * scratch, then time interpolation and the receiver's scaling into Hhat for
 * every RE of the frame (channel/estimate.h's steps); lmmse2d instead takes
 * every RE from the pilots of its window at once (est_2d). */
#include <omp.h>

#include "channel/estimate_2d_block.h"
#include "cpu/cpu_internal.h"

void cpu_estimate_stage(const link_params *p, cpu_state *s, uint64_t frames) {
  const est_plan *e = &s->est;
  const uint64_t rf = link_res_per_frame(p);
  const size_t R = (size_t)(frames * rf), K = (size_t)p->subcarriers;
  const int tx = p->tx, links = p->rx * p->tx, P = p->pilot_spacing;
  const float shrink = (float)e->shrink;
  const long items = (long)frames * links;
#pragma omp parallel for schedule(dynamic, 4) num_threads(s->nthreads)
  for (long it = 0; it < items; it++) {
    const size_t f = (size_t)(it / links);
    const int link = (int)(it % links), r = link / tx, t = link % tx;
    cf32 *hp = s->hp + (size_t)omp_get_thread_num() * est_scratch_elems(e);
    const cf32 *yf = s->y + (size_t)r * R + f * rf;
    cf32 *ls0 = hp + (size_t)e->pilot_syms * K;
    for (int j = 0; j < e->pilot_syms && e->np; j++) {
      cf32 *ls = ls0 + (size_t)j * (size_t)e->np;
      for (int i = 0; i < e->np; i++) ls[i] = est_dmrs_ls(&e->pg, t, j, i, yf);
      for (size_t k = 0; k < K && !e->tt; k++)
        hp[(size_t)j * K + k] = est_freq_dmrs(e->first, e->w, e->taps, (int)K, t, (int)k, ls);
    }
    cf32 *out = s->Hhat + (size_t)link * R + f * rf;
    if (e->tt) {
      /* the window's rows: the DMRS LS estimates, or the comb's received pilot symbols */
      const int np = e->np ? e->np : pilot_count(&e->pg, t), off = e->np ? 0 : t, step = e->np ? 1 : P;
      const size_t stride = e->np ? (size_t)e->np : (size_t)e->pg.every * K;
      for (int sym = 0; sym < p->symbols; sym++) {
        const int lo = e->sym_lo[sym];
        const cf32 *rows = e->np ? ls0 + (size_t)lo * (size_t)e->np : yf + (size_t)pilot_symbol_at(&e->pg, lo) * K;
        for (size_t k = 0; k < K; k += EST_2D_LANES) {
          const int n = K - k < EST_2D_LANES ? (int)(K - k) : EST_2D_LANES;
          cf32 *o = out + (size_t)sym * K + k;
          est_2d_lanes_execute(s->lanes2d, t, sym, (int)k, n, np, off, step, 1, &rows, stride, shrink, &o);
        }
      }
      continue;
    }
    for (int j = 0; j < e->pilot_syms && !e->np; j++) {
      const cf32 *row = yf + (size_t)pilot_symbol_at(&e->pg, j) * K;
      for (size_t k = 0; k < K; k++) hp[(size_t)j * K + k] = est_freq(e->first, e->w, e->taps, P, (int)K, t, (int)k, row, 1);
    }
    for (int sym = 0; sym < p->symbols; sym++) {
      const int lo = e->sym_lo[sym];
      const float wl = e->sym_w[sym];
      const cf32 *a = hp + (size_t)lo * K, *b = wl != 1.0f ? a + K : a;
      for (size_t k = 0; k < K; k++) out[(size_t)sym * K + k] = est_time(wl, a[k], b[k], shrink);
    }
  }
}
