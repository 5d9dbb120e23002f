/* Multipath profiles, the taps of a frame and their per-subcarrier response. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/channel_cpu.h"
#include "core/rng.h"
#include "channel/tdl.h"
#include "core/names.h"
#include "testparams.h"
#include "testutil.h"

/* QPSK over the `kind` profile at delay spread ds, K subcarriers x 2
 * symbols, CP K/4; its pdp resolved. */
static link_params tdl_params(int tx, int rx, pdp_kind kind, double ds, int K) {
  link_params p = tp_point(tx, rx, 2, CH_TDL, K, 2, K / 4);
  p.profile = kind;
  p.delay_spread = ds;
  p.seed = 99;
  p.stream_key = 1;
  char err[256];
  const int rc = tdl_pdp_make(kind, ds, K - 1, &p.pdp, err, sizeof err);
  CHECK(rc == 0, "tdl_pdp_make: %s", err);
  return p;
}

static chan_spatial spatial_of(const link_params *p) {
  chan_spatial s;
  char err[256];
  CHECK(chan_spatial_init(p, &s, err, sizeof err) == 0, "chan_spatial_init: %s", err);
  return s;
}

/* Sorted distinct delays from 0, powers positive and summing to 1. */
static void check_shape(const char *name, const tdl_pdp *pdp) {
  double sum = 0.0;
  int ok = pdp->taps >= 1 && pdp->taps <= TDL_MAX_TAPS && pdp->delay[0] == 0;
  for (int l = 0; l < pdp->taps; l++) {
    sum += pdp->power[l];
    ok &= pdp->power[l] > 0.0f;
    if (l) ok &= pdp->delay[l] > pdp->delay[l - 1];
  }
  CHECK(ok, "%s: taps, order or powers malformed", name);
  CHECK(fabs(sum - 1.0) < 1e-5, "%s: powers sum to %.7f", name, sum);
}

static void test_tables(void) {
  static const pdp_kind kinds[3] = {PDP_TDL_A, PDP_TDL_B, PDP_TDL_C};
  static const int table_taps[3] = {23, 23, 24};
  static const double spreads[] = {0.0, 0.4, 1.0, 2.5, 7.0, 30.0, 100.0, 250.0};
  char err[256], name[64];
  for (int k = 0; k < 3; k++) {
    for (size_t i = 0; i < sizeof spreads / sizeof *spreads; i++) {
      tdl_pdp pdp;
      const double ds = spreads[i];
      snprintf(name, sizeof name, "%s ds %g", pdp_kind_name(kinds[k]), ds);
      CHECK(tdl_pdp_make(kinds[k], ds, 4095, &pdp, err, sizeof err) == 0, "%s: %s", name, err);
      check_shape(name, &pdp);
      /* The tables have RMS delay spread 1 (to 1e-4); rounding each delay to
       * the grid moves it by at most half a sample, which moves the RMS by at
       * most 0.5 (Minkowski: sd(d + e) <= sd(d) + sd(e), |e| <= 1/2). */
      const double rms = tdl_pdp_rms_delay(&pdp);
      CHECK(fabs(rms - ds) <= 0.5 + 1e-3 * ds, "%s: RMS delay %.4f", name, rms);
      if (ds == 0.0) CHECK(pdp.taps == 1, "%s: %d taps, all should merge at 0", name, pdp.taps);
    }
    /* Far apart on a fine grid no taps merge: the table itself shows through. */
    tdl_pdp pdp;
    CHECK(tdl_pdp_make(kinds[k], 10000.0, 200000, &pdp, err, sizeof err) == 0, "%s", err);
    CHECK(pdp.taps == table_taps[k], "%s: %d taps, table has %d", pdp_kind_name(kinds[k]), pdp.taps,
          table_taps[k]);
    CHECK(fabs(tdl_pdp_rms_delay(&pdp) / 10000.0 - 1.0) < 2e-4, "%s: table RMS %.6f",
          pdp_kind_name(kinds[k]), tdl_pdp_rms_delay(&pdp) / 10000.0);
  }
  /* Spot values of TR 38.901 Table 7.7.2-1 (TDL-A): tap 1 at 0.3819 with 0 dB,
   * tap 0 at 0 with -13.4 dB, the last at 9.6586 with -29.7 dB. */
  tdl_pdp a;
  tdl_pdp_make(PDP_TDL_A, 10000.0, 200000, &a, err, sizeof err);
  int at3819 = -1;
  for (int l = 0; l < a.taps; l++)
    if (a.delay[l] == 3819) at3819 = l;
  CHECK(at3819 >= 0, "TDL-A: no tap at 3819 samples");
  if (at3819 >= 0) {
    CHECK(fabs(10 * log10(a.power[0] / a.power[at3819]) + 13.4) < 1e-4, "TDL-A first tap %.4f dB",
          10 * log10(a.power[0] / a.power[at3819]));
    CHECK(a.delay[a.taps - 1] == 96586 &&
              fabs(10 * log10(a.power[a.taps - 1] / a.power[at3819]) + 29.7) < 1e-4,
          "TDL-A last tap %d at %.4f dB", a.delay[a.taps - 1],
          10 * log10(a.power[a.taps - 1] / a.power[at3819]));
  }
  /* Merging: TDL-B at ds 1 rounds its 23 delays onto 0..5 and keeps all power. */
  tdl_pdp b;
  tdl_pdp_make(PDP_TDL_B, 1.0, 100, &b, err, sizeof err);
  CHECK(b.taps == 6 && b.delay[5] == 5, "TDL-B ds 1: %d taps up to %d", b.taps,
        b.delay[b.taps - 1]);
  check_shape("TDL-B ds 1", &b);
}

