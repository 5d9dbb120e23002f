/* The time-domain modem's fading taps as piecewise cubics
 * (channel/tap_poly.h) against the exact sums of sinusoids, in double:
 *
 *  - tap_poly_len is the longest segment on which no sinusoid of frequency
 *    up to nu turns more than TAP_POLY_ANGLE from the segment's centre;
 *  - every tap of every link at every sample of a frame, for tdl-a, tdl-d
 *    (its LOS path on tap 0) and CDL-C, at f_d T 0.01, 0.1 and 0.25 (the
 *    largest a point may have), lies within the Taylor bound of its
 *    sinusoids, sum_m |a_m| (2 pi |f_m| |tau|)^4 / 4!, plus float rounding
 *    (2e-6 of sum_m |a_m|), and so within sqrt(M + 1) (TAP_POLY_ANGLE^4 / 24 +
 *    2e-6) of the tap's rms amplitude for tdl; at f_d T 0.25 the largest error is at
 *    least a tenth of that bound (the bound is not vacuous: a cubic with a
 *    wrong coefficient or a segment twice as long would break it);
 *  - the noiseless time-domain modem (ofdm_modem_frame) against a reference
 *    modem written here in double with the exact per-sample taps (DFTs by
 *    their definition, the grid's interpolators): every received RE within
 *    the bound that the taps' bound implies (per sample sum_l bound_l
 *    sum_t |u_t,l|, through the unitary DFT at most sqrt(K) times its
 *    largest value) plus 1e-5 of the received rms (float transforms). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "channel/cdl_channel.h"
#include "channel/ofdm.h"
#include "channel/tap_poly.h"
#include "channel/tdl.h"
#include "channel/tdl_fading.h"
#include "channel/tdl_grid.h"
#include "core/params.h"
#include "testparams.h"
#include "testutil.h"

static const double kPi = 3.14159265358979323846;

/* A time-domain point at f_d T = fd_T: tdl (kind tdl-a/d) or cdl. */
static link_params fading_point(pdp_kind kind, int tx, int rx, int K, int symbols, int cp, double fd_T,
                                delay_grid grid, double ds) {
  link_params p = tp_point(tx, rx, 2, CH_TDL, K, symbols, cp);
  p.profile = kind;
  p.delay_spread = ds;
  p.delays = grid;
  p.domain = DOMAIN_TIME;
  p.doppler_hz = fd_T * p.subcarrier_spacing;
  p.seed = 99;
  const int cdl = kind >= PDP_CDL_A && kind <= PDP_CDL_E;
  p.k_factor = kind == PDP_CDL_D || kind == PDP_CDL_E ? NAN : 0.0;
  if (cdl) {
    link_panel a;
    memset(&a, 0, sizeof a);
    a.rows = 1;
    a.columns = tx;
    a.spacing_v = a.spacing_h = 0.5;
    a.pol = PANEL_POL_V;
    a.pattern = PANEL_ISOTROPIC;
    p.cdl.tx = a;
    a.columns = rx;
    p.cdl.rx = a;
    p.cdl.travel_zenith_deg = 90.0;
  }
  char err[256];
  CHECK(tdl_pdp_make(kind, ds, p.k_factor, grid, cp, &p.pdp, err, sizeof err) == 0, "tdl_pdp_make: %s", err);
  p.stream_key = link_stream_key(&p);
  CHECK(link_params_check(&p, err, sizeof err) == 0, "link_params_check: %s", err);
  return p;
}

static void test_len(void) {
  static const double nus[] = {1e-6, 1.27e-5, 1e-4, 0.25 / 64, 0.3};
  const uint64_t N = 100000;
  for (int i = 0; i < 5; i++) {
    const int len = tap_poly_len(nus[i], N);
    const double half = 2.0 * kPi * nus[i] * 0.5; /* angle a sample of tau */
    CHECK(len >= 1 && (uint64_t)len <= N, "nu %g: len %d", nus[i], len);
    CHECK(half * (len - 1) <= TAP_POLY_ANGLE * (1 + 1e-12), "nu %g: len %d turns %g rad", nus[i], len,
          half * (len - 1));
    CHECK((uint64_t)len == N || half * len > TAP_POLY_ANGLE, "nu %g: len %d is not the longest", nus[i], len);
  }
  CHECK(tap_poly_len(0.0, 777) == 777 && tap_poly_len(1e-12, 777) == 777, "without Doppler one segment");
  CHECK(tap_poly_segments(10, 95) == 10 && tap_poly_segments(10, 100) == 10, "segments");
  CHECK(tap_poly_tau(0, 10) == -4.5f && tap_poly_tau(19, 10) == 4.5f && tap_poly_tau(7, 1) == 0.0f, "tau");
}

