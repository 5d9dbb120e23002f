/* Doppler: the time-varying tdl channel (channel/tdl_fading.h) on the CPU
 * backend, against the theory of Clarke's model.
 *
 * Every statistical check averages a per-frame value over independent frames
 * (each frame draws its own sinusoids, taps, data and noise), estimates the
 * standard error from the spread of those per-frame values, and bounds the
 * deviation from theory by 5 standard errors. The autocorrelation and ICI
 * checks also assert their own power: the theory with the Doppler frequency
 * 10% off must lie well outside the bound (10 and 8 standard errors), so a
 * model whose frequency scale were wrong by 10% could not pass.
 *
 *  - the tap autocorrelation E[h_l(t) h_l*(t+tau)] = p_l J0(2 pi nu tau),
 *    nu = f_d per sample, through the first three zeros of J0, and the tap
 *    power p_l (lag 0);
 *  - the receiver's channel (tdl_symbol_taps) is the mean of the per-sample
 *    taps over each symbol's FFT window;
 *  - the inter-carrier interference of the time-domain modem, noiseless:
 *    E|y_k - H_avg,k x_k|^2 = 1 - (1/K^2) sum_{n,n'<K} J0(2 pi nu (n - n'))
 *    for unit channel power (Jakes), on a flat and a multipath channel;
 *  - the uncoded BER of the time-domain link through the CPU backend: the
 *    Rayleigh closed form without Doppler, and rising with f_d T beyond the
 *    confidence intervals;
 *  - the draws are counter based: the documented RNG_DOPPLER layout, the
 *    same frame twice the same sinusoids, another frame others, and a batch
 *    of the backend that starts mid-way gives the same H and y bit for bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "channel/ofdm.h"
#include "channel/tdl.h"
#include "channel/tdl_grid.h"
#include "core/backend.h"
#include "core/rng.h"
#include "core/spatial.h"
#include "cpu/backend_cpu.h"
#include "refmath.h"
#include "testparams.h"
#include "testutil.h"

static const double kPi = 3.14159265358979323846;

/* A time-domain QPSK tdl point with Doppler fd_T = f_d / subcarrier spacing
 * (the maximum Doppler shift times the useful symbol time), its pdp resolved
 * on the sample grid without a LOS path, its stream key set. */
static link_params doppler_params(int tx, int rx, pdp_kind kind, double ds, int K, int symbols, int cp,
                                  double fd_T) {
  link_params p = tp_point(tx, rx, 2, CH_TDL, K, symbols, cp);
  p.profile = kind;
  p.delay_spread = ds;
  p.delays = DELAYS_SAMPLE;
  p.domain = DOMAIN_TIME;
  p.doppler_hz = fd_T * p.subcarrier_spacing;
  p.equalizer = EQ_MMSE;
  p.seed = 2718;
  char err[256];
  CHECK(tdl_pdp_make(kind, ds, 0.0, DELAYS_SAMPLE, K - 1, &p.pdp, err, sizeof err) == 0, "tdl_pdp_make: %s", err);
  p.stream_key = link_stream_key(&p);
  return p;
}


static void test_reference(void) {
  /* the series against known values: J0(1), J0 at its first zero and its
   * first minimum, J0(8) */
  CHECK(fabs(ref_bessel_j0(1.0) - 0.7651976865579666) < 1e-14, "J0(1) = %.16f", ref_bessel_j0(1.0));
  CHECK(fabs(ref_bessel_j0(2.404825557695773)) < 1e-13, "J0 at its first zero: %g", ref_bessel_j0(2.404825557695773));
  CHECK(fabs(ref_bessel_j0(3.831705970207512) + 0.4027593957025531) < 1e-13, "J0 at its minimum: %.16f",
        ref_bessel_j0(3.831705970207512));
  CHECK(fabs(ref_bessel_j0(8.0) - 0.1716508071375539) < 1e-11, "J0(8) = %.16f", ref_bessel_j0(8.0));
  /* nu is f_d over the sample rate K * spacing */
  const link_params p = doppler_params(1, 1, PDP_EXP, 0.0, 64, 2, 16, 0.1);
  CHECK(fabs(link_doppler_per_sample(&p) - 0.1 / 64) < 1e-15 && tdl_fade_of(&p).nu == link_doppler_per_sample(&p),
        "nu %.9g, expected %.9g", link_doppler_per_sample(&p), 0.1 / 64);
}

