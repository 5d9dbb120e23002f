/* Frequency-domain channel models: statistics of rayleigh, spatial
 * correlation and Rician channels, noise and CSI error, the identity of awgn,
 * and independence from how a frame is split into calls. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/channel_cpu.h"
#include "core/rng.h"
#include "channel/tdl.h"
#include "testparams.h"
#include "testutil.h"

/* Rayleigh QPSK on 64 subcarriers x 4 symbols, noiseless; each test sets the
 * rest. */
static link_params base_params(int tx, int rx) {
  link_params p = tp_point(tx, rx, 2, CH_RAYLEIGH, 64, 4, 16);
  p.seed = 2024;
  p.stream_key = 3;
  return p;
}


/* Channel matrices of `frames` whole frames of point p (its spatial model
 * set up here): H[e*R + i], R = frames*R_f. */
static cf32 *fill_frames(const link_params *p, int frames, size_t *R) {
  const chan_spatial s = tp_spatial(p);
  const size_t rf = (size_t)link_res_per_frame(p), links = (size_t)p->tx * p->rx;
  *R = rf * frames;
  cf32 *H = malloc(sizeof *H * links * *R);
  for (int f = 0; f < frames; f++) chan_fill(p, &s, NULL, (uint64_t)f, 0, rf, H + f * rf, *R);
  return H;
}

static void test_spatial_init(void) {
  link_params p = base_params(4, 6);
  p.rho_tx = 0.8;
  p.rho_rx = -0.4;
  chan_spatial s = tp_spatial(&p);
  double worst = 0.0;
  for (int side = 0; side < 2; side++) {
    const int n = side ? p.rx : p.tx, stride = side ? LINK_MAX_RX : LINK_MAX_TX;
    const float *L = side ? s.lr : s.lt;
    const double rho = side ? p.rho_rx : p.rho_tx;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double v = 0.0;
        for (int k = 0; k < n; k++) v += (double)L[i * stride + k] * L[j * stride + k];
        worst = fmax(worst, fabs(v - pow(rho, abs(i - j))));
        if (j > i) CHECK(L[i * stride + j] == 0.0f, "factor not lower triangular at %d,%d", i, j);
      }
  }
  CHECK(worst < 1e-6, "L L^T differs from rho^|i-j| by %g", worst);
  CHECK(s.correlated && !s.rician, "flags");

  char err[256] = "";
  link_params bad = base_params(2, 2);
  bad.rho_rx = 1.0;
  CHECK(chan_spatial_init(&bad, &s, err, sizeof err) == -1 && strstr(err, "rho"), "rho 1: %s", err);
  bad = base_params(2, 2);
  bad.k_factor = -1.0;
  CHECK(chan_spatial_init(&bad, &s, err, sizeof err) == -1 && strstr(err, "k_factor"), "K<0: %s",
        err);
  bad = base_params(LINK_MAX_TX + 1, 2);
  CHECK(chan_spatial_init(&bad, &s, err, sizeof err) == -1, "too many tx");
}

/* Sample covariances E[h_a h_b^*] against Rr[r][r'] Rt[t][t'] (Kronecker) and
 * the mean against the LOS amplitude. The estimate of a covariance between
 * unit-power circular Gaussians has standard deviation at most 1/sqrt(N) per
 * component (the LOS part is deterministic and only removes variance). */
