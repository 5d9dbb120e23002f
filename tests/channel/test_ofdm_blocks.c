/* The time-domain modem's blocked loops (channel/ofdm.c) against the same
 * link written one sample at a time, bit for bit: y of ofdm_modem_frame
 * equals, in every bit, a reference frame computed here with the modem's
 * transforms (FFTW_ESTIMATE plans of the same size, so the same algorithm)
 * and, per sample, the operations that channel/ofdm.c documents in their
 * order:
 *
 *  - static taps: z_r(n) = cf_fma(z_r(n), h_rt,j, s_t(n - d_j)) over the
 *    streams t, then the discrete taps j, from +0 (terms before the frame's
 *    start skipped);
 *  - with Doppler (tdl): per tap l, each stream through l's interpolator
 *    (fmaf over its terms in order), the taps from the segment's cubics
 *    (tap_poly_eval), then z_r = cf_fma_exact(z_r, h_rt, u_t), streams
 *    outer, rows inner;
 *  - noise on every sample, CP included (the modem skips the CP's draws,
 *    which the receiver drops, and must come out the same), draw
 *    RNG_TDNOISE (r/2) N_f + n.
 *
 * Where the taps fit the CP (no Doppler), the modem's default path is the
 * CP-aligned transform (ofdm.h), not the convolution: the test sets
 * td_direct for the bit-for-bit comparison, and holds the transform to the
 * same reference within float rounding (1e-4 of the frame's rms).
 *
 * The shapes reach both the modem's multi-term passes and its one-term
 * remainders (delays that do not reach a block's first samples: no CP;
 * tap counts that are no multiple of the pass), odd receive counts and
 * the sample grid. A wrong order, a skipped or doubled term or a moved
 * draw changes bits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel/fft_plan.h"
#include "channel/ofdm.h"
#include "channel/tap_poly.h"
#include "channel/tdl.h"
#include "channel/tdl_fading.h"
#include "channel/tdl_grid.h"
#include "core/rng.h"
#include "core/spatial.h"
#include "testparams.h"
#include "testutil.h"

/* The channel of one frame, sample by sample: got[r*N + n]. */
static void ref_channel(const link_params *p, const tdl_grid *g, const cf32 *taps, const sos_term *sos,
                        const cf32 *sent, cf32 *got) {
  const int tx = p->tx, rx = p->rx, links = tx * rx, L = g->L;
  const size_t N = (size_t)p->symbols * (size_t)(p->subcarriers + p->cp_length);
  if (!sos) {
    const int D = g->td_taps;
    cf32 *d = malloc(sizeof *d * (size_t)links * D);
    tdl_discrete_taps(g, links, taps, d);
    for (int r = 0; r < rx; r++)
      for (size_t n = 0; n < N; n++) {
        cf32 z = cf_make(0.0f, 0.0f);
        for (int t = 0; t < tx; t++)
          for (int j = 0; j < D; j++)
            if ((size_t)g->td_delay[j] <= n)
              z = cf_fma(z, d[(size_t)(r * tx + t) * D + j], sent[(size_t)t * N + n - (size_t)g->td_delay[j]]);
        got[(size_t)r * N + n] = z;
      }
    free(d);
    return;
  }
  const tdl_fade fade = tdl_fade_of(p);
  const int len = tap_poly_len(fade.nu, N);
  chan_spatial sp;
  char err[256];
  CHECK(chan_spatial_init(p, &sp, err, sizeof err) == 0, "chan_spatial_init: %s", err);
  cf32 *coef = malloc(sizeof *coef * (size_t)L * links * TAP_POLY_COEFS);
  uint64_t have = UINT64_MAX;
  for (size_t n = 0; n < N; n++) {
    const uint64_t seg = n / (uint64_t)len;
    if (seg != have) {
      for (int l = 0; l < L; l++)
        tdl_poly_taps(fade, &sp, sos, l, sqrtf(p->pdp.power[l]), tap_poly_centre(seg, len),
                      coef + (size_t)l * links * TAP_POLY_COEFS);
      have = seg;
    }
    const float tau = tap_poly_tau(n, len);
    cf32 z[LINK_MAX_RX], u[LINK_MAX_TX];
    for (int r = 0; r < rx; r++) z[r] = cf_make(0.0f, 0.0f);
    for (int l = 0; l < L; l++) {
      for (int t = 0; t < tx; t++) {
        float ur = 0.0f, ui = 0.0f;
        for (int i = 0; i < g->tap_count[l]; i++) {
          const size_t dd = (size_t)g->tap_first[l] + (size_t)i;
          if (dd > n) continue;
          const cf32 s = sent[(size_t)t * N + n - dd];
          ur = fmaf(g->tap_coef[l][i], s.re, ur);
          ui = fmaf(g->tap_coef[l][i], s.im, ui);
        }
        u[t] = cf_make(ur, ui);
      }
      for (int t = 0; t < tx; t++)
        for (int r = 0; r < rx; r++) {
          const cf32 h = tap_poly_eval(coef + ((size_t)l * links + (size_t)(r * tx + t)) * TAP_POLY_COEFS, tau);
          z[r] = cf_fma_exact(z[r], h, u[t]);
        }
    }
    for (int r = 0; r < rx; r++) got[(size_t)r * N + n] = z[r];
  }
  free(coef);
}

