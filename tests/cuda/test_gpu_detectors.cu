/* The soft outputs and joint detectors of the CUDA backend against the CPU
 * reference on the same draws: for zf and mmse with max-log and exact LLRs,
 * and mmse-sic, kbest and ml (2x2 QPSK / 16-QAM, 4x4 QPSK / 16-QAM, 1x2,
 * 2x4), rayleigh and tdl, with and without CSI error, in the fused and the
 * staged mode:
 *   - bit errors per frame within 0.1% + 2 of the CPU's (their sum: the
 *     receivers decide from channels that differ by a few 1e-6, FMA
 *     contraction and the device's logf/sincospif, so a near-tie may fall
 *     the other way),
 *   - GMI losses per frame within 0.1% + 2^-10 bits per RE of the CPU's,
 *   - the exported LLRs (batch_result.llr) within 1e-3 * max(1, |cpu|) for
 *     at least 99.9% of them, and the bits bit for bit.
 * OFDMSIM_SMALL=1 runs a subset (for compute-sanitizer). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "core/names.h"
#include "linktest.h"
#include "sim/backends.h"
#include "testutil.h"

namespace {

constexpr uint64_t kFrames = 6;

struct run_out {
  std::vector<uint32_t> errors, fallbacks;
  std::vector<uint64_t> loss;
  std::vector<float> llr;
  std::vector<uint8_t> bits;
};

int run(const char *name, int staged, const link_params &p, run_out *o) {
  backend_options opt;
  memset(&opt, 0, sizeof opt);
  opt.max_batch_frames = kFrames;
  backend_options_set(&opt, "cuda", "staged", staged);
  char err[512];
  backend *b = backends_create(name, &p, &opt, err, sizeof err);
  if (!b) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  const size_t n = kFrames * link_res_per_frame(&p) * (size_t)p.tx * (size_t)p.bps;
  o->errors.assign(kFrames * (size_t)p.tx, 0);
  o->fallbacks.assign(kFrames, 0);
  o->loss.assign(kFrames * (size_t)p.tx, 0);
  o->llr.assign(n, 0.0f);
  o->bits.assign(n, 0);
  batch_result r;
  memset(&r, 0, sizeof r);
  r.errors = o->errors.data();
  r.fallbacks = o->fallbacks.data();
  if (p.llr != LLR_OFF) {
    r.gmi_loss = o->loss.data();
    r.llr = o->llr.data();
    r.bits = o->bits.data();
  }
  const int rc = backend_run(b, 3, kFrames, &r);
  if (rc) fprintf(stderr, "%s: %s\n", name, backend_error(b));
  backend_destroy(b);
  return rc;
}

void compare(const char *what, const link_params &p, int staged) {
  run_out c, g;
  if (run("cpu", 0, p, &c) || run("cuda", staged, p, &g)) {
    CHECK(0, "%s: a backend failed", what);
    return;
  }
  uint64_t ec = 0, eg = 0;
  for (size_t k = 0; k < c.errors.size(); k++) {
    ec += c.errors[k];
    eg += g.errors[k];
  }
  const double tol = 0.001 * (double)ec + 2.0;
  CHECK(fabs((double)ec - (double)eg) <= tol, "%s: errors cpu %llu, gpu %llu", what, (unsigned long long)ec,
        (unsigned long long)eg);
  if (p.llr == LLR_OFF) {
    printf("%-44s errors %6llu / %6llu\n", what, (unsigned long long)ec, (unsigned long long)eg);
    return;
  }
  const double rf = (double)link_res_per_frame(&p);
  double worst_loss = 0.0;
  for (size_t k = 0; k < c.loss.size(); k++) {
    const double a = ldexp((double)c.loss[k], -GMI_LOSS_SHIFT), b = ldexp((double)g.loss[k], -GMI_LOSS_SHIFT);
    worst_loss = fmax(worst_loss, fabs(a - b) / (0.001 * a + rf / 1024.0));
  }
  CHECK(worst_loss <= 1.0, "%s: GMI losses differ by %.2f of the tolerance", what, worst_loss);
  size_t off = 0, bits_differ = 0;
  for (size_t k = 0; k < c.llr.size(); k++) {
    if (fabs((double)c.llr[k] - (double)g.llr[k]) > 1e-3 * fmax(1.0, fabs((double)c.llr[k]))) off++;
    bits_differ += c.bits[k] != g.bits[k];
  }
  CHECK(bits_differ == 0, "%s: %zu exported bits differ", what, bits_differ);
  CHECK(off <= c.llr.size() / 1000, "%s: %zu of %zu LLRs differ by more than 1e-3 relative", what, off,
        c.llr.size());
  printf("%-44s errors %6llu / %6llu  loss %.2f of tol  LLRs off %zu of %zu\n", what, (unsigned long long)ec,
         (unsigned long long)eg, worst_loss, off, c.llr.size());
}

link_params point(int tx, int rx, int bps, eq_kind eq, channel_model model, double snr, llr_kind llr) {
  link_params p = lt_params(tx, rx, bps, eq, model, snr);
  p.llr = llr;
  p.kbest_k = 8;
  p.llr_clip = 20.0;
  if (model == CH_TDL) {
    p.profile = PDP_TDL_A;
    p.delay_spread = 3.0;
  }
  lt_finish(&p);
  return p;
}

}  // namespace

int main(void) {
  if (lt_cuda_missing("test_gpu_detectors")) return TEST_SKIP;
  const int small = getenv("OFDMSIM_SMALL") != NULL;
  struct {
    int tx, rx, bps;
    double snr;
  } sizes[] = {{2, 2, 2, 8.0}, {2, 2, 4, 12.0}, {4, 4, 2, 8.0}, {4, 4, 4, 14.0}, {1, 2, 4, 10.0}, {2, 4, 4, 8.0}};
  const eq_kind eqs[5] = {EQ_ZF, EQ_MMSE, EQ_MMSE_SIC, EQ_KBEST, EQ_ML};
  const int n_sizes = small ? 2 : 6;
  char what[160];
  for (int s = 0; s < n_sizes; s++)
    for (int e = 0; e < 5; e++)
      for (int l = 0; l < 3; l++) {
        const llr_kind llr = (llr_kind)l;
        if ((eqs[e] == EQ_KBEST || eqs[e] == EQ_ML) && llr == LLR_EXACT) continue;
        if ((eqs[e] == EQ_ZF || eqs[e] == EQ_MMSE) && llr == LLR_OFF) continue; /* test_gpu_vs_cpu's */
        for (int staged = 0; staged < 2; staged++) {
          if (small && staged) continue;
          link_params p = point(sizes[s].tx, sizes[s].rx, sizes[s].bps, eqs[e], CH_RAYLEIGH, sizes[s].snr, llr);
          snprintf(what, sizeof what, "%dx%d %d bits %s llr %s %s", p.tx, p.rx, p.bps, equalizer_name(p.equalizer),
                   llr_kind_name(p.llr), staged ? "staged" : "fused");
          compare(what, p, staged);
        }
      }
  /* tdl (frequency and time domain) and CSI error, soft, each detector */
  for (int e = 0; e < 5 && !small; e++) {
    const llr_kind llr = eqs[e] == EQ_ZF || eqs[e] == EQ_MMSE ? LLR_EXACT : LLR_MAXLOG;
    link_params p = point(2, 2, 4, eqs[e], CH_TDL, 12.0, llr);
    snprintf(what, sizeof what, "2x2 16-QAM tdl-a %s", equalizer_name(p.equalizer));
    compare(what, p, 0);
    p.domain = DOMAIN_TIME;
    lt_finish(&p);
    snprintf(what, sizeof what, "2x2 16-QAM tdl-a time %s", equalizer_name(p.equalizer));
    compare(what, p, 0);
    link_params q = point(4, 4, 4, eqs[e], CH_RAYLEIGH, 14.0, llr);
    q.csi_error_var = 0.05;
    lt_finish(&q);
    snprintf(what, sizeof what, "4x4 16-QAM csi 0.05 %s", equalizer_name(q.equalizer));
    compare(what, q, 0);
    compare(what, q, 1);
  }
  return test_finish("test_gpu_detectors");
}
