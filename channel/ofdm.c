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
  int transform; /* frames by the CP-aligned transform (ofdm_modem_transform) */
  fftwf_complex *buf;
  fftwf_plan ifft, fft; /* in place on an aligned K-sample block */
};

/* Whether m's frames may take the CP-aligned transform (ofdm.h): tdl taps
 * fixed over the frame, the last discrete tap's delay at most the CP. */
static int transform_applies(const ofdm_modem *m) {
  const tdl_grid *g = m->grid;
  return m->model == CH_TDL && !(m->fade.nu > 0.0) && g && g->td_taps > 0 && g->td_delay[g->td_taps - 1] <= m->cp;
}

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
  m->transform = transform_applies(m);
  return m;
}

void ofdm_modem_set_direct(ofdm_modem *m, int direct) {
  if (m) m->transform = !direct && transform_applies(m);
}

int ofdm_modem_transform(const ofdm_modem *m) { return m ? m->transform : 0; }

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

/* The static channel's blocks: CONV_BLOCK samples of one receive antenna
 * (real and imaginary rows) stay in L1 while every tap adds into them. */
enum { CONV_BLOCK = 256 };

/* Floats of static_channel's scratch: the streams split into real and
 * imaginary parts [tx][N] each, then one block's z (two rows). */
static size_t conv_floats(int tx, size_t N) { return 2 * (size_t)tx * N + 2 * (size_t)CONV_BLOCK; }

/* Without Doppler: z_r(n) = sum_t sum_j h_rt,j s_t(n - d_j), terms before
 * the frame's start skipped (what spills past its end belongs to the next
 * frame, which is not modelled). Per sample the operations are those of
 * cf_fma(z, h, s) in the order streams outer, taps inner, from z = +0, so
 * every value rounds as one running cf_fma per sample did; the samples run
 * in blocks of one symbol's window (its CP is skipped: receive() drops it)
 * with the streams split into real and imaginary rows, so each tap's step
 * is a plain loop over the block that the compiler vectorises, on data that
 * stays in L1. Four taps go in one pass where all four reach the whole
 * block: the same operations in the same order per sample, with z loaded
 * and stored once. */
