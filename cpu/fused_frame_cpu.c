/* A fused thread's scratch and what it keeps per frame (fused_cpu.h): the
 * frame's channel taps or sinusoids and response, in the time domain the
 * frame through the OFDM modem, and with LS estimation the estimate on the
 * pilot symbols (with NR DMRS: on its occasions, from the despread LS
 * estimates) -- each the staged path's own arithmetic (draws_cpu.c,
 * modem_cpu.c, estimate_cpu.c), made once per frame and thread. */
#include <math.h>
#include <string.h>

#include "channel/estimate_2d_block.h"
#include "cpu/channel_cpu.h"
#include "cpu/draws_block.h"
#include "cpu/fused_cpu.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

/* The arrays of one thread, in carve order: bytes of each (0: absent). */
enum { A_LABELS, A_X, A_H, A_HHAT, A_Y, A_G, A_GINV, A_Z, A_XHAT, A_GDIAG, A_LLR, A_BITS, A_TAPS, A_HK, A_SOS, A_WIN,
       A_HP, A_YPIL, A_PV, A_LS, A_FLABELS, A_FX, A_FY, A_COUNT };

static void sizes(const link_params *p, size_t *b) {
  const size_t tx = (size_t)p->tx, rx = (size_t)p->rx, links = tx * rx, C = CPU_FUSED_CHUNK;
  const size_t K = (size_t)p->subcarriers, rf = (size_t)link_res_per_frame(p);
  const pilot_grid pg = link_pilot_grid(p);
  const size_t ps = (size_t)pilot_symbol_count(&pg);
  const int ls = p->estimation == EST_LS, td = p->domain == DOMAIN_TIME, tdl = p->model == CH_TDL;
  const int dm = pg.kind == PILOT_DMRS;
  memset(b, 0, sizeof(size_t) * A_COUNT);
  b[A_LABELS] = tx * C;
  b[A_X] = sizeof(cf32) * tx * C;
  b[A_H] = sizeof(cf32) * links * C;
  b[A_HHAT] = p->csi_error_var > 0 || ls ? sizeof(cf32) * links * C : 0;
  b[A_Y] = sizeof(cf32) * rx * C;
  b[A_G] = b[A_GINV] = sizeof(cf32) * tx * tx * C;
  b[A_Z] = b[A_XHAT] = sizeof(cf32) * tx * C;
  b[A_GDIAG] = p->llr != LLR_OFF ? sizeof(float) * tx * C : 0;
  b[A_LLR] = p->llr != LLR_OFF ? sizeof(float) * tx * (size_t)p->bps * C : 0;
  b[A_BITS] = p->llr != LLR_OFF ? tx * (size_t)p->bps * C : 0;
  b[A_TAPS] = tdl ? sizeof(cf32) * links * TDL_MAX_TAPS : 0;
  b[A_HK] = tdl ? sizeof(cf32) * links * K : 0;
  b[A_SOS] = link_doppler_per_sample(p) > 0.0 ? sizeof(sos_term) * tdl_fade_terms(p) : 0;
  b[A_WIN] = b[A_SOS] && !link_is_cdl(p) ? sizeof(float) * tdl_fade_terms(p) : 0;
  b[A_HP] = ls && p->interpolation != INTERP_LMMSE2D ? sizeof(cf32) * links * ps * K : 0;
  b[A_YPIL] = ls && !td ? sizeof(cf32) * rx * ps * K : 0;
  b[A_PV] = ls ? sizeof(float) * 2 * FUSED_LANES * (K + EST_LMMSE_TAPS) : 0;
  b[A_LS] = ls && dm ? sizeof(cf32) * links * (size_t)pg.dm.occasions * (size_t)dmrs_pairs(&pg.dm) : 0;
  b[A_FLABELS] = td ? tx * rf : 0;
  b[A_FX] = td ? sizeof(cf32) * tx * rf : 0;
  b[A_FY] = td ? sizeof(cf32) * rx * rf : 0;
}

