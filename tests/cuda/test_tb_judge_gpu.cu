/* The device's judgement of decoded TBs (cuda/tb_judge_gpu.cu) against the
 * host's (tb_judge, coding/tb_chain.h), and both against closed forms, on
 * decisions crafted on the host rather than decoded, so that every path of
 * the judgement is taken on purpose. For each TB below (CRC16 and CRC24A,
 * one code block and several, more blocks than a thread block has warps,
 * with and without filler bits) and each frame, the decisions are the block
 * sent with, by scenario:
 *
 *   0 nothing changed                  no error
 *   1 one information bit flipped      TB lost, 1 CB error, 1 bit error
 *   2 one CRC bit flipped (a block's   TB lost, 1 CB error, 0 bit errors
 *     CRC24B, or the TB CRC at C = 1)
 *   3 another TB, CRCs and all         every CRC passes; TB lost by its bit
 *                                      errors (the Hamming distance)
 *   4 an error pattern every CRC       every CRC passes (checked on the
 *     divides: g_TB(D) at C = 1,       host); TB lost, 1 CB error, bit
 *     g_TB(D) g_24B(D) in one block    errors the pattern's weight
 *   5 random flips over the blocks     the host's counts
 *
 * and in every scenario the bytes past K' of each block's decisions (the
 * filler positions and the rest of the decoder's K) set to 1, which neither
 * judgement may read; the iterations differ per block and must sum. The
 * device judges every frame, then a list of them (out of order, some left
 * out: HARQ's retransmissions), the decisions packed by list place. The
 * sent TBs sit at a stride other than B, as the encoder keeps them.
 * Exits 77 without a GPU; OFDMSIM_SMALL=1 (compute-sanitizer) runs fewer
 * cases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "tb_case.h" /* first: its C headers take C linkage before any header includes them bare */

#include "cuda/check.h"
#include "cuda/gpu.h"
#include "cuda/tb_judge_gpu.cuh"
#include "testutil.h"

namespace {

/* tbs_from_re's TBS and the segmentation it leads to; check_coverage holds
 * the set to what the header comment promises. */
const tb_case kCases[] = {
    {100, 0.3, 2, 1},    /* tiny TB: BG2, CRC16, one block, many fillers */
    {1200, 0.75, 6, 1},  /* BG1, CRC24A, one block */
    {6000, 0.22, 4, 1},  /* BG2, CRC24A, several blocks */
    {3000, 0.6, 8, 2},   /* BG1, several blocks */
    {6000, 0.9, 8, 4},   /* BG1, more blocks than the kernel's 8 warps */
};
const size_t kNumCases = sizeof kCases / sizeof kCases[0];
constexpr int kScenarios = 6;

/* A full generator polynomial, D^L included, as a mask of D^0 .. D^L. */
uint64_t full_generator(crc_kind k) { return (1ull << crc_length(k)) | (uint64_t)crc_polynomial(k); }

/* a(D) b(D) over GF(2) (the degrees' sum below 64). */
uint64_t clmul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  for (int i = 0; i < 64; i++)
    if ((b >> i) & 1u) r ^= a << i;
  return r;
}

int degree(uint64_t p) {
  int d = -1;
  for (int i = 0; i < 64; i++)
    if ((p >> i) & 1u) d = i;
  return d;
}

/* Flips the bits of e(D) D^k into bits[at .. at + deg e]: the array's
 * lowest index is the highest power, so coefficient D^m of e lands at
 * at + deg e - m. Returns the pattern's weight. */
int flip_pattern(uint8_t *bits, int at, uint64_t e) {
  const int d = degree(e);
  int w = 0;
  for (int m = 0; m <= d; m++)
    if ((e >> m) & 1u) {
      bits[at + d - m] ^= 1u;
      w++;
    }
  return w;
}

struct frame_truth {
  int tb_error, cb_errors, info_errors, iterations; /* the closed form, -1: the host's alone */
};

/* The frame's sent TB (B bits and its CB CRC24B remainders) and its crafted
 * decisions (C blocks of stride K), by scenario; the closed form in truth. */
