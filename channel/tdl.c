/* The random taps of a tdl frame (tdl.h). */
#include <math.h>

#include <stdlib.h>

#include "channel/cdl_channel.h"
#include "channel/tdl.h"
#include "channel/tdl_fading.h"
#include "core/rng.h"

size_t tdl_fade_terms(const link_params *p) {
  const int links = p->rx * p->tx, L = p->pdp.taps;
  if (link_is_cdl(p)) return (cdl_terms_floats(L, links) * sizeof(float) + sizeof(sos_term) - 1) / sizeof(sos_term);
  return tdl_frame_terms(tdl_fade_of(p));
}

/* The point's cdl geometry; a point that passed link_params_check has one. */
static void geom_of(const link_params *p, cdl_geom *g) {
  char err[160];
  if (cdl_geom_make(p, g, err, sizeof err)) abort();
}

/* cdl: every link's clusters at time t (window as cdl_taps_at). */
static void cdl_taps(const link_params *p, const float *terms, double t, int window, cf32 *taps) {
  const int L = p->pdp.taps, links = p->rx * p->tx;
  cf32 h[LINK_MAX_RX * LINK_MAX_TX];
  for (int l = 0; l < L; l++) {
    cdl_taps_at(terms, L, links, l, t, window, h);
    for (int e = 0; e < links; e++) taps[e * L + l] = h[e];
  }
}

void tdl_draw_taps(const link_params *p, const chan_spatial *s, uint64_t frame, cf32 *taps) {
  if (link_is_cdl(p)) {
    cdl_geom g;
    geom_of(p, &g);
    float *terms = malloc(sizeof(float) * cdl_terms_floats(p->pdp.taps, p->rx * p->tx));
    if (!terms) abort(); /* some 100 KB: no way on without them */
    cdl_draw_terms(p, &g, frame, terms);
    cdl_taps(p, terms, 0.0, 0, taps);
    free(terms);
    return;
  }
  const int L = p->pdp.taps, links = p->rx * p->tx, total = links * L;
  const uint64_t key = rng_key(p->seed, p->stream_key), d = tdl_drop_frame(tdl_fade_of(p), frame);
  float amp[TDL_MAX_TAPS];
  for (int l = 0; l < L; l++) amp[l] = sqrtf(p->pdp.power[l]);
  for (int q = 0; q < total; q += 2) {
    const rng_words w = rng_draw(key, RNG_TAPS, d, (uint64_t)(q / 2));
    taps[q] = cf_scale(rng_cnormal_of(w, 0), amp[q % L]);
    if (q + 1 < total) taps[q + 1] = cf_scale(rng_cnormal_of(w, 1), amp[(q + 1) % L]);
  }
  if (s->correlated) {
    cf32 h[LINK_MAX_RX * LINK_MAX_TX];
    for (int l = 0; l < L; l++) {
      for (int e = 0; e < links; e++) h[e] = taps[e * L + l];
      chan_spatial_mix(s, h, 0, amp[l]);
      for (int e = 0; e < links; e++) taps[e * L + l] = h[e];
    }
  }
  for (int l = 0; l < L; l++) {
    const float los = tdl_pdp_los_amp(&p->pdp, l);
    if (los > 0.0f)
      for (int e = 0; e < links; e++) taps[e * L + l] = tdl_add_los(taps[e * L + l], los);
  }
}

void tdl_draw_sos(const link_params *p, uint64_t frame, sos_term *sos) {
  if (link_is_cdl(p)) {
    cdl_geom g;
    geom_of(p, &g);
    cdl_draw_terms(p, &g, frame, (float *)sos);
    return;
  }
  const re_ctx c = re_ctx_of(p, NULL);
  const tdl_fade fd = tdl_fade_of(p);
  const int total = p->rx * p->tx * p->pdp.taps;
  for (int q = 0; q < total; q++) tdl_sos_terms(c, fd, frame, q, sos + (size_t)q * TDL_SOS_TERMS);
  sos[tdl_frame_terms(fd) - 1] = tdl_los_term(fd, frame);
}

void tdl_frame_window(const link_params *p, const sos_term *sos, float *win) {
  if (link_is_cdl(p)) return;
  tdl_window_factors(sos, 0, tdl_fade_terms(p), p->subcarriers, win);
}

void tdl_symbol_taps(const link_params *p, const chan_spatial *s, const sos_term *sos, int sym, cf32 *taps) {
  tdl_symbol_taps_win(p, s, sos, NULL, sym, taps);
}

void tdl_symbol_taps_win(const link_params *p, const chan_spatial *s, const sos_term *sos, const float *win, int sym,
                         cf32 *taps) {
  const tdl_fade fd = tdl_fade_of(p);
  const double t = tdl_symbol_centre(sym, p->subcarriers, p->cp_length);
  if (link_is_cdl(p)) {
    cdl_taps(p, (const float *)sos, t, p->subcarriers, taps);
    return;
  }
  cf32 h[LINK_MAX_RX * LINK_MAX_TX];
  for (int l = 0; l < fd.L; l++) {
    tdl_fading_taps_win(fd, s, sos, win, l, sqrtf(p->pdp.power[l]), t, p->subcarriers, h);
    for (int e = 0; e < fd.links; e++) taps[e * fd.L + l] = h[e];
  }
}
