/* The GMI of LS channel estimation rises with the SNR. The GMI of a
 * receiver whose LLRs are over-confident falls once the channel estimate's
 * error outweighs the noise, and can go negative (a TDL-C run with Doppler
 * printed -8.3 bit/RE when the LLRs counted the pilots' noise alone). With
 * the interpolation's and the time variation's error in the LLRs' noise
 * variance (channel/estimate.h), the GMI of every interpolation (lmmse2d's
 * 2-D Wiener filter too), with and
 * without Doppler, is non-decreasing in SNR within its 95% intervals: for
 * consecutive SNRs the higher one's interval reaches the lower one's. On
 * configs/estimation.cfg's link (2x2 16-QAM MMSE, max-log LLRs, TDL-A at
 * 100 ns, K = 256, pilots every 4th subcarrier on symbols 2 and 9) at 15,
 * 25 and 35 dB, and the same under a Doppler of 600 Hz (120 km/h at
 * 5.4 GHz). */
#include <math.h>
#include <stdio.h>

#include "channel/estimate.h"
#include "core/names.h"
#include "linktest.h"
#include "testutil.h"

static void check_curve(interp_kind interp, double doppler_hz) {
  static const double snr[3] = {15.0, 25.0, 35.0};
  double gmi[3], lo[3], hi[3];
  for (int i = 0; i < 3; i++) {
    link_params p = lt_params(2, 2, 4, EQ_MMSE, CH_TDL, snr[i]);
    p.subcarriers = 256;
    p.symbols = 14;
    p.cp_length = 18;
    p.subcarrier_spacing = 30e3;
    p.profile = PDP_TDL_A;
    p.delay_spread = 100e-9 * 256 * 30e3;
    p.doppler_hz = doppler_hz;
    p.pilot_spacing = 4;
    p.pilot_first = 2;
    p.pilot_every = 7;
    p.estimation = EST_LS;
    p.interpolation = interp;
    p.llr = LLR_MAXLOG;
    CHECK(lt_finish_estimated(&p) == 0, "point");
    lt_counts c;
    const uint64_t frames = test_scaled(120, 12);
    CHECK(lt_simulate("cpu", &p, UINT64_MAX, (double)frames * link_bits_per_frame(&p), 0, &c) == 0, "simulate");
    gmi[i] = lt_gmi(&p, &c, &lo[i], &hi[i]);
    printf("%s, f_d %g Hz, %g dB: GMI %.4f [%.4f, %.4f] bit/RE (told error %.2e, shrink %.4f, %llu frames)\n",
           interp_kind_name(interp), doppler_hz, snr[i], gmi[i], lo[i], hi[i], p.est_error_var, p.est_shrink,
           (unsigned long long)c.frames);
  }
  for (int i = 0; i + 1 < 3; i++)
    CHECK(hi[i + 1] >= lo[i], "%s, f_d %g Hz: GMI %.4f [%.4f, %.4f] at %g dB below %.4f [%.4f, %.4f] at %g dB",
          interp_kind_name(interp), doppler_hz, gmi[i + 1], lo[i + 1], hi[i + 1], snr[i + 1], gmi[i], lo[i], hi[i],
          snr[i]);
}

int main(void) {
  const interp_kind kinds[4] = {INTERP_NEAREST, INTERP_LINEAR, INTERP_LMMSE, INTERP_LMMSE2D};
  for (int d = 0; d < 2; d++)
    for (int i = 0; i < 4; i++) check_curve(kinds[i], d ? 600.0 : 0.0);
  return test_finish("test_estimation_gmi");
}
