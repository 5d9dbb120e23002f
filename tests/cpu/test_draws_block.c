/* The CPU's vector draws (cpu/draws_block.h) against the per-RE steps of
 * core/re.h, bit for bit:
 *   - rng_block (its AVX-512 or AVX2 lanes where the host has them) and
 *     rng_block_gen (one counter at a time) = Random123's Philox (rng_draw)
 *     word for word, across the 2^32 carry of the counter and the 2^64 wrap,
 *     for every run length up to 40 and then some up to 600;
 *   - block_symbols, block_pair_draws, block_channel (awgn, rayleigh, with
 *     spatial correlation and a Rician part), block_apply (with noise) and
 *     block_csi equal re_labels/re_symbols, re_pair_draws, re_channel,
 *     re_apply and re_csi at every RE, with pilots too (the comb and NR
 *     DMRS), for runs that start
 *     anywhere in the frame;
 *   - the host's logarithm and sine/cosine (core/rng_math.h) against double
 *     precision over 2^24 uniforms and the ends of their range, and the
 *     normals' moments and tails over 2^27 draws. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "core/rng.h"
#include "cpu/draws_block.h"
#include "testparams.h"
#include "testutil.h"

static int same_cf(cf32 a, cf32 b) { return !memcmp(&a, &b, sizeof a); }

static void test_philox(void) {
  const uint64_t key = 0x0123456789abcdefULL;
  static const uint64_t starts[] = {0, 7, (1ULL << 32) - 37, 0xfffffffffffff000ULL, 123456789012ULL};
  uint32_t w[4 * 600];
  for (size_t s = 0; s < sizeof starts / sizeof *starts; s++)
    for (size_t n = 1; n <= 600; n += n < 40 ? 1 : 97) {
      for (int gen = 0; gen < 2; gen++) {
        (gen ? rng_block_gen : rng_block)(key, RNG_NOISE, 77, starts[s], n, w, 600);
        int bad = 0;
        for (size_t i = 0; i < n; i++) {
          const rng_words r = rng_draw(key, RNG_NOISE, 77, starts[s] + i);
          for (int k = 0; k < 4; k++) bad += w[k * 600 + i] != r.w[k];
        }
        CHECK(bad == 0, "%s from %llu, %zu draws: %d words differ", gen ? "rng_block_gen" : "rng_block",
              (unsigned long long)starts[s], n, bad);
      }
    }
}

/* A point with the given channel, noise and CSI error (Eb/N0 8 dB). */
static link_params point(int tx, int rx, int bps, channel_model model, double rho, double k, double csi, int pilots) {
  link_params p = tp_point(tx, rx, bps, model, 300, 3, 37);
  p.equalizer = EQ_MMSE;
  p.snr_kind = SNR_EBNO;
  p.snr_db = 8.0;
  p.n0 = link_noise_variance(p.snr_kind, p.snr_db, tx, bps);
  p.rho_tx = rho;
  p.rho_rx = rho / 2;
  p.k_factor = k;
  p.csi_error_var = csi;
  p.seed = 5;
  if (pilots == 2) tp_dmrs(&p, 1, 1, 1); /* NR DMRS on symbol 2 (a 3-symbol slot has no other occasion) */
  else if (pilots) {
    p.pilot_spacing = tx + 1;
    p.pilot_first = 1;
  }
  p.stream_key = link_stream_key(&p);
  return p;
}