static void check_statistics(const char *name, const link_params *p, int frames) {
  size_t R;
  cf32 *H = fill_frames(p, frames, &R);
  const int tx = p->tx, links = p->tx * p->rx;
  const double K = p->k_factor, los = sqrt(K / (K + 1.0)), nlos2 = 1.0 / (K + 1.0);
  const double tol = 5.0 / sqrt((double)R);
  int bad = 0;
  for (int a = 0; a < links; a++) {
    double mre = 0, mim = 0;
    for (size_t i = 0; i < R; i++) {
      mre += H[a * R + i].re;
      mim += H[a * R + i].im;
    }
    mre /= R;
    mim /= R;
    if (fabs(mre - los) > tol * sqrt(nlos2) || fabs(mim) > tol * sqrt(nlos2)) {
      bad++;
      fprintf(stderr, "%s: element %d mean %.5f%+.5fj, expected %.5f\n", name, a, mre, mim, los);
    }
    for (int b = a; b < links; b++) {
      const int ra = a / tx, ta = a % tx, rb = b / tx, tb = b % tx;
      /* E[h_a h_b^*] = los^2 + nlos^2 rho_rx^|ra-rb| rho_tx^|ta-tb| */
      const double expect =
          los * los + nlos2 * pow(p->rho_rx, abs(ra - rb)) * pow(p->rho_tx, abs(ta - tb));
      double cre = 0, cim = 0;
      for (size_t i = 0; i < R; i++) {
        const cf32 x = H[a * R + i], y = H[b * R + i];
        cre += (double)x.re * y.re + (double)x.im * y.im;
        cim += (double)x.im * y.re - (double)x.re * y.im;
      }
      cre /= R;
      cim /= R;
      /* With a LOS mean the product's spread grows by the mean's cross terms. */
      const double sd = tol * sqrt(1.0 + 2.0 * los * los);
      if (fabs(cre - expect) > sd || fabs(cim) > sd) {
        bad++;
        fprintf(stderr, "%s: E[h%d h%d*] = %.5f%+.5fj, expected %.5f\n", name, a, b, cre, cim,
                expect);
      }
    }
  }
  CHECK(bad == 0, "%s: %d of the means and covariances off by more than 5 sigma", name, bad);
  free(H);
}

static void test_statistics(void) {
  link_params p = base_params(3, 4);
  check_statistics("rayleigh iid", &p, 200); /* 51200 REs */
  p.rho_tx = 0.7;
  p.rho_rx = 0.5;
  check_statistics("rayleigh correlated", &p, 200);
  p.rho_tx = p.rho_rx = 0.0;
  p.k_factor = 3.0;
  check_statistics("rician K=3", &p, 200);
  p.rho_tx = -0.6;
  p.rho_rx = 0.9;
  p.k_factor = 0.5;
  check_statistics("rician K=0.5 correlated", &p, 200);
}

/* The statistics check can fail: a wrong rho is caught. */
static void test_statistics_sensitivity(void) {
  link_params p = base_params(2, 2);
  p.rho_tx = 0.3;
  size_t R;
  cf32 *H = fill_frames(&p, 100, &R);
  double c = 0;
  for (size_t i = 0; i < R; i++) c += (double)H[i].re * H[R + i].re + (double)H[i].im * H[R + i].im;
  c /= R;
  CHECK(fabs(c - 0.3) < 5.0 / sqrt((double)R), "E[h00 h01*] = %.4f, expected 0.3", c);
  CHECK(fabs(c - 0.0) > 10.0 / sqrt((double)R), "correlation 0.3 must be distinguishable from 0");
  free(H);
}

/* The draws sit where core/draws.h says (the CUDA backend relies on it):
 * element e of RE m is number e%2 of draw (e/2)*R_f + m, for the channel
 * (RNG_CHANNEL), the noise over receive antennas (RNG_NOISE) and the CSI
 * error (RNG_CSI). */
static void test_draw_layout(void) {
  link_params p = base_params(3, 3);
  p.n0 = 0.25;
  p.csi_error_var = 0.04;
  const chan_spatial s = tp_spatial(&p);
  const uint64_t frame = 77, rf = link_res_per_frame(&p), m0 = 100;
  const size_t n = 50;
  cf32 H[9 * 50], Z[9 * 50], y[3 * 50], x[3 * 50];
  memset(Z, 0, sizeof Z);
  memset(x, 0, sizeof x);
  chan_fill(&p, &s, NULL, frame, m0, n, H, n);
  chan_apply(&p, frame, m0, n, H, n, x, n, y, n); /* x = 0: y is the noise alone */
  cf32 E[9 * 50];
  chan_csi_error(&p, frame, m0, n, Z, n, E, n); /* H = 0: Hbar is the shrunk error alone */
  double worst = 0.0;
  for (int e = 0; e < 9; e++)
    for (size_t i = 0; i < n; i++) {
      const uint64_t idx = (uint64_t)(e / 2) * rf + m0 + i;
      const cf32 h = rng_cnormal_of(rng_draw(rng_key(p.seed, p.stream_key), RNG_CHANNEL, frame, idx), e % 2);
      const cf32 c = cf_scale(
          cf_scale(rng_cnormal_of(rng_draw(rng_key(p.seed, p.stream_key), RNG_CSI, frame, idx), e % 2), 0.2f),
          (float)(1.0 / 1.04));
      worst = fmax(worst, cf_abs2(cf_sub(h, H[e * n + i])));
      worst = fmax(worst, cf_abs2(cf_sub(c, E[e * n + i])));
      if (e < 3) {
        const cf32 w = cf_scale(
            rng_cnormal_of(rng_draw(rng_key(p.seed, p.stream_key), RNG_NOISE, frame, idx), e % 2), 0.5f);
        worst = fmax(worst, cf_abs2(cf_sub(w, y[e * n + i])));
      }
    }
  CHECK(worst < 1e-12, "draws off the documented layout by %g", sqrt(worst));
}

