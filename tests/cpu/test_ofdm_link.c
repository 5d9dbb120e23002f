/* The time-domain OFDM link against the frequency-domain model it must equal
 * when the cyclic prefix covers the channel, and its noise and threading. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "cpu/channel_cpu.h"
#include "channel/ofdm.h"
#include "core/rng.h"
#include "channel/tdl.h"
#include "channel/tdl_grid.h"
#include "core/names.h"
#include "testparams.h"
#include "testutil.h"

/* A time-domain QPSK point; a tdl one with its pdp resolved. */
static link_params ofdm_params_on(int tx, int rx, channel_model model, pdp_kind kind, double ds, int K,
                                  int symbols, int cp, delay_grid grid) {
  link_params p = tp_point(tx, rx, 2, model, K, symbols, cp);
  /* a detector every shape admits (the modem has none; zf needs rx >= tx) */
  p.equalizer = EQ_MMSE;
  p.profile = kind;
  p.delay_spread = ds;
  p.domain = DOMAIN_TIME;
  p.delays = grid;
  p.seed = 4242;
  p.stream_key = 7;
  char err[256];
  if (model == CH_TDL)
    CHECK(tdl_pdp_make(kind, ds, 0.0, grid, K - 1, &p.pdp, err, sizeof err) == 0, "tdl_pdp_make: %s", err);
  return p;
}

/* On the sample grid: the older model, whose taps the modem applies as they are. */
static link_params ofdm_params(int tx, int rx, channel_model model, pdp_kind kind, double ds, int K, int symbols,
                               int cp) {
  return ofdm_params_on(tx, rx, model, kind, ds, K, symbols, cp, DELAYS_SAMPLE);
}

/* The modem of p, with p's time-domain tables in *g (tdl; zeroed otherwise). */
static ofdm_modem *modem_of(const link_params *p, tdl_grid *g) {
  char err[256] = "";
  memset(g, 0, sizeof *g);
  if (p->model == CH_TDL && p->pdp.taps > 0)
    CHECK(tdl_grid_make(p, g, err, sizeof err) == 0, "tdl_grid_make: %s", err);
  ofdm_modem *m = ofdm_modem_create(p, g, err, sizeof err);
  CHECK(m != NULL, "ofdm_modem_create: %s", err);
  return m;
}

/* Symbols of frame f: unit-energy QPSK from the RNG_BITS stream (any fixed
 * pseudo-random data does). x[t*ld + m]. */
static void make_symbols(const link_params *p, uint64_t frame, cf32 *x, size_t ld) {
  const size_t rf = (size_t)link_res_per_frame(p);
  const float a = 0.70710678f;
  for (int t = 0; t < p->tx; t++)
    for (size_t m = 0; m < rf; m++) {
      const uint32_t w = rng_draw(rng_key(p->seed, p->stream_key), RNG_BITS, frame, m).w[t % 4] >> (t / 4);
      x[t * ld + m] = cf_make(w & 1 ? a : -a, w & 2 ? a : -a);
    }
}

/* Residual of y against sum_t H_rt[k] x_t[k] over a frame, relative to the
 * RMS of the expected output. */
static double relative_residual(const link_params *p, const cf32 *Hk, const cf32 *x, size_t ldx,
                                const cf32 *y, size_t ldy) {
  const int K = p->subcarriers;
  const size_t rf = (size_t)link_res_per_frame(p);
  double worst = 0, power = 0;
  for (int r = 0; r < p->rx; r++)
    for (size_t m = 0; m < rf; m++) {
      double re = 0, im = 0;
      for (int t = 0; t < p->tx; t++) {
        const cf32 h = Hk[(r * p->tx + t) * K + m % K], v = x[t * ldx + m];
        re += (double)h.re * v.re - (double)h.im * v.im;
        im += (double)h.re * v.im + (double)h.im * v.re;
      }
      power += re * re + im * im;
      worst = fmax(worst, hypot(y[r * ldy + m].re - re, y[r * ldy + m].im - im));
    }
  return worst / sqrt(power / ((double)p->rx * rf));
}

/* awgn, no noise: y_r = x_r exactly (unitary IFFT then FFT), and 0 on
 * receive antennas beyond the transmit ones. */
