/* The receivers through the CPU backend, as the driver runs them:
 *  - GMI of soft demapping on AWGN against the BICM capacity computed by
 *    quadrature (tests/support/bicm_ref.c): BPSK, QPSK, 16-QAM at Es/N0 0, 5,
 *    10 dB, exact LLRs, and max-log below exact;
 *  - the joint detectors: ml with one stream is MRC (the theory column),
 *    kbest with K = M^tx decides as ml frame for frame, ml and kbest beat
 *    mmse, mmse-sic lies between mmse and ml, on identical draws;
 *  - error-aware MMSE: at a fixed CSI error variance the BER does not rise
 *    with SNR (it did before: the receiver now uses the LMMSE estimate and
 *    charges its error as noise), and x_hat's measured error variance is
 *    the predicted one within 5%. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bicm_ref.h"
#include "core/names.h"
#include "refmath.h"
#include "equalizer/soft.h"
#include "linktest.h"
#include "sim/backends.h"
#include "results/stats.h"
#include "sim/theory.h"
#include "testutil.h"

/* A point with Es/N0 snr_db and soft outputs. */
static link_params soft_point(int tx, int rx, int bps, eq_kind eq, channel_model model, double esno_db,
                              llr_kind llr) {
  link_params p = lt_params(tx, rx, bps, eq, model, esno_db);
  p.snr_kind = SNR_ESNO;
  p.llr = llr;
  p.kbest_k = 16;
  p.llr_clip = 20.0;
  lt_finish(&p);
  return p;
}

/* The GMI per stream on AWGN equals the BICM capacity at the same Es/N0: the
 * reference within 4 standard errors (frames are independent), so a correct
 * demapper fails with a chance below 1e-4 a case, and a demapper 0.1 dB off
 * fails. */
static void test_gmi_awgn(void) {
  const int bps[3] = {1, 2, 4};
  const double snr[3] = {0.0, 5.0, 10.0};
  for (int b = 0; b < 3; b++)
    for (int s = 0; s < 3; s++) {
      const int tx = bps[b] == 1 ? 1 : 2;
      link_params p = soft_point(tx, tx, bps[b], EQ_MMSE, CH_AWGN, snr[s], LLR_EXACT);
      p.seed = 100 + (uint64_t)(10 * b + s);
      lt_counts c;
      /* not scaled under the sanitizers: at high SNR the loss comes from rare
       * frames, and 40 frames (of AWGN, cheap) missed them */
      const double bits = 400.0 * link_bits_per_frame(&p);
      CHECK(lt_simulate("cpu", &p, UINT64_MAX, bits, 0, &c) == 0, "simulates");
      double lo, hi;
      const double gmi = lt_gmi(&p, &c, &lo, &hi) / tx;
      const double se = (hi - lo) / tx / (2.0 * t_quantile(0.975, (double)c.frames - 1.0));
      const double ref = bicm_capacity(bps[b], snr[s]);
      printf("GMI awgn bps %d Es/N0 %4.1f dB: %.5f (se %.1e) capacity %.5f\n", bps[b], snr[s], gmi, se, ref);
      CHECK(fabs(gmi - ref) <= 4.0 * se + 1e-6, "bps %d at %.0f dB: GMI %.5f, BICM capacity %.5f (se %.1e)", bps[b],
            snr[s], gmi, ref, se);
      /* max-log on the same draws: a mismatched metric, so no more than exact */
      p.llr = LLR_MAXLOG;
      lt_counts m;
      CHECK(lt_simulate("cpu", &p, UINT64_MAX, bits, 0, &m) == 0, "simulates");
      const double gmi_ml = lt_gmi(&p, &m, NULL, NULL) / tx;
      CHECK(gmi_ml <= gmi + 1e-9 && m.errors == c.errors, "bps %d at %.0f dB: max-log GMI %.5f above exact %.5f, or "
            "other hard decisions (%llu vs %llu errors)", bps[b], snr[s], gmi_ml, gmi, (unsigned long long)m.errors,
            (unsigned long long)c.errors);
    }
}

/* Per-frame error counts of a point's first `frames` frames. */
static uint32_t *frame_errors(const link_params *p, uint64_t frames) {
  char err[512];
  backend_options opt = {0};
  backend_options_set(&opt, "cpu", "staged", 1); /* the test fetches buffers */
  backend *b = backends_create("cpu", p, &opt, err, sizeof err);
  if (!b) {
    fprintf(stderr, "%s\n", err);
    return NULL;
  }
  uint32_t *e = calloc((size_t)frames * ((size_t)p->tx + 1), sizeof *e);
  const uint64_t cap = b->ops->max_frames(b);
  for (uint64_t f = 0; e && f < frames;) {
    const uint64_t n = frames - f < cap ? frames - f : cap;
    uint32_t *fb = calloc(n, sizeof *fb), *ee = calloc(n * (size_t)p->tx, sizeof *ee);
    batch_result r = {.errors = ee, .fallbacks = fb};
    if (backend_run(b, f, n, &r)) {
      fprintf(stderr, "%s\n", backend_error(b));
      free(e);
      e = NULL;
    } else {
      memcpy(e + f * (uint64_t)p->tx, ee, sizeof *ee * n * (size_t)p->tx);
    }
    free(fb);
    free(ee);
    f += n;
  }
  backend_destroy(b);
  return e;
}

