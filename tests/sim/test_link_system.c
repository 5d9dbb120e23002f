/* Properties of the whole CPU link: time-domain OFDM against the per-subcarrier
 * model, counts independent of batch size and thread count, and the MMSE
 * error variance against its prediction. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "equalizer/equalizer.h"
#include "linktest.h"
#include "sim/backends.h"
#include "core/names.h"
#include "core/qam.h"
#include "refmath.h"
#include "testutil.h"

static backend *make(const link_params *p, uint64_t batch) {
  char err[512];
  backend_options opt;
  memset(&opt, 0, sizeof opt);
  backend_options_set(&opt, "cpu", "staged", 1); /* the test fetches buffers */
  opt.max_batch_frames = batch;
  backend *b = backends_create("cpu", p, &opt, err, sizeof err);
  if (!b) fprintf(stderr, "backend: %s\n", err);
  return b;
}

static cf32 *fetch(backend *b, backend_buffer which, size_t count) {
  cf32 *v = malloc(sizeof(cf32) * count);
  if (backend_fetch(b, which, v, count)) {
    free(v);
    return NULL;
  }
  return v;
}

/* With a CP covering the channel, the time-domain chain is the per-subcarrier
 * model: on the same bits and taps, at an SNR where noise is negligible (100 dB), the
 * equalised symbols agree to the noise level and every decision is equal. */
static void time_vs_frequency(int tx, int rx, int bps, pdp_kind profile, delay_grid grid) {
  link_params fd = lt_params(tx, rx, bps, EQ_MMSE, CH_TDL, 100.0);
  fd.profile = profile;
  fd.delays = grid;
  if (profile == PDP_TDL_D || profile == PDP_TDL_E) fd.k_factor = NAN;
  fd.delay_spread = profile == PDP_TDL_D || profile == PDP_TDL_E ? 1.5 : 3.0; /* all within the CP */
  fd.subcarriers = 256;
  fd.symbols = 3;
  fd.cp_length = 64;
  CHECK(lt_finish(&fd) == 0, "profile");
  link_params td = fd;
  td.domain = DOMAIN_TIME;
  const uint64_t frames = 4;
  const size_t R = (size_t)(frames * link_res_per_frame(&fd)), n = (size_t)tx * R;
  backend *bf = make(&fd, frames), *bt = make(&td, frames);
  CHECK(bf && bt, "backends");
  if (!bf || !bt) return;
  uint32_t ef[64], et[64];
  batch_result rf = {.errors = ef}, rt = {.errors = et};
  CHECK(backend_run(bf, 0, frames, &rf) == 0 && backend_run(bt, 0, frames, &rt) == 0, "run");
  cf32 *xf = fetch(bf, BUF_XHAT, n), *xt = fetch(bt, BUF_XHAT, n);
  cf32 *hf = fetch(bf, BUF_H, (size_t)rx * tx * R), *ht = fetch(bt, BUF_H, (size_t)rx * tx * R);
  CHECK(xf && xt && hf && ht, "fetch");
  if (xf && xt && hf && ht) {
    double worst = 0;
    size_t differ = 0;
    for (size_t i = 0; i < n; i++) {
      const double d = hypot(xf[i].re - xt[i].re, xf[i].im - xt[i].im);
      if (d > worst) worst = d;
      differ += qam_demap(bps, xf[i]) != qam_demap(bps, xt[i]);
    }
    if (grid == DELAYS_SAMPLE) {
      int same_h = !memcmp(hf, ht, sizeof(cf32) * (size_t)rx * tx * R);
      CHECK(same_h, "tx %d rx %d: both domains must see the same channel draws", tx, rx);
    } else {
      /* the same taps through the exact response and through the discrete
       * interpolated taps: equal to -35 dB over the central 90% of the band */
      double err = 0, pw = 0;
      const int K = fd.subcarriers;
      for (size_t e = 0; e < (size_t)rx * tx; e++)
        for (size_t i = 0; i < R; i++) {
          const int k = (int)(i % (size_t)K), kc = 2 * k < K ? k : k - K;
          if (abs(kc) >= 0.45 * K) continue;
          err += cf_abs2(cf_sub(hf[e * R + i], ht[e * R + i]));
          pw += cf_abs2(hf[e * R + i]);
        }
      CHECK(10 * log10(err / pw) < -35, "tx %d rx %d %s: the domains' channels differ by %.1f dB", tx, rx,
            pdp_kind_name(profile), 10 * log10(err / pw));
    }
    /* Noise std at 100 dB is ~1e-5 per RE, float rounding of the FFTs ~1e-6;
     * ill-conditioned REs amplify both. */
    CHECK(worst < 0.05, "tx %d rx %d bps %d: time vs frequency x_hat differ by %.3g", tx, rx, bps, worst);
    CHECK(differ == 0, "tx %d rx %d bps %d: %zu decisions differ", tx, rx, bps, differ);
    printf("time vs frequency %dx%d bps %d profile %d: max |dx| %.2e, %zu decisions differ\n", tx, rx,
           bps, (int)profile, worst, differ);
  }
  free(xf), free(xt), free(hf), free(ht);
  backend_destroy(bf);
  backend_destroy(bt);
}

