/* The time-domain OFDM link of one frame on FFTW (ofdm.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel/cdl_channel.h"
#include "channel/fft_plan.h"
#include "channel/ofdm.h"
#include "channel/tdl.h"
#include "core/rng.h"

struct ofdm_modem {
  int tx, rx, K, symbols, cp;
  size_t frame_samples; /* N_f = symbols*(K + cp) */
  channel_model model;
  const tdl_grid *grid; /* tdl: the discrete taps and the window rotation */
  tdl_fade fade;        /* tdl with Doppler: taps that fade per sample */
  int poly_len;         /* ... as cubics on segments of this many samples (tap_poly.h) */
  int cdl;              /* a cdl point: the fading buffer holds ray terms */
  chan_spatial spatial;
  float amp[TDL_MAX_TAPS];
  uint64_t key; /* the point's Philox key */
  float scale; /* 1/sqrt(K): both transforms unitary */
  fftwf_complex *buf;
  fftwf_plan ifft, fft; /* in place on an aligned K-sample block */
};

ofdm_modem *ofdm_modem_create(const link_params *p, const tdl_grid *grid, char *err, size_t errlen) {
  if (!p) {
    snprintf(err, errlen, "ofdm_modem_create: NULL parameters");
    return NULL;
  }
  char why[384];
  if (link_params_check(p, why, sizeof why)) {
    snprintf(err, errlen, "ofdm modem: %s", why);
    return NULL;
  }
  if (p->model != CH_AWGN && p->model != CH_TDL) {
    snprintf(err, errlen,
             "ofdm modem: the time-domain link needs channel model tdl or awgn (rayleigh is "
             "i.i.d. per resource element and has no time-domain form)");
    return NULL;
  }
  if (p->model == CH_TDL && (!grid || grid->K != p->subcarriers || grid->L != p->pdp.taps || !grid->td_taps)) {
    snprintf(err, errlen, "ofdm modem: tdl needs the point's time-domain tap tables");
    return NULL;
  }
  ofdm_modem *m = calloc(1, sizeof *m);
  if (!m) {
    snprintf(err, errlen, "ofdm modem: out of memory");
    return NULL;
  }
  m->tx = p->tx;
  m->rx = p->rx;
  m->K = p->subcarriers;
  m->symbols = p->symbols;
  m->cp = p->cp_length;
  m->frame_samples = (size_t)p->symbols * (size_t)(p->subcarriers + p->cp_length);
  m->model = p->model;
  m->cdl = link_is_cdl(p);
  m->grid = p->model == CH_TDL ? grid : NULL;
  if (p->model == CH_TDL) {
    m->fade = tdl_fade_of(p);
    m->poly_len = tap_poly_len(m->fade.nu, m->frame_samples);
    for (int l = 0; l < p->pdp.taps; l++) m->amp[l] = sqrtf(p->pdp.power[l]);
    if (chan_spatial_init(p, &m->spatial, err, errlen)) {
      free(m);
      return NULL;
    }
  }
  m->key = rng_key(p->seed, p->stream_key);
  m->scale = (float)(1.0 / sqrt((double)p->subcarriers));
  m->buf = fftwf_malloc(sizeof(fftwf_complex) * (size_t)m->K);
  if (m->buf) {
    m->ifft = fft_plan_1d(m->K, m->buf, FFTW_BACKWARD, 0);
    m->fft = fft_plan_1d(m->K, m->buf, FFTW_FORWARD, 0);
  }
  if (!m->buf || !m->ifft || !m->fft) {
    snprintf(err, errlen, "ofdm modem: FFTW could not plan a %d-point transform", m->K);
    ofdm_modem_destroy(m);
    return NULL;
  }
  return m;
}

