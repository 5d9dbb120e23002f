/* The per-point tables of channel estimation (estimate.h), in double. */
#include "channel/estimate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel/estimate_2d.h"
#include "channel/estimate_model.h"
#include "channel/fading_corr.h"

void est_plan_free(est_plan *e) {
  if (!e) return;
  free(e->first);
  free(e->w);
  free(e->sym_lo);
  free(e->sym_w);
  free(e->seq);
  memset(e, 0, sizeof *e);
}


/* The weights of a subcarrier at frequency kc for nearest and linear over
 * the np pilots at frequencies pos[] (ascending): *first is the window's
 * position j. Nearest takes the closest pilot (a tie goes to the higher
 * one); linear the two around kc, and beyond the first or the last pilot
 * the line through the two nearest, extrapolated (an end pilot's value held
 * would be off by the channel's slope times the distance). */
static void simple_weights(interp_kind kind, int taps, int np, const double *pos, double kc, int *first, cd *w) {
  int j = 0; /* the last pilot at or below kc, or 0 */
  while (j + 1 < np && pos[j + 1] <= kc) j++;
  if (kind == INTERP_NEAREST || taps == 1) {
    *first = j + 1 < np && pos[j + 1] - kc <= kc - pos[j] ? j + 1 : j;
    w[0] = 1.0;
    return;
  }
  j = j > np - 2 ? np - 2 : j;
  const double x = (kc - pos[j]) / (pos[j + 1] - pos[j]);
  *first = j, w[0] = 1.0 - x, w[1] = x;
}


/* What the error model needs of one subcarrier's frequency weights w over
 * the pilots h_i of its window, per part (n: Rayleigh, l: LOS; the chain's
 * correlations on one symbol, estm_corr_parts): x = sum_i conj(w_i) E[H_k conj(h_i)]
 * (the estimate's correlation with the channel), f = sum_ii' w_i conj(w_i')
 * E[h_i conj(h_i')] (its power without noise), r = E|H_k|^2, and
 * nz = sum |w_i|^2 (the noise's gain). */
typedef struct freq_stats {
  cd xn, xl;
  double fn, fl, rn, rl, nz;
  double qn[LEAK_PATTERNS], ql[LEAK_PATTERNS]; /* DMRS: the other ports' residue, as fn, fl */
} freq_stats;

/* Antenna t's weights on every subcarrier and their freq_stats. Windows are
 * positions in frequency order (estm_freq_order), stored as pilot indices. The
 * pilots' correlations of a window (Hermitian, per part) are kept while
 * consecutive subcarriers share it, and shifted when it moves by d < T. */
