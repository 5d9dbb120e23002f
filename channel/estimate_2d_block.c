/* est_2d for EST_2D_LANES subcarriers at once (estimate_2d_block.h).
 *
 * est_2d sums tt x taps products a RE and link, in window order (row j,
 * then tap i), with cf_fma_exact; tap i of subcarrier k reads pilot
 * (first[k] + i) mod np. Here the subcarriers are the lanes, and the loop
 * runs over the pilots c (unwrapped: from the lanes' smallest first to
 * their largest first + taps - 1) instead of the taps: pilot c is tap
 * c - first[k] of every lane whose window holds it, and those lanes take
 * that one product, masked, the others keep their sum untouched. For each
 * lane the taps still come in est_2d's order (c ascending is i ascending),
 * so each lane's value is est_2d's bit for bit. What that buys: a pilot is
 * one value for all lanes (a broadcast, not a gather), and a (j, c)'s
 * lane weights serve every receive antenna (the weights do not depend on
 * it). Lanes of adjacent subcarriers share most of their windows, so the
 * pilots run is taps + a few (comb of 4: 16 subcarriers span 4 pilots).
 * The lanes' weights go to a lane-major table once a window row and call
 * (lane_weights), shared by every receive antenna; the sums stay in
 * registers for 1, 2 and 4 rows. Measured on one core (AMD EPYC, AVX-512,
 * `CASES=lmmse2d scripts/bench-paths.sh cpu 1`, 4x4 16-QAM): lmmse2d on
 * the comb went from 14 to 46 Mbit/s (3% to 10% of the ideal link), on
 * DMRS from 16 to 36. What is left is the filter itself, 64 complex
 * products a RE and link, 4,096 FMAs a RE: at the core's peak of 32 FMAs a
 * cycle 128 cycles, more than the ideal link's whole RE (some 100). */
#include "channel/estimate_2d_block.h"

#include "channel/estimate.h"
#include "core/params.h"

#pragma GCC target("prefer-vector-width=512")

enum { LANES = EST_2D_LANES };

/* The window's weights, lane-major for a pilot loop: ws[c][l] is lane l's
 * weight for pilot cmin + c of window row j (its tap c + cmin - i0[l]), 0
 * where the lane's window does not hold that pilot (zeroed once a call:
 * every row writes the same places). */
typedef struct {
  float re[2 * EST_LMMSE_TAPS][LANES], im[2 * EST_LMMSE_TAPS][LANES];
} lane_weights;

static inline __attribute__((always_inline)) void lane_weights_row(lane_weights *ws, const cf32 *w,
                                                                   const size_t *wbase, const int *d, int taps,
                                                                   int j) {
  for (int l = 0; l < LANES; l++) {
    const cf32 *wl = w + wbase[l] + (size_t)(j * taps);
    for (int i = 0; i < taps; i++) {
      ws->re[d[l] + i][l] = wl[i].re;
      ws->im[d[l] + i][l] = wl[i].im;
    }
  }
}

/* Step 2 for NR receive rows (a constant where it is inlined: the sums then
 * stay in registers): acc[q] += w b for every pilot of every window row,
 * lane by lane under the lanes' masks. */
