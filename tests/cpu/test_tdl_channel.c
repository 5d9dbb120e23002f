/* Multipath profiles, the taps of a frame and their per-subcarrier response. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/channel_cpu.h"
#include "core/rng.h"
#include "channel/tdl.h"
#include "channel/tdl_grid.h"
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
  const int rc = tdl_pdp_make(kind, ds, 0.0, DELAYS_SAMPLE, K - 1, &p.pdp, err, sizeof err);
  CHECK(rc == 0, "tdl_pdp_make: %s", err);
  return p;
}


/* Sorted distinct delays from 0, powers positive and summing to 1. */
static void check_shape(const char *name, const tdl_pdp *pdp) {
  double sum = 0.0;
  int ok = pdp->taps >= 1 && pdp->taps <= TDL_MAX_TAPS && pdp->delay[0] == 0 && pdp->los_power == 0.0f;
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
      CHECK(tdl_pdp_make(kinds[k], ds, 0.0, DELAYS_SAMPLE, 4095, &pdp, err, sizeof err) == 0, "%s: %s", name, err);
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
    CHECK(tdl_pdp_make(kinds[k], 10000.0, 0.0, DELAYS_SAMPLE, 200000, &pdp, err, sizeof err) == 0, "%s", err);
    CHECK(pdp.taps == table_taps[k], "%s: %d taps, table has %d", pdp_kind_name(kinds[k]), pdp.taps,
          table_taps[k]);
    CHECK(fabs(tdl_pdp_rms_delay(&pdp) / 10000.0 - 1.0) < 2e-4, "%s: table RMS %.6f",
          pdp_kind_name(kinds[k]), tdl_pdp_rms_delay(&pdp) / 10000.0);
  }
  /* Spot values of TR 38.901 Table 7.7.2-1 (TDL-A): tap 1 at 0.3819 with 0 dB,
   * tap 0 at 0 with -13.4 dB, the last at 9.6586 with -29.7 dB. */
  tdl_pdp a;
  tdl_pdp_make(PDP_TDL_A, 10000.0, 0.0, DELAYS_SAMPLE, 200000, &a, err, sizeof err);
  int at3819 = -1;
  for (int l = 0; l < a.taps; l++)
    if (a.delay[l] == 3819) at3819 = l;
  CHECK(at3819 >= 0, "TDL-A: no tap at 3819 samples");
  if (at3819 >= 0) {
    CHECK(fabs(10 * log10(a.power[0] / a.power[at3819]) + 13.4) < 1e-4, "TDL-A first tap %.4f dB",
          10 * log10(a.power[0] / a.power[at3819]));
    CHECK(a.delay[a.taps - 1] == 96586 &&
              fabs(10 * log10(a.power[a.taps - 1] / a.power[at3819]) + 29.7) < 1e-4,
          "TDL-A last tap %g at %.4f dB", a.delay[a.taps - 1],
          10 * log10(a.power[a.taps - 1] / a.power[at3819]));
  }
  /* Merging: TDL-B at ds 1 rounds its 23 delays onto 0..5 and keeps all power. */
  tdl_pdp b;
  tdl_pdp_make(PDP_TDL_B, 1.0, 0.0, DELAYS_SAMPLE, 100, &b, err, sizeof err);
  CHECK(b.taps == 6 && b.delay[5] == 5, "TDL-B ds 1: %d taps up to %g", b.taps,
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
    CHECK(tdl_pdp_make(PDP_EXP, ds, 0.0, DELAYS_SAMPLE, 4095, &pdp, err, sizeof err) == 0, "%s: %s", name, err);
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
  CHECK(tdl_pdp_make(PDP_TDL_A, 300.0, 0.0, DELAYS_SAMPLE, 1023, &pdp, err, sizeof err) == -1, "too long accepted");
  CHECK(strstr(err, "tdl-a") && strstr(err, "300") && strstr(err, "2898") && strstr(err, "1023"),
        "message: %s", err);
  CHECK(tdl_pdp_make(PDP_EXP, 200.0, 0.0, DELAYS_SAMPLE, 1023, &pdp, err, sizeof err) == -1 && strstr(err, "exp"),
        "exp too long: %s", err);
  CHECK(tdl_pdp_make(PDP_TDL_C, 3.0, 0.0, DELAYS_SAMPLE, 26, &pdp, err, sizeof err) == 0, "tdl-c ds 3 fits 26: %s",
        err); /* 8.6523 * 3 = 25.96 -> 26 */
  CHECK(tdl_pdp_make(PDP_TDL_C, 3.0, 0.0, DELAYS_SAMPLE, 25, &pdp, err, sizeof err) == -1, "tdl-c ds 3 in 25");
  CHECK(tdl_pdp_make(PDP_EXP, -1.0, 0.0, DELAYS_SAMPLE, 100, &pdp, err, sizeof err) == -1, "negative spread");
  CHECK(tdl_pdp_make(PDP_EXP, NAN, 0.0, DELAYS_SAMPLE, 100, &pdp, err, sizeof err) == -1, "NaN spread");
  /* 6..10 are the CDL models now: 99 is no profile */
  CHECK(tdl_pdp_make((pdp_kind)99, 1.0, 0.0, DELAYS_SAMPLE, 100, &pdp, err, sizeof err) == -1, "unknown kind");
  CHECK(strcmp(pdp_kind_name(PDP_TDL_B), "tdl-b") == 0 && strcmp(pdp_kind_name(PDP_EXP), "exp") == 0,
        "names");
  CHECK(tdl_pdp_make(PDP_TDL_A, 1.0, NAN, DELAYS_CONTINUOUS, 100, &pdp, err, sizeof err) == -1 &&
            strstr(err, "tdl-d"),
        "tdl-a has no LOS of its own: %s", err);
  CHECK(tdl_pdp_make(PDP_TDL_D, 1.0, -1.0, DELAYS_CONTINUOUS, 100, &pdp, err, sizeof err) == -1, "negative K");
  CHECK(tdl_pdp_make(PDP_TDL_C, 1.0, 0.0, (delay_grid)7, 100, &pdp, err, sizeof err) == -1, "unknown grid");
  link_params p = tdl_params(1, 1, PDP_TDL_A, 1.0, 64);
  tdl_grid g;
  p.model = CH_RAYLEIGH;
  CHECK(tdl_grid_make(&p, &g, err, sizeof err) == -1 && strstr(err, "tdl"), "grid of a rayleigh point");
}