static void test_exponential(void) {
  static const double spreads[] = {0.0, 0.5, 1.0, 2.0, 4.0, 9.0, 10.0, 20.0, 60.0};
  char err[256], name[64];
  for (size_t i = 0; i < sizeof spreads / sizeof *spreads; i++) {
    const double ds = spreads[i];
    tdl_pdp pdp;
    snprintf(name, sizeof name, "exp ds %g", ds);
    CHECK(tdl_pdp_make(PDP_EXP, ds, 4095, &pdp, err, sizeof err) == 0, "%s: %s", name, err);
    check_shape(name, &pdp);
    /* Cutting the tail at -30 dB lowers the RMS of an exponential by 2.4%
     * (1 - sqrt(1 - x^2 e^-x / (1 - e^-x)^2), x = 3 ln 10); the grid adds at
     * most half a sample. */
    const double rms = tdl_pdp_rms_delay(&pdp);
    CHECK(fabs(rms - 0.976 * ds) <= 0.5 + 0.005 * ds, "%s: RMS delay %.4f", name, rms);
    const int samples = ds == 0.0 ? 1 : (int)floor(ds * 3.0 * log(10.0)) + 1;
    if (samples <= TDL_MAX_TAPS) {
      /* One tap a sample, each exp(-1/ds) of the one before, down to -30 dB. */
      int ok = pdp.taps == samples;
      for (int l = 1; ok && l < pdp.taps; l++)
        ok &= pdp.delay[l] == l && fabs(pdp.power[l] / pdp.power[l - 1] - exp(-1.0 / ds)) < 1e-5;
      CHECK(ok, "%s: %d taps, expected %d in ratio exp(-1/ds)", name, pdp.taps, samples);
      CHECK(pdp.power[pdp.taps - 1] >= 1e-3f * pdp.power[0] * (1 - 1e-5) &&
                pdp.power[pdp.taps - 1] * exp(-1.0 / ds) < 1e-3 * pdp.power[0],
            "%s: the profile must stop at -30 dB", name);
    } else {
      /* Binned: evenly spaced taps within the tap budget. */
      const int w = (samples + TDL_MAX_TAPS - 1) / TDL_MAX_TAPS;
      int ok = pdp.taps <= TDL_MAX_TAPS && pdp.taps == (samples + w - 1) / w;
      for (int l = 0; ok && l < pdp.taps; l++) ok &= pdp.delay[l] == l * w;
      CHECK(ok, "%s: %d taps not spaced by %d", name, pdp.taps, w);
    }
  }
}

