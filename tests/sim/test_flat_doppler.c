/* Fading in time on the rayleigh channel (channel.doppler_hz with fading =
 * flat_block or block, core/flat_fading.h), from the channels the CPU backend
 * fetches:
 *   - flat_block: the autocorrelation of h(0,0) between symbol 0 and symbol d
 *     of a frame, Re E[h_0 conj(h_d)], against J0(2 pi f_d tau), tau = d
 *     symbol periods (Clarke's model), within 4 standard errors over frames
 *     (independent realisations); the power stays 1;
 *   - Rician (k_factor): the LOS term adds K/(K+1) cos(2 pi f_d cos(pi/4) tau)
 *     to the NLOS part's J0 / (K+1);
 *   - drops (drop_frames = 2): the draw held, or the fading running on,
 *     across a drop's frames, and drops independent;
 *   - the parameter check refuses Doppler on independent per-RE draws and on
 *     awgn. J0 is computed here from its integral, not from libm. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "fetch.h"
#include "linktest.h"
#include "sim/backends.h"
#include "testutil.h"

#define PI 3.14159265358979323846

/* J0(x) = (1/pi) int_0^pi cos(x sin th) dth, midpoint rule (x <= 10: far
 * below the test's intervals). */
static double bessel_j0(double x) {
  const int n = 4000;
  double s = 0;
  for (int i = 0; i < n; i++) s += cos(x * sin(PI * (i + 0.5) / n));
  return s / n;
}

/* H of frames [0, frames) of p, one staged CPU batch. */
static cf32 *fetch_h(const link_params *p, uint64_t frames) {
  const backend_buffer which = BUF_H;
  cf32 *H = NULL;
  return lt_fetch(p, frames, 1, &which, &H) ? NULL : H;
}

static void check_autocorrelation(double k_factor) {
  link_params p = lt_params(2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 10.0);
  p.subcarriers = 32;
  p.symbols = 14;
  p.fading = FADING_FLAT_BLOCK;
  p.k_factor = k_factor;
  p.subcarrier_spacing = 15e3;
  CHECK(lt_finish(&p) == 0, "point");
  /* symbol period in seconds; f_d so that the last symbol sees 2 pi f_d tau = 4
   * (past J0's first zero) */
  const double ts = (double)(p.subcarriers + p.cp_length) / link_sample_rate(&p);
  p.doppler_hz = 4.0 / (2 * PI * ts * (p.symbols - 1));
  char err[256] = "";
  p.stream_key = link_stream_key(&p);
  CHECK(link_params_check(&p, err, sizeof err) == 0, "doppler on flat_block refused: %s", err);
  const uint64_t frames = test_scaled(2000, 200), rf = link_res_per_frame(&p);
  const size_t K = (size_t)p.subcarriers, R = (size_t)(frames * rf);
  cf32 *H = fetch_h(&p, frames);
  CHECK(H != NULL, "fetch");
  if (!H) return;
  const double kf = k_factor > 0 ? k_factor : 0.0, n = (double)frames;
  int bad = 0;
  for (int d = 0; d < p.symbols; d++) {
    double s = 0, s2 = 0;
    for (uint64_t f = 0; f < frames; f++) {
      double c = 0; /* the frame's mean over its 4 links (independent processes) */
      for (size_t e = 0; e < 4; e++) {
        const cf32 a = H[e * R + f * rf], b = H[e * R + f * rf + (uint64_t)d * K];
        c += 0.25 * (a.re * b.re + a.im * b.im);
      }
      s += c, s2 += c * c;
    }
    const double m = s / n, se = sqrt((s2 / n - m * m) / n), x = 2 * PI * p.doppler_hz * ts * d;
    const double want = bessel_j0(x) / (kf + 1) + kf / (kf + 1) * cos(x * 0.70710678118654752);
    printf("K=%g d=%2d: Re E[h0 h%d*] %.4f (se %.4f), expected %.4f\n", kf, d, d, m, se, want);
    if (fabs(m - want) > 4 * se + 1e-3) bad++;
  }
  CHECK(bad == 0, "K=%g: %d lags outside their interval", kf, bad);
  free(H);
}

