/* The GPU's kbest and ml against the CPU's det_kbest and det_ml on the SAME
 * inputs (H and y given to both, not drawn by each backend), bit for bit:
 * every decision, every max-log LLR and every stream's error count equal.
 * The lists are one set in one order (equalizer/detect.h, K-best's order),
 * so any difference is a defect, not a tolerance.  Every kernel that can
 * run a case runs it (the variants of gpu_joint, each distinct kernel once):
 * K-best's register kernel (kbest_reg_gpu.cu: 2x2 and 4x4, QPSK and
 * 16-QAM, K = 16), its lane groups (kbest_gpu.cu: 2x2 and 4x4), ML at
 * compile-time sizes, and the one-thread-per-RE kernel with run-time sizes
 * (every case; alone on 2x4 and 3x3).  Cases: BPSK to 64-QAM, K from 1 to
 * past the group kernel's limit, hard and max-log, and n0 = 0 (every LLR
 * clipped).  The inputs mix i.i.d. Rayleigh REs with ones built
 * for ties: H and y on a coarse integer grid (equal metrics among
 * candidates), a zero column (a whole layer ties), a repeated column, and an
 * Inf or NaN in y (every metric NaN: the NaN key and the generation order
 * decide).  A failure names the case, the kernel, the first RE that differs
 * (its kind) and the values on both sides.  OFDMSIM_SMALL=1: fewer REs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "cuda/detect_gpu.cuh"
#include "cuda/gpu_internal.cuh"
#include "cuda/joint_gpu.cuh"
#include "equalizer/detect.h"
#include "linktest.h"
#include "testutil.h"

namespace {

/* The kind of test input of RE i. */
const char *kind_name[] = {"rayleigh", "grid", "zero column", "repeated column", "inf/nan in y"};
int kind_of(size_t i) {
  if (i % 97 == 5) return 4;
  if (i % 13 == 3) return 2;
  if (i % 11 == 7) return 3;
  if (i % 4 == 1) return 1;
  return 0;
}

struct inputs {
  int tx, rx, bps;
  size_t R;
  std::vector<cf32> h, y; /* SoA: h[(r*tx + t)*R + i], y[r*R + i] */
  std::vector<uint8_t> labels;
};

void make_inputs(inputs *in, float n0) {
  const int tx = in->tx, rx = in->rx, links = tx * rx;
  const size_t R = in->R;
  in->h.assign((size_t)links * R, cf_make(0.0f, 0.0f));
  in->y.assign((size_t)rx * R, cf_make(0.0f, 0.0f));
  in->labels.assign((size_t)tx * R, 0);
  test_rng_seed(0x6b657374ull + (uint64_t)(tx * 100 + rx * 10 + in->bps));
  const double sd = sqrt((double)n0);
  for (size_t i = 0; i < R; i++) {
    const int kind = kind_of(i);
    cf32 h[LINK_MAX_RX * LINK_MAX_TX], x[LINK_MAX_TX];
    for (int e = 0; e < links; e++) {
      double a, b;
      test_rng_cnormal(&a, &b);
      if (kind == 1) { /* integers in -2..2: many exactly equal metrics */
        a = (double)((int)(test_rng_u64() % 5) - 2);
        b = (double)((int)(test_rng_u64() % 5) - 2);
      }
      h[e] = cf_make((float)a, (float)b);
    }
    if (kind == 2)
      for (int r = 0; r < rx; r++) h[r * tx + (int)(i % (size_t)tx)] = cf_make(0.0f, 0.0f);
    if (kind == 3)
      for (int r = 0; r < rx; r++) h[r * tx + tx - 1] = h[r * tx + 0];
    for (int t = 0; t < tx; t++) {
      const uint32_t lab = (uint32_t)(test_rng_u64() & ((1u << in->bps) - 1u));
      in->labels[(size_t)t * R + i] = (uint8_t)lab;
      x[t] = qam_map(in->bps, lab);
    }
    for (int r = 0; r < rx; r++) {
      double a, b;
      test_rng_cnormal(&a, &b);
      float yr = (float)(a * sd), yi = (float)(b * sd);
      for (int t = 0; t < tx; t++) {
        const cf32 p = cf_mul(h[r * tx + t], x[t]);
        yr += p.re;
        yi += p.im;
      }
      if (kind == 1) { /* y on a grid of 1/4 */
        yr = roundf(yr * 4.0f) / 4.0f;
        yi = roundf(yi * 4.0f) / 4.0f;
      }
      if (kind == 4 && r == 0) yr = (i / 97) & 1 ? INFINITY : NAN;
      in->y[(size_t)r * R + i] = cf_make(yr, yi);
    }
    for (int e = 0; e < links; e++) in->h[(size_t)e * R + i] = h[e];
  }
}

