/* Pilots and channel estimation (core/pilots.h, channel/estimate.h) through
 * the CPU backend:
 *   - the pilot pattern: data-RE numbering is a bijection onto 0..D_f-1, the
 *     counted bits are the data REs', each pilot RE carries its antenna's
 *     pilot and nothing else;
 *   - LS at the pilots: the error of the receiver's channel at a pilot RE,
 *     undone of its scaling, has variance N0 / |pilot|^2 = N0 (both domains);
 *   - linear interpolation (frequency and time) of a flat noiseless channel
 *     is exact;
 *   - LMMSE beats linear in MSE on TDL-A, and for both the measured MSE is
 *     the error variance the receiver is told (est_error_var);
 *   - under Doppler, the same for nearest, linear and LMMSE: the time
 *     interpolation's error is in the error variance too;
 *   - lmmse2d, the 2-D Wiener filter: its measured MSE is its error
 *     variance, below LMMSE's with linear time interpolation under Doppler
 *     (both domains, a LOS path too);
 *   - a pilot on every subcarrier of a symbol, nearest interpolation: the
 *     BER equals the csi_error_var = N0 model's within its interval, and
 *     lies above perfect CSI's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel/estimate.h"
#include "core/names.h"
#include "fetch.h"
#include "linktest.h"
#include "sim/backends.h"
#include "testutil.h"

static link_params est_point(int tx, int rx, int bps, pdp_kind prof, double ds, double ebno, int P, int first,
                             int every, interp_kind interp) {
  link_params p = lt_params(tx, rx, bps, EQ_MMSE, CH_TDL, ebno);
  p.subcarriers = 64;
  p.symbols = 8;
  p.profile = prof;
  p.delay_spread = ds;
  p.pilot_spacing = P;
  p.pilot_first = first;
  p.pilot_every = every;
  p.estimation = EST_LS;
  p.interpolation = interp;
  return p;
}

static int finish(link_params *p) { return lt_finish_estimated(p); }

/* The numbering of data REs, the bits, and what pilot REs send. */
static void test_pattern(void) {
  link_params p = est_point(3, 4, 2, PDP_TDL_A, 2.0, 10.0, 4, 1, 3, INTERP_LINEAR);
  CHECK(finish(&p) == 0, "point");
  const pilot_grid g = link_pilot_grid(&p);
  const uint64_t rf = link_res_per_frame(&p), D = link_data_res_per_frame(&p);
  /* symbols 1, 4, 7 carry pilots; on each, 16 + 16 + 16 pilot REs (K = 64, P = 4, tx = 3) */
  CHECK(pilot_symbol_count(&g) == 3 && pilot_res_per_symbol(&g) == 48, "%d pilot symbols, %d pilots each",
        pilot_symbol_count(&g), pilot_res_per_symbol(&g));
  CHECK(D == rf - 3 * 48, "data REs %llu of %llu", (unsigned long long)D, (unsigned long long)rf);
  CHECK(link_bits_per_frame(&p) == D * 3 * 2, "bits per frame %llu", (unsigned long long)link_bits_per_frame(&p));
  uint64_t next = 0;
  int ok = 1;
  for (uint64_t m = 0; m < rf; m++) {
    if (pilot_antenna(&g, m) >= 0) continue;
    ok &= pilot_data_index(&g, m) == next++;
  }
  CHECK(ok && next == D, "data REs not numbered 0..%llu in order", (unsigned long long)D - 1);

  lt_frame_buffers o;
  uint32_t errors[4 * 3];
  CHECK(lt_fetch_frames(&p, 4, &o, errors) == 0, "run");
  const size_t R = 4 * rf;
  int bad = 0;
  for (size_t i = 0; i < R; i++) {
    const int a = pilot_antenna(&g, i % rf);
    if (a < 0) continue;
    for (int t = 0; t < 3; t++) {
      const cf32 x = o.X[(size_t)t * R + i];
      bad += x.re != (t == a ? 1.0f : 0.0f) || x.im != 0.0f;
    }
  }
  CHECK(bad == 0, "%d pilot RE symbols are not the antenna's pilot alone", bad);
  lt_frame_buffers_free(&o);
}

