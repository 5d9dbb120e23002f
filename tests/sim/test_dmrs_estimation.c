/* NR DMRS (core/dmrs.h) and the channel estimate made from it
 * (channel/estimate.h) through the CPU backend:
 *   - what the streams send: every pilot RE carries its ports' DMRS values
 *     (the same function the despreading reads), the data REs their
 *     labels' symbols, and a frame's bits are its data REs';
 *   - OCC despreading separates the ports exactly where the channel is
 *     constant over an OCC block: without noise, on a flat channel, the
 *     estimate is the channel for every configuration (types 1 and 2,
 *     single and double symbol, all 8 streams where the configuration has
 *     them);
 *   - the estimation that knows its error: on TDL-A the measured MSE of the
 *     receiver's channel over the data REs is the est_error_var it is told,
 *     for nearest, linear, LMMSE and lmmse2d interpolation, single and double
 *     symbol, with and without Doppler, with linear and hold in time, and
 *     with several ports in a CDM group (their residue where the channel
 *     varies over a block is in the error);
 *   - BER: DMRS with LMMSE at high SNR lies between perfect CSI's and twice
 *     it.
 * The error model's match is held to 4 standard errors plus 2% of the
 * error: what it leaves out (the other ports' residue averaged over the
 * band's blocks, its correlation with the port's own channel under Kronecker
 * correlation) is of that order at most in these cases. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel/estimate.h"
#include "core/names.h"
#include "fetch.h"
#include "linktest.h"
#include "testparams.h"
#include "sim/backends.h"
#include "testutil.h"

static link_params dmrs_point(int tx, int rx, int type, int len, int add, interp_kind interp, double ebno) {
  link_params p = lt_params(tx, rx, 2, EQ_MMSE, CH_TDL, ebno);
  p.subcarriers = 96;
  p.symbols = 14;
  p.profile = PDP_TDL_A;
  p.delay_spread = 1.0;
  tp_dmrs(&p, type, len, add);
  p.dmrs_nid = 3;
  p.estimation = EST_LS;
  p.interpolation = interp;
  return p;
}

static int finish(link_params *p) { return lt_finish_estimated(p); }

/* What pilot and data REs send. */
static void test_pattern(void) {
  link_params p = dmrs_point(4, 4, 1, 1, 1, INTERP_LINEAR, 10.0);
  CHECK(finish(&p) == 0, "point");
  pilot_grid g = link_pilot_grid(&p);
  /* occasions 2 and 11 (Table 7.4.1.1.2-3, 14 symbols, position 1); ports
   * 0..3 use both CDM groups: no data on those symbols */
  CHECK(g.dm.occasions == 2 && g.dm.occ[0] == 2 && g.dm.occ[1] == 11 && g.dm.nodata == 2, "occasions %d (%d, %d)",
        g.dm.occasions, g.dm.occ[0], g.dm.occ[1]);
  const uint64_t rf = link_res_per_frame(&p), D = link_data_res_per_frame(&p);
  CHECK(D == rf - 2 * 96, "data REs %llu", (unsigned long long)D);
  CHECK(link_bits_per_frame(&p) == D * 4 * 2, "bits per frame");
  uint32_t *seq = malloc(sizeof(uint32_t) * 2 * (size_t)g.dm.seq_words);
  dmrs_fill_sequence(&g.dm, p.dmrs_nid, seq);
  g.dm.seq = seq;
  lt_frame_buffers o;
  uint32_t errors[2 * 4];
  CHECK(lt_fetch_frames(&p, 2, &o, errors) == 0, "run");
  const size_t R = 2 * rf;
  int bad = 0, unit = 0;
  for (size_t i = 0; i < R; i++) {
    const int a = pilot_antenna(&g, i % rf);
    for (int t = 0; t < 4; t++) {
      const cf32 x = o.X[(size_t)t * R + i];
      if (a >= 0) {
        const cf32 w = pilot_stream_value(&g, i % rf, a, t);
        bad += x.re != w.re || x.im != w.im;
        /* boosted by sqrt(2) on its group, nothing on the other */
        unit += fabsf(cf_abs2(x) - (dmrs_port_group(1, t) == a ? 2.0f : 0.0f)) > 1e-5f;
      }
    }
  }
  CHECK(bad == 0 && unit == 0, "%d pilot REs send other than their ports' DMRS, %d off power", bad, unit);
  lt_frame_buffers_free(&o);
  free(seq);
}

