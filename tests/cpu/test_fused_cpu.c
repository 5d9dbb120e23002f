/* The CPU backend's fused path (cpu/fused_cpu.c) against its staged path:
 * for every kind of point the fused path covers (every channel model, zf
 * and mmse, 1x1 to 8x8, BPSK to 256-QAM, spatial correlation, a Rician part,
 * CSI error, pilots, tdl with and without Doppler; max-log and exact LLRs
 * with the GMI losses at every scaling of the grid and the LLR export; LS
 * estimation with nearest, linear and LMMSE interpolation; the time domain
 * with and without Doppler, with perfect CSI and with LS; NR DMRS of both
 * configuration types, single and double symbol, with perfect CSI and with
 * LS and every interpolation in both domains), the bit errors of
 * every frame and stream, the fallbacks of every frame, the GMI losses of
 * every frame and stream and at every grid scaling, and the exported LLRs
 * and bits are the same numbers, whatever the batch size and thread count.
 * mmse-sic with hard decisions too (rayleigh, tdl, pilots, LS, CSI error,
 * the time domain, and stages solved in double at high SNR on correlated
 * antennas). A fused backend keeps no buffers (its fetch fails, which is how
 * the test knows the fused path ran), and points it does not cover (kbest,
 * ml, mmse-sic with LLRs) run staged. A high-SNR ZF case makes the double-precision repair run in
 * both, with LLRs too (the repair writes the demapper's variances). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel/estimate.h"
#include "channel/tdl.h"
#include "core/gmi_grid.h"
#include "cpu_create.h"
#include "testparams.h"
#include "testutil.h"

/* Frames a point: FRAMES, or under the sanitizers (OFDMSIM_TEST_SCALE,
 * test_scaled) 8, which every batch split below still splits (5 + 3, 7 + 1,
 * one by one); the buffers hold FRAMES. */
enum { FRAMES = 24 };
static int frames = FRAMES;

typedef struct spec {
  int tx, rx, bps;
  eq_kind eq;
  channel_model model;
  double ebno, rho, k, csi, doppler;
  int pilots;
  int K;      /* subcarriers (0: 600) */
  int llr;    /* llr_kind */
  int est;    /* 0: the receiver's channel given; 1 + interp_kind: LS from the pilots */
  int td;     /* the time domain */
  int S;      /* symbols (0: 2) */
  int export; /* also export the LLRs and bits */
  int dmrs;   /* NR DMRS instead of the comb: 100 type + 10 length + additional positions (0: none) */
} spec;

/* cdl: 0 for tdl's TDL-A, or a CDL model between cross-polarised rows of
 * elements (channel/cdl_channel.h). */
static link_params point_of(const spec *s, int cdl) {
  link_params p = tp_point(s->tx, s->rx, s->bps, s->model, s->K ? s->K : 600, s->S ? s->S : 2, 75);
  p.equalizer = s->eq;
  p.snr_kind = SNR_EBNO;
  p.snr_db = s->ebno;
  p.n0 = link_noise_variance(p.snr_kind, p.snr_db, p.tx, p.bps);
  p.rho_tx = s->rho;
  p.rho_rx = s->rho;
  p.k_factor = s->k;
  p.csi_error_var = s->csi;
  p.subcarrier_spacing = 30e3;
  p.doppler_hz = s->doppler;
  p.seed = 17;
  if (s->pilots) {
    p.pilot_spacing = s->tx + 2;
    p.pilot_first = 0;
    p.pilot_every = 1;
  }
  if (s->dmrs) tp_dmrs(&p, s->dmrs / 100, s->dmrs / 10 % 10, s->dmrs % 10);
  if (s->est && !s->dmrs) { /* two pilot symbols: the time interpolation between and beyond them */
    p.pilot_spacing = s->tx + 2;
    p.pilot_first = 2;
    p.pilot_every = 7;
  }
  if (s->est) {
    p.estimation = EST_LS;
    p.interpolation = (interp_kind)(s->est - 1);
  }
  p.llr = (llr_kind)s->llr;
  if (s->td) p.domain = DOMAIN_TIME;
  if (p.model == CH_TDL) {
    char err[256];
    p.profile = cdl ? (pdp_kind)cdl : PDP_TDL_A;
    if (cdl) {
      link_panel a = {1, 1, 0.5, 0.5, PANEL_POL_X, PANEL_38901, 0.0, 6.0};
      a.columns = s->tx / 2;
      p.cdl.tx = a;
      a.columns = s->rx / 2;
      a.pattern = PANEL_ISOTROPIC;
      a.downtilt_deg = 0.0;
      p.cdl.rx = a;
      p.cdl.travel_zenith_deg = 90.0;
      if (cdl == PDP_CDL_D || cdl == PDP_CDL_E) p.k_factor = NAN;
    }
    p.delay_spread = 2.3;
    p.delays = DELAYS_CONTINUOUS;
    CHECK(tdl_pdp_make(p.profile, p.delay_spread, p.k_factor, p.delays, p.subcarriers - 1, &p.pdp, err, sizeof err) ==
              0,
          "tdl_pdp_make: %s", err);
  }
  p.stream_key = link_stream_key(&p);
  if (s->est) {
    char err[256];
    CHECK(est_resolve(&p, err, sizeof err) == 0, "est_resolve: %s", err);
  }
  return p;
}

