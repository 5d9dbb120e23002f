/* lmmse2d: the 2-D Wiener filter (Hoeher, Kaiser and Robertson, ICASSP
 * 1997) over a window of pilots in time and frequency, and its error, from
 * the chain's model of the channel (estimate_model.h).
 *
 * The window of RE (s, k) is the taps pilots of antenna t nearest k in
 * frequency (the 1-D LMMSE's window, never across the band edge) on each
 * of the tt pilot symbols (DMRS: occasions) around s, h_m, m = (j, i). Per
 * part (Rayleigh n, LOS l) the chain's correlation is separable, frequency
 * (estm_corr_pp, on one symbol) times time (fading_corr.h: J0 of the
 * Doppler, windowed by the symbol), so
 *   A_mm' = E[h_m conj(h_m')] = sum_parts Rf(i, i') Rt(j, j') + N_m delta_mm'
 *           (+ the DMRS residue of the other ports, separable the same way),
 *   c_m = E[H(s, k) conj(h_m)] = sum_parts cf(k, i) rt(s, j),
 * and the weights of Hhat = sum_m w_m h_m are w = A^-T c (orthogonality:
 * E[(H - Hhat) conj(h_m)] = 0). Their error is E|H - Hhat|^2 = E|H|^2 -
 * Re sum_m conj(w_m) c_m (E|Hhat|^2 = E[H conj(Hhat)] at the optimum, so
 * the receiver's scaling is 1). A is inverted once per frequency window
 * and time window; since c is rt(s, j) times cf(k, i), A^-T c is a sum over
 * the window's pilot symbols j of rt(s, j) times A^-T (e_j x cf), made
 * once per subcarrier and time window. */
#include "channel/estimate_2d.h"

#include <math.h>
#include <stdlib.h>

#include "channel/estimate_model.h"
#include "channel/fading_corr.h"

/* Pilot symbol j's time (an occasion's centre) and its l-th symbol. */
static double pilot_time(const pilot_grid *pg, int j) {
  return pg->kind == PILOT_DMRS ? pg->dm.occ[j] + 0.5 * (pg->dm.len - 1) : (double)pilot_symbol_at(pg, j);
}
static int pilot_sym(const pilot_grid *pg, int j, int l) {
  return pg->kind == PILOT_DMRS ? pg->dm.occ[j] + l : pilot_symbol_at(pg, j);
}

/* The time part of the correlation between symbols at times a[0 .. na) averaged
 * and b[0 .. nb) averaged: NLOS (*n) and LOS (*l). */
static void time_corr(const link_params *p, const int *a, int na, const int *b, int nb, double *n, cd *l) {
  const double nu = link_doppler_per_sample(p), step = (double)(p->subcarriers + p->cp_length);
  double sn = 0.0, lr, li;
  cd sl = 0.0;
  for (int x = 0; x < na; x++)
    for (int y = 0; y < nb; y++) {
      const double lag = (a[x] - b[y]) * step;
      sn += fading_corr_nlos(nu, p->subcarriers, lag);
      fading_corr_los(nu, p->subcarriers, lag, &lr, &li);
      sl += lr + li * I;
    }
  *n = sn / (na * nb), *l = sl / (na * nb);
}

/* The per-point time tables: each symbol's window (sym_lo), the time parts
 * between pilot symbols (tpn, tpl [n][n]) and between a symbol and a pilot
 * symbol (tsn, tsl [S][n]), and the DMRS residue's (lqn, lql [pattern][n][n]). */
typedef struct time_tables {
  double *tpn, *tsn, *lqn, *lql;
  cd *tpl, *tsl;
} time_tables;

