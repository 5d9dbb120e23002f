/* The GMI over the LLR scaling on the CPU backend's own LLRs (equalizer/soft.h
 * per RE, results/gmi_sup.h at the end):
 *   - matched receivers (exact LLRs, perfect CSI: AWGN, where every stream is
 *     a scalar Gaussian channel, and one stream over Rayleigh with receive
 *     combining): s* near 1, gmi within its half-width of gmi_s1 (s = 1 is
 *     among the scalings the data cannot tell from s*), and on AWGN the BICM
 *     capacity within the interval;
 *   - the same LLRs scaled in this harness by 4 and by 1/3 (too confident,
 *     too cautious): the supremum the same as unscaled (a decoder's scaling
 *     undoes it) within the refinement's error, s* scaled by 1/c, the s = 1
 *     value lower; and the harness's sums of the unscaled LLRs equal the
 *     backend's, quantum for quantum;
 *   - a detector whose LLRs are overconfident (MMSE-SIC, error propagation):
 *     gmi well above gmi_s1 at s* < 1;
 *   - always: gmi >= gmi_s1, gmi >= 0, the grid's s = 1 sum the streams' loss. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bicm_ref.h"
#include "equalizer/soft.h"
#include "linktest.h"
#include "results/gmi_sup.h"
#include "results/stats.h"
#include "sim/backends.h"
#include "testutil.h"

static link_params soft_point(int tx, int rx, int bps, eq_kind eq, channel_model model, double esno_db,
                              llr_kind llr, uint64_t seed) {
  link_params p = lt_params(tx, rx, bps, eq, model, esno_db);
  p.snr_kind = SNR_ESNO;
  p.llr = llr;
  p.seed = seed;
  lt_finish(&p);
  return p;
}

/* The supremum from a run's counts, and the GMI at s = 1 as the run has it. */
static void sup_of(const link_params *p, const lt_counts *c, gmi_sup *g, double *gmi_s1) {
  double loss[GMI_GRID];
  memcpy(loss, c->gmi_loss_s, sizeof loss);
  loss[GMI_GRID_S1] = c->gmi_loss_total;
  const gmi_sums in = {(double)p->tx * p->bps, (double)link_data_res_per_frame(p), c->frames, loss,
                       c->gmi_loss_s_sq, 0};
  gmi_sup_find(&in, 0.95, g);
  *gmi_s1 = in.full - c->gmi_loss_total / ((double)c->frames * in.res);
}

static void common_checks(const char *what, const lt_counts *c, const gmi_sup *g, double gmi_s1) {
  CHECK(g->gmi >= gmi_s1 && g->gmi >= 0.0 && g->lo <= g->gmi && g->gmi <= g->hi && !g->edge,
        "%s: gmi %.5f [%.5f, %.5f] against gmi_s1 %.5f", what, g->gmi, g->lo, g->hi, gmi_s1);
  CHECK(fabs(c->gmi_loss_s[GMI_GRID_S1] - c->gmi_loss_total) <= 1e-12 * c->gmi_loss_total &&
            c->gmi_loss_s_sq[GMI_GRID_S1] == c->gmi_loss_sq,
        "%s: the grid's s = 1 sums are the streams' loss", what);
}