/* 1. E[h_l(t) h_l*(t + tau)] / p_l = J0(2 pi nu tau) on three taps of tdl-a,
 * 2x2 without correlation, at lags through the first three zeros of J0; lag
 * 0 is the tap power. Per frame the products are averaged over the 4 links
 * and 8 times t spread over the frame; frames are independent. */
static void test_autocorrelation(void) {
  const int K = 64, frames = 1000, npos = 8;
  const double fd_T = 0.2;
  link_params p = doppler_params(2, 2, PDP_TDL_A, 3.0, K, 14, 16, fd_T);
  const chan_spatial s = tp_spatial(&p);
  CHECK(!s.correlated && !s.rician && p.pdp.los_power == 0.0f, "the point must be uncorrelated and LOS-free");
  const tdl_fade fd = tdl_fade_of(&p);
  const int L = p.pdp.taps, links = p.tx * p.rx;
  /* the first tap, the strongest and the last */
  int strongest = 0;
  for (int l = 1; l < L; l++)
    if (p.pdp.power[l] > p.pdp.power[strongest]) strongest = l;
  const int taps[3] = {0, strongest, L - 1};
  CHECK(L >= 3 && strongest != 0 && strongest != L - 1, "tdl-a ds 3: %d taps, strongest %d", L, strongest);
  /* 2 pi nu tau: 0, then through the first zero (2.405), the minimum (3.832),
   * the second zero (5.520) and the third (8.654) */
  static const double xs[] = {0.0, 0.8, 1.6, 2.404825557695773, 3.2, 3.831705970207512,
                              4.6, 5.520078110286311, 7.0, 8.653727912911013};
  enum { NX = sizeof xs / sizeof *xs };
  const double nu = fd.nu, frame_len = (double)p.symbols * (K + p.cp_length);
  sos_term *sos = malloc(sizeof *sos * tdl_fade_terms(&p));
  ref_acc re[3][NX], im[3][NX];
  memset(re, 0, sizeof re);
  memset(im, 0, sizeof im);
  for (int f = 0; f < frames; f++) {
    tdl_draw_sos(&p, (uint64_t)f, sos);
    for (int i = 0; i < 3; i++) {
      const int l = taps[i];
      const float amp = sqrtf(p.pdp.power[l]);
      double sr[NX] = {0}, si[NX] = {0};
      for (int j = 0; j < npos; j++) {
        const double t = frame_len * j / npos;
        cf32 h0[4], h1[4];
        tdl_fading_taps(fd, &s, sos, l, amp, t, 0, h0);
        for (int x = 0; x < NX; x++) {
          tdl_fading_taps(fd, &s, sos, l, amp, t + xs[x] / (2.0 * kPi * nu), 0, h1);
          for (int e = 0; e < links; e++) { /* h0 conj(h1) */
            sr[x] += (double)h0[e].re * h1[e].re + (double)h0[e].im * h1[e].im;
            si[x] += (double)h0[e].im * h1[e].re - (double)h0[e].re * h1[e].im;
          }
        }
      }
      const double norm = (double)links * npos * p.pdp.power[l];
      for (int x = 0; x < NX; x++) {
        ref_acc_add(&re[i][x], sr[x] / norm);
        ref_acc_add(&im[i][x], si[x] / norm);
      }
    }
  }
  for (int i = 0; i < 3; i++) {
    int bad = 0;
    double power = 0.0; /* how many standard errors a 10% frequency error would move the worst lag */
    for (int x = 0; x < NX; x++) {
      const double want = ref_bessel_j0(xs[x]), se_re = ref_acc_se(&re[i][x]), se_im = ref_acc_se(&im[i][x]);
      const int ok = fabs(re[i][x].mean - want) <= 5.0 * se_re && fabs(im[i][x].mean) <= 5.0 * se_im;
      bad += !ok;
      power = fmax(power, fabs(ref_bessel_j0(1.1 * xs[x]) - want) / se_re);
      if (!ok || getenv("TEST_VERBOSE"))
        fprintf(stderr, "tap %d (p %.4f) 2 pi nu tau %.3f: R/p = %.5f %+.5fj (se %.5f), J0 %.5f\n", taps[i],
                p.pdp.power[taps[i]], xs[x], re[i][x].mean, im[i][x].mean, se_re, want);
    }
    CHECK(bad == 0, "tap %d: %d of %d lags off J0(2 pi nu tau) by more than 5 standard errors", taps[i], bad, NX);
    CHECK(fabs(re[i][0].mean - 1.0) <= 5.0 * ref_acc_se(&re[i][0]), "tap %d: power %.5f p_l (se %.5f)", taps[i],
          re[i][0].mean, ref_acc_se(&re[i][0]));
    CHECK(power > 10.0, "tap %d: a 10%% frequency error would move the autocorrelation by only %.1f se", taps[i],
          power);
    printf("autocorrelation, tap %d of %d: power %.4f p_l (se %.4f); at the first zero %.4f (se %.4f), at the "
           "minimum %.4f (J0 %.4f); 10%% off in f_d = %.0f se\n",
           taps[i], L, re[i][0].mean, ref_acc_se(&re[i][0]), re[i][3].mean, ref_acc_se(&re[i][3]), re[i][5].mean,
           ref_bessel_j0(xs[5]), power);
  }
  free(sos);
}