static int time_tables_make(const link_params *p, est_plan *e, time_tables *tt) {
  const pilot_grid *pg = &e->pg;
  const int n = e->pilot_syms, S = p->symbols, Tt = e->tt, len = pg->kind == PILOT_DMRS ? pg->dm.len : 1;
  tt->tpn = malloc(sizeof(double) * (size_t)(n * n));
  tt->tsn = malloc(sizeof(double) * (size_t)(S * n));
  tt->lqn = malloc(sizeof(double) * (size_t)(LEAK_PATTERNS * n * n));
  tt->lql = malloc(sizeof(double) * (size_t)(LEAK_PATTERNS * n * n));
  tt->tpl = malloc(sizeof(cd) * (size_t)(n * n));
  tt->tsl = malloc(sizeof(cd) * (size_t)(S * n));
  if (!tt->tpn || !tt->tsn || !tt->lqn || !tt->lql || !tt->tpl || !tt->tsl) return -1;
  int sa[2], sb[2];
  for (int ja = 0; ja < n; ja++) {
    for (int l = 0; l < len; l++) sa[l] = pilot_sym(pg, ja, l);
    for (int jb = 0; jb < n; jb++) {
      for (int l = 0; l < len; l++) sb[l] = pilot_sym(pg, jb, l);
      time_corr(p, sa, len, sb, len, &tt->tpn[ja * n + jb], &tt->tpl[ja * n + jb]);
      for (int q = 0; q < LEAK_PATTERNS; q++)
        estm_leak_time(p, len, q, sa[0], sb[0], &tt->lqn[(q * n + ja) * n + jb], &tt->lql[(q * n + ja) * n + jb]);
    }
  }
  for (int s = 0; s < S; s++) {
    for (int j = 0; j < n; j++) {
      for (int l = 0; l < len; l++) sb[l] = pilot_sym(pg, j, l);
      time_corr(p, &s, 1, sb, len, &tt->tsn[s * n + j], &tt->tsl[s * n + j]);
    }
    /* the window: tt pilot symbols centred on s, within the frame's */
    int below = 0;
    while (below + 1 < n && pilot_time(pg, below + 1) <= s) below++;
    const int f = below - Tt / 2 + 1;
    e->sym_lo[s] = f < 0 ? 0 : f > n - Tt ? n - Tt : f;
    e->sym_w[s] = 1.0f;
  }
  return 0;
}

static void time_tables_free(time_tables *tt) {
  free(tt->tpn);
  free(tt->tsn);
  free(tt->lqn);
  free(tt->lql);
  free(tt->tpl);
  free(tt->tsl);
}

/* A of antenna t's frequency window f and time window gw into A (N x N,
 * N = Tt T, m = j T + i). */
static void window_matrix(const link_params *p, const tdl_grid *g, const est_plan *e, const pilot_geo *geo,
                          const int *cnt, const time_tables *tt, int f, int gw, double n0, cd *A) {
  const int T = e->taps, Tt = e->tt, N = T * Tt, n = e->pilot_syms;
  for (int i = 0; i < T; i++)
    for (int i2 = 0; i2 < T; i2++) {
      cd rn, rl, qn[LEAK_PATTERNS], ql[LEAK_PATTERNS];
      estm_corr_pp(p, g, geo, f + i, f + i2, &rn, &rl);
      for (int q = 0; q < LEAK_PATTERNS; q++)
        if (cnt[q]) estm_leak_corr(p, g, geo, q, f + i, f + i2, &qn[q], &ql[q]);
      for (int ja = 0; ja < Tt; ja++)
        for (int jb = 0; jb < Tt; jb++) {
          const int pa = gw + ja, pb = gw + jb;
          cd a = rn * tt->tpn[pa * n + pb] + rl * tt->tpl[pa * n + pb];
          for (int q = 0; q < LEAK_PATTERNS; q++)
            if (cnt[q]) a += cnt[q] * (qn[q] * tt->lqn[(q * n + pa) * n + pb] + ql[q] * tt->lql[(q * n + pa) * n + pb]);
          const int ma = ja * T + i, mb = jb * T + i2;
          A[ma * N + mb] = a + (ma == mb ? n0 : 0.0);
        }
    }
}