void craft(const tb_plan &p, int scenario, uint64_t *rng, uint8_t *sent, uint32_t *cb_crc, uint8_t *bits,
           frame_truth *truth) {
  const ldpc_segmentation &s = p.seg;
  const int payload = s.k_prime - s.cb_crc, kind = ldpc_tb_crc_kind(&s);
  for (int i = 0; i < s.a; i++) sent[i] = (uint8_t)(test_splitmix64(rng) & 1u);
  crc_attach((crc_kind)kind, sent, (size_t)s.a);
  for (int r = 0; r < s.c; r++) {
    cb_crc[r] = s.cb_crc ? crc_remainder(CRC24B, sent + (size_t)r * payload, (size_t)payload) : 0u;
    ldpc_segment_block(&s, sent, r, bits + (size_t)r * s.k);
  }
  truth->tb_error = truth->cb_errors = truth->info_errors = 0;
  const int r = (int)(test_splitmix64(rng) % (uint64_t)s.c); /* the block a scenario touches */
  uint8_t *blk = bits + (size_t)r * s.k;
  switch (scenario) {
    case 1: { /* an information bit: the block's payload below A */
      const int hi = s.a - r * payload < payload ? s.a - r * payload : payload;
      blk[test_splitmix64(rng) % (uint64_t)hi] ^= 1u;
      *truth = {1, 1, 1, 0};
      break;
    }
    case 2:
      if (s.cb_crc) {
        blk[payload + (int)(test_splitmix64(rng) % (uint64_t)s.cb_crc)] ^= 1u; /* its CRC24B */
      } else {
        blk[s.a + (int)(test_splitmix64(rng) % (uint64_t)s.tb_crc)] ^= 1u; /* the TB CRC (C = 1: B = K') */
      }
      *truth = {1, 1, 0, 0};
      break;
    case 3: { /* another TB: its own CRCs, every one passing */
      std::vector<uint8_t> other((size_t)s.b + 64);
      for (int i = 0; i < s.a; i++) other[(size_t)i] = (uint8_t)(test_splitmix64(rng) & 1u);
      crc_attach((crc_kind)kind, other.data(), (size_t)s.a);
      int dist = 0;
      for (int i = 0; i < s.a; i++) dist += other[(size_t)i] != sent[i];
      for (int q = 0; q < s.c; q++) ldpc_segment_block(&s, other.data(), q, bits + (size_t)q * s.k);
      *truth = {dist > 0, -1, dist, 0};
      break;
    }
    case 4: { /* a pattern the TB CRC (and the block's CRC24B) divides */
      const uint64_t e = s.cb_crc ? clmul(full_generator((crc_kind)kind), full_generator(CRC24B))
                                  : full_generator((crc_kind)kind);
      const int span = degree(e) + 1;
      const int hi = s.a - r * payload < payload ? s.a - r * payload : payload; /* information bits */
      const int at = (int)(test_splitmix64(rng) % (uint64_t)(hi - span + 1));
      const int w = flip_pattern(blk, at, e);
      *truth = {1, 1, w, 0};
      break;
    }
    case 5: { /* a few random flips anywhere in the K' bits of random blocks */
      const int n = 1 + (int)(test_splitmix64(rng) % 6);
      for (int i = 0; i < n; i++) {
        const int q = (int)(test_splitmix64(rng) % (uint64_t)s.c);
        bits[(size_t)q * s.k + test_splitmix64(rng) % (uint64_t)s.k_prime] ^= 1u;
      }
      *truth = {-1, -1, -1, 0};
      break;
    }
    default: break;
  }
  /* the bytes past K' are never read: make them wrong */
  for (int q = 0; q < s.c; q++) memset(bits + (size_t)q * s.k + s.k_prime, 1, (size_t)(s.k - s.k_prime));
}