/* Modulates antenna t's symbols into its stream: per symbol, CP then body. */
static void transmit(const ofdm_modem *m, const cf32 *x, cf32 *block, cf32 *stream) {
  const int K = m->K, cp = m->cp;
  for (int sym = 0; sym < m->symbols; sym++) {
    memcpy(block, x + (size_t)sym * K, sizeof *block * (size_t)K);
    fftwf_execute_dft(m->ifft, (fftwf_complex *)block, (fftwf_complex *)block);
    cf32 *out = stream + (size_t)sym * (K + cp);
    for (int i = 0; i < cp; i++) out[i] = cf_scale(block[K - cp + i], m->scale);
    for (int i = 0; i < K; i++) out[cp + i] = cf_scale(block[i], m->scale);
  }
}

/* z += h * s delayed by d samples (zeros before the frame; what spills past
 * its end belongs to the next frame, which is not modelled). */
static void add_delayed(size_t N, cf32 h, int d, const cf32 *s, cf32 *z) {
  if ((size_t)d >= N) return;
  for (size_t n = (size_t)d; n < N; n++) z[n] = cf_fma(z[n], h, s[n - d]);
}

/* Samples a block of the fading channel (its scratch: fade_floats). */
enum { FADE_BLOCK = 256 };

/* Floats of fading_channel's scratch: the streams split into real and
 * imaginary parts [tx][N] each, then per block u [tx], one tap's h [links],
 * z [rx] (real and imaginary rows of FADE_BLOCK each) and tau. */
static size_t fade_floats(int tx, int rx, size_t N) {
  return 2 * (size_t)tx * N + (2 * (size_t)(tx + tx * rx + rx) + 1) * FADE_BLOCK;
}

/* With Doppler: sample n of receive antenna r gets sum_l sum_t h_rt,l(n)
 * sum_i c_l,i s_t(n - first_l - i), the taps at n from their cubics on n's
 * segment (channel/tap_poly.h: tdl_poly_taps, or a cdl point's
 * cdl_poly_taps, made once a segment into coef) and each tap's interpolator
 * of the grid. Per sample the operations are the GPU's modem's, in its
 * order (tap by tap, streams inside, the interpolator's terms in order, the
 * rows last; explicit fmaf), so both backends round alike; here they run
 * over blocks of samples of one segment and one symbol's window, each step
 * a loop over the block that the compiler vectorises. The CP's samples are
 * skipped: receive() drops them. */
