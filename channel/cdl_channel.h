/* The CDL channel of TR 38.901 7.7.1 at every RE, written once for both
 * backends (included by .c and .cu files), and its per-point set-up
 * (channel/cdl_channel.c).
 *
 * A cdl point is a tdl point whose taps are the model's clusters (delays
 * scaled by the delay spread, channel/cdl_rays.h), so the response per
 * subcarrier, the time-domain taps and the estimators' tables are tdl's
 * (channel/tdl_grid.h). What differs is how a frame's taps come about: tap n
 * of the link from transmit element s to receive element u is the sum of the
 * cluster's rays m (20, or one for the LOS path of CDL-D/E), 7.5-22/7.5-28:
 *
 *   a_{u,s,n,m} = sqrt(P_n / M_n) [F_rx,u,theta F_rx,u,phi](ZoA, AoA)
 *                 [ e^{j Phi_tt}            sqrt(1/kappa) e^{j Phi_tp} ]
 *                 [ sqrt(1/kappa) e^{j Phi_pt}   e^{j Phi_pp}          ]
 *                 [F_tx,s,theta F_tx,s,phi]^T(ZoD, AoD)
 *                 exp(j 2 pi rhat_rx . d_u) exp(j 2 pi rhat_tx . d_s),
 *   h_{u,s,n}(t) = sum_m a_{u,s,n,m} exp(j 2 pi nu_{n,m} t),
 *   nu_{n,m} = f_d rhat_rx,n,m . vhat   (cycles per sample),
 *
 * with kappa the table's XPR, the four initial phases Phi uniform per ray
 * and frame, and the AoD, ZoD and ZoA of ray m chosen by random couplings
 * (permutations of the cluster's 20 ray offsets against the AoA's, 7.7.1
 * step 2), all from RNG_CDL. The LOS ray has the polarisation matrix
 * diag(1, -1) and no random phase. Fields: the element's power pattern
 * A'(theta', phi') (isotropic: 1, or Table 7.3-1) at the direction in the
 * panel's own coordinates (7.1-7, 7.1-8 with slant 0), polarised at slant
 * zeta (7.3-4, 7.3-5) and turned into global coordinates by psi (7.1-15).
 *
 * The per-frame draws (cdl_ray_terms) give each (cluster, ray) its Doppler
 * frequency and each link its complex amplitude; a tap at time t, or its
 * average over a symbol's FFT window, is cdl_tap (the rotors and Dirichlet
 * factors of channel/tdl_fading.h). Frames are independent realisations,
 * or with drops (channel/tdl_fading.h) a drop's frames share its draws and
 * each ray's amplitude carries the phase exp(j 2 pi nu_{n,m} t0) it has
 * turned through by the frame's start t0 in the drop, so a ray runs on
 * across the drop's frames (the LOS ray too, phase fixed at the drop's
 * start). */
#ifndef OFDMSIM_CDL_CHANNEL_H
#define OFDMSIM_CDL_CHANNEL_H

#include <math.h>
#include <stddef.h>

#include "channel/cdl_rays.h"
#include "channel/tdl_fading.h"
#include "core/params.h"
#include "core/re.h"

#define CDL_MAX_ELEMENTS LINK_MAX_RX
/* RNG_CDL, per frame: draws n*CDL_DRAWS + j of cluster n. Draws 0..14 hold
 * the couplings' 60 words (AoD: words 0..19, ZoD 20..39, ZoA 40..59, word w
 * in draw w/4, slot w%4); draw 15 + m the four phases of ray m (Phi_tt,
 * Phi_tp, Phi_pt, Phi_pp as uniforms in turns). */
#define CDL_COUPLING_DRAWS 15
#define CDL_DRAWS (CDL_COUPLING_DRAWS + CDL_RAYS)

/* One end of the link: its elements and the panel's orientation. */
typedef struct cdl_end {
  int n;                                /* elements */
  int pattern;                          /* panel_pattern */
  double bearing, sin_tilt, cos_tilt;   /* radians; sin/cos of the downtilt */
  double pos[CDL_MAX_ELEMENTS][3];      /* wavelengths, global coordinates */
  double slant[CDL_MAX_ELEMENTS];       /* polarisation slant zeta, radians */
} cdl_end;

/* What a point's rays need, by value and free of pointers (the GPU keeps
 * one in device memory). */