struct gpu_run {
  std::vector<cf32> xhat;
  std::vector<float> llr;
  std::vector<uint32_t> errors;
};

template <class T>
T *to_device(const std::vector<T> &v) {
  T *d = NULL;
  CUDA_CHECK(cudaMalloc(&d, sizeof(T) * (v.size() ? v.size() : 1)));
  if (v.size()) CUDA_CHECK(cudaMemcpy(d, v.data(), sizeof(T) * v.size(), cudaMemcpyHostToDevice));
  return d;
}

/* The staged joint detector over the inputs: one frame of R REs, no pilots. */
void run_gpu(const inputs &in, eq_kind eq, int K, int soft, float n0, float clip, int joint, gpu_run *o) {
  const int tx = in.tx, bps = in.bps;
  const size_t R = in.R, nllr = R * (size_t)tx * (size_t)bps;
  gpu_link g;
  memset(&g, 0, sizeof g);
  g.tx = tx;
  g.rx = in.rx;
  g.links = tx * in.rx;
  g.bps = bps;
  g.rf = g.df = g.R = R;
  g.frames = 1;
  g.n0r = n0;
  g.equalizer = eq;
  g.llr = soft ? LLR_MAXLOG : LLR_OFF;
  g.kbest_k = K;
  g.llr_clip = clip;
  cf32 *d_h = to_device(in.h), *d_y = to_device(in.y);
  uint8_t *d_lab = to_device(in.labels);
  cf32 *d_xhat = to_device(std::vector<cf32>((size_t)tx * R));
  float *d_llr = to_device(std::vector<float>(soft ? nllr : 0));
  uint32_t *d_err = to_device(std::vector<uint32_t>((size_t)tx, 0u));
  uint32_t *d_fb = to_device(std::vector<uint32_t>(1, 0u));
  gpu_stacks st = {d_lab, d_h, d_y, d_xhat};
  gpu_detect_out out;
  memset(&out, 0, sizeof out);
  out.count = 1;
  out.errors = d_err;
  out.fallbacks = d_fb;
  out.llr = soft ? d_llr : NULL;
  gpu_joint_select(joint);
  CHECK(gpu_launch_detect(g, NULL, NULL, NULL, &st, out, 0) == 0, "launch");
  CUDA_CHECK(cudaDeviceSynchronize());
  o->xhat.resize((size_t)tx * R);
  o->llr.assign(nllr, 0.0f);
  o->errors.resize((size_t)tx);
  CUDA_CHECK(cudaMemcpy(o->xhat.data(), d_xhat, sizeof(cf32) * o->xhat.size(), cudaMemcpyDeviceToHost));
  if (soft) CUDA_CHECK(cudaMemcpy(o->llr.data(), d_llr, sizeof(float) * nllr, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(o->errors.data(), d_err, sizeof(uint32_t) * tx, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_h));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFree(d_lab));
  CUDA_CHECK(cudaFree(d_xhat));
  CUDA_CHECK(cudaFree(d_llr));
  CUDA_CHECK(cudaFree(d_err));
  CUDA_CHECK(cudaFree(d_fb));
}