static void test_matched(void) {
  const struct {
    int tx, rx, bps;
    channel_model model;
    double snr;
  } cases[] = {{1, 1, 1, CH_AWGN, 0.0}, {2, 2, 4, CH_AWGN, 8.0}, {1, 2, 2, CH_RAYLEIGH, 4.0},
               {1, 1, 4, CH_RAYLEIGH, 12.0}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    link_params p = soft_point(cases[i].tx, cases[i].rx, cases[i].bps, EQ_MMSE, cases[i].model, cases[i].snr,
                               LLR_EXACT, 300 + i);
    lt_counts c;
    const double bits = (double)test_scaled(400, 40) * (double)link_bits_per_frame(&p);
    CHECK(lt_simulate_gmi("cpu", &p, UINT64_MAX, 1, bits, &c) == 0, "simulates");
    gmi_sup g;
    double gmi_s1;
    sup_of(&p, &c, &g, &gmi_s1);
    const double half = 0.5 * (g.hi - g.lo);
    char what[96];
    snprintf(what, sizeof what, "%dx%d %d bits %s %.0f dB", p.tx, p.rx, p.bps,
             cases[i].model == CH_AWGN ? "awgn" : "rayleigh", cases[i].snr);
    printf("matched %-26s GMI %.5f [%.5f, %.5f] at s %.4f, at s = 1 %.5f\n", what, g.gmi, g.lo, g.hi, g.s, gmi_s1);
    common_checks(what, &c, &g, gmi_s1);
    /* s = 1 as good as s* up to the noise, and s* near 1: GMI(s) falls by
     * far more than the half-width 10% away from a matched optimum */
    CHECK(g.gmi - gmi_s1 <= half && fabs(g.s - 1.0) <= 0.1, "%s: s* %.4f, gmi - gmi_s1 %.2e, half-width %.2e", what,
          g.s, g.gmi - gmi_s1, half);
    if (cases[i].model == CH_AWGN) {
      const double cap = p.tx * bicm_capacity(p.bps, cases[i].snr);
      CHECK(fabs(g.gmi - cap) <= 1.2 * half + 1e-3 * cap, "%s: gmi %.5f, BICM capacity %.5f", what, g.gmi, cap);
    }
  }
}

/* The grid's sums of a point's exported LLRs times c, frame by frame, as a
 * backend sums them (soft_label_loss_grid per stream). */
static void scaled_sums(const link_params *p, uint64_t frames, double c, lt_counts *out, uint64_t *raw) {
  memset(out, 0, sizeof *out);
  backend_options o;
  memset(&o, 0, sizeof o);
  o.max_batch_frames = frames;
  char err[256];
  backend *b = backends_create("cpu", p, &o, err, sizeof err);
  CHECK(b != NULL, "backend: %s", err);
  if (!b) return;
  const size_t df = (size_t)link_data_res_per_frame(p), per_frame = df * (size_t)p->tx * (size_t)p->bps;
  float *llr = malloc(sizeof(float) * per_frame * frames);
  uint8_t *bits = malloc(per_frame * frames);
  uint32_t *e = malloc(sizeof(uint32_t) * frames * ((size_t)p->tx + 1));
  batch_result r = {.errors = e, .fallbacks = e + frames * (size_t)p->tx, .llr = llr};
  CHECK(backend_run(b, 0, frames, &r) == 0, "exports the LLRs");
  batch_result r2 = {.errors = e, .fallbacks = e + frames * (size_t)p->tx, .bits = bits};
  CHECK(backend_run(b, 0, frames, &r2) == 0, "exports the bits");
  for (uint64_t f = 0; f < frames; f++) {
    uint64_t grid[GMI_GRID] = {0}, s1 = 0;
    for (size_t d = 0; d < df * (size_t)p->tx; d++) {
      float l[SOFT_MAX_BPS];
      uint32_t label = 0;
      for (int k = 0; k < p->bps; k++) {
        const size_t at = (f * df * (size_t)p->tx + d) * (size_t)p->bps + (size_t)k;
        l[k] = (float)(c * llr[at]);
        label |= (uint32_t)bits[at] << k;
      }
      s1 += soft_label_loss_grid(p->bps, l, label, grid);
    }
    for (int k = 0; k < GMI_GRID; k++) {
      const double v = ldexp((double)grid[k], -SOFT_LOSS_SHIFT);
      out->gmi_loss_s[k] += v;
      out->gmi_loss_s_sq[k] += (v / (double)df) * (v / (double)df);
      if (raw) raw[f * GMI_GRID + (uint64_t)k] = grid[k];
    }
    const double v = ldexp((double)s1, -SOFT_LOSS_SHIFT);
    out->gmi_loss_total += v;
    out->gmi_loss_sq += (v / (double)df) * (v / (double)df);
  }
  out->frames = frames;
  free(llr);
  free(bits);
  free(e);
  backend_destroy(b);
}