/* Continuous delays: every TR 38.901 profile at 30, 100 and 300 ns with 30 kHz
 * spacing (1024 subcarriers: 30.72 Msample/s) has the configured RMS delay
 * spread within 2% (TDL-D's table is 0.994), where rounding to the grid
 * would be far off at 30 ns (0.92 samples); the delays are the table's times
 * the spread, not rounded. */
static void test_continuous_tables(void) {
  static const pdp_kind kinds[] = {PDP_TDL_A, PDP_TDL_B, PDP_TDL_C, PDP_TDL_D, PDP_TDL_E};
  static const double ns[] = {30.0, 100.0, 300.0};
  const double fs = 1024 * 30e3;
  char err[256];
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
    for (size_t i = 0; i < 3; i++) {
      const double ds = ns[i] * 1e-9 * fs;
      tdl_pdp pdp;
      const double K = tdl_pdp_has_los(kinds[k]) ? NAN : 0.0;
      CHECK(tdl_pdp_make(kinds[k], ds, K, DELAYS_CONTINUOUS, 1023, &pdp, err, sizeof err) == 0, "%s", err);
      const double rms_ns = tdl_pdp_rms_delay(&pdp) / fs * 1e9;
      CHECK(fabs(rms_ns / ns[i] - 1.0) < 0.02, "%s at %g ns: RMS delay spread %.2f ns", pdp_kind_name(kinds[k]),
            ns[i], rms_ns);
      int off_grid = 0;
      for (int l = 0; l < pdp.taps; l++) off_grid += pdp.delay[l] != floor(pdp.delay[l]);
      CHECK(off_grid >= pdp.taps - 2, "%s at %g ns: only %d of %d delays off the grid", pdp_kind_name(kinds[k]),
            ns[i], off_grid, pdp.taps);
      double total = pdp.los_power;
      for (int l = 0; l < pdp.taps; l++) total += pdp.power[l];
      CHECK(fabs(total - 1.0) < 1e-5, "%s: powers sum to %.7f", pdp_kind_name(kinds[k]), total);
    }
  /* The rounded grid at 30 ns is what the continuous model repairs. */
  tdl_pdp r;
  CHECK(tdl_pdp_make(PDP_TDL_A, 30e-9 * fs, 0.0, DELAYS_SAMPLE, 1023, &r, err, sizeof err) == 0, "%s", err);
  CHECK(fabs(tdl_pdp_rms_delay(&r) / fs * 1e9 / 30.0 - 1.0) > 0.05, "rounded TDL-A at 30 ns: RMS %.2f ns",
        tdl_pdp_rms_delay(&r) / fs * 1e9);
  /* LOS shares: tdl-d/e keep the table's (K1 = 13.3 / 22 dB over their first
   * Rayleigh tap); k_factor is the whole channel's K on every profile. */
  tdl_pdp d, e, a;
  tdl_pdp_make(PDP_TDL_D, 2.0, NAN, DELAYS_CONTINUOUS, 100, &d, err, sizeof err);
  tdl_pdp_make(PDP_TDL_E, 2.0, NAN, DELAYS_CONTINUOUS, 100, &e, err, sizeof err);
  CHECK(fabs(10 * log10(d.los_power / d.power[0]) - 13.3) < 1e-3, "tdl-d K1 %.4f dB",
        10 * log10(d.los_power / d.power[0]));
  CHECK(fabs(10 * log10(e.los_power / e.power[0]) - 22.0) < 1e-3, "tdl-e K1 %.4f dB",
        10 * log10(e.los_power / e.power[0]));
  static const pdp_kind whole[] = {PDP_TDL_A, PDP_TDL_D, PDP_EXP};
  for (int i = 0; i < 3; i++) {
    tdl_pdp_make(whole[i], 2.0, 3.0, DELAYS_CONTINUOUS, 100, &a, err, sizeof err);
    CHECK(fabs(a.los_power / (1.0 - a.los_power) - 3.0) < 1e-5, "%s k_factor 3: LOS/NLOS %.6f",
          pdp_kind_name(whole[i]), a.los_power / (1.0 - a.los_power));
  }
}

