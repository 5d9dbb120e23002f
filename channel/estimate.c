/* The per-point tables of channel estimation (estimate.h), in double. */
#include "channel/estimate.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel/fading_corr.h"
#include "channel/tdl_grid.h"

typedef double complex cd;

void est_plan_free(est_plan *e) {
  if (!e) return;
  free(e->first);
  free(e->w);
  free(e->sym_lo);
  free(e->sym_w);
  free(e->seq);
  memset(e, 0, sizeof *e);
}

/* E[H_a conj(H_b)] of one link between subcarriers a and b on one symbol,
 * in its two parts: the Rayleigh taps (*n) and the LOS path on tap 0 (*l),
 * through their response as the chain applies them, over the profile's
 * whole power (links of unit power, as the receiver takes them). They fade
 * differently in time (channel/fading_corr.h). awgn (g NULL) is all LOS-like:
 * flat and fixed; a block-faded rayleigh channel is fixed over the frame. */
static void corr_parts(const link_params *p, const tdl_grid *g, int a, int b, cd *n, cd *l) {
  if (p->model == CH_RAYLEIGH) {
    /* block-faded: subcarriers independent (block) or one draw (flat_block),
     * each element's Rician part K / (K + 1) fixed and flat */
    const double los = p->k_factor > 0.0 ? p->k_factor / (1.0 + p->k_factor) : 0.0;
    *n = (1.0 - los) * (p->fading == FADING_FLAT_BLOCK || a == b ? 1.0 : 0.0), *l = los;
    return;
  }
  if (!g) {
    *n = 0.0, *l = 1.0;
    return;
  }
  const int K = g->K;
  double re = 0.0, im = 0.0, total = p->pdp.los_power;
  for (int t = 0; t < g->L; t++) {
    const cf32 ra = g->resp[(size_t)t * K + a], rb = g->resp[(size_t)t * K + b];
    /* ra conj(rb), in reals */
    const double pw = p->pdp.power[t];
    total += pw;
    re += pw * ((double)ra.re * rb.re + (double)ra.im * rb.im);
    im += pw * ((double)ra.im * rb.re - (double)ra.re * rb.im);
  }
  const cf32 ra = g->resp[a], rb = g->resp[b];
  const double lp = p->pdp.los_power;
  *n = (re + im * I) / total;
  *l = lp * (((double)ra.re * rb.re + (double)ra.im * rb.im) + ((double)ra.im * rb.re - (double)ra.re * rb.im) * I) /
       total;
}

static double norm2(cd z) { return creal(z) * creal(z) + cimag(z) * cimag(z); }

/* In-place inverse of the n x n matrix a (row-major) by Gauss-Jordan with
 * partial pivoting (by squared magnitude); -1 when singular. gcc builds
 * the file with -fcx-limited-range: its complex products and quotients are the
 * textbook formulas (the matrices are well scaled: a covariance plus N0). */
static int invert(int n, cd *a, cd *inv) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) inv[i * n + j] = i == j;
  for (int c = 0; c < n; c++) {
    int piv = c;
    for (int r = c + 1; r < n; r++)
      if (norm2(a[r * n + c]) > norm2(a[piv * n + c])) piv = r;
    if (norm2(a[piv * n + c]) == 0.0) return -1;
    for (int j = 0; j < n; j++) {
      cd t = a[c * n + j];
      a[c * n + j] = a[piv * n + j];
      a[piv * n + j] = t;
      t = inv[c * n + j];
      inv[c * n + j] = inv[piv * n + j];
      inv[piv * n + j] = t;
    }
    const cd d = 1.0 / a[c * n + c];
    for (int j = 0; j < n; j++) {
      a[c * n + j] *= d;
      inv[c * n + j] *= d;
    }
    for (int r = 0; r < n; r++) {
      if (r == c) continue;
      const cd f = a[r * n + c];
      if (f == 0.0) continue;
      for (int j = 0; j < n; j++) {
        a[r * n + j] -= f * a[c * n + j];
        inv[r * n + j] -= f * inv[c * n + j];
      }
    }
  }
  return 0;
}

/* The noise on an LS pilot estimate: N0, and in the time domain under
 * Doppler the inter-carrier interference, a documented estimate (the chain
 * has no model of its own for it): the power each link loses from the
 * symbol's window-averaged channel, 1 - rho(0) per unit power
 * (channel/fading_corr.h), spread over the other subcarriers of every
 * transmit antenna, which all send on average unit power, so about tx
 * (1 - rho(0)) reaches a pilot RE. */