static void test_errors(void) {
  char err[256] = "";
  tdl_pdp pdp;
  CHECK(tdl_pdp_make(PDP_TDL_A, 300.0, 1023, &pdp, err, sizeof err) == -1, "too long accepted");
  CHECK(strstr(err, "tdl-a") && strstr(err, "300") && strstr(err, "2898") && strstr(err, "1023"),
        "message: %s", err);
  CHECK(tdl_pdp_make(PDP_EXP, 200.0, 1023, &pdp, err, sizeof err) == -1 && strstr(err, "exp"),
        "exp too long: %s", err);
  CHECK(tdl_pdp_make(PDP_TDL_C, 3.0, 26, &pdp, err, sizeof err) == 0, "tdl-c ds 3 fits 26: %s",
        err); /* 8.6523 * 3 = 25.96 -> 26 */
  CHECK(tdl_pdp_make(PDP_TDL_C, 3.0, 25, &pdp, err, sizeof err) == -1, "tdl-c ds 3 in 25");
  CHECK(tdl_pdp_make(PDP_EXP, -1.0, 100, &pdp, err, sizeof err) == -1, "negative spread");
  CHECK(tdl_pdp_make(PDP_EXP, NAN, 100, &pdp, err, sizeof err) == -1, "NaN spread");
  CHECK(tdl_pdp_make((pdp_kind)9, 1.0, 100, &pdp, err, sizeof err) == -1, "unknown kind");
  CHECK(strcmp(pdp_kind_name(PDP_TDL_B), "tdl-b") == 0 && strcmp(pdp_kind_name(PDP_EXP), "exp") == 0,
        "names");
  CHECK(tdl_freq_create(0, err, sizeof err) == NULL && strstr(err, "subcarriers"), "0 subcarriers");
}

/* Uncorrelated taps are the documented draws: q = e*L + l is number q%2 of
 * draw q/2, scaled by sqrt(power[l]). */
static void test_tap_layout(void) {
  link_params p = tdl_params(3, 3, PDP_TDL_A, 4.0, 64);
  const chan_spatial s = spatial_of(&p);
  const int L = p.pdp.taps, total = 9 * L;
  cf32 *taps = malloc(sizeof *taps * total);
  tdl_draw_taps(&p, &s, 31, taps);
  double worst = 0;
  for (int q = 0; q < total; q++) {
    const cf32 z =
        cf_scale(rng_cnormal_of(rng_draw(rng_key(p.seed, p.stream_key), RNG_TAPS, 31, q / 2), q % 2),
                 sqrtf(p.pdp.power[q % L]));
    worst = fmax(worst, sqrt(cf_abs2(cf_sub(z, taps[q]))));
  }
  CHECK(worst < 1e-7, "taps off the documented layout by %g", worst);
  free(taps);
}

/* Mean tap powers match the profile (also with correlation and Rician K, which
 * keep each tap's power), tap 0 carries the LOS mean, and the antenna pairs of
 * one tap correlate as rho^|i-j| (times the tap's power). */