/* Uncorrelated taps are the documented draws: q = e*L + l is number q%2 of
 * draw q/2, scaled by sqrt(power[l]). */
static void test_tap_layout(void) {
  link_params p = tdl_params(3, 3, PDP_TDL_A, 4.0, 64);
  const chan_spatial s = tp_spatial(&p);
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

/* Mean tap powers match the profile: the NLOS power of each tap, plus the
 * LOS power on tap 0, whose mean is the LOS amplitude; the antenna pairs of
 * one tap correlate as rho^|i-j| (times the tap's power). */
static void check_tap_statistics(const char *name, link_params p, int frames) {
  const chan_spatial s = tp_spatial(&p);
  const int L = p.pdp.taps, links = p.tx * p.rx;
  cf32 *taps = malloc(sizeof *taps * links * L);
  double *pw = calloc(L, sizeof *pw), mean0 = 0, corr = 0, nlos0 = 0;
  const double los = sqrt((double)p.pdp.los_power);
  for (int f = 0; f < frames; f++) {
    tdl_draw_taps(&p, &s, f, taps);
    for (int e = 0; e < links; e++)
      for (int l = 0; l < L; l++) pw[l] += cf_abs2(taps[e * L + l]);
    for (int e = 0; e < links; e++) {
      mean0 += taps[e * L].re;
      nlos0 += cf_abs2(cf_make(taps[e * L].re - (float)los, taps[e * L].im));
    }
    /* elements (0,0) and (0,1) of the last tap: Rt[0][1] = rho_tx */
    const cf32 a = taps[0 * L + L - 1], b = taps[1 * L + L - 1];
    corr += (double)a.re * b.re + (double)a.im * b.im;
  }
  const double n = (double)frames * links;
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
    /* |a + w|^2, w ~ CN(0, P): mean P + a^2, variance P^2 + 2 a^2 P */
    const double P = p.pdp.power[l], a2 = l == 0 ? los * los : 0.0;
    const double sd = infl * sqrt(P * P + 2 * a2 * P) / sqrt(n);
    if (fabs(pw[l] - P - a2) > 5 * sd) {
      bad++;
      fprintf(stderr, "%s: tap %d power %.5f, profile %.5f\n", name, l, pw[l], P + a2);
    }
  }
  CHECK(bad == 0, "%s: %d tap powers off the profile", name, bad);
  const double P0 = p.pdp.power[0];
  CHECK(fabs(mean0 / n - los) < 5 * infl * sqrt(P0 / 2 / n), "%s: tap 0 mean %.4f, expected %.4f", name,
        mean0 / n, los);
  /* the first tap's K: its LOS power over its measured Rayleigh power */
  if (los > 0)
    CHECK(fabs(nlos0 / n / P0 - 1.0) < 5 * infl / sqrt(n), "%s: tap 0 K %.3f dB, profile %.3f dB", name,
          10 * log10(los * los / (nlos0 / n)), 10 * log10(los * los / P0));
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
  char err[256];
  CHECK(tdl_pdp_make(PDP_TDL_C, 2.0, 4.0, DELAYS_SAMPLE, 63, &p.pdp, err, sizeof err) == 0, "%s", err);
  check_tap_statistics("tdl-c correlated, whole-channel K 4", p, 20000);
  p = tdl_params(2, 3, PDP_EXP, 3.0, 64);
  p.rho_tx = -0.5;
  check_tap_statistics("exp correlated", p, 20000);
  /* TDL-D and TDL-E: the table's first-tap K (13.3 and 22 dB) and total power 1 */
  static const pdp_kind los_kinds[] = {PDP_TDL_D, PDP_TDL_E};
  for (int i = 0; i < 2; i++) {
    p = tdl_params(2, 2, los_kinds[i], 3.0, 256);
    p.k_factor = NAN;
    CHECK(tdl_pdp_make(los_kinds[i], 3.0, NAN, DELAYS_CONTINUOUS, 255, &p.pdp, err, sizeof err) == 0, "%s", err);
    check_tap_statistics(pdp_kind_name(los_kinds[i]), p, 40000);
  }
}

