/* The device transmitter (cuda/tb_encode_gpu.cu) against the host's chain
 * (coding/tb_chain.h), stage by stage and bit for bit, for every frame of
 * two batches (the second at other frame numbers, smaller than the
 * capacity) of each transport block below:
 *
 *   information bits     == tb_draw_info (the Philox words, keyed by frame)
 *   TB with its CRC      == crc_attach (CRC16 or CRC24A)
 *   every codeword       == ldpc_encode of ldpc_segment_block (the
 *                           segmentation, CB CRC24B and fillers in the
 *                           systematic part, the parity after it)
 *   the coded bits       == tb_encode (rate matching, interleaving and
 *                           concatenation), for transmissions 0..3 of HARQ
 *                           (rv 0, 2, 3, 1: every rv; retransmissions encode
 *                           the TBs kept on the device, at HARQ's frame
 *                           numbers, and still equal the first's TB)
 *   the labels           == tb_label
 *
 * The TBs are the link's (tbs_from_re over data REs x layers x Qm): both
 * base graphs, small and large lifting sizes, one code block and several,
 * with fillers, CRC16 and CRC24A, Qm 2, 4, 6 and 8, 1 to 4 layers, a
 * block repeating bits (E > Ncb); the coverage is checked before the device is looked for. Each
 * mismatch names the case, batch, transmission, frame and the first bit
 * that differs (and where it lies: information or CRC, block, column and
 * lane). Exits 77 without a GPU; OFDMSIM_SMALL=1 (compute-sanitizer) runs
 * fewer cases and frames. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "tb_case.h" /* first: its C headers take C linkage before any header includes them bare */

extern "C" { /* C headers without their own C++ guards */
#include "coding/ldpc_encode.h"
#include "coding/ldpc_graph.h"
}
#include "core/draws.h"
#include "cuda/check.h"
#include "cuda/gpu.h"
#include "cuda/tb_encode_gpu.cuh"
#include "testutil.h"

namespace {

/* The cases and why each is there (the comments give tbs_from_re's TBS and
 * the segmentation it leads to; the coverage check below holds them to it). */
const tb_case kCases[] = {
    {100, 0.3, 2, 1},   /* tiny TB: BG2, CRC16, Kb 6, many fillers */
    {125, 0.8, 4, 1},   /* A ~ 400 at rate 0.8: BG1 with a small Z, CRC16 */
    {600, 0.5, 4, 2},   /* BG2, CRC16, one block */
    {1200, 0.75, 6, 1}, /* BG1, CRC24A, one block */
    {2200, 0.9, 4, 1},  /* BG1, Z 384, one block */
    {6000, 0.22, 4, 1}, /* BG2 at a low rate with several blocks (CRC24A, CRC24B) */
    {3000, 0.6, 8, 2},  /* BG1, several blocks, 256-QAM */
    {1000, 0.9, 8, 4},  /* BG1, several blocks, four layers */
    {700, 0.45, 6, 3},  /* BG2, three layers, 64-QAM */
    {8000, 0.3, 2, 1},  /* BG1 below its mother rate: E > Ncb, bits repeated */
};
const size_t kNumCases = sizeof kCases / sizeof kCases[0];

/* The case's TB and its plans for transmissions 0..3 (rv tb_harq_rv(t)). */
struct built {
  int tbs;
  long g;
  tb_plan plan[LINK_HARQ_MAX];
  int ok;
};

int build(const tb_case &c, built *b) {
  memset(b, 0, sizeof *b);
  b->g = tb_case_bits(&c);
  char err[256];
  for (int t = 0; t < LINK_HARQ_MAX; t++)
    if (tb_case_plan(&c, tb_harq_rv(t), &b->plan[t], &b->tbs, err, sizeof err)) {
      fprintf(stderr, "case n_re %d rate %g Qm %d layers %d: TBS %d: %s\n", c.n_re, c.rate, c.qm, c.layers, b->tbs,
              err);
      for (int u = 0; u < t; u++) tb_plan_free(&b->plan[u]);
      return -1;
    }
  b->ok = 1;
  return 0;
}

void unbuild(built *b) {
  if (!b->ok) return;
  for (int t = 0; t < LINK_HARQ_MAX; t++) tb_plan_free(&b->plan[t]);
  b->ok = 0;
}

/* The first index where a and b differ, or -1. */
long first_diff(const uint8_t *a, const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) return (long)i;
  return -1;
}