static inline __attribute__((always_inline)) void lane_sums(int NR, const cf32 *w, const size_t *wbase,
                                                            const int *d, const uint32_t *on, int taps, int tt,
                                                            int cmin, int span, int np, int off, int step,
                                                            const cf32 *const *rows, size_t row_stride,
                                                            float (*are)[LANES], float (*aim)[LANES]) {
  lane_weights ws;
  for (int c = 0; c < span; c++)
    for (int l = 0; l < LANES; l++) ws.re[c][l] = ws.im[c][l] = 0.0f;
  for (int j = 0; j < tt; j++) {
    lane_weights_row(&ws, w, wbase, d, taps, j);
    for (int c = 0; c < span; c++) {
      const int cp = cmin + c;
      /* est_2d's wrap across DC (i0 < np and taps <= np: at most once) */
      const size_t col = (size_t)j * row_stride + (size_t)off + (size_t)(cp < np ? cp : cp - np) * (size_t)step;
      const uint32_t m = on[c];
      for (int q = 0; q < NR; q++) {
        const cf32 b = rows[q][col];
        for (int l = 0; l < LANES; l++) {
          /* cf_fma_exact(acc, w, b) where lane l's window holds pilot cp */
          const float re = fmaf(ws.re[c][l], b.re, fmaf(-ws.im[c][l], b.im, are[q][l]));
          const float im = fmaf(ws.re[c][l], b.im, fmaf(ws.im[c][l], b.re, aim[q][l]));
          are[q][l] = (m >> l) & 1u ? re : are[q][l];
          aim[q][l] = (m >> l) & 1u ? im : aim[q][l];
        }
      }
    }
  }
}

void est_2d_block(const int *first, const cf32 *w, int taps, int tt, int S, int K, int t, int s, int k0, int n,
                  int np, int off, int step, int nrows, const cf32 *const *rows, size_t row_stride, float shrink,
                  cf32 *const *out) {
  /* 1. each lane's first pilot and weights; lanes past n repeat the last
   * subcarrier (computed, not stored) */
  int i0[LANES], d[LANES];
  size_t wbase[LANES];
  int cmin = 0, cmax = 0;
  for (int l = 0; l < LANES; l++) {
    const int k = k0 + (l < n ? l : n - 1);
    i0[l] = first[(size_t)t * (size_t)K + (size_t)k];
    wbase[l] = (((size_t)t * (size_t)S + (size_t)s) * (size_t)K + (size_t)k) * (size_t)(tt * taps);
    if (l == 0 || i0[l] < cmin) cmin = i0[l];
    if (l == 0 || i0[l] > cmax) cmax = i0[l];
  }
  cmax += taps - 1;
  const int span = cmax - cmin + 1; /* taps + the lanes' spread of firsts */
  if (span > 2 * EST_LMMSE_TAPS || taps > EST_LMMSE_TAPS) {
    /* lanes whose windows lie far apart (one wrapped across DC): a RE at a time */
    for (int q = 0; q < nrows; q++)
      for (int l = 0; l < n; l++)
        out[q][l] = est_2d(first, w, taps, tt, S, K, t, s, k0 + l, np, off, step, rows[q], row_stride, shrink);
    return;
  }
  /* each pilot's lanes: those whose window holds it */
  uint32_t on[2 * EST_LMMSE_TAPS];
  for (int l = 0; l < LANES; l++) d[l] = i0[l] - cmin;
  for (int c = 0; c < span; c++) {
    on[c] = 0;
    for (int l = 0; l < LANES; l++)
      if (c >= d[l] && c < d[l] + taps) on[c] |= 1u << l;
  }
  /* 2. the sums, pilot by pilot: lane l takes pilot c as its tap c - i0[l] */
  float are[LINK_MAX_RX][LANES], aim[LINK_MAX_RX][LANES];
  for (int q = 0; q < nrows; q++)
    for (int l = 0; l < LANES; l++) are[q][l] = aim[q][l] = 0.0f;
#define SUMS_(NR) lane_sums(NR, w, wbase, d, on, taps, tt, cmin, span, np, off, step, rows, row_stride, are, aim)
  switch (nrows) {
    case 1: SUMS_(1); break;
    case 2: SUMS_(2); break;
    case 4: SUMS_(4); break;
    default: SUMS_(nrows); break;
  }
#undef SUMS_
  /* 3. cf_scale(acc, shrink), the lanes that are subcarriers */
  for (int q = 0; q < nrows; q++)
    for (int l = 0; l < n; l++) out[q][l] = cf_scale(cf_make(are[q][l], aim[q][l]), shrink);
}