/* A cyclic prefix shorter than the channel lets symbols bleed into each other:
 * at high SNR the error rate must rise well above the CP-covered one. */
static void short_cp_raises_ber(void) {
  link_params p = lt_params(2, 2, 4, EQ_MMSE, CH_TDL, 30.0);
  p.profile = PDP_TDL_C;
  p.delay_spread = 8.0;
  p.subcarriers = 256;
  p.symbols = 7;
  p.domain = DOMAIN_TIME;
  p.cp_length = 128;
  CHECK(lt_finish(&p) == 0, "profile");
  link_params shortcp = p;
  shortcp.cp_length = 2;
  lt_counts good, bad;
  CHECK(lt_simulate("cpu", &p, 1000000, 2e6, 0, &good) == 0, "run");
  CHECK(lt_simulate("cpu", &shortcp, 1000000, 2e6, 0, &bad) == 0, "run");
  const double bg = (double)good.errors / (double)good.bits, bb = (double)bad.errors / (double)bad.bits;
  printf("tdl-c ds 8, 30 dB: ber with cp 128 %.3e, with cp 2 %.3e\n", bg, bb);
  CHECK(bb > 3.0 * bg && bad.errors > good.errors + 100, "short CP: ber %.3e vs %.3e", bb, bg);
}

/* Counts of each frame are the same whatever the batch size and thread count. */
static void batch_and_thread_independence(channel_model model, ofdm_domain domain) {
  link_params p = lt_params(2, 3, 4, EQ_MMSE, model, 6.0);
  /* An odd frame size: batch boundaries then fall anywhere relative to the
   * SIMD lanes, which must not change any RE's arithmetic. */
  p.subcarriers = 75;
  p.symbols = 3;
  p.domain = domain;
  p.csi_error_var = 0.01;
  p.rho_tx = 0.3;
  CHECK(lt_finish(&p) == 0, "params");
  enum { F = 12 };
  uint32_t one[F * 2], many[F * 2], single[F * 2];
  backend *b = make(&p, F);
  batch_result r = {.errors = one};
  CHECK(backend_run(b, 0, F, &r) == 0, "run");
  backend_destroy(b);
  b = make(&p, 5);
  for (uint64_t f = 0; f < F; f += 5) {
    const uint64_t n = F - f < 5 ? F - f : 5;
    batch_result rr = {.errors = many + f * 2};
    CHECK(backend_run(b, f, n, &rr) == 0, "run");
  }
  backend_destroy(b);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  b = make(&p, F);
  batch_result r1 = {.errors = single};
  CHECK(backend_run(b, 0, F, &r1) == 0, "run");
  backend_destroy(b);
  omp_set_num_threads(threads);
  uint64_t total = 0;
  for (int i = 0; i < F * 2; i++) total += one[i];
  CHECK(total > 0, "the point must produce errors to compare");
  CHECK(!memcmp(one, many, sizeof one), "model %d domain %d: batches of 5 differ from one batch",
        (int)model, (int)domain);
  CHECK(!memcmp(one, single, sizeof one), "model %d domain %d: 1 thread differs from %d", (int)model,
        (int)domain, threads);
}