/* The receiver's taps of symbol s (tdl_symbol_taps) are the mean of the
 * per-sample taps over its FFT window n0 .. n0+K-1, n0 = s (K+cp) + cp. */
static void test_window_average(void) {
  const int K = 64;
  link_params p = doppler_params(2, 2, PDP_TDL_A, 3.0, K, 6, 16, 0.2);
  const chan_spatial s = tp_spatial(&p);
  const tdl_fade fd = tdl_fade_of(&p);
  const int L = p.pdp.taps, links = p.tx * p.rx;
  sos_term *sos = malloc(sizeof *sos * tdl_fade_terms(&p));
  cf32 *taps = malloc(sizeof *taps * links * L);
  double worst = 0.0, spread = 0.0;
  for (int f = 0; f < 4; f++) {
    tdl_draw_sos(&p, (uint64_t)f, sos);
    for (int sym = 0; sym < p.symbols; sym++) {
      tdl_symbol_taps(&p, &s, sos, sym, taps);
      const int n0 = sym * (K + p.cp_length) + p.cp_length;
      for (int l = 0; l < L; l++) {
        double re[4] = {0}, im[4] = {0};
        cf32 h[4], first[4];
        for (int i = 0; i < K; i++) {
          tdl_fading_taps(fd, &s, sos, l, sqrtf(p.pdp.power[l]), (double)(n0 + i), 0, h);
          if (i == 0) memcpy(first, h, sizeof h);
          for (int e = 0; e < links; e++) {
            re[e] += h[e].re / (double)K;
            im[e] += h[e].im / (double)K;
          }
        }
        const double a = sqrt((double)p.pdp.power[l]);
        for (int e = 0; e < links; e++) {
          worst = fmax(worst, hypot(taps[e * L + l].re - re[e], taps[e * L + l].im - im[e]) / a);
          /* how far the taps move within a window: what an off-by-one
           * window would be off by, roughly */
          spread = fmax(spread, hypot(first[e].re - re[e], first[e].im - im[e]) / a);
        }
      }
    }
  }
  CHECK(worst < 2e-5, "tdl_symbol_taps off the window mean of the per-sample taps by %g (relative)", worst);
  CHECK(spread > 1e-2, "the taps should move within a window at f_d T 0.2 (%g)", spread);
  printf("window average: tdl_symbol_taps within %.2g of the mean over the FFT window (taps move by up to %.3f)\n",
         worst, spread);
  free(sos);
  free(taps);
}