/* The whole frame: IFFT and CP per stream, the channel, noise, CP removal
 * with the window rotation, FFT. y[r*ldy + sym*K + k]. */
static void ref_frame(const link_params *p, const tdl_grid *g, uint64_t frame, const cf32 *x, size_t ldx,
                      const cf32 *taps, const sos_term *sos, float sd, cf32 *y, size_t ldy) {
  const int K = p->subcarriers, cp = p->cp_length, S = p->symbols, tx = p->tx, rx = p->rx;
  const size_t N = (size_t)S * (size_t)(K + cp);
  const float scale = (float)(1.0 / sqrt((double)K));
  const int shift = g->td_shift % K;
  cf32 *buf = fftwf_malloc(sizeof *buf * (size_t)K);
  fftwf_plan inv = fft_plan_1d(K, (fftwf_complex *)buf, FFTW_BACKWARD, 0);
  fftwf_plan fwd = fft_plan_1d(K, (fftwf_complex *)buf, FFTW_FORWARD, 0);
  cf32 *sent = malloc(sizeof *sent * (size_t)tx * N), *got = malloc(sizeof *got * (size_t)rx * N);
  for (int t = 0; t < tx; t++)
    for (int sym = 0; sym < S; sym++) {
      memcpy(buf, x + (size_t)t * ldx + (size_t)sym * K, sizeof *buf * (size_t)K);
      fftwf_execute(inv);
      cf32 *out = sent + (size_t)t * N + (size_t)sym * (K + cp);
      for (int i = 0; i < cp; i++) out[i] = cf_scale(buf[K - cp + i], scale);
      for (int i = 0; i < K; i++) out[cp + i] = cf_scale(buf[i], scale);
    }
  ref_channel(p, g, taps, sos, sent, got);
  const uint64_t key = rng_key(p->seed, p->stream_key);
  for (int r = 0; r < rx; r++)
    for (size_t n = 0; n < N; n++) {
      const rng_words w = rng_draw(key, RNG_TDNOISE, frame, (uint64_t)(r / 2) * N + n);
      got[(size_t)r * N + n] = cf_add(got[(size_t)r * N + n], cf_scale(rng_cnormal_of(w, r % 2), sd));
    }
  for (int r = 0; r < rx; r++)
    for (int sym = 0; sym < S; sym++) {
      const cf32 *win = got + (size_t)r * N + (size_t)sym * (K + cp) + cp;
      for (int k = 0; k < K; k++) buf[k] = win[(k + shift) % K];
      fftwf_execute(fwd);
      for (int k = 0; k < K; k++) y[(size_t)r * ldy + (size_t)sym * K + k] = cf_scale(buf[k], scale);
    }
  free(sent);
  free(got);
  fft_plan_destroy(inv);
  fft_plan_destroy(fwd);
  fftwf_free(buf);
}

static int transforms_checked = 0; /* frames the CP-aligned transform was held to the reference on */

