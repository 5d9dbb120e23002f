/* The frequency-domain channel stage of the CPU backend: the per-RE steps of
 * core/re.h over a frame's REs in struct-of-arrays buffers, as the vector
 * loops of draws_block.h compute them. */
#include "cpu/channel_cpu.h"

#include <stdlib.h>
#include <string.h>

#include "channel/tdl.h"
#include "core/re.h"
#include "cpu/draws_block.h"

void chan_fill_fading(const link_params *p, const chan_spatial *s, const tdl_grid *g, fading_frame *ff, uint64_t m0,
                      size_t n, cf32 *H, size_t ldh) {
  const int links = p->rx * p->tx, K = p->subcarriers;
  cf32 own[LINK_MAX_RX * LINK_MAX_TX * TDL_MAX_TAPS];
  cf32 *taps = ff->taps ? ff->taps : own;
  for (size_t j = 0; j < n;) {
    const uint64_t m = m0 + j;
    const int sym = (int)(m / (uint64_t)K), k = (int)(m % (uint64_t)K);
    const size_t run = (size_t)(K - k) < n - j ? (size_t)(K - k) : n - j;
    if (!ff->taps || ff->taps_sym != sym) {
      tdl_symbol_taps_win(p, s, ff->sos, ff->win, sym, taps);
      ff->taps_sym = ff->taps ? sym : -1;
    }
    tdl_response(g, links, taps, k, (int)run, H + j, ldh);
    j += run;
  }
}

/* With Doppler: the frame's sinusoids, then chan_fill_fading. */
static void fill_fading(const link_params *p, const chan_spatial *s, const tdl_grid *g, uint64_t frame,
                        uint64_t m0, size_t n, cf32 *H, size_t ldh) {
  sos_term *sos = malloc(sizeof *sos * tdl_fade_terms(p));
  if (!sos) abort(); /* some KB: no way on without them */
  tdl_draw_sos(p, frame, sos);
  fading_frame ff = {sos, NULL, NULL, -1};
  chan_fill_fading(p, s, g, &ff, m0, n, H, ldh);
  free(sos);
}

/* Block fading: every symbol of the frame sees the same response, so the
 * response is computed once per distinct subcarrier of the range. Local row j
 * holds subcarrier (m0 + j) mod K, which is RE i's subcarrier for i = j mod K. */
static void fill_tdl(const link_params *p, const chan_spatial *s, const tdl_grid *g, uint64_t frame,
                     uint64_t m0, size_t n, cf32 *H, size_t ldh) {
  if (link_doppler_per_sample(p) > 0.0) {
    fill_fading(p, s, g, frame, m0, n, H, ldh);
    return;
  }
  const int links = p->rx * p->tx, K = p->subcarriers;
  const size_t distinct = n < (size_t)K ? n : (size_t)K;
  cf32 taps[LINK_MAX_RX * LINK_MAX_TX * TDL_MAX_TAPS];
  tdl_draw_taps(p, s, frame, taps);
  for (size_t j = 0; j < distinct;) { /* runs of consecutive subcarriers */
    const int k = (int)((m0 + j) % (uint64_t)K);
    const size_t run = (size_t)(K - k) < distinct - j ? (size_t)(K - k) : distinct - j;
    tdl_response(g, links, taps, k, (int)run, H + j, ldh);
    j += run;
  }
  for (int e = 0; e < links; e++) {
    cf32 *row = H + (size_t)e * ldh;
    for (size_t i = distinct; i < n; i++) row[i] = row[i - distinct];
  }
}

void chan_fill(const link_params *p, const chan_spatial *s, const tdl_grid *g, uint64_t frame, uint64_t m0,
               size_t n, cf32 *H, size_t ldh) {
  if (p->model == CH_TDL) {
    fill_tdl(p, s, g, frame, m0, n, H, ldh);
    return;
  }
  const re_ctx c = re_ctx_of(p, s);
  block_channel(&c, s, frame, m0, n, H, ldh);
}

void chan_apply(const link_params *p, uint64_t frame, uint64_t m0, size_t n, const cf32 *H,
                size_t ldh, const cf32 *x, size_t ldx, cf32 *y, size_t ldy) {
  const re_ctx c = re_ctx_of(p, NULL);
  block_apply(&c, frame, m0, n, H, ldh, x, ldx, y, ldy);
}

void chan_csi_error(const link_params *p, uint64_t frame, uint64_t m0, size_t n, const cf32 *H,
                    size_t ldh, cf32 *Hhat, size_t ldhh) {
  const re_ctx c = re_ctx_of(p, NULL);
  block_csi(&c, frame, m0, n, H, ldh, Hhat, ldhh);
}
