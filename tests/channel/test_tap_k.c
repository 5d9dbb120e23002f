/* A custom profile's Rician K per tap (channel.tap_k_db, tdl_pdp_custom_k in
 * channel/tdl.h), against Rice's distribution worked out here:
 *  - the profile: tap i's total power is its share of the given powers, its
 *    LOS part K/(K+1) of it, all of it summing to 1; taps at one delay merge;
 *  - the generated taps, without Doppler (independent frames): per tap the
 *    mean power E|h|^2 equals the configured power, and the moments estimate
 *    of K, |s|^2 = sqrt(2 m2^2 - m4), K = |s|^2 / (m2 - |s|^2), equals the
 *    configured K within 5 standard errors over independent batches of
 *    frames, which are small enough that a K 1 dB off would fail; a tap
 *    without K (-300 dB) has E|h|^4 = 2 (E|h|^2)^2 (Rayleigh);
 *  - with Doppler: the mean power per tap at a time in the frame, and the
 *    LOS part turning at f_d cos(pi/4) with one phase on every tap with a K
 *    (the frame-mean of h over the LOS rotor is sqrt(K/(K+1) P)). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "channel/tdl.h"
#include "core/params.h"
#include "testparams.h"
#include "testutil.h"

static const double kPi = 3.14159265358979323846;

/* Three taps at 0, 1 and 2.5 samples: 0, -3 and -6 dB, K 9, -300 (none)
 * and 3 dB; Doppler fd_T. */
static const double kDelay[3] = {0.0, 1.0, 2.5}, kPower[3] = {0.0, -3.0, -6.0}, kK[3] = {9.0, -300.0, 3.0};

static link_params k_point(double fd_T) {
  link_params p = tp_point(2, 2, 2, CH_TDL, 64, 14, 16);
  p.profile = PDP_CUSTOM;
  p.doppler_hz = fd_T * p.subcarrier_spacing;
  p.seed = 1357;
  char err[256];
  CHECK(!tdl_pdp_custom_k(kDelay, kPower, kK, 3, DELAYS_CONTINUOUS, 63, &p.pdp, err, sizeof err), "%s", err);
  p.delay_spread = tdl_pdp_rms_delay(&p.pdp);
  p.stream_key = link_stream_key(&p);
  CHECK(!link_params_check(&p, err, sizeof err), "%s", err);
  return p;
}

static double share(int i) {
  double total = 0;
  for (int j = 0; j < 3; j++) total += pow(10.0, kPower[j] / 10.0);
  return pow(10.0, kPower[i] / 10.0) / total;
}

static void check_profile(void) {
  link_params p = k_point(0.0);
  double sum = p.pdp.los_power;
  for (int l = 0; l < p.pdp.taps; l++) {
    const double k = pow(10.0, kK[l] / 10.0), P = share(l);
    sum += p.pdp.power[l] + (double)p.pdp.tap_los[l];
    CHECK(fabs(p.pdp.power[l] - P / (k + 1)) < 1e-7 && fabs(p.pdp.tap_los[l] - P * k / (k + 1)) < 1e-7,
          "tap %d: NLOS %g LOS %g, expected %g and %g", l, (double)p.pdp.power[l], (double)p.pdp.tap_los[l],
          P / (k + 1), P * k / (k + 1));
  }
  CHECK(p.pdp.taps == 3 && fabs(sum - 1.0) < 1e-6 && p.pdp.los_power == 0.0f, "%d taps summing to %g",
        p.pdp.taps, sum);
  /* two taps at one delay merge, their LOS and NLOS parts adding */
  const double d[2] = {0.0, 0.0}, w[2] = {0.0, 0.0}, k[2] = {0.0, -300.0};
  tdl_pdp m;
  char err[160];
  CHECK(!tdl_pdp_custom_k(d, w, k, 2, DELAYS_CONTINUOUS, 63, &m, err, sizeof err), "%s", err);
  CHECK(m.taps == 1 && fabs(m.tap_los[0] - 0.25) < 1e-7 && fabs(m.power[0] - 0.75) < 1e-7,
        "merged: %d taps, LOS %g NLOS %g, expected 1, 0.25, 0.75", m.taps, (double)m.tap_los[0],
        (double)m.power[0]);
  const double bad[2] = {0.0, NAN};
  CHECK(tdl_pdp_custom_k(d, w, bad, 2, DELAYS_CONTINUOUS, 63, &m, err, sizeof err) == -1, "a NaN K was taken");
  /* the stream key tells per-tap K apart from none */
  link_params q = p;
  memset(q.pdp.tap_los, 0, sizeof q.pdp.tap_los);
  CHECK(link_stream_key(&q) != p.stream_key, "per-tap K left out of the stream key");
}