size_t cpu_fused_scratch_bytes(const link_params *p) {
  size_t b[A_COUNT], sum = 0;
  sizes(p, b);
  for (int a = 0; a < A_COUNT; a++) sum += (b[a] + 63) & ~(size_t)63;
  return sum;
}

fused_scratch fused_carve(const link_params *p, const cpu_state *s, unsigned char *block) {
  (void)s;
  size_t b[A_COUNT], at = 0;
  void *ptr[A_COUNT];
  sizes(p, b);
  for (int a = 0; a < A_COUNT; a++) {
    ptr[a] = b[a] ? block + at : NULL;
    at += (b[a] + 63) & ~(size_t)63;
  }
  fused_scratch f;
  f.labels = ptr[A_LABELS];
  f.x = ptr[A_X];
  f.H = ptr[A_H];
  f.Hhat = ptr[A_HHAT] ? ptr[A_HHAT] : f.H;
  f.y = ptr[A_Y];
  f.G = ptr[A_G];
  f.Ginv = ptr[A_GINV];
  f.z = ptr[A_Z];
  f.xhat = ptr[A_XHAT];
  f.gdiag = ptr[A_GDIAG];
  f.llr = ptr[A_LLR];
  f.bits = ptr[A_BITS];
  f.taps = ptr[A_TAPS];
  f.Hk = ptr[A_HK];
  f.sos = ptr[A_SOS];
  f.win = ptr[A_WIN];
  f.taps_sym = -1;
  f.hp = ptr[A_HP];
  f.ypil = ptr[A_YPIL];
  f.pv = ptr[A_PV];
  f.ls = ptr[A_LS];
  f.frame_labels = ptr[A_FLABELS];
  f.frame_x = ptr[A_FX];
  f.frame_y = ptr[A_FY];
  f.frame = f.est_frame = UINT64_MAX;
  return f;
}

/* The tdl frame's taps (and their response) or sinusoids into f, once. */
static void frame_taps(const link_params *p, cpu_state *s, fused_scratch *f, uint64_t frame) {
  if (f->frame == frame) return;
  if (f->sos) {
    tdl_draw_sos(p, frame, f->sos);
    if (f->win) tdl_frame_window(p, f->sos, f->win);
    f->taps_sym = -1;
  } else {
    tdl_draw_taps(p, &s->spatial, frame, f->taps);
    tdl_response(&s->grid, p->rx * p->tx, f->taps, 0, p->subcarriers, f->Hk, (size_t)p->subcarriers);
  }
  f->frame = frame;
}

void fused_chunk_channel(const link_params *p, cpu_state *s, fused_scratch *f, uint64_t frame, uint64_t m0,
                         size_t n) {
  const size_t C = CPU_FUSED_CHUNK;
  if (p->model != CH_TDL) {
    block_channel(&s->re, &s->spatial, frame, m0, n, f->H, C);
    return;
  }
  frame_taps(p, s, f, frame);
  if (f->sos) {
    fading_frame ff = {f->sos, f->win, f->taps, f->taps_sym};
    chan_fill_fading(p, &s->spatial, &s->grid, &ff, m0, n, f->H, C);
    f->taps_sym = ff.taps_sym;
    return;
  }
  const int links = p->rx * p->tx, K = p->subcarriers;
  for (int e = 0; e < links; e++)
    for (size_t j = 0; j < n;) { /* runs of consecutive subcarriers */
      const size_t k = (size_t)((m0 + j) % (uint64_t)K), run = (size_t)K - k < n - j ? (size_t)K - k : n - j;
      memcpy(f->H + (size_t)e * C + j, f->Hk + (size_t)e * K + k, sizeof(cf32) * run);
      j += run;
    }
}

/* The received rows of the frame's pilot symbols in the frequency domain
 * (with DMRS: of its DMRS symbols, occasion by occasion), drawn chunk by
 * chunk as the chunks will draw them again: f->ypil. */