/* Jakes' ICI power of a unit-power channel whose taps all have the Clarke
 * spectrum: 1 - [K + 2 sum_{d=1}^{K-1} (K-d) J0(2 pi nu d)] / K^2. */
static double ici_theory(double nu, int K) {
  double s = K;
  for (int d = 1; d < K; d++) s += 2.0 * (K - d) * ref_bessel_j0(2.0 * kPi * nu * d);
  return 1.0 - s / ((double)K * K);
}

/* 2. The time-domain modem without noise: y_k = H_avg,k x_k + ICI, H_avg the
 * response of the window-averaged taps (tdl_symbol_taps, tdl_response: the
 * draw stage's H). The unitary transforms make sum_k' |c_k'-k|^2 the window
 * mean of |h(n)|^2, so E|y - H_avg x|^2 = E|h|^2 - E|H_avg|^2 = P_ICI per RE
 * for unit-energy QPSK on every subcarrier; with the CP covering the delays
 * there is no ISI, and on the sample grid each tap's response has unit
 * modulus, so a multipath channel of total power 1 has the same P_ICI. */
static void check_ici(pdp_kind kind, double ds, int cp, double fd_T, int frames) {
  const int K = 64;
  link_params p = doppler_params(1, 1, kind, ds, K, 2, cp, fd_T);
  const chan_spatial s = tp_spatial(&p);
  const int L = p.pdp.taps;
  CHECK(p.pdp.delay[L - 1] <= cp, "%s ds %g: delays to %g, beyond the CP %d", kind == PDP_EXP ? "exp" : "tdl-a", ds,
        p.pdp.delay[L - 1], cp);
  char err[256] = "";
  tdl_grid g;
  CHECK(tdl_grid_make(&p, &g, err, sizeof err) == 0, "tdl_grid_make: %s", err);
  CHECK(g.td_shift == 0, "sample-grid taps need no window rotation (shift %d)", g.td_shift);
  ofdm_modem *m = ofdm_modem_create(&p, &g, err, sizeof err);
  CHECK(m != NULL, "ofdm_modem_create: %s", err);
  if (!m) {
    tdl_grid_free(&g);
    return;
  }
  const size_t rf = (size_t)link_res_per_frame(&p);
  sos_term *sos = malloc(sizeof *sos * tdl_fade_terms(&p));
  cf32 *x = malloc(sizeof *x * rf), *y = malloc(sizeof *y * rf), *taps = malloc(sizeof *taps * L),
       *Hk = malloc(sizeof *Hk * K);
  const float a = 0.70710678f;
  test_rng_seed(0x1c1 + (uint64_t)(fd_T * 1000));
  ref_acc ici = {0}, rx_power = {0};
  int fails = 0;
  for (int f = 0; f < frames; f++) {
    for (size_t i = 0; i < rf; i++) {
      const uint64_t b = test_rng_u64();
      x[i] = cf_make((b >> 62) & 1 ? a : -a, b >> 63 ? a : -a);
    }
    tdl_draw_sos(&p, (uint64_t)f, sos);
    fails += ofdm_modem_frame(m, (uint64_t)f, x, rf, NULL, sos, 0.0f, y, rf) != 0;
    double e2 = 0.0, y2 = 0.0;
    for (int sym = 0; sym < p.symbols; sym++) {
      tdl_symbol_taps(&p, &s, sos, sym, taps);
      tdl_response(&g, 1, taps, 0, K, Hk, (size_t)K);
      for (int k = 0; k < K; k++) {
        const size_t i = (size_t)sym * K + k;
        const double hr = Hk[k].re, hi = Hk[k].im;
        const double er = y[i].re - (hr * x[i].re - hi * x[i].im), ei = y[i].im - (hr * x[i].im + hi * x[i].re);
        e2 += er * er + ei * ei;
        y2 += (double)y[i].re * y[i].re + (double)y[i].im * y[i].im;
      }
    }
    ref_acc_add(&ici, e2 / (double)rf);
    ref_acc_add(&rx_power, y2 / (double)rf);
  }
  CHECK(fails == 0, "%d frames failed", fails);
  const double nu = link_doppler_per_sample(&p), want = ici_theory(nu, K), se = ref_acc_se(&ici);
  const double power = fabs(ici_theory(1.1 * nu, K) - want) / se;
  const char *name = kind == PDP_EXP ? "flat" : "tdl-a";
  CHECK(fabs(ici.mean - want) <= 5.0 * se, "%s, f_d T %g: ICI power %.4e (se %.2e), Jakes %.4e", name, fd_T,
        ici.mean, se, want);
  CHECK(power > 8.0, "%s, f_d T %g: a 10%% frequency error moves the ICI by only %.1f se", name, fd_T, power);
  /* the received power is the channel's, 1 (the ICI included) */
  CHECK(fabs(rx_power.mean - 1.0) <= 5.0 * ref_acc_se(&rx_power), "%s, f_d T %g: received power %.4f (se %.4f)", name,
        fd_T, rx_power.mean, ref_acc_se(&rx_power));
  printf("ICI, %s (%d taps), f_d T %.2f: %.4e = %.2f dB (se %.1f%%), Jakes %.4e = %.2f dB; "
         "10%% off in f_d = %.0f se; received power %.4f\n",
         name, L, fd_T, ici.mean, 10 * log10(ici.mean), 100 * se / ici.mean, want, 10 * log10(want), power,
         rx_power.mean);
  free(sos);
  free(x);
  free(y);
  free(taps);
  free(Hk);
  ofdm_modem_destroy(m);
  tdl_grid_free(&g);
}