static int antenna_weights(const link_params *p, const tdl_grid *g, est_plan *e, int t, freq_stats *st,
                           double n0) {
  const int dm = e->pg.kind == PILOT_DMRS;
  const int K = e->K, T = e->taps, np = dm ? e->np : pilot_count(&e->pg, t);
  enum { TT = EST_LMMSE_TAPS * EST_LMMSE_TAPS };
  cd Rn[TT], Rl[TT], A[TT], Ai[TT], w[EST_LMMSE_TAPS], cn[EST_LMMSE_TAPS], cl[EST_LMMSE_TAPS];
  cd Qn[LEAK_PATTERNS][TT], Ql[LEAK_PATTERNS][TT]; /* DMRS: the residue's frequency parts */
  double qt_n[LEAK_PATTERNS], qt_l[LEAK_PATTERNS]; /* ... and its time parts on one occasion */
  int cnt[LEAK_PATTERNS];
  estm_leak_counts(e, t, cnt);
  for (int q = 0; q < LEAK_PATTERNS; q++)
    if (cnt[q]) estm_leak_time(p, e->pg.dm.len, q, 0, 0, &qt_n[q], &qt_l[q]);
  double *pos = malloc(sizeof(double) * (size_t)np);
  if (!pos) return -1;
  pilot_geo geo;
  estm_geo_make(e, p, t, &geo, pos);
  const int start = geo.start;
  int window = -1, rc = 0; /* the window Rn, Rl (and Ai) were made for */
  for (int k = 0; k < K; k++) {
    const size_t at = (size_t)t * K + k;
    const double kc = 2 * k < K ? k : k - K;
    int f;
    if (p->interpolation != INTERP_LMMSE) {
      simple_weights(p->interpolation, T, np, pos, kc, &f, w);
    } else {
      f = estm_lmmse_window(np, pos, kc, T);
    }
    if (f != window) {
      const int d = f - window, keep = window >= 0 && d > 0 && d < T ? T - d : 0;
      for (int i = 0; i < keep; i++)
        for (int j = i; j < keep; j++) Rn[i * T + j] = Rn[(i + d) * T + j + d], Rl[i * T + j] = Rl[(i + d) * T + j + d];
      for (int i = 0; i < T; i++)
        for (int j = i < keep ? keep : i; j < T; j++)
          estm_corr_pp(p, g, &geo, f + i, f + j, &Rn[i * T + j], &Rl[i * T + j]);
      for (int i = 0; i < T; i++)
        for (int j = 0; j < i; j++) Rn[i * T + j] = conj(Rn[j * T + i]), Rl[i * T + j] = conj(Rl[j * T + i]);
      for (int q = 0; q < LEAK_PATTERNS; q++)
        for (int i = 0; i < T && cnt[q]; i++)
          for (int j = 0; j < T; j++) estm_leak_corr(p, g, &geo, q, f + i, f + j, &Qn[q][i * T + j], &Ql[q][i * T + j]);
      if (p->interpolation == INTERP_LMMSE) {
        for (int i = 0; i < T * T; i++) A[i] = Rn[i] + Rl[i] + (i % (T + 1) == 0 ? n0 : 0.0);
        for (int q = 0; q < LEAK_PATTERNS; q++)
          for (int i = 0; i < T * T && cnt[q]; i++) A[i] += cnt[q] * (Qn[q][i] * qt_n[q] + Ql[q][i] * qt_l[q]);
        if (estm_invert(T, A, Ai)) {
          rc = -1;
          break;
        }
      }
      window = f;
    }
    for (int j = 0; j < T; j++) estm_corr_kp(p, g, &geo, k, f + j, &cn[j], &cl[j]);
    if (p->interpolation == INTERP_LMMSE)
      /* orthogonality: c_j = sum_i w_i A_ij, so w = A^-T c */
      for (int i = 0; i < T; i++) {
        w[i] = 0.0;
        for (int j = 0; j < T; j++) w[i] += Ai[j * T + i] * (cn[j] + cl[j]);
      }
    e->first[at] = (f + start) % np;
    freq_stats s = {0};
    cd rkn, rkl;
    estm_corr_parts(p, g, k, k, &rkn, &rkl);
    s.rn = creal(rkn), s.rl = creal(rkl);
    for (int i = 0; i < T; i++) {
      e->w[at * T + i] = cf_make((float)creal(w[i]), (float)cimag(w[i]));
      s.nz += creal(w[i] * conj(w[i]));
      s.xn += conj(w[i]) * cn[i], s.xl += conj(w[i]) * cl[i];
      for (int j = 0; j < T; j++) {
        s.fn += creal(w[i] * conj(w[j]) * Rn[i * T + j]);
        s.fl += creal(w[i] * conj(w[j]) * Rl[i * T + j]);
        for (int q = 0; q < LEAK_PATTERNS; q++)
          if (cnt[q]) {
            s.qn[q] += cnt[q] * creal(w[i] * conj(w[j]) * Qn[q][i * T + j]);
            s.ql[q] += cnt[q] * creal(w[i] * conj(w[j]) * Ql[q][i * T + j]);
          }
      }
    }
    st[at] = s;
  }
  free(pos);
  return rc;
}