/* The response against the DFT sum in double, the continuous-delay phase
 * exp(-j 2 pi kc tau / K) with kc the subcarrier's signed frequency index. */
static void check_response(int K, pdp_kind kind, delay_grid grid) {
  link_params p = tdl_params(2, 2, kind, K / 40.0, K);
  p.delays = grid;
  char err[256];
  CHECK(tdl_pdp_make(kind, K / 40.0, tdl_pdp_has_los(kind) ? NAN : 0.0, grid, K - 1, &p.pdp, err, sizeof err) == 0,
        "%s", err);
  const chan_spatial s = tp_spatial(&p);
  tdl_grid g;
  CHECK(tdl_grid_make(&p, &g, err, sizeof err) == 0, "%s", err);
  const int L = p.pdp.taps;
  cf32 taps[4 * TDL_MAX_TAPS];
  cf32 *Hk = malloc(sizeof *Hk * 4 * (size_t)K);
  double worst = 0;
  for (int frame = 0; frame < 3; frame++) {
    tdl_draw_taps(&p, &s, frame, taps);
    tdl_response(&g, 4, taps, 0, K, Hk, (size_t)K);
    for (int e = 0; e < 4; e++)
      for (int k = 0; k < K; k++) {
        double re = 0, im = 0;
        const double kc = 2 * k < K ? k : k - K;
        for (int l = 0; l < L; l++) {
          const double ph = -2.0 * 3.14159265358979323846 * kc * p.pdp.delay[l] / K;
          re += taps[e * L + l].re * cos(ph) - taps[e * L + l].im * sin(ph);
          im += taps[e * L + l].re * sin(ph) + taps[e * L + l].im * cos(ph);
        }
        worst = fmax(worst, hypot(Hk[e * K + k].re - re, Hk[e * K + k].im - im));
      }
  }
  CHECK(worst < 1e-5, "K %d %s %s: response off the DFT by %g", K, pdp_kind_name(kind), delay_grid_name(grid),
        worst);
  free(Hk);
  tdl_grid_free(&g);
}

static void test_response(void) {
  check_response(64, PDP_TDL_B, DELAYS_SAMPLE);
  check_response(1024, PDP_TDL_A, DELAYS_CONTINUOUS);
  check_response(600, PDP_TDL_D, DELAYS_CONTINUOUS);
  check_response(75, PDP_TDL_E, DELAYS_CONTINUOUS);
}

/* The time domain's discrete taps: each off-grid tap spread over 2W samples
 * whose response is within -35 dB of the exact one over the central 90% of
 * the band (about -38 dB measured; the band edge rolls off), on-grid taps
 * one discrete tap; the window rotation removes the bulk delay. */