static void test_awgn_identity(void) {
  link_params p = base_params(3, 4);
  p.model = CH_AWGN;
  const chan_spatial s = tp_spatial(&p);
  const size_t n = 37, ld = 41;
  cf32 *H = malloc(sizeof *H * ld * 12);
  for (size_t i = 0; i < ld * 12; i++) H[i] = cf_make(NAN, NAN);
  chan_fill(&p, &s, NULL, 5, 11, n, H, ld);
  int bad = 0;
  for (int r = 0; r < 4; r++)
    for (int t = 0; t < 3; t++)
      for (size_t i = 0; i < n; i++) {
        const cf32 h = H[(r * 3 + t) * ld + i];
        bad += h.re != (r == t ? 1.0f : 0.0f) || h.im != 0.0f;
      }
  CHECK(bad == 0, "awgn: %d entries differ from the identity", bad);
  free(H);
}

/* Deterministic test symbols: QPSK-like points of unit energy. */
static void make_symbols(int tx, size_t R, cf32 *x) {
  const float a = 0.70710678f;
  for (int t = 0; t < tx; t++)
    for (size_t i = 0; i < R; i++)
      x[t * R + i] = cf_make((i * 7 + t) % 3 ? a : -a, (i * 5 + 3 * t) % 4 < 2 ? a : -a);
}

static void test_apply_and_noise(void) {
  link_params p = base_params(3, 5); /* odd rx: the last noise pair is half used */
  const int frames = 400;
  size_t R;
  cf32 *H = fill_frames(&p, frames, &R);
  cf32 *x = malloc(sizeof *x * 3 * R), *y0 = malloc(sizeof *y0 * 5 * R),
       *y1 = malloc(sizeof *y1 * 5 * R);
  make_symbols(3, R, x);
  const size_t rf = (size_t)link_res_per_frame(&p);
  p.n0 = 0.0;
  for (int f = 0; f < frames; f++)
    chan_apply(&p, f, 0, rf, H + f * rf, R, x + f * rf, R, y0 + f * rf, R);
  /* Noiseless output is H x. */
  double worst = 0.0;
  for (int r = 0; r < 5; r++)
    for (size_t i = 0; i < R; i += 97) {
      double re = 0, im = 0;
      for (int t = 0; t < 3; t++) {
        const cf32 h = H[(r * 3 + t) * R + i], v = x[t * R + i];
        re += (double)h.re * v.re - (double)h.im * v.im;
        im += (double)h.re * v.im + (double)h.im * v.re;
      }
      worst = fmax(worst, hypot(y0[r * R + i].re - re, y0[r * R + i].im - im));
    }
  CHECK(worst < 1e-5, "y = Hx off by %g", worst);

  p.n0 = 0.3;
  for (int f = 0; f < frames; f++)
    chan_apply(&p, f, 0, rf, H + f * rf, R, x + f * rf, R, y1 + f * rf, R);
  double cross = 0;
  for (int r = 0; r < 5; r++) {
    double m = 0, v = 0;
    for (size_t i = 0; i < R; i++) {
      const cf32 w = cf_sub(y1[r * R + i], y0[r * R + i]);
      m += w.re;
      v += (double)w.re * w.re + (double)w.im * w.im;
      if (r > 0) {
        const cf32 u = cf_sub(y1[(r - 1) * R + i], y0[(r - 1) * R + i]);
        cross += (double)w.re * u.re + (double)w.im * u.im;
      }
    }
    m /= R;
    v /= R;
    /* |w|^2 with w ~ CN(0, n0) has sd n0: the estimate's sd is n0/sqrt(R). */
    CHECK(fabs(v - p.n0) < 5 * p.n0 / sqrt((double)R), "rx %d noise variance %.5f, n0 %.2f", r, v,
          p.n0);
    CHECK(fabs(m) < 5 * sqrt(p.n0 / 2 / R), "rx %d noise mean %.5f", r, m);
  }
  cross /= 4.0 * R;
  CHECK(fabs(cross) < 5 * p.n0 / sqrt(2.0 * 4 * R), "neighbouring antennas' noise correlate: %.5f",
        cross);
  free(H);
  free(x);
  free(y0);
  free(y1);
}