static void fading_channel(const ofdm_modem *m, const sos_term *sos, size_t N, const cf32 *sent, cf32 *got,
                           cf32 *coef, float *work) {
  const tdl_grid *g = m->grid;
  const int tx = m->tx, rx = m->rx, links = tx * rx, len = m->poly_len, B = FADE_BLOCK;
  const size_t span = (size_t)m->K + (size_t)m->cp, per_tap = (size_t)links * TAP_POLY_COEFS;
  float *sr = work, *si = sr + (size_t)tx * N;
  float *ur = si + (size_t)tx * N, *ui = ur + (size_t)tx * B, *hr = ui + (size_t)tx * B, *hi = hr + (size_t)links * B;
  float *zr = hi + (size_t)links * B, *zi = zr + (size_t)rx * B, *tau = zi + (size_t)rx * B;
  for (size_t n = 0; n < (size_t)tx * N; n++) {
    sr[n] = sent[n].re;
    si[n] = sent[n].im;
  }
  uint64_t have = UINT64_MAX; /* the segment whose cubics coef holds */
  for (int sym = 0; sym < m->symbols; sym++) {
    const size_t w1 = (size_t)(sym + 1) * span;
    for (size_t n0 = (size_t)sym * span + (size_t)m->cp; n0 < w1;) {
      const uint64_t seg = n0 / (size_t)len;
      size_t n1 = n0 + (size_t)B < w1 ? n0 + (size_t)B : w1;
      if (n1 > (seg + 1) * (size_t)len) n1 = (seg + 1) * (size_t)len;
      const int nb = (int)(n1 - n0);
      if (seg != have) {
        const double tc = tap_poly_centre(seg, len);
        for (int l = 0; l < g->L; l++) {
          if (m->cdl) cdl_poly_taps((const float *)sos, g->L, links, l, tc, coef + l * per_tap);
          else tdl_poly_taps(m->fade, &m->spatial, sos, l, m->amp[l], tc, coef + l * per_tap);
        }
        have = seg;
      }
      for (int b = 0; b < nb; b++) tau[b] = tap_poly_tau(n0 + (size_t)b, len);
      memset(zr, 0, sizeof *zr * (size_t)rx * B);
      memset(zi, 0, sizeof *zi * (size_t)rx * B);
      for (int l = 0; l < g->L; l++) {
        /* each stream through tap l's interpolator (terms before the
         * frame's start skipped) */
        for (int t = 0; t < tx; t++) {
          float *restrict ar = ur + (size_t)t * B, *restrict ai = ui + (size_t)t * B;
          memset(ar, 0, sizeof *ar * (size_t)nb);
          memset(ai, 0, sizeof *ai * (size_t)nb);
          for (int i = 0; i < g->tap_count[l]; i++) {
            const size_t d = (size_t)g->tap_first[l] + (size_t)i;
            const float c = g->tap_coef[l][i];
            const int b0 = d > n0 ? (int)(d - n0 < (size_t)nb ? d - n0 : (size_t)nb) : 0;
            if (b0 >= nb) continue;
            /* sample n0 + b - d of the stream, from the block's first that exists */
            const size_t q0 = n0 + (size_t)b0 - d;
            const float *restrict xr = sr + (size_t)t * N + q0, *restrict xi = si + (size_t)t * N + q0;
            for (int b = b0; b < nb; b++) {
              ar[b] = fmaf(c, xr[b - b0], ar[b]);
              ai[b] = fmaf(c, xi[b - b0], ai[b]);
            }
          }
        }
        /* every link's tap l at the block's samples (tap_poly_eval) */
        for (int e = 0; e < links; e++) {
          const cf32 *ce = coef + l * per_tap + (size_t)e * TAP_POLY_COEFS;
          float *restrict pr = hr + (size_t)e * B, *restrict pi = hi + (size_t)e * B;
          for (int b = 0; b < nb; b++) {
            float vr = ce[TAP_POLY_COEFS - 1].re, vi = ce[TAP_POLY_COEFS - 1].im;
            for (int k = TAP_POLY_COEFS - 2; k >= 0; k--) {
              vr = fmaf(tau[b], vr, ce[k].re);
              vi = fmaf(tau[b], vi, ce[k].im);
            }
            pr[b] = vr;
            pi[b] = vi;
          }
        }
        /* z_r += h_rt u_t (cf_fma_exact), streams outer, rows inner */
        for (int t = 0; t < tx; t++)
          for (int r = 0; r < rx; r++) {
            const float *restrict pr = hr + (size_t)(r * tx + t) * B, *restrict pi = hi + (size_t)(r * tx + t) * B;
            const float *restrict ar = ur + (size_t)t * B, *restrict ai = ui + (size_t)t * B;
            float *restrict qr = zr + (size_t)r * B, *restrict qi = zi + (size_t)r * B;
            for (int b = 0; b < nb; b++) {
              qr[b] = fmaf(pr[b], ar[b], fmaf(-pi[b], ai[b], qr[b]));
              qi[b] = fmaf(pr[b], ai[b], fmaf(pi[b], ar[b], qi[b]));
            }
          }
      }
      for (int r = 0; r < rx; r++)
        for (int b = 0; b < nb; b++) got[(size_t)r * N + n0 + (size_t)b] = cf_make(zr[(size_t)r * B + b], zi[(size_t)r * B + b]);
      n0 = n1;
    }
  }
}

/* Strips each symbol's CP from receive antenna r's stream, rotates the FFT
 * window by the taps' bulk delay (tdl_grid.h) and demodulates. */