static void pilot_rows(const link_params *p, cpu_state *s, fused_scratch *f, uint64_t frame) {
  const size_t C = CPU_FUSED_CHUNK, K = (size_t)p->subcarriers;
  const pilot_grid *pg = &s->est.pg;
  const int ps = pilot_symbol_count(pg), dm = pg->kind == PILOT_DMRS;
  for (int j = 0; j < ps; j++) {
    const uint64_t row = (uint64_t)(dm ? dmrs_symbol_at(&pg->dm, j) : pilot_symbol_at(pg, j)) * K;
    for (size_t k0 = 0; k0 < K; k0 += C) {
      const size_t n = K - k0 < C ? K - k0 : C;
      block_symbols(&s->re, frame, row + k0, n, f->labels, f->x, C);
      fused_chunk_channel(p, s, f, frame, row + k0, n);
      block_apply(&s->re, frame, row + k0, n, f->H, C, f->x, C, f->y, C);
      for (int r = 0; r < p->rx; r++)
        memcpy(f->ypil + ((size_t)r * ps + j) * K + k0, f->y + (size_t)r * C, sizeof(cf32) * n);
    }
  }
}

/* est_freq's and est_freq_dmrs's sums (the same products in the same
 * order) taken for a block of subcarriers side by side, so that their
 * chains of fused multiply-adds overlap instead of waiting on each other. */
#define EST_BLOCK 64
void fused_freq_interpolate(const int *first, const cf32 *w, int taps, size_t K, const cf32 *v, cf32 *hp) {
  for (size_t k0 = 0; k0 < K; k0 += EST_BLOCK) {
    const size_t nb = K - k0 < EST_BLOCK ? K - k0 : EST_BLOCK;
    float ar[EST_BLOCK], ai[EST_BLOCK];
    for (size_t q = 0; q < nb; q++) ar[q] = ai[q] = 0.0f;
    for (int i = 0; i < taps; i++)
      for (size_t q = 0; q < nb; q++) {
        const cf32 wk = w[(k0 + q) * (size_t)taps + (size_t)i], y = v[first[k0 + q] + i];
        /* cf_fma_exact(acc, wk, y), component by component */
        ar[q] = fmaf(wk.re, y.re, fmaf(-wk.im, y.im, ar[q]));
        ai[q] = fmaf(wk.re, y.im, fmaf(wk.im, y.re, ai[q]));
      }
    for (size_t q = 0; q < nb; q++) hp[k0 + q] = cf_make(ar[q], ai[q]);
  }
}

/* Subcarrier k, every lane: a weight is read once for all the lanes (the
 * plain C loop; the last subcarriers of the AVX2 one). */
static void interp_lanes_one(const int *first, const cf32 *w, int taps, size_t k, const float *v,
                             cf32 *const out[FUSED_LANES]) {
  enum { L = FUSED_LANES };
  float ar[L], ai[L];
  for (int l = 0; l < L; l++) ar[l] = ai[l] = 0.0f;
  for (int i = 0; i < taps; i++) {
    const cf32 wk = w[k * (size_t)taps + (size_t)i];
    const float *y = v + (size_t)(first[k] + i) * 2 * L;
    for (int l = 0; l < L; l++) {
      ar[l] = fmaf(wk.re, y[l], fmaf(-wk.im, y[L + l], ar[l]));
      ai[l] = fmaf(wk.re, y[L + l], fmaf(wk.im, y[l], ai[l]));
    }
  }
  for (int l = 0; l < L; l++)
    if (out[l]) out[l][k] = cf_make(ar[l], ai[l]);
}

