/* The chain's correlation model of the pilots and the channel (channel/
 * estimate.h, step 4), shared by the estimator's filters and error model:
 * estimate.c's frequency filters and time interpolation, estimate_2d.c's
 * 2-D Wiener filter. In double; private to channel/ (gcc only: C99 complex).
 * Correlations come per part, the Rayleigh taps (n) and the LOS path on tap
 * 0 (l), which fade differently in time (channel/fading_corr.h). */
#ifndef OFDMSIM_ESTIMATE_MODEL_H
#define OFDMSIM_ESTIMATE_MODEL_H

#include <complex.h>

#include "channel/estimate.h"
#include "channel/tdl_grid.h"

typedef double complex cd;

/* E[H_a conj(H_b)] of one link between subcarriers a and b on one symbol,
 * per part (g NULL: awgn). */
void estm_corr_parts(const link_params *p, const tdl_grid *g, int a, int b, cd *n, cd *l);

/* In-place inverse of the n x n matrix a (row-major) into inv; -1 when
 * singular. */
int estm_invert(int n, cd *a, cd *inv);

/* The noise on an LS pilot estimate (N0, and the time domain's ICI under
 * Doppler, a documented estimate). */
double estm_pilot_noise(const link_params *p);

/* Antenna t's comb pilots in frequency order: pos[j] the frequency of window
 * position j; returns the start (position j is pilot (j + start) mod np). */
int estm_freq_order(int K, int P, int t, int np, double *pos);

/* Antenna t's pilots as the error model sees them: window position j is one
 * subcarrier for the comb (estm_freq_order's), or with DMRS port t's OCC
 * block j in NR order, two subcarriers whose channels the despreading
 * averages. */
typedef struct pilot_geo {
  int dmrs, type, K, P, t, np, start, delta;
} pilot_geo;

/* t's geometry and its pilots' frequencies pos[np] (np: pilot_count, or
 * the plan's np with DMRS). */
void estm_geo_make(const est_plan *e, const link_params *p, int t, pilot_geo *geo, double *pos);
/* The subcarriers of window position j (1 or 2) into sc. */
int estm_geo_subcarriers(const pilot_geo *v, int j, int *sc);
/* The first window position of the LMMSE window of T pilots for frequency
 * kc (centred on it, inside the band). */
int estm_lmmse_window(int np, const double *pos, double kc, int T);

/* estm_corr_parts between window positions i and j, and between subcarrier
 * k and position j (a DMRS block's subcarriers averaged). */
void estm_corr_pp(const link_params *p, const tdl_grid *g, const pilot_geo *v, int i, int j, cd *n, cd *l);
void estm_corr_kp(const link_params *p, const tdl_grid *g, const pilot_geo *v, int k, int j, cd *n, cd *l);

/* DMRS: the other ports' residue in a despread estimate, in three sign
 * patterns (estimate_model.c): frequency flipped, time, both. */
enum { LEAK_F, LEAK_T, LEAK_FT, LEAK_PATTERNS };
/* The ports of each pattern in t's CDM group (all 0 for the comb). */
void estm_leak_counts(const est_plan *e, int t, int *cnt);
/* Pattern pat's frequency part between window positions i and j. */
void estm_leak_corr(const link_params *p, const tdl_grid *g, const pilot_geo *v, int pat, int i, int j, cd *n,
                    cd *l);
/* Its time part between the occasions at symbols sa and sb (len each). */
void estm_leak_time(const link_params *p, int len, int pat, int sa, int sb, double *n, double *l);

#endif