static void test_kbest_is_ml(void) {
  const struct {
    int n, bps;
  } cases[] = {{2, 2}, {2, 4}, {4, 2}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const int n = cases[i].n, bps = cases[i].bps;
    link_params ml = soft_point(n, n, bps, EQ_ML, CH_RAYLEIGH, 8.0, LLR_OFF);
    link_params kb = ml;
    kb.equalizer = EQ_KBEST;
    kb.kbest_k = 1 << (n * bps);
    const uint64_t frames = test_scaled(40, 8);
    uint32_t *a = frame_errors(&ml, frames), *b = frame_errors(&kb, frames);
    CHECK(a && b, "simulates");
    if (a && b) {
      uint64_t total = 0;
      for (uint64_t k = 0; k < frames * (uint64_t)n; k++) total += a[k];
      CHECK(!memcmp(a, b, sizeof *a * frames * (size_t)n) && total > 0,
            "%dx%d %d bits: kbest with K = %d differs from ml (ml %llu errors)", n, n, bps, kb.kbest_k,
            (unsigned long long)total);
    }
    free(a);
    free(b);
  }
}

static double ber_of(const char *what, const link_params *p, uint64_t target, double max_bits) {
  lt_counts c;
  if (lt_simulate("cpu", p, target, max_bits, 0, &c)) {
    CHECK(0, "%s: simulation failed", what);
    return NAN;
  }
  const double ber = (double)c.errors / (double)c.bits;
  printf("%-28s ber %.4e (%llu errors, %llu bits)\n", what, ber, (unsigned long long)c.errors,
         (unsigned long long)c.bits);
  return ber;
}

/* One stream: every detector is MRC, whose BER the theory column has. */
static void test_ml_mrc(void) {
  const eq_kind eqs[3] = {EQ_ML, EQ_KBEST, EQ_MMSE_SIC};
  for (int i = 0; i < 3; i++) {
    link_params p = soft_point(1, 2, 4, eqs[i], CH_RAYLEIGH, 12.0, LLR_OFF);
    p.seed = 77 + (uint64_t)i;
    const double theory = theory_ber(&p, NULL);
    lt_counts c;
    CHECK(lt_simulate("cpu", &p, test_scaled(20000, 500), 4e8, 0, &c) == 0, "simulates");
    const int ok = ber_consistent(c.errors, c.bits, theory, p.tx * p.bps, 0.999);
    printf("%s 1x2 16-QAM: ber %.4e, MRC theory %.4e\n", equalizer_name(eqs[i]), (double)c.errors / (double)c.bits,
           theory);
    CHECK(ok, "%s with one stream: BER %.4e outside the interval of the MRC theory %.4e", equalizer_name(eqs[i]),
          (double)c.errors / (double)c.bits, theory);
  }
}

/* ml and kbest no worse than mmse; mmse-sic between mmse and ml (identical
 * draws: the same bits, channels and noise for every detector). */
static void test_ordering(void) {
  const struct {
    int n, bps;
    double snr;
  } cases[] = {{2, 2, 8.0}, {2, 4, 14.0}, {4, 2, 8.0}, {4, 4, 16.0}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char name[64];
    double ber[5];
    const eq_kind eqs[5] = {EQ_ZF, EQ_MMSE, EQ_MMSE_SIC, EQ_KBEST, EQ_ML};
    for (int e = 0; e < 5; e++) {
      link_params p = soft_point(cases[i].n, cases[i].n, cases[i].bps, eqs[e], CH_RAYLEIGH, cases[i].snr, LLR_OFF);
      p.seed = 900 + (uint64_t)i;
      snprintf(name, sizeof name, "%dx%d %d bits %s", cases[i].n, cases[i].n, cases[i].bps, equalizer_name(eqs[e]));
      /* 4x4 16-QAM ml enumerates 4096 candidates a RE (about 250 us on a core): fewer bits, the
       * gaps between the detectors stay tens of standard errors wide */
      ber[e] = ber_of(name, &p, UINT64_MAX, (double)test_scaled(cases[i].n == 4 && cases[i].bps == 4 ? 1000000 : 3000000, 1));
    }
    CHECK(ber[4] <= ber[1] && ber[3] <= ber[1], "case %zu: ml %.3e / kbest %.3e above mmse %.3e", i, ber[4], ber[3],
          ber[1]);
    CHECK(ber[2] <= ber[1] && ber[2] >= ber[4], "case %zu: mmse-sic %.3e outside [ml %.3e, mmse %.3e]", i, ber[2],
          ber[4], ber[1]);
    CHECK(ber[1] <= ber[0], "case %zu: mmse %.3e above zf %.3e", i, ber[1], ber[0]);
  }
}

