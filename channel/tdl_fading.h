/* Doppler: the taps of a tdl frame fading in time, written once for both
 * backends (included by .c and .cu files).
 *
 * Each tap of each antenna pair is a sum of sinusoids (the Zheng-Xiao form of
 * Clarke's model) with random phases per frame:
 *
 *   h(t) = sqrt(p_l / M) sum_{m<M} exp(j 2 pi (nu cos(a_m) t + u_{m+1})),
 *   a_m = 2 pi (m + u_0) / M,   M = TDL_SOS_TERMS,
 *
 * t in samples from the start of the frame, nu = f_d / sample rate. Averaged
 * over u_0 the arrival angles a_m cover the circle uniformly, so the
 * autocorrelation E[h(t) h*(t + tau)] is p_l J0(2 pi nu tau) exactly (the
 * Jakes spectrum) for any M; the amplitude is Rayleigh to within the
 * central-limit approximation of M = 20 terms (E|h|^4 = (2 - 1/M) p_l^2).
 * The spatial correlation mixes the antenna pairs of a tap at each instant;
 * the LOS path of tap 0 turns at nu cos(pi/4) (its arrival angle, as
 * Sionna's default), phase 0 at t = 0.
 *
 * The time-domain chain evaluates h per sample (inter-carrier interference
 * appears), as the piecewise cubics of channel/tap_poly.h (tdl_poly_taps,
 * within 2e-5 of tdl_fading_taps relative to the tap's amplitude); the
 * frequency-domain model and the receiver's channel use the
 * average over each symbol's FFT window (n0 .. n0+K-1, n0 = s (K+cp) + cp),
 * which is the ICI-free (diagonal) part of the time-varying channel: each
 * sinusoid's average is its value at the window's centre times the
 * Dirichlet factor sin(pi f K) / (K sin(pi f)). The frequency-domain model
 * has no ICI. All draws are counter based (RNG_DOPPLER, core/draws.h).
 *
 * Drops (channel.drop_frames = N > 1): frame f is frame j = f mod N of drop
 * d = f / N (tdl_drop_frame; a HARQ retransmission's frames form drops of
 * their own). Every draw of the frame (these sinusoids, tdl's static taps,
 * cdl's rays) is keyed by d, and the process runs on across the drop: the
 * frame's sinusoids carry the phase they reach at the frame's start,
 * t0 = j S (K + cp) samples after the drop's (tdl_drop_time), so evaluating
 * them at frame-local times gives h(t0 + t), and E[h(t) h*(t + tau)] =
 * p_l J0(2 pi nu tau) holds across frame boundaries. Drops are independent;
 * N = 1 gives every frame its own realisation, the draws of before. The LOS
 * path's phase is 0 at the drop's start: a frame's buffer ends with one more
 * term, the LOS sinusoid (freq nu cos(pi/4), its phase at t0). */
#ifndef OFDMSIM_TDL_FADING_H
#define OFDMSIM_TDL_FADING_H

#include <math.h>

#include "channel/tap_poly.h"
#include "core/re.h"
#include "core/spatial.h"

#define TDL_SOS_TERMS 20
#define TDL_SOS_DRAWS 6 /* Philox draws per (antenna pair, tap): 1 + 20 uniforms */
#define TDL_LOS_COS 0.70710678118654752

/* One sinusoid: its frequency in cycles per sample and its phase in turns. */
typedef struct sos_term {
  float freq, phase;
} sos_term;

/* What fading needs of a point, by value. */
typedef struct tdl_fade {
  double nu;            /* f_d in cycles per sample */
  double frame_samples; /* S (K + cp): a frame's length in samples */
  uint32_t drop;        /* frames per drop, >= 1 */
  float los_amp[TDL_MAX_TAPS]; /* tap l's line of sight (tdl_pdp_los_amp), 0: none */
  int L, links;
} tdl_fade;

/* The fading parameters of p (host side: the backends pass the result by
 * value). */