int est_2d_weights(const link_params *p, const tdl_grid *g, est_plan *e, const double *n0v) {
  const int K = e->K, S = p->symbols, T = e->taps, Tt = e->tt, N = T * Tt, n = e->pilot_syms;
  const int np_max = e->pg.kind == PILOT_DMRS ? e->np : K;
  time_tables tt = {0};
  cd *A = malloc(sizeof(cd) * (size_t)(N * N)), *Ai = malloc(sizeof(cd) * (size_t)(N * N));
  cd *Vn = malloc(sizeof(cd) * (size_t)(Tt * N)), *Vl = malloc(sizeof(cd) * (size_t)(Tt * N));
  double *pos = malloc(sizeof(double) * (size_t)np_max);
  int rc = -1;
  if (!A || !Ai || !Vn || !Vl || !pos || time_tables_make(p, e, &tt)) goto done;
  double l0r, l0i;
  const double n0r = fading_corr_nlos(link_doppler_per_sample(p), K, 0.0);
  fading_corr_los(link_doppler_per_sample(p), K, 0.0, &l0r, &l0i);
  double sC = 0.0, sR = 0.0, res = 0.0;
  for (int t = 0; t < e->tx; t++) {
    pilot_geo geo;
    estm_geo_make(e, p, t, &geo, pos);
    int cnt[LEAK_PATTERNS];
    estm_leak_counts(e, t, cnt);
    for (int gw = 0; gw + Tt <= n; gw++) {
      int used = 0;
      for (int s = 0; s < S; s++) used |= e->sym_lo[s] == gw;
      if (!used) continue;
      int window = -1;
      for (int k = 0; k < K; k++) {
        const int f = estm_lmmse_window(geo.np, pos, 2 * k < K ? k : k - K, T);
        if (f != window) {
          window_matrix(p, g, e, &geo, cnt, &tt, f, gw, n0v[t], A);
          if (estm_invert(N, A, Ai)) goto done;
          window = f;
        }
        e->first[(size_t)t * K + k] = (f + geo.start) % geo.np;
        cd cn[EST_LMMSE_TAPS], cl[EST_LMMSE_TAPS], rkn, rkl;
        for (int i = 0; i < T; i++) estm_corr_kp(p, g, &geo, k, f + i, &cn[i], &cl[i]);
        estm_corr_parts(p, g, k, k, &rkn, &rkl);
        /* V[j] = A^-T (e_j x cf): V[j][m] = sum_i Ai[(j, i)][m] cf[i] */
        for (int j = 0; j < Tt; j++)
          for (int m = 0; m < N; m++) {
            cd vn = 0.0, vl = 0.0;
            for (int i = 0; i < T; i++) {
              const cd a = Ai[(j * T + i) * N + m];
              vn += a * cn[i], vl += a * cl[i];
            }
            Vn[j * N + m] = vn, Vl[j * N + m] = vl;
          }
        for (int s = 0; s < S; s++) {
          if (e->sym_lo[s] != gw) continue;
          const double *tsn = tt.tsn + (size_t)s * n + gw;
          const cd *tsl = tt.tsl + (size_t)s * n + gw;
          cf32 *wo = e->w + (((size_t)t * S + s) * K + k) * (size_t)N;
          cd C = 0.0;
          for (int m = 0; m < N; m++) {
            cd w = 0.0;
            for (int j = 0; j < Tt; j++) w += tsn[j] * Vn[j * N + m] + tsl[j] * Vl[j * N + m];
            wo[m] = cf_make((float)creal(w), (float)cimag(w));
            const int j = m / T, i = m - j * T;
            C += conj(w) * (cn[i] * tsn[j] + cl[i] * tsl[j]);
          }
          if (pilot_antenna(&e->pg, (uint64_t)s * (uint64_t)K + (uint64_t)k) >= 0) continue; /* no data */
          sC += creal(C);
          sR += creal(rkn) * n0r + creal(rkl) * l0r;
          res += 1.0;
        }
      }
    }
  }
  e->shrink = 1.0;
  e->error_var = res > 0.0 ? fmax((sR - sC) / res, 0.0) : 0.0;
  rc = 0;
done:
  time_tables_free(&tt);
  free(A);
  free(Ai);
  free(Vn);
  free(Vl);
  free(pos);
  return rc;
}