/* Rice's moments of tap l over `frames` frames of 2x2 links, in batches. */
static void check_moments(int frames) {
  link_params p = k_point(0.0);
  const chan_spatial s = tp_spatial(&p);
  const int L = p.pdp.taps, links = p.tx * p.rx, batches = 25, per = frames / batches;
  cf32 *taps = malloc(sizeof *taps * (size_t)links * L);
  for (int l = 0; l < L; l++) {
    const double P = share(l), K = pow(10.0, kK[l] / 10.0);
    double khat[25], power[25], ratio[25];
    for (int b = 0; b < batches; b++) {
      double m2 = 0, m4 = 0;
      for (int f = b * per; f < (b + 1) * per; f++) {
        tdl_draw_taps(&p, &s, (uint64_t)f, taps);
        for (int e = 0; e < links; e++) {
          const double a = (double)taps[e * L + l].re * taps[e * L + l].re +
                           (double)taps[e * L + l].im * taps[e * L + l].im;
          m2 += a;
          m4 += a * a;
        }
      }
      m2 /= (double)per * links;
      m4 /= (double)per * links;
      const double los = sqrt(fmax(2 * m2 * m2 - m4, 0.0));
      khat[b] = los / (m2 - los);
      power[b] = m2;
      ratio[b] = m4 / (m2 * m2);
    }
    double mk = 0, vk = 0, mp = 0, vp = 0, mr = 0, vr = 0;
    for (int b = 0; b < batches; b++) mk += khat[b] / batches, mp += power[b] / batches, mr += ratio[b] / batches;
    for (int b = 0; b < batches; b++) {
      vk += (khat[b] - mk) * (khat[b] - mk) / (batches - 1);
      vp += (power[b] - mp) * (power[b] - mp) / (batches - 1);
      vr += (ratio[b] - mr) * (ratio[b] - mr) / (batches - 1);
    }
    const double sk = sqrt(vk / batches), sp = sqrt(vp / batches), sr = sqrt(vr / batches);
    printf("tap %d: power %.4f (se %.4f, expected %.4f); K %.3f (se %.3f, expected %.3f = %.0f dB)\n", l, mp, sp, P,
           mk, sk, K, kK[l]);
    CHECK(fabs(mp - P) <= 5 * sp, "tap %d: mean power %.5f, expected %.5f (se %.5f)", l, mp, P, sp);
    if (K > 1e-6) {
      CHECK(fabs(mk - K) <= 5 * sk, "tap %d: K %.4f, expected %.4f (se %.4f)", l, mk, K, sk);
      /* the power: K 1 dB off lies beyond 5 se */
      CHECK(K * (pow(10.0, 0.1) - 1) > 5 * sk, "tap %d: se %.4f too large to see K 1 dB off", l, sk);
    } else {
      CHECK(fabs(mr - 2.0) <= 5 * sr, "tap %d (no K): E|h|^4 / (E|h|^2)^2 %.4f, expected 2 (se %.4f)", l, mr, sr);
    }
  }
  free(taps);
}

/* With Doppler: per tap the mean power at t, and the LOS part: the mean of
 * h(t) exp(-j 2 pi nu cos(pi/4) t) over frames is sqrt(tap_los) on every
 * link of a tap with K (phase 0 at the frame's start), 0 on a tap without. */
static void check_doppler(int frames) {
  link_params p = k_point(0.05);
  const chan_spatial s = tp_spatial(&p);
  const tdl_fade fd = tdl_fade_of(&p);
  const int L = p.pdp.taps, links = p.tx * p.rx;
  sos_term *sos = malloc(sizeof *sos * tdl_fade_terms(&p));
  const double t = 517.0, f = fd.nu * TDL_LOS_COS;
  double pw[3] = {0}, mr[3] = {0}, mi[3] = {0};
  for (int fr = 0; fr < frames; fr++) {
    tdl_draw_sos(&p, (uint64_t)fr, sos);
    for (int l = 0; l < L; l++) {
      cf32 h[4];
      tdl_fading_taps(fd, &s, sos, l, sqrtf(p.pdp.power[l]), t, 0, h);
      for (int e = 0; e < links; e++) {
        pw[l] += (double)h[e].re * h[e].re + (double)h[e].im * h[e].im;
        /* h times the conjugate LOS rotor */
        const double c = cos(2 * kPi * f * t), sn = sin(2 * kPi * f * t);
        mr[l] += h[e].re * c + h[e].im * sn;
        mi[l] += h[e].im * c - h[e].re * sn;
      }
    }
  }
  const double n = (double)frames * links;
  for (int l = 0; l < L; l++) {
    const double P = share(l), los = sqrt((double)p.pdp.tap_los[l]);
    /* se of the mean power: the NLOS part's spread (Rayleigh: its power),
     * plus the cross term with the LOS; generous by using P for both */
    const double se_p = 2.0 * P / sqrt(n), se_m = sqrt(p.pdp.power[l] / 2.0 / n);
    printf("doppler, tap %d: power %.4f (expected %.4f), LOS part %.4f%+.4fj (expected %.4f)\n", l, pw[l] / n, P,
           mr[l] / n, mi[l] / n, los);
    CHECK(fabs(pw[l] / n - P) <= 5 * se_p, "tap %d: power %.5f, expected %.5f", l, pw[l] / n, P);
    CHECK(fabs(mr[l] / n - los) <= 5 * se_m && fabs(mi[l] / n) <= 5 * se_m, "tap %d: LOS part %.4f%+.4fj, expected %.4f",
          l, mr[l] / n, mi[l] / n, los);
  }
  free(sos);
}

int main(void) {
  check_profile();
  check_moments((int)test_scaled(20000, 2500));
  check_doppler((int)test_scaled(4000, 400));
  return test_finish("test_tap_k");
}