/* The exact tap (link e, tap l) at time t in double, and sum_m |a_m|
 * and the Taylor bound at offset tau from the centre. */
typedef struct exact {
  double re, im, mass, taylor;
} exact;

static exact exact_tap(const link_params *p, const sos_term *sos, int e, int l, double t, double tau) {
  exact x = {0, 0, 0, 0};
  const int L = p->pdp.taps, links = p->tx * p->rx;
  if (link_is_cdl(p)) {
    const float *terms = (const float *)sos;
    const cf32 *amp = cdl_terms_amp_c(terms, L) + ((size_t)e * L + l) * CDL_RAYS;
    for (int m = 0; m < CDL_RAYS; m++) {
      const double f = terms[(size_t)l * CDL_RAYS + m], a = hypot(amp[m].re, amp[m].im);
      const double ph = 2.0 * kPi * f * t, cr = cos(ph), ci = sin(ph);
      x.re += amp[m].re * cr - amp[m].im * ci;
      x.im += amp[m].re * ci + amp[m].im * cr;
      x.mass += a;
      x.taylor += a * pow(2.0 * kPi * fabs(f) * fabs(tau), 4) / 24.0;
    }
    (void)links;
    return x;
  }
  const double a = sqrt((double)p->pdp.power[l] / TDL_SOS_TERMS);
  const sos_term *t_ = sos + ((size_t)e * L + l) * TDL_SOS_TERMS;
  for (int m = 0; m < TDL_SOS_TERMS; m++) {
    const double ph = 2.0 * kPi * ((double)t_[m].freq * t + (double)t_[m].phase);
    x.re += a * cos(ph);
    x.im += a * sin(ph);
    x.mass += a;
    x.taylor += a * pow(2.0 * kPi * fabs((double)t_[m].freq) * fabs(tau), 4) / 24.0;
  }
  const double los = sqrt((double)p->pdp.los_power);
  if (l == 0 && los > 0.0) {
    const double f = (float)(link_doppler_per_sample(p) * TDL_LOS_COS);
    x.re += los * cos(2.0 * kPi * f * t);
    x.im += los * sin(2.0 * kPi * f * t);
    x.mass += los;
    x.taylor += los * pow(2.0 * kPi * fabs(f) * fabs(tau), 4) / 24.0;
  }
  return x;
}

/* The cubics of segment seg, tap l (tdl_poly_taps or cdl_poly_taps). */
static void poly_of(const link_params *p, const chan_spatial *s, const sos_term *sos, int l, uint64_t seg, int len,
                    cf32 *c) {
  const double tc = tap_poly_centre(seg, len);
  if (link_is_cdl(p)) cdl_poly_taps((const float *)sos, p->pdp.taps, p->tx * p->rx, l, tc, c);
  else tdl_poly_taps(tdl_fade_of(p), s, sos, l, sqrtf(p->pdp.power[l]), tc, c);
}