static double pilot_noise(const link_params *p) {
  const double nu = link_doppler_per_sample(p);
  if (p->domain != DOMAIN_TIME || nu <= 0.0) return p->n0;
  double lr, li;
  fading_corr_los(nu, p->subcarriers, 0.0, &lr, &li);
  const double los = p->pdp.los_power, kept = (1.0 - los) * fading_corr_nlos(nu, p->subcarriers, 0.0) + los * lr;
  return p->n0 + p->tx * (1.0 - kept);
}

/* Antenna t's pilots in frequency order (channel/tdl_grid.h: subcarrier k
 * sits at kc = k below K/2 and k - K from K/2 on, the band -fs/2 .. fs/2):
 * the pilots from K/2 up (negative frequencies) come first, then those from
 * 0. Window position j is pilot (j + start) mod np, est_freq's wrap; pos[j]
 * is its frequency kc. Neighbours in this order are neighbours in the band
 * (across DC too); the two ends are the band edges, which no interpolation
 * reaches across: with continuous delays the response at K/2 - 1 (the top of
 * the band) has nothing to do with the one at K/2 (its bottom). */
static int freq_order(int K, int P, int t, int np, double *pos) {
  int start = 0;
  while (start < np && 2 * (t + start * P) < K) start++;
  if (start == np) start = 0;
  for (int j = 0; j < np; j++) {
    const int kp = t + ((j + start) % np) * P;
    pos[j] = 2 * kp < K ? kp : kp - K;
  }
  return start;
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

/* Antenna t's pilots as the error model sees them: window position j is one
 * subcarrier for the comb (freq_order's), or with DMRS port t's OCC block j
 * in NR order, two subcarriers whose channels the despreading averages. */
typedef struct pilot_geo {
  int dmrs, type, K, P, t, np, start, delta;
} pilot_geo;

static int geo_subcarriers(const pilot_geo *v, int j, int *sc) {
  if (!v->dmrs) {
    sc[0] = v->t + ((j + v->start) % v->np) * v->P;
    return 1;
  }
  const int a = v->type == 1 ? 4 * j + v->delta : 6 * j + v->delta;
  sc[0] = dmrs_re_of_nr(v->K, a);
  sc[1] = dmrs_re_of_nr(v->K, v->type == 1 ? a + 2 : a + 1);
  return 2;
}

/* corr_parts between the subcarriers a[0 .. na) averaged and those of b. */
static void corr_avg(const link_params *p, const tdl_grid *g, const int *a, int na, const int *b, int nb, cd *n,
                     cd *l) {
  if (na == 1 && nb == 1) {
    corr_parts(p, g, a[0], b[0], n, l);
    return;
  }
  cd sn = 0.0, sl = 0.0, x, y;
  for (int i = 0; i < na; i++)
    for (int j = 0; j < nb; j++) {
      corr_parts(p, g, a[i], b[j], &x, &y);
      sn += x, sl += y;
    }
  *n = sn / (double)(na * nb), *l = sl / (double)(na * nb);
}

/* Between window positions i and j, and between subcarrier k and position j. */
static void corr_pp(const link_params *p, const tdl_grid *g, const pilot_geo *v, int i, int j, cd *n, cd *l) {
  int a[2], b[2];
  const int na = geo_subcarriers(v, i, a), nb = geo_subcarriers(v, j, b);
  corr_avg(p, g, a, na, b, nb, n, l);
}
static void corr_kp(const link_params *p, const tdl_grid *g, const pilot_geo *v, int k, int j, cd *n, cd *l) {
  int b[2];
  const int nb = geo_subcarriers(v, j, b);
  corr_avg(p, g, &k, 1, b, nb, n, l);
}

/* The other ports of port t's CDM group leave a residue in its despread
 * estimate where their channels vary over an OCC block: port q adds
 * (1/L) sum_e s(e) H_q(e), s = (w_f w_t)_t (w_f w_t)_q, zero where H_q is
 * constant. s is the product of a frequency sign pattern sf(k') and a time
 * one st(l'), so the residue's correlation between two blocks is separable
 * as the channel's: (1/4) sum sf sf E[H H*] over their subcarriers times
 * (1/len^2) sum st st rho over their symbols. The ports' channels are
 * independent of port t's (no transmit correlation in this model), so the
 * residue is noise correlated across blocks and occasions, which averaging
 * over neighbours does not remove. Three patterns: frequency sign flipped
 * (LEAK_F), time (LEAK_T), both (LEAK_FT); *cnt the ports of each. */
enum { LEAK_F, LEAK_T, LEAK_FT, LEAK_PATTERNS };
static void leak_counts(const est_plan *e, int t, int *cnt) {
  const dmrs_grid *d = &e->pg.dm;
  for (int i = 0; i < LEAK_PATTERNS; i++) cnt[i] = 0;
  if (e->pg.kind != PILOT_DMRS) return;
  for (int q = 0; q < e->tx; q++) {
    if (q == t || dmrs_port_group(d->type, q) != dmrs_port_group(d->type, t)) continue;
    const int f = dmrs_wf(t, 1) != dmrs_wf(q, 1), tm = d->len == 2 && dmrs_wt(d->type, t, 1) != dmrs_wt(d->type, q, 1);
    if (f || tm) cnt[f && tm ? LEAK_FT : f ? LEAK_F : LEAK_T]++;
  }
}
static int leak_fneg(int pat) { return pat != LEAK_T; }
static int leak_tneg(int pat) { return pat != LEAK_F; }

/* The frequency part of pattern pat between window positions i and j. */
static void leak_corr(const link_params *p, const tdl_grid *g, const pilot_geo *v, int pat, int i, int j, cd *n,
                      cd *l) {
  int a[2], b[2];
  geo_subcarriers(v, i, a);
  geo_subcarriers(v, j, b);
  cd sn = 0.0, sl = 0.0, x, y;
  for (int ka = 0; ka < 2; ka++)
    for (int kb = 0; kb < 2; kb++) {
      corr_parts(p, g, a[ka], b[kb], &x, &y);
      const double sg = leak_fneg(pat) && ka != kb ? -1.0 : 1.0;
      sn += sg * x, sl += sg * y;
    }
  *n = sn / 4.0, *l = sl / 4.0;
}

/* The time part of pattern pat between occasions' symbols s_a + l and
 * s_b + l' (len each), per part: NLOS (*n) and LOS (*l, its real part). */
static void leak_time(const link_params *p, int len, int pat, int sa, int sb, double *n, double *l) {
  const double nu = link_doppler_per_sample(p), step = (double)(p->subcarriers + p->cp_length);
  double sn = 0.0, sl = 0.0, lr, li;
  for (int la = 0; la < len; la++)
    for (int lb = 0; lb < len; lb++) {
      const double sg = leak_tneg(pat) && la != lb ? -1.0 : 1.0, lag = (sa + la - sb - lb) * step;
      fading_corr_los(nu, p->subcarriers, lag, &lr, &li);
      sn += sg * fading_corr_nlos(nu, p->subcarriers, lag), sl += sg * lr;
    }
  *n = sn / (len * len), *l = sl / (len * len);
}

/* What the error model needs of one subcarrier's frequency weights w over
 * the pilots h_i of its window, per part (n: Rayleigh, l: LOS; the chain's
 * correlations on one symbol, corr_parts): x = sum_i conj(w_i) E[H_k conj(h_i)]
 * (the estimate's correlation with the channel), f = sum_ii' w_i conj(w_i')
 * E[h_i conj(h_i')] (its power without noise), r = E|H_k|^2, and
 * nz = sum |w_i|^2 (the noise's gain). */
typedef struct freq_stats {
  cd xn, xl;
  double fn, fl, rn, rl, nz;
  double qn[LEAK_PATTERNS], ql[LEAK_PATTERNS]; /* DMRS: the other ports' residue, as fn, fl */
} freq_stats;

/* Antenna t's weights on every subcarrier and their freq_stats. Windows are
 * positions in frequency order (freq_order), stored as pilot indices. The
 * pilots' correlations of a window (Hermitian, per part) are kept while
 * consecutive subcarriers share it, and shifted when it moves by d < T. */
static int antenna_weights(const link_params *p, const tdl_grid *g, est_plan *e, int t, freq_stats *st,
                           double n0) {
  const int dm = e->pg.kind == PILOT_DMRS;
  const int K = e->K, T = e->taps, P = p->pilot_spacing, np = dm ? e->np : pilot_count(&e->pg, t);
  enum { TT = EST_LMMSE_TAPS * EST_LMMSE_TAPS };
  cd Rn[TT], Rl[TT], A[TT], Ai[TT], w[EST_LMMSE_TAPS], cn[EST_LMMSE_TAPS], cl[EST_LMMSE_TAPS];
  cd Qn[LEAK_PATTERNS][TT], Ql[LEAK_PATTERNS][TT]; /* DMRS: the residue's frequency parts */
  double qt_n[LEAK_PATTERNS], qt_l[LEAK_PATTERNS]; /* ... and its time parts on one occasion */
  int cnt[LEAK_PATTERNS];
  leak_counts(e, t, cnt);
  for (int q = 0; q < LEAK_PATTERNS; q++)
    if (cnt[q]) leak_time(p, e->pg.dm.len, q, 0, 0, &qt_n[q], &qt_l[q]);
  double *pos = malloc(sizeof(double) * (size_t)np);
  if (!pos) return -1;
  pilot_geo geo = {dm, e->pg.dm.type, K, P, t, np, 0, dm ? dmrs_port_delta(e->pg.dm.type, t) : 0};
  if (dm) {
    /* the OCC blocks' centres, NR subcarrier less K/2 */
    const int type = e->pg.dm.type;
    for (int j = 0; j < np; j++) pos[j] = (type == 1 ? 4 * j + 1.0 : 6 * j + 0.5) + geo.delta - K / 2;
  } else {
    geo.start = freq_order(K, P, t, np, pos);
  }
  const int start = geo.start;
  int window = -1, rc = 0; /* the window Rn, Rl (and Ai) were made for */
  for (int k = 0; k < K; k++) {
    const size_t at = (size_t)t * K + k;
    const double kc = 2 * k < K ? k : k - K;
    int f;
    if (p->interpolation != INTERP_LMMSE) {
      simple_weights(p->interpolation, T, np, pos, kc, &f, w);
    } else {
      int below = 0; /* the last pilot at or below kc */
      while (below + 1 < np && pos[below + 1] <= kc) below++;
      f = below - T / 2 + 1;
      f = f < 0 ? 0 : f > np - T ? np - T : f;
    }
    if (f != window) {
      const int d = f - window, keep = window >= 0 && d > 0 && d < T ? T - d : 0;
      for (int i = 0; i < keep; i++)
        for (int j = i; j < keep; j++) Rn[i * T + j] = Rn[(i + d) * T + j + d], Rl[i * T + j] = Rl[(i + d) * T + j + d];
      for (int i = 0; i < T; i++)
        for (int j = i < keep ? keep : i; j < T; j++)
          corr_pp(p, g, &geo, f + i, f + j, &Rn[i * T + j], &Rl[i * T + j]);
      for (int i = 0; i < T; i++)
        for (int j = 0; j < i; j++) Rn[i * T + j] = conj(Rn[j * T + i]), Rl[i * T + j] = conj(Rl[j * T + i]);
      for (int q = 0; q < LEAK_PATTERNS; q++)
        for (int i = 0; i < T && cnt[q]; i++)
          for (int j = 0; j < T; j++) leak_corr(p, g, &geo, q, f + i, f + j, &Qn[q][i * T + j], &Ql[q][i * T + j]);
      if (p->interpolation == INTERP_LMMSE) {
        for (int i = 0; i < T * T; i++) A[i] = Rn[i] + Rl[i] + (i % (T + 1) == 0 ? n0 : 0.0);
        for (int q = 0; q < LEAK_PATTERNS; q++)
          for (int i = 0; i < T * T && cnt[q]; i++) A[i] += cnt[q] * (Qn[q][i] * qt_n[q] + Ql[q][i] * qt_l[q]);
        if (invert(T, A, Ai)) {
          rc = -1;
          break;
        }
      }
      window = f;
    }
    for (int j = 0; j < T; j++) corr_kp(p, g, &geo, k, f + j, &cn[j], &cl[j]);
    if (p->interpolation == INTERP_LMMSE)
      /* orthogonality: c_j = sum_i w_i A_ij, so w = A^-T c */
      for (int i = 0; i < T; i++) {
        w[i] = 0.0;
        for (int j = 0; j < T; j++) w[i] += Ai[j * T + i] * (cn[j] + cl[j]);
      }
    e->first[at] = (f + start) % np;
    freq_stats s = {0};
    cd rkn, rkl;
    corr_parts(p, g, k, k, &rkn, &rkl);
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
 * chain's correlations separable per part (frequency: corr_parts; time:
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
 * enters by pilot_noise's estimate. */
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
          leak_time(p, len, q, PILOT_SYM(jj[j], 0), PILOT_SYM(jj[jb], 0), &qn, &ql);
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
  const size_t n = (size_t)e->tx * (size_t)e->K;
  e->first = malloc(sizeof(int) * n);
  e->w = malloc(sizeof(cf32) * n * (size_t)e->taps);
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
    for (int t = 0; t < e->tx; t++) n0v[t] = dm ? pilot_noise(p) / (L * b2) : pilot_noise(p);
    for (int t = 0; t < e->tx && !rc; t++)
      if (antenna_weights(p, gp, e, t, st, n0v[t])) {
        snprintf(err, errlen, "channel estimation: the LMMSE filter of antenna %d is singular", t);
        rc = -1;
      }
    if (!rc) time_weights(p, e, st, n0v);
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
