/* The per-RE link, written once for both backends: the labels of a resource
 * element's streams, its channel when drawn per RE, y = Hx + n, the CSI error
 * the receiver sees, and the bit errors of a decision. The CPU backend calls
 * these in its loops over REs (cpu/), the CUDA kernels once per thread
 * (cuda/), so both compute the same formula in the same order.
 *
 * Sizes: nt streams and nr receive rows are arguments. The kernels pass
 * compile-time constants (NT = tx, NR = the power of two >= rx) so that after
 * inlining every loop unrolls and the arrays stay in registers; rows rx..nr-1
 * are zero and add exact zeros to the receiver's sums. The CPU passes
 * nt = tx, nr = rx. Element (r,t) of a channel matrix is h[r*nt + t].
 *
 * Draws follow the layouts of core/draws.h: any split of the REs into calls,
 * threads or kernels gives the same numbers. */
#ifndef OFDMSIM_RE_H
#define OFDMSIM_RE_H

#include <math.h>
#include <stdint.h>

#include "core/cplx.h"
#include "core/draws.h"
#include "core/params.h"
#include "core/qam.h"
#include "core/flat_fading.h"
#include "core/rng_words.h"
#include "core/spatial.h"

/* What the per-RE steps need of a point, small enough to pass by value (a
 * kernel argument) and free of pointers but one: with DMRS, the sequence
 * table pilots.dm.seq, which each backend points at its own copy (host or
 * device memory; re_ctx_of leaves it NULL). */
typedef struct re_ctx {
  uint64_t key;     /* the point's Philox key, rng_key(seed, stream key) */
  uint64_t rf;      /* REs per frame: the stride of the draw layouts */
  int tx, rx, links, bps;
  int model;        /* channel_model */
  int fading;       /* fading_kind: which RE's draw a rayleigh RE takes */
  int spatial;      /* correlated or Rician: chan_spatial_mix has work to do */
  float noise_std;  /* sqrt(n0); 0 draws no noise */
  float csi_std;    /* sqrt(csi_error_var); 0: the receiver knows H */
  float csi_shrink; /* 1 / (1 + csi_error_var): Hhat to the LMMSE estimate */
  pilot_grid pilots; /* the frame's pilot REs (core/pilots.h) */
  qam_consts qam;    /* the modulation's constants (qam_consts_of(bps)) */
  flat_fade fd;      /* rayleigh's fading in time and drops (core/flat_fading.h) */
} re_ctx;

/* Draw `index` of (point, purpose, frame): cuRAND's raw Philox4x32-10 on the
 * device and Random123's on the host, bitwise the same words. */
OFDM_HD rng_words re_draw(re_ctx c, uint32_t purpose, uint64_t frame, uint64_t index) {
  return rng_words_at(c.key, purpose, frame, index);
}

/* Labels of the nt streams of RE m: word k of draw b*R_f + m (RNG_BITS) is
 * stream 4b + k, its low bps bits. */
OFDM_HD void re_labels(re_ctx c, uint64_t frame, uint64_t m, int nt, uint32_t *lab) {
  const uint32_t mask = (1u << c.bps) - 1u;
  OFDM_UNROLL
  for (int b = 0; b < (nt + 3) / 4; b++) {
    const rng_words w = re_draw(c, RNG_BITS, frame, (uint64_t)b * c.rf + m);
    OFDM_UNROLL
    for (int k = 0; k < 4; k++)
      if (4 * b + k < nt) lab[4 * b + k] = w.w[k] & mask;
  }
}

/* out[e] (+)= scale * w_e for e < count (<= n), w ~ CN(0,1) in the pair
 * layout: draw (e/2)*R_f + m, words (0,1) -> even e, (2,3) -> odd e.
 * accumulate = 0 overwrites. */
OFDM_HD void re_pair_draws(re_ctx c, uint32_t purpose, uint64_t frame, uint64_t m, int n, int count,
                           float scale, int accumulate, cf32 *out) {
  OFDM_UNROLL
  for (int e = 0; e < n; e += 2) {
    if (e >= count) break;
    const rng_words w = re_draw(c, purpose, frame, (uint64_t)(e / 2) * c.rf + m);
    const cf32 z0 = cf_scale(rng_cnormal_of(w, 0), scale);
    out[e] = accumulate ? cf_add(out[e], z0) : z0;
    if (e + 1 < count && e + 1 < n) {
      const cf32 z1 = cf_scale(rng_cnormal_of(w, 1), scale);
      out[e + 1] = accumulate ? cf_add(out[e + 1], z1) : z1;
    }
  }
}

/* The frame-local RE whose channel draw RE m takes: its own (independent),
 * its subcarrier's on symbol 0 (block: one draw per subcarrier, held over
 * the frame), or RE 0's (flat_block: one for the frame). Frames, or drops
 * of frames (re_channel_frame), are independent draws in every case. */
OFDM_HD uint64_t re_channel_index(re_ctx c, uint64_t m) {
  if (c.fading == FADING_BLOCK) return m % (uint64_t)c.pilots.K;
  return c.fading == FADING_FLAT_BLOCK ? 0 : m;
}

/* The frame index of a rayleigh channel draw: the frame's drop
 * (core/flat_fading.h; the frame itself when drops are one frame). */
OFDM_HD uint64_t re_channel_frame(re_ctx c, uint64_t frame) { return flat_drop_of(c.fd, frame); }

/* The channel of RE m when it is drawn per RE: awgn's identity, or rayleigh's
 * CN(0,1) draws (RNG_CHANNEL, at re_channel_index's RE) through the
 * spatial/Rician mixing of s, or under Doppler its fading process at the
 * RE's symbol (flat_fading_channel).
 * h: nr*nt elements, rows >= rx zeroed. The mixing (chan_spatial_mix) walks
 * run-time sizes, so it works on `scratch` (links elements), not on h: in a
 * kernel only scratch, sized there by the template, needs local memory and h
 * stays in registers. scratch may be h itself on the CPU. */
