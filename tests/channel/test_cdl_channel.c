/* The generated CDL channel (channel/cdl_channel.h) against the TR 38.901
 * tables, every reference worked out here from the tables and the Table
 * 7.5-3 offsets, not from the code under test:
 *  - the clusters' delays are the table's times the delay spread, and the
 *    frequency correlation of the generated response, E[H(k) H*(k + d)], is
 *    sum_n P_n exp(-j 2 pi d tau_n / K) with the table's powers;
 *  - the cross-polar power ratio (theta->phi over theta->theta) is 1/XPR;
 *  - the correlation between two elements of a half-wavelength ULA is the
 *    rays' average of exp(-j pi sin ZoA sin AoA) over the random coupling;
 *  - the LOS ray of CDL-D turns at f_d times the cosine of its arrival
 *    direction with the direction of travel, and the time autocorrelation of
 *    the channel is the rays' average of exp(-j 2 pi f_d tau sin ZoA cos AoA);
 *  - the K factor of CDL-D and CDL-E is the table's, or the one asked for. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "channel/cdl_channel.h"
#include "channel/tdl.h"
#include "core/params.h"
#include "testparams.h"
#include "cdl_ref.h"
#include "testutil.h"

static const double kPi = 3.14159265358979323846;

static link_panel ula(int columns, panel_pol pol) {
  link_panel a;
  memset(&a, 0, sizeof a);
  a.rows = 1;
  a.columns = columns;
  a.spacing_v = a.spacing_h = 0.5;
  a.pol = pol;
  a.pattern = PANEL_ISOTROPIC;
  return a;
}

/* A cdl point: model, delay spread (samples), arrays, Doppler (cycles per
 * sample as doppler_hz at unit sample rate). */
static link_params point(pdp_kind kind, double ds, link_panel tx, link_panel rx, double nu) {
  link_params p = tp_point(link_panel_elements(&tx), link_panel_elements(&rx), 2, CH_TDL, 256, 1, 0);
  p.profile = kind;
  p.delay_spread = ds;
  p.k_factor = (kind == PDP_CDL_D || kind == PDP_CDL_E) ? NAN : 0.0;
  p.subcarrier_spacing = 1.0 / 256.0; /* sample rate 1: doppler_hz is cycles per sample */
  p.doppler_hz = nu;
  p.cdl.tx = tx;
  p.cdl.rx = rx;
  p.cdl.travel_zenith_deg = 90.0;
  p.seed = 7;
  char err[256];
  CHECK(!tdl_pdp_make(kind, ds, p.k_factor, DELAYS_CONTINUOUS, 255, &p.pdp, err, sizeof err), "%s", err);
  p.stream_key = link_stream_key(&p);
  CHECK(!link_params_check(&p, err, sizeof err), "%s", err);
  return p;
}

/* Frame f's terms of p. */
static float *terms_of(const link_params *p, const cdl_geom *g, uint64_t f, float *buf) {
  cdl_draw_terms(p, g, f, buf);
  return buf;
}

