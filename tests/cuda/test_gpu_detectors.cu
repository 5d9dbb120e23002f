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
 *     per stream and at every scaling of the GMI grid (core/gmi_grid.h),
 *     whose s = 1 sum is the streams' losses exactly, on each backend,
 *   - the exported LLRs (batch_result.llr) within 1e-3 * max(1, |cpu|) for
 *     at least 99.9% of them, and the bits bit for bit.
 * And zf/mmse with LLRs on pilots with LS estimation, in both modes: the
 * comb with every frequency interpolation and NR DMRS (types 1 and 2, hold
 * in time), the fused mode's estimate made in its first pass
 * (gpu_launch_fused_estimate), the staged mode's over its stacks, both
 * against the CPU's within the same tolerances.
 * And the grid's losses of given LLRs (soft_label_loss_grid) on the device
 * equal the host's bit for bit: the same LLRs give the same sums.
 * And receiver.gmi = s1 and none beside sup, every detector, fused and
 * staged (compare_gmi_modes): s1's losses sup's exactly on each backend and
 * the CPU's within the tolerance above, no grid written; none's errors
 * sup's and the CPU's, no loss written.
 * OFDMSIM_SMALL=1 runs a subset (for compute-sanitizer). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "channel/estimate.h"
#include "core/names.h"
#include "cuda/check.h"
#include "equalizer/soft.h"
#include "linktest.h"
#include "testparams.h"
#include "sim/backends.h"
#include "testutil.h"