static void test_csi_error(void) {
  link_params p = base_params(2, 3);
  p.csi_error_var = 0.05;
  size_t R;
  cf32 *H = fill_frames(&p, 300, &R);
  cf32 *Hh = malloc(sizeof *Hh * 6 * R);
  const size_t rf = (size_t)link_res_per_frame(&p);
  for (int f = 0; f < 300; f++) chan_csi_error(&p, f, 0, rf, H + f * rf, R, Hh + f * rf, R);
  /* The receiver's estimate is the LMMSE one, Hbar = (H + E) / (1 + v): its
   * error H - Hbar has variance v / (1 + v) and is uncorrelated with Hbar
   * (what link_receiver_n0 charges as noise), and (1 + v) Hbar - H is E. */
  const double v_est = p.csi_error_var / (1.0 + p.csi_error_var);
  for (int e = 0; e < 6; e++) {
    double v = 0, ve = 0, cross_re = 0, cross_im = 0;
    for (size_t i = 0; i < R; i++) {
      const cf32 hb = Hh[e * R + i], h = H[e * R + i];
      const cf32 d = cf_sub(cf_scale(hb, (float)(1.0 + p.csi_error_var)), h);
      v += (double)d.re * d.re + (double)d.im * d.im;
      const cf32 err = cf_sub(h, hb);
      ve += (double)err.re * err.re + (double)err.im * err.im;
      cross_re += (double)err.re * hb.re + (double)err.im * hb.im; /* Re(err conj(hb)) */
      cross_im += (double)err.im * hb.re - (double)err.re * hb.im;
    }
    v /= R;
    ve /= R;
    CHECK(fabs(v - p.csi_error_var) < 5 * p.csi_error_var / sqrt((double)R),
          "element %d error variance %.5f, expected %.3f", e, v, p.csi_error_var);
    CHECK(fabs(ve - v_est) < 5 * v_est / sqrt((double)R), "element %d estimate's error variance %.5f, expected %.5f",
          e, ve, v_est);
    /* E[err conj(hb)] = 0; its estimate has standard deviation sqrt(v_est / (2R)) per part */
    CHECK(fabs(cross_re / R) < 5 * sqrt(v_est / (2.0 * R)) && fabs(cross_im / R) < 5 * sqrt(v_est / (2.0 * R)),
          "element %d: the estimate's error is correlated with it (%.2e, %.2e)", e, cross_re / R, cross_im / R);
  }
  /* In place gives the same, and var 0 copies. */
  cf32 *Hc = malloc(sizeof *Hc * 6 * R);
  memcpy(Hc, H, sizeof *Hc * 6 * R);
  for (int f = 0; f < 300; f++) chan_csi_error(&p, f, 0, rf, Hc + f * rf, R, Hc + f * rf, R);
  CHECK(memcmp(Hc, Hh, sizeof *Hc * 6 * R) == 0, "in-place CSI error differs");
  p.csi_error_var = 0.0;
  chan_csi_error(&p, 0, 0, rf, H, R, Hc, R);
  int same = 1;
  for (int e = 0; e < 6; e++) same &= memcmp(Hc + e * R, H + e * R, sizeof *H * rf) == 0;
  CHECK(same, "csi_error_var 0 must copy H");
  free(H);
  free(Hh);
  free(Hc);
}