static inline tdl_fade tdl_fade_of(const link_params *p) {
  tdl_fade fd;
  fd.nu = link_doppler_per_sample(p);
  fd.frame_samples = (double)p->symbols * (double)(p->subcarriers + p->cp_length);
  fd.drop = p->model == CH_TDL && p->drop_frames > 1 ? (uint32_t)p->drop_frames : 1u;
  for (int l = 0; l < TDL_MAX_TAPS; l++) fd.los_amp[l] = l < p->pdp.taps ? tdl_pdp_los_amp(&p->pdp, l) : 0.0f;
  fd.L = p->pdp.taps;
  fd.links = p->rx * p->tx;
  return fd;
}

/* The frame whose draws `frame` takes: its drop's index d = f / N, f the
 * frame within its HARQ transmission (the bits from RNG_FRAME_BITS up, which
 * name the transmission, are kept). N = 1: the frame itself. */
OFDM_HD uint64_t tdl_drop_frame(tdl_fade fd, uint64_t frame) {
  if (fd.drop <= 1u) return frame;
  const uint64_t low = frame & (RNG_MAX_FRAMES - 1);
  return (frame - low) | (low / fd.drop);
}

/* The time of `frame`'s start in samples from its drop's: j S (K + cp). */
OFDM_HD double tdl_drop_time(tdl_fade fd, uint64_t frame) {
  if (fd.drop <= 1u) return 0.0;
  return (double)((frame & (RNG_MAX_FRAMES - 1)) % fd.drop) * fd.frame_samples;
}

/* A sinusoid's phase (turns, in [0, 1)) at t0 samples on: phase + freq t0,
 * reduced in double. t0 = 0 keeps the phase as drawn. */
OFDM_HD float tdl_phase_at(float freq, float phase, double t0) {
  if (t0 == 0.0) return phase;
  double turns = fma((double)freq, t0, (double)phase);
  turns -= floor(turns);
  const float r = (float)turns;
  return r < 1.0f ? r : 0.0f;
}

/* The M sinusoids of tap q = e*L + l of `frame`: drawn for its drop, their
 * phases advanced to the frame's start within it. */
OFDM_HD void tdl_sos_terms(re_ctx c, tdl_fade fd, uint64_t frame, int q, sos_term *out) {
  float u[4 * TDL_SOS_DRAWS];
  const uint64_t d = tdl_drop_frame(fd, frame);
  const double t0 = tdl_drop_time(fd, frame);
  for (int j = 0; j < TDL_SOS_DRAWS; j++) {
    const rng_words w = re_draw(c, RNG_DOPPLER, d, (uint64_t)q * TDL_SOS_DRAWS + (uint64_t)j);
    for (int k = 0; k < 4; k++) u[4 * j + k] = rng_u01(w.w[k]);
  }
  for (int m = 0; m < TDL_SOS_TERMS; m++) {
    const double a = 6.283185307179586 * ((double)m + (double)u[0]) / TDL_SOS_TERMS;
    out[m].freq = (float)(fd.nu * cos(a));
    out[m].phase = tdl_phase_at(out[m].freq, u[m + 1], t0);
  }
}

/* The sos_terms of one tdl frame's buffer: every tap's sinusoids, then the
 * LOS term (tdl_los_term). */
OFDM_HD size_t tdl_frame_terms(tdl_fade fd) { return (size_t)fd.links * (size_t)fd.L * TDL_SOS_TERMS + 1; }

/* The LOS path's sinusoid for `frame`: nu cos(pi/4), phase 0 at the drop's
 * start. */
OFDM_HD sos_term tdl_los_term(tdl_fade fd, uint64_t frame) {
  sos_term t;
  t.freq = (float)(fd.nu * TDL_LOS_COS);
  t.phase = tdl_phase_at(t.freq, 0.0f, tdl_drop_time(fd, frame));
  return t;
}

/* exp(j 2 pi (f t + phase)), the phase reduced in double (fma: the same on
 * both backends) before the float sine and cosine. */
OFDM_HD cf32 tdl_rotor(float f, float phase, double t) {
  double turns = fma((double)f, t, (double)phase);
  turns -= floor(turns + 0.5);
  float s, co;
  sincos_turns((float)turns, &s, &co);
  return cf_make(co, s);
}

/* The average of exp(j 2 pi f n) over n = 0..K-1 relative to its value at
 * the centre: sin(pi f K) / (K sin(pi f)), 1 at f = 0. */
