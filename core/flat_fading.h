/* Fading in time for the channels drawn per RE (rayleigh: flat Rayleigh,
 * Rician, Kronecker-correlated), written once for gcc and nvcc, and the
 * drops that carry any rayleigh fading across frames.
 *
 * Doppler (doppler_hz > 0, block or flat_block fading): each link follows
 * Clarke's model as a sum of sinusoids (core/sos.h), one process per
 * subcarrier (block: subcarriers independent, as block fading's draws) or
 * one for the whole band (flat_block), evaluated at the centre of each OFDM
 * symbol: t = (j S + s)(K + cp) + cp + (K - 1)/2 samples, j the frame's
 * index within its drop, s the symbol. So E[h(t) h*(t + tau)] = J0(2 pi nu
 * tau) between any two symbols of a drop, across frame boundaries too.
 * Kronecker correlation mixes the links at each instant (chan_spatial_mix);
 * the Rician LOS part is sqrt(K/(K+1)) exp(j 2 pi nu cos(pi/4) t) on every
 * link (a plane wave arriving at pi/4 to the motion, phase 0 at the drop's
 * start, as the tdl LOS path), the NLOS part scaled by sqrt(1/(K+1)).
 *
 * Drops (drop_frames = N >= 1): frame f belongs to drop d = f / N, and every
 * channel draw of a rayleigh point with block, flat_block or Doppler fading
 * is keyed by d, not f: without Doppler the block draw holds over the drop,
 * with Doppler the process runs on across it. Drops are independent
 * realisations. N = 1 gives the draws of before (d = f).
 *
 * Draws (RNG_FADING, core/draws.h): the SOS_UNIFORMS uniforms of link e of
 * process b (the subcarrier, or 0) are words of draws (b * links + e) *
 * SOS_DRAWS + j, j < SOS_DRAWS, of frame d. */
#ifndef OFDMSIM_FLAT_FADING_H
#define OFDMSIM_FLAT_FADING_H

#include <stdint.h>

#include "core/cplx.h"
#include "core/params.h"
#include "core/rng_words.h"
#include "core/sos.h"
#include "core/spatial.h"

/* What the fading needs of a point, by value (part of core/re.h's re_ctx). */
typedef struct flat_fade {
  double nu;          /* maximum Doppler shift, cycles per sample; 0: none */
  int K, cp, symbols; /* the frame's grid, for the symbols' times */
  int per_subcarrier; /* block: a process per subcarrier; flat_block: one */
  uint32_t drop;      /* frames per drop, >= 1 */
} flat_fade;

static inline flat_fade flat_fade_of(const link_params *p) {
  flat_fade f;
  f.nu = link_flat_doppler_per_sample(p);
  f.K = p->subcarriers;
  f.cp = p->cp_length;
  f.symbols = p->symbols;
  f.per_subcarrier = p->fading == FADING_BLOCK;
  f.drop = p->model == CH_RAYLEIGH && p->drop_frames > 1 ? (uint32_t)p->drop_frames : 1u;
  return f;
}

/* The drop of frame `frame`: the frame index every held channel draw takes. */
OFDM_HD uint64_t flat_drop_of(flat_fade f, uint64_t frame) { return frame / f.drop; }

/* The time of RE m of `frame` in samples from its drop's start. */
OFDM_HD double flat_time(flat_fade f, uint64_t frame, uint64_t m) {
  const uint64_t sym = (frame % f.drop) * (uint64_t)f.symbols + m / (uint64_t)f.K;
  return (double)sym * (double)(f.K + f.cp) + (double)f.cp + 0.5 * (double)(f.K - 1);
}

/* The channel of RE m of `frame` under Doppler: h[e] for e < links (element
 * (r,t) at r*tx + t), mixed and with the LOS part as s says. */
OFDM_HD void flat_fading_channel(uint64_t key, flat_fade f, const chan_spatial *s, uint64_t frame, uint64_t m,
                                 int links, cf32 *h) {
  const uint64_t drop = flat_drop_of(f, frame), b = f.per_subcarrier ? m % (uint64_t)f.K : 0;
  const double t = flat_time(f, frame, m);
  for (int e = 0; e < links; e++) {
    float u[4 * SOS_DRAWS];
    for (int j = 0; j < SOS_DRAWS; j++) {
      const rng_words w = rng_words_at(key, RNG_FADING, drop, (b * (uint64_t)links + (uint64_t)e) * SOS_DRAWS + j);
      for (int k = 0; k < 4; k++) u[4 * j + k] = rng_u01(w.w[k]);
    }
    h[e] = sos_value(u, f.nu, t);
  }
  if (s->correlated) chan_spatial_mix(s, h, 0, 1.0f);
  if (s->rician) {
    const cf32 los = cf_scale(sos_rotor(f.nu * SOS_LOS_COS, 0.0f, t), s->los_amp);
    for (int e = 0; e < links; e++) h[e] = cf_add(cf_scale(h[e], s->nlos_amp), los);
  }
}

#endif