typedef struct cdl_geom {
  int L;                 /* clusters (the point's taps) */
  int los;               /* 1: cluster 0 is the single LOS ray */
  double xpr_amp;        /* sqrt(1 / kappa) */
  double nu;             /* maximum Doppler shift, cycles per sample */
  tdl_fade fade;         /* its drops (tdl_drop_frame, tdl_drop_time) */
  double v[3];           /* unit vector of the direction of travel */
  double amp[CDL_MAX_CLUSTERS];                  /* sqrt(P_n / M_n) */
  double aod[CDL_MAX_CLUSTERS], aoa[CDL_MAX_CLUSTERS]; /* cluster centres, degrees */
  double zod[CDL_MAX_CLUSTERS], zoa[CDL_MAX_CLUSTERS];
  double c_asd, c_asa, c_zsd, c_zsa; /* degrees per unit ray offset */
  double offset[CDL_RAYS];           /* Table 7.5-3 */
  cdl_end tx, rx;
} cdl_geom;

/* Floats of one frame's terms: freq[L][CDL_RAYS], then amp[links][L][CDL_RAYS]
 * as complex (re, im) pairs. */
OFDM_HD size_t cdl_terms_floats(int L, int links) { return (size_t)L * CDL_RAYS * (1 + 2 * (size_t)links); }
OFDM_HD cf32 *cdl_terms_amp(float *terms, int L) { return (cf32 *)(terms + (size_t)L * CDL_RAYS); }
OFDM_HD const cf32 *cdl_terms_amp_c(const float *terms, int L) { return (const cf32 *)(terms + (size_t)L * CDL_RAYS); }

#define CDL_PI 3.14159265358979323846
#define CDL_DEG (CDL_PI / 180.0)

/* Table 7.3-1's power pattern, linear: 8 dBi less the vertical and
 * horizontal attenuations (12 (x/65)^2 each, capped at 30 dB, the sum too). */
OFDM_HD double cdl_pattern_power(int pattern, double theta_deg, double phi_deg) {
  if (pattern == PANEL_ISOTROPIC) return 1.0;
  const double tv = (theta_deg - 90.0) / 65.0, th = phi_deg / 65.0;
  const double av = fmin(12.0 * tv * tv, 30.0), ah = fmin(12.0 * th * th, 30.0);
  return pow(10.0, (8.0 - fmin(av + ah, 30.0)) / 10.0);
}

/* The field of every element of `end` towards zenith theta, azimuth phi
 * (global, degrees): f_theta[k], f_phi[k], and the plane-wave phase of
 * element k, exp(j 2 pi rhat . d_k), in steer[k]. */
OFDM_HD void cdl_end_field(const cdl_end *end, double theta_deg, double phi_deg, double *f_theta, double *f_phi,
                           cf32 *steer) {
  const double th = theta_deg * CDL_DEG, ph = phi_deg * CDL_DEG;
  const double st = sin(th), ct = cos(th);
  const double d = ph - end->bearing, cd = cos(d), sd = sin(d);
  const double sb = end->sin_tilt, cb = end->cos_tilt;
  /* 7.1-7, 7.1-8 and 7.1-15 with slant angle gamma = 0 */
  double cl = cb * ct + sb * cd * st;
  cl = cl > 1.0 ? 1.0 : cl < -1.0 ? -1.0 : cl;
  const double theta_l = acos(cl) / CDL_DEG;
  const double phi_l = atan2(sd * st, cb * st * cd - sb * ct) / CDL_DEG;
  const double psi = atan2(sb * sd, cb * st - sb * ct * cd);
  const double g = sqrt(cdl_pattern_power(end->pattern, theta_l, phi_l));
  const double r[3] = {st * cos(ph), st * sin(ph), ct};
  for (int k = 0; k < end->n; k++) {
    /* 7.3-4/7.3-5 in the panel's coordinates, turned by psi: the field of
     * slant zeta is at angle psi + zeta */
    f_theta[k] = g * cos(psi + end->slant[k]);
    f_phi[k] = g * sin(psi + end->slant[k]);
    double turns = r[0] * end->pos[k][0] + r[1] * end->pos[k][1] + r[2] * end->pos[k][2];
    turns -= floor(turns + 0.5);
    steer[k] = cf_make((float)cos(2.0 * CDL_PI * turns), (float)sin(2.0 * CDL_PI * turns));
  }
}

/* A zenith angle folded into [0, 180] (7.5 step 7's reflection). */
OFDM_HD double cdl_fold_zenith(double z) {
  z = fmod(z, 360.0);
  if (z < 0.0) z += 360.0;
  return z > 180.0 ? 360.0 - z : z;
}

/* The random coupling `which` (0: AoD, 1: ZoD, 2: ZoA) of cluster n: the
 * ray offset index ray m takes, a Fisher-Yates shuffle of 0..19 driven by
 * words which*20 + 19 .. which*20 + 1 (word i picks among i + 1). */