OFDM_HD void re_channel(re_ctx c, const chan_spatial *s, uint64_t frame, uint64_t m, int nt, int nr,
                        cf32 *h, cf32 *scratch) {
  OFDM_UNROLL
  for (int e = 0; e < nr * nt; e++) h[e] = cf_make(0.0f, 0.0f);
  if (c.model == CH_AWGN) {
    OFDM_UNROLL
    for (int e = 0; e < nr * nt; e++)
      if (e / nt == e % nt && e < c.links) h[e] = cf_make(1.0f, 0.0f);
    return;
  }
  if (c.fd.nu > 0.0) {
    flat_fading_channel(c.key, c.fd, s, frame, m, c.links, scratch);
    OFDM_UNROLL
    for (int e = 0; e < nr * nt; e++)
      if (e < c.links) h[e] = scratch[e];
    return;
  }
  re_pair_draws(c, RNG_CHANNEL, re_channel_frame(c, frame), re_channel_index(c, m), nr * nt, c.links, 1.0f, 0, h);
  if (c.spatial) {
    OFDM_UNROLL
    for (int e = 0; e < nr * nt; e++)
      if (e < c.links) scratch[e] = h[e];
    chan_spatial_mix(s, scratch, 1, 1.0f);
    OFDM_UNROLL
    for (int e = 0; e < nr * nt; e++)
      if (e < c.links) h[e] = scratch[e];
  }
}

/* y = H x, rows >= rx zeroed. The sum is a chain of explicit fmaf
 * (cf_fma_exact) in stream order: every compiler and both backends round it
 * the same way, at float cost on the GPU. */
OFDM_HD void re_mix(re_ctx c, int nt, int nr, const cf32 *h, const cf32 *x, cf32 *y) {
  OFDM_UNROLL
  for (int r = 0; r < nr; r++) {
    cf32 acc = cf_make(0.0f, 0.0f);
    OFDM_UNROLL
    for (int t = 0; t < nt; t++) acc = cf_fma_exact(acc, h[r * nt + t], x[t]);
    y[r] = r < c.rx ? acc : cf_make(0.0f, 0.0f);
  }
}

/* y = H x + sqrt(n0) w (RNG_NOISE), rows >= rx zeroed. */
OFDM_HD void re_apply(re_ctx c, uint64_t frame, uint64_t m, int nt, int nr, const cf32 *h,
                      const cf32 *x, cf32 *y) {
  re_mix(c, nt, nr, h, x, y);
  if (c.noise_std > 0.0f) re_pair_draws(c, RNG_NOISE, frame, m, nr, c.rx, c.noise_std, 1, y);
}

/* Imperfect CSI, in place: Hhat = H + sqrt(csi_error_var) E, E from RNG_CSI
 * in the layout of RNG_CHANNEL, then the LMMSE estimate Hbar = Hhat / (1 +
 * csi_error_var) the receiver works with (link_receiver_n0). n >= links
 * elements. */
OFDM_HD void re_csi(re_ctx c, uint64_t frame, uint64_t m, int n, cf32 *h) {
  if (c.csi_std <= 0.0f) return;
  re_pair_draws(c, RNG_CSI, frame, m, n, c.links, c.csi_std, 1, h);
  OFDM_UNROLL
  for (int e = 0; e < n; e++) h[e] = cf_scale(h[e], c.csi_shrink);
}

/* What the streams of RE m send: the symbols of its labels, or on a pilot
 * RE the pilot of its antenna (core/pilots.h). */
OFDM_HD void re_symbols(re_ctx c, uint64_t m, int nt, const uint32_t *lab, cf32 *x) {
  const int a = pilot_antenna(&c.pilots, m);
  OFDM_UNROLL
  for (int t = 0; t < nt; t++) x[t] = a < 0 ? qam_map_q(&c.qam, lab[t]) : pilot_stream_value(&c.pilots, m, a, t);
}

/* The set bits of a label difference: the bit errors of a decision. */
OFDM_HD uint32_t re_popcount(uint32_t diff) { return ofdm_popcount(diff); }

/* Bit errors of the hard decision on xhat against the transmitted label. */
OFDM_HD uint32_t re_bit_errors(int bps, cf32 xhat, uint32_t label) {
  return re_popcount(qam_demap(bps, xhat) ^ label);
}

/* The same, with the modulation's constants worked out (re_ctx's qam). */
OFDM_HD uint32_t re_bit_errors_q(const qam_consts *q, cf32 xhat, uint32_t label) {
  return re_popcount(qam_demap_q(q, xhat) ^ label);
}

/* The context of a point (host code; kernels get it by value). */
static inline re_ctx re_ctx_of(const link_params *p, const chan_spatial *s) {
  re_ctx c;
  c.key = rng_key(p->seed, p->stream_key);
  c.rf = link_res_per_frame(p);
  c.tx = p->tx;
  c.rx = p->rx;
  c.links = p->tx * p->rx;
  c.bps = p->bps;
  c.model = (int)p->model;
  c.fading = (int)p->fading;
  c.spatial = s && (s->correlated || s->rician);
  c.noise_std = p->n0 > 0.0 ? (float)sqrt(p->n0) : 0.0f;
  c.csi_std = p->csi_error_var > 0.0 ? (float)sqrt(p->csi_error_var) : 0.0f;
  c.csi_shrink = (float)(1.0 / (1.0 + p->csi_error_var));
  c.pilots = link_pilot_grid(p);
  c.qam = qam_consts_of(p->bps);
  c.fd = flat_fade_of(p);
  return c;
}

#endif