/* Step 3's weights, then the error of the receiver's channel. For an RE
 * of symbol s the estimate before scaling is Hhat = sum_j a_j Hp(k, s_j)
 * over the pilot symbols j around it (a_j: sym_w and 1 - sym_w); with the
 * chain's correlations separable per part (frequency: estm_corr_parts; time:
 * rho of the symbols' lag, channel/fading_corr.h),
 *   E[H conj(Hhat)] = x_n T_n + x_l T_l,  T = sum_j a_j rho(s - s_j),
 *   E|Hhat|^2 = f_n U_n + f_l U_l + N0 nz sum_j a_j^2,
 *               U = sum_jj' a_j a_j' rho(s_j - s_j'),
 *   E|H|^2 = r_n rho_n(0) + r_l rho_l(0).
 * The receiver scales Hhat by one factor per point, the LMMSE one over the
 * data REs, shrink = sum E[H conj(Hhat)] / sum E|Hhat|^2 (real parts), and
 * is told the resulting mean error E|H - shrink Hhat|^2, est_error_var:
 * the pilots' noise, the frequency interpolation's error on the profile and,
 * under Doppler, the time interpolation's, for every interpolation (LMMSE's
 * shrink stays near 1: its frequency filter is already the conditional mean
 * on a pilot symbol without Doppler). Exact for the chain's model of the
 * channel; the ICI a time-domain chain under Doppler adds to the pilots
 * enters by estm_pilot_noise's estimate. */
