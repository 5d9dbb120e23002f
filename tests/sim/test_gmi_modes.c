/* receiver.gmi on the CPU backend, on identical draws (the same point but
 * for the key, which stays out of the random streams):
 *   - s1: each frame's per-stream s = 1 loss is sup's to the quantum, and
 *     its sum over the streams is sup's grid column k = GMI_GRID_S1; the
 *     grid is not computed (batch_result.gmi_loss_s not asked for, as the
 *     driver asks: link_gmi_grid);
 *   - none: the bit errors and fallbacks of every frame and stream, and the
 *     exported LLRs and bits, are sup's exactly; no loss is asked for;
 *   - the report's estimate (tally_gmi_sup): s1 gives the GMI at s = 1 with
 *     the interval of its mean loss and no s*, none gives NaN throughout;
 *     the stream key does not depend on the key.
 * Every detector with soft outputs (zf, mmse with max-log and exact LLRs on
 * the fused and the staged path, LS estimation from pilots, mmse-sic,
 * kbest, ml). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel/estimate.h"
#include "core/gmi_grid.h"
#include "linktest.h"
#include "results/chunks.h"
#include "results/gmi_sup.h"
#include "sim/backends.h"
#include "testutil.h"

enum { FRAMES = 6 };

typedef struct run_out {
  uint32_t errors[FRAMES * LINK_MAX_TX], fallbacks[FRAMES];
  uint64_t loss[FRAMES * LINK_MAX_TX], grid[FRAMES * GMI_GRID];
  float *llr;
  uint8_t *bits;
} run_out;

/* FRAMES frames of p through the cpu backend (staged or not), the GMI sums
 * asked for as the driver asks for them (link_gmi_loss, link_gmi_grid); with
 * `capture`, a second run exports the LLRs and bits. */
static void run(const link_params *p, int staged, int capture, run_out *o) {
  backend_options opt;
  memset(&opt, 0, sizeof opt);
  backend_options_set(&opt, "cpu", "staged", staged);
  backend_options_set(&opt, "cpu", "threads", 2);
  char err[512];
  o->llr = NULL;
  o->bits = NULL;
  backend *b = backends_create("cpu", p, &opt, err, sizeof err);
  CHECK(b != NULL, "create: %s", err);
  if (!b) return;
  memset(o->loss, 0xff, sizeof o->loss); /* untouched where not asked: stays so */
  memset(o->grid, 0xff, sizeof o->grid);
  batch_result r = {.errors = o->errors, .fallbacks = o->fallbacks, .gmi_loss = link_gmi_loss(p) ? o->loss : NULL,
                    .gmi_loss_s = link_gmi_grid(p) ? o->grid : NULL};
  CHECK(backend_run(b, 0, FRAMES, &r) == 0, "run: %s", backend_error(b));
  if (capture) {
    const size_t n = (size_t)FRAMES * link_data_res_per_frame(p) * (size_t)p->tx * (size_t)p->bps;
    uint32_t e2[FRAMES * LINK_MAX_TX], f2[FRAMES];
    o->llr = malloc(sizeof(float) * n);
    o->bits = malloc(n);
    batch_result c = {.errors = e2, .fallbacks = f2, .llr = o->llr, .bits = o->bits};
    CHECK(backend_run(b, 0, FRAMES, &c) == 0, "export run: %s", backend_error(b));
  }
  backend_destroy(b);
}

typedef struct spec {
  const char *what;
  int tx, rx, bps;
  eq_kind eq;
  llr_kind llr;
  channel_model model;
  int staged, ls;
} spec;

static link_params point(const spec *s, gmi_kind gmi) {
  link_params p = lt_params(s->tx, s->rx, s->bps, s->eq, s->model, 6.0);
  p.subcarriers = 72;
  p.symbols = 4;
  p.llr = s->llr;
  p.gmi = gmi;
  p.seed = 11;
  p.kbest_k = 16;
  p.llr_clip = 20.0;
  if (s->ls) {
    p.pilot_spacing = 4;
    p.pilot_first = 0;
    p.pilot_every = 0;
    p.estimation = EST_LS;
    p.interpolation = INTERP_LINEAR;
  }
  CHECK(lt_finish(&p) == 0, "%s: finish", s->what);
  char err[256];
  if (s->ls) CHECK(est_resolve(&p, err, sizeof err) == 0, "%s: est_resolve: %s", s->what, err);
  return p;
}