namespace {

constexpr uint64_t kFrames = 6;

struct run_out {
  std::vector<uint32_t> errors, fallbacks;
  std::vector<uint64_t> loss, grid;
  std::vector<float> llr;
  std::vector<uint8_t> bits;
};

/* Backend `name` for p, batches of kFrames, staged or fused (cuda);
 * NULL with the reason on stderr. */
backend *create(const char *name, int staged, const link_params &p) {
  backend_options opt;
  memset(&opt, 0, sizeof opt);
  opt.max_batch_frames = kFrames;
  backend_options_set(&opt, "cuda", "staged", staged);
  char err[512];
  backend *b = backends_create(name, &p, &opt, err, sizeof err);
  if (!b) fprintf(stderr, "%s\n", err);
  return b;
}

int run(const char *name, int staged, const link_params &p, run_out *o) {
  backend *b = create(name, staged, p);
  if (!b) return -1;
  const size_t n = kFrames * link_res_per_frame(&p) * (size_t)p.tx * (size_t)p.bps;
  o->errors.assign(kFrames * (size_t)p.tx, 0);
  o->fallbacks.assign(kFrames, 0);
  o->loss.assign(kFrames * (size_t)p.tx, 0);
  o->grid.assign(kFrames * GMI_GRID, 0);
  o->llr.assign(n, 0.0f);
  o->bits.assign(n, 0);
  batch_result r;
  memset(&r, 0, sizeof r);
  r.errors = o->errors.data();
  r.fallbacks = o->fallbacks.data();
  if (p.llr != LLR_OFF) {
    r.gmi_loss = o->loss.data();
    r.gmi_loss_s = o->grid.data();
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
  double worst_grid = 0.0;
  size_t s1_off = 0;
  for (uint64_t f = 0; f < kFrames; f++) {
    for (int k = 0; k < GMI_GRID; k++) {
      const double a = ldexp((double)c.grid[f * GMI_GRID + k], -GMI_LOSS_SHIFT);
      const double b = ldexp((double)g.grid[f * GMI_GRID + k], -GMI_LOSS_SHIFT);
      worst_grid = fmax(worst_grid, fabs(a - b) / (0.001 * a + rf * p.tx / 1024.0));
    }
    uint64_t sc = 0, sg = 0;
    for (int t = 0; t < p.tx; t++) sc += c.loss[f * p.tx + t], sg += g.loss[f * p.tx + t];
    s1_off += c.grid[f * GMI_GRID + GMI_GRID_S1] != sc || g.grid[f * GMI_GRID + GMI_GRID_S1] != sg;
  }
  CHECK(worst_grid <= 1.0, "%s: GMI grid losses differ by %.2f of the tolerance", what, worst_grid);
  CHECK(s1_off == 0, "%s: %zu frames whose grid s = 1 sum is not their streams' loss", what, s1_off);
  size_t off = 0, bits_differ = 0;
  for (size_t k = 0; k < c.llr.size(); k++) {
    if (fabs((double)c.llr[k] - (double)g.llr[k]) > 1e-3 * fmax(1.0, fabs((double)c.llr[k]))) off++;
    bits_differ += c.bits[k] != g.bits[k];
  }
  CHECK(bits_differ == 0, "%s: %zu exported bits differ", what, bits_differ);
  CHECK(off <= c.llr.size() / 1000, "%s: %zu of %zu LLRs differ by more than 1e-3 relative", what, off,
        c.llr.size());
  printf("%-44s errors %6llu / %6llu  loss %.2f, grid %.2f of tol  LLRs off %zu of %zu\n", what,
         (unsigned long long)ec, (unsigned long long)eg, worst_loss, worst_grid, off, c.llr.size());
}

/* receiver.gmi on the device: p run with sup, s1 and none on each backend,
 * the sums asked for as the driver asks (link_gmi_loss, link_gmi_grid), no
 * export (so that none runs the hard link's kernels for zf and mmse). On
 * each backend s1's per-stream losses are sup's exactly (the same LLRs, the
 * same s = 1 arithmetic; the grid left out by a template on the linear
 * kernel, a run-time flag on the joint ones) and none's errors sup's; the
 * GPU against the CPU within compare()'s tolerances. */
int run_gmi(const char *name, int staged, const link_params &p, run_out *o, uint64_t first) {
  backend *b = create(name, staged, p);
  if (!b) return -1;
  o->errors.assign(kFrames * (size_t)p.tx, 0);
  o->fallbacks.assign(kFrames, 0);
  o->loss.assign(kFrames * (size_t)p.tx, UINT64_MAX);
  o->grid.assign(kFrames * GMI_GRID, UINT64_MAX);
  batch_result r;
  memset(&r, 0, sizeof r);
  r.errors = o->errors.data();
  r.fallbacks = o->fallbacks.data();
  if (link_gmi_loss(&p)) r.gmi_loss = o->loss.data();
  if (link_gmi_grid(&p)) r.gmi_loss_s = o->grid.data();
  const int rc = backend_run(b, first, kFrames, &r);
  if (rc) fprintf(stderr, "%s: %s\n", name, backend_error(b));
  backend_destroy(b);
  return rc;
}

/* The fused mode runs zf and mmse with gmi = s1 on the fused kernel's Soft
 * instances (a flagged RE on their repair kernel), sup on the detect kernel:
 * their equality below is the one kernel's arithmetic against the other's on
 * the same draws. min_fallbacks: the flagged REs the frames [first, first +
 * kFrames) must hold on each backend, so that the repair path is taken. */
void compare_gmi_modes(const char *what, link_params p, int staged, uint64_t first = 3, uint32_t min_fallbacks = 0) {
  run_out c[3], g[3];
  for (int m = 0; m < 3; m++) {
    p.gmi = (gmi_kind)m;
    if (run_gmi("cpu", 0, p, &c[m], first) || run_gmi("cuda", staged, p, &g[m], first)) {
      CHECK(0, "%s gmi %s: a backend failed", what, gmi_kind_name(p.gmi));
      return;
    }
  }
  const int sup = GMI_SUP, s1 = GMI_S1, none = GMI_NONE;
  CHECK(c[s1].errors == c[sup].errors && c[none].errors == c[sup].errors && c[s1].loss == c[sup].loss,
        "%s: on the cpu, s1's and none's errors and s1's losses are sup's", what);
  CHECK(g[s1].errors == g[sup].errors && g[s1].loss == g[sup].loss && g[s1].fallbacks == g[sup].fallbacks,
        "%s: on the gpu, s1's errors, fallbacks and per-stream losses are sup's exactly", what);
  uint32_t fc = 0, fg = 0;
  for (size_t k = 0; k < kFrames; k++) {
    fc += c[s1].fallbacks[k];
    fg += g[s1].fallbacks[k];
  }
  CHECK(fc >= min_fallbacks && fg >= min_fallbacks, "%s: flagged REs cpu %u, gpu %u (at least %u wanted)", what, fc,
        fg, min_fallbacks);
  size_t untouched = 0;
  for (uint64_t k = 0; k < g[s1].grid.size(); k++) untouched += g[s1].grid[k] == UINT64_MAX;
  for (uint64_t k = 0; k < g[none].loss.size(); k++) untouched += g[none].loss[k] == UINT64_MAX;
  CHECK(untouched == g[s1].grid.size() + g[none].loss.size(), "%s: s1 wrote no grid sums, none no loss", what);
  const double rf = (double)link_res_per_frame(&p);
  uint64_t ec = 0, eg = 0, es = 0;
  double worst = 0.0;
  for (size_t k = 0; k < c[sup].errors.size(); k++) {
    ec += c[none].errors[k];
    eg += g[none].errors[k];
    es += g[sup].errors[k];
  }
  for (size_t k = 0; k < c[s1].loss.size(); k++) {
    const double a = ldexp((double)c[s1].loss[k], -GMI_LOSS_SHIFT), b = ldexp((double)g[s1].loss[k], -GMI_LOSS_SHIFT);
    worst = fmax(worst, fabs(a - b) / (0.001 * a + rf / 1024.0));
  }
  const double tol = 0.001 * (double)ec + 2.0;
  CHECK(fabs((double)ec - (double)eg) <= tol && fabs((double)es - (double)eg) <= tol,
        "%s: none's errors cpu %llu, gpu %llu (gpu sup %llu)", what, (unsigned long long)ec, (unsigned long long)eg,
        (unsigned long long)es);
  CHECK(worst <= 1.0, "%s: s1's losses differ from the cpu's by %.2f of the tolerance", what, worst);
  printf("%-44s gmi s1 loss %.2f of tol, none errors %6llu / %6llu\n", what, worst, (unsigned long long)ec,
         (unsigned long long)eg);
}

/* soft_label_loss_grid of stream i's 8 LLRs and label, on the device. */
__global__ void grid_kernel(const float *llr, const uint32_t *label, size_t n, int bps, unsigned long long *loss,
                            unsigned long long *grid) {
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint64_t g[GMI_GRID] = {0};
  loss[i] = soft_label_loss_grid(bps, llr + i * SOFT_MAX_BPS, label[i], g);
  for (int k = 0; k < GMI_GRID; k++) grid[i * GMI_GRID + k] = g[k];
}

/* The grid's losses of the same LLRs, device against host: equal, every
 * quantum (LLRs of every size, both signs, the clip, zeros, NaN). */
void test_grid_bits(size_t n) {
  std::vector<float> llr(n * SOFT_MAX_BPS);
  std::vector<uint32_t> label(n);
  test_rng_seed(0x9e1d);
  for (size_t i = 0; i < llr.size(); i++) {
    const double u = test_rng_u01(), v = 2.0 * test_rng_u01() - 1.0;
    llr[i] = (float)(u < 0.5 ? 80.0 * v : u < 0.9 ? 4.0 * v : u < 0.97 ? 1e-3 * v : (i & 1 ? NAN : 0.0));
  }
  for (size_t i = 0; i < n; i++) label[i] = (uint32_t)test_rng_u64();
  const int bps = 8;
  float *d_llr;
  uint32_t *d_label;
  unsigned long long *d_loss, *d_grid;
  CUDA_CHECK(cudaMalloc(&d_llr, sizeof(float) * llr.size()));
  CUDA_CHECK(cudaMalloc(&d_label, sizeof(uint32_t) * n));
  CUDA_CHECK(cudaMalloc(&d_loss, sizeof(unsigned long long) * n));
  CUDA_CHECK(cudaMalloc(&d_grid, sizeof(unsigned long long) * n * GMI_GRID));
  CUDA_CHECK(cudaMemcpy(d_llr, llr.data(), sizeof(float) * llr.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_label, label.data(), sizeof(uint32_t) * n, cudaMemcpyHostToDevice));
  grid_kernel<<<(unsigned)((n + 127) / 128), 128>>>(d_llr, d_label, n, bps, d_loss, d_grid);
  CUDA_CHECK_LAUNCH("grid_kernel");
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned long long> loss(n), grid(n * GMI_GRID);
  CUDA_CHECK(cudaMemcpy(loss.data(), d_loss, sizeof(unsigned long long) * n, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(grid.data(), d_grid, sizeof(unsigned long long) * n * GMI_GRID, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_llr));
  CUDA_CHECK(cudaFree(d_label));
  CUDA_CHECK(cudaFree(d_loss));
  CUDA_CHECK(cudaFree(d_grid));
  size_t differ = 0, s1_differ = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t g[GMI_GRID] = {0};
    const uint64_t at1 = soft_label_loss_grid(bps, &llr[i * SOFT_MAX_BPS], label[i], g);
    for (int k = 0; k < GMI_GRID; k++) differ += g[k] != grid[i * GMI_GRID + k] && k != GMI_GRID_S1;
    /* s = 1 is soft_loss_q, whose exponential and logarithm are soft.h's own
     * IEEE-rounded arithmetic on both sides (no libm, no CUDA exp/log1p):
     * equal bit for bit, as the grid */
    s1_differ += at1 != loss[i];
  }
  printf("grid losses of %zu x 8 LLRs: %zu of %zu differ (s = 1: %zu)\n", n, differ, n * (GMI_GRID - 1), s1_differ);
  CHECK(differ == 0, "%zu grid losses of the same LLRs differ between the device and the host", differ);
  CHECK(s1_differ == 0, "%zu s = 1 losses of the same LLRs differ between the device and the host", s1_differ);
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

/* point() with pilots and LS estimation from them: the comb (4 apart on
 * symbols 0 and 3 of 4) or NR DMRS of configuration type dmrs_type (a slot
 * of 14 symbols, 72 subcarriers: single symbol, one additional position;
 * type 2 with time interpolation held), frequency interpolation in; on tdl-a
 * (the frequency correlation LMMSE needs) at 2.0 samples. */
link_params with_ls(int tx, int rx, int bps, eq_kind eq, double snr, llr_kind llr, int dmrs_type, interp_kind in,
                    ofdm_domain domain) {
  link_params p = point(tx, rx, bps, eq, CH_TDL, snr, llr);
  p.delay_spread = 2.0;
  p.domain = domain;
  p.estimation = EST_LS;
  p.interpolation = in;
  if (dmrs_type) {
    p.subcarriers = 72;
    p.symbols = 14;
    tp_dmrs(&p, dmrs_type, 1, 1);
    p.dmrs_nid = 17;
    p.time_interpolation = dmrs_type == 2;
  } else {
    p.pilot_spacing = 4;
    p.pilot_first = 0;
    p.pilot_every = 3;
  }
  if (lt_finish_estimated(&p)) fprintf(stderr, "with_ls: the point failed\n");
  return p;
}

/* The first frame of the kFrames consecutive ones, among frames [0, 256), that
 * hold the most REs the CPU's float inverse flags (its fallbacks), and that
 * number: where a test of the repair path finds its REs. */
uint64_t frames_with_fallbacks(const link_params &p, uint32_t *most) {
  const uint64_t scan = 256;
  backend_options opt;
  memset(&opt, 0, sizeof opt);
  opt.max_batch_frames = scan;
  char err[512];
  backend *b = backends_create("cpu", &p, &opt, err, sizeof err);
  std::vector<uint32_t> errors(scan * (size_t)p.tx), fb(scan, 0);
  int rc = b ? 0 : -1;
  /* in batches the backend takes (its cap on a batch's memory) */
  for (uint64_t f = 0, n = 0; f < scan && !rc; f += n) {
    n = b->ops->max_frames(b) < scan - f ? b->ops->max_frames(b) : scan - f;
    batch_result r;
    memset(&r, 0, sizeof r);
    r.errors = errors.data() + f * (size_t)p.tx;
    r.fallbacks = fb.data() + f;
    rc = n ? backend_run(b, f, n, &r) : -1;
  }
  CHECK(rc == 0, "frames_with_fallbacks: the cpu scan failed: %s", b ? backend_error(b) : err);
  if (b) backend_destroy(b);
  uint64_t best = 0;
  *most = 0;
  for (uint64_t f = 0; f + kFrames <= scan; f++) {
    uint32_t n = 0;
    for (uint64_t k = 0; k < kFrames; k++) n += fb[f + k];
    if (n > *most) {
      *most = n;
      best = f;
    }
  }
  return best;
}

}  // namespace

int main(void) {
  if (lt_cuda_missing("test_gpu_detectors")) return TEST_SKIP;
  const int small = test_small_mode();
  test_grid_bits(small ? 4096 : 1 << 18);
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
  /* receiver.gmi = s1 and none beside sup: linear (fused and staged, with
   * LS estimation too) and joint detectors */
  for (int e = 0; e < 5; e++)
    for (int staged = 0; staged < 2; staged++) {
      if (small && (staged || e > 2)) continue;
      const llr_kind llr = eqs[e] == EQ_MMSE ? LLR_EXACT : LLR_MAXLOG;
      link_params p = point(4, 4, 4, eqs[e], CH_RAYLEIGH, 14.0, llr);
      snprintf(what, sizeof what, "4x4 16-QAM %s llr %s %s", equalizer_name(p.equalizer), llr_kind_name(llr),
               staged ? "staged" : "fused");
      compare_gmi_modes(what, p, staged);
    }
  for (int staged = 0; staged < 2; staged++) {
    link_params p = with_ls(2, 2, 4, EQ_MMSE, 14.0, LLR_MAXLOG, 0, INTERP_LINEAR, DOMAIN_FREQUENCY);
    snprintf(what, sizeof what, "2x2 comb ls linear mmse llr maxlog %s", staged ? "staged" : "fused");
    compare_gmi_modes(what, p, staged);
  }
  /* flagged inverses: zf at 40 dB on 4x4 (some 1e-5 of the REs), in frames
   * the CPU finds them in; fused, s1's flagged REs take the Soft repair
   * kernel (2x2 too: its instances have a register cap of their own; the
   * small run keeps 4x4, so the sanitizers see that kernel) */
  for (int nt = small ? 4 : 2; nt <= 4; nt += 2) {
    link_params p = point(nt, nt, nt == 4 ? 2 : 4, EQ_ZF, CH_RAYLEIGH, 40.0, LLR_MAXLOG);
    p.subcarriers = 1024;
    p.symbols = 14;
    lt_finish(&p);
    uint32_t most = 0;
    const uint64_t first = frames_with_fallbacks(p, &most);
    snprintf(what, sizeof what, "%dx%d zf 40 dB llr maxlog fused (%u flagged)", nt, nt, most);
    compare_gmi_modes(what, p, 0, first, 1);
  }
  /* LS estimation from pilots, LLRs with the GMI grid, fused and staged */
  const interp_kind interps[3] = {INTERP_NEAREST, INTERP_LINEAR, INTERP_LMMSE};
  const char *interp_names[3] = {"nearest", "linear", "lmmse"};
  for (int kind = 0; kind < 3; kind++)     /* the comb, DMRS type 1, type 2 */
    for (int i = 0; i < 3; i++)
      for (int l = 1; l < 3; l++) {
        if (small && (i != 1 || kind == 2)) continue;
        const llr_kind llr = (llr_kind)l;
        const eq_kind eq = (i + l) % 2 ? EQ_MMSE : EQ_ZF;
        const int tx = kind == 2 ? 4 : 2, bps = kind == 1 ? 2 : 4;
        link_params p = with_ls(tx, tx, bps, eq, 14.0, llr, kind, interps[i], DOMAIN_FREQUENCY);
        for (int staged = 0; staged < 2; staged++) {
          snprintf(what, sizeof what, "%dx%d %s ls %s %s llr %s %s", tx, tx, kind ? (kind == 1 ? "dmrs1" : "dmrs2") : "comb",
                   interp_names[i], equalizer_name(eq), llr_kind_name(llr), staged ? "staged" : "fused");
          compare(what, p, staged);
        }
      }
  /* the time domain (the fused mode's pilot rows read the modem's output) */
  for (int kind = 0; kind < 2 && !small; kind++) {
    link_params p = with_ls(2, 2, 4, EQ_MMSE, 14.0, LLR_MAXLOG, kind, INTERP_LMMSE, DOMAIN_TIME);
    for (int staged = 0; staged < 2; staged++) {
      snprintf(what, sizeof what, "2x2 %s ls lmmse time mmse llr maxlog %s", kind ? "dmrs1" : "comb",
               staged ? "staged" : "fused");
      compare(what, p, staged);
    }
  }
  return test_finish("test_gpu_detectors");
}