/* Delays and the frequency correlation of H(k) = sum_n h_n exp(-j 2 pi k tau_n / K). */
static void check_delays_and_powers(pdp_kind kind, int frames) {
  const cdl_table *t = &cdl_tables[kind - PDP_CDL_A];
  const double ds = 7.5;
  link_params p = point(kind, ds, ula(1, PANEL_POL_V), ula(1, PANEL_POL_V), 0.0);
  cdl_geom g;
  char err[160];
  CHECK(!cdl_geom_make(&p, &g, err, sizeof err), "%s", err);
  CHECK(p.pdp.taps == t->clusters, "CDL-%c: %d taps", t->name, p.pdp.taps);
  for (int n = 0; n < t->clusters; n++)
    CHECK(fabs(p.pdp.delay[n] - t->delay[n] * ds) < 1e-12, "CDL-%c cluster %d at %g samples", t->name, n,
          p.pdp.delay[n]);
  float *buf = malloc(sizeof(float) * cdl_terms_floats(g.L, 1));
  double pw[CDL_MAX_CLUSTERS] = {0};
  const int K = 256, lags[3] = {1, 4, 16};
  double complex corr[3] = {0};
  double h0 = 0;
  for (int f = 0; f < frames; f++) {
    terms_of(&p, &g, (uint64_t)f, buf);
    cf32 h[CDL_MAX_CLUSTERS];
    for (int n = 0; n < g.L; n++) {
      cdl_taps_at(buf, g.L, 1, n, 0.0, 0, &h[n]);
      pw[n] += h[n].re * h[n].re + h[n].im * h[n].im;
    }
    double complex H[17];
    for (int k = 0; k <= 16; k++) {
      H[k] = 0;
      for (int n = 0; n < g.L; n++)
        H[k] += (h[n].re + I * h[n].im) * cexp(-2.0 * I * kPi * k * p.pdp.delay[n] / K);
    }
    h0 += creal(H[0] * conj(H[0]));
    for (int i = 0; i < 3; i++) corr[i] += H[0] * conj(H[lags[i]]);
  }
  /* per-cluster power: the mean of |tap|^2 over frames (20 equal rays with
   * independent phases: relative spread about 1 per frame) */
  for (int n = 0; n < g.L; n++) {
    const double want = cdl_ref_power(t, n), got = pw[n] / frames;
    const double tol = t->los && n == 0 ? 1e-5 : test_widened(4.5 / sqrt((double)frames));
    CHECK(fabs(got / want - 1.0) < tol, "CDL-%c cluster %d power %.5f, table %.5f", t->name, n, got, want);
  }
  CHECK(fabs(h0 / frames - 1.0) < test_widened(0.1), "CDL-%c: E|H|^2 = %.4f", t->name, h0 / frames);
  for (int i = 0; i < 3; i++) {
    double complex want = 0;
    for (int n = 0; n < t->clusters; n++)
      want += cdl_ref_power(t, n) * cexp(2.0 * I * kPi * lags[i] * t->delay[n] * ds / K);
    const double complex got = corr[i] / frames;
    CHECK(cabs(got - want) < test_widened(0.1), "CDL-%c lag %d: correlation %.3f%+.3fj, table %.3f%+.3fj", t->name,
          lags[i], creal(got), cimag(got), creal(want), cimag(want));
    printf("CDL-%c frequency correlation at lag %d: %.4f%+.4fj (table %.4f%+.4fj)\n", t->name, lags[i], creal(got),
           cimag(got), creal(want), cimag(want));
  }
  free(buf);
}

/* theta/phi elements (vh) at both ends: E|h_tp|^2 / E|h_tt|^2 = 1/XPR. */
static void check_xpr(pdp_kind kind, int frames) {
  const cdl_table *t = &cdl_tables[kind - PDP_CDL_A];
  link_params p = point(kind, 4.0, ula(1, PANEL_POL_VH), ula(1, PANEL_POL_VH), 0.0);
  cdl_geom g;
  char err[160];
  CHECK(!cdl_geom_make(&p, &g, err, sizeof err), "%s", err);
  float *buf = malloc(sizeof(float) * cdl_terms_floats(g.L, 4));
  double co = 0, cross = 0;
  for (int f = 0; f < frames; f++) {
    terms_of(&p, &g, (uint64_t)f, buf);
    for (int n = 0; n < g.L; n++) {
      if (t->los && n == 0) continue; /* the LOS ray has no cross-polar part */
      cf32 h[4];
      cdl_taps_at(buf, g.L, 4, n, 0.0, 0, h);
      /* e = u*2 + s: (theta, theta) 0, (theta, phi) 1, (phi, theta) 2, (phi, phi) 3 */
      co += h[0].re * h[0].re + h[0].im * h[0].im + h[3].re * h[3].re + h[3].im * h[3].im;
      cross += h[1].re * h[1].re + h[1].im * h[1].im + h[2].re * h[2].re + h[2].im * h[2].im;
    }
  }
  const double xpr_db = 10.0 * log10(co / cross);
  printf("CDL-%c cross-polar ratio %.3f dB (table XPR %.1f dB)\n", t->name, xpr_db, t->xpr_db);
  CHECK(fabs(xpr_db - t->xpr_db) < test_widened(0.5), "CDL-%c XPR %.3f dB, table %.1f dB", t->name, xpr_db,
        t->xpr_db);
  free(buf);
}

/* Correlation between the two elements of a half-wavelength ULA along y at
 * the receiver, against the rays' average over the coupling. */