/* Drops of 2 frames: without Doppler frame 2i+1 holds frame 2i's draw
 * exactly; with it the fading runs on (lag S + d symbols from frame 2i's
 * symbol 0 to frame 2i+1's symbol d follows J0), and drops are independent
 * (frame 2i+1 against 2i+2 uncorrelated). */
static void check_drops(void) {
  link_params p = lt_params(2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 10.0);
  p.subcarriers = 32;
  p.symbols = 7;
  p.fading = FADING_FLAT_BLOCK;
  p.drop_frames = 2;
  p.subcarrier_spacing = 15e3;
  CHECK(lt_finish(&p) == 0, "point");
  const uint64_t frames = test_scaled(2000, 200), rf = link_res_per_frame(&p);
  cf32 *H = fetch_h(&p, frames);
  CHECK(H != NULL, "fetch held");
  if (!H) return;
  uint64_t held = 0;
  for (uint64_t f = 0; f + 1 < frames; f += 2) held += H[f * rf].re == H[(f + 1) * rf].re && H[f * rf].im == H[(f + 1) * rf].im;
  CHECK(held == frames / 2, "held over the drop: %llu of %llu", (unsigned long long)held, (unsigned long long)(frames / 2));
  free(H);
  const double ts = (double)(p.subcarriers + p.cp_length) / link_sample_rate(&p);
  p.doppler_hz = 4.0 / (2 * PI * ts * (2 * p.symbols - 1));
  p.stream_key = link_stream_key(&p);
  H = fetch_h(&p, frames);
  CHECK(H != NULL, "fetch moving");
  if (!H) return;
  const size_t K = (size_t)p.subcarriers, R = (size_t)(frames * rf);
  const double n = (double)(frames / 2);
  for (int d = 0; d <= p.symbols; d++) {
    /* d < symbols: within the drop, lag symbols + d; d == symbols: across drops */
    double s = 0, s2 = 0;
    for (uint64_t f = 0; f + 1 < frames; f += 2) {
      double c = 0;
      for (size_t e = 0; e < 4; e++) {
        const cf32 a = H[e * R + f * rf];
        const cf32 b = d < p.symbols ? H[e * R + (f + 1) * rf + (uint64_t)d * K]
                                     : H[e * R + ((f + 2) % frames) * rf];
        const cf32 a2 = d < p.symbols ? a : H[e * R + (f + 1) * rf];
        c += 0.25 * (a2.re * b.re + a2.im * b.im);
      }
      s += c, s2 += c * c;
    }
    const double m = s / n, se = sqrt((s2 / n - m * m) / n);
    const double want = d < p.symbols ? bessel_j0(2 * PI * p.doppler_hz * ts * (p.symbols + d)) : 0.0;
    printf("drop: %s %d: %.4f (se %.4f), expected %.4f\n", d < p.symbols ? "lag" : "across drops",
           d < p.symbols ? p.symbols + d : 0, m, se, want);
    CHECK(fabs(m - want) < 4 * se + 1e-3, "drop lag %d: %.4f, expected %.4f (se %.4f)", d, m, want, se);
  }
  free(H);
}

static void test_refusals(void) {
  char err[256] = "";
  link_params p = lt_params(2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 10.0);
  CHECK(lt_finish(&p) == 0, "point");
  p.doppler_hz = 100.0;
  CHECK(link_params_check(&p, err, sizeof err) != 0 && strstr(err, "independent"),
        "doppler on independent draws accepted: %s", err);
  link_params a = lt_params(2, 2, 2, EQ_MMSE, CH_AWGN, 10.0);
  CHECK(lt_finish(&a) == 0, "awgn point");
  a.doppler_hz = 100.0;
  CHECK(link_params_check(&a, err, sizeof err) != 0, "doppler on awgn accepted");
  link_params b = lt_params(2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 10.0);
  b.fading = FADING_BLOCK;
  CHECK(lt_finish(&b) == 0, "block point");
  link_params c = b;
  c.doppler_hz = 100.0;
  CHECK(link_stream_key(&b) != link_stream_key(&c), "doppler does not change the stream key");
}

int main(void) {
  check_autocorrelation(0.0);
  check_autocorrelation(3.0);
  check_drops();
  test_refusals();
  return test_finish("test_flat_doppler");
}