OFDM_HD float tdl_dirichlet(float f, int K) {
  const double x = 3.141592653589793 * (double)f;
  if (fabs(x) < 1e-12) return 1.0f;
  return (float)(sin(x * K) / (K * sin(x)));
}

/* Link e of tap l at time t (window = 0), or averaged over the K samples
 * centred on t (window = K): the unmixed NLOS part, of power p_l when
 * amp = sqrt(p_l). win: the terms' window factors tdl_dirichlet(freq,
 * window), or NULL to compute them here (they do not depend on t, so a
 * caller that evaluates every symbol of a frame may compute them once: the
 * same values, two double sines a term fewer per symbol). */
OFDM_HD cf32 tdl_sos_value(const sos_term *terms, const float *win, float amp, double t, int window) {
  float re = 0.0f, im = 0.0f;
#ifndef __CUDA_ARCH__
  /* on the host the rotors first, in a loop of their own that GCC
   * vectorises (the sums' fixed order keeps it from vectorising the loop
   * below), then their window factors (cf_scale's two products), then the
   * same sums in the same order: the same values */
  float zr[TDL_SOS_TERMS], zi[TDL_SOS_TERMS], own_win[TDL_SOS_TERMS];
  for (int m = 0; m < TDL_SOS_TERMS; m++) {
    const cf32 z = tdl_rotor(terms[m].freq, terms[m].phase, t);
    zr[m] = z.re;
    zi[m] = z.im;
  }
  if (window) {
    if (!win) {
      for (int m = 0; m < TDL_SOS_TERMS; m++) own_win[m] = tdl_dirichlet(terms[m].freq, window);
      win = own_win;
    }
    for (int m = 0; m < TDL_SOS_TERMS; m++) {
      zr[m] *= win[m];
      zi[m] *= win[m];
    }
  }
  for (int m = 0; m < TDL_SOS_TERMS; m++) {
    re += zr[m];
    im += zi[m];
  }
#else
  for (int m = 0; m < TDL_SOS_TERMS; m++) {
    cf32 z = tdl_rotor(terms[m].freq, terms[m].phase, t);
    if (window) z = cf_scale(z, win ? win[m] : tdl_dirichlet(terms[m].freq, window));
    re += z.re;
    im += z.im;
  }
#endif
  const float scale = amp * 0.22360679774997898f; /* sqrt(1/20) */
  return cf_make(re * scale, im * scale);
}

/* Antenna pair e of tap l at time t (window as tdl_sos_value) before the
 * spatial mixing and the line of sight: the sinusoids of the frame's
 * terms[(e*L + l)*M ...]. */
OFDM_HD cf32 tdl_fading_link_value(tdl_fade fd, const sos_term *terms, const float *win, int l, int e, float amp,
                                   double t, int window) {
  const size_t at = (size_t)(e * fd.L + l) * TDL_SOS_TERMS;
  return tdl_sos_value(terms + at, win ? win + at : NULL, amp, t, window);
}

/* Whether tap l needs tdl_fading_mix after its links' values: the spatial
 * mixing or a line of sight. */
OFDM_HD int tdl_fading_needs_mix(tdl_fade fd, const chan_spatial *s, int l) {
  return s->correlated || fd.los_amp[l] > 0.0f;
}

/* The spatial mixing and the turning LOS path, on h[0..links) holding tap l's
 * unmixed link values (tdl_fading_link_value) at time t. */
OFDM_HD void tdl_fading_mix(tdl_fade fd, const chan_spatial *s, const sos_term *terms, const float *win, int l,
                            float amp, double t, int window, cf32 *h) {
  if (s->correlated) chan_spatial_mix(s, h, 0, amp);
  if (fd.los_amp[l] > 0.0f) {
    const size_t at = tdl_frame_terms(fd) - 1;
    const sos_term lt = terms[at];
    cf32 los = cf_scale(tdl_rotor(lt.freq, lt.phase, t), fd.los_amp[l]);
    if (window) los = cf_scale(los, win ? win[at] : tdl_dirichlet(lt.freq, window));
    for (int e = 0; e < fd.links; e++) h[e] = cf_add(h[e], los);
  }
}