static void check_shape(int tx, int rx, int K, int S, int cp, pdp_kind kind, double ds, delay_grid dg, double fd_hz) {
  link_params p = tp_point(tx, rx, 4, CH_TDL, K, S, cp);
  p.profile = kind;
  p.delay_spread = ds;
  p.delays = dg;
  p.domain = DOMAIN_TIME;
  p.doppler_hz = fd_hz;
  p.seed = 31;
  p.stream_key = 5;
  char err[256] = "";
  CHECK(tdl_pdp_make(kind, ds, 0.0, dg, K - 1, &p.pdp, err, sizeof err) == 0, "tdl_pdp_make: %s", err);
  tdl_grid g;
  CHECK(tdl_grid_make(&p, &g, err, sizeof err) == 0, "tdl_grid_make: %s", err);
  ofdm_modem *m = ofdm_modem_create(&p, &g, err, sizeof err);
  CHECK(m != NULL, "ofdm_modem_create: %s", err);
  if (!m) return;
  /* the convolution itself first (the reference is per sample); then, where
   * the CP-aligned transform applies, the transform against the same
   * reference */
  const int transform = ofdm_modem_transform(m);
  CHECK(transform == (fd_hz == 0.0 && g.td_taps > 0 && g.td_delay[g.td_taps - 1] <= cp),
        "%dx%d K %d cp %d: the transform %s", tx, rx, K, cp, transform ? "taken where it does not apply" : "not taken");
  ofdm_modem_set_direct(m, 1);
  CHECK(!ofdm_modem_transform(m), "td_direct did not turn the transform off");
  const chan_spatial s = tp_spatial(&p);
  const size_t rf = (size_t)K * S;
  cf32 *x = malloc(sizeof *x * tx * rf), *y = malloc(sizeof *y * rx * rf), *yr = malloc(sizeof *yr * rx * rf);
  cf32 *taps = malloc(sizeof *taps * tx * rx * p.pdp.taps);
  sos_term *sos = fd_hz > 0 ? malloc(sizeof *sos * tdl_fade_terms(&p)) : NULL;
  test_rng_seed(0x0fd + (uint64_t)K * 7 + (uint64_t)cp);
  int differ = 0;
  for (int f = 0; f < 2; f++) {
    for (size_t i = 0; i < tx * rf; i++) {
      const uint64_t b = test_rng_u64();
      x[i] = cf_make((float)(b & 0xffff) / 65536.0f - 0.5f, (float)(b >> 48) / 65536.0f - 0.5f);
    }
    tdl_draw_taps(&p, &s, (uint64_t)f, taps);
    if (sos) tdl_draw_sos(&p, (uint64_t)f, sos);
    const float sd = f ? 0.25f : 0.0f;
    CHECK(ofdm_modem_frame(m, (uint64_t)f, x, rf, taps, sos, sd, y, rf) == 0, "ofdm_modem_frame failed");
    ref_frame(&p, &g, (uint64_t)f, x, rf, taps, sos, sd, yr, rf);
    for (size_t i = 0; i < rx * rf; i++) differ += memcmp(&y[i], &yr[i], sizeof y[i]) != 0;
    if (!transform) continue;
    /* The transform: the same y up to float rounding. Each y is a sum of
     * at most 60 taps' products and a unitary FFT's ~log2 K stages, each
     * rounding by 2^-24 of terms of the size of y's rms: errors of order
     * 1e-6 of the rms; 1e-4 leaves room, while a wrong response, window
     * rotation, scale or noise draw is an error of order 1. */
    ofdm_modem_set_direct(m, 0);
    CHECK(ofdm_modem_frame(m, (uint64_t)f, x, rf, taps, sos, sd, y, rf) == 0, "ofdm_modem_frame (transform) failed");
    ofdm_modem_set_direct(m, 1);
    double ms = 0.0, worst = 0.0;
    for (size_t i = 0; i < rx * rf; i++) ms += (double)yr[i].re * yr[i].re + (double)yr[i].im * yr[i].im;
    const double rms = sqrt(ms / (double)(rx * rf));
    for (size_t i = 0; i < rx * rf; i++) {
      const double d = hypot((double)y[i].re - yr[i].re, (double)y[i].im - yr[i].im) / rms;
      if (!(d <= worst)) worst = d;
    }
    printf("%dx%d K %d cp %d, grid %d, frame %d: transform within %.2e of the rms of the per-sample frame\n", tx, rx,
           K, cp, (int)dg, f, worst);
    CHECK(worst <= 1e-4, "%dx%d K %d cp %d, grid %d: the transform is %.3g of the rms from the per-sample frame", tx,
          rx, K, cp, (int)dg, worst);
    transforms_checked++;
  }
  CHECK(differ == 0, "%dx%d K %d cp %d, %d Hz, grid %d: %d REs differ from the per-sample reference", tx, rx, K, cp,
        (int)fd_hz, (int)dg, differ);
  free(x);
  free(y);
  free(yr);
  free(taps);
  free(sos);
  ofdm_modem_destroy(m);
  tdl_grid_free(&g);
}

int main(void) {
  for (int dop = 0; dop < 2; dop++) {
    const double fd = dop ? 1500.0 : 0.0;
    /* the bench link's shape (bench-paths.sh): 60 consecutive discrete taps */
    check_shape(4, 4, 1024, 2, 72, PDP_TDL_A, 3.072, DELAYS_CONTINUOUS, fd);
    /* no CP: the first block's late taps take the one-term loops */
    check_shape(2, 3, 256, 3, 0, PDP_TDL_C, 2.0, DELAYS_CONTINUOUS, fd);
    check_shape(3, 5, 128, 3, 9, PDP_TDL_B, 8.0, DELAYS_CONTINUOUS, fd);
    /* the sample grid: one term per tap, gaps between the discrete delays */
    check_shape(2, 2, 64, 4, 20, PDP_TDL_B, 4.0, DELAYS_SAMPLE, fd);
    check_shape(1, 1, 512, 2, 36, PDP_TDL_C, 10.0, DELAYS_CONTINUOUS, fd);
  }
  /* the bench link's shape and the sample grid's fit their CP: two frames each */
  CHECK(transforms_checked == 4, "the transform was checked on %d frames, expected 4", transforms_checked);
  return test_finish("test_ofdm_blocks");
}