static void check_taps(const char *name, pdp_kind kind, double fd_T, int frames) {
  const int K = 64, cp = 16, S = 14;
  const link_params p = fading_point(kind, 2, 2, K, S, cp, fd_T, DELAYS_CONTINUOUS, 1.0);
  const chan_spatial s = tp_spatial(&p);
  CHECK(!s.correlated, "%s: the bound assumes no spatial mixing", name);
  const int L = p.pdp.taps, links = p.tx * p.rx;
  const uint64_t N = (uint64_t)S * (K + cp);
  const double nu = link_doppler_per_sample(&p);
  const int len = tap_poly_len(nu, N);
  sos_term *sos = malloc(sizeof *sos * tdl_fade_terms(&p));
  cf32 *c = malloc(sizeof *c * (size_t)links * TAP_POLY_COEFS);
  double worst_ratio = 0.0, worst_err = 0.0, worst_rel = 0.0, worst_bound = 0.0;
  int bad = 0;
  for (int f = 0; f < frames; f++) {
    tdl_draw_sos(&p, (uint64_t)f, sos);
    for (uint64_t seg = 0; seg < tap_poly_segments(len, N); seg++)
      for (int l = 0; l < L; l++) {
        poly_of(&p, &s, sos, l, seg, len, c);
        for (uint64_t n = seg * (uint64_t)len; n < (seg + 1) * (uint64_t)len && n < N; n++) {
          const float tau = tap_poly_tau(n, len);
          for (int e = 0; e < links; e++) {
            const cf32 h = tap_poly_eval(c + (size_t)e * TAP_POLY_COEFS, tau);
            const exact x = exact_tap(&p, sos, e, l, (double)n, (double)tau);
            const double err = hypot(h.re - x.re, h.im - x.im);
            const double bound = x.taylor + 2e-6 * x.mass;
            bad += err > bound;
            worst_ratio = fmax(worst_ratio, err / bound);
            if (err > worst_err) worst_err = err, worst_bound = bound;
            /* tdl: against the tap's rms amplitude and the sinusoid-count bound */
            const double rms = sqrt((double)p.pdp.power[l] + (l == 0 ? (double)p.pdp.los_power : 0.0));
            worst_rel = fmax(worst_rel, err / rms);
          }
        }
      }
  }
  CHECK(bad == 0, "%s f_d T %g: %d tap values beyond their Taylor bound (worst %.3g of it)", name, fd_T, bad,
        worst_ratio);
  if (!link_is_cdl(&p)) {
    /* sum_m |a_m| <= sqrt(M + 1) times the rms amplitude (M terms, the LOS) */
    const double cap = sqrt(TDL_SOS_TERMS + 1.0) * (pow(TAP_POLY_ANGLE, 4) / 24.0 * (1.0 + 1e-9) + 2e-6);
    CHECK(worst_rel <= cap, "%s f_d T %g: error %.3g of the tap's rms amplitude, beyond %.3g", name, fd_T,
          worst_rel, cap);
  }
  if (fd_T >= 0.25)
    CHECK(worst_ratio > 0.1, "%s f_d T %g: the largest error is only %.3g of its bound", name, fd_T, worst_ratio);
  printf("%s, f_d T %.2f: segments of %d samples; largest tap error %.3g (bound there %.3g, %.2f of it), %.3g of "
         "the tap's rms amplitude\n",
         name, fd_T, len, worst_err, worst_bound, worst_ratio, worst_rel);
  free(sos);
  free(c);
}

static void test_taps(void) {
  static const double fd[] = {0.01, 0.1, 0.25};
  for (int i = 0; i < 3; i++) {
    check_taps("tdl-a", PDP_TDL_A, fd[i], 2);
    check_taps("tdl-d", PDP_TDL_D, fd[i], 2);
    check_taps("cdl-c", PDP_CDL_C, fd[i], 2);
  }
}

/* A complex number in double. */
typedef struct cd {
  double re, im;
} cd;