static void test_ici(void) {
  static const double fd_T[] = {0.01, 0.05, 0.1, 0.2};
  for (int i = 0; i < 4; i++) check_ici(PDP_EXP, 0.0, 16, fd_T[i], 2000);
  check_ici(PDP_TDL_A, 1.0, 16, 0.1, 1000);
}

/* The uncoded BER of frames [0, frames) through the CPU backend and its
 * standard error from the spread of the per-frame error counts (the errors
 * of a frame are correlated: one fade, one set of sinusoids), at least that
 * of a Poisson count. */
typedef struct ber_est {
  double ber, se;
  uint64_t errors, bits;
} ber_est;

static ber_est run_ber(const link_params *p, uint64_t frames) {
  ber_est out = {0};
  char err[512];
  backend_options opt;
  memset(&opt, 0, sizeof opt);
  backend_options_set(&opt, "cpu", "staged", 1); /* the test fetches buffers */
  opt.max_batch_frames = 256;
  backend *b = backend_cpu_create(p, &opt, err, sizeof err);
  CHECK(b != NULL, "backend_cpu_create: %s", err);
  if (!b) {
    out.ber = out.se = NAN;
    return out;
  }
  const uint64_t cap = b->ops->max_frames(b), bpf = link_bits_per_frame(p);
  uint32_t *e = malloc(sizeof *e * cap * (size_t)p->tx), *fb = malloc(sizeof *fb * cap);
  batch_result r;
  memset(&r, 0, sizeof r);
  r.errors = e;
  r.fallbacks = fb;
  ref_acc per_frame = {0};
  for (uint64_t first = 0; first < frames;) {
    const uint64_t n = frames - first < cap ? frames - first : cap;
    if (backend_run(b, first, n, &r)) {
      CHECK(0, "backend_run: %s", backend_error(b));
      break;
    }
    for (uint64_t f = 0; f < n; f++) {
      uint64_t fe = 0;
      for (int t = 0; t < p->tx; t++) fe += e[f * (uint64_t)p->tx + (uint64_t)t];
      out.errors += fe;
      ref_acc_add(&per_frame, (double)fe);
    }
    first += n;
  }
  out.bits = frames * bpf;
  out.ber = (double)out.errors / (double)out.bits;
  out.se = fmax(ref_acc_se(&per_frame) / (double)bpf, sqrt(fmax((double)out.errors, 1.0)) / (double)out.bits);
  free(e);
  free(fb);
  backend_destroy(b);
  return out;
}