void fused_freq_interpolate_lanes(const int *first, const cf32 *w, int taps, size_t K, const float *v,
                                  cf32 *const out[FUSED_LANES]) {
  size_t k0 = 0;
#if defined(__AVX2__) && defined(__FMA__) && FUSED_LANES == 8
  /* Four subcarriers at a time, the eight lanes one register: eight
   * independent chains. _mm256_fnmadd_ps(a, b, c) is fmaf(-a, b, c) lane by
   * lane, _mm256_fmadd_ps fmaf: the plain loop's operations. */
  for (; k0 + 4 <= K; k0 += 4) {
    __m256 ar[4], ai[4];
    for (int q = 0; q < 4; q++) ar[q] = ai[q] = _mm256_setzero_ps();
    for (int i = 0; i < taps; i++)
      for (int q = 0; q < 4; q++) {
        const cf32 wk = w[(k0 + (size_t)q) * (size_t)taps + (size_t)i];
        const float *y = v + (size_t)(first[k0 + (size_t)q] + i) * 2 * FUSED_LANES;
        const __m256 wr = _mm256_set1_ps(wk.re), wi = _mm256_set1_ps(wk.im);
        const __m256 yr = _mm256_loadu_ps(y), yi = _mm256_loadu_ps(y + FUSED_LANES);
        ar[q] = _mm256_fmadd_ps(wr, yr, _mm256_fnmadd_ps(wi, yi, ar[q]));
        ai[q] = _mm256_fmadd_ps(wr, yi, _mm256_fmadd_ps(wi, yr, ai[q]));
      }
    for (int q = 0; q < 4; q++) {
      float re[FUSED_LANES], im[FUSED_LANES];
      _mm256_storeu_ps(re, ar[q]);
      _mm256_storeu_ps(im, ai[q]);
      for (int l = 0; l < FUSED_LANES; l++)
        if (out[l]) out[l][k0 + (size_t)q] = cf_make(re[l], im[l]);
    }
  }
#endif
  for (; k0 < K; k0++) interp_lanes_one(first, w, taps, k0, v, out);
}

/* Lane l of fused_freq_interpolate_lanes' pilots: pilot i (i < n) is
 * src[(i mod count) stride] (the mod: a comb's wrap across DC), all zeros
 * for src NULL (an unused lane). */
static void lane_pilots(float *pv, int l, const cf32 *src, size_t stride, size_t count, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const cf32 v = src ? src[(i % count) * stride] : cf_make(0.0f, 0.0f);
    pv[i * 2 * FUSED_LANES + (size_t)l] = v.re;
    pv[(i * 2 + 1) * FUSED_LANES + (size_t)l] = v.im;
  }
}

/* LS and the frequency interpolation on each pilot symbol, per link: f->hp
 * (the weights wrapping across DC). The rows of one tx antenna (its rx
 * antennas and pilot symbols) share its weights: FUSED_LANES of them at a
 * time go through fused_freq_interpolate_lanes, their pilots gathered
 * first, once more past the last for the wrap. */
static void estimate_pilots(const link_params *p, const cpu_state *s, fused_scratch *f) {
  enum { L = FUSED_LANES };
  const est_plan *e = &s->est;
  const size_t K = (size_t)p->subcarriers, rf = (size_t)link_res_per_frame(p);
  const int tx = p->tx, rx = p->rx, P = p->pilot_spacing, ps = e->pilot_syms, taps = e->taps, rows = rx * ps;
  for (int t = 0; t < tx; t++) {
    const int np = (int)((K - 1 - (size_t)t) / (size_t)P) + 1;
    const int *first = e->first + (size_t)t * K;
    const cf32 *w = e->w + (size_t)t * K * (size_t)taps;
    for (int g = 0; g < rows; g += L) {
      cf32 *out[L];
      for (int l = 0; l < L; l++) {
        const int row = g + l, r = row / ps, j = row % ps;
        const cf32 *y = row >= rows ? NULL
                        : f->ypil   ? f->ypil + ((size_t)r * ps + j) * K
                                    : f->frame_y + (size_t)r * rf + (size_t)pilot_symbol_at(&e->pg, j) * K;
        lane_pilots(f->pv, l, y ? y + t : NULL, (size_t)P, (size_t)np, (size_t)(np + taps));
        out[l] = y ? f->hp + ((size_t)(r * tx + t) * ps + j) * K : NULL;
      }
      fused_freq_interpolate_lanes(first, w, taps, K, f->pv, out);
    }
  }
}