/* What the cases cover, checked on the host before any device is needed. */
int check_coverage(const std::vector<tb_plan> &plans) {
  int crc16 = 0, crc24a = 0, one = 0, several = 0, many = 0, fillers = 0, bg[3] = {0};
  for (size_t i = 0; i < plans.size(); i++) {
    const ldpc_segmentation &s = plans[i].seg;
    crc16 |= s.tb_crc == 16;
    crc24a |= s.tb_crc == 24;
    one |= s.c == 1;
    several |= s.c > 1;
    many |= s.c > 8;
    fillers |= s.f > 0;
    bg[s.bg] = 1;
    printf("case %zu: TBS %d, BG%d, C %d, K' %d, K %d, F %d, TB CRC %d\n", i, s.a, s.bg, s.c, s.k_prime, s.k, s.f,
           s.tb_crc);
  }
  CHECK(crc16 && crc24a, "CRC16 and CRC24A TBs");
  CHECK(one && several && many, "one code block, several, and more than 8");
  CHECK(fillers, "a TB with filler bits");
  CHECK(bg[1] && bg[2], "both base graphs");
  return 0;
}

/* The host's view of crafted frames is checked before the device's: the
 * closed forms hold for tb_judge, and scenario 4's pattern passes every CRC. */
void check_host(size_t ci, const tb_plan &p, int scenario, const uint8_t *bits, const tb_outcome &o,
                const frame_truth &truth) {
  const ldpc_segmentation &s = p.seg;
  if (truth.tb_error >= 0)
    CHECK(o.tb_error == truth.tb_error, "case %zu scenario %d: host TB error %d, expected %d", ci, scenario,
          o.tb_error, truth.tb_error);
  if (truth.cb_errors >= 0)
    CHECK(o.cb_errors == truth.cb_errors, "case %zu scenario %d: host CB errors %d, expected %d", ci, scenario,
          o.cb_errors, truth.cb_errors);
  if (truth.info_errors >= 0)
    CHECK(o.info_errors == truth.info_errors, "case %zu scenario %d: host bit errors %d, expected %d", ci, scenario,
          o.info_errors, truth.info_errors);
  if (scenario == 3 || scenario == 4) {
    /* every CRC of the decisions passes: the TB is lost by its bits alone */
    const int payload = s.k_prime - s.cb_crc;
    std::vector<uint8_t> tb((size_t)s.b);
    int pass = 1;
    for (int r = 0; r < s.c; r++) {
      memcpy(tb.data() + (size_t)r * payload, bits + (size_t)r * s.k, (size_t)payload);
      if (s.cb_crc) pass &= crc_check(CRC24B, bits + (size_t)r * s.k, (size_t)s.k_prime);
    }
    pass &= crc_check(ldpc_tb_crc_kind(&s), tb.data(), (size_t)s.b);
    CHECK(pass, "case %zu scenario %d: the crafted decisions pass every CRC", ci, scenario);
  }
}

int same(const gpu_tb_counts &d, const tb_outcome &h) {
  return (int)d.tb_error == h.tb_error && (int)d.cb_errors == h.cb_errors && (int)d.info_errors == h.info_errors &&
         (int)d.iterations == h.iterations;
}

/* A case's frames: the TBs sent (at a stride other than B, as the encoder
 * keeps them), their CB CRC remainders, the crafted decisions and decoder
 * results, and the host's judgement of each. */
struct crafted {
  size_t tb_stride;
  std::vector<uint8_t> sent, bits;
  std::vector<uint32_t> cb_crc;
  std::vector<ldpc_decode_result> res;
  std::vector<tb_outcome> host;
};

/* Crafts case ci's frames and judges them on the host, held to the closed
 * forms (no device needed). */
