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
 * The lanes' weights are laid out lane-major once a point (est_2d_lanes),
 * for the blocks of EST_2D_LANES subcarriers from subcarrier 0, with each
 * block's windows and masks, and serve every frame and every receive
 * antenna; the sums stay in registers for 1, 2 and 4 rows. Measured on one
 * core (AMD EPYC, AVX-512, `CASES=lmmse2d scripts/bench-paths.sh cpu 1`,
 * 4x4 16-QAM): lmmse2d on the comb went from 14 Mbit/s (est_2d a RE) to
 * 46 with the lanes, their weights copied lane-major a call, and to 63
 * with the table made once (the copy had been more than half of a call's
 * instructions); DMRS from 16 to 36 to 60-65. What is left is the filter
 * itself, 64 complex products a RE and link, 4,096 FMAs a RE: at the
 * core's peak of 32 FMAs a cycle 128 cycles, more than the ideal link's
 * whole RE (some 100). */
#include "channel/estimate_2d_block.h"

#include <stdlib.h>

#include "channel/estimate.h"
#include "core/params.h"

#pragma GCC target("prefer-vector-width=512")

enum { LANES = EST_2D_LANES, SPAN_MAX = 2 * EST_LMMSE_TAPS };

/* One pilot's weights in the lanes: lane l's weight for pilot cmin + c of a
 * window row (its tap c + cmin - i0[l]), 0 where the lane's window does
 * not hold that pilot. */
typedef struct {
  float re[LANES], im[LANES];
} lane_pair;

/* The lanes' windows: lane l is subcarrier k0 + l (past n: the last
 * subcarrier again, computed, not stored). Sets each lane's weights' start
 * in w (wbase), its first pilot's place in the run (d), the run's first
 * pilot (cmin, unwrapped) and length (span), and each pilot's lanes (on).
 * 0, or -1 where the lanes' windows lie too far apart for one run (one
 * wrapped across DC): those take est_2d a RE at a time. */
static int lane_windows(const int *first, int taps, int tt, int S, int K, int t, int s, int k0, int n,
                        size_t *wbase, int *d, int *cmin, int *span, uint32_t *on) {
  int i0[LANES], lo = 0, hi = 0;
  for (int l = 0; l < LANES; l++) {
    const int k = k0 + (l < n ? l : n - 1);
    i0[l] = first[(size_t)t * (size_t)K + (size_t)k];
    wbase[l] = (((size_t)t * (size_t)S + (size_t)s) * (size_t)K + (size_t)k) * (size_t)(tt * taps);
    if (l == 0 || i0[l] < lo) lo = i0[l];
    if (l == 0 || i0[l] > hi) hi = i0[l];
  }
  *cmin = lo;
  *span = hi + taps - lo; /* taps + the lanes' spread of firsts */
  if (*span > SPAN_MAX || taps > EST_LMMSE_TAPS) return -1;
  for (int l = 0; l < LANES; l++) d[l] = i0[l] - lo;
  for (int c = 0; c < *span; c++) {
    on[c] = 0;
    for (int l = 0; l < LANES; l++)
      if (c >= d[l] && c < d[l] + taps) on[c] |= 1u << l;
  }
  return 0;
}

/* Window row j's weights into ws[0 .. span), lane-major (the places no
 * lane's window holds stay as they are: zeros). */
static void lane_weights_row(lane_pair *ws, const cf32 *w, const size_t *wbase, const int *d, int taps, int j) {
  for (int l = 0; l < LANES; l++) {
    const cf32 *wl = w + wbase[l] + (size_t)(j * taps);
    for (int i = 0; i < taps; i++) {
      ws[d[l] + i].re[l] = wl[i].re;
      ws[d[l] + i].im[l] = wl[i].im;
    }
  }
}

/* The sums for NR receive rows (a constant where it is inlined: the sums
 * then stay in registers): acc[q] += w b for every pilot of every window
 * row, lane by lane under the lanes' masks, the weights tab's rows (tt x
 * span). */
static inline __attribute__((always_inline)) void lane_sums(int NR, const lane_pair *tab, const uint32_t *on,
                                                            int tt, int cmin, int span, int np, int off, int step,
                                                            const cf32 *const *rows, size_t row_stride,
                                                            float (*are)[LANES], float (*aim)[LANES]) {
  for (int j = 0; j < tt; j++) {
    const lane_pair *ws = tab + (size_t)j * (size_t)span;
    for (int c = 0; c < span; c++) {
      const int cp = cmin + c;
      /* est_2d's wrap across DC (i0 < np and taps <= np: at most once) */
      const size_t col = (size_t)j * row_stride + (size_t)off + (size_t)(cp < np ? cp : cp - np) * (size_t)step;
      const uint32_t m = on[c];
      for (int q = 0; q < NR; q++) {
        const cf32 b = rows[q][col];
        for (int l = 0; l < LANES; l++) {
          /* cf_fma_exact(acc, w, b) where lane l's window holds pilot cp */
          const float re = fmaf(ws[c].re[l], b.re, fmaf(-ws[c].im[l], b.im, are[q][l]));
          const float im = fmaf(ws[c].re[l], b.im, fmaf(ws[c].im[l], b.re, aim[q][l]));
          are[q][l] = (m >> l) & 1u ? re : are[q][l];
          aim[q][l] = (m >> l) & 1u ? im : aim[q][l];
        }
      }
    }
  }
}

/* The sums of every lane of a block, then lanes o .. o + n - 1 out
 * (cf_scale(acc, shrink)) as subcarriers 0 .. n - 1 of out. */