/* 4x4 16-QAM MMSE with CSI error variance 0.1: the BER settles on the
 * error's floor instead of rising with SNR (8.6e-2 at 6 dB, 1.3e-1 at 30 dB
 * before the receiver knew the error). */
static void test_error_aware(void) {
  double last = 1.0, ber_db[9];
  for (int s = 0; s <= 8; s++) {
    link_params p = soft_point(4, 4, 4, EQ_MMSE, CH_RAYLEIGH, 5.0 * s, LLR_OFF);
    p.snr_kind = SNR_EBNO;
    p.csi_error_var = 0.1;
    lt_finish(&p);
    char name[64];
    snprintf(name, sizeof name, "csi 0.1 Eb/N0 %2d dB", 5 * s);
    lt_counts c;
    CHECK(lt_simulate("cpu", &p, test_scaled(40000, 1000), 1e8, 0, &c) == 0, "simulates");
    const double ber = (double)c.errors / (double)c.bits;
    /* the steps near the floor are small: allow 4 standard errors of the
     * clustered count (an RE carries 16 bits) */
    const double se = sqrt(ber * 16.0 / (double)c.bits);
    printf("%s ber %.4e\n", name, ber);
    CHECK(ber <= last + 4.0 * se, "BER rises with SNR at a fixed CSI error: %.4e at %d dB after %.4e", ber, 5 * s,
          last);
    ber_db[s] = ber;
    last = ber;
  }
  CHECK(ber_db[8] < ber_db[0], "the floor %.3e is not below the 0 dB BER %.3e", ber_db[8], ber_db[0]);

  /* x_hat's error variance against soft_post_var's prediction (the unbiased
   * MMSE's 1/SINR with the error charged as noise), on a staged batch */
  link_params p = soft_point(4, 4, 4, EQ_MMSE, CH_RAYLEIGH, 10.0, LLR_OFF);
  p.csi_error_var = 0.1;
  lt_finish(&p);
  char err[512];
  backend_options opt = {0};
  backend_options_set(&opt, "cpu", "staged", 1); /* the test fetches buffers */
  opt.max_batch_frames = 200;
  backend *b = backends_create("cpu", &p, &opt, err, sizeof err);
  CHECK(b != NULL, "%s", err);
  if (!b) return;
  const uint64_t frames = 200, R = frames * link_res_per_frame(&p);
  uint32_t *e = calloc(frames * 5, sizeof *e);
  batch_result r = {.errors = e, .fallbacks = e + frames * 4};
  cf32 *x = malloc(sizeof *x * 4 * R), *xh = malloc(sizeof *xh * 4 * R), *gi = malloc(sizeof *gi * 16 * R);
  CHECK(backend_run(b, 0, frames, &r) == 0 && backend_fetch(b, BUF_X, x, 4 * R) == 0 &&
            backend_fetch(b, BUF_XHAT, xh, 4 * R) == 0 && backend_fetch(b, BUF_GINV, gi, 16 * R) == 0,
        "run and fetch");
  const float n0r = (float)link_receiver_n0(&p);
  double measured = 0.0, predicted = 0.0;
  for (int t = 0; t < 4; t++)
    for (uint64_t i = 0; i < R; i++) {
      const cf32 d = cf_sub(xh[t * R + i], x[t * R + i]);
      measured += (double)cf_abs2(d);
      predicted += soft_post_var(1, n0r, gi[(size_t)(t * 4 + t) * R + i].re);
    }
  printf("x_hat error variance: measured %.5f, predicted %.5f\n", measured / (4.0 * R), predicted / (4.0 * R));
  CHECK(fabs(measured / predicted - 1.0) < 0.05, "x_hat error variance %.5f, predicted %.5f", measured / (4.0 * R),
        predicted / (4.0 * R));
  free(x);
  free(xh);
  free(gi);
  free(e);
  backend_destroy(b);
}

/* Under OFDMSIM_TEST_SCALE (the sanitizer run) the joint detectors and the
 * error-aware runs take fewer frames: the intervals are the runs' own, the
 * equalities exact. */
int main(void) {
  test_gmi_awgn();
  test_kbest_is_ml();
  test_ml_mrc();
  test_ordering();
  test_error_aware();
  return test_finish("test_receivers");
}