/* The noiseless modem against the reference in double. */
static void check_modem(const char *name, pdp_kind kind, double fd_T) {
  const int K = 64, cp = 16, S = 4, tx = 2, rx = 2;
  const link_params p = fading_point(kind, tx, rx, K, S, cp, fd_T, DELAYS_CONTINUOUS, 0.5);
  char err[256] = "";
  tdl_grid g;
  CHECK(tdl_grid_make(&p, &g, err, sizeof err) == 0, "tdl_grid_make: %s", err);
  ofdm_modem *m = ofdm_modem_create(&p, &g, err, sizeof err);
  CHECK(m != NULL, "ofdm_modem_create: %s", err);
  if (!m) {
    tdl_grid_free(&g);
    return;
  }
  const int L = p.pdp.taps, span = K + cp, N = S * span;
  const size_t rf = (size_t)K * S;
  sos_term *sos = malloc(sizeof *sos * tdl_fade_terms(&p));
  cf32 *x = malloc(sizeof *x * rf * tx), *y = malloc(sizeof *y * rf * rx);
  cd *st = calloc((size_t)tx * N, sizeof *st), *z = calloc((size_t)rx * N, sizeof *z);
  double *dz = calloc((size_t)rx * N, sizeof *dz); /* the per-sample bound */
  test_rng_seed(0x7a9 + (uint64_t)(fd_T * 100));
  const float a = 0.70710678f;
  for (size_t i = 0; i < rf * tx; i++) {
    const uint64_t b = test_rng_u64();
    x[i] = cf_make((b >> 62) & 1 ? a : -a, b >> 63 ? a : -a);
  }
  tdl_draw_sos(&p, 3, sos);
  CHECK(ofdm_modem_frame(m, 3, x, rf, NULL, sos, 0.0f, y, rf) == 0, "ofdm_modem_frame failed");
  /* transmit: unitary IDFT and CP */
  for (int t = 0; t < tx; t++)
    for (int sym = 0; sym < S; sym++)
      for (int j = 0; j < span; j++) {
        const int n = j < cp ? K - cp + j : j - cp;
        cd v = {0, 0};
        for (int k = 0; k < K; k++) {
          const cf32 xk = x[(size_t)t * rf + (size_t)sym * K + k];
          const double ph = 2.0 * kPi * k * n / K;
          v.re += xk.re * cos(ph) - xk.im * sin(ph);
          v.im += xk.re * sin(ph) + xk.im * cos(ph);
        }
        st[(size_t)t * N + sym * span + j] = (cd){v.re / sqrt(K), v.im / sqrt(K)};
      }
  /* the channel with the exact taps at every sample */
  const int len = tap_poly_len(link_doppler_per_sample(&p), (uint64_t)N);
  for (int n = 0; n < N; n++) {
    const double tau = tap_poly_tau((uint64_t)n, len);
    for (int l = 0; l < L; l++) {
      cd u[LINK_MAX_TX];
      double ua = 0.0;
      for (int t = 0; t < tx; t++) {
        u[t] = (cd){0, 0};
        for (int i = 0; i < g.tap_count[l]; i++) {
          const int d = g.tap_first[l] + i;
          if (d > n) continue;
          u[t].re += g.tap_coef[l][i] * st[(size_t)t * N + n - d].re;
          u[t].im += g.tap_coef[l][i] * st[(size_t)t * N + n - d].im;
        }
        ua += hypot(u[t].re, u[t].im);
      }
      for (int r = 0; r < rx; r++)
        for (int t = 0; t < tx; t++) {
          const exact h = exact_tap(&p, sos, r * tx + t, l, (double)n, tau);
          z[(size_t)r * N + n].re += h.re * u[t].re - h.im * u[t].im;
          z[(size_t)r * N + n].im += h.re * u[t].im + h.im * u[t].re;
          if (t == 0) dz[(size_t)r * N + n] += (h.taylor + 2e-6 * h.mass) * ua;
        }
    }
  }
  /* receive: the window rotated by the grid's shift, unitary DFT */
  const int shift = g.td_shift % K;
  double worst = 0.0, power = 0.0, bound_max = 0.0;
  int bad = 0;
  for (int r = 0; r < rx; r++)
    for (int sym = 0; sym < S; sym++) {
      const int w0 = sym * span + cp;
      double dsum = 0.0;
      for (int j = 0; j < K; j++) dsum += dz[(size_t)r * N + w0 + j];
      for (int k = 0; k < K; k++) {
        cd v = {0, 0};
        for (int j = 0; j < K; j++) {
          const cd zz = z[(size_t)r * N + w0 + (j + shift) % K];
          const double ph = -2.0 * kPi * k * j / K;
          v.re += zz.re * cos(ph) - zz.im * sin(ph);
          v.im += zz.re * sin(ph) + zz.im * cos(ph);
        }
        v.re /= sqrt(K);
        v.im /= sqrt(K);
        const cf32 got = y[(size_t)r * rf + (size_t)sym * K + k];
        const double e = hypot(got.re - v.re, got.im - v.im);
        power += v.re * v.re + v.im * v.im;
        const double bound = dsum / sqrt(K);
        bound_max = fmax(bound_max, bound);
        worst = fmax(worst, e - bound);
      }
    }
  const double rms = sqrt(power / (double)(rx * rf));
  bad = worst > 1e-5 * rms;
  CHECK(!bad, "%s f_d T %g: a received RE off the exact-tap reference by %.3g beyond its bound (rms %.3g)", name,
        fd_T, worst, rms);
  printf("modem, %s f_d T %.2f: every RE within the taps' bound (at most %.3g, rms %.3g) + %.3g\n", name, fd_T,
         bound_max, rms, fmax(worst, 0.0));
  free(sos);
  free(x);
  free(y);
  free(st);
  free(z);
  free(dz);
  ofdm_modem_destroy(m);
  tdl_grid_free(&g);
}

static void test_modem(void) {
  check_modem("tdl-a", PDP_TDL_A, 0.25);
  check_modem("tdl-d", PDP_TDL_D, 0.1);
  check_modem("cdl-c", PDP_CDL_C, 0.25);
}

int main(void) {
  test_len();
  test_taps();
  test_modem();
  return test_finish("test_tap_poly");
}
