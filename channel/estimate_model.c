/* The chain's correlation model of the pilots and the channel, which the
 * estimator's filters and error model share (estimate.c: the frequency
 * filters and time interpolation; estimate_2d.c: the 2-D Wiener filter), in
 * double; private to channel/. Correlations come per part: the Rayleigh taps
 * (n) and the LOS path on tap 0 or the taps with a K of their own (l), which fade differently in time
 * (channel/fading_corr.h). */
#include "channel/estimate_model.h"

#include <math.h>

#include "channel/fading_corr.h"

/* E[H_a conj(H_b)] of one link between subcarriers a and b on one symbol,
 * in its two parts: the Rayleigh taps (*n) and the LOS path on tap 0 (*l),
 * through their response as the chain applies them, over the profile's
 * whole power (links of unit power, as the receiver takes them). They fade
 * differently in time (channel/fading_corr.h). awgn (g NULL) is all LOS-like:
 * flat and fixed; a block-faded rayleigh channel is fixed over the frame. */
void estm_corr_parts(const link_params *p, const tdl_grid *g, int a, int b, cd *n, cd *l) {
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
  if (tdl_pdp_has_tap_los(&p->pdp)) {
    /* a custom profile's per-tap K: the taps' LOS paths turn together
     * (one phase), so their part is H_los(a) conj(H_los(b)) with H_los(k)
     * = sum_l tdl_pdp_los_amp(l) resp_l(k) */
    cd ha = 0.0, hb = 0.0;
    for (int t = 0; t < g->L; t++) {
      const double amp = tdl_pdp_los_amp(&p->pdp, t);
      const cf32 ra = g->resp[(size_t)t * K + a], rb = g->resp[(size_t)t * K + b];
      ha += amp * (ra.re + ra.im * I);
      hb += amp * (rb.re + rb.im * I);
      total += (double)p->pdp.tap_los[t];
    }
    *n = (re + im * I) / total;
    *l = ha * conj(hb) / total;
    return;
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
int estm_invert(int n, cd *a, cd *inv) {
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
double estm_pilot_noise(const link_params *p) {
  const double nu = link_doppler_per_sample(p);
  if (p->domain != DOMAIN_TIME || nu <= 0.0) return p->n0;
  double lr, li;
  fading_corr_los(nu, p->subcarriers, 0.0, &lr, &li);
  double los = p->pdp.los_power;
  for (int t = 0; t < p->pdp.taps; t++) los += p->pdp.tap_los[t]; /* a custom profile's per-tap K */
  const double kept = (1.0 - los) * fading_corr_nlos(nu, p->subcarriers, 0.0) + los * lr;
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
int estm_freq_order(int K, int P, int t, int np, double *pos) {
  int start = 0;
  while (start < np && 2 * (t + start * P) < K) start++;
  if (start == np) start = 0;
  for (int j = 0; j < np; j++) {
    const int kp = t + ((j + start) % np) * P;
    pos[j] = 2 * kp < K ? kp : kp - K;
  }
  return start;
}

/* Antenna (port) t's geometry and its pilots' frequencies pos[] in window
 * order: the comb's in frequency order, DMRS's OCC block centres. */
void estm_geo_make(const est_plan *e, const link_params *p, int t, pilot_geo *geo, double *pos) {
  const int dm = e->pg.kind == PILOT_DMRS, K = e->K, P = p->pilot_spacing;
  const int np = dm ? e->np : pilot_count(&e->pg, t);
  const pilot_geo g = {dm, e->pg.dm.type, K, P, t, np, 0, dm ? dmrs_port_delta(e->pg.dm.type, t) : 0};
  *geo = g;
  if (dm) {
    /* the OCC blocks' centres, NR subcarrier less K/2 */
    for (int j = 0; j < np; j++) pos[j] = (g.type == 1 ? 4 * j + 1.0 : 6 * j + 0.5) + g.delta - K / 2;
  } else {
    geo->start = estm_freq_order(K, P, t, np, pos);
  }
}

/* The LMMSE filters' window of T pilots for frequency kc: centred on it. */
int estm_lmmse_window(int np, const double *pos, double kc, int T) {
  int below = 0; /* the last pilot at or below kc */
  while (below + 1 < np && pos[below + 1] <= kc) below++;
  const int f = below - T / 2 + 1;
  return f < 0 ? 0 : f > np - T ? np - T : f;
}

int estm_geo_subcarriers(const pilot_geo *v, int j, int *sc) {
  if (!v->dmrs) {
    sc[0] = v->t + ((j + v->start) % v->np) * v->P;
    return 1;
  }
  const int a = v->type == 1 ? 4 * j + v->delta : 6 * j + v->delta;
  sc[0] = dmrs_re_of_nr(v->K, a);
  sc[1] = dmrs_re_of_nr(v->K, v->type == 1 ? a + 2 : a + 1);
  return 2;
}

/* estm_corr_parts between the subcarriers a[0 .. na) averaged and those of b. */
static void corr_avg(const link_params *p, const tdl_grid *g, const int *a, int na, const int *b, int nb, cd *n,
                     cd *l) {
  if (na == 1 && nb == 1) {
    estm_corr_parts(p, g, a[0], b[0], n, l);
    return;
  }
  cd sn = 0.0, sl = 0.0, x, y;
  for (int i = 0; i < na; i++)
    for (int j = 0; j < nb; j++) {
      estm_corr_parts(p, g, a[i], b[j], &x, &y);
      sn += x, sl += y;
    }
  *n = sn / (double)(na * nb), *l = sl / (double)(na * nb);
}

/* Between window positions i and j, and between subcarrier k and position j. */
void estm_corr_pp(const link_params *p, const tdl_grid *g, const pilot_geo *v, int i, int j, cd *n, cd *l) {
  int a[2], b[2];
  const int na = estm_geo_subcarriers(v, i, a), nb = estm_geo_subcarriers(v, j, b);
  corr_avg(p, g, a, na, b, nb, n, l);
}
void estm_corr_kp(const link_params *p, const tdl_grid *g, const pilot_geo *v, int k, int j, cd *n, cd *l) {
  int b[2];
  const int nb = estm_geo_subcarriers(v, j, b);
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
void estm_leak_counts(const est_plan *e, int t, int *cnt) {
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
void estm_leak_corr(const link_params *p, const tdl_grid *g, const pilot_geo *v, int pat, int i, int j, cd *n,
                      cd *l) {
  int a[2], b[2];
  estm_geo_subcarriers(v, i, a);
  estm_geo_subcarriers(v, j, b);
  cd sn = 0.0, sl = 0.0, x, y;
  for (int ka = 0; ka < 2; ka++)
    for (int kb = 0; kb < 2; kb++) {
      estm_corr_parts(p, g, a[ka], b[kb], &x, &y);
      const double sg = leak_fneg(pat) && ka != kb ? -1.0 : 1.0;
      sn += sg * x, sl += sg * y;
    }
  *n = sn / 4.0, *l = sl / 4.0;
}

/* The time part of pattern pat between occasions' symbols s_a + l and
 * s_b + l' (len each), per part: NLOS (*n) and LOS (*l, its real part). */
void estm_leak_time(const link_params *p, int len, int pat, int sa, int sb, double *n, double *l) {
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