/* Rayleigh's closed form for the BER of Gray QPSK at Eb/N0 g (per bit,
 * averaged over |H|^2 ~ Exp(1)): (1 - sqrt(g / (1 + g))) / 2. */
static double rayleigh_qpsk_ber(double g) { return 0.5 * (1.0 - sqrt(g / (1.0 + g))); }

/* 3. 1x1 QPSK MMSE over tdl-a at 0.5 samples (5 taps, all within the CP) in
 * the time domain at Es/N0 30 dB. Without Doppler H_k ~ CN(0, 1) on every
 * subcarrier and the noise is CN(0, n0) after the unitary FFT, so the BER is
 * Rayleigh's closed form at g = 1 / (2 n0) = 500, 4.99e-4 (checked within 5
 * standard errors). The ICI (-23.9 dB at f_d T 0.05, -12.0 dB at 0.2) adds
 * to the noise (-30 dB), so the BER must rise with f_d: the intervals of 5
 * standard errors each side must not overlap. Printed beside, not checked:
 * the closed form with the ICI taken as Gaussian noise, g = (1 - P_ICI) /
 * (2 (n0 + P_ICI)), an approximation. */
static void test_ber(void) {
  static const double fd_T[] = {0.0, 0.05, 0.2};
  static const uint64_t frames[] = {20000, 3000, 1000};
  ber_est est[3];
  double n0 = 0.0;
  for (int i = 0; i < 3; i++) {
    link_params p = doppler_params(1, 1, PDP_TDL_A, 0.5, 64, 1, 16, fd_T[i]);
    CHECK(p.pdp.delay[p.pdp.taps - 1] <= p.cp_length, "tdl-a 0.5: delays to %g, beyond the CP",
          p.pdp.delay[p.pdp.taps - 1]);
    p.snr_kind = SNR_ESNO;
    p.snr_db = 30.0;
    p.n0 = n0 = link_noise_variance(p.snr_kind, p.snr_db, p.tx, p.bps);
    p.stream_key = link_stream_key(&p);
    est[i] = run_ber(&p, frames[i]);
    const double P = ici_theory(link_doppler_per_sample(&p), p.subcarriers);
    printf("BER, 1x1 QPSK MMSE tdl-a (%d taps), Es/N0 30 dB, f_d T %.2f: %.3e (se %.2e; %llu errors in %llu bits); "
           "Rayleigh with Gaussian ICI %.3e\n",
           p.pdp.taps, fd_T[i], est[i].ber, est[i].se, (unsigned long long)est[i].errors,
           (unsigned long long)est[i].bits, rayleigh_qpsk_ber((1.0 - P) / (2.0 * (n0 + P))));
  }
  const double want = rayleigh_qpsk_ber(1.0 / (2.0 * n0));
  CHECK(fabs(est[0].ber - want) <= 5.0 * est[0].se, "BER without Doppler %.4e (se %.2e), Rayleigh %.4e",
        est[0].ber, est[0].se, want);
  for (int i = 0; i + 1 < 3; i++)
    CHECK(est[i].ber + 5.0 * est[i].se < est[i + 1].ber - 5.0 * est[i + 1].se,
          "BER at f_d T %.2f [%.3e, %.3e] and %.2f [%.3e, %.3e] overlap", fd_T[i], est[i].ber - 5 * est[i].se,
          est[i].ber + 5 * est[i].se, fd_T[i + 1], est[i + 1].ber - 5 * est[i + 1].se,
          est[i + 1].ber + 5 * est[i + 1].se);
}