static void test_round_trip(void) {
  for (int cp = 0; cp <= 16; cp += 16) {
    link_params p = ofdm_params(2, 3, CH_AWGN, PDP_EXP, 0, 128, 3, cp);
    tdl_grid g;
    ofdm_modem *m = modem_of(&p, &g);
    if (!m) return;
    const size_t rf = (size_t)link_res_per_frame(&p), ld = rf + 3;
    cf32 *x = malloc(sizeof *x * 2 * ld), *y = malloc(sizeof *y * 3 * ld);
    make_symbols(&p, 0, x, ld);
    CHECK(ofdm_modem_frame(m, 0, x, ld, NULL, NULL, 0.0f, y, ld) == 0, "frame failed");
    double worst = 0, rest = 0;
    for (size_t i = 0; i < rf; i++) {
      for (int r = 0; r < 2; r++)
        worst = fmax(worst, sqrt(cf_abs2(cf_sub(y[r * ld + i], x[r * ld + i]))));
      rest = fmax(rest, sqrt(cf_abs2(y[2 * ld + i])));
    }
    CHECK(worst < 1e-5, "cp %d: round trip off by %g", cp, worst);
    CHECK(rest == 0.0, "cp %d: antenna without a transmitter got %g", cp, rest);
    free(x);
    free(y);
    ofdm_modem_destroy(m);
  }
}


/* With cp >= the largest delay and no noise the link is exactly
 * y[k] = sum_t H_rt[k] x_t[k] on every symbol, H the frame's tdl_response
 * through the time-domain tables. Returns the worst relative residual over
 * the frames. */
static double residual_over_frames(const link_params *p, int frames) {
  const chan_spatial s = tp_spatial(p);
  tdl_grid g;
  ofdm_modem *m = modem_of(p, &g);
  if (!m) return INFINITY;
  const int links = p->tx * p->rx, K = p->subcarriers;
  const size_t rf = (size_t)link_res_per_frame(p), ldx = rf + 1, ldy = rf + 5;
  cf32 *x = malloc(sizeof *x * p->tx * ldx), *y = malloc(sizeof *y * p->rx * ldy),
       *taps = malloc(sizeof *taps * links * p->pdp.taps), *Hk = malloc(sizeof *Hk * links * K);
  double worst = 0;
  for (int frame = 0; frame < frames; frame++) {
    make_symbols(p, frame, x, ldx);
    tdl_draw_taps(p, &s, frame, taps);
    tdl_response(&g, links, taps, 0, K, Hk, (size_t)K);
    CHECK(ofdm_modem_frame(m, frame, x, ldx, taps, NULL, 0.0f, y, ldy) == 0, "frame failed");
    worst = fmax(worst, relative_residual(p, Hk, x, ldx, y, ldy));
  }
  free(x);
  free(y);
  free(taps);
  free(Hk);
  ofdm_modem_destroy(m);
  tdl_grid_free(&g);
  return worst;
}

static void test_matches_frequency_model(void) {
  static const int shapes[][2] = {{1, 1}, {2, 2}, {4, 3}, {3, 4}, {8, 8}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    /* TDL-C at ds 3 reaches 26 samples: inside a 32-sample CP. */
    link_params p = ofdm_params(shapes[i][0], shapes[i][1], CH_TDL, PDP_TDL_C, 3.0, 128, 4, 32);
    const double r = residual_over_frames(&p, 20);
    CHECK(r < 1e-4, "%dx%d tdl-c: relative residual %g", p.tx, p.rx, r);
  }
  /* An exponential profile with correlation and a LOS tap, on a 600-point FFT
   * with the CP exactly as long as the channel. */
  link_params p = ofdm_params(2, 2, CH_TDL, PDP_EXP, 4.0, 600, 3, 0);
  p.cp_length = (int)p.pdp.delay[p.pdp.taps - 1];
  p.rho_tx = 0.5;
  p.rho_rx = 0.7;
  p.k_factor = 2.0;
  char err[256];
  CHECK(tdl_pdp_make(PDP_EXP, 4.0, 2.0, DELAYS_SAMPLE, 599, &p.pdp, err, sizeof err) == 0, "%s", err);
  double r = residual_over_frames(&p, 10);
  CHECK(r < 1e-4, "exp, cp = max delay %d: relative residual %g", p.cp_length, r);
  /* Continuous delays: the interpolated taps reach W samples past the last
   * delay and the window rotation takes W - 1 more of the CP; with a CP that
   * long the link is again exactly the response of the discrete taps. */
  static const pdp_kind kinds[] = {PDP_TDL_A, PDP_TDL_B, PDP_TDL_C, PDP_TDL_D, PDP_TDL_E};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    p = ofdm_params_on(2, 2, CH_TDL, kinds[i], 1.7, 256, 3, 80, DELAYS_CONTINUOUS);
    CHECK(tdl_pdp_make(kinds[i], 1.7, NAN, DELAYS_CONTINUOUS, 255, &p.pdp, err, sizeof err) == 0 ||
              tdl_pdp_make(kinds[i], 1.7, 0.0, DELAYS_CONTINUOUS, 255, &p.pdp, err, sizeof err) == 0,
          "%s", err);
    r = residual_over_frames(&p, 10);
    CHECK(r < 1e-4, "%s continuous, cp 80: relative residual %g", pdp_kind_name(kinds[i]), r);
  }
}