/* What a run gives, frame by frame. */
typedef struct outcome {
  uint32_t errors[FRAMES * LINK_MAX_TX], fallbacks[FRAMES];
  uint64_t loss[FRAMES * LINK_MAX_TX], grid[FRAMES * GMI_GRID];
  float *llr;    /* with export: frames * D_f * tx * bps */
  uint8_t *bits;
} outcome;

/* Runs frames [0, frames) in batches of `batch` frames (at most the
 * backend's) into o (zeroed by the caller; llr and bits allocated with
 * export). Returns whether the backend kept its buffers (-1: failed). */
static int s1_only; /* run: the s = 1 loss alone (receiver.gmi = "s1": no grid) */

static int run(const link_params *p, int staged, int threads, uint64_t batch, outcome *o) {
  backend *b = tc_cpu_create(p, staged, threads, batch);
  if (!b) return -1;
  int rc = 0;
  const uint64_t per_frame = link_data_res_per_frame(p) * (uint64_t)p->tx * (uint64_t)p->bps;
  if (batch > b->ops->max_frames(b)) batch = b->ops->max_frames(b);
  for (uint64_t f = 0; f < (uint64_t)frames && rc == 0; f += batch) {
    const uint64_t n = frames - f < batch ? frames - f : batch;
    batch_result r;
    memset(&r, 0, sizeof r);
    r.errors = o->errors + f * (uint64_t)p->tx;
    r.fallbacks = o->fallbacks + f;
    if (p->llr != LLR_OFF) {
      r.gmi_loss = o->loss + f * (uint64_t)p->tx;
      r.gmi_loss_s = s1_only ? NULL : o->grid + f * GMI_GRID;
    }
    if (o->llr) r.llr = o->llr + f * per_frame;
    if (o->bits) r.bits = o->bits + f * per_frame;
    if (backend_run(b, f, n, &r)) {
      CHECK(0, "run: %s", backend_error(b));
      rc = -1;
    }
  }
  cf32 one;
  const int kept = rc ? -1 : backend_fetch(b, BUF_X, &one, 1) == 0 ||
                                 strstr(backend_error(b), "keeps no buffers") == NULL;
  backend_destroy(b);
  return kept;
}

static outcome *outcome_new(const link_params *p, int export) {
  outcome *o = calloc(1, sizeof *o);
  const size_t n = (size_t)(frames * link_data_res_per_frame(p) * (uint64_t)p->tx * (uint64_t)p->bps);
  if (o && export) {
    o->llr = malloc(sizeof(float) * n);
    o->bits = malloc(n);
  }
  CHECK(o && (!export || (o->llr && o->bits)), "no memory");
  return o;
}

static void outcome_free(outcome *o) {
  if (!o) return;
  free(o->llr);
  free(o->bits);
  free(o);
}

static uint64_t total_fallbacks, soft_fallbacks, sic_fallbacks, dmrs_fallbacks, s1_checked;