/* What the cases cover, checked on the host before any device is needed. */
int check_coverage(const std::vector<built> &bs) {
  int bg[3] = {0}, one_block = 0, several = 0, fillers = 0, no_fillers_or_large = 0, crc16 = 0, crc24a = 0;
  int qms[9] = {0}, repeated = 0;
  std::vector<int> zs;
  for (size_t i = 0; i < bs.size(); i++) {
    const ldpc_segmentation &s = bs[i].plan[0].seg;
    bg[s.bg] = 1;
    one_block |= s.c == 1;
    several |= s.c > 1;
    fillers |= s.f > 0;
    no_fillers_or_large |= s.zc == 384;
    crc16 |= s.tb_crc == 16;
    crc24a |= s.tb_crc == 24;
    qms[bs[i].plan[0].qm] = 1;
    repeated |= bs[i].plan[0].rm[0].e > bs[i].plan[0].rm[0].ncb;
    int seen = 0;
    for (int z : zs) seen |= z == s.zc;
    if (!seen) zs.push_back(s.zc);
    printf("case %zu: TBS %d, BG%d, C %d, K' %d, Zc %d, K %d, F %d, TB CRC %d, Qm %d, layers %d, G %ld\n", i, s.a,
           s.bg, s.c, s.k_prime, s.zc, s.k, s.f, s.tb_crc, bs[i].plan[0].qm, bs[i].plan[0].layers, bs[i].g);
  }
  CHECK(bg[1] && bg[2], "both base graphs");
  CHECK(one_block && several, "one code block and several");
  CHECK(fillers, "a TB with filler bits");
  CHECK(no_fillers_or_large, "a TB at Z = 384");
  CHECK(crc16 && crc24a, "CRC16 and CRC24A TBs");
  CHECK(qms[2] && qms[4] && qms[6] && qms[8], "Qm 2, 4, 6 and 8");
  CHECK(zs.size() >= 5, "at least 5 lifting sizes (%zu)", zs.size());
  CHECK(repeated, "a TB whose blocks repeat bits (E > Ncb)");
  return 0;
}

/* One batch of case `ci` on the device against the host, every
 * transmission; counts the mismatches it prints. */