/* DMRS: the despread LS estimates of every link and occasion into f->ls
 * ([links][occasions][np]), from the pilot rows (DMRS symbol j len + l' is
 * row j len + l') or the frame's received symbols: est_dmrs_ls_rows' sum
 * and scaling, its port's DMRS values taken once for the rx antennas; then,
 * but for lmmse2d (which reads them per RE), each occasion's frequency
 * interpolation into f->hp (a window never wraps): cpu_estimate_stage's
 * sums on the same values. */
static void estimate_dmrs(const link_params *p, const cpu_state *s, fused_scratch *f) {
  const est_plan *e = &s->est;
  const dmrs_grid *d = &e->pg.dm;
  const size_t K = (size_t)p->subcarriers, rf = (size_t)link_res_per_frame(p), np = (size_t)e->np;
  const int tx = p->tx, rx = p->rx, ps = e->pilot_syms, rows = pilot_symbol_count(&e->pg), L = 2 * d->len;
  const float scale = 1.0f / (2.0f * (float)d->len * d->beta * d->beta);
  for (int t = 0; t < tx; t++) {
    const int delta = dmrs_port_delta(d->type, t);
    for (int j = 0; j < ps; j++)
      for (size_t i = 0; i < np; i++) {
        cf32 ca[2 * 2]; /* conj(a) of the block's REs, l' outer, k' inner */
        size_t at[2 * 2]; /* and their offsets in antenna r's rows */
        for (int lp = 0; lp < d->len; lp++)
          for (int kp = 0; kp < 2; kp++) {
            const int knr = d->type == 1 ? 4 * (int)i + 2 * kp + delta : 6 * (int)i + kp + delta;
            const int sym = f->ypil ? j * d->len + lp : d->occ[j] + lp;
            ca[2 * lp + kp] = cf_conj(dmrs_value(d, t, j * d->len + lp, knr));
            at[2 * lp + kp] = (size_t)sym * K + (size_t)dmrs_re_of_nr((int)K, knr);
          }
        for (int r = 0; r < rx; r++) {
          const cf32 *yr = f->ypil ? f->ypil + (size_t)r * (size_t)rows * K : f->frame_y + (size_t)r * rf;
          cf32 acc = cf_make(0.0f, 0.0f);
          for (int q = 0; q < L; q++) acc = cf_fma_exact(acc, ca[q], yr[at[q]]);
          f->ls[((size_t)(r * tx + t) * (size_t)ps + (size_t)j) * np + i] = cf_scale(acc, scale);
        }
      }
  }
  if (e->tt) return;
  /* the rows of one tx antenna (rx antennas and occasions) FUSED_LANES at a
   * time, as estimate_pilots' */
  enum { LN = FUSED_LANES };
  for (int t = 0; t < tx; t++)
    for (int g = 0; g < rx * ps; g += LN) {
      cf32 *out[LN];
      for (int l = 0; l < LN; l++) {
        const int row = g + l, used = row < rx * ps;
        const size_t at = used ? (size_t)((row / ps) * tx + t) * (size_t)ps + (size_t)(row % ps) : 0;
        lane_pilots(f->pv, l, used ? f->ls + at * np : NULL, 1, np, np);
        out[l] = used ? f->hp + at * K : NULL;
      }
      fused_freq_interpolate_lanes(e->first + (size_t)t * K, e->w + (size_t)t * K * (size_t)e->taps, e->taps, K,
                                   f->pv, out);
    }
}