static void receive(const ofdm_modem *m, const cf32 *stream, cf32 *block, cf32 *y) {
  const int K = m->K, cp = m->cp, shift = m->grid ? m->grid->td_shift % K : 0;
  for (int sym = 0; sym < m->symbols; sym++) {
    const cf32 *win = stream + (size_t)sym * (K + cp) + cp;
    memcpy(block, win + shift, sizeof *block * (size_t)(K - shift));
    memcpy(block + (K - shift), win, sizeof *block * (size_t)shift);
    fftwf_execute_dft(m->fft, (fftwf_complex *)block, (fftwf_complex *)block);
    cf32 *out = y + (size_t)sym * K;
    for (int k = 0; k < K; k++) out[k] = cf_scale(block[k], m->scale);
  }
}

int ofdm_modem_frame(ofdm_modem *m, uint64_t frame, const cf32 *x, size_t ldx, const cf32 *taps,
                     const sos_term *sos, float noise_std, cf32 *y, size_t ldy) {
  const int fading = m && m->model == CH_TDL && m->fade.nu > 0.0;
  if (!m || !x || !y || (m->model == CH_TDL && !(fading ? (const void *)sos : (const void *)taps)) ||
      !(noise_std >= 0.0f) || !isfinite(noise_std))
    return -1;
  const size_t N = m->frame_samples;
  const int tx = m->tx, rx = m->rx;
  /* One allocation: an aligned block for the transforms, then the streams
   * (each a multiple of 8 bytes, so the block stays the aligned start). */
  const int D = m->grid && !fading ? m->grid->td_taps : 0;
  /* with Doppler: a segment's cubics, then fading_channel's scratch */
  const size_t C = fading ? (size_t)m->grid->L * rx * tx * TAP_POLY_COEFS : 0;
  const size_t W = fading ? (fade_floats(tx, rx, N) + 1) / 2 : 0;
  cf32 *block = fftwf_malloc(sizeof(cf32) * ((size_t)m->K + (size_t)(tx + rx) * N + (size_t)rx * tx * D + C + W));
  if (!block) return -1;
  cf32 *sent = block + m->K, *got = sent + (size_t)tx * N, *dtaps = got + (size_t)rx * N;
  cf32 *coef = dtaps + (size_t)rx * tx * D;
  float *work = (float *)(coef + C);
  if (D) tdl_discrete_taps(m->grid, rx * tx, taps, dtaps);

  for (int t = 0; t < tx; t++) transmit(m, x + (size_t)t * ldx, block, sent + (size_t)t * N);

  memset(got, 0, sizeof *got * (size_t)rx * N);
  if (fading) fading_channel(m, sos, N, sent, got, coef, work);
  for (int r = 0; r < rx && !fading; r++) {
    cf32 *z = got + (size_t)r * N;
    if (m->model == CH_AWGN) {
      if (r < tx) memcpy(z, sent + (size_t)r * N, sizeof *z * N);
      continue;
    }
    for (int t = 0; t < tx; t++)
      for (int j = 0; j < D; j++)
        add_delayed(N, dtaps[(size_t)(r * tx + t) * D + j], m->grid->td_delay[j], sent + (size_t)t * N, z);
  }

  if (noise_std > 0.0f) { /* RNG_TDNOISE: index (r/2)*N_f + n, words by r's parity */
    for (int r = 0; r < rx; r += 2) {
      cf32 *z0 = got + (size_t)r * N, *z1 = r + 1 < rx ? z0 + N : NULL;
      for (size_t n = 0; n < N; n++) {
        const rng_words w =
            rng_draw(m->key, RNG_TDNOISE, frame, (uint64_t)(r / 2) * N + n);
        z0[n] = cf_add(z0[n], cf_scale(rng_cnormal_of(w, 0), noise_std));
        if (z1) z1[n] = cf_add(z1[n], cf_scale(rng_cnormal_of(w, 1), noise_std));
      }
    }
  }

  for (int r = 0; r < rx; r++) receive(m, got + (size_t)r * N, block, y + (size_t)r * ldy);
  fftwf_free(block);
  return 0;
}

void ofdm_modem_destroy(ofdm_modem *m) {
  if (!m) return;
  fft_plan_destroy(m->ifft);
  fft_plan_destroy(m->fft);
  fftwf_free(m->buf);
  free(m);
}