static void check_spec(const spec *s, int cdl) {
  const link_params p = point_of(s, cdl);
  char what[192];
  snprintf(what, sizeof what,
           "%dx%d bps %d %s model %d ebno %g rho %g K %g csi %g fd %g pilots %d llr %d est %d td %d dmrs %d", s->tx,
           s->rx, s->bps, s->eq == EQ_ZF ? "zf" : s->eq == EQ_MMSE ? "mmse" : "mmse-sic", (int)s->model, s->ebno,
           s->rho, s->k, s->csi, s->doppler, s->pilots, s->llr, s->est, s->td, s->dmrs);
  char err[256];
  if (link_params_check(&p, err, sizeof err)) {
    CHECK(0, "%s: %s", what, err);
    return;
  }
  const size_t nllr = (size_t)(frames * link_data_res_per_frame(&p) * (uint64_t)p.tx * (uint64_t)p.bps);
  outcome *es = outcome_new(&p, s->export);
  if (!es || run(&p, 1, 2, 5, es) < 0) {
    outcome_free(es);
    return;
  }
  uint64_t sum = 0, loss = 0, grid = 0;
  for (int i = 0; i < frames * p.tx; i++) sum += es->errors[i], loss += es->loss[i];
  for (int i = 0; i < frames * GMI_GRID; i++) grid += es->grid[i];
  CHECK(sum > 0, "%s: no bit errors at all (the comparison would be empty)", what);
  CHECK(p.llr == LLR_OFF || (loss > 0 && grid > loss), "%s: no GMI loss (%llu, grid %llu)", what,
        (unsigned long long)loss, (unsigned long long)grid);
  static const struct {
    int threads;
    uint64_t batch;
  } runs[] = {{1, FRAMES}, {2, 7}, {2, 1}};
  for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
    outcome *ef = outcome_new(&p, s->export);
    if (!ef) break;
    if (ef->llr) memset(ef->llr, 0xff, sizeof(float) * nllr); /* NaN: every one must be written */
    const int kept = run(&p, 0, runs[k].threads, runs[k].batch, ef);
    CHECK(kept == 0, "%s: the fused backend kept its buffers (%d): the staged path ran", what, kept);
    CHECK(!memcmp(es->errors, ef->errors, sizeof es->errors), "%s (threads %d, batch %llu): bit errors differ",
          what, runs[k].threads, (unsigned long long)runs[k].batch);
    CHECK(!memcmp(es->fallbacks, ef->fallbacks, sizeof es->fallbacks),
          "%s (threads %d, batch %llu): fallbacks differ", what, runs[k].threads, (unsigned long long)runs[k].batch);
    CHECK(!memcmp(es->loss, ef->loss, sizeof es->loss) && !memcmp(es->grid, ef->grid, sizeof es->grid),
          "%s (threads %d, batch %llu): GMI losses differ", what, runs[k].threads, (unsigned long long)runs[k].batch);
    if (s->export)
      CHECK(!memcmp(es->llr, ef->llr, sizeof(float) * nllr) && !memcmp(es->bits, ef->bits, nllr),
            "%s (threads %d, batch %llu): exported LLRs or bits differ", what, runs[k].threads,
            (unsigned long long)runs[k].batch);
    outcome_free(ef);
  }
  if (p.llr == LLR_EXACT) {
    /* receiver.gmi = "s1" with exact LLRs and nothing exported: the fused
     * path leaves out the exact LLRs of symbols whose losses are provably 0
     * (cpu/fused_cpu.c, exact_s1_loss); the sums must still be the full
     * exact path's */
    outcome *e1 = outcome_new(&p, 0);
    s1_only = 1;
    const int kept = e1 ? run(&p, 0, 2, 3, e1) : -1;
    s1_only = 0;
    CHECK(kept == 0, "%s: s = 1 only: the fused backend kept its buffers (%d)", what, kept);
    if (e1)
      CHECK(!memcmp(es->loss, e1->loss, sizeof es->loss) && !memcmp(es->errors, e1->errors, sizeof es->errors),
            "%s: s = 1 only: GMI losses or bit errors differ from the full exact path's", what);
    outcome_free(e1);
    s1_checked++;
  }
  for (int f = 0; f < frames; f++) {
    total_fallbacks += es->fallbacks[f];
    if (p.llr != LLR_OFF) soft_fallbacks += es->fallbacks[f];
    if (p.equalizer == EQ_MMSE_SIC) sic_fallbacks += es->fallbacks[f];
    if (s->dmrs && p.equalizer != EQ_MMSE_SIC) dmrs_fallbacks += es->fallbacks[f];
  }
  outcome_free(es);
}