/* Every antenna pair of tap l at time t (window as tdl_sos_value): each
 * link's sinusoids (tdl_fading_link_value), the spatial mixing, and on the
 * taps with a line of sight (tap 0's LOS path, a custom profile's per-tap K)
 * the turning LOS path (the buffer's last term, one phase for every tap).
 * h: links elements. The GPU runs the two steps as two kernels, a thread a
 * link for the first: the same values. */
OFDM_HD void tdl_fading_taps_win(tdl_fade fd, const chan_spatial *s, const sos_term *terms, const float *win, int l,
                                 float amp, double t, int window, cf32 *h) {
  for (int e = 0; e < fd.links; e++) h[e] = tdl_fading_link_value(fd, terms, win, l, e, amp, t, window);
  tdl_fading_mix(fd, s, terms, win, l, amp, t, window, h);
}

/* tdl_fading_taps_win with the window factors computed as it goes. */
OFDM_HD void tdl_fading_taps(tdl_fade fd, const chan_spatial *s, const sos_term *terms, int l, float amp, double t,
                             int window, cf32 *h) {
  tdl_fading_taps_win(fd, s, terms, NULL, l, amp, t, window, h);
}

/* The window factors of a frame's terms for tdl_fading_taps_win, win[j] =
 * tdl_dirichlet(terms[j].freq, window), j over [first, first + n). */
OFDM_HD void tdl_window_factors(const sos_term *terms, size_t first, size_t n, int window, float *win) {
  for (size_t j = first; j < first + n; j++) win[j] = tdl_dirichlet(terms[j].freq, window);
}

/* tdl_fading_taps on the segment centred at tc as cubics in tau = t - tc
 * (channel/tap_poly.h): c[e * TAP_POLY_COEFS + k] for link e. Each
 * sinusoid's Taylor coefficients about tc, scaled as tdl_sos_value, the
 * spatial mixing applied to each power of tau (it is linear), and on the
 * taps with a line of sight the LOS path's. */
OFDM_HD void tdl_poly_taps(tdl_fade fd, const chan_spatial *s, const sos_term *terms, int l, float amp, double tc,
                           cf32 *c) {
  const float scale = amp * 0.22360679774997898f; /* sqrt(1/20), as tdl_sos_value */
  for (int e = 0; e < fd.links; e++) {
    cf32 *ce = c + (size_t)e * TAP_POLY_COEFS;
    const sos_term *t = terms + (size_t)(e * fd.L + l) * TDL_SOS_TERMS;
    tap_poly_zero(ce);
    for (int m = 0; m < TDL_SOS_TERMS; m++) tap_poly_add(ce, tdl_rotor(t[m].freq, t[m].phase, tc), t[m].freq);
    tap_poly_scale(ce, scale);
  }
  if (s->correlated) {
    cf32 h[LINK_MAX_RX * LINK_MAX_TX];
    for (int k = 0; k < TAP_POLY_COEFS; k++) {
      for (int e = 0; e < fd.links; e++) h[e] = c[(size_t)e * TAP_POLY_COEFS + k];
      chan_spatial_mix(s, h, 0, amp);
      for (int e = 0; e < fd.links; e++) c[(size_t)e * TAP_POLY_COEFS + k] = h[e];
    }
  }
  if (fd.los_amp[l] > 0.0f) {
    const sos_term lt = terms[tdl_frame_terms(fd) - 1];
    cf32 los[TAP_POLY_COEFS];
    tap_poly_zero(los);
    const cf32 z = tdl_rotor(lt.freq, lt.phase, tc);
    tap_poly_add(los, cf_make(mul_rn(z.re, fd.los_amp[l]), mul_rn(z.im, fd.los_amp[l])), lt.freq);
    for (int e = 0; e < fd.links; e++)
      for (int k = 0; k < TAP_POLY_COEFS; k++)
        c[(size_t)e * TAP_POLY_COEFS + k] = cf_add(c[(size_t)e * TAP_POLY_COEFS + k], los[k]);
  }
}

/* The centre of symbol s's FFT window, in samples from the frame's start. */
OFDM_HD double tdl_symbol_centre(int s, int K, int cp) {
  return (double)s * (K + cp) + cp + 0.5 * (K - 1);
}

#endif
