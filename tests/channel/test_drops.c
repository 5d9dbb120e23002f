/* Drops of frames on the multipath models (channel.drop_frames = N > 1,
 * channel/tdl_fading.h): a drop's frames share one realisation whose fading
 * runs on across them; drops are independent. Against references worked out
 * here, not by the code under test:
 *  - continuity: frame j of a drop, evaluated at its own time t, is frame 0
 *    of the drop evaluated at t + j S (K + cp), within float rounding (tdl
 *    sinusoids and LOS path; cdl rays, LOS ray included);
 *  - tdl: the autocorrelation between a time near the end of a drop's first
 *    frame and one to three frames later is J0(2 pi nu tau) (Clarke/Jakes)
 *    within 5 standard errors over independent drops, and a 10% error in
 *    the Doppler frequency would be seen; the same lags across a drop
 *    boundary give 0 within 5 standard errors where J0 is far from 0;
 *  - cdl: the autocorrelation of the NLOS clusters across frame boundaries
 *    is the rays' average of exp(-j 2 pi f_d tau sin ZoA cos AoA) from the
 *    table, as within a frame (tests/channel/test_cdl_channel.c), and about
 *    0 across a drop boundary;
 *  - without Doppler a drop's frames hold the same taps, bit for bit, and
 *    the next drop's differ;
 *  - drop_frames 1 (and 0) is the point of before: the same stream key and
 *    draws as a point that never heard of drops. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "channel/cdl_channel.h"
#include "channel/tdl.h"
#include "core/params.h"
#include "refmath.h"
#include "testparams.h"
#include "cdl_ref.h"
#include "testutil.h"

static const double kPi = 3.14159265358979323846;

/* A 2x2 frequency-domain tdl point of `kind` on 64 subcarriers, 14 symbols,
 * CP 16, Doppler fd_T (f_d over the subcarrier spacing), drops of N. */
static link_params tdl_point(pdp_kind kind, double fd_T, int N) {
  link_params p = tp_point(2, 2, 2, CH_TDL, 64, 14, 16);
  p.profile = kind;
  p.delay_spread = 3.0;
  p.delays = DELAYS_SAMPLE;
  p.doppler_hz = fd_T * p.subcarrier_spacing;
  p.drop_frames = N;
  p.seed = 4242;
  p.k_factor = tdl_pdp_has_los(kind) ? NAN : 0.0;
  char err[256];
  CHECK(!tdl_pdp_make(kind, 3.0, p.k_factor, DELAYS_SAMPLE, 63, &p.pdp, err, sizeof err), "tdl_pdp_make: %s", err);
  p.stream_key = link_stream_key(&p);
  CHECK(!link_params_check(&p, err, sizeof err), "%s", err);
  return p;
}

static double frame_len(const link_params *p) { return (double)p->symbols * (p->subcarriers + p->cp_length); }

/* Frame j of a drop at t equals frame 0 at t + j S (K + cp): every tap and
 * link of tdl-d (its LOS path on tap 0) over the drop's frames. */
static void check_tdl_continuity(void) {
  const int N = 5;
  link_params p = tdl_point(PDP_TDL_D, 0.05, N);
  const chan_spatial s = tp_spatial(&p);
  const tdl_fade fd = tdl_fade_of(&p);
  CHECK(fd.drop == (uint32_t)N && p.pdp.los_power > 0.0f, "drop %u, los %g", fd.drop, (double)p.pdp.los_power);
  const int L = p.pdp.taps, links = p.tx * p.rx;
  sos_term *first = malloc(sizeof *first * tdl_fade_terms(&p)), *own = malloc(sizeof *own * tdl_fade_terms(&p));
  double worst = 0.0;
  for (int d = 3; d < 6; d++) {
    tdl_draw_sos(&p, (uint64_t)(d * N), first);
    for (int j = 1; j < N; j++) {
      tdl_draw_sos(&p, (uint64_t)(d * N + j), own);
      for (int l = 0; l < L; l++)
        for (double t = 0.0; t < frame_len(&p); t += 97.0) {
          cf32 a[4], b[4];
          const float amp = sqrtf(p.pdp.power[l]);
          tdl_fading_taps(fd, &s, own, l, amp, t, 0, a);
          tdl_fading_taps(fd, &s, first, l, amp, t + j * frame_len(&p), 0, b);
          for (int e = 0; e < links; e++)
            worst = fmax(worst, hypot(a[e].re - b[e].re, a[e].im - b[e].im) /
                                    sqrt((double)p.pdp.power[l] + (l == 0 ? p.pdp.los_power : 0.0f)));
        }
    }
  }
  printf("tdl-d drops of %d: frame j at t against frame 0 at t + j frame: worst %.2e of the tap's rms\n", N, worst);
  CHECK(worst < 5e-6, "a drop's frames do not continue one process: %.3e of the tap's rms apart", worst);
  /* and the next drop is another process */
  tdl_draw_sos(&p, (uint64_t)(6 * N), own);
  cf32 a[4], b[4];
  tdl_fading_taps(fd, &s, own, 1, 1.0f, 0.0, 0, a);
  tdl_fading_taps(fd, &s, first, 1, 1.0f, N * frame_len(&p), 0, b);
  CHECK(hypot(a[0].re - b[0].re, a[0].im - b[0].im) > 1e-3, "drop 6 continues drop 5");
  free(first);
  free(own);
}