/* LS error at the pilots: Hhat / shrink - H = the pilot RE's noise, CN(0, N0). */
static void check_ls_variance(ofdm_domain dom) {
  /* in the time domain, taps on the sample grid within the CP: no ISI (a
   * windowed-sinc tap reaches 16 samples before and after its delay) */
  link_params p = est_point(2, 2, 2, PDP_TDL_A, dom == DOMAIN_TIME ? 1.0 : 2.0, 5.0, 2, 0, 4, INTERP_NEAREST);
  p.domain = dom;
  p.cp_length = 16;
  if (dom == DOMAIN_TIME) p.delays = DELAYS_SAMPLE;
  CHECK(finish(&p) == 0, "point");
  const uint64_t frames = 200, rf = link_res_per_frame(&p);
  const size_t R = (size_t)(frames * rf);
  const pilot_grid g = link_pilot_grid(&p);
  lt_frame_buffers o;
  uint32_t *errors = calloc(frames * 2, sizeof *errors);
  CHECK(lt_fetch_frames(&p, frames, &o, errors) == 0, "run");
  double sum = 0, sum2 = 0;
  uint64_t n = 0;
  for (size_t i = 0; i < R; i++) {
    const int a = pilot_antenna(&g, i % rf);
    if (a < 0) continue;
    for (int r = 0; r < 2; r++) {
      const size_t e = (size_t)(r * 2 + a) * R + i;
      const double dr = o.Hhat[e].re / p.est_shrink - o.H[e].re, di = o.Hhat[e].im / p.est_shrink - o.H[e].im;
      const double v = dr * dr + di * di;
      sum += v, sum2 += v * v, n++;
    }
  }
  const double mean = sum / n, se = sqrt((sum2 / n - mean * mean) / n);
  printf("LS at the pilots (%s): error variance %.5f vs N0 %.5f (se %.5f, %llu pilots)\n", ofdm_domain_name(dom),
         mean, p.n0, se, (unsigned long long)n);
  CHECK(fabs(mean - p.n0) < 4 * se, "%s: LS error variance %.5f, N0 %.5f (se %.5f)", ofdm_domain_name(dom), mean,
        p.n0, se);
  free(errors);
  lt_frame_buffers_free(&o);
}

/* A flat channel without noise: linear interpolation reproduces it exactly. */
static void test_linear_exact(void) {
  link_params p = est_point(2, 3, 2, PDP_EXP, 0.1, 10.0, 4, 1, 5, INTERP_LINEAR);
  CHECK(finish(&p) == 0 && p.pdp.taps == 1, "a one-tap (flat) profile");
  p.n0 = 0.0;
  p.stream_key = link_stream_key(&p);
  char err[256];
  CHECK(est_resolve(&p, err, sizeof err) == 0 && p.est_error_var == 0.0 && p.est_shrink == 1.0,
        "noiseless: error variance %g, shrink %g", p.est_error_var, p.est_shrink);
  const uint64_t frames = 8;
  const size_t R = (size_t)(frames * link_res_per_frame(&p)), links = 6;
  lt_frame_buffers o;
  uint32_t errors[8 * 2];
  CHECK(lt_fetch_frames(&p, frames, &o, errors) == 0, "run");
  double worst = 0;
  for (size_t i = 0; i < links * R; i++)
    worst = fmax(worst, hypot(o.Hhat[i].re - o.H[i].re, o.Hhat[i].im - o.H[i].im));
  CHECK(worst < 1e-6, "linear interpolation of a flat channel off by %g", worst);
  uint64_t e = 0;
  for (int i = 0; i < 16; i++) e += errors[i];
  CHECK(e == 0, "%llu bit errors without noise", (unsigned long long)e);
  lt_frame_buffers_free(&o);
}

static void test_lmmse(void) {
  const uint64_t frames = 400;
  double mse[2], se[2], told[2];
  const interp_kind kinds[2] = {INTERP_LINEAR, INTERP_LMMSE};
  for (int i = 0; i < 2; i++) {
    link_params p = est_point(1, 2, 2, PDP_TDL_A, 3.0, 5.0, 4, 2, 4, kinds[i]);
    CHECK(finish(&p) == 0, "point");
    lt_frame_buffers o;
    uint32_t *errors = calloc(frames, sizeof *errors);
    CHECK(lt_fetch_frames(&p, frames, &o, errors) == 0, "run");
    mse[i] = lt_estimate_mse(&p, &o, frames, &se[i]);
    told[i] = p.est_error_var;
    printf("TDL-A ds 3, P 4, %s: MSE %.5f (se %.5f), told %.5f\n", interp_kind_name(kinds[i]), mse[i], se[i],
           told[i]);
    free(errors);
    lt_frame_buffers_free(&o);
  }
  CHECK(mse[1] + 4 * hypot(se[0], se[1]) < mse[0], "LMMSE MSE %.5f not below linear's %.5f", mse[1], mse[0]);
  CHECK(fabs(mse[1] - told[1]) < 4 * se[1], "LMMSE measured MSE %.5f, told the receiver %.5f (se %.5f)", mse[1],
        told[1], se[1]);
  /* linear's receiver is told its interpolation error too, not the noise alone */
  CHECK(fabs(mse[0] - told[0]) < 4 * se[0], "linear's measured MSE %.5f, told the receiver %.5f (se %.5f)", mse[0],
        told[0], se[0]);
}