static void lane_block(const lane_pair *tab, const uint32_t *on, int tt, int cmin, int span, int np, int off,
                       int step, int nrows, const cf32 *const *rows, size_t row_stride, float shrink, int o, int n,
                       cf32 *const *out) {
  float are[LINK_MAX_RX][LANES], aim[LINK_MAX_RX][LANES];
  for (int q = 0; q < nrows; q++)
    for (int l = 0; l < LANES; l++) are[q][l] = aim[q][l] = 0.0f;
#define SUMS_(NR) lane_sums(NR, tab, on, tt, cmin, span, np, off, step, rows, row_stride, are, aim)
  switch (nrows) {
    case 1: SUMS_(1); break;
    case 2: SUMS_(2); break;
    case 4: SUMS_(4); break;
    default: SUMS_(nrows); break;
  }
#undef SUMS_
  for (int q = 0; q < nrows; q++)
    for (int l = 0; l < n; l++) out[q][l] = cf_scale(cf_make(are[q][o + l], aim[q][o + l]), shrink);
}

/* A block of LANES subcarriers from a multiple of LANES: its windows and
 * its weights (span 0: the RE-at-a-time fallback). */
typedef struct {
  int cmin, span;
  size_t at; /* its tt x span lane_pairs in pairs */
  int d[LANES];
  uint32_t on[SPAN_MAX];
} lanes_block;

struct est_2d_lanes {
  const int *first;
  const cf32 *w;
  int taps, tt, S, K, per_ts; /* blocks a (t, s) */
  lanes_block *blk;           /* [t][s][block] */
  lane_pair *pairs;
};

est_2d_lanes *est_2d_lanes_create(const int *first, const cf32 *w, int taps, int tt, int tx, int S, int K) {
  est_2d_lanes *L = calloc(1, sizeof *L);
  if (!L) return NULL;
  *L = (est_2d_lanes){.first = first, .w = w, .taps = taps, .tt = tt, .S = S, .K = K,
                      .per_ts = (K + LANES - 1) / LANES};
  const size_t nblk = (size_t)tx * (size_t)S * (size_t)L->per_ts;
  L->blk = calloc(nblk, sizeof *L->blk);
  if (!L->blk) goto fail;
  /* the windows first, to size the weights */
  size_t total = 0, wbase[LANES];
  for (int t = 0; t < tx; t++)
    for (int s = 0; s < S; s++)
      for (int b = 0; b < L->per_ts; b++) {
        lanes_block *B = &L->blk[((size_t)t * (size_t)S + (size_t)s) * (size_t)L->per_ts + (size_t)b];
        const int k0 = b * LANES, n = K - k0 < LANES ? K - k0 : LANES;
        if (lane_windows(first, taps, tt, S, K, t, s, k0, n, wbase, B->d, &B->cmin, &B->span, B->on)) B->span = 0;
        B->at = total;
        total += (size_t)tt * (size_t)B->span;
      }
  L->pairs = calloc(total ? total : 1, sizeof *L->pairs);
  if (!L->pairs) goto fail;
  for (int t = 0; t < tx; t++)
    for (int s = 0; s < S; s++)
      for (int b = 0; b < L->per_ts; b++) {
        lanes_block *B = &L->blk[((size_t)t * (size_t)S + (size_t)s) * (size_t)L->per_ts + (size_t)b];
        if (!B->span) continue;
        const int k0 = b * LANES, n = K - k0 < LANES ? K - k0 : LANES;
        for (int l = 0; l < LANES; l++) {
          const int k = k0 + (l < n ? l : n - 1);
          wbase[l] = (((size_t)t * (size_t)S + (size_t)s) * (size_t)K + (size_t)k) * (size_t)(tt * taps);
        }
        for (int j = 0; j < tt; j++)
          lane_weights_row(L->pairs + B->at + (size_t)j * (size_t)B->span, w, wbase, B->d, taps, j);
      }
  return L;
fail:
  est_2d_lanes_destroy(L);
  return NULL;
}

void est_2d_lanes_destroy(est_2d_lanes *L) {
  if (!L) return;
  free(L->blk);
  free(L->pairs);
  free(L);
}

void est_2d_lanes_execute(const est_2d_lanes *L, int t, int s, int k0, int n, int np, int off, int step, int nrows,
                          const cf32 *const *rows, size_t row_stride, float shrink, cf32 *const *out) {
  cf32 *piece[LINK_MAX_RX];
  for (int done = 0; done < n;) { /* the run's part in each block it touches */
    const int k = k0 + done, b = k / LANES, o = k - b * LANES, m = n - done < LANES - o ? n - done : LANES - o;
    const lanes_block *B = &L->blk[((size_t)t * (size_t)L->S + (size_t)s) * (size_t)L->per_ts + (size_t)b];
    for (int q = 0; q < nrows; q++) piece[q] = out[q] + done;
    if (B->span)
      lane_block(L->pairs + B->at, B->on, L->tt, B->cmin, B->span, np, off, step, nrows, rows, row_stride, shrink, o,
                 m, piece);
    else /* the block's windows lie too far apart for one run (one wrapped across DC): est_2d a RE at a time */
      for (int q = 0; q < nrows; q++)
        for (int l = 0; l < m; l++)
          piece[q][l] = est_2d(L->first, L->w, L->taps, L->tt, L->S, L->K, t, s, k + l, np, off, step, rows[q],
                               row_stride, shrink);
    done += m;
  }
}
