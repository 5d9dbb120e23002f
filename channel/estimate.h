/* Channel estimation from the pilots (estimation = "ls"), shared by both
 * backends: the per-point tables (host, double precision) and the per-element
 * steps both backends run on them (included by .c and .cu files).
 *
 * 1. LS at the pilots. Antenna t's pilot on subcarrier k_i = t + i P of a
 *    pilot symbol is 1 + 0j, and no other antenna sends there, so the LS
 *    estimate of link (r, t) is the received y_r on that RE: h_i + n_i,
 *    error CN(0, N0) (N0 / |pilot|^2 with |pilot| = 1).
 * 2. Frequency interpolation on each pilot symbol, one weighted sum over
 *    `taps` consecutive pilots of antenna t per subcarrier,
 *    Hp(k) = sum_i w[t][k][i] h_ls((first[t][k] + i) mod np). Consecutive
 *    means in frequency order, the band -fs/2 .. fs/2 as the channel places
 *    the subcarriers (channel/tdl_grid.h): the window may run from the last
 *    pilot to pilot 0 (across DC) but never across the band edge between
 *    K/2 - 1 and K/2, where the response of continuous delays jumps:
 *      nearest  the nearest pilot (1 weight);
 *      linear   the two pilots around k; beyond the band's first or last
 *               pilot, the line through the two nearest extrapolated
 *               (2 weights);
 *      lmmse    the EST_LMMSE_TAPS nearest pilots, w = the LMMSE filter of
 *               the channel's frequency correlation (the profile's taps
 *               through their response as the chain applies them, tdl_grid;
 *               flat for awgn) and the pilots' noise N0.
 * 3. Time interpolation: linear between the two pilot symbols around a
 *    symbol, the nearest one's value held before the first and after the
 *    last (and everywhere with one pilot symbol).
 * 4. The receiver's channel and its error variance, from the chain's own
 *    model of the channel: the profile's frequency correlation (as LMMSE's)
 *    and, under Doppler, the fading's time correlation between the symbols
 *    (channel/fading_corr.h). For every interpolation the estimate is
 *    scaled by one factor per point, the LMMSE one (est_shrink: E[H Hhat*] /
 *    E|Hhat|^2 over the data REs), and the receiver is told the resulting
 *    mean error E|H - shrink Hhat|^2 (est_error_var): the pilots' noise
 *    through the weights, the frequency interpolation's error on the
 *    profile, and the time interpolation's under Doppler, exactly for the
 *    chain's model (estimate.c, time_weights). Every detector and the LLRs
 *    count tx est_error_var as noise (core/params.h, link_receiver_n0).
 * lmmse2d replaces steps 2 and 3 by one filter in time and frequency
 * (estimate_2d.c): the 2-D Wiener filter over antenna t's EST_LMMSE_TAPS
 * pilots nearest k on each of the EST_LMMSE2D_SYMS pilot symbols around s
 * (fewer where the frame has fewer), with the chain's correlation, the
 * profile's in frequency times the Doppler's in time (J0 windowed by the
 * symbol, channel/fading_corr.h), and the pilots' noise: the conditional
 * mean of H given the window, so the scaling is 1 and est_error_var its
 * mean square error over the data REs, exactly for the chain's model. Its
 * weights depend on the symbol as well: w is [tx][S][K][tt][taps] and
 * sym_lo[s] the window's first pilot symbol (est_2d).
 * With NR DMRS (core/dmrs.h) step 1 is the receiver's despreading: port
 * t's LS estimate at OCC block i of occasion j (its 2 subcarriers by len
 * symbols, L = 2 len REs) is sum conj(a_t) y / (L beta^2), which holds the
 * port's channel averaged over the block, the other ports of its CDM group
 * cancelled exactly where their channels are constant over it, and noise
 * N0 / (L beta^2). These "virtual pilots" sit at the block's centre, in NR
 * order (band bottom to top: never across the band edge); steps 2-4 run on
 * them as on the comb's pilots, with occasions for pilot symbols (their
 * time the block's centre), the correlations averaged over the blocks' REs,
 * and the other ports' residue where the channel varies over a block (its
 * power from the same model) added to the noise. Time interpolation may
 * hold the nearest pilot symbol's estimate instead (time_interpolation).
 * The ICI of a time-domain chain under Doppler is outside the chain's model:
 * a documented estimate of its power on the pilots joins their noise
 * (estimate.c, pilot_noise: tx (1 - rho(0)), the power the symbols'
 * window-averaged channels lose). */
#ifndef OFDMSIM_ESTIMATE_H
#define OFDMSIM_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

#define EST_LMMSE_TAPS 16 /* pilots an LMMSE estimate of a subcarrier uses: the nearest */
#define EST_LMMSE2D_SYMS 4 /* lmmse2d: pilot symbols (DMRS occasions) its window spans */