/* Under Doppler the time interpolation's error joins the frequency
 * interpolation's: the measured MSE is still what the receiver is told, for
 * every interpolation (pilot symbols 0 and 4 of 8, f_d T_symbol = 0.0625:
 * a quarter turn of the fastest path between pilot symbols), in both
 * domains' per-symbol channel (the frequency-domain model). */
static void test_doppler_error(void) {
  const uint64_t frames = 400;
  const interp_kind kinds[3] = {INTERP_NEAREST, INTERP_LINEAR, INTERP_LMMSE};
  for (int i = 0; i < 6; i++) {
    link_params p = est_point(1, 2, 2, PDP_TDL_A, 2.0, 15.0, 4, 0, 4, kinds[i % 3]);
    if (i >= 3) p.domain = DOMAIN_TIME, p.cp_length = 16, p.delays = DELAYS_SAMPLE;
    p.doppler_hz = 0.0625 * p.subcarrier_spacing * p.subcarriers / (p.subcarriers + p.cp_length);
    CHECK(finish(&p) == 0, "point");
    link_params still = p;
    still.doppler_hz = 0.0;
    CHECK(finish(&still) == 0, "point");
    lt_frame_buffers o;
    uint32_t *errors = calloc(frames, sizeof *errors);
    CHECK(lt_fetch_frames(&p, frames, &o, errors) == 0, "run");
    double se;
    const double mse = lt_estimate_mse(&p, &o, frames, &se);
    printf("TDL-A ds 2, P 4, f_d %.0f Hz, %s domain, %s: MSE %.5f (se %.5f), told %.5f (without Doppler %.5f)\n", p.doppler_hz,
           ofdm_domain_name(p.domain), interp_kind_name(kinds[i % 3]), mse, se, p.est_error_var, still.est_error_var);
    CHECK(fabs(mse - p.est_error_var) < 4 * se, "%s under Doppler: measured MSE %.5f, told %.5f (se %.5f)",
          interp_kind_name(kinds[i % 3]), mse, p.est_error_var, se);
    CHECK(p.est_error_var > 2 * still.est_error_var, "%s: Doppler's error %.5f not above the still channel's %.5f",
          interp_kind_name(kinds[i % 3]), p.est_error_var, still.est_error_var);
    free(errors);
    lt_frame_buffers_free(&o);
  }
}

/* lmmse2d against LMMSE in frequency then linear in time, on the same
 * draws under Doppler (pilot symbols 0, 3 and 6 of 8, f_d T_symbol = 0.04;
 * TDL-A, and TDL-D with its LOS path; both domains): the 2-D filter's
 * measured MSE is what its receiver is told, and below the separable
 * estimator's, told and measured (the frames' paired differences, the
 * draws being the same). */
static void test_lmmse2d(void) {
  const uint64_t frames = 400;
  double *per = malloc(sizeof(double) * 2 * frames);
  for (int c = 0; c < 3; c++) {
    double mse[2], se[2], told[2];
    for (int i = 0; i < 2; i++) {
      link_params p = est_point(1, 2, 2, c == 1 ? PDP_TDL_D : PDP_TDL_A, 2.0, 15.0, 4, 0, 3,
                                i ? INTERP_LMMSE2D : INTERP_LMMSE);
      if (c == 2) p.domain = DOMAIN_TIME, p.cp_length = 16, p.delays = DELAYS_SAMPLE;
      p.doppler_hz = 0.04 * p.subcarrier_spacing * p.subcarriers / (p.subcarriers + p.cp_length);
      CHECK(finish(&p) == 0, "point");
      lt_frame_buffers o;
      uint32_t *errors = calloc(frames, sizeof *errors);
      CHECK(lt_fetch_frames(&p, frames, &o, errors) == 0, "run");
      mse[i] = lt_estimate_mse_frames(&p, &o, frames, &se[i], per + i * frames);
      told[i] = p.est_error_var;
      printf("%s ds 2, P 4, f_d %.0f Hz, %s domain, %s: MSE %.5f (se %.5f), told %.5f\n", pdp_kind_name(p.profile),
             p.doppler_hz, ofdm_domain_name(p.domain), interp_kind_name(p.interpolation), mse[i], se[i], told[i]);
      free(errors);
      lt_frame_buffers_free(&o);
    }
    CHECK(fabs(mse[1] - told[1]) < 4 * se[1], "case %d: lmmse2d's measured MSE %.5f, told %.5f (se %.5f)", c, mse[1],
          told[1], se[1]);
    CHECK(told[1] < told[0], "case %d: lmmse2d's error %.5f not below lmmse's %.5f", c, told[1], told[0]);
    double d = 0, d2 = 0;
    for (uint64_t f = 0; f < frames; f++) d += per[f] - per[frames + f], d2 += (per[f] - per[frames + f]) * (per[f] - per[frames + f]);
    d /= (double)frames;
    const double se_d = sqrt((d2 / (double)frames - d * d) / (double)(frames - 1));
    printf("  lmmse's MSE less lmmse2d's: %.5f (se %.5f, paired over frames)\n", d, se_d);
    CHECK(d > 4 * se_d, "case %d: lmmse2d's MSE %.5f not below lmmse's %.5f (difference %.5f, se %.5f)", c, mse[1],
          mse[0], d, se_d);
  }
  free(per);
}