static void static_channel(const ofdm_modem *m, size_t N, const cf32 *dtaps, int D, const cf32 *sent, cf32 *got,
                           float *work) {
  const int tx = m->tx, rx = m->rx, B = CONV_BLOCK;
  const int *delay = m->grid->td_delay;
  const size_t span = (size_t)m->K + (size_t)m->cp;
  float *sr = work, *si = sr + (size_t)tx * N, *restrict zr = si + (size_t)tx * N, *restrict zi = zr + B;
  for (size_t n = 0; n < (size_t)tx * N; n++) {
    sr[n] = sent[n].re;
    si[n] = sent[n].im;
  }
  for (int r = 0; r < rx; r++)
    for (int sym = 0; sym < m->symbols; sym++) {
      const size_t w1 = (size_t)(sym + 1) * span;
      for (size_t n0 = (size_t)sym * span + (size_t)m->cp; n0 < w1; n0 += (size_t)B) {
        const int nb = (int)(w1 - n0 < (size_t)B ? w1 - n0 : (size_t)B);
        for (int b = 0; b < nb; b++) zr[b] = zi[b] = 0.0f;
        for (int t = 0; t < tx; t++) {
          const cf32 *h = dtaps + (size_t)(r * tx + t) * D;
          const float *xr = sr + (size_t)t * N, *xi = si + (size_t)t * N;
          int j = 0;
          /* four taps a pass while the farthest of them reaches the block's first sample */
          for (; j + 3 < D && (size_t)delay[j + 3] <= n0; j += 4) {
            const float h0r = h[j].re, h0i = h[j].im, h1r = h[j + 1].re, h1i = h[j + 1].im;
            const float h2r = h[j + 2].re, h2i = h[j + 2].im, h3r = h[j + 3].re, h3i = h[j + 3].im;
            const float *restrict a0r = xr + n0 - delay[j], *restrict a0i = xi + n0 - delay[j];
            const float *restrict a1r = xr + n0 - delay[j + 1], *restrict a1i = xi + n0 - delay[j + 1];
            const float *restrict a2r = xr + n0 - delay[j + 2], *restrict a2i = xi + n0 - delay[j + 2];
            const float *restrict a3r = xr + n0 - delay[j + 3], *restrict a3i = xi + n0 - delay[j + 3];
            for (int b = 0; b < nb; b++) {
              float vr = zr[b], vi = zi[b];
              vr = vr + h0r * a0r[b] - h0i * a0i[b];
              vi = vi + h0r * a0i[b] + h0i * a0r[b];
              vr = vr + h1r * a1r[b] - h1i * a1i[b];
              vi = vi + h1r * a1i[b] + h1i * a1r[b];
              vr = vr + h2r * a2r[b] - h2i * a2i[b];
              vi = vi + h2r * a2i[b] + h2i * a2r[b];
              vr = vr + h3r * a3r[b] - h3i * a3i[b];
              vi = vi + h3r * a3i[b] + h3i * a3r[b];
              zr[b] = vr;
              zi[b] = vi;
            }
          }
          for (; j < D; j++) {
            const size_t d = (size_t)delay[j];
            const int b0 = d > n0 ? (int)(d - n0 < (size_t)nb ? d - n0 : (size_t)nb) : 0;
            const float hr = h[j].re, hi = h[j].im;
            const float *restrict ar = xr + (n0 + (size_t)b0 - d), *restrict ai = xi + (n0 + (size_t)b0 - d);
            float *restrict qr = zr + b0, *restrict qi = zi + b0;
            for (int b = 0; b < nb - b0; b++) {
              const float vr = qr[b], vi = qi[b];
              qr[b] = vr + hr * ar[b] - hi * ai[b];
              qi[b] = vi + hr * ai[b] + hi * ar[b];
            }
          }
        }
        cf32 *out = got + (size_t)r * N + n0;
        for (int b = 0; b < nb; b++) out[b] = cf_make(zr[b], zi[b]);
      }
    }
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
          int i = 0;
          /* where every term reaches the whole block: eight terms a pass,
           * term i + k at sample b - i - k of one pointer (the terms' delays
           * run on consecutively), the fmaf in the same order per sample
           * and the block's rows loaded and stored once a pass */
          if ((size_t)g->tap_first[l] + (size_t)g->tap_count[l] <= n0 + 1) {
            const size_t q = (size_t)t * N + n0 - (size_t)g->tap_first[l];
            for (; i + 7 < g->tap_count[l]; i += 8) {
              const float *c = g->tap_coef[l] + i;
              const float c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3], c4 = c[4], c5 = c[5], c6 = c[6], c7 = c[7];
              const float *restrict xr = sr + q - (size_t)i, *restrict xi = si + q - (size_t)i;
              for (int b = 0; b < nb; b++) {
                float vr = ar[b], vi = ai[b];
                vr = fmaf(c0, xr[b], vr);
                vi = fmaf(c0, xi[b], vi);
                vr = fmaf(c1, xr[b - 1], vr);
                vi = fmaf(c1, xi[b - 1], vi);
                vr = fmaf(c2, xr[b - 2], vr);
                vi = fmaf(c2, xi[b - 2], vi);
                vr = fmaf(c3, xr[b - 3], vr);
                vi = fmaf(c3, xi[b - 3], vi);
                vr = fmaf(c4, xr[b - 4], vr);
                vi = fmaf(c4, xi[b - 4], vi);
                vr = fmaf(c5, xr[b - 5], vr);
                vi = fmaf(c5, xi[b - 5], vi);
                vr = fmaf(c6, xr[b - 6], vr);
                vi = fmaf(c6, xi[b - 6], vi);
                vr = fmaf(c7, xr[b - 7], vr);
                vi = fmaf(c7, xi[b - 7], vi);
                ar[b] = vr;
                ai[b] = vi;
              }
            }
          }
          for (; i < g->tap_count[l]; i++) {
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

/* Noise draws a pass: their words, then the normals, in lane loops. */
enum { NOISE_BLOCK = 256 };

/* z += noise_std * CN(0,1) on every sample that receive() reads, draw
 * RNG_TDNOISE (r/2)*N_f + n for sample n of antennas r and r + 1 (words 0, 1
 * for the even one, 2, 3 for the odd one): rng_draw's words and
 * rng_cnormal_of's normals, cf_scale then cf_add as per sample. The CP's
 * samples, which receive() drops, get none (the draws are counter-based, so
 * the others' do not move). */
static void add_noise(const ofdm_modem *m, uint64_t frame, size_t N, float noise_std, cf32 *got) {
  const int rx = m->rx;
  const size_t span = (size_t)m->K + (size_t)m->cp;
  uint32_t w[4 * NOISE_BLOCK];
  for (int r = 0; r < rx; r += 2) {
    cf32 *z0 = got + (size_t)r * N, *z1 = r + 1 < rx ? z0 + N : NULL;
    for (int sym = 0; sym < m->symbols; sym++) {
      const size_t w1 = (size_t)(sym + 1) * span;
      for (size_t n0 = (size_t)sym * span + (size_t)m->cp; n0 < w1; n0 += NOISE_BLOCK) {
        const size_t nb = w1 - n0 < NOISE_BLOCK ? w1 - n0 : NOISE_BLOCK;
        rng_draw_run(m->key, RNG_TDNOISE, frame, (uint64_t)(r / 2) * N + n0, nb, w, NOISE_BLOCK);
        cf32 *restrict a = z0 + n0;
        for (size_t i = 0; i < nb; i++) a[i] = cf_add(a[i], cf_scale(rng_cnormal(w[i], w[NOISE_BLOCK + i]), noise_std));
        if (!z1) continue;
        cf32 *restrict b = z1 + n0;
        for (size_t i = 0; i < nb; i++)
          b[i] = cf_add(b[i], cf_scale(rng_cnormal(w[2 * NOISE_BLOCK + i], w[3 * NOISE_BLOCK + i]), noise_std));
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

/* The CP-aligned transform (ofdm.h): y = H x + the receiver's FFT of the
 * noise alone, H the response of the discrete taps the convolution would
 * apply (tdl_response on the grid's tables: the receiver's perfect CSI). The
 * noise is add_noise's draws on a silent stream through receive(); each RE's
 * H x is core/re.h's re_mix sum, the noise added after it (cf_add), as the
 * GPU's fused kernels compute it (YSRC_NOISE). */
static int transform_frame(const ofdm_modem *m, uint64_t frame, const cf32 *x, size_t ldx, const cf32 *taps,
                           const cf32 *known_Hk, float noise_std, cf32 *y, size_t ldy) {
  const size_t N = m->frame_samples, K = (size_t)m->K;
  const int tx = m->tx, rx = m->rx, links = rx * tx;
  const size_t own_Hk = known_Hk ? 0 : (size_t)links * K;
  cf32 *block = fftwf_malloc(sizeof(cf32) * (2 * K + (size_t)rx * N + own_Hk));
  if (!block) return -1;
  cf32 *got = block + K, *restrict acc = got + (size_t)rx * N, *own = acc + K;
  if (!known_Hk) tdl_response(m->grid, links, taps, 0, m->K, own, K);
  const cf32 *Hk = known_Hk ? known_Hk : own;
  memset(got, 0, sizeof *got * (size_t)rx * N);
  if (noise_std > 0.0f) add_noise(m, frame, N, noise_std, got);
  for (int r = 0; r < rx; r++) receive(m, got + (size_t)r * N, block, y + (size_t)r * ldy);
  /* y += H x: each RE's sum as re_mix's (from +0, cf_fma_exact over the
   * streams in order), then cf_add of its noise; a symbol's subcarriers in
   * vector loops, the same operations on each */
  for (int sym = 0; sym < m->symbols; sym++)
    for (int r = 0; r < rx; r++) {
      for (size_t k = 0; k < K; k++) acc[k] = cf_make(0.0f, 0.0f);
      for (int t = 0; t < tx; t++) {
        const cf32 *restrict h = Hk + (size_t)(r * tx + t) * K, *restrict xt = x + (size_t)t * ldx + (size_t)sym * K;
        for (size_t k = 0; k < K; k++) acc[k] = cf_fma_exact(acc[k], h[k], xt[k]);
      }
      cf32 *restrict yr = y + (size_t)r * ldy + (size_t)sym * K;
      for (size_t k = 0; k < K; k++) yr[k] = cf_add(acc[k], yr[k]);
    }
  fftwf_free(block);
  return 0;
}

int ofdm_modem_frame(ofdm_modem *m, uint64_t frame, const cf32 *x, size_t ldx, const cf32 *taps,
                     const sos_term *sos, float noise_std, cf32 *y, size_t ldy) {
  return ofdm_modem_frame_hk(m, frame, x, ldx, taps, NULL, sos, noise_std, y, ldy);
}

int ofdm_modem_frame_hk(ofdm_modem *m, uint64_t frame, const cf32 *x, size_t ldx, const cf32 *taps,
                        const cf32 *Hk, const sos_term *sos, float noise_std, cf32 *y, size_t ldy) {
  const int fading = m && m->model == CH_TDL && m->fade.nu > 0.0;
  if (!m || !x || !y || (m->model == CH_TDL && !(fading ? (const void *)sos : (const void *)taps)) ||
      !(noise_std >= 0.0f) || !isfinite(noise_std))
    return -1;
  if (m->transform) return transform_frame(m, frame, x, ldx, taps, Hk, noise_std, y, ldy);
  const size_t N = m->frame_samples;
  const int tx = m->tx, rx = m->rx;
  /* One allocation: an aligned block for the transforms, then the streams
   * (each a multiple of 8 bytes, so the block stays the aligned start). */
  const int D = m->grid && !fading ? m->grid->td_taps : 0;
  /* with Doppler: a segment's cubics, then fading_channel's scratch */
  const size_t C = fading ? (size_t)m->grid->L * rx * tx * TAP_POLY_COEFS : 0;
  const size_t W = fading ? (fade_floats(tx, rx, N) + 1) / 2 : D ? (conv_floats(tx, N) + 1) / 2 : 0;
  cf32 *block = fftwf_malloc(sizeof(cf32) * ((size_t)m->K + (size_t)(tx + rx) * N + (size_t)rx * tx * D + C + W));
  if (!block) return -1;
  cf32 *sent = block + m->K, *got = sent + (size_t)tx * N, *dtaps = got + (size_t)rx * N;
  cf32 *coef = dtaps + (size_t)rx * tx * D;
  float *work = (float *)(coef + C);
  if (D) tdl_discrete_taps(m->grid, rx * tx, taps, dtaps);

  for (int t = 0; t < tx; t++) transmit(m, x + (size_t)t * ldx, block, sent + (size_t)t * N);

  memset(got, 0, sizeof *got * (size_t)rx * N);
  if (fading) fading_channel(m, sos, N, sent, got, coef, work);
  if (m->model == CH_AWGN)
    for (int r = 0; r < rx && r < tx; r++) memcpy(got + (size_t)r * N, sent + (size_t)r * N, sizeof *got * N);
  if (D) static_channel(m, N, dtaps, D, sent, got, work);

  if (noise_std > 0.0f) add_noise(m, frame, N, noise_std, got);

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