uint32_t bits_of(float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  return u;
}

/* The kernel a variant (gpu_joint) runs for the case. */
const char *kernel_of(const inputs &in, eq_kind eq, int K, int joint) {
  if (joint == JOINT_THREAD) return "thread";
  if (eq == EQ_ML) return gpu_ml_sized_covers(in.tx, in.rx, in.bps) ? "ml sized" : "thread";
  if (joint == JOINT_BEST && gpu_kbest_reg_covers(in.tx, in.rx, in.bps, K)) return "register";
  return gpu_kbest_group_covers(in.tx, in.rx, in.bps, K) ? "group" : "thread";
}

/* One case: every kernel that can run it (each variant's, once) against the
 * CPU per RE. */
void check_case(const inputs &in, eq_kind eq, int K, int soft, float n0) {
  const int tx = in.tx, rx = in.rx, bps = in.bps;
  const size_t R = in.R;
  const float clip = 20.0f;
  std::vector<uint32_t> cpu_lab((size_t)tx * R);
  std::vector<float> cpu_llr(R * (size_t)tx * (size_t)bps);
  for (size_t i = 0; i < R; i++) {
    cf32 h[LINK_MAX_RX * LINK_MAX_TX], y[LINK_MAX_RX];
    uint32_t lab[LINK_MAX_TX];
    float llr[LINK_MAX_TX * DET_MAX_BPS];
    for (int e = 0; e < tx * rx; e++) h[e] = in.h[(size_t)e * R + i];
    for (int r = 0; r < rx; r++) y[r] = in.y[(size_t)r * R + i];
    if (eq == EQ_ML)
      det_ml(rx, tx, bps, h, y, n0, SOFT_LLR_CLIP, lab, soft ? llr : NULL);
    else
      det_kbest(rx, tx, bps, K, h, y, n0, clip, lab, soft ? llr : NULL);
    for (int t = 0; t < tx; t++) {
      cpu_lab[i * (size_t)tx + (size_t)t] = lab[t];
      for (int k = 0; soft && k < bps; k++) cpu_llr[(i * (size_t)tx + (size_t)t) * (size_t)bps + (size_t)k] = llr[t * bps + k];
    }
  }
  const char *done[3] = {NULL, NULL, NULL};
  for (int joint = JOINT_BEST; joint <= JOINT_THREAD; joint++) {
    const char *kernel = kernel_of(in, eq, K, joint);
    int seen = 0;
    for (int j = 0; j < joint; j++) seen |= done[j] && !strcmp(done[j], kernel);
    done[joint] = kernel;
    if (seen) continue;
    /* the thread kernel's lists are in local memory: beside a faster kernel
     * only where it stays quick */
    if (joint == JOINT_THREAD && eq == EQ_KBEST && K > 17 && (1 << bps) * K * tx > 2048) continue;
    char what[160];
    snprintf(what, sizeof what, "%dx%d %d bits %s K=%-3d %s n0=%g [%s kernel]", tx, rx, bps,
             eq == EQ_ML ? "ml   " : "kbest", eq == EQ_ML ? 0 : K, soft ? "llr " : "hard", (double)n0, kernel);
    gpu_run o;
    run_gpu(in, eq, K, soft, n0, clip, joint, &o);
    size_t dec_off = 0, llr_off = 0;
    std::vector<uint32_t> err((size_t)tx, 0u);
    long first = -1;
    for (size_t i = 0; i < R; i++) {
      const uint32_t *lab = &cpu_lab[i * (size_t)tx];
      const float *llr = &cpu_llr[i * (size_t)tx * (size_t)bps];
      int bad = 0;
      for (int t = 0; t < tx; t++) {
        err[t] += (uint32_t)__builtin_popcount(lab[t] ^ in.labels[(size_t)t * R + i]);
        const cf32 want = qam_map(bps, lab[t]), got = o.xhat[(size_t)t * R + i];
        if (bits_of(want.re) != bits_of(got.re) || bits_of(want.im) != bits_of(got.im)) {
          dec_off++;
          bad = 1;
        }
        for (int k = 0; soft && k < bps; k++) {
          const float g = o.llr[(i * (size_t)tx + (size_t)t) * (size_t)bps + (size_t)k];
          if (bits_of(g) != bits_of(llr[t * bps + k])) {
            llr_off++;
            if (!bad && first < 0)
              fprintf(stderr, "  %s: RE %zu (%s) stream %d bit %d: LLR cpu %.9g gpu %.9g\n", what, i,
                      kind_name[kind_of(i)], t, k, (double)llr[t * bps + k], (double)g);
            bad = 1;
          }
        }
      }
      if (bad && first < 0) {
        first = (long)i;
        fprintf(stderr, "  %s: first difference at RE %zu (%s): decisions cpu", what, i, kind_name[kind_of(i)]);
        for (int t = 0; t < tx; t++) fprintf(stderr, " %u", lab[t]);
        fprintf(stderr, ", gpu symbols");
        for (int t = 0; t < tx; t++)
          fprintf(stderr, " (%.6g, %.6g)", (double)o.xhat[(size_t)t * R + i].re, (double)o.xhat[(size_t)t * R + i].im);
        fputc('\n', stderr);
      }
    }
    size_t err_off = 0;
    for (int t = 0; t < tx; t++) err_off += err[t] != o.errors[t];
    CHECK(dec_off == 0, "%s: %zu decisions differ from the CPU's", what, dec_off);
    CHECK(llr_off == 0, "%s: %zu LLRs differ from the CPU's", what, llr_off);
    CHECK(err_off == 0, "%s: %zu streams' error counts differ from the CPU's", what, err_off);
    unsigned long long e_all = 0;
    for (int t = 0; t < tx; t++) e_all += err[t];
    printf("%-70s %zu REs, bit errors %llu, decisions off %zu, LLRs off %zu\n", what, R, e_all, dec_off, llr_off);
  }
}

}  // namespace

