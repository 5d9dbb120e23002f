#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/channel_cpu.h"
#include "core/rng.h"
#include "channel/tdl.h"

/* out[e][i] = base[e][i] + scale * w_e(m0 + i) for e < count, w from `purpose`
 * in the pair layout of draws.h: index (e/2)*R_f + m, words (0,1) -> even e,
 * (2,3) -> odd e. base may be NULL (zero) or equal to out. */
static void add_pair_draws(const link_params *p, uint32_t purpose, uint64_t frame, uint64_t m0,
                           size_t n, int count, float scale, const cf32 *base, size_t ldb,
                           cf32 *out, size_t ld) {
  const uint64_t res = link_res_per_frame(p);
  for (int e = 0; e < count; e += 2) {
    const int pair = e + 1 < count;
    const uint64_t first = (uint64_t)(e / 2) * res + m0;
    cf32 *o0 = out + (size_t)e * ld, *o1 = pair ? out + (size_t)(e + 1) * ld : NULL;
    const cf32 *b0 = base ? base + (size_t)e * ldb : NULL;
    const cf32 *b1 = base && pair ? base + (size_t)(e + 1) * ldb : NULL;
    for (size_t i = 0; i < n; i++) {
      const rng_words w = rng_draw(p->seed, p->point_id, purpose, frame, first + i);
      const cf32 z0 = cf_scale(rng_cnormal_of(w, 0), scale);
      o0[i] = b0 ? cf_add(b0[i], z0) : z0;
      if (pair) {
        const cf32 z1 = cf_scale(rng_cnormal_of(w, 1), scale);
        o1[i] = b1 ? cf_add(b1[i], z1) : z1;
      }
    }
  }
}

static void fill_identity(const link_params *p, size_t n, cf32 *H, size_t ldh) {
  for (int r = 0; r < p->rx; r++) {
    for (int t = 0; t < p->tx; t++) {
      const cf32 v = cf_make(r == t ? 1.0f : 0.0f, 0.0f);
      cf32 *row = H + (size_t)(r * p->tx + t) * ldh;
      for (size_t i = 0; i < n; i++) row[i] = v;
    }
  }
}

static void fill_rayleigh(const link_params *p, const chan_spatial *s, uint64_t frame, uint64_t m0,
                          size_t n, cf32 *H, size_t ldh) {
  const int links = p->rx * p->tx;
  add_pair_draws(p, RNG_CHANNEL, frame, m0, n, links, 1.0f, NULL, 0, H, ldh);
  if (!s->correlated && !s->rician) return;
  cf32 h[LINK_MAX_RX * LINK_MAX_TX];
  for (size_t i = 0; i < n; i++) {
    for (int e = 0; e < links; e++) h[e] = H[(size_t)e * ldh + i];
    chan_spatial_mix(s, h, 1, 1.0f);
    for (int e = 0; e < links; e++) H[(size_t)e * ldh + i] = h[e];
  }
}

/* Block fading: every symbol of the frame sees the same response, so the
 * response is computed once per distinct subcarrier of the range. Local row j
 * holds subcarrier (m0 + j) mod K, which is RE i's subcarrier for i = j mod K. */
static void fill_tdl(const link_params *p, const chan_spatial *s, uint64_t frame, uint64_t m0,
                     size_t n, cf32 *H, size_t ldh) {
  const int links = p->rx * p->tx, L = p->pdp.taps, K = p->subcarriers;
  const size_t distinct = n < (size_t)K ? n : (size_t)K;
  cf32 taps[LINK_MAX_RX * LINK_MAX_TX * TDL_MAX_TAPS];
  tdl_draw_taps(p, s, frame, taps);
  cf32 tw[TDL_MAX_TAPS];
  for (size_t j = 0; j < distinct; j++) {
    const int k = (int)((m0 + j) % (uint64_t)K);
    /* tdl_freq_at's sum, with the twiddles shared by all links */
    for (int l = 0; l < L; l++) tw[l] = tdl_twiddle(k, p->pdp.delay[l], K);
    for (int e = 0; e < links; e++) {
      cf32 acc = cf_make(0.0f, 0.0f);
      for (int l = 0; l < L; l++) acc = cf_fma(acc, taps[e * L + l], tw[l]);
      H[(size_t)e * ldh + j] = acc;
    }
  }
  for (int e = 0; e < links; e++) {
    cf32 *row = H + (size_t)e * ldh;
    for (size_t i = distinct; i < n; i++) row[i] = row[i - distinct];
  }
}

void chan_fill(const link_params *p, const chan_spatial *s, uint64_t frame, uint64_t m0, size_t n,
               cf32 *H, size_t ldh) {
  switch (p->model) {
    case CH_AWGN: fill_identity(p, n, H, ldh); break;
    case CH_RAYLEIGH: fill_rayleigh(p, s, frame, m0, n, H, ldh); break;
    case CH_TDL: fill_tdl(p, s, frame, m0, n, H, ldh); break;
  }
}

void chan_apply(const link_params *p, uint64_t frame, uint64_t m0, size_t n, const cf32 *H,
                size_t ldh, const cf32 *x, size_t ldx, cf32 *y, size_t ldy) {
  const int tx = p->tx, rx = p->rx;
  /* Accumulated in double: products of floats are exact there, so the sum
   * rounds the same whether or not the compiler fuses it. GCC 12 vectorises
   * float complex products with vfmaddsub even under -ffp-contract=off, which
   * made a RE's y depend on whether it fell in the vector body or the scalar
   * tail of the loop, i.e. on how the frame was split into calls. */
  for (int r = 0; r < rx; r++) {
    cf32 *yr = y + (size_t)r * ldy;
    for (size_t i = 0; i < n; i++) {
      double re = 0.0, im = 0.0;
      for (int t = 0; t < tx; t++) {
        const cf32 h = H[(size_t)(r * tx + t) * ldh + i], v = x[(size_t)t * ldx + i];
        re += (double)h.re * v.re - (double)h.im * v.im;
        im += (double)h.re * v.im + (double)h.im * v.re;
      }
      yr[i] = cf_make((float)re, (float)im);
    }
  }
  if (p->n0 > 0.0)
    add_pair_draws(p, RNG_NOISE, frame, m0, n, rx, (float)sqrt(p->n0), y, ldy, y, ldy);
}

void chan_csi_error(const link_params *p, uint64_t frame, uint64_t m0, size_t n, const cf32 *H,
                    size_t ldh, cf32 *Hhat, size_t ldhh) {
  const int links = p->rx * p->tx;
  if (p->csi_error_var > 0.0) {
    add_pair_draws(p, RNG_CSI, frame, m0, n, links, (float)sqrt(p->csi_error_var), H, ldh, Hhat,
                   ldhh);
    return;
  }
  for (int e = 0; e < links; e++) {
    if (H + (size_t)e * ldh != Hhat + (size_t)e * ldhh)
      memmove(Hhat + (size_t)e * ldhh, H + (size_t)e * ldh, n * sizeof *H);
  }
}