OFDM_HD int cdl_coupling(re_ctx c, uint64_t frame, int n, int which, int m) {
  int idx[CDL_RAYS];
  for (int i = 0; i < CDL_RAYS; i++) idx[i] = i;
  for (int i = CDL_RAYS - 1; i > 0; i--) {
    const int w = which * CDL_RAYS + i;
    const rng_words d = re_draw(c, RNG_CDL, frame, (uint64_t)n * CDL_DRAWS + (uint64_t)(w / 4));
    const int j = (int)(((uint64_t)d.w[w % 4] * (uint64_t)(i + 1)) >> 32);
    const int t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
  }
  return idx[m];
}

/* Ray m of cluster n in `frame`: its Doppler frequency (*freq) and its
 * amplitude on every link e = u*tx + s, amp[e * stride], drawn for the
 * frame's drop and turned to the frame's start in it. A ray the cluster
 * does not have (m > 0 of the LOS path) is zero. */
OFDM_HD void cdl_ray_terms(const cdl_geom *g, re_ctx c, uint64_t at_frame, int n, int m, float *freq, cf32 *amp,
                           size_t stride) {
  const uint64_t frame = tdl_drop_frame(g->fade, at_frame);
  const double t0 = tdl_drop_time(g->fade, at_frame);
  const int nt = g->tx.n, nr = g->rx.n;
  const int los = g->los && n == 0;
  if (los && m > 0) {
    *freq = 0.0f;
    for (int e = 0; e < nt * nr; e++) amp[(size_t)e * stride] = cf_make(0.0f, 0.0f);
    return;
  }
  double aoa = g->aoa[n], zoa = g->zoa[n], aod = g->aod[n], zod = g->zod[n];
  double mr[2][2][2]; /* the polarisation matrix, [row][col][re/im] */
  if (los) {
    mr[0][0][0] = 1.0, mr[0][0][1] = 0.0, mr[0][1][0] = mr[0][1][1] = 0.0;
    mr[1][0][0] = mr[1][0][1] = 0.0, mr[1][1][0] = -1.0, mr[1][1][1] = 0.0;
  } else {
    aoa += g->c_asa * g->offset[m];
    aod += g->c_asd * g->offset[cdl_coupling(c, frame, n, 0, m)];
    zod += g->c_zsd * g->offset[cdl_coupling(c, frame, n, 1, m)];
    zoa += g->c_zsa * g->offset[cdl_coupling(c, frame, n, 2, m)];
    const rng_words d = re_draw(c, RNG_CDL, frame, (uint64_t)n * CDL_DRAWS + CDL_COUPLING_DRAWS + (uint64_t)m);
    for (int q = 0; q < 4; q++) {
      const double a = (q == 1 || q == 2) ? g->xpr_amp : 1.0, p = 2.0 * CDL_PI * (double)rng_u01(d.w[q]);
      mr[q / 2][q % 2][0] = a * cos(p);
      mr[q / 2][q % 2][1] = a * sin(p);
    }
  }
  zoa = cdl_fold_zenith(zoa);
  zod = cdl_fold_zenith(zod);
  double rt[CDL_MAX_ELEMENTS], rp[CDL_MAX_ELEMENTS], tt[CDL_MAX_ELEMENTS], tp[CDL_MAX_ELEMENTS];
  cf32 sr[CDL_MAX_ELEMENTS], stx[CDL_MAX_ELEMENTS];
  cdl_end_field(&g->rx, zoa, aoa, rt, rp, sr);
  cdl_end_field(&g->tx, zod, aod, tt, tp, stx);
  const double st = sin(zoa * CDL_DEG);
  const double r[3] = {st * cos(aoa * CDL_DEG), st * sin(aoa * CDL_DEG), cos(zoa * CDL_DEG)};
  *freq = (float)(g->nu * (r[0] * g->v[0] + r[1] * g->v[1] + r[2] * g->v[2]));
  const double A = g->amp[n];
  for (int u = 0; u < nr; u++) {
    /* [F_theta F_phi] of receive element u times the polarisation matrix */
    const double x0r = rt[u] * mr[0][0][0] + rp[u] * mr[1][0][0], x0i = rt[u] * mr[0][0][1] + rp[u] * mr[1][0][1];
    const double x1r = rt[u] * mr[0][1][0] + rp[u] * mr[1][1][0], x1i = rt[u] * mr[0][1][1] + rp[u] * mr[1][1][1];
    for (int s = 0; s < nt; s++) {
      const double pr = (x0r * tt[s] + x1r * tp[s]) * A, pi = (x0i * tt[s] + x1i * tp[s]) * A;
      /* the two plane-wave phases */
      const double wr = (double)sr[u].re * stx[s].re - (double)sr[u].im * stx[s].im;
      const double wi = (double)sr[u].re * stx[s].im + (double)sr[u].im * stx[s].re;
      amp[(size_t)(u * nt + s) * stride] = cf_make((float)(pr * wr - pi * wi), (float)(pr * wi + pi * wr));
    }
  }
  if (t0 != 0.0) {
    const cf32 turn = tdl_rotor(*freq, 0.0f, t0);
    for (int e = 0; e < nt * nr; e++)
      amp[(size_t)e * stride] = cf_fma_exact(cf_make(0.0f, 0.0f), amp[(size_t)e * stride], turn);
  }
}