int main(void) {
  if (lt_cuda_missing("test_gpu_kbest")) return TEST_SKIP;
  const int small = test_small_mode();
  const struct {
    int tx, rx;
  } shapes[] = {{2, 2}, {4, 4}, {2, 4}, {3, 3}};
  const int mods[] = {1, 2, 4, 6};
  const int ks[] = {1, 2, 3, 5, 8, 16, 17, 32, 64, 65};
  for (const auto &sh : shapes)
    for (int bps : mods) {
      inputs in = {sh.tx, sh.rx, bps, small ? (size_t)1024 : (size_t)8192, {}, {}, {}};
      /* the thread kernel's lists are in local memory: fewer REs for large
       * lists, still thousands of searches */
      const float n0 = (float)(sh.tx * pow(10.0, -(bps == 1 ? 4.0 : 3.0 * bps) / 10.0));
      make_inputs(&in, n0);
      for (int K : ks) {
        const int group = gpu_kbest_group_covers(sh.tx, sh.rx, bps, K);
        /* K past every group limit only where the thread kernel stays quick */
        if (!group && K > 17 && (1 << bps) * K * sh.tx > 2048) continue;
        for (int soft = 0; soft < 2; soft++) check_case(in, EQ_KBEST, K, soft, n0);
      }
      check_case(in, EQ_KBEST, 16, 1, 0.0f); /* n0 = 0: every LLR +-clip */
      if (bps * sh.tx <= DET_ML_BITS && (small ? bps * sh.tx <= 8 : bps * sh.tx <= 16))
        for (int soft = 0; soft < 2; soft++) check_case(in, EQ_ML, 0, soft, n0);
    }
  return test_finish("test_gpu_kbest");
}