/* MMSE: the measured error variance of the bias-corrected estimate matches the
 * mean of (1 - mu)/mu, mu = 1 - N0 [G^-1]_tt, within 5%. */
static void mmse_error_variance(int tx, int rx, double esno_db) {
  link_params p = lt_params(tx, rx, 2, EQ_MMSE, CH_RAYLEIGH, esno_db);
  p.snr_kind = SNR_ESNO;
  p.subcarriers = 1024;
  p.symbols = 14;
  lt_finish(&p);
  const uint64_t frames = 8;
  backend *b = make(&p, frames);
  uint32_t e[8 * 8];
  batch_result r = {.errors = e};
  CHECK(backend_run(b, 0, frames, &r) == 0, "run");
  const size_t R = (size_t)(frames * link_res_per_frame(&p));
  cf32 *x = fetch(b, BUF_X, (size_t)tx * R), *xh = fetch(b, BUF_XHAT, (size_t)tx * R);
  cf32 *gi = fetch(b, BUF_GINV, (size_t)tx * tx * R);
  CHECK(x && xh && gi, "fetch");
  if (x && xh && gi) {
    double measured = 0, predicted = 0;
    for (int t = 0; t < tx; t++)
      for (size_t i = 0; i < R; i++) {
        const cf32 d = cf_sub(xh[(size_t)t * R + i], x[(size_t)t * R + i]);
        measured += cf_abs2(d);
        predicted += eq_predicted_error_var(EQ_MMSE, (float)p.n0, gi[((size_t)t * tx + t) * R + i]);
      }
    const double ratio = measured / predicted;
    printf("mmse %dx%d Es/N0 %.0f dB: error variance measured %.4e predicted %.4e ratio %.4f\n", tx, rx,
           esno_db, measured / (tx * R), predicted / (tx * R), ratio);
    CHECK(fabs(ratio - 1.0) < 0.05, "mmse %dx%d: ratio %.4f", tx, rx, ratio);
  }
  free(x), free(xh), free(gi);
  backend_destroy(b);
}

/* Creating a backend checks every parameter and says what is wrong. */
static void bad_params_rejected(void) {
  struct {
    const char *what, *expect;
    link_params p;
  } cases[8];
  for (int i = 0; i < 8; i++) cases[i].p = lt_params(2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 10.0);
  cases[0].what = "tx 9", cases[0].expect = "antennas", cases[0].p.tx = 9;
  cases[1].what = "bps 3", cases[1].expect = "bits per symbol", cases[1].p.bps = 3;
  cases[2].what = "time domain rayleigh", cases[2].expect = "time-domain";
  cases[2].p.domain = DOMAIN_TIME;
  cases[3].what = "negative n0", cases[3].expect = "noise variance", cases[3].p.n0 = -1.0;
  cases[4].what = "no subcarriers", cases[4].expect = "subcarriers", cases[4].p.subcarriers = 0;
  cases[5].what = "tdl without taps", cases[5].expect = "taps", cases[5].p.model = CH_TDL;
  cases[5].p.pdp.taps = 0;
  /* the receiver rules are core's alone (the config reports them too) */
  cases[6].what = "zf rx < tx", cases[6].expect = "detector: \"zf\" needs receive antennas >= transmit antennas";
  cases[6].p.equalizer = EQ_ZF, cases[6].p.rx = 1;
  cases[7].what = "ml exact llr", cases[7].expect = "soft output: expected \"off\" or \"maxlog\" with detector";
  cases[7].p.equalizer = EQ_ML, cases[7].p.llr = LLR_EXACT;
  for (int i = 0; i < 8; i++) {
    char err[512] = "";
    backend_options opt;
    memset(&opt, 0, sizeof opt);
    backend_options_set(&opt, "cpu", "staged", 1); /* the test fetches buffers */
    backend *b = backends_create("cpu", &cases[i].p, &opt, err, sizeof err);
    CHECK(b == NULL, "%s: accepted", cases[i].what);
    CHECK(strstr(err, "cpu backend: ") && strstr(err, cases[i].expect), "%s: message '%s'",
          cases[i].what, err);
    backend_destroy(b);
  }
}