typedef struct est_plan {
  pilot_grid pg;    /* with DMRS its dm.seq is seq below */
  int K, tx, taps;  /* weights per (antenna, subcarrier): pilots in frequency */
  int tt;           /* lmmse2d: pilot symbols of a window (0: steps 2 and 3 apart) */
  int pilot_syms;   /* pilot symbols of a frame */
  int *first;       /* [tx][K]: antenna t's pilot (index i of k_i) the weights start at */
  cf32 *w;          /* [tx][K][taps]; lmmse2d [tx][S][K][tt][taps] */
  int *sym_lo;      /* [S]: the pilot symbol (index j) below symbol s (or the nearest);
                       lmmse2d: the first of its window */
  float *sym_w;     /* [S]: its weight; 1 - sym_w goes to pilot symbol sym_lo + 1 (lmmse2d: 1) */
  double error_var; /* as link_params.est_error_var */
  double shrink;    /* as link_params.est_shrink */
  int np;           /* DMRS: OCC blocks (virtual pilots) of a port per occasion */
  uint32_t *seq;    /* DMRS: the sequence table (core/dmrs.h) */
} est_plan;

/* A backend's scratch of one (frame, link), complex elements: the pilot
 * symbols' estimates [pilot_syms][K], then with DMRS the LS estimates
 * [pilot_syms][np]. */
static inline size_t est_scratch_elems(const est_plan *e) {
  return (size_t)e->pilot_syms * ((size_t)e->K + (size_t)e->np);
}

/* The tables of p (estimation ls; p->pdp resolved). 0, or -1 with a message
 * (not ls, no memory); *e is zeroed first and owns its arrays. */
int est_plan_make(const link_params *p, est_plan *e, char *err, size_t errlen);
void est_plan_free(est_plan *e);

/* Sets p->est_error_var and p->est_shrink from its plan (0 and 1 when the
 * CSI is perfect). 0, or -1 with a message. */
int est_resolve(link_params *p, char *err, size_t errlen);

/* A backend's check that p was resolved: its numbers equal the plan's. */
int est_plan_matches(const est_plan *e, const link_params *p, char *err, size_t errlen);

/* ---- per element, both backends ------------------------------------------ */

/* Step 2 on one subcarrier k of one pilot symbol for link (r, t): y_row is
 * antenna r's received pilot symbol, subcarrier k at y_row[k * ystride];
 * est_freq_at with the weights of (t, k) at wk[0], wk[wstep], ...: the GPU keeps
 * them transposed, [tx][taps][K] (wstep K), so that a warp's threads,
 * consecutive k, read consecutive words (with [tx][K][taps] each of LMMSE's
 * 16 weight loads touched 32 lines a warp). The same sum in the same order. */
OFDM_HD cf32 est_freq_at(const int *first, const cf32 *wk, size_t wstep, int taps, int P, int K, int t, int k,
                         const cf32 *y_row, size_t ystride) {
  const size_t at = (size_t)t * (size_t)K + (size_t)k;
  const int i0 = first[at], np = (K - 1 - t) / P + 1;
  cf32 acc = cf_make(0.0f, 0.0f);
  for (int i = 0; i < taps; i++) {
    const int ip = i0 + i < np ? i0 + i : i0 + i - np; /* a window across DC wraps to pilot 0 */
    const size_t kp = (size_t)(t + ip * P);
    acc = cf_fma_exact(acc, wk[(size_t)i * wstep], y_row[kp * ystride]);
  }
  return acc;
}

/* est_freq_at with est_plan's weights, [tx][K][taps]. */
OFDM_HD cf32 est_freq(const int *first, const cf32 *w, int taps, int P, int K, int t, int k, const cf32 *y_row,
                      size_t ystride) {
  const size_t at = (size_t)t * (size_t)K + (size_t)k;
  return est_freq_at(first, w + at * (size_t)taps, 1, taps, P, K, t, k, y_row, ystride);
}

/* DMRS step 1: port t's LS estimate at OCC block i of occasion j, from
 * antenna r's received rows yf: the frame's ([S][K], row s the symbol s;
 * compact 0) or its DMRS symbols' alone ([occasions * len][K], row j len +
 * l'; compact 1); g's sequence readable there. */