/* A flat channel (one tap), no noise: Hhat = H on every RE and link. */
static void test_occ_exact(void) {
  int cases = 0;
  for (int type = 1; type <= 2; type++)
    for (int len = 1; len <= 2; len++) {
      const int tx = dmrs_max_ports(type, len) < LINK_MAX_TX ? dmrs_max_ports(type, len) : LINK_MAX_TX;
      link_params p = dmrs_point(tx, 2, type, len, 1, INTERP_LINEAR, 10.0);
      p.profile = PDP_EXP;
      p.delay_spread = 0.1;
      CHECK(finish(&p) == 0 && p.pdp.taps == 1, "a one-tap (flat) profile");
      p.n0 = 0.0;
      p.stream_key = link_stream_key(&p);
      char err[256];
      CHECK(est_resolve(&p, err, sizeof err) == 0 && p.est_error_var < 1e-12 && fabs(p.est_shrink - 1.0) < 1e-9,
            "type %d len %d: noiseless, flat: error variance %g, shrink %g", type, len, p.est_error_var, p.est_shrink);
      const uint64_t frames = 4;
      const size_t R = (size_t)(frames * link_res_per_frame(&p)), links = (size_t)tx * 2;
      lt_frame_buffers o;
      uint32_t *errors = calloc(frames * tx, sizeof *errors);
      CHECK(lt_fetch_frames(&p, frames, &o, errors) == 0, "run");
      double worst = 0;
      for (size_t i = 0; i < links * R; i++)
        worst = fmax(worst, hypot(o.Hhat[i].re - o.H[i].re, o.Hhat[i].im - o.H[i].im));
      CHECK(worst < 1e-5, "type %d, %d symbol(s), %d ports: despreading off by %g", type, len, tx, worst);
      cases++;
      free(errors);
      lt_frame_buffers_free(&o);
    }
  CHECK(cases == 4, "cases");
}

static void test_error_model(void) {
  /* tx, type, len, add, interpolation, doppler share, hold */
  static const int cases[][7] = {
      {2, 1, 1, 1, INTERP_NEAREST, 0, 0}, {2, 1, 1, 1, INTERP_LINEAR, 0, 0}, {2, 1, 1, 1, INTERP_LMMSE, 0, 0},
      {4, 2, 1, 2, INTERP_LINEAR, 0, 0},  {4, 1, 2, 1, INTERP_LMMSE, 0, 0},  {2, 1, 1, 3, INTERP_LINEAR, 1, 0},
      {2, 2, 2, 1, INTERP_LMMSE, 1, 0},   {2, 1, 1, 2, INTERP_LINEAR, 1, 1}, {6, 2, 1, 1, INTERP_LMMSE, 0, 1},
      /* lmmse2d: its window spans the occasions; with the other ports' residue */
      {2, 1, 1, 3, INTERP_LMMSE2D, 1, 0}, {4, 1, 2, 1, INTERP_LMMSE2D, 1, 0}, {4, 2, 1, 2, INTERP_LMMSE2D, 0, 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    const int *k = cases[c];
    /* one CPU batch (192 MB) holds them */
    const uint64_t frames = test_scaled(600 / (uint64_t)k[0], 40);
    link_params p = dmrs_point(k[0], 2, k[1], k[2], k[3], (interp_kind)k[4], 12.0);
    p.delay_spread = 2.0;
    if (k[5]) p.doppler_hz = 0.02 * p.subcarrier_spacing * p.subcarriers / (p.subcarriers + p.cp_length);
    p.time_interpolation = k[6];
    CHECK(finish(&p) == 0, "point");
    lt_frame_buffers o;
    uint32_t *errors = calloc(frames * k[0], sizeof *errors);
    CHECK(lt_fetch_frames(&p, frames, &o, errors) == 0, "run");
    double se;
    const double mse = lt_estimate_mse(&p, &o, frames, &se);
    printf("DMRS type %d, %d symbol(s), position %d, %d ports, %s, %s in time, f_d %.0f Hz: MSE %.5f (se %.5f), "
           "told %.5f\n",
           k[1], k[2], k[3], k[0], interp_kind_name((interp_kind)k[4]), k[6] ? "hold" : "linear", p.doppler_hz, mse, se,
           p.est_error_var);
    CHECK(fabs(mse - p.est_error_var) < 4 * se + 0.02 * p.est_error_var,
          "case %zu: measured MSE %.5f, told %.5f (se %.5f)", c, mse, p.est_error_var, se);
    free(errors);
    lt_frame_buffers_free(&o);
  }
}

static void test_ber(void) {
  const uint64_t frames = test_scaled(1500, 150);
  link_params ls = dmrs_point(2, 2, 1, 1, 1, INTERP_LMMSE, 20.0), perfect;
  ls.delay_spread = 0.3; /* a frequency selectivity DMRS is made for (pairs 2 subcarriers apart) */
  CHECK(finish(&ls) == 0, "point");
  perfect = ls;
  perfect.estimation = EST_PERFECT;
  CHECK(finish(&perfect) == 0, "point");
  double se_l, se_p;
  const double b_l = lt_ber(&ls, frames, &se_l), b_p = lt_ber(&perfect, frames, &se_p);
  printf("2x2 QPSK MMSE TDL-A 20 dB, DMRS LMMSE: BER %.3g (se %.2g), perfect CSI %.3g (se %.2g), told %.4g\n", b_l,
         se_l, b_p, se_p, ls.est_error_var);
  CHECK(b_l > b_p - 4 * hypot(se_l, se_p) && b_l < 2 * b_p + 4 * hypot(se_l, se_p),
        "DMRS LS BER %.4g not within [1, 2] x perfect CSI's %.4g", b_l, b_p);
}

int main(void) {
  test_pattern();
  test_occ_exact();
  test_error_model();
  test_ber();
  return test_finish("test_dmrs_estimation");
}
