/* Frequency-domain channel of a frame's resource elements: the channel
 * matrices, y = Hx + n, and the estimation error an imperfect receiver sees.
 *
 * Addressing shared by every call: a call covers the frame-local REs
 * [m0, m0+n) of `frame` (m = symbol*subcarriers + subcarrier); the pointers
 * point at RE m0 and element e of RE i lives at ptr[e*ld + i]. All draws come
 * from the per-RE steps of core/re.h (layouts of core/draws.h), so any split of a frame
 * into calls gives the same numbers. */
#ifndef OFDMSIM_CHANNEL_H
#define OFDMSIM_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "channel/tdl_fading.h"
#include "channel/tdl_grid.h"
#include "core/spatial.h"
#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* H of REs [m0, m0+n) of `frame`, element e = r*tx + t.
 *  awgn:     the identity (H[r][t] = 1 when r == t).
 *  rayleigh: i.i.d. CN(0,1) per RE and element (RNG_CHANNEL), then spatial/Rician.
 *  tdl:      the frame's taps (tdl_draw_taps, p->pdp) through the point's
 *            tables g (tdl_response) on each RE's subcarrier, the same for
 *            every symbol of the frame (block fading); with Doppler each
 *            symbol's own (tdl_symbol_taps). g: NULL unless tdl. */
void chan_fill(const link_params *p, const chan_spatial *s, const tdl_grid *g, uint64_t frame, uint64_t m0,
               size_t n, cf32 *H, size_t ldh);

/* What chan_fill_fading reads and keeps of one frame across its calls: the
 * frame's sinusoids (tdl_draw_sos), their window factors (tdl_frame_window;
 * NULL: computed as it goes, as a cdl point always does), and the taps of
 * the last symbol evaluated, taps_sym (-1: none; taps NULL: none kept, a
 * symbol's taps computed at every call). A frame's chunks that each cover
 * part of a symbol then evaluate its sum of sinusoids once. */
typedef struct fading_frame {
  const sos_term *sos;
  const float *win;
  cf32 *taps; /* [links][TDL_MAX_TAPS] */
  int taps_sym;
} fading_frame;

/* chan_fill's tdl with Doppler: each symbol's window-averaged taps through
 * the response on its subcarriers. For a caller that keeps a frame's
 * sinusoids across calls. */
void chan_fill_fading(const link_params *p, const chan_spatial *s, const tdl_grid *g, fading_frame *ff, uint64_t m0,
                      size_t n, cf32 *H, size_t ldh);

/* y = H x + sqrt(n0) w, w ~ CN(0,1) from RNG_NOISE. x: [tx] with stride ldx,
 * y: [rx] with stride ldy. */
void chan_apply(const link_params *p, uint64_t frame, uint64_t m0, size_t n, const cf32 *H,
                size_t ldh, const cf32 *x, size_t ldx, cf32 *y, size_t ldy);

/* Imperfect CSI: the receiver's LMMSE estimate (H + sqrt(csi_error_var) E) /
 * (1 + csi_error_var), E ~ CN(0,1) from RNG_CSI (layout of RNG_CHANNEL); see
 * link_receiver_n0. Hhat may be H itself (ldhh == ldh). */
void chan_csi_error(const link_params *p, uint64_t frame, uint64_t m0, size_t n, const cf32 *H,
                    size_t ldh, cf32 *Hhat, size_t ldhh);

#ifdef __cplusplus
}
#endif
#endif