static void test_scaled_llrs(void) {
  link_params p = soft_point(2, 2, 4, EQ_MMSE, CH_AWGN, 10.0, LLR_EXACT, 77);
  const uint64_t frames = test_scaled(200, 30);
  /* the backend's own sums of the same frames */
  backend_options o;
  memset(&o, 0, sizeof o);
  o.max_batch_frames = frames;
  char err[256];
  backend *b = backends_create("cpu", &p, &o, err, sizeof err);
  uint32_t *e = malloc(sizeof(uint32_t) * frames * 3);
  uint64_t *loss = malloc(sizeof(uint64_t) * frames * 2), *grid = malloc(sizeof(uint64_t) * frames * GMI_GRID);
  uint64_t *raw = malloc(sizeof(uint64_t) * frames * GMI_GRID);
  batch_result r = {.errors = e, .fallbacks = e + frames * 2, .gmi_loss = loss, .gmi_loss_s = grid};
  CHECK(b && backend_run(b, 0, frames, &r) == 0, "runs");
  backend_destroy(b);
  lt_counts base;
  scaled_sums(&p, frames, 1.0, &base, raw);
  CHECK(!memcmp(raw, grid, sizeof(uint64_t) * frames * GMI_GRID),
        "the grid's sums of the exported LLRs are the backend's, quantum for quantum");
  gmi_sup g1;
  double s1_1;
  sup_of(&p, &base, &g1, &s1_1);
  const double cs[2] = {4.0, 1.0 / 3.0};
  for (int i = 0; i < 2; i++) {
    lt_counts c;
    scaled_sums(&p, frames, cs[i], &c, NULL);
    gmi_sup g;
    double gmi_s1;
    sup_of(&p, &c, &g, &gmi_s1);
    char what[64];
    snprintf(what, sizeof what, "LLRs x%.3g", cs[i]);
    printf("%-12s GMI %.5f [%.5f, %.5f] at s %.4f, at s = 1 %.5f (unscaled: %.5f at s %.4f)\n", what, g.gmi, g.lo,
           g.hi, g.s, gmi_s1, g1.gmi, g1.s);
    common_checks(what, &c, &g, gmi_s1);
    /* the same frames, so no noise between the two: only the refinement's
     * error (4e-4) and the quanta */
    CHECK(fabs(g.gmi - g1.gmi) <= 5e-4 * g1.gmi && fabs(g.s * cs[i] / g1.s - 1.0) <= 0.05,
          "%s: supremum %.6f at s %.4f, unscaled %.6f at s %.4f", what, g.gmi, g.s, g1.gmi, g1.s);
    CHECK(g.gmi - gmi_s1 > 4.0 * (0.5 * (g.hi - g.lo)), "%s: the scaling gains more than the noise (%.5f vs %.5f)",
          what, g.gmi, gmi_s1);
  }
  free(e);
  free(loss);
  free(grid);
  free(raw);
}

static void test_sic(void) {
  link_params p = soft_point(4, 4, 4, EQ_MMSE_SIC, CH_RAYLEIGH, 16.0, LLR_MAXLOG, 91);
  lt_counts c;
  const double bits = (double)test_scaled(200, 30) * (double)link_bits_per_frame(&p);
  CHECK(lt_simulate_gmi("cpu", &p, UINT64_MAX, 1, bits, &c) == 0, "simulates");
  gmi_sup g;
  double gmi_s1;
  sup_of(&p, &c, &g, &gmi_s1);
  printf("4x4 16-QAM mmse-sic max-log: GMI %.4f [%.4f, %.4f] at s %.4f, at s = 1 %.4f\n", g.gmi, g.lo, g.hi, g.s,
         gmi_s1);
  common_checks("mmse-sic", &c, &g, gmi_s1);
  CHECK(g.gmi - gmi_s1 > 0.5 && g.s < 0.7, "mmse-sic: the overconfident LLRs gain at s* %.3f (%.4f vs %.4f)", g.s,
        g.gmi, gmi_s1);
}

int main(void) {
  test_matched();
  test_scaled_llrs();
  test_sic();
  return test_finish("test_gmi_scaling");
}