static void time_weights(const link_params *p, est_plan *e, const freq_stats *st, const double *n0v) {
  const pilot_grid *pg = &e->pg;
  const int n = e->pilot_syms, K = e->K, S = p->symbols, dm = pg->kind == PILOT_DMRS, len = dm ? pg->dm.len : 1;
  const int hold = p->time_interpolation == 1;
  /* the time correlations at lags of whole symbols, each (K + CP) samples */
  const double nu = link_doppler_per_sample(p), step = (double)(K + p->cp_length);
  double sC = 0.0, sE = 0.0, sR = 0.0, res = 0.0;
  /* pilot symbol j's time (an occasion's centre), and its symbol l' */
#define PILOT_TIME(j) (dm ? pg->dm.occ[j] + 0.5 * (len - 1) : (double)pilot_symbol_at(pg, j))
#define PILOT_SYM(j, l) (dm ? pg->dm.occ[j] + (l) : pilot_symbol_at(pg, j))
  for (int s = 0; s < S; s++) {
    int lo = 0;
    double wl = 1.0;
    if (hold) {
      /* the nearest pilot symbol (the earlier of two as near) */
      for (int j = 1; j < n; j++)
        if (fabs(s - PILOT_TIME(j)) < fabs(s - PILOT_TIME(lo))) lo = j;
    } else if (!dm) {
      if (n > 1 && s > pilot_symbol_at(pg, 0)) {
        if (s >= pilot_symbol_at(pg, n - 1)) {
          lo = n - 1;
        } else {
          lo = (s - p->pilot_first) / p->pilot_every;
          wl = 1.0 - (double)(s - pilot_symbol_at(pg, lo)) / p->pilot_every;
        }
      }
    } else if (n > 1 && s > PILOT_TIME(0)) {
      if (s >= PILOT_TIME(n - 1)) {
        lo = n - 1;
      } else {
        while (lo + 2 < n && PILOT_TIME(lo + 1) <= s) lo++;
        wl = 1.0 - (s - PILOT_TIME(lo)) / (PILOT_TIME(lo + 1) - PILOT_TIME(lo));
      }
    }
    e->sym_lo[s] = lo;
    e->sym_w[s] = (float)wl;
    /* the pilot symbols this one's estimate draws on, and their weights;
     * an occasion's estimate averages its len symbols */
    const int nj = wl != 1.0 ? 2 : 1;
    const int jj[2] = {lo, nj == 2 ? lo + 1 : lo};
    const double aj[2] = {wl, 1.0 - wl};
    double Tn = 0.0, Un = 0.0, Ul = 0.0, gain = 0.0;
    cd Tl = 0.0;
    for (int j = 0; j < nj; j++) {
      double lr, li, tn = 0.0;
      cd tl = 0.0;
      for (int l = 0; l < len; l++) {
        tn += fading_corr_nlos(nu, K, (s - PILOT_SYM(jj[j], l)) * step);
        fading_corr_los(nu, K, (s - PILOT_SYM(jj[j], l)) * step, &lr, &li);
        tl += lr + li * I;
      }
      Tn += aj[j] * (tn / len);
      Tl += aj[j] * (tl / len);
      gain += aj[j] * aj[j];
      for (int jb = 0; jb < nj; jb++) {
        double un = 0.0, ul = 0.0;
        for (int la = 0; la < len; la++)
          for (int lb = 0; lb < len; lb++) {
            un += fading_corr_nlos(nu, K, (PILOT_SYM(jj[j], la) - PILOT_SYM(jj[jb], lb)) * step);
            fading_corr_los(nu, K, (PILOT_SYM(jj[j], la) - PILOT_SYM(jj[jb], lb)) * step, &lr, &li);
            ul += lr;
          }
        Un += aj[j] * aj[jb] * (un / (len * len));
        Ul += aj[j] * aj[jb] * (ul / (len * len));
      }
    }
    /* the residue's time parts, per pattern, as Un and Ul */
    double Qn[LEAK_PATTERNS] = {0}, Ql[LEAK_PATTERNS] = {0};
    for (int q = 0; q < LEAK_PATTERNS && dm; q++)
      for (int j = 0; j < nj; j++)
        for (int jb = 0; jb < nj; jb++) {
          double qn, ql;
          estm_leak_time(p, len, q, PILOT_SYM(jj[j], 0), PILOT_SYM(jj[jb], 0), &qn, &ql);
          Qn[q] += aj[j] * aj[jb] * qn, Ql[q] += aj[j] * aj[jb] * ql;
        }
    double l0, l0i;
    const double n0r = fading_corr_nlos(nu, K, 0.0);
    fading_corr_los(nu, K, 0.0, &l0, &l0i);
    for (int t = 0; t < e->tx; t++)
      for (int k = 0; k < K; k++) {
        if (pilot_antenna(pg, (uint64_t)s * (uint64_t)K + (uint64_t)k) >= 0) continue; /* a pilot RE: no data */
        const freq_stats *f = &st[(size_t)t * K + k];
        sC += creal(f->xn * Tn + f->xl * Tl);
        sE += f->fn * Un + f->fl * Ul + n0v[t] * f->nz * gain;
        for (int q = 0; q < LEAK_PATTERNS && dm; q++) sE += f->qn[q] * Qn[q] + f->ql[q] * Ql[q];
        sR += f->rn * n0r + f->rl * l0;
        res += 1.0;
      }
  }
#undef PILOT_TIME
#undef PILOT_SYM
  const double a = sE > 0.0 ? sC / sE : 1.0;
  e->shrink = a;
  e->error_var = res > 0.0 ? fmax((sR - 2.0 * a * sC + a * a * sE) / res, 0.0) : 0.0;
}