/* A CP shorter than the channel leaves inter-symbol interference. */
static void test_isi(void) {
  link_params p = ofdm_params(2, 2, CH_TDL, PDP_TDL_A, 3.0, 128, 4, 4);
  const double r = residual_over_frames(&p, 5);
  CHECK(r > 1e-2, "cp 4 with delays to %g samples: residual %g, ISI expected",
        p.pdp.delay[p.pdp.taps - 1], r);
}

/* Noise: linear superposition with the frame's own noise, y(x) - y(0) = H x;
 * y(0) has variance n0 per subcarrier and the RNG_TDNOISE draws sit at
 * (r/2)*N_f + n in the time domain. */
static void test_noise(void) {
  link_params p = ofdm_params(2, 3, CH_TDL, PDP_TDL_B, 4.0, 64, 4, 20);
  const chan_spatial s = tp_spatial(&p);
  tdl_grid g;
  ofdm_modem *m = modem_of(&p, &g);
  if (!m) return;
  const int links = p.tx * p.rx, K = p.subcarriers, cp = p.cp_length, frames = 400;
  const size_t rf = (size_t)link_res_per_frame(&p), Nf = (size_t)p.symbols * (K + cp);
  const float n0 = 0.2f, sd = sqrtf(n0);
  cf32 *x = malloc(sizeof *x * p.tx * rf), *zero = calloc(p.tx * rf, sizeof *zero),
       *y = malloc(sizeof *y * p.rx * rf), *y0 = malloc(sizeof *y0 * p.rx * rf),
       *d = malloc(sizeof *d * p.rx * rf), *taps = malloc(sizeof *taps * links * p.pdp.taps),
       *Hk = malloc(sizeof *Hk * links * K);
  double worst = 0, power = 0, layout = 0;
  for (int frame = 0; frame < frames; frame++) {
    make_symbols(&p, frame, x, rf);
    tdl_draw_taps(&p, &s, frame, taps);
    tdl_response(&g, links, taps, 0, K, Hk, (size_t)K);
    ofdm_modem_frame(m, frame, x, rf, taps, NULL, sd, y, rf);
    ofdm_modem_frame(m, frame, zero, rf, taps, NULL, sd, y0, rf);
    for (size_t i = 0; i < p.rx * rf; i++) {
      d[i] = cf_sub(y[i], y0[i]);
      power += cf_abs2(y0[i]);
    }
    worst = fmax(worst, relative_residual(&p, Hk, x, rf, d, rf));
    if (frame < 2) { /* y(0) is the FFT of the documented draws in each window */
      for (int r = 0; r < p.rx; r++)
        for (int sym = 0; sym < p.symbols; sym++)
          for (int k = 0; k < K; k++) {
            double re = 0, im = 0;
            for (int i = 0; i < K; i++) {
              const size_t n = (size_t)sym * (K + cp) + cp + i;
              const cf32 w = rng_cnormal_of(
                  rng_draw(rng_key(p.seed, p.stream_key), RNG_TDNOISE, frame, (uint64_t)(r / 2) * Nf + n),
                  r % 2);
              const double ph = -2.0 * 3.14159265358979323846 * (double)k * i / K;
              re += w.re * cos(ph) - w.im * sin(ph);
              im += w.re * sin(ph) + w.im * cos(ph);
            }
            re *= sd / sqrt((double)K);
            im *= sd / sqrt((double)K);
            const cf32 got = y0[r * rf + (size_t)sym * K + k];
            layout = fmax(layout, hypot(got.re - re, got.im - im));
          }
    }
  }
  const double n = (double)frames * p.rx * rf, var = power / n;
  CHECK(worst < 1e-4, "y(x) - y(0) off H x by %g (relative)", worst);
  CHECK(fabs(var - n0) < 5 * n0 / sqrt(n), "noise variance per subcarrier %.5f, n0 %.2f", var, n0);
  CHECK(layout < 1e-5, "frequency-domain noise off the RNG_TDNOISE layout by %g", layout);
  free(x);
  free(zero);
  free(y);
  free(y0);
  free(d);
  free(taps);
  free(Hk);
  ofdm_modem_destroy(m);
  tdl_grid_free(&g);
}

