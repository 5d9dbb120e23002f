/* The CUDA backend's coded link (cuda/coded_gpu.cu) against the CPU's:
 *
 * - the GPU's own chain: for every frame the transmitted bits (the LLR
 *   export's) are the coding library's encoding of the TB drawn from the
 *   point's stream (the CPU backend's, bit for bit), and the GPU's decoded
 *   counts (TB error, CB errors, information-bit errors, iterations) are
 *   exactly what the library's receiver (coding/tb_chain.h, the CPU decoder)
 *   gives on the GPU's own LLRs: the labels kernel, the de-rate-matching
 *   gather, the GPU decoder and the device's judgement
 *   (cuda/tb_judge_gpu.cu) together equal tb_decode;
 * - GPU equals CPU backend: every frame whose LLRs are the CPU backend's bit
 *   for bit has the CPU backend's counts exactly; the two backends' channels
 *   may differ in the last ulps (device and host maths, see
 *   tests/cuda/test_gpu_vs_cpu.cu), so the remaining frames are held to the
 *   uncoded bit errors within 0.1% + 2 and the lost TBs within 2 + 10%;
 * - limits: every TB delivered at 30 dB, every TB lost at -12 dB, on both;
 * - HARQ (code.harq_transmissions = 4, the combining on the device): the
 *   GPU's first transmission is its point without HARQ's, frame for frame;
 *   a TB is retried only when lost and lost after HARQ only after 4
 *   transmissions; fewer lost after HARQ than at first; the counts the same
 *   in batches of 1 and 5; and against the CPU backend: every frame with
 *   the CPU's first-transmission LLRs bit for bit and the CPU's outcome of
 *   the first transmission, lost TBs after HARQ and transmissions within
 *   2 + 10% (later transmissions' channels may differ in the last ulps as
 *   the first's do);
 * for BPSK, QPSK and 16-QAM, zf, mmse and kbest, nms, oms, nms16 and
 * flooding bp, one code block and several, pilots on and off. Exits 77
 * without a GPU; OFDMSIM_SMALL=1 (compute-sanitizer) runs the waterfall
 * points of five cases alone (BPSK nms, zf oms, 16-QAM with pilots and two
 * code blocks, QPSK nms16: the fixed-point kernel's launches, QPSK zf bp:
 * the BP kernel's), and HARQ on the first case only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

extern "C" { /* C headers without their own C++ guards (tb_chain.h includes ldpc_decode.h) */
#include "coding/ldpc_decode.h"
#include "coding/tb_chain.h"
#include "coding/tbs.h"
#include "cpu/backend_cpu.h"
}
#include "core/draws.h"
#include "cuda/backend_cuda.h"
#include "cuda/gpu.h"
#include "coded_point.h"
#include "testparams.h"
#include "testutil.h"