static void test_time_tables(void) {
  const int K = 1024;
  link_params p = tdl_params(1, 1, PDP_TDL_A, 7.3, K);
  char err[256];
  CHECK(tdl_pdp_make(PDP_TDL_A, 7.3, 0.0, DELAYS_CONTINUOUS, K - 1, &p.pdp, err, sizeof err) == 0, "%s", err);
  tdl_grid ft, tt;
  CHECK(tdl_grid_make(&p, &ft, err, sizeof err) == 0, "%s", err);
  p.domain = DOMAIN_TIME;
  CHECK(tdl_grid_make(&p, &tt, err, sizeof err) == 0, "%s", err);
  double worst = 0, edge = 0;
  for (int l = 0; l < p.pdp.taps; l++)
    for (int k = 0; k < K; k++) {
      const double kc = 2 * k < K ? k : k - K;
      const double d = sqrt(cf_abs2(cf_sub(tt.resp[l * K + k], ft.resp[l * K + k])));
      if (fabs(kc) < 0.45 * K) worst = fmax(worst, d);
      else edge = fmax(edge, d);
    }
  CHECK(20 * log10(worst) < -35.0, "time-domain response off the exact one by %.1f dB in the central 90%%",
        20 * log10(worst));
  CHECK(edge > worst, "the band edge should show the interpolator's roll-off (%.3g vs %.3g)", edge, worst);
  /* the earliest off-grid tap reaches W - 1 samples before its floor */
  int want_shift = 0;
  for (int l = 0; l < p.pdp.taps; l++)
    if (p.pdp.delay[l] != floor(p.pdp.delay[l]) && TDL_INTERP_HALF - 1 - (int)floor(p.pdp.delay[l]) > want_shift)
      want_shift = TDL_INTERP_HALF - 1 - (int)floor(p.pdp.delay[l]);
  CHECK(want_shift > 0 && tt.td_shift == want_shift, "bulk shift %d, expected %d", tt.td_shift, want_shift);
  int ok = tt.td_delay[0] >= 0;
  for (int j = 1; j < tt.td_taps; j++) ok &= tt.td_delay[j] > tt.td_delay[j - 1];
  CHECK(ok, "discrete delays not ascending from >= 0");
  /* tap 0 sits at delay 0, on the grid: one coefficient 1 at the shift */
  int ones = 0;
  for (int j = 0; j < tt.td_taps; j++) {
    const float c = tt.td_coef[(size_t)j * tt.L + 0];
    ones += c != 0.0f;
    if (c != 0.0f) CHECK(c == 1.0f && tt.td_delay[j] == tt.td_shift, "tap 0 at %d with %g", tt.td_delay[j], c);
  }
  CHECK(ones == 1, "tap 0 spread over %d discrete taps", ones);
  tdl_grid_free(&ft);
  tdl_grid_free(&tt);
  /* on the sample grid: the discrete taps are the profile's, no shift */
  link_params q = tdl_params(1, 1, PDP_TDL_C, 3.0, 128);
  q.domain = DOMAIN_TIME;
  CHECK(tdl_grid_make(&q, &tt, err, sizeof err) == 0, "%s", err);
  ok = tt.td_taps == q.pdp.taps && tt.td_shift == 0;
  for (int j = 0; ok && j < tt.td_taps; j++) ok &= tt.td_delay[j] == (int)q.pdp.delay[j];
  CHECK(ok, "sample grid: %d discrete taps, shift %d", tt.td_taps, tt.td_shift);
  tdl_grid_free(&tt);
}

/* E[H_k H*_{k+d}] of the continuous-delay model equals the profile's Fourier
 * transform, los_power + sum_l p_l exp(-j 2 pi d tau_l / K), at every lag d
 * (statistically: within 5 standard errors estimated from the frames'
 * spread), and E|H_k|^2 = 1 on every subcarrier. */