/* Frames on several OpenMP threads give the same bits as on one. */
static void test_threads(void) {
  link_params p = ofdm_params(4, 4, CH_TDL, PDP_TDL_A, 2.0, 256, 6, 18);
  p.rho_rx = 0.4;
  const chan_spatial s = tp_spatial(&p);
  tdl_grid g;
  ofdm_modem *m = modem_of(&p, &g);
  if (!m) return;
  const int frames = 24, links = p.tx * p.rx;
  const size_t rf = (size_t)link_res_per_frame(&p), per = (size_t)p.rx * rf;
  cf32 *x = malloc(sizeof *x * p.tx * rf * frames), *serial = malloc(sizeof *serial * per * frames),
       *parallel = malloc(sizeof *parallel * per * frames),
       *taps = malloc(sizeof *taps * links * p.pdp.taps * frames);
  for (int f = 0; f < frames; f++) {
    make_symbols(&p, f, x + f * p.tx * rf, rf);
    tdl_draw_taps(&p, &s, f, taps + f * links * p.pdp.taps);
  }
  int fails = 0;
  for (int f = 0; f < frames; f++)
    fails += ofdm_modem_frame(m, f, x + f * p.tx * rf, rf, taps + f * links * p.pdp.taps, NULL, 0.3f,
                              serial + f * per, rf) != 0;
  int threads = 0;
#pragma omp parallel for num_threads(4) schedule(dynamic, 1) reduction(+ : fails, threads)
  for (int f = 0; f < frames; f++) {
    fails += ofdm_modem_frame(m, f, x + f * p.tx * rf, rf, taps + f * links * p.pdp.taps, NULL, 0.3f,
                              parallel + f * per, rf) != 0;
    threads += f == 0 ? omp_get_num_threads() : 0;
  }
  CHECK(fails == 0, "%d frames failed", fails);
  CHECK(threads == 4, "ran on %d threads", threads);
  CHECK(memcmp(serial, parallel, sizeof *serial * per * frames) == 0,
        "threaded frames differ from serial ones");
  free(x);
  free(serial);
  free(parallel);
  free(taps);
  ofdm_modem_destroy(m);
  tdl_grid_free(&g);
}

static void test_create_errors(void) {
  char err[256] = "";
  link_params p = ofdm_params(2, 2, CH_RAYLEIGH, PDP_EXP, 0, 64, 2, 8);
  CHECK(ofdm_modem_create(&p, NULL, err, sizeof err) == NULL && strstr(err, "rayleigh"), "rayleigh: %s",
        err);
  p = ofdm_params(2, 2, CH_AWGN, PDP_EXP, 0, 64, 2, 65);
  CHECK(ofdm_modem_create(&p, NULL, err, sizeof err) == NULL && strstr(err, "prefix"), "cp > K: %s", err);
  p = ofdm_params(2, 2, CH_TDL, PDP_EXP, 2.0, 64, 2, 8);
  p.pdp.taps = 0;
  CHECK(ofdm_modem_create(&p, NULL, err, sizeof err) == NULL, "no taps accepted");
  p = ofdm_params(2, 2, CH_TDL, PDP_EXP, 2.0, 64, 2, 8);
  CHECK(ofdm_modem_create(&p, NULL, err, sizeof err) == NULL && strstr(err, "tables"), "tdl without tables: %s",
        err);
  tdl_grid g;
  ofdm_modem *m = modem_of(&p, &g);
  cf32 x[2 * 128], y[2 * 128];
  memset(x, 0, sizeof x);
  CHECK(ofdm_modem_frame(m, 0, x, 128, NULL, NULL, 0.0f, y, 128) == -1, "tdl without taps accepted");
  ofdm_modem_destroy(m);
  tdl_grid_free(&g);
}

int main(void) {
  test_round_trip();
  test_matches_frequency_model();
  test_isi();
  test_noise();
  test_threads();
  test_create_errors();
  return test_finish("test_channel_ofdm");
}