/* E[h(t1) h*(t1 + tau)] / p_l at lags 2 pi nu tau = xs, t1 = the last
 * 160 samples of a frame: `cross` = 0 from frame 0 of each drop into its
 * frames 1 to 3 (J0), cross = 1 from the drop's last frame into the next
 * drop's first three (0). Per drop the products are averaged over the links, three
 * taps and four t1; drops are independent. */
static void check_tdl_autocorrelation(int drops, int cross) {
  const int N = 4;
  const double fd_T = 0.02;
  link_params p = tdl_point(PDP_TDL_A, fd_T, N);
  const chan_spatial s = tp_spatial(&p);
  const tdl_fade fd = tdl_fade_of(&p);
  const int L = p.pdp.taps, links = p.tx * p.rx;
  const double nu = fd.nu, len = frame_len(&p);
  static const double xs[] = {0.8, 1.6, 2.404825557695773, 3.2, 3.831705970207512, 4.6};
  enum { NX = sizeof xs / sizeof *xs };
  const int taps[3] = {0, L / 2, L - 1};
  sos_term *sos[2];
  for (int i = 0; i < 2; i++) sos[i] = malloc(sizeof(sos_term) * tdl_fade_terms(&p));
  /* frame 0 of the pair and the frame each lag lands in (1 to 3 after: in
   * the drop, or from the drop's last frame into the next drop) */
  sos_term *later[4];
  for (int i = 0; i < 4; i++) later[i] = malloc(sizeof(sos_term) * tdl_fade_terms(&p));
  ref_acc re[NX], im[NX];
  memset(re, 0, sizeof re);
  memset(im, 0, sizeof im);
  for (int d = 0; d < drops; d++) {
    const uint64_t f0 = cross ? (uint64_t)(d * N + N - 1) : (uint64_t)(d * N);
    tdl_draw_sos(&p, f0, sos[0]);
    for (int k = 1; k < 4; k++) tdl_draw_sos(&p, f0 + (uint64_t)k, later[k]);
    double sr[NX] = {0}, si[NX] = {0}, norm = 0.0;
    for (int i = 0; i < 3; i++) {
      const int l = taps[i];
      const float amp = sqrtf(p.pdp.power[l]);
      for (int b = 0; b < 4; b++) {
        const double t1 = len - 1.0 - 53.0 * b;
        cf32 h0[4], h1[4];
        tdl_fading_taps(fd, &s, sos[0], l, amp, t1, 0, h0);
        for (int x = 0; x < NX; x++) {
          const double T = t1 + xs[x] / (2.0 * kPi * nu);
          const int k = (int)floor(T / len);
          CHECK(k >= 1 && k <= 3, "lag %g lands in frame %d after", xs[x], k);
          tdl_fading_taps(fd, &s, later[k], l, amp, T - k * len, 0, h1);
          for (int e = 0; e < links; e++) {
            sr[x] += ((double)h0[e].re * h1[e].re + (double)h0[e].im * h1[e].im) / p.pdp.power[l];
            si[x] += ((double)h0[e].im * h1[e].re - (double)h0[e].re * h1[e].im) / p.pdp.power[l];
          }
        }
        norm += links;
      }
    }
    for (int x = 0; x < NX; x++) {
      ref_acc_add(&re[x], sr[x] / norm);
      ref_acc_add(&im[x], si[x] / norm);
    }
  }
  int bad = 0;
  double power = 0.0;
  for (int x = 0; x < NX; x++) {
    const double want = cross ? 0.0 : ref_bessel_j0(xs[x]), se = ref_acc_se(&re[x]);
    const int ok = fabs(re[x].mean - want) <= 5.0 * se && fabs(im[x].mean) <= 5.0 * ref_acc_se(&im[x]);
    bad += !ok;
    /* the power: a 10% frequency error (in a drop), or J0 itself (across) */
    power = fmax(power, (cross ? fabs(ref_bessel_j0(xs[x])) : fabs(ref_bessel_j0(1.1 * xs[x]) - want)) / se);
    if (!ok || getenv("TEST_VERBOSE"))
      fprintf(stderr, "%s: 2 pi nu tau %.3f: R/p %.5f%+.5fj (se %.5f), expected %.5f\n",
              cross ? "across drops" : "in a drop", xs[x], re[x].mean, im[x].mean, se, want);
  }
  printf("tdl-a drops of %d, %s: %d lags, R/p at 2 pi nu tau = 0.8 %.4f (se %.4f, expected %.4f); power %.0f se\n",
         N, cross ? "across a drop boundary" : "across frame boundaries in a drop", NX, re[0].mean, ref_acc_se(&re[0]),
         cross ? 0.0 : ref_bessel_j0(xs[0]), power);
  CHECK(bad == 0, "%s: %d of %d lags off by more than 5 standard errors", cross ? "across drops" : "in a drop", bad,
        NX);
  CHECK(power > 8.0, "the check would see a wrong answer by only %.1f standard errors", power);
  for (int i = 0; i < 2; i++) free(sos[i]);
  for (int i = 0; i < 4; i++) free(later[i]);
}