/* Block-faded rayleigh (channel.fading): flat_block is one channel a frame,
 * which the pilots follow; block draws each subcarrier on its own, where
 * interpolation only adds the neighbours' independent channels. Either
 * way the measured MSE is the error the receiver is told, a Rician part
 * and spatial correlation included. */
static void test_block_faded(void) {
  const uint64_t frames = 300;
  for (int f = FADING_BLOCK; f <= FADING_FLAT_BLOCK; f++)
    for (int in = INTERP_LINEAR; in <= INTERP_LMMSE; in++) {
      link_params p = est_point(2, 2, 2, PDP_EXP, 1.0, 10.0, 4, 1, 4, (interp_kind)in);
      p.model = CH_RAYLEIGH;
      p.fading = (fading_kind)f;
      p.k_factor = 1.0;
      p.rho_rx = 0.4;
      CHECK(finish(&p) == 0, "point");
      lt_frame_buffers o;
      uint32_t *errors = calloc(frames * 2, sizeof *errors);
      CHECK(lt_fetch_frames(&p, frames, &o, errors) == 0, "run");
      double se;
      const double mse = lt_estimate_mse(&p, &o, frames, &se);
      printf("rayleigh %s, K 1, %s: MSE %.5f (se %.5f), told %.5f\n", fading_kind_name(p.fading),
             interp_kind_name(p.interpolation), mse, se, p.est_error_var);
      CHECK(fabs(mse - p.est_error_var) < 4 * se, "rayleigh %s, %s: measured MSE %.5f, told %.5f (se %.5f)",
            fading_kind_name(p.fading), interp_kind_name(p.interpolation), mse, p.est_error_var, se);
      free(errors);
      lt_frame_buffers_free(&o);
    }
}

static void test_pilot_everywhere(void) {
  /* tx = 1, P = 1: symbol 0 is all pilots; each data RE's estimate is its
   * own subcarrier's LS value, H + n with n ~ CN(0, N0), independent across
   * subcarriers: in distribution the csi_error_var = N0 model */
  const uint64_t frames = 3000;
  link_params ls = est_point(1, 2, 4, PDP_TDL_A, 2.0, 8.0, 1, 0, 0, INTERP_NEAREST);
  CHECK(finish(&ls) == 0, "point");
  link_params csi = ls, perfect = ls;
  csi.pilot_spacing = 0, csi.estimation = EST_PERFECT, csi.csi_error_var = ls.n0;
  csi.symbols = 7; /* the same data REs per frame */
  perfect.estimation = EST_PERFECT;
  CHECK(finish(&csi) == 0 && finish(&perfect) == 0, "points");
  /* the error model reads each subcarrier's power from the response the
   * chain applies, float phasors of magnitude 1 to within 1e-7: the same
   * number to that rounding */
  CHECK(fabs(ls.est_error_var - ls.n0 / (1 + ls.n0)) < 1e-9, "pilot everywhere: error variance %.12g, expected %.12g",
        ls.est_error_var, ls.n0 / (1 + ls.n0));
  double se_ls, se_csi, se_p;
  const double b_ls = lt_ber(&ls, frames, &se_ls), b_csi = lt_ber(&csi, frames, &se_csi),
               b_p = lt_ber(&perfect, frames, &se_p);
  printf("pilot on every subcarrier, 1x2 16-QAM MMSE TDL-A: BER ls %.5f (se %.5f), csi_error_var = N0 %.5f "
         "(se %.5f), perfect %.5f (se %.5f)\n",
         b_ls, se_ls, b_csi, se_csi, b_p, se_p);
  CHECK(fabs(b_ls - b_csi) < 4 * hypot(se_ls, se_csi), "LS %.5f vs the CSI-error model %.5f", b_ls, b_csi);
  CHECK(b_p + 4 * hypot(se_p, se_ls) < b_ls, "perfect CSI %.5f not below LS %.5f", b_p, b_ls);
}

int main(void) {
  test_pattern();
  check_ls_variance(DOMAIN_FREQUENCY);
  check_ls_variance(DOMAIN_TIME);
  test_linear_exact();
  test_lmmse();
  test_doppler_error();
  test_lmmse2d();
  test_block_faded();
  test_pilot_everywhere();
  return test_finish("test_estimation");
}