namespace {

constexpr int kFrames = 16;

typedef tp_coded_spec spec;

link_params point_of(const spec &s, double esno) { return tp_coded_point(&s, esno, 7); }

struct run_out {
  std::vector<frame_coded> coded;
  std::vector<float> llr;
  std::vector<uint8_t> bits;
  std::vector<uint32_t> errors;
};

/* Frames [0, kFrames) on `which` ("cpu" or "cuda") in batches of `batch`. */
int run(const char *which, const link_params &p, uint64_t batch, run_out *o) {
  backend_options opt;
  memset(&opt, 0, sizeof opt);
  opt.max_batch_frames = batch;
  char err[512];
  backend *b = strcmp(which, "cuda") == 0 ? backend_cuda_create(&p, &opt, err, sizeof err)
                                          : backend_cpu_create(&p, &opt, err, sizeof err);
  if (!b) {
    CHECK(0, "%s create: %s", which, err);
    return -1;
  }
  const size_t g = (size_t)link_bits_per_frame(&p);
  o->coded.assign(kFrames, frame_coded{});
  o->llr.assign(g * kFrames, 0.0f);
  o->bits.assign(g * kFrames, 0);
  o->errors.assign((size_t)kFrames * (size_t)p.tx, 0);
  std::vector<uint32_t> fallbacks(kFrames);
  std::vector<uint64_t> loss((size_t)kFrames * (size_t)p.tx);
  int rc = 0;
  if (batch > b->ops->max_frames(b)) batch = b->ops->max_frames(b);
  for (uint64_t f = 0; f < kFrames && rc == 0; f += batch) {
    const uint64_t n = kFrames - f < batch ? kFrames - f : batch;
    batch_result out;
    memset(&out, 0, sizeof out);
    out.errors = o->errors.data() + f * (uint64_t)p.tx;
    out.fallbacks = fallbacks.data() + f;
    out.gmi_loss = loss.data() + f * (uint64_t)p.tx;
    out.coded = o->coded.data() + f;
    out.llr = o->llr.data() + f * g;
    out.bits = o->bits.data() + f * g;
    rc = backend_run(b, f, n, &out);
    CHECK(rc == 0, "%s run: %s", which, backend_error(b));
  }
  backend_destroy(b);
  return rc;
}

bool same(const frame_coded &a, const frame_coded &b) {
  return a.tb_error == b.tb_error && a.cbs == b.cbs && a.cb_errors == b.cb_errors && a.info_errors == b.info_errors &&
         a.iterations == b.iterations;
}

/* One point on both backends; returns the GPU's lost TBs (-1 on a failure). */
int compare(const spec &s, double esno, const char *what) {
  const link_params p = point_of(s, esno);
  const size_t g = (size_t)link_bits_per_frame(&p);
  run_out gpu, cpu;
  if (run("cuda", p, 5, &gpu) || run("cpu", p, 5, &cpu)) return -1;
  char err[256];
  tb_plan plan;
  if (tb_plan_make(p.code.tbs, p.code.rate, p.bps, p.tx, (long)g, 0, &plan, err, sizeof err)) {
    CHECK(0, "%s: plan: %s", what, err);
    return -1;
  }
  const ldpc_decoder_config cfg = tb_decoder_config((int)p.code.decoder, 0.75, 0.5, 10, 1);
  ldpc_decoder *d = ldpc_decoder_create(plan.seg.bg, plan.seg.zc, &cfg, err, sizeof err);
  std::vector<unsigned char> scratch(tb_scratch_bytes(&plan) + 64);
  std::vector<uint8_t> enc(g), info((size_t)p.code.tbs);
  CHECK(d != NULL, "%s: decoder: %s", what, err);
  int lost_gpu = 0, lost_cpu = 0, exact = 0;
  for (int f = 0; d && f < kFrames; f++) {
    tb_draw_info(rng_key(p.seed, p.stream_key), (uint64_t)f, p.code.tbs, info.data());
    tb_encode(&plan, info.data(), enc.data(), scratch.data());
    /* the sent bits come symbol by symbol in label bit order: coded bit i
     * is bit tb_llr_index(i) (38.211's order, label_order.h) */
    int moved = 0;
    for (size_t i = 0; i < g; i++) moved += enc[i] != gpu.bits[(size_t)f * g + tb_llr_index(i, p.bps)];
    CHECK(moved == 0, "%s: frame %d: %d of the GPU's sent bits are not the TB's coding in 38.211's order", what, f,
          moved);
    CHECK(memcmp(gpu.bits.data() + (size_t)f * g, cpu.bits.data() + (size_t)f * g, g) == 0,
          "%s: frame %d: the GPU and CPU backends sent different bits", what, f);
    tb_outcome o;
    tb_decode(&plan, d, gpu.llr.data() + (size_t)f * g, info.data(), &o, scratch.data());
    const frame_coded ref = {(uint32_t)o.tb_error, (uint32_t)plan.seg.c, (uint32_t)o.cb_errors,
                             (uint32_t)o.info_errors, (uint32_t)o.iterations, (uint32_t)o.tb_error, 1};
    const frame_coded &c = gpu.coded[(size_t)f];
    CHECK(same(c, ref), "%s: frame %d: GPU TB %u CB %u/%u info %u it %u, library on its LLRs %u %u/%u %u %u", what,
          f, c.tb_error, c.cb_errors, c.cbs, c.info_errors, c.iterations, ref.tb_error, ref.cb_errors, ref.cbs,
          ref.info_errors, ref.iterations);
    if (memcmp(gpu.llr.data() + (size_t)f * g, cpu.llr.data() + (size_t)f * g, sizeof(float) * g) == 0) {
      exact++;
      const frame_coded &k = cpu.coded[(size_t)f];
      CHECK(same(c, k), "%s: frame %d: equal LLRs, GPU TB %u CB %u info %u it %u, CPU %u %u %u %u", what, f,
            c.tb_error, c.cb_errors, c.info_errors, c.iterations, k.tb_error, k.cb_errors, k.info_errors,
            k.iterations);
    }
    lost_gpu += c.tb_error != 0;
    lost_cpu += cpu.coded[(size_t)f].tb_error != 0;
  }
  uint64_t eg = 0, ec = 0;
  for (size_t i = 0; i < gpu.errors.size(); i++) eg += gpu.errors[i], ec += cpu.errors[i];
  const double tol_bits = 2.0 + 1e-3 * (double)ec;
  CHECK(fabs((double)eg - (double)ec) <= tol_bits, "%s: uncoded bit errors GPU %llu, CPU %llu (tolerance %.0f)",
        what, (unsigned long long)eg, (unsigned long long)ec, tol_bits);
  CHECK(abs(lost_gpu - lost_cpu) <= 2 + lost_cpu / 10, "%s: lost TBs GPU %d, CPU %d", what, lost_gpu, lost_cpu);
  printf("%s at %.1f dB: lost TBs GPU %d CPU %d of %d, uncoded bit errors GPU %llu CPU %llu, %d frames with "
         "identical LLRs\n", what, esno, lost_gpu, lost_cpu, kFrames, (unsigned long long)eg, (unsigned long long)ec,
         exact);
  if (d) ldpc_decoder_destroy(d);
  tb_plan_free(&plan);
  return lost_gpu;
}

bool same_harq(const frame_coded &a, const frame_coded &b) {
  return same(a, b) && a.harq_error == b.harq_error && a.transmissions == b.transmissions;
}

/* HARQ on the GPU against its own point without HARQ and the CPU backend. */
void harq(const spec &s, double esno, const char *what) {
  link_params p1 = point_of(s, esno), p4 = p1;
  p4.code.harq = 4;
  run_out g1, g4, g4b, c4;
  if (run("cuda", p1, 5, &g1) || run("cuda", p4, 5, &g4) || run("cuda", p4, 1, &g4b) || run("cpu", p4, 5, &c4))
    return;
  const size_t g = (size_t)link_bits_per_frame(&p1);
  int first = 0, residual = 0, residual_cpu = 0, sent = 0, sent_cpu = 0;
  for (int f = 0; f < kFrames; f++) {
    const frame_coded &h = g4.coded[(size_t)f], &a = g1.coded[(size_t)f];
    CHECK(same(h, a), "%s: harq: frame %d: the first transmission differs from the point without HARQ", what, f);
    CHECK((h.transmissions == 1) == !h.tb_error && h.transmissions >= 1 && h.transmissions <= 4,
          "%s: harq: frame %d: %u transmissions, first TB error %u", what, f, h.transmissions, h.tb_error);
    CHECK(!h.harq_error || (h.tb_error && h.transmissions == 4), "%s: harq: frame %d: lost after %u transmissions",
          what, f, h.transmissions);
    CHECK(same_harq(h, g4b.coded[(size_t)f]), "%s: harq: frame %d: batches of 1 and 5 differ", what, f);
    if (memcmp(g4.llr.data() + (size_t)f * g, c4.llr.data() + (size_t)f * g, sizeof(float) * g) == 0)
      CHECK(same(h, c4.coded[(size_t)f]), "%s: harq: frame %d: equal first LLRs, different first outcomes", what, f);
    first += h.tb_error != 0;
    residual += h.harq_error != 0;
    residual_cpu += c4.coded[(size_t)f].harq_error != 0;
    sent += (int)h.transmissions;
    sent_cpu += (int)c4.coded[(size_t)f].transmissions;
  }
  CHECK(residual <= first && (first == 0 || residual < first), "%s: harq: %d lost at first, %d after HARQ", what,
        first, residual);
  CHECK(abs(residual - residual_cpu) <= 2 + residual_cpu / 10, "%s: harq: lost after HARQ GPU %d, CPU %d", what,
        residual, residual_cpu);
  CHECK(abs(sent - sent_cpu) <= 2 + sent_cpu / 10, "%s: harq: transmissions GPU %d, CPU %d", what, sent, sent_cpu);
  printf("%s at %.1f dB, HARQ: %d lost at first, after HARQ GPU %d CPU %d, transmissions GPU %d CPU %d\n", what,
         esno, first, residual, residual_cpu, sent, sent_cpu);
}

}  // namespace