static void check_point(const link_params *p, const char *what) {
  chan_spatial sp;
  char err[256];
  if (chan_spatial_init(p, &sp, err, sizeof err)) {
    CHECK(0, "%s: %s", what, err);
    return;
  }
  re_ctx c = re_ctx_of(p, &sp);
  uint32_t *seq = NULL; /* DMRS: the sequence its pilot REs send */
  if (p->pilot_kind == PILOT_DMRS) {
    dmrs_grid *d = &c.pilots.dm;
    seq = malloc(sizeof(uint32_t) * (size_t)(d->occasions * d->len) * (size_t)d->seq_words);
    CHECK(seq != NULL, "no memory");
    if (!seq) return;
    dmrs_fill_sequence(d, p->dmrs_nid, seq);
    d->seq = seq;
  }
  const int tx = p->tx, rx = p->rx, links = tx * rx;
  enum { LD = 700 };
  static uint8_t lab[LINK_MAX_TX * LD];
  static cf32 x[LINK_MAX_TX * LD], H[LINK_MAX_RX * LINK_MAX_TX * LD], Hh[LINK_MAX_RX * LINK_MAX_TX * LD],
      y[LINK_MAX_RX * LD];
  static const uint64_t m0s[] = {0, 1, 299, 513};
  static const size_t ns[] = {1, 9, 256, 387};
  int bad = 0;
  for (size_t a = 0; a < 4; a++) {
    const uint64_t m0 = m0s[a], frame = 3 + a;
    const size_t n = ns[a] < c.rf - m0 ? ns[a] : (size_t)(c.rf - m0);
    block_symbols(&c, frame, m0, n, lab, x, LD);
    block_channel(&c, &sp, frame, m0, n, H, LD);
    block_apply(&c, frame, m0, n, H, LD, x, LD, y, LD);
    block_csi(&c, frame, m0, n, H, LD, Hh, LD);
    for (size_t i = 0; i < n; i++) {
      uint32_t l[LINK_MAX_TX];
      cf32 xs[LINK_MAX_TX], h[LINK_MAX_RX * LINK_MAX_TX], scratch[LINK_MAX_RX * LINK_MAX_TX], ys[LINK_MAX_RX];
      re_labels(c, frame, m0 + i, tx, l);
      re_symbols(c, m0 + i, tx, l, xs);
      for (int t = 0; t < tx; t++) bad += lab[t * LD + i] != l[t] || !same_cf(x[t * LD + i], xs[t]);
      re_channel(c, &sp, frame, m0 + i, tx, rx, h, scratch);
      for (int e = 0; e < links; e++) bad += !same_cf(H[e * LD + i], h[e]);
      re_apply(c, frame, m0 + i, tx, rx, h, xs, ys);
      for (int r = 0; r < rx; r++) bad += !same_cf(y[r * LD + i], ys[r]);
      re_csi(c, frame, m0 + i, links, h);
      for (int e = 0; e < links; e++) bad += !same_cf(Hh[e * LD + i], h[e]);
    }
  }
  CHECK(bad == 0, "%s: %d values differ from the per-RE steps", what, bad);
  free(seq);
}

static void test_blocks(void) {
  static const struct {
    int tx, rx, bps;
    channel_model model;
    double rho, k, csi;
    int pilots;
  } cases[] = {
      {1, 1, 1, CH_RAYLEIGH, 0, 0, 0, 0},   {2, 2, 2, CH_RAYLEIGH, 0, 0, 0, 0},
      {2, 3, 4, CH_RAYLEIGH, 0.5, 0, 0.1, 0}, {4, 4, 6, CH_RAYLEIGH, 0.3, 2.0, 0, 1},
      {3, 5, 8, CH_RAYLEIGH, 0, 0, 0.05, 1}, {4, 4, 2, CH_AWGN, 0, 0, 0, 0},
      {8, 8, 4, CH_RAYLEIGH, 0.2, 0, 0.01, 0}, {5, 7, 2, CH_RAYLEIGH, 0, 1.0, 0, 1},
      {4, 4, 4, CH_RAYLEIGH, 0, 0, 0, 2},   {2, 3, 2, CH_RAYLEIGH, 0.3, 0, 0.05, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const link_params p = point(cases[i].tx, cases[i].rx, cases[i].bps, cases[i].model, cases[i].rho, cases[i].k,
                                cases[i].csi, cases[i].pilots);
    char what[96];
    snprintf(what, sizeof what, "%dx%d bps %d model %d rho %g K %g csi %g pilots %d", p.tx, p.rx, p.bps, (int)p.model,
             p.rho_tx, p.k_factor, p.csi_error_var, cases[i].pilots);
    check_point(&p, what);
  }
  /* block fading: runs of a symbol's subcarriers, or one draw over the run
   * (the runs above cross symbols: K = 300 in point()) */
  for (int f = FADING_BLOCK; f <= FADING_FLAT_BLOCK; f++) {
    link_params p = point(2, 3, 4, CH_RAYLEIGH, 0.5, f == FADING_BLOCK ? 1.0 : 0.0, 0.1, 1);
    p.fading = (fading_kind)f;
    p.stream_key = link_stream_key(&p);
    char what[96];
    snprintf(what, sizeof what, "2x3 rayleigh, fading %s", fading_kind_name(p.fading));
    check_point(&p, what);
  }
}

/* The host's ln and sin/cos against double precision: relative error of ln
 * within 4 x 2^-24, absolute error of sin and cos within 2 x 2^-24. */
static void test_math(void) {
  double worst_l = 0, worst_sc = 0;
  for (uint64_t k = 0; k < (1ULL << 24); k++) {
    const uint32_t word = (uint32_t)(k * 256 + (k * 2654435761u) % 256);
    const float u = rng_u01(word);
    const double l = log((double)u), lf = rng_logf(u);
    if (u != 1.0f) worst_l = fmax(worst_l, fabs(lf - l) / fabs(l));
    float s, c;
    rng_sincos_turns(u, &s, &c);
    const double t = 6.283185307179586 * (double)u;
    worst_sc = fmax(worst_sc, fmax(fabs(s - sin(t)), fabs(c - cos(t))));
  }
  const float ends[] = {rng_u01(0), rng_u01(1), rng_u01(0xffffffffu), rng_u01(0x80000000u), 0.5f, 0.25f, 0.125f};
  for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
    const double l = log((double)ends[i]);
    if (ends[i] != 1.0f) worst_l = fmax(worst_l, fabs(rng_logf(ends[i]) - l) / fabs(l));
  }
  CHECK(rng_logf(1.0f) == 0.0f, "ln 1 = %g", rng_logf(1.0f));
  CHECK(worst_l <= 4.0 * 5.9604645e-8, "ln: worst relative error %.3g", worst_l);
  CHECK(worst_sc <= 2.0 * 5.9604645e-8, "sin/cos: worst absolute error %.3g", worst_sc);
  fprintf(stderr, "ln: worst relative error %.2f x 2^-24; sin/cos: worst absolute error %.2f x 2^-24\n",
          worst_l / 5.9604645e-8, worst_sc / 5.9604645e-8);
}