int fused_frame(const link_params *p, cpu_state *s, fused_scratch *f, uint64_t frame) {
  if (p->domain == DOMAIN_TIME) {
    const size_t rf = (size_t)link_res_per_frame(p);
    block_symbols(&s->re, frame, 0, rf, f->frame_labels, f->frame_x, rf);
    if (p->model == CH_TDL) frame_taps(p, s, f, frame);
    /* the modem convolves with the very taps H is made of */
    const cf32 *taps = p->model == CH_TDL && !f->sos ? f->taps : NULL;
    /* (frame_taps made the taps' response: the transform reads it) */
    const cf32 *Hk = p->model == CH_TDL && !f->sos ? f->Hk : NULL;
    if (ofdm_modem_frame_hk(s->modem, frame, f->frame_x, rf, taps, Hk, f->sos, s->re.noise_std, f->frame_y, rf))
      return -1;
  }
  if (p->estimation == EST_LS && f->est_frame != frame) {
    if (p->domain != DOMAIN_TIME) pilot_rows(p, s, f, frame);
    if (s->est.np) estimate_dmrs(p, s, f);
    else if (!s->est.tt) estimate_pilots(p, s, f); /* lmmse2d reads the pilot rows per RE */
    f->est_frame = frame;
  }
  return 0;
}

void fused_chunk_estimate(const link_params *p, const cpu_state *s, fused_scratch *f, uint64_t m0, size_t n) {
  const est_plan *e = &s->est;
  const size_t C = CPU_FUSED_CHUNK, K = (size_t)p->subcarriers;
  const int links = p->rx * p->tx, ps = e->pilot_syms;
  const float shrink = (float)e->shrink;
  if (e->tt) {
    /* lmmse2d: each RE from its window's pilot rows, est_2d's sums as the
     * staged path's (the rows f->ypil, or the frame's received symbols;
     * with DMRS the occasions' LS estimates f->ls), EST_2D_LANES subcarriers
     * of one symbol and every receive antenna of a transmit antenna at once */
    const size_t rf = (size_t)link_res_per_frame(p), np = (size_t)e->np;
    const int tx = p->tx;
    for (size_t j = 0; j < n;) {
      const uint64_t m = m0 + j;
      const int sym = (int)(m / K), k = (int)(m % K), lo = e->sym_lo[sym];
      const int run = (int)(K - (size_t)k < n - j ? K - (size_t)k : n - j);
      /* up to the next of the lane-major table's blocks of EST_2D_LANES
       * subcarriers from 0 (a run across two computes both whole) */
      const int width = run < EST_2D_LANES - k % EST_2D_LANES ? run : EST_2D_LANES - k % EST_2D_LANES;
      for (int t = 0; t < tx; t++) {
        const cf32 *rows[LINK_MAX_RX];
        cf32 *outs[LINK_MAX_RX];
        for (int r = 0; r < p->rx; r++) {
          const int link = r * tx + t;
          outs[r] = f->Hhat + (size_t)link * C + j;
          rows[r] = np ? f->ls + ((size_t)link * (size_t)ps + (size_t)lo) * np
                  : f->ypil ? f->ypil + ((size_t)r * ps + (size_t)lo) * K
                            : f->frame_y + (size_t)r * rf + (size_t)pilot_symbol_at(&e->pg, lo) * K;
        }
        if (np)
          est_2d_lanes_execute(s->lanes2d, t, sym, k, width, e->np, 0, 1, p->rx, rows, np, shrink, outs);
        else
          est_2d_lanes_execute(s->lanes2d, t, sym, k, width, pilot_count(&e->pg, t), t, p->pilot_spacing, p->rx,
                               rows, f->ypil ? K : (size_t)e->pg.every * K, shrink, outs);
      }
      j += (size_t)width;
    }
    return;
  }
  for (int link = 0; link < links; link++) {
    const cf32 *hp = f->hp + (size_t)link * ps * K;
    cf32 *out = f->Hhat + (size_t)link * C;
    for (size_t j = 0; j < n;) { /* runs of one symbol */
      const uint64_t m = m0 + j;
      const int sym = (int)(m / K);
      const size_t k = (size_t)(m % K), run = K - k < n - j ? K - k : n - j;
      const float wl = e->sym_w[sym];
      const cf32 *a = hp + (size_t)e->sym_lo[sym] * K, *b = wl != 1.0f ? a + K : a;
      for (size_t i = 0; i < run; i++) out[j + i] = est_time(wl, a[k + i], b[k + i], shrink);
      j += run;
    }
  }
}