/* Without Doppler a drop holds its taps (tdl's RNG_TAPS and cdl's rays). */
static void check_static_hold(void) {
  link_params p = tdl_point(PDP_TDL_C, 0.0, 4);
  const chan_spatial s = tp_spatial(&p);
  const int n = p.pdp.taps * p.tx * p.rx;
  cf32 *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n);
  tdl_draw_taps(&p, &s, 8, a);
  int held = 1;
  for (int f = 9; f < 12; f++) {
    tdl_draw_taps(&p, &s, (uint64_t)f, b);
    held &= memcmp(a, b, sizeof *a * n) == 0;
  }
  CHECK(held, "tdl taps change within a drop without Doppler");
  tdl_draw_taps(&p, &s, 12, b);
  CHECK(memcmp(a, b, sizeof *a * n) != 0, "the next drop holds the same taps");
  /* a HARQ retransmission's frames are drops of their own */
  tdl_draw_taps(&p, &s, rng_harq_frame(8, 1), b);
  CHECK(memcmp(a, b, sizeof *a * n) != 0, "a retransmission holds transmission 0's taps");
  free(a);
  free(b);
}

/* drop_frames 1 or 0 is no drop: the stream key and draws of a point
 * without drops. */
static void check_no_drop(void) {
  link_params p = tdl_point(PDP_TDL_A, 0.02, 1), q = p;
  q.drop_frames = 0;
  q.stream_key = link_stream_key(&q);
  CHECK(p.stream_key == q.stream_key, "drop_frames 0 and 1 give different points");
  link_params r = tdl_point(PDP_TDL_A, 0.02, 2);
  CHECK(r.stream_key != p.stream_key, "drops of 2 keep the stream of no drops");
  sos_term *a = malloc(sizeof *a * tdl_fade_terms(&p)), *b = malloc(sizeof *b * tdl_fade_terms(&p));
  tdl_draw_sos(&p, 7, a);
  tdl_draw_sos(&q, 7, b);
  CHECK(!memcmp(a, b, sizeof *a * tdl_fade_terms(&p)), "drop_frames 0 and 1 draw differently");
  const sos_term los = a[tdl_fade_terms(&p) - 1];
  CHECK(los.phase == 0.0f && los.freq == (float)(tdl_fade_of(&p).nu * TDL_LOS_COS),
        "the LOS term of a frame without drops: %g at phase %g", (double)los.freq, (double)los.phase);
  free(a);
  free(b);
}

/* A 1x1 cdl-d point at unit sample rate (doppler_hz in cycles per sample),
 * one 256-sample symbol a frame, drops of N. */
static link_params cdl_point(double nu, int N) {
  link_panel a;
  memset(&a, 0, sizeof a);
  a.rows = a.columns = 1;
  a.spacing_v = a.spacing_h = 0.5;
  a.pol = PANEL_POL_V;
  a.pattern = PANEL_ISOTROPIC;
  link_params p = tp_point(1, 1, 2, CH_TDL, 256, 1, 0);
  p.profile = PDP_CDL_D;
  p.delay_spread = 4.0;
  p.k_factor = NAN;
  p.subcarrier_spacing = 1.0 / 256.0;
  p.doppler_hz = nu;
  p.drop_frames = N;
  p.cdl.tx = a;
  p.cdl.rx = a;
  p.cdl.travel_zenith_deg = 90.0;
  p.seed = 99;
  char err[256];
  CHECK(!tdl_pdp_make(PDP_CDL_D, 4.0, NAN, DELAYS_CONTINUOUS, 255, &p.pdp, err, sizeof err), "%s", err);
  p.stream_key = link_stream_key(&p);
  CHECK(!link_params_check(&p, err, sizeof err), "%s", err);
  return p;
}