void craft_case(size_t ci, const tb_plan &p, int frames, crafted *x) {
  const ldpc_segmentation &s = p.seg;
  const size_t nc = (size_t)s.c, k = (size_t)s.k;
  x->tb_stride = (size_t)s.b + 37;
  x->sent.assign((size_t)frames * x->tb_stride, 0);
  x->bits.assign((size_t)frames * nc * k, 0);
  x->cb_crc.assign((size_t)frames * nc, 0);
  x->res.assign((size_t)frames * nc, ldpc_decode_result());
  x->host.assign((size_t)frames, tb_outcome());
  std::vector<unsigned char> scratch(tb_scratch_bytes(&p));
  uint64_t rng = 0x5eed0000ull + ci;
  for (int f = 0; f < frames; f++) {
    const int scenario = f % kScenarios;
    uint8_t *bits = x->bits.data() + (size_t)f * nc * k, *sent = x->sent.data() + (size_t)f * x->tb_stride;
    frame_truth truth;
    craft(p, scenario, &rng, sent, x->cb_crc.data() + (size_t)f * nc, bits, &truth);
    int iterations = 0;
    for (size_t r = 0; r < nc; r++) {
      ldpc_decode_result &d = x->res[(size_t)f * nc + r];
      d.iterations = 1 + (int)((f * 7 + (int)r * 3) % 10);
      d.syndrome_ok = 1;
      d.rows_used = 0;
      iterations += d.iterations;
    }
    tb_judge(&p, bits, k, iterations, sent, &x->host[(size_t)f], scratch.data());
    check_host(ci, p, scenario, bits, x->host[(size_t)f], truth);
  }
}

/* The device's judgement of case ci's frames, whole and through a list,
 * against the host's. Counts the mismatches it prints. */
int run_case(size_t ci, const tb_plan &p, int frames, const crafted &x, cudaStream_t st) {
  const ldpc_segmentation &s = p.seg;
  const size_t nc = (size_t)s.c, k = (size_t)s.k;
  /* the list: every third frame left out, the rest in reverse order */
  std::vector<int32_t> list;
  for (int f = frames - 1; f >= 0; f--)
    if (f % 3 != 1) list.push_back(f);
  const int n = (int)list.size();
  std::vector<uint8_t> packed((size_t)n * nc * k);
  std::vector<ldpc_decode_result> packed_res((size_t)n * nc);
  for (int q = 0; q < n; q++) {
    memcpy(packed.data() + (size_t)q * nc * k, x.bits.data() + (size_t)list[(size_t)q] * nc * k, nc * k);
    memcpy(packed_res.data() + (size_t)q * nc, x.res.data() + (size_t)list[(size_t)q] * nc,
           nc * sizeof(ldpc_decode_result));
  }
  uint8_t *d_sent, *d_bits, *d_packed;
  uint32_t *d_crc;
  int32_t *d_list;
  ldpc_decode_result *d_res, *d_packed_res;
  gpu_tb_counts *d_out;
  CUDA_CHECK(cudaMalloc(&d_sent, x.sent.size()));
  CUDA_CHECK(cudaMalloc(&d_bits, x.bits.size()));
  CUDA_CHECK(cudaMalloc(&d_packed, packed.size()));
  CUDA_CHECK(cudaMalloc(&d_crc, sizeof(uint32_t) * x.cb_crc.size()));
  CUDA_CHECK(cudaMalloc(&d_list, sizeof(int32_t) * (size_t)n));
  CUDA_CHECK(cudaMalloc(&d_res, sizeof(ldpc_decode_result) * x.res.size()));
  CUDA_CHECK(cudaMalloc(&d_packed_res, sizeof(ldpc_decode_result) * packed_res.size()));
  CUDA_CHECK(cudaMalloc(&d_out, sizeof(gpu_tb_counts) * (size_t)frames));
  CUDA_CHECK(cudaMemcpy(d_sent, x.sent.data(), x.sent.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_bits, x.bits.data(), x.bits.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_packed, packed.data(), packed.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_crc, x.cb_crc.data(), sizeof(uint32_t) * x.cb_crc.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_list, list.data(), sizeof(int32_t) * (size_t)n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_res, x.res.data(), sizeof(ldpc_decode_result) * x.res.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_packed_res, packed_res.data(), sizeof(ldpc_decode_result) * packed_res.size(),
                        cudaMemcpyHostToDevice));
  int bad = 0;
  std::vector<gpu_tb_counts> dev((size_t)frames);
  for (int listed = 0; listed < 2; listed++) {
    /* poison the outcomes: each must be written */
    CUDA_CHECK(cudaMemset(d_out, 0xff, sizeof(gpu_tb_counts) * (size_t)frames));
    const int m = listed ? n : frames;
    if (gpu_tb_judge(&s, m, listed ? d_list : NULL, listed ? d_packed : d_bits, k, listed ? d_packed_res : d_res,
                     d_sent, x.tb_stride, d_crc, d_out, st)) {
      fprintf(stderr, "case %zu: gpu_tb_judge failed: %s\n", ci, gpu_last_error());
      bad++;
      break;
    }
    CUDA_CHECK(cudaMemcpyAsync(dev.data(), d_out, sizeof(gpu_tb_counts) * (size_t)m, cudaMemcpyDeviceToHost, st));
    CUDA_CHECK(cudaStreamSynchronize(st));
    for (int q = 0; q < m; q++) {
      const int f = listed ? list[(size_t)q] : q;
      const tb_outcome &h = x.host[(size_t)f];
      const gpu_tb_counts &d = dev[(size_t)q];
      if (!same(d, h)) {
        fprintf(stderr,
                "case %zu %s place %d frame %d (scenario %d): device TB error %u CB errors %u bit errors %u "
                "iterations %u, host %d %d %d %d\n",
                ci, listed ? "list" : "all", q, f, f % kScenarios, d.tb_error, d.cb_errors, d.info_errors,
                d.iterations, h.tb_error, h.cb_errors, h.info_errors, h.iterations);
        bad++;
      }
    }
  }
  CUDA_CHECK(cudaFree(d_sent));
  CUDA_CHECK(cudaFree(d_bits));
  CUDA_CHECK(cudaFree(d_packed));
  CUDA_CHECK(cudaFree(d_crc));
  CUDA_CHECK(cudaFree(d_list));
  CUDA_CHECK(cudaFree(d_res));
  CUDA_CHECK(cudaFree(d_packed_res));
  CUDA_CHECK(cudaFree(d_out));
  return bad;
}

}  // namespace