static void check_ula_correlation(pdp_kind kind, int frames) {
  const cdl_table *t = &cdl_tables[kind - PDP_CDL_A];
  link_params p = point(kind, 4.0, ula(1, PANEL_POL_V), ula(2, PANEL_POL_V), 0.0);
  cdl_geom g;
  char err[160];
  CHECK(!cdl_geom_make(&p, &g, err, sizeof err), "%s", err);
  float *buf = malloc(sizeof(float) * cdl_terms_floats(g.L, 2));
  double complex c01 = 0;
  double p0 = 0, p1 = 0;
  for (int f = 0; f < frames; f++) {
    terms_of(&p, &g, (uint64_t)f, buf);
    for (int n = 0; n < g.L; n++) {
      cf32 h[2];
      cdl_taps_at(buf, g.L, 2, n, 0.0, 0, h);
      const double complex a = h[0].re + I * h[0].im, b = h[1].re + I * h[1].im;
      c01 += a * conj(b);
      p0 += creal(a * conj(a));
      p1 += creal(b * conj(b));
    }
  }
  const double complex got = c01 / sqrt(p0 * p1);
  /* element 1 sits half a wavelength along y: its phase is pi sin(ZoA) sin(AoA) */
  double complex want = 0;
  for (int n = 0; n < t->clusters; n++) {
    const int rays = t->los && n == 0 ? 1 : 20;
    for (int m = 0; m < rays; m++)
      for (int q = 0; q < rays; q++) {
        const double aoa = (t->aoa[n] + (rays > 1 ? t->c_asa * cdl_ray_offset[m] : 0)) * kPi / 180;
        double zoa = t->zoa[n] + (rays > 1 ? t->c_zsa * cdl_ray_offset[q] : 0);
        if (zoa > 180) zoa = 360 - zoa;
        want += cdl_ref_power(t, n) / (rays * rays) * cexp(-I * kPi * sin(zoa * kPi / 180) * sin(aoa));
      }
  }
  printf("CDL-%c ULA correlation %.4f%+.4fj (from the table %.4f%+.4fj)\n", t->name, creal(got), cimag(got),
         creal(want), cimag(want));
  CHECK(cabs(got - want) < test_widened(0.05), "CDL-%c ULA correlation %.3f%+.3fj, expected %.3f%+.3fj", t->name,
        creal(got), cimag(got), creal(want), cimag(want));
  free(buf);
}

/* Doppler: the LOS ray of CDL-D moving along +x, and the time
 * autocorrelation of the whole channel against the rays' average. */
static void check_doppler(int frames) {
  const double nu = 5e-4, tau = 600.0;
  link_params p = point(PDP_CDL_D, 4.0, ula(1, PANEL_POL_V), ula(1, PANEL_POL_V), nu);
  const cdl_table *t = &cdl_tables[PDP_CDL_D - PDP_CDL_A];
  cdl_geom g;
  char err[160];
  CHECK(!cdl_geom_make(&p, &g, err, sizeof err), "%s", err);
  float *buf = malloc(sizeof(float) * cdl_terms_floats(g.L, 1));
  terms_of(&p, &g, 0, buf);
  const double los_f = nu * sin(t->zoa[0] * kPi / 180) * cos(t->aoa[0] * kPi / 180);
  CHECK(fabs(buf[0] - los_f) < 1e-9, "LOS ray at %g cycles/sample, expected %g", buf[0], los_f);
  /* the LOS tap turns at that frequency */
  cf32 a, b;
  cdl_taps_at(buf, g.L, 1, 0, 0.0, 0, &a);
  cdl_taps_at(buf, g.L, 1, 0, tau, 0, &b);
  const double turn = carg((b.re + I * b.im) / (a.re + I * a.im)) / (2 * kPi);
  CHECK(fabs(turn - los_f * tau) < 1e-4, "LOS tap turned %g, expected %g", turn, los_f * tau);
  double complex acc = 0;
  double pw = 0;
  for (int f = 0; f < frames; f++) {
    terms_of(&p, &g, (uint64_t)f, buf);
    for (int n = 1; n < g.L; n++) { /* the NLOS clusters */
      cdl_taps_at(buf, g.L, 1, n, 0.0, 0, &a);
      cdl_taps_at(buf, g.L, 1, n, tau, 0, &b);
      acc += (a.re + I * a.im) * conj(b.re + I * b.im);
      pw += a.re * a.re + a.im * a.im;
    }
  }
  const double complex want = cdl_ref_nlos_autocorrelation(t, nu, tau);
  const double complex got = acc / pw;
  printf("CDL-D NLOS autocorrelation at f_d tau = %.2f: %.4f%+.4fj (from the table %.4f%+.4fj)\n", nu * tau,
         creal(got), cimag(got), creal(want), cimag(want));
  CHECK(cabs(got - want) < test_widened(0.05), "autocorrelation %.3f%+.3fj, expected %.3f%+.3fj", creal(got),
        cimag(got), creal(want), cimag(want));
  free(buf);
}