/* Points the fused path does not cover run staged: their backends keep
 * their buffers even when asked for fused. */
static void check_staged_only(void) {
  spec s = {2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  link_params p = point_of(&s, 0);
  p.equalizer = EQ_MMSE_SIC;
  p.llr = LLR_MAXLOG;
  outcome *o = outcome_new(&p, 0);
  CHECK(o && run(&p, 0, 2, FRAMES, o) == 1, "mmse-sic with LLRs ran fused");
  outcome_free(o);
  p.equalizer = EQ_KBEST;
  p.kbest_k = 4;
  p.llr_clip = 20.0;
  p.llr = LLR_OFF;
  o = outcome_new(&p, 0);
  CHECK(o && run(&p, 0, 2, FRAMES, o) == 1, "kbest ran fused");
  outcome_free(o);
}

int main(void) {
  frames = (int)test_scaled(FRAMES, 8);
  static const spec specs[] = {
      {1, 1, 1, EQ_MMSE, CH_RAYLEIGH, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
      {2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
      /* 2 million REs, of which about 4e-6 have a Gram too close to singular
       * for float: the double repair */
      {2, 2, 2, EQ_ZF, CH_RAYLEIGH, 30, 0, 0, 0, 0, 0, 40000, 0, 0, 0, 0, 0, 0},
      {1, 2, 1, EQ_MMSE, CH_AWGN, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
      {2, 3, 4, EQ_ZF, CH_RAYLEIGH, 14, 0.6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
      {2, 2, 4, EQ_MMSE, CH_RAYLEIGH, 14, 0.3, 1.5, 0.05, 0, 0, 0, 0, 0, 0, 0, 0, 0},
      {3, 4, 6, EQ_MMSE, CH_TDL, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
      {2, 2, 8, EQ_MMSE, CH_TDL, 30, 0, 0, 0, 900, 0, 0, 0, 0, 0, 0, 0, 0},
      {4, 4, 4, EQ_MMSE, CH_RAYLEIGH, 16, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0},
      {4, 4, 2, EQ_ZF, CH_TDL, 12, 0.2, 2.0, 0.01, 0, 1, 0, 0, 0, 0, 0, 0, 0},
      {8, 8, 2, EQ_MMSE, CH_RAYLEIGH, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
      {5, 6, 2, EQ_MMSE, CH_RAYLEIGH, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
      /* chunks that are not multiples of 16 REs: the one-pass equaliser of
       * 2x2 and 4x4 (eq_solve_direct) leaves their last REs to the three
       * passes */
      {4, 4, 4, EQ_MMSE, CH_RAYLEIGH, 16, 0, 0, 0, 0, 0, 613, 0, 0, 0, 0, 0, 0},
      {2, 2, 2, EQ_ZF, CH_RAYLEIGH, 12, 0.3, 0, 0.02, 0, 0, 613, 0, 0, 0, 0, 0, 0},
      /* LLRs and the GMI: max-log and exact, every modulation, the export */
      {2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 8, 0, 0, 0, 0, 0, 0, LLR_MAXLOG, 0, 0, 0, 1, 0},
      {4, 4, 4, EQ_MMSE, CH_RAYLEIGH, 14, 0, 0, 0, 0, 1, 613, LLR_EXACT, 0, 0, 0, 1, 0},
      /* strongly correlated antennas at high SNR: many Grams too close to
       * singular for float, so the repair writes the demapper's variances */
      {2, 2, 4, EQ_ZF, CH_RAYLEIGH, 40, 0.999, 0, 0, 0, 0, 0, LLR_MAXLOG, 0, 0, 0, 0, 0},
      {3, 4, 6, EQ_MMSE, CH_TDL, 20, 0.3, 0, 0.02, 0, 0, 0, LLR_EXACT, 0, 0, 0, 0, 0},
      {1, 2, 1, EQ_MMSE, CH_RAYLEIGH, 2, 0, 0, 0, 0, 0, 0, LLR_MAXLOG, 0, 0, 0, 0, 0},
      {2, 2, 8, EQ_MMSE, CH_TDL, 30, 0, 0, 0, 900, 0, 0, LLR_MAXLOG, 0, 0, 0, 0, 0},
      /* exact LLRs at high SNR, where most symbols' s = 1 losses are 0 */
      {2, 2, 8, EQ_MMSE, CH_TDL, 34, 0, 0, 0, 0, 0, 0, LLR_EXACT, 0, 0, 0, 0, 0},
      {2, 2, 2, EQ_ZF, CH_RAYLEIGH, 24, 0, 0, 0, 0, 0, 0, LLR_EXACT, 0, 0, 0, 0, 0},
      {4, 4, 4, EQ_MMSE, CH_TDL, 22, 0, 0, 0, 0, 0, 0, LLR_EXACT, 0, 0, 0, 0, 0},
      /* LS estimation: each interpolation, with Doppler, with LLRs */
      {2, 2, 4, EQ_MMSE, CH_TDL, 15, 0, 0, 0, 0, 0, 256, LLR_OFF, 1 + INTERP_NEAREST, 0, 14, 0, 0},
      {2, 2, 4, EQ_MMSE, CH_TDL, 15, 0, 0, 0, 0, 0, 256, LLR_MAXLOG, 1 + INTERP_LINEAR, 0, 14, 1, 0},
      {4, 4, 2, EQ_MMSE, CH_TDL, 12, 0.3, 1.0, 0, 600, 0, 256, LLR_EXACT, 1 + INTERP_LMMSE, 0, 14, 0, 0},
      {2, 2, 2, EQ_ZF, CH_AWGN, 6, 0, 0, 0, 0, 0, 256, LLR_OFF, 1 + INTERP_LINEAR, 0, 14, 0, 0},
      /* the time domain: awgn and tdl, Doppler (taps per sample), LS, LLRs */
      {2, 2, 4, EQ_MMSE, CH_AWGN, 8, 0, 0, 0, 0, 0, 256, LLR_OFF, 0, 1, 0, 0, 0},
      {2, 2, 4, EQ_MMSE, CH_TDL, 16, 0, 0, 0, 0, 0, 512, LLR_MAXLOG, 0, 1, 0, 1, 0},
      {2, 2, 2, EQ_ZF, CH_TDL, 12, 0.3, 0, 0.02, 0, 0, 256, LLR_OFF, 0, 1, 0, 0, 0},
      {2, 2, 4, EQ_MMSE, CH_TDL, 20, 0, 0, 0, 2000, 0, 128, LLR_EXACT, 0, 1, 0, 0, 0},
      {2, 2, 4, EQ_MMSE, CH_TDL, 20, 0, 0, 0, 0, 0, 256, LLR_MAXLOG, 1 + INTERP_LMMSE, 1, 14, 0, 0},
      {4, 4, 4, EQ_MMSE, CH_TDL, 18, 0, 0, 0, 0, 0, 128, LLR_OFF, 1 + INTERP_LINEAR, 1, 14, 0, 0},
      /* lmmse2d: every RE from its window's pilot rows, both domains */
      {2, 2, 4, EQ_MMSE, CH_TDL, 15, 0, 0, 0, 600, 0, 256, LLR_MAXLOG, 1 + INTERP_LMMSE2D, 0, 14, 0, 0},
      {2, 2, 4, EQ_MMSE, CH_TDL, 20, 0, 0, 0, 600, 0, 128, LLR_OFF, 1 + INTERP_LMMSE2D, 1, 14, 0, 0},
      /* mmse-sic, hard decisions: rayleigh, tdl with pilots and CSI error,
       * LS, the time domain, and correlated antennas at high SNR (stages
       * solved in double) */
      {2, 2, 2, EQ_MMSE_SIC, CH_RAYLEIGH, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
      {4, 4, 4, EQ_MMSE_SIC, CH_TDL, 14, 0.2, 1.0, 0.01, 300, 1, 613, 0, 0, 0, 0, 0, 0},
      {3, 4, 6, EQ_MMSE_SIC, CH_RAYLEIGH, 18, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
      {4, 4, 4, EQ_MMSE_SIC, CH_TDL, 15, 0, 0, 0, 0, 0, 256, LLR_OFF, 1 + INTERP_LINEAR, 0, 14, 0, 0},
      {2, 2, 4, EQ_MMSE_SIC, CH_TDL, 16, 0, 0, 0, 0, 0, 256, LLR_OFF, 0, 1, 0, 0, 0},
      {2, 2, 4, EQ_MMSE_SIC, CH_RAYLEIGH, 60, 0.9999, 0, 0, 0, 0, 0, LLR_OFF, 0, 0, 0, 0, 0},
      /* NR DMRS: the despread LS estimates of its occasions through every
       * interpolation (lmmse2d from the LS estimates per RE), both
       * configuration types, single and double symbol, both domains, with
       * perfect CSI, mmse-sic, and Grams too close to singular for float
       * (the repair, with LLRs) */
      {2, 2, 4, EQ_MMSE, CH_TDL, 15, 0, 0, 0, 0, 0, 252, LLR_MAXLOG, 1 + INTERP_LINEAR, 0, 14, 1, 111},
      {4, 4, 4, EQ_MMSE, CH_TDL, 18, 0, 0, 0, 0, 0, 120, LLR_OFF, 1 + INTERP_NEAREST, 0, 14, 0, 111},
      {4, 4, 2, EQ_MMSE, CH_TDL, 12, 0.3, 1.0, 0, 600, 0, 96, LLR_EXACT, 1 + INTERP_LMMSE, 0, 14, 0, 221},
      {8, 8, 2, EQ_MMSE, CH_TDL, 10, 0, 0, 0, 0, 0, 96, LLR_OFF, 1 + INTERP_LINEAR, 0, 14, 0, 120},
      {2, 2, 4, EQ_MMSE, CH_TDL, 15, 0, 0, 0, 600, 0, 252, LLR_MAXLOG, 1 + INTERP_LMMSE2D, 0, 14, 0, 112},
      {3, 4, 4, EQ_MMSE, CH_TDL, 15, 0, 0, 0, 300, 0, 96, LLR_OFF, 1 + INTERP_LMMSE2D, 0, 14, 0, 221},
      {4, 4, 4, EQ_MMSE, CH_TDL, 18, 0, 0, 0, 0, 0, 132, LLR_OFF, 1 + INTERP_LINEAR, 1, 14, 0, 111},
      {2, 2, 4, EQ_MMSE, CH_TDL, 20, 0, 0, 0, 600, 0, 120, LLR_MAXLOG, 1 + INTERP_LMMSE2D, 1, 14, 0, 111},
      {2, 2, 2, EQ_ZF, CH_TDL, 12, 0.3, 0, 0.02, 0, 0, 252, LLR_OFF, 0, 0, 14, 0, 111},
      {4, 4, 4, EQ_MMSE_SIC, CH_TDL, 15, 0, 0, 0, 0, 0, 120, LLR_OFF, 1 + INTERP_LINEAR, 0, 14, 0, 111},
      {2, 2, 4, EQ_ZF, CH_TDL, 40, 0.999, 0, 0, 0, 0, 252, LLR_MAXLOG, 1 + INTERP_LINEAR, 0, 14, 0, 111},
  };
  for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) check_spec(&specs[i], 0);
  /* CDL: the frame's rays summed once per frame, and with Doppler per
   * symbol from the ray terms each thread keeps */
  static const spec cdl_c = {4, 4, 4, EQ_MMSE, CH_TDL, 18, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  static const spec cdl_d = {2, 4, 2, EQ_ZF, CH_TDL, -8, 0, 0, 0.01, 700, 0, 0, 0, 0, 0, 0, 0, 0}; /* 8 dBi elements, a LOS path */
  check_spec(&cdl_c, PDP_CDL_C);
  check_spec(&cdl_d, PDP_CDL_D);
  CHECK(total_fallbacks > 0, "no RE was repaired in double: the repair went untested");
  CHECK(soft_fallbacks > 0, "no RE with LLRs was repaired in double: the repair's variances went untested");
  CHECK(sic_fallbacks > 0, "no mmse-sic stage was solved in double: its fused fallback went untested");
  CHECK(dmrs_fallbacks > 0, "no RE of a DMRS frame was repaired in double: the repair on DMRS went untested");
  CHECK(s1_checked >= 8, "only %llu exact points ran with the s = 1 loss alone", (unsigned long long)s1_checked);
  fprintf(stderr, "fused = staged on %zu points; %llu REs repaired in double (%llu with LLRs)\n",
          sizeof specs / sizeof *specs + 2, (unsigned long long)total_fallbacks, (unsigned long long)soft_fallbacks);
  check_staged_only();
  return test_finish("test_fused_cpu");
}