int main(void) {
  const int small = test_small_mode();
  std::vector<tb_plan> plans(kNumCases);
  int ok = 1;
  for (size_t i = 0; i < kNumCases; i++) {
    const tb_case &c = kCases[i];
    int tbs;
    char err[256];
    const int rc = tb_case_plan(&c, 0, &plans[i], &tbs, err, sizeof err);
    CHECK(rc == 0, "case %zu: TBS %d: %s", i, tbs, err);
    ok &= rc == 0;
  }
  if (!ok) return test_finish("test_tb_judge_gpu");
  check_coverage(plans);
  /* the host's judgement of the crafted frames is checked without a device */
  const int frames = small ? 2 * kScenarios : 8 * kScenarios;
  std::vector<crafted> cases(kNumCases);
  for (size_t ci = 0; ci < kNumCases; ci++) craft_case(ci, plans[ci], frames, &cases[ci]);
  char why[256];
  if (test_failed > 0 || gpu_device_count(why, sizeof why) == 0) {
    const int skip = test_failed == 0;
    if (skip) printf("test_tb_judge_gpu: %d host checks passed; the device's skipped: %s\n", test_passed, why);
    for (auto &p : plans) tb_plan_free(&p);
    return skip ? TEST_SKIP : test_finish("test_tb_judge_gpu");
  }
  cudaStream_t st;
  CUDA_CHECK(cudaStreamCreate(&st));
  for (size_t ci = 0; ci < kNumCases; ci++) {
    if (small && ci % 2 == 1) continue;
    const int bad = run_case(ci, plans[ci], frames, cases[ci], st);
    CHECK(bad == 0, "case %zu (TBS %d, BG%d, C %d, F %d, CRC%d): %d TBs judged otherwise on the device", ci,
          plans[ci].seg.a, plans[ci].seg.bg, plans[ci].seg.c, plans[ci].seg.f, plans[ci].seg.tb_crc, bad);
  }
  CUDA_CHECK(cudaStreamDestroy(st));
  for (auto &p : plans) tb_plan_free(&p);
  return test_finish("test_tb_judge_gpu");
}