static void check_tap_statistics(const char *name, link_params p, int frames) {
  const chan_spatial s = spatial_of(&p);
  const int L = p.pdp.taps, links = p.tx * p.rx;
  cf32 *taps = malloc(sizeof *taps * links * L);
  double *pw = calloc(L, sizeof *pw), mean0 = 0, corr = 0;
  for (int f = 0; f < frames; f++) {
    tdl_draw_taps(&p, &s, f, taps);
    for (int e = 0; e < links; e++)
      for (int l = 0; l < L; l++) pw[l] += cf_abs2(taps[e * L + l]);
    for (int e = 0; e < links; e++) mean0 += taps[e * L].re;
    /* elements (0,0) and (0,1) of the last tap: Rt[0][1] = rho_tx */
    const cf32 a = taps[0 * L + L - 1], b = taps[1 * L + L - 1];
    corr += (double)a.re * b.re + (double)a.im * b.im;
  }
  const double n = (double)frames * links, K = p.k_factor;
  /* The links of one frame are correlated, so their average varies more than
   * n independent draws would: by at most sum_ee' |R_ee'| / links. */
  double st = 0, sr = 0;
  for (int i = 0; i < p.tx; i++)
    for (int j = 0; j < p.tx; j++) st += pow(fabs(p.rho_tx), abs(i - j));
  for (int i = 0; i < p.rx; i++)
    for (int j = 0; j < p.rx; j++) sr += pow(fabs(p.rho_rx), abs(i - j));
  const double infl = sqrt(st * sr / links);
  int bad = 0;
  for (int l = 0; l < L; l++) {
    pw[l] /= n;
    /* |tap|^2 has mean P and sd at most P sqrt(1 + 2K/(K+1)) */
    const double P = p.pdp.power[l], sd = infl * P * sqrt(1.0 + 2.0 * K / (K + 1.0)) / sqrt(n);
    if (fabs(pw[l] - P) > 5 * sd) {
      bad++;
      fprintf(stderr, "%s: tap %d power %.5f, profile %.5f\n", name, l, pw[l], P);
    }
  }
  CHECK(bad == 0, "%s: %d tap powers off the profile", name, bad);
  const double los = sqrt(K / (K + 1.0) * p.pdp.power[0]);
  CHECK(fabs(mean0 / n - los) < 5 * infl * sqrt(p.pdp.power[0] / (K + 1.0) / 2 / n),
        "%s: tap 0 mean %.4f, expected %.4f", name, mean0 / n, los);
  const double PL = p.pdp.power[L - 1];
  CHECK(fabs(corr / frames - p.rho_tx * PL) < 5 * PL / sqrt((double)frames),
        "%s: last tap correlation %.5f, expected %.5f", name, corr / frames, p.rho_tx * PL);
  free(taps);
  free(pw);
}

static void test_tap_statistics(void) {
  link_params p = tdl_params(2, 2, PDP_TDL_C, 2.0, 64);
  check_tap_statistics("tdl-c", p, 20000);
  p.rho_tx = 0.6;
  p.rho_rx = 0.3;
  p.k_factor = 4.0;
  check_tap_statistics("tdl-c correlated rician", p, 20000);
  p = tdl_params(2, 3, PDP_EXP, 3.0, 64);
  p.rho_tx = -0.5;
  check_tap_statistics("exp correlated", p, 20000);
}

/* FFT response against the DFT sum in double, on rows that need not be
 * aligned, for power-of-two and other sizes. */
static void check_response(int K, int offset) {
  link_params p = tdl_params(2, 2, PDP_TDL_B, K / 40.0, K);
  const chan_spatial s = spatial_of(&p);
  char err[256];
  tdl_freq *f = tdl_freq_create(K, err, sizeof err);
  CHECK(f != NULL, "tdl_freq_create(%d): %s", K, err);
  if (!f) return;
  const int L = p.pdp.taps;
  cf32 taps[4 * TDL_MAX_TAPS];
  cf32 *buf = malloc(sizeof *buf * (4 * (size_t)K + 1)), *Hk = buf + offset;
  double worst = 0;
  for (int frame = 0; frame < 3; frame++) {
    tdl_draw_taps(&p, &s, frame, taps);
    tdl_freq_response(f, &p.pdp, 4, taps, Hk);
    for (int e = 0; e < 4; e++)
      for (int k = 0; k < K; k++) {
        double re = 0, im = 0;
        for (int l = 0; l < L; l++) {
          const double ph = -2.0 * 3.14159265358979323846 * (double)k * p.pdp.delay[l] / K;
          re += taps[e * L + l].re * cos(ph) - taps[e * L + l].im * sin(ph);
          im += taps[e * L + l].re * sin(ph) + taps[e * L + l].im * cos(ph);
        }
        worst = fmax(worst, hypot(Hk[e * K + k].re - re, Hk[e * K + k].im - im));
      }
  }
  CHECK(worst < 1e-5, "K %d offset %d: FFT response off the DFT by %g", K, offset, worst);
  free(buf);
  tdl_freq_destroy(f);
}

static void test_response(void) {
  check_response(64, 0);
  check_response(1024, 1);
  check_response(600, 1);
  check_response(75, 0);
}