/* Tap n of one link at time t (samples from the frame's start), or its
 * average over the `window` samples centred on t (window = K; 0: the value
 * at t): freq, the cluster's CDL_RAYS frequencies, amp the link's amplitudes
 * of them. */
OFDM_HD cf32 cdl_tap(const float *freq, const cf32 *amp, double t, int window) {
  float re = 0.0f, im = 0.0f;
  for (int m = 0; m < CDL_RAYS; m++) {
    cf32 z = tdl_rotor(freq[m], 0.0f, t);
    if (window) z = cf_scale(z, tdl_dirichlet(freq[m], window));
    z = cf_mul(z, amp[m]);
    re += z.re;
    im += z.im;
  }
  return cf_make(re, im);
}

/* Every link's tap n at time t (window as cdl_tap) from one frame's terms:
 * h[e] for e < links. */
OFDM_HD void cdl_taps_at(const float *terms, int L, int links, int n, double t, int window, cf32 *h) {
  const cf32 *amp = cdl_terms_amp_c(terms, L);
  for (int e = 0; e < links; e++)
    h[e] = cdl_tap(terms + (size_t)n * CDL_RAYS, amp + ((size_t)e * L + n) * CDL_RAYS, t, window);
}

/* cdl_taps_at on the segment centred at tc as cubics in tau = t - tc
 * (channel/tap_poly.h): c[e * TAP_POLY_COEFS + k] for link e, each ray's
 * Taylor coefficients about tc. */
OFDM_HD void cdl_poly_taps(const float *terms, int L, int links, int n, double tc, cf32 *c) {
  const cf32 *amp = cdl_terms_amp_c(terms, L);
  const float *freq = terms + (size_t)n * CDL_RAYS;
  for (int e = 0; e < links; e++) {
    cf32 *ce = c + (size_t)e * TAP_POLY_COEFS;
    const cf32 *a = amp + ((size_t)e * L + n) * CDL_RAYS;
    tap_poly_zero(ce);
    for (int m = 0; m < CDL_RAYS; m++)
      tap_poly_add(ce, cf_fma_exact(cf_make(0.0f, 0.0f), tdl_rotor(freq[m], 0.0f, tc), a[m]), freq[m]);
  }
}

#ifdef __cplusplus
extern "C" {
#endif

/* The clusters of a CDL model as a tdl profile: delays (samples) the table's
 * times delay_spread, powers the table's with unit total; k_factor (linear)
 * NAN keeps CDL-D/E's own LOS power, else sets the LOS cluster's power to K
 * times the other clusters' (7.7.6's K scaling, delays kept); CDL-A..C
 * ignore it (link_params_check refuses one). los_power 0 (the LOS is cluster 0's ray). 0, or -1 with
 * a message when the last cluster lies beyond max_delay samples. */
int cdl_pdp_make(pdp_kind kind, double delay_spread, double k_factor, double max_delay, tdl_pdp *out, char *err,
                 size_t errlen);

/* The point's geometry (p->pdp resolved by cdl_pdp_make): arrays, angle
 * scaling, Doppler. 0, or -1 with a message (array sizes beyond the link's). */
int cdl_geom_make(const link_params *p, cdl_geom *g, char *err, size_t errlen);

/* The rms angle spread (degrees) of a set of rays with powers w (7.7.5.1's
 * AS_model: Annex A.1's circular spread about the power-weighted mean). */
double cdl_rms_spread(const double *angles, const double *w, int n);

/* One frame's terms (cdl_terms_floats(L, links) floats) for point p. */
void cdl_draw_terms(const link_params *p, const cdl_geom *g, uint64_t frame, float *terms);

#ifdef __cplusplus
}
#endif
#endif