int est_plan_make(const link_params *p, est_plan *e, char *err, size_t errlen) {
  memset(e, 0, sizeof *e);
  const pilot_grid pg = link_pilot_grid(p);
  if (p->estimation != EST_LS || !pilot_any(&pg)) {
    snprintf(err, errlen, "channel estimation: not an ls point with pilots");
    return -1;
  }
  e->pg = link_pilot_grid(p);
  e->K = p->subcarriers;
  e->tx = p->tx;
  const int dm = e->pg.kind == PILOT_DMRS;
  e->pilot_syms = dm ? e->pg.dm.occasions : pilot_symbol_count(&e->pg);
  int min_np = e->K;
  if (dm) {
    /* the sequence the despreading reads */
    e->np = min_np = dmrs_pairs(&e->pg.dm);
    e->seq = malloc(sizeof(uint32_t) * (size_t)(e->pg.dm.occasions * e->pg.dm.len) * (size_t)e->pg.dm.seq_words);
    if (!e->seq) {
      snprintf(err, errlen, "channel estimation: no memory for the DMRS sequence");
      return -1;
    }
    dmrs_fill_sequence(&e->pg.dm, p->dmrs_nid, e->seq);
    e->pg.dm.seq = e->seq;
  }
  for (int t = 0; t < e->tx && !dm; t++)
    if (pilot_count(&e->pg, t) < min_np) min_np = pilot_count(&e->pg, t);
  const int want = p->interpolation == INTERP_NEAREST ? 1 : p->interpolation == INTERP_LINEAR ? 2 : EST_LMMSE_TAPS;
  e->taps = want < min_np ? want : min_np;
  if (p->interpolation == INTERP_LMMSE2D) e->tt = e->pilot_syms < EST_LMMSE2D_SYMS ? e->pilot_syms : EST_LMMSE2D_SYMS;
  const size_t n = (size_t)e->tx * (size_t)e->K, per = e->tt ? (size_t)p->symbols * (size_t)e->tt : 1;
  e->first = malloc(sizeof(int) * n);
  e->w = malloc(sizeof(cf32) * n * (size_t)e->taps * per);
  e->sym_lo = malloc(sizeof(int) * (size_t)p->symbols);
  e->sym_w = malloc(sizeof(float) * (size_t)p->symbols);
  freq_stats *st = malloc(sizeof(freq_stats) * n);
  double *n0v = malloc(sizeof(double) * (size_t)e->tx);
  tdl_grid g;
  memset(&g, 0, sizeof g);
  int rc = 0;
  if (!e->first || !e->w || !e->sym_lo || !e->sym_w || !st || !n0v) {
    snprintf(err, errlen, "channel estimation: no memory for the tables of %d subcarriers", e->K);
    rc = -1;
  } else if (p->model == CH_TDL && tdl_grid_make(p, &g, err, errlen)) {
    rc = -1;
  } else {
    const tdl_grid *gp = p->model == CH_TDL ? &g : NULL;
    /* the pilots' noise; with DMRS despread over L = 2 len REs of amplitude beta */
    const double L = 2.0 * e->pg.dm.len, b2 = (double)e->pg.dm.beta * e->pg.dm.beta;
    for (int t = 0; t < e->tx; t++) n0v[t] = dm ? estm_pilot_noise(p) / (L * b2) : estm_pilot_noise(p);
    if (e->tt && est_2d_weights(p, gp, e, n0v)) {
      snprintf(err, errlen, "channel estimation: a 2-D LMMSE filter is singular, or no memory for its tables");
      rc = -1;
    }
    for (int t = 0; t < e->tx && !rc && !e->tt; t++)
      if (antenna_weights(p, gp, e, t, st, n0v[t])) {
        snprintf(err, errlen, "channel estimation: the LMMSE filter of antenna %d is singular", t);
        rc = -1;
      }
    if (!rc && !e->tt) time_weights(p, e, st, n0v);
  }
  tdl_grid_free(&g);
  free(st);
  free(n0v);
  if (rc) est_plan_free(e);
  return rc;
}

int est_resolve(link_params *p, char *err, size_t errlen) {
  p->est_error_var = 0.0;
  p->est_shrink = 1.0;
  if (p->estimation != EST_LS) return 0;
  est_plan e;
  if (est_plan_make(p, &e, err, errlen)) return -1;
  p->est_error_var = e.error_var;
  p->est_shrink = e.shrink;
  est_plan_free(&e);
  return 0;
}

int est_plan_matches(const est_plan *e, const link_params *p, char *err, size_t errlen) {
  if (fabs(e->error_var - p->est_error_var) <= 1e-12 * fmax(1.0, e->error_var) &&
      fabs(e->shrink - p->est_shrink) <= 1e-12)
    return 0;
  snprintf(err, errlen,
           "channel estimation: the point's est_error_var %g and est_shrink %g are not its pilots' (%g, %g): "
           "est_resolve was not run on it",
           p->est_error_var, p->est_shrink, e->error_var, e->shrink);
  return -1;
}