/* 4. The sinusoids are counter-based draws: term m of tap q = e*L + l of a
 * frame is the documented function of the RNG_DOPPLER words (q*6 + j) of
 * that frame (what both backends compute), the same frame gives the same
 * terms, another frame or another point other ones; and the CPU backend's H
 * and y of a frame do not depend on the batch it runs in. */
static void test_draws(void) {
  link_params p = doppler_params(2, 2, PDP_TDL_A, 1.5, 64, 3, 16, 0.1);
  p.snr_kind = SNR_ESNO;
  p.snr_db = 15.0;
  p.n0 = link_noise_variance(p.snr_kind, p.snr_db, p.tx, p.bps);
  p.stream_key = link_stream_key(&p);
  const int L = p.pdp.taps, links = p.tx * p.rx, total = links * L * TDL_SOS_TERMS;
  const size_t bytes = sizeof(sos_term) * (size_t)total, room = sizeof(sos_term) * tdl_fade_terms(&p);
  sos_term *a = malloc(room), *b = malloc(room), *c = malloc(room);
  tdl_draw_sos(&p, 41, a);
  tdl_draw_sos(&p, 41, b);
  CHECK(memcmp(a, b, bytes) == 0, "the same frame drew different sinusoids");
  tdl_draw_sos(&p, 42, c);
  int same = 0;
  for (int i = 0; i < total; i++) same += a[i].phase == c[i].phase || a[i].freq == c[i].freq;
  CHECK(same == 0, "frames 41 and 42 share %d of %d terms", same, total);
  link_params q = p;
  q.seed = p.seed + 1;
  tdl_draw_sos(&q, 41, c);
  same = 0;
  for (int i = 0; i < total; i++) same += a[i].phase == c[i].phase;
  CHECK(same == 0, "another seed shares %d of %d phases", same, total);
  /* the layout: u = the 24 uniforms of words q*6 .. q*6+5, u0 the angle
   * offset, u1.. the phases */
  const double nu = link_doppler_per_sample(&p);
  const uint64_t key = rng_key(p.seed, p.stream_key);
  double worst_f = 0.0;
  int bad_phase = 0;
  for (int qq = 0; qq < links * L; qq++) {
    float u[4 * TDL_SOS_DRAWS];
    for (int j = 0; j < TDL_SOS_DRAWS; j++) {
      const rng_words w = rng_draw(key, RNG_DOPPLER, 41, (uint64_t)qq * TDL_SOS_DRAWS + (uint64_t)j);
      for (int k = 0; k < 4; k++) u[4 * j + k] = rng_u01(w.w[k]);
    }
    for (int m = 0; m < TDL_SOS_TERMS; m++) {
      const double f = nu * cos(2.0 * kPi * (m + (double)u[0]) / TDL_SOS_TERMS);
      worst_f = fmax(worst_f, fabs(a[qq * TDL_SOS_TERMS + m].freq - f) / nu);
      bad_phase += a[qq * TDL_SOS_TERMS + m].phase != u[m + 1];
    }
  }
  CHECK(worst_f < 1e-6, "frequencies off nu cos(2 pi (m + u0) / M) by %g nu", worst_f);
  CHECK(bad_phase == 0, "%d phases off the RNG_DOPPLER layout", bad_phase);

  /* The backend: frames 0..5 in one batch, then 3..5 in batches of 2 and 1
   * from a fresh backend; H is the window average of the frame's own taps. */
  char err[512];
  backend_options opt;
  memset(&opt, 0, sizeof opt);
  backend_options_set(&opt, "cpu", "staged", 1); /* the test fetches buffers */
  opt.max_batch_frames = 6;
  const size_t rf = (size_t)link_res_per_frame(&p);
  const int K = p.subcarriers;
  backend *b6 = backend_cpu_create(&p, &opt, err, sizeof err);
  CHECK(b6 != NULL, "backend_cpu_create: %s", err);
  opt.max_batch_frames = 2;
  backend *b2 = backend_cpu_create(&p, &opt, err, sizeof err);
  CHECK(b2 != NULL, "backend_cpu_create: %s", err);
  if (b6 && b2) {
    uint32_t e[6 * 2], fb[6];
    batch_result r;
    memset(&r, 0, sizeof r);
    r.errors = e;
    r.fallbacks = fb;
    const size_t R6 = 6 * rf, R2 = 2 * rf, R1 = rf;
    cf32 *H6 = malloc(sizeof *H6 * links * R6), *Y6 = malloc(sizeof *Y6 * p.rx * R6),
         *H2 = malloc(sizeof *H2 * links * R2), *Y2 = malloc(sizeof *Y2 * p.rx * R2);
    CHECK(backend_run(b6, 0, 6, &r) == 0, "backend_run: %s", backend_error(b6));
    CHECK(backend_fetch(b6, BUF_H, H6, links * R6) == 0 && backend_fetch(b6, BUF_Y, Y6, p.rx * R6) == 0,
          "fetch: %s", backend_error(b6));
    int differ = 0;
    /* frames 3, 4 in one batch, then frame 5 alone */
    for (int part = 0; part < 2; part++) {
      const uint64_t first = part ? 5 : 3, n = part ? 1 : 2;
      const size_t R = part ? R1 : R2;
      CHECK(backend_run(b2, first, n, &r) == 0, "backend_run: %s", backend_error(b2));
      CHECK(backend_fetch(b2, BUF_H, H2, links * R) == 0 && backend_fetch(b2, BUF_Y, Y2, p.rx * R) == 0,
            "fetch: %s", backend_error(b2));
      for (int el = 0; el < links; el++)
        differ += memcmp(H2 + el * R, H6 + el * R6 + (first * rf), sizeof *H2 * R) != 0;
      for (int r_ = 0; r_ < p.rx; r_++)
        differ += memcmp(Y2 + r_ * R, Y6 + r_ * R6 + (first * rf), sizeof *Y2 * R) != 0;
    }
    CHECK(differ == 0, "%d buffers of frames 3..5 depend on the batch they ran in", differ);
    /* H of frame 4 against tdl_symbol_taps through the point's time tables */
    const chan_spatial s = tp_spatial(&p);
    tdl_grid g;
    CHECK(tdl_grid_make(&p, &g, err, sizeof err) == 0, "tdl_grid_make: %s", err);
    tdl_draw_sos(&p, 4, a);
    cf32 *taps = malloc(sizeof *taps * links * L), *Hk = malloc(sizeof *Hk * links * K);
    double worst = 0.0;
    for (int sym = 0; sym < p.symbols; sym++) {
      tdl_symbol_taps(&p, &s, a, sym, taps);
      tdl_response(&g, links, taps, 0, K, Hk, (size_t)K);
      for (int el = 0; el < links; el++)
        for (int k = 0; k < K; k++)
          worst = fmax(worst, sqrt(cf_abs2(cf_sub(Hk[el * K + k], H6[el * R6 + 4 * rf + (size_t)sym * K + k]))));
    }
    CHECK(worst == 0.0, "the backend's H of frame 4 is off the window-averaged taps by %g", worst);
    free(taps);
    free(Hk);
    tdl_grid_free(&g);
    free(H6);
    free(Y6);
    free(H2);
    free(Y2);
  }
  backend_destroy(b6);
  backend_destroy(b2);
  free(a);
  free(b);
  free(c);
}

int main(void) {
  test_reference();
  test_autocorrelation();
  test_window_average();
  test_ici();
  test_ber();
  test_draws();
  return test_finish("test_doppler");
}