/* 2^27 CN(0,1) draws: E|z|^2 = 1, E|z|^4 = 2, E z = 0, each component's
 * variance 1/2, and P(|Re z| sqrt 2 > a) = erfc(a / sqrt 2) for a = 3, 4, 5,
 * each within 5 standard errors. */
static void test_normals(void) {
  const size_t n = 1u << 27, tile = 4096;
  uint32_t *w = malloc(sizeof(uint32_t) * 4 * tile);
  double m1r = 0, m1i = 0, m2 = 0, m4 = 0, vr = 0;
  uint64_t tails[3] = {0, 0, 0};
  for (size_t j = 0; j < n / 2; j += tile) {
    rng_block(42, RNG_CHANNEL, 9, j, tile, w, tile);
    for (size_t i = 0; i < tile; i++)
      for (int h = 0; h < 2; h++) {
        const cf32 z = rng_cnormal(w[(2 * h) * tile + i], w[(2 * h + 1) * tile + i]);
        const double a2 = (double)z.re * z.re + (double)z.im * z.im;
        m1r += z.re, m1i += z.im, m2 += a2, m4 += a2 * a2, vr += (double)z.re * z.re;
        const double g = fabs(z.re) * 1.4142135623730951;
        for (int t = 0; t < 3; t++) tails[t] += g > 3.0 + t;
      }
  }
  free(w);
  const double N = (double)n;
  CHECK(fabs(m1r / N) < 5 * sqrt(0.5 / N) && fabs(m1i / N) < 5 * sqrt(0.5 / N), "mean (%.3g, %.3g)", m1r / N,
        m1i / N);
  CHECK(fabs(m2 / N - 1.0) < 5 * sqrt(1.0 / N), "E|z|^2 = %.6f", m2 / N);           /* Var |z|^2 = 1 */
  CHECK(fabs(m4 / N - 2.0) < 5 * sqrt(20.0 / N), "E|z|^4 = %.6f", m4 / N);          /* Var |z|^4 = 24 - 4 */
  CHECK(fabs(vr / N - 0.5) < 5 * sqrt(0.5 / N), "E Re(z)^2 = %.6f", vr / N);         /* Var = 2 (1/2)^2 */
  for (int t = 0; t < 3; t++) {
    const double p = erfc((3.0 + t) / 1.4142135623730951), got = (double)tails[t] / N;
    CHECK(fabs(got - p) < 5 * sqrt(p * (1 - p) / N), "P(|x| > %d) = %.4g, expected %.4g", 3 + t, got, p);
    fprintf(stderr, "P(|x| > %d): %.4g, expected %.4g (%llu draws)\n", 3 + t, got, p, (unsigned long long)tails[t]);
  }
}

int main(void) {
  test_philox();
  test_blocks();
  test_math();
  test_normals();
  return test_finish("test_draws_block");
}