/* The K factor: the LOS ray's power over the NLOS clusters'. */
static void check_k(pdp_kind kind, double k_set, int frames) {
  const cdl_table *t = &cdl_tables[kind - PDP_CDL_A];
  link_params p = point(kind, 4.0, ula(1, PANEL_POL_V), ula(1, PANEL_POL_V), 0.0);
  if (!isnan(k_set)) {
    char err[160];
    p.k_factor = k_set;
    CHECK(!tdl_pdp_make(kind, 4.0, k_set, DELAYS_CONTINUOUS, 255, &p.pdp, err, sizeof err), "%s", err);
    p.stream_key = link_stream_key(&p);
  }
  cdl_geom g;
  char err[160];
  CHECK(!cdl_geom_make(&p, &g, err, sizeof err), "%s", err);
  float *buf = malloc(sizeof(float) * cdl_terms_floats(g.L, 1));
  double los = 0, nlos = 0;
  for (int f = 0; f < frames; f++) {
    terms_of(&p, &g, (uint64_t)f, buf);
    for (int n = 0; n < g.L; n++) {
      cf32 h;
      cdl_taps_at(buf, g.L, 1, n, 0.0, 0, &h);
      *(n == 0 ? &los : &nlos) += h.re * h.re + h.im * h.im;
    }
  }
  const double want = isnan(k_set) ? cdl_ref_power(t, 0) / (1 - cdl_ref_power(t, 0)) : k_set;
  const double got = los / nlos;
  printf("CDL-%c K = %.3f dB (expected %.3f dB)\n", t->name, 10 * log10(got), 10 * log10(want));
  CHECK(fabs(10 * log10(got / want)) < test_widened(0.3), "CDL-%c K %.3f dB, expected %.3f dB", t->name,
        10 * log10(got), 10 * log10(want));
  free(buf);
}

/* Angle scaling (7.7.5.1): the rays' rms spread becomes the one asked for. */
static void check_angle_scaling(void) {
  link_params p = point(PDP_CDL_C, 4.0, ula(1, PANEL_POL_V), ula(1, PANEL_POL_V), 0.0);
  p.cdl.asa = 30.0;
  p.cdl.zsd = 2.0;
  cdl_geom g;
  char err[160];
  CHECK(!cdl_geom_make(&p, &g, err, sizeof err), "%s", err);
  double a[CDL_MAX_CLUSTERS * 20], z[CDL_MAX_CLUSTERS * 20], w[CDL_MAX_CLUSTERS * 20];
  int k = 0;
  for (int n = 0; n < g.L; n++)
    for (int m = 0; m < 20; m++, k++) {
      a[k] = g.aoa[n] + g.c_asa * cdl_ray_offset[m];
      z[k] = g.zod[n] + g.c_zsd * cdl_ray_offset[m];
      w[k] = p.pdp.power[n];
    }
  CHECK(fabs(cdl_rms_spread(a, w, k) - 30.0) < 0.5, "ASA scaled to %.3f", cdl_rms_spread(a, w, k));
  CHECK(fabs(cdl_rms_spread(z, w, k) - 2.0) < 0.05, "ZSD scaled to %.3f", cdl_rms_spread(z, w, k));
}

int main(void) {
  const int frames = (int)test_scaled(1200, 150);
  for (pdp_kind k = PDP_CDL_A; k <= PDP_CDL_E; k++) check_delays_and_powers(k, frames);
  check_xpr(PDP_CDL_A, frames);
  check_xpr(PDP_CDL_C, frames);
  check_ula_correlation(PDP_CDL_C, frames);
  check_ula_correlation(PDP_CDL_A, frames);
  check_doppler(frames);
  check_k(PDP_CDL_D, NAN, (int)test_scaled(1000, 100));
  check_k(PDP_CDL_E, NAN, (int)test_scaled(1000, 100));
  check_k(PDP_CDL_D, 10.0, (int)test_scaled(1000, 100));
  check_angle_scaling();
  return test_finish("test_cdl_channel");
}