int run_batch(size_t ci, const tb_case &c, const built &b, gpu_tb_encoder *enc, uint64_t key, uint64_t first,
              uint64_t frames, cudaStream_t st) {
  const tb_plan &p0 = b.plan[0];
  const ldpc_segmentation &s = p0.seg;
  const size_t g = (size_t)b.g, a = (size_t)s.a, bb = (size_t)s.b;
  const size_t ncw = (size_t)ldpc_codeword_bits(&p0.code), nc = (size_t)s.c;
  const uint64_t ndata = (uint64_t)g / (uint64_t)(c.layers * c.qm);
  uint8_t *d_coded = NULL, *d_cw = NULL, *d_labels = NULL;
  CUDA_CHECK(cudaMalloc(&d_coded, frames * g));
  CUDA_CHECK(cudaMalloc(&d_cw, frames * nc * ncw));
  CUDA_CHECK(cudaMalloc(&d_labels, frames * ndata * (size_t)c.layers));
  std::vector<uint8_t> info(frames * a), tb(frames * bb), coded(frames * g), cw(frames * nc * ncw),
      labels(frames * ndata * (size_t)c.layers);
  std::vector<uint8_t> want_info(a), want_tb(bb + 64), want_coded(g), block((size_t)s.k), want_cw(ncw);
  std::vector<unsigned char> scratch(tb_scratch_bytes(&p0));
  int bad = 0;
  for (int t = 0; t < LINK_HARQ_MAX; t++) {
    const tb_plan &pt = b.plan[t];
    /* retransmissions run at HARQ's frame numbers, on the kept TBs */
    const uint64_t at = t ? rng_harq_frame(first, t) : first;
    if (gpu_tb_encode(enc, t, key, at, frames, t == 0, d_coded, d_cw, st)) {
      fprintf(stderr, "case %zu t %d: gpu_tb_encode failed: %s\n", ci, t, gpu_last_error());
      return bad + 1;
    }
    CUDA_CHECK(cudaMemcpyAsync(coded.data(), d_coded, frames * g, cudaMemcpyDeviceToHost, st));
    CUDA_CHECK(cudaMemcpyAsync(cw.data(), d_cw, frames * nc * ncw, cudaMemcpyDeviceToHost, st));
    if (gpu_tb_copy_info(enc, frames, info.data(), st) || gpu_tb_copy_tb(enc, frames, tb.data(), st) ||
        gpu_tb_labels(d_coded, b.g, frames, ndata, c.layers, c.qm, d_labels, st)) {
      fprintf(stderr, "case %zu t %d: a copy failed: %s\n", ci, t, gpu_last_error());
      return bad + 1;
    }
    CUDA_CHECK(cudaMemcpyAsync(labels.data(), d_labels, labels.size(), cudaMemcpyDeviceToHost, st));
    CUDA_CHECK(cudaStreamSynchronize(st));
    for (uint64_t f = 0; f < frames; f++) {
      const uint64_t frame = first + f; /* the TB is the first transmission's frame's */
      tb_draw_info(key, frame, (int)a, want_info.data());
      long i = first_diff(info.data() + f * a, want_info.data(), a);
      if (i >= 0) {
        fprintf(stderr, "case %zu t %d frame %llu: information bit %ld of %zu differs (gpu %d cpu %d)\n", ci, t,
                (unsigned long long)frame, i, a, info[f * a + (size_t)i], want_info[(size_t)i]);
        bad++;
        continue;
      }
      memcpy(want_tb.data(), want_info.data(), a);
      crc_attach(ldpc_tb_crc_kind(&s), want_tb.data(), a);
      i = first_diff(tb.data() + f * bb, want_tb.data(), bb);
      if (i >= 0) {
        fprintf(stderr, "case %zu t %d frame %llu: TB CRC%d bit %ld of %d differs (gpu %d cpu %d)\n", ci, t,
                (unsigned long long)frame, s.tb_crc, i - (long)a, s.tb_crc, tb[f * bb + (size_t)i],
                want_tb[(size_t)i]);
        bad++;
        continue;
      }
      int cw_bad = 0;
      for (size_t r = 0; r < nc && !cw_bad; r++) {
        ldpc_segment_block(&s, want_tb.data(), (int)r, block.data());
        ldpc_encode(&p0.code, block.data(), want_cw.data());
        i = first_diff(cw.data() + (f * nc + r) * ncw, want_cw.data(), ncw);
        if (i >= 0) {
          const long col = i / p0.code.z, lane = i % p0.code.z;
          const char *part = i < s.k_prime - s.cb_crc ? "payload"
                             : i < s.k_prime          ? "CB CRC24B"
                             : i < s.k                ? "filler"
                             : col < p0.code.g->info_cols + 4 ? "core parity"
                                                               : "extension parity";
          fprintf(stderr,
                  "case %zu t %d frame %llu block %zu: codeword bit %ld (column %ld lane %ld, %s) differs (gpu %d "
                  "cpu %d)\n",
                  ci, t, (unsigned long long)frame, r, i, col, lane, part, cw[(f * nc + r) * ncw + (size_t)i],
                  want_cw[(size_t)i]);
          cw_bad = 1;
        }
      }
      if (cw_bad) {
        bad++;
        continue;
      }
      tb_encode(&pt, want_info.data(), want_coded.data(), scratch.data());
      i = first_diff(coded.data() + f * g, want_coded.data(), g);
      if (i >= 0) {
        size_t r = 0;
        while (r + 1 < nc && pt.offset[r + 1] <= i) r++;
        fprintf(stderr,
                "case %zu t %d (rv %d) frame %llu: coded bit %ld of %zu differs (block %zu, its bit %ld of E %d; "
                "gpu %d cpu %d)\n",
                ci, t, pt.rv, (unsigned long long)frame, i, g, r, i - pt.offset[r], pt.rm[r].e, coded[f * g + (size_t)i],
                want_coded[(size_t)i]);
        bad++;
        continue;
      }
      for (uint64_t d = 0; d < ndata; d++)
        for (int l = 0; l < c.layers; l++) {
          const uint32_t want = tb_label(want_coded.data(), d, c.layers, l, c.qm);
          const uint8_t got = labels[(f * ndata + d) * (uint64_t)c.layers + (uint64_t)l];
          if (got != want) {
            if (bad < 1000)
              fprintf(stderr, "case %zu t %d frame %llu: label of RE %llu layer %d is %u, tb_label's %u\n", ci, t,
                      (unsigned long long)frame, (unsigned long long)d, l, got, want);
            bad++;
            d = ndata;
            break;
          }
        }
    }
  }
  CUDA_CHECK(cudaFree(d_coded));
  CUDA_CHECK(cudaFree(d_cw));
  CUDA_CHECK(cudaFree(d_labels));
  return bad;
}

}  // namespace