/* A backend's options reach it by name: a name it does not have, or a value
 * out of its range, is refused with the backend's message; another backend's
 * settings are left to it (here: cuda's, whether or not it is built). */
static void bad_options_rejected(void) {
  const link_params p = lt_params(2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 10.0);
  struct {
    const char *option, *expect;
    int64_t value;
  } cases[] = {{"stagged", "cpu backend: no option 'stagged' (it has threads, staged, td_direct)", 1},
               {"staged", "cpu backend: option 'staged': expected 0 to 1, got 2", 2},
               {"threads", "cpu backend: option 'threads': expected 0 to", -1}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char err[512] = "";
    backend_options opt = {0};
    backend_options_set(&opt, "cuda", "memory_mb", 64);
    backend_options_set(&opt, "cpu", cases[i].option, cases[i].value);
    backend *b = backends_create("cpu", &p, &opt, err, sizeof err);
    CHECK(b == NULL && strstr(err, cases[i].expect), "%s = %lld: '%s'", cases[i].option,
          (long long)cases[i].value, err);
    backend_destroy(b);
  }
  char err[512] = "";
  backend_options opt = {0};
  backend_options_set(&opt, "cuda", "no_such_option", 1);
  CHECK(backend_options_set(&opt, "cpu", "staged", 1) == 0, "second setting refused");
  backend *b = backends_create("cpu", &p, &opt, err, sizeof err);
  CHECK(b != NULL, "the cpu backend read a cuda setting: %s", err);
  backend_destroy(b);
  for (int i = opt.count; i < BACKEND_MAX_SETTINGS; i++) backend_options_set(&opt, "cpu", "threads", 1);
  CHECK(backend_options_set(&opt, "cpu", "threads", 1) == -1, "a setting past BACKEND_MAX_SETTINGS was taken");
}

int main(void) {
  bad_params_rejected();
  bad_options_rejected();
  time_vs_frequency(1, 1, 2, PDP_EXP, DELAYS_CONTINUOUS);
  time_vs_frequency(2, 2, 4, PDP_TDL_A, DELAYS_SAMPLE);
  time_vs_frequency(2, 4, 6, PDP_TDL_C, DELAYS_SAMPLE);
  time_vs_frequency(4, 4, 4, PDP_TDL_B, DELAYS_SAMPLE);
  time_vs_frequency(2, 2, 4, PDP_TDL_A, DELAYS_CONTINUOUS);
  time_vs_frequency(2, 4, 6, PDP_TDL_D, DELAYS_CONTINUOUS);
  time_vs_frequency(1, 2, 2, PDP_TDL_E, DELAYS_CONTINUOUS); /* 2x2 would be rank one: K1 = 22 dB */
  short_cp_raises_ber();
  batch_and_thread_independence(CH_RAYLEIGH, DOMAIN_FREQUENCY);
  batch_and_thread_independence(CH_TDL, DOMAIN_FREQUENCY);
  batch_and_thread_independence(CH_TDL, DOMAIN_TIME);
  mmse_error_variance(2, 2, 10.0);
  mmse_error_variance(4, 4, 15.0);
  mmse_error_variance(2, 4, 5.0);
  return test_finish("test_link_system");
}