/* cdl: continuity over a drop (every cluster, the LOS ray's too), the NLOS
 * autocorrelation across frames of a drop against the table's rays, and
 * across a drop boundary about 0; without Doppler the rays are held. */
static void check_cdl(int drops) {
  const int N = 4;
  const double nu = 5e-4, tau = 600.0, t1 = 200.0; /* t1 + tau: frame 3 of the drop */
  link_params p = cdl_point(nu, N);
  const cdl_table *t = &cdl_tables[PDP_CDL_D - PDP_CDL_A];
  cdl_geom g;
  char err[160];
  CHECK(!cdl_geom_make(&p, &g, err, sizeof err), "%s", err);
  const size_t nf = cdl_terms_floats(g.L, 1);
  float *first = malloc(sizeof(float) * nf), *own = malloc(sizeof(float) * nf);
  double worst = 0.0;
  for (int j = 1; j < N; j++) {
    cdl_draw_terms(&p, &g, (uint64_t)(2 * N), first);
    cdl_draw_terms(&p, &g, (uint64_t)(2 * N + j), own);
    for (int n = 0; n < g.L; n++)
      for (double x = 0.0; x < 256.0; x += 31.0) {
        cf32 a, b;
        cdl_taps_at(own, g.L, 1, n, x, 0, &a);
        cdl_taps_at(first, g.L, 1, n, x + 256.0 * j, 0, &b);
        worst = fmax(worst, hypot(a.re - b.re, a.im - b.im) / sqrt((double)p.pdp.power[n]));
      }
  }
  printf("cdl-d drops of %d: frame j at t against frame 0 at t + j frame: worst %.2e of the cluster's rms\n", N,
         worst);
  CHECK(worst < 5e-6, "a cdl drop's frames do not continue its rays: %.3e of the cluster's rms apart", worst);
  /* the autocorrelation, in a drop (frame 0 at t1, frame 3 at t1 + tau -
   * 768) and across drops (the drop's last frame, the next drop's frame 2) */
  double complex in = 0, across = 0;
  double pw = 0;
  float *late = malloc(sizeof(float) * nf);
  for (int d = 0; d < drops; d++) {
    for (int c = 0; c < 2; c++) {
      const uint64_t f0 = (uint64_t)(d * N) + (c ? (uint64_t)N - 1 : 0);
      cdl_draw_terms(&p, &g, f0, own);
      cdl_draw_terms(&p, &g, f0 + 3, late);
      for (int n = 1; n < g.L; n++) {
        cf32 a, b;
        cdl_taps_at(own, g.L, 1, n, t1, 0, &a);
        cdl_taps_at(late, g.L, 1, n, t1 + tau - 768.0, 0, &b);
        const double complex z = (a.re + I * a.im) * conj(b.re + I * b.im);
        if (c) across += z;
        else {
          in += z;
          pw += a.re * a.re + a.im * a.im;
        }
      }
    }
  }
  const double complex want = cdl_ref_nlos_autocorrelation(t, nu, tau);
  const double complex got = in / pw, off = across / pw;
  printf("cdl-d NLOS autocorrelation at f_d tau = %.2f across 3 frames of a drop: %.4f%+.4fj (table %.4f%+.4fj); "
         "across a drop boundary %.4f%+.4fj\n",
         nu * tau, creal(got), cimag(got), creal(want), cimag(want), creal(off), cimag(off));
  CHECK(cabs(want) > 0.3, "the reference %.3f is too small to tell", cabs(want));
  CHECK(cabs(got - want) < test_widened(0.05), "in a drop: %.3f%+.3fj, expected %.3f%+.3fj", creal(got), cimag(got),
        creal(want), cimag(want));
  CHECK(cabs(off) < test_widened(0.05), "across drops: %.3f%+.3fj, expected 0", creal(off), cimag(off));
  /* without Doppler: held over the drop, bit for bit */
  link_params s = cdl_point(0.0, N);
  CHECK(!cdl_geom_make(&s, &g, err, sizeof err), "%s", err);
  cdl_draw_terms(&s, &g, 4, first);
  cdl_draw_terms(&s, &g, 7, own);
  CHECK(!memcmp(first, own, sizeof(float) * nf), "cdl without Doppler changes within a drop");
  cdl_draw_terms(&s, &g, 8, own);
  CHECK(memcmp(first, own, sizeof(float) * nf) != 0, "the next cdl drop holds the same rays");
  free(first);
  free(own);
  free(late);
}

int main(void) {
  check_no_drop();
  check_static_hold();
  check_tdl_continuity();
  const int drops = (int)test_scaled(2000, 200);
  check_tdl_autocorrelation(drops, 0);
  check_tdl_autocorrelation(drops, 1);
  check_cdl((int)test_scaled(1500, 150));
  return test_finish("test_drops");
}