int main(void) {
  char why[256];
  if (gpu_device_count(why, sizeof why) == 0) {
    printf("test_coded_gpu: skipped: %s\n", why);
    return TEST_SKIP;
  }
  /* name, spec, an Es/N0 in the waterfall (test_coded_cpu's, 16-QAM's by
   * its capacity margin) */
  static const struct {
    const char *name;
    spec s;
    double mid;
  } cases[] = {
      {"bpsk 1x1 mmse nms, one CB", {1, 1, 96, 14, 0, EQ_MMSE, CODE_DEC_NMS, 0.5}, -1.2},
      {"qpsk 2x2 mmse nms, one CB", {2, 2, 72, 14, 0, EQ_MMSE, CODE_DEC_NMS, 0.5}, 1.6},
      {"qpsk 2x2 zf oms", {2, 2, 72, 14, 0, EQ_ZF, CODE_DEC_OMS, 0.5}, 1.4},
      {"qpsk 2x2 kbest oms, pilots, 3 CBs", {2, 2, 600, 14, 1, EQ_KBEST, CODE_DEC_OMS, 0.6}, 2.6},
      {"16qam 4x4 mmse nms, pilots, 2 CBs", {4, 4, 144, 14, 1, EQ_MMSE, CODE_DEC_NMS, 0.5}, 6.8},
      {"qpsk 2x2 kbest oms, DMRS, 3 CBs", {2, 2, 600, 14, 2, EQ_KBEST, CODE_DEC_OMS, 0.6}, 2.6},
      {"qpsk 2x2 mmse nms16, one CB", {2, 2, 72, 14, 0, EQ_MMSE, CODE_DEC_NMS16, 0.5}, 1.6},
      {"16qam 4x4 mmse nms16, pilots, 2 CBs", {4, 4, 144, 14, 1, EQ_MMSE, CODE_DEC_NMS16, 0.5}, 6.8},
      {"qpsk 2x2 zf bp", {2, 2, 72, 14, 0, EQ_ZF, CODE_DEC_BP, 0.5}, 1.4},
      {"16qam 4x4 mmse bp, pilots, 2 CBs", {4, 4, 144, 14, 1, EQ_MMSE, CODE_DEC_BP, 0.5}, 6.8},
  };
  const bool limits = !test_small_mode();
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    /* small: BPSK nms with HARQ, zf oms, and 16-QAM with pilots and two
     * code blocks; the K-best cases (600 subcarriers, three code blocks) are
     * what kept racecheck from finishing, and their decoder launches are the
     * same kernels the kept cases run (case 6: the nms16 kernel, case 8:
     * flooding BP's) */
    if (!limits && i != 0 && i != 2 && i != 4 && i != 6 && i != 8) continue;
    const spec &s = cases[i].s;
    CHECK(compare(s, cases[i].mid, cases[i].name) >= 0, "%s: the waterfall point failed", cases[i].name);
    /* small (the sanitizers' run): HARQ on the first case only. Racecheck
     * replays every decoder launch, and HARQ decodes four times over. */
    if (limits || i == 0) harq(s, cases[i].mid, cases[i].name);
    if (!limits) continue;
    CHECK(compare(s, 30.0, cases[i].name) == 0, "%s: 30 dB: a TB lost", cases[i].name);
    CHECK(compare(s, -12.0, cases[i].name) == kFrames, "%s: -12 dB: a TB delivered", cases[i].name);
  }
  return test_finish("test_coded_gpu");
}