static void test_modes(void) {
  const spec specs[] = {
      {"zf 2x2 qpsk max-log, fused", 2, 2, 2, EQ_ZF, LLR_MAXLOG, CH_RAYLEIGH, 0, 0},
      {"mmse 4x4 16qam max-log, fused", 4, 4, 4, EQ_MMSE, LLR_MAXLOG, CH_RAYLEIGH, 0, 0},
      {"mmse 4x4 16qam exact, staged", 4, 4, 4, EQ_MMSE, LLR_EXACT, CH_RAYLEIGH, 1, 0},
      {"mmse 2x2 64qam exact, tdl, LS linear, fused", 2, 2, 6, EQ_MMSE, LLR_EXACT, CH_TDL, 0, 1},
      {"mmse-sic 4x4 16qam max-log", 4, 4, 4, EQ_MMSE_SIC, LLR_MAXLOG, CH_RAYLEIGH, 1, 0},
      {"kbest 4x4 16qam max-log", 4, 4, 4, EQ_KBEST, LLR_MAXLOG, CH_RAYLEIGH, 1, 0},
      {"ml 2x2 16qam max-log", 2, 2, 4, EQ_ML, LLR_MAXLOG, CH_RAYLEIGH, 1, 0},
  };
  for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
    const spec *s = &specs[i];
    const link_params sup = point(s, GMI_SUP), s1 = point(s, GMI_S1), none = point(s, GMI_NONE);
    CHECK(sup.stream_key == s1.stream_key && sup.stream_key == none.stream_key,
          "%s: receiver.gmi stays out of the stream key", s->what);
    static run_out a, b, c;
    run(&sup, s->staged, 1, &a);
    run(&s1, s->staged, 0, &b);
    run(&none, s->staged, 1, &c);
    const size_t ne = (size_t)FRAMES * (size_t)s->tx;
    CHECK(!memcmp(a.errors, b.errors, sizeof(uint32_t) * ne) && !memcmp(a.errors, c.errors, sizeof(uint32_t) * ne) &&
              !memcmp(a.fallbacks, b.fallbacks, sizeof a.fallbacks) &&
              !memcmp(a.fallbacks, c.fallbacks, sizeof a.fallbacks),
          "%s: every frame's bit errors and fallbacks as sup's", s->what);
    uint64_t errs = 0;
    for (size_t j = 0; j < ne; j++) errs += a.errors[j];
    CHECK(errs > 0, "%s: the point has errors to compare (%llu)", s->what, (unsigned long long)errs);
    CHECK(!memcmp(a.loss, b.loss, sizeof(uint64_t) * ne), "%s: s1's per-stream losses are sup's, quantum for quantum",
          s->what);
    int column = 1, untouched = 1;
    for (int f = 0; f < FRAMES; f++) {
      uint64_t sum = 0;
      for (int t = 0; t < s->tx; t++) sum += b.loss[f * s->tx + t];
      column &= sum == a.grid[f * GMI_GRID + GMI_GRID_S1] && sum > 0;
      for (int k = 0; k < GMI_GRID; k++) untouched &= b.grid[f * GMI_GRID + k] == UINT64_MAX;
    }
    CHECK(column, "%s: s1's frame loss is sup's grid column k = GMI_GRID_S1", s->what);
    CHECK(untouched, "%s: s1 asks for no grid sums", s->what);
    int none_untouched = 1;
    for (size_t j = 0; j < ne; j++) none_untouched &= c.loss[j] == UINT64_MAX;
    CHECK(none_untouched, "%s: none asks for no loss", s->what);
    const size_t nl = (size_t)FRAMES * link_data_res_per_frame(&sup) * (size_t)s->tx * (size_t)s->bps;
    CHECK(a.llr && c.llr && !memcmp(a.llr, c.llr, sizeof(float) * nl) && !memcmp(a.bits, c.bits, nl),
          "%s: none's exported LLRs and bits are sup's", s->what);
    free(a.llr);
    free(a.bits);
    free(c.llr);
    free(c.bits);
  }
}

/* The report's estimate from a tally: s1 is the GMI at s = 1 with its
 * interval (the supremum's machinery is not run on absent grid sums), none
 * has no GMI. */
static void test_estimate(void) {
  sim_point pt;
  memset(&pt, 0, sizeof pt);
  pt.p = lt_params(2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 6.0);
  pt.p.subcarriers = 8;
  pt.p.symbols = 1;
  pt.p.llr = LLR_MAXLOG;
  lt_finish(&pt.p);
  tally t;
  memset(&t, 0, sizeof t);
  /* 4 frames of 8 REs x 4 bits, per-frame losses per RE 0.5, 0.7, 0.6, 0.8 */
  const double per_re[] = {0.5, 0.7, 0.6, 0.8};
  for (int f = 0; f < 4; f++) {
    t.gmi_loss[0] += per_re[f] * 8 * 0.5;
    t.gmi_loss[1] += per_re[f] * 8 * 0.5;
    t.gmi_loss_sq += per_re[f] * per_re[f];
  }
  t.frames = 4;
  t.bits = 4 * 8 * 4;
  gmi_sup g;
  pt.p.gmi = GMI_S1;
  tally_gmi_sup(&pt, &t, 0.95, &g);
  /* mean 0.65, sample sd 0.1290994, t(0.975, 3) = 3.182446: half 0.2054 */
  const double half = 3.182446305284263 * sqrt((0.5 * 0.5 + 0.7 * 0.7 + 0.6 * 0.6 + 0.8 * 0.8 - 4 * 0.65 * 0.65) / 3.0 / 4.0);
  CHECK(fabs(g.gmi - (4.0 - 0.65)) < 1e-12 && fabs(g.gmi - tally_gmi(&pt, &t, -1)) < 1e-12 && isnan(g.s) && !g.edge,
        "s1: gmi %.15g = GMI(1) 3.35 = tally_gmi, s NaN (got %g)", g.gmi, g.s);
  CHECK(fabs(g.lo - (3.35 - half)) < 1e-9 && fabs(g.hi - (3.35 + half)) < 1e-9,
        "s1: the interval [%.9f, %.9f] is the mean loss's t interval [%.9f, %.9f]", g.lo, g.hi, 3.35 - half,
        3.35 + half);
  pt.p.gmi = GMI_NONE;
  tally_gmi_sup(&pt, &t, 0.95, &g);
  CHECK(isnan(g.gmi) && isnan(g.lo) && isnan(g.hi) && isnan(g.s) && isnan(tally_gmi(&pt, &t, -1)),
        "none: no GMI (NaN)");
  pt.p.gmi = GMI_SUP;
  pt.p.llr = LLR_OFF;
  CHECK(!link_gmi_loss(&pt.p) && !link_gmi_grid(&pt.p), "hard decisions: no sums whatever receiver.gmi says");
}

int main(void) {
  test_modes();
  test_estimate();
  return test_finish("test_gmi_modes");
}
