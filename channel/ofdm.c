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

/* With Doppler: sample n of receive antenna r gets sum_l sum_t h_rt,l(n)
 * sum_i c_l,i s_t(n - first_l - i), the taps evaluated at n
 * (tdl_fading_taps, or a cdl point's cdl_taps_at) and each tap's interpolator of the grid; tap by tap,
 * streams inside, as the GPU's modem. */
static void fading_channel(const ofdm_modem *m, const sos_term *sos, size_t N, const cf32 *sent, cf32 *got) {
  const tdl_grid *g = m->grid;
  const int tx = m->tx, rx = m->rx;
  cf32 h[LINK_MAX_RX * LINK_MAX_TX];
  for (size_t n = 0; n < N; n++) {
    for (int l = 0; l < g->L; l++) {
      if (m->cdl) cdl_taps_at((const float *)sos, g->L, tx * rx, l, (double)n, 0, h);
      else tdl_fading_taps(m->fade, &m->spatial, sos, l, m->amp[l], (double)n, 0, h);
      for (int t = 0; t < tx; t++) {
        /* the stream t delayed by tap l's interpolator */
        cf32 u = cf_make(0.0f, 0.0f);
        const cf32 *st = sent + (size_t)t * N;
        for (int i = 0; i < g->tap_count[l]; i++) {
          const long d = (long)g->tap_first[l] + i;
          if ((size_t)d <= n) u = cf_fma_real(u, g->tap_coef[l][i], st[n - (size_t)d]);
        }
        for (int r = 0; r < rx; r++) got[(size_t)r * N + n] = cf_fma(got[(size_t)r * N + n], h[r * tx + t], u);
      }
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
  cf32 *block = fftwf_malloc(sizeof(cf32) * ((size_t)m->K + (size_t)(tx + rx) * N + (size_t)rx * tx * D));
  if (!block) return -1;
  cf32 *sent = block + m->K, *got = sent + (size_t)tx * N, *dtaps = got + (size_t)rx * N;
  if (D) tdl_discrete_taps(m->grid, rx * tx, taps, dtaps);

  for (int t = 0; t < tx; t++) transmit(m, x + (size_t)t * ldx, block, sent + (size_t)t * N);

  memset(got, 0, sizeof *got * (size_t)rx * N);
  if (fading) fading_channel(m, sos, N, sent, got);
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