/* E|H[k]|^2 = sum of the powers = 1 on every subcarrier; and chan_fill's
 * direct form gives the FFT's response on every RE of the frame. */
static void test_response_power_and_fill(void) {
  const int K = 256, frames = 4000;
  link_params p = tdl_params(2, 2, PDP_TDL_A, 6.0, K);
  const chan_spatial s = spatial_of(&p);
  char err[256];
  tdl_freq *f = tdl_freq_create(K, err, sizeof err);
  cf32 taps[4 * TDL_MAX_TAPS], *Hk = malloc(sizeof *Hk * 4 * K);
  double *pk = calloc(K, sizeof *pk), all = 0;
  for (int frame = 0; frame < frames; frame++) {
    tdl_draw_taps(&p, &s, frame, taps);
    tdl_freq_response(f, &p.pdp, 4, taps, Hk);
    for (int e = 0; e < 4; e++)
      for (int k = 0; k < K; k++) pk[k] += cf_abs2(Hk[e * K + k]);
  }
  int bad = 0;
  const double n = 4.0 * frames, sd = 1.0 / sqrt(n);
  for (int k = 0; k < K; k++) {
    bad += fabs(pk[k] / n - 1.0) > 5 * sd;
    all += pk[k] / n / K;
  }
  CHECK(bad == 0, "%d subcarriers with E|H[k]|^2 off 1 by more than 5 sigma", bad);
  CHECK(fabs(all - 1.0) < 5 * sd, "mean |H|^2 over subcarriers %.4f", all);

  /* chan_fill for tdl: RE m = symbol*K + k sees Hk[k] of its frame. */
  const size_t rf = (size_t)link_res_per_frame(&p);
  cf32 *H = malloc(sizeof *H * 4 * rf);
  double worst = 0;
  for (int frame = 7; frame < 10; frame++) {
    tdl_draw_taps(&p, &s, frame, taps);
    tdl_freq_response(f, &p.pdp, 4, taps, Hk);
    chan_fill(&p, &s, frame, 0, rf, H, rf);
    for (int e = 0; e < 4; e++)
      for (size_t m = 0; m < rf; m++)
        worst = fmax(worst, sqrt(cf_abs2(cf_sub(H[e * rf + m], Hk[e * K + m % K]))));
  }
  CHECK(worst < 1e-5, "chan_fill(tdl) off tdl_freq_response by %g", worst);
  free(H);
  free(Hk);
  free(pk);
  tdl_freq_destroy(f);
}

/* tdl_freq_response on several OpenMP threads at once gives the serial bits. */
static void test_response_threads(void) {
  const int K = 512, frames = 32, links = 6;
  link_params p = tdl_params(2, 3, PDP_TDL_C, 10.0, K);
  const chan_spatial s = spatial_of(&p);
  char err[256];
  tdl_freq *f = tdl_freq_create(K, err, sizeof err);
  const int L = p.pdp.taps;
  cf32 *taps = malloc(sizeof *taps * frames * links * L),
       *a = malloc(sizeof *a * frames * links * K), *b = malloc(sizeof *b * frames * links * K);
  for (int fr = 0; fr < frames; fr++) tdl_draw_taps(&p, &s, fr, taps + fr * links * L);
  for (int fr = 0; fr < frames; fr++)
    tdl_freq_response(f, &p.pdp, links, taps + fr * links * L, a + fr * links * K);
#pragma omp parallel for num_threads(4) schedule(dynamic, 1)
  for (int fr = 0; fr < frames; fr++)
    tdl_freq_response(f, &p.pdp, links, taps + fr * links * L, b + fr * links * K);
  CHECK(memcmp(a, b, sizeof *a * frames * links * K) == 0, "threaded responses differ");
  free(taps);
  free(a);
  free(b);
  tdl_freq_destroy(f);
}

int main(void) {
  test_tables();
  test_exponential();
  test_errors();
  test_tap_layout();
  test_tap_statistics();
  test_response();
  test_response_power_and_fill();
  test_response_threads();
  return test_finish("test_channel_tdl");
}