int main(void) {
  const int small = test_small_mode();
  std::vector<built> bs(kNumCases);
  int built_ok = 1;
  for (size_t i = 0; i < kNumCases; i++) built_ok &= build(kCases[i], &bs[i]) == 0;
  CHECK(built_ok, "every case has a plan");
  if (!built_ok) return test_finish("test_tb_encode_gpu");
  check_coverage(bs);
  if (test_failed > 0) return test_finish("test_tb_encode_gpu");
  char why[256];
  if (gpu_device_count(why, sizeof why) == 0) {
    printf("test_tb_encode_gpu: skipped: %s\n", why);
    for (auto &b : bs) unbuild(&b);
    return TEST_SKIP;
  }
  cudaStream_t st;
  CUDA_CHECK(cudaStreamCreate(&st));
  const uint64_t key = rng_key(7, 0x1234abcdULL);
  const uint64_t frames = small ? 2 : 6;
  for (size_t ci = 0; ci < kNumCases; ci++) {
    if (small && ci % 3 != 0) continue;
    const built &b = bs[ci];
    gpu_tb_encoder enc;
    const tb_plan *plans[LINK_HARQ_MAX];
    for (int t = 0; t < LINK_HARQ_MAX; t++) plans[t] = &b.plan[t];
    char err[256];
    const int init = gpu_tb_encoder_init(&enc, plans, LINK_HARQ_MAX, frames, st, err, sizeof err);
    CHECK(init == 0, "case %zu: encoder: %s", ci, err);
    if (init) continue;
    /* two batches: a full one, then a shorter one far along the stream */
    const int bad1 = run_batch(ci, kCases[ci], b, &enc, key, 1000 + 17 * ci, frames, st);
    const int bad2 = run_batch(ci, kCases[ci], b, &enc, key, (1ULL << 30) + 3 * ci, frames - 1, st);
    CHECK(bad1 == 0 && bad2 == 0, "case %zu (TBS %d, BG%d, C %d, Zc %d, F %d, Qm %d, %d layers): %d mismatches", ci,
          b.plan[0].seg.a, b.plan[0].seg.bg, b.plan[0].seg.c, b.plan[0].seg.zc, b.plan[0].seg.f, b.plan[0].qm,
          b.plan[0].layers, bad1 + bad2);
    gpu_tb_encoder_free(&enc);
  }
  CUDA_CHECK(cudaStreamDestroy(st));
  for (auto &b : bs) unbuild(&b);
  return test_finish("test_tb_encode_gpu");
}