/* A frame processed in odd-sized pieces with another leading dimension gives
 * bit-identical H, y and Hhat to one call over the whole frame. */
static void check_chunking(const char *name, link_params p) {
  const chan_spatial s = tp_spatial(&p);
  tdl_grid grid, *g = NULL;
  char why[256];
  if (p.model == CH_TDL) {
    CHECK(tdl_grid_make(&p, &grid, why, sizeof why) == 0, "%s: %s", name, why);
    g = &grid;
  }
  const size_t rf = (size_t)link_res_per_frame(&p);
  const int links = p.tx * p.rx;
  const uint64_t frame = 12345;
  cf32 *H = malloc(sizeof *H * links * rf), *x = malloc(sizeof *x * p.tx * rf),
       *y = malloc(sizeof *y * p.rx * rf), *E = malloc(sizeof *E * links * rf);
  make_symbols(p.tx, rf, x);
  chan_fill(&p, &s, g, frame, 0, rf, H, rf);
  chan_apply(&p, frame, 0, rf, H, rf, x, rf, y, rf);
  chan_csi_error(&p, frame, 0, rf, H, rf, E, rf);

  const size_t ld = 53;
  cf32 *Hc = malloc(sizeof *Hc * links * ld), *yc = malloc(sizeof *yc * p.rx * ld),
       *xc = malloc(sizeof *xc * p.tx * ld), *Ec = malloc(sizeof *Ec * links * ld);
  int bad = 0;
  for (size_t m0 = 0; m0 < rf;) {
    size_t n = 1 + (m0 * 31 + 7) % ld;
    if (n > rf - m0) n = rf - m0;
    for (int t = 0; t < p.tx; t++) memcpy(xc + t * ld, x + t * rf + m0, sizeof *xc * n);
    chan_fill(&p, &s, g, frame, m0, n, Hc, ld);
    chan_apply(&p, frame, m0, n, Hc, ld, xc, ld, yc, ld);
    chan_csi_error(&p, frame, m0, n, Hc, ld, Ec, ld);
    for (int e = 0; e < links; e++) {
      bad += memcmp(Hc + e * ld, H + e * rf + m0, sizeof *Hc * n) != 0;
      bad += memcmp(Ec + e * ld, E + e * rf + m0, sizeof *Ec * n) != 0;
    }
    for (int r = 0; r < p.rx; r++) bad += memcmp(yc + r * ld, y + r * rf + m0, sizeof *yc * n) != 0;
    m0 += n;
  }
  CHECK(bad == 0, "%s: %d chunk rows differ from the whole-frame call", name, bad);
  /* Another frame, point or seed gives another channel. */
  chan_fill(&p, &s, g, frame + 1, 0, 8, Hc, ld);
  CHECK(memcmp(Hc, H, sizeof *Hc * 8) != 0 || p.model == CH_AWGN, "%s: frames repeat", name);
  free(H);
  free(x);
  free(y);
  free(E);
  free(Hc);
  free(yc);
  free(xc);
  free(Ec);
  tdl_grid_free(g);
}

static void test_chunking(void) {
  link_params p = base_params(3, 3); /* 9 links: the last pair is half used */
  p.n0 = 0.1;
  p.csi_error_var = 0.01;
  check_chunking("rayleigh", p);
  p.rho_tx = 0.5;
  p.rho_rx = 0.3;
  p.k_factor = 2.0;
  check_chunking("rayleigh correlated rician", p);
  p.model = CH_AWGN;
  check_chunking("awgn", p);
  p.model = CH_TDL;
  char err[256];
  p.profile = PDP_TDL_C;
  CHECK(tdl_pdp_make(PDP_TDL_C, 3.0, p.k_factor, DELAYS_CONTINUOUS, p.subcarriers - 1, &p.pdp, err, sizeof err) == 0,
        "%s", err);
  check_chunking("tdl", p);
}

int main(void) {
  test_spatial_init();
  test_statistics();
  test_statistics_sensitivity();
  test_draw_layout();
  test_awgn_identity();
  test_apply_and_noise();
  test_csi_error();
  test_chunking();
  return test_finish("test_channel_models");
}