static void check_correlation(pdp_kind kind, double ds, int frames) {
  const int K = 256, links = 4;
  link_params p = tdl_params(2, 2, kind, ds, K);
  char err[256];
  p.k_factor = tdl_pdp_has_los(kind) ? NAN : 0.0;
  CHECK(tdl_pdp_make(kind, ds, p.k_factor, DELAYS_CONTINUOUS, K - 1, &p.pdp, err, sizeof err) == 0, "%s", err);
  const chan_spatial s = tp_spatial(&p);
  tdl_grid g;
  CHECK(tdl_grid_make(&p, &g, err, sizeof err) == 0, "%s", err);
  cf32 taps[4 * TDL_MAX_TAPS], *Hk = malloc(sizeof *Hk * links * K);
  static const int lags[] = {0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 128};
  enum { NL = sizeof lags / sizeof *lags };
  double sum[NL][2] = {{0}}, sq[NL][2] = {{0}};
  for (int f = 0; f < frames; f++) {
    tdl_draw_taps(&p, &s, f, taps);
    tdl_response(&g, links, taps, 0, K, Hk, (size_t)K);
    for (int i = 0; i < NL; i++) {
      double re = 0, im = 0;
      for (int e = 0; e < links; e++)
        for (int k = 0; k < K; k++) {
          const cf32 a = Hk[e * K + k], b = Hk[e * K + (k + lags[i]) % K];
          re += (double)a.re * b.re + (double)a.im * b.im;
          im += (double)a.im * b.re - (double)a.re * b.im;
        }
      re /= links * K;
      im /= links * K;
      sum[i][0] += re;
      sum[i][1] += im;
      sq[i][0] += re * re;
      sq[i][1] += im * im;
    }
  }
  int bad = 0;
  for (int i = 0; i < NL; i++) {
    /* the lag wraps around the band (k + d mod K): the pair's frequency gap
     * is d or d - K, and exp(-j 2 pi (k+d - k) tau / K) needs the signed
     * gap of each pair; average over k of the two cases */
    double want_re = p.pdp.los_power, want_im = 0;
    for (int l = 0; l < p.pdp.taps; l++) {
      double re = 0, im = 0;
      for (int k = 0; k < K; k++) {
        const double k1 = 2 * k < K ? k : k - K, k2i = (k + lags[i]) % K, k2 = 2 * k2i < K ? k2i : k2i - K;
        const double ph = -2.0 * 3.14159265358979323846 * (k1 - k2) * p.pdp.delay[l] / K;
        re += cos(ph);
        im += sin(ph);
      }
      want_re += p.pdp.power[l] * re / K;
      want_im += p.pdp.power[l] * im / K;
    }
    for (int c = 0; c < 2; c++) {
      const double mean = sum[i][c] / frames, var = sq[i][c] / frames - mean * mean;
      const double se = sqrt(var > 0 ? var / frames : 0) + 1e-6, want = c ? want_im : want_re;
      if (fabs(mean - want) > 5 * se) {
        bad++;
        fprintf(stderr, "%s ds %g lag %d %s: %.4f, the profile gives %.4f (se %.4f)\n", pdp_kind_name(kind), ds,
                lags[i], c ? "im" : "re", mean, want, se);
      }
    }
  }
  CHECK(bad == 0, "%s ds %g: %d correlations off the profile's transform", pdp_kind_name(kind), ds, bad);
  free(Hk);
  tdl_grid_free(&g);
}

static void test_frequency_correlation(void) {
  check_correlation(PDP_TDL_A, 2.3, 3000);
  check_correlation(PDP_TDL_B, 0.9, 3000);
  check_correlation(PDP_TDL_C, 5.7, 3000);
  check_correlation(PDP_TDL_D, 1.4, 3000);
  check_correlation(PDP_TDL_E, 0.35, 3000);
}

/* chan_fill for tdl: RE m = symbol*K + k sees tdl_response's H[k] of its frame. */
static void test_fill(void) {
  const int K = 256;
  link_params p = tdl_params(2, 2, PDP_TDL_A, 6.0, K);
  const chan_spatial s = tp_spatial(&p);
  char err[256];
  tdl_grid g;
  CHECK(tdl_grid_make(&p, &g, err, sizeof err) == 0, "%s", err);
  cf32 taps[4 * TDL_MAX_TAPS], *Hk = malloc(sizeof *Hk * 4 * K);
  const size_t rf = (size_t)link_res_per_frame(&p);
  cf32 *H = malloc(sizeof *H * 4 * rf);
  double worst = 0;
  for (int frame = 7; frame < 10; frame++) {
    tdl_draw_taps(&p, &s, frame, taps);
    tdl_response(&g, 4, taps, 0, K, Hk, (size_t)K);
    chan_fill(&p, &s, &g, frame, 0, rf, H, rf);
    for (int e = 0; e < 4; e++)
      for (size_t m = 0; m < rf; m++)
        worst = fmax(worst, sqrt(cf_abs2(cf_sub(H[e * rf + m], Hk[e * K + m % K]))));
  }
  CHECK(worst == 0.0, "chan_fill(tdl) off tdl_response by %g", worst);
  free(H);
  free(Hk);
  tdl_grid_free(&g);
}

int main(void) {
  test_tables();
  test_exponential();
  test_errors();
  test_tap_layout();
  test_continuous_tables();
  test_tap_statistics();
  test_response();
  test_time_tables();
  test_frequency_correlation();
  test_fill();
  return test_finish("test_channel_tdl");
}