OFDM_HD cf32 est_dmrs_ls_rows(const pilot_grid *g, int t, int j, int i, const cf32 *yf, int compact) {
  const dmrs_grid *d = &g->dm;
  const int delta = dmrs_port_delta(d->type, t);
  cf32 acc = cf_make(0.0f, 0.0f);
  for (int lp = 0; lp < d->len; lp++) {
    const int s = compact ? j * d->len + lp : d->occ[j] + lp;
    for (int kp = 0; kp < 2; kp++) {
      const int knr = d->type == 1 ? 4 * i + 2 * kp + delta : 6 * i + kp + delta;
      const cf32 a = dmrs_value(d, t, j * d->len + lp, knr);
      acc = cf_fma_exact(acc, cf_conj(a), yf[(size_t)s * (size_t)g->K + (size_t)dmrs_re_of_nr(g->K, knr)]);
    }
  }
  return cf_scale(acc, 1.0f / (2.0f * (float)d->len * d->beta * d->beta));
}

/* The same from antenna r's received frame yf ([S][K]). */
OFDM_HD cf32 est_dmrs_ls(const pilot_grid *g, int t, int j, int i, const cf32 *yf) {
  return est_dmrs_ls_rows(g, t, j, i, yf, 0);
}

/* DMRS step 2 on subcarrier k for port t: the weights over the LS
 * estimates ls[0 .. np) of one occasion (a window never wraps). */
OFDM_HD cf32 est_freq_dmrs_at(const int *first, const cf32 *wk, size_t wstep, int K, int taps, int t, int k,
                              const cf32 *ls) {
  const cf32 *l = ls + first[(size_t)t * (size_t)K + (size_t)k];
  cf32 acc = cf_make(0.0f, 0.0f);
  for (int i = 0; i < taps; i++) acc = cf_fma_exact(acc, wk[(size_t)i * wstep], l[i]);
  return acc;
}

/* est_freq_dmrs_at with est_plan's weights, [tx][K][taps]. */
OFDM_HD cf32 est_freq_dmrs(const int *first, const cf32 *w, int taps, int K, int t, int k, const cf32 *ls) {
  const size_t at = (size_t)t * (size_t)K + (size_t)k;
  return est_freq_dmrs_at(first, w + at * (size_t)taps, 1, K, taps, t, k, ls);
}

/* est_2d with the RE's weights of window row j and pilot i at
 * wk[(j taps + i) wstep]: the GPU keeps them transposed, [tx][S][tt][taps][K]
 * (wstep K), so that a warp's threads, consecutive k, read consecutive
 * words (with the plan's [tx][S][K][tt][taps] each of the 64 weight loads
 * touched 32 sectors a warp). The same sum in the same order. */
OFDM_HD cf32 est_2d_at(const int *first, const cf32 *wk, size_t wstep, int taps, int tt, int K, int t, int k,
                       int np, int off, int step, const cf32 *rows, size_t row_stride, float shrink) {
  const int i0 = first[(size_t)t * (size_t)K + (size_t)k];
  cf32 acc = cf_make(0.0f, 0.0f);
  for (int j = 0; j < tt; j++) {
    const cf32 *row = rows + (size_t)j * row_stride;
    for (int i = 0; i < taps; i++) {
      const int ip = i0 + i < np ? i0 + i : i0 + i - np;
      acc = cf_fma_exact(acc, wk[(size_t)(j * taps + i) * wstep], row[off + ip * step]);
    }
  }
  return cf_scale(acc, shrink);
}

/* lmmse2d on RE (s, k) for antenna (port) t: sum_j sum_i w_ji h(j, i),
 * pilot symbol j of the window outer, pilot i inner, then the scaling.
 * rows + j row_stride is the window's pilot symbol j; antenna t's window
 * position i is rows[off + ip step], ip = first + i wrapping at np (the
 * comb: the received row, off t, step P, np its pilots, across DC as
 * est_freq's; DMRS: the LS estimates, off 0, step 1, np the blocks). */
OFDM_HD cf32 est_2d(const int *first, const cf32 *w, int taps, int tt, int S, int K, int t, int s, int k, int np,
                    int off, int step, const cf32 *rows, size_t row_stride, float shrink) {
  const cf32 *wk = w + (((size_t)t * (size_t)S + (size_t)s) * (size_t)K + (size_t)k) * (size_t)(tt * taps);
  return est_2d_at(first, wk, 1, taps, tt, K, t, k, np, off, step, rows, row_stride, shrink);
}

/* Step 3 and 4's scaling on one RE of symbol s: hp_lo and hp_hi are the
 * subcarrier's estimates on pilot symbols sym_lo[s] and sym_lo[s] + 1 (the
 * latter unused when sym_w[s] is 1). */
OFDM_HD cf32 est_time(float w_lo, cf32 hp_lo, cf32 hp_hi, float shrink) {
  cf32 h = cf_scale(hp_lo, w_lo);
  if (w_lo != 1.0f) h = cf_fma_real(h, 1.0f - w_lo, hp_hi);
  return cf_scale(h, shrink);
}

#ifdef __cplusplus
}
#endif
#endif
