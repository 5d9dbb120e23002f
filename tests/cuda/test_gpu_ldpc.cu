/* The GPU LDPC decoder (cuda/ldpc_gpu.h), layered min-sum and flooding
 * sum-product, equals the CPU's
 * (coding/ldpc_decode.h) block for block: the same decisions on every
 * systematic bit, the same iterations, syndrome flag and rows used.
 *
 * Blocks: for both base graphs, lifting sizes from 2 to 384 and rates from
 * 1/5 to 8/9, random information bits (fillers in some cases), encoded,
 * rate matched (rv 0, some cases with rv 0, 2, 3, 1 block by block in one
 * launch, so the blocks of a launch decode different row counts), BPSK over
 * AWGN from a fixed-seed generator at Es/N0 from 0.5 to 3.5 dB above the
 * rate's BPSK capacity limit (plus a short-block allowance), so some blocks
 * stop early and some run to the cap, then de-rate-matched with the CPU
 * functions. Each case is decoded on the GPU four times, by each kernel
 * (grouped and row, cuda/ldpc_gpu.h): its noisy blocks with the messages in
 * shared memory where they fit and the columns bounded by
 * ldpc_gpu_cols_for, and all its blocks with the messages in global memory
 * and every column, both normalised and
 * offset min-sum across the cases, and every normalised case once more
 * with the fixed-point decoder (nms16, coding/ldpc_msg16.h), whose int16
 * arithmetic the GPU must also reproduce bit for bit; the nms16 cases run
 * twice more on the pair kernel (LDPC_GPU_KERNEL_PAIR: two blocks per
 * thread block as int16x2, coding/ldpc_msg16x2.h), once on the noisy
 * blocks with the columns bounded and once on every block with every
 * column, so that launches have an odd and an even block count, and (with
 * mixed rv) pairs whose blocks decode different row counts; each block must
 * still stop at the CPU's iteration with the CPU's decisions. Also:
 *   - noise-free blocks with every unpunctured bit sent decode in one
 *     iteration with the syndrome met and the information bits back;
 *   - ldpc_gpu_cols_for bounds the columns that carry nonzero LLRs;
 *   - over the whole run some blocks stopped early after several iterations
 *     and some failed at the cap (else the comparison would not have
 *     exercised early termination); not in OFDMSIM_SMALL=1 mode, which runs
 *     six small cases (for compute-sanitizer);
 *   - flooding sum-product (BP) on every other (BG, Z, rate) case, both
 *     runs (columns bounded, every column), half of its cases with extreme
 *     LLRs (extreme_llrs: +-1e30, +-inf, +0 and -0 erasures), decodes as
 *     the CPU's ldpc_decoder_execute bit for bit;
 *   - bad arguments are refused. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "cuda/check.h"
#include "cuda/gpu.h"
#include "cuda/ldpc_gpu.h"
#include "testutil.h"

extern "C" {
#include "coding/ldpc_decode.h"
#include "coding/ldpc_encode.h"
#include "coding/ldpc_graph.h"
#include "coding/ratematch.h"
}
#include "coding/ldpc_msg.h"

typedef struct {
  int bg, z;
  double rate;
  int fillers;        /* F = K - K' */
  int mixed_rv;       /* rv 0, 2, 3, 1 by block; else rv 0 */
  int offset;         /* offset min-sum, else normalised */
  int fixed;          /* normalised in int16 fixed point (nms16) */
  int max_iterations;
  int per_snr;        /* blocks per Es/N0 */
  int bp;             /* flooding sum-product (LDPC_FLOODING_BP) */
  int extreme;        /* some noisy LLRs made +-1e30, +-inf, +0 or -0 (extreme_llrs) */
} test_case;

static int early_stops = 0, failures_at_cap = 0;

/* A single-block segmentation of K' = K - fillers bits on (bg, z): what
 * ratematch_block_params reads. */
static void single_block(int bg, int z, int fillers, ldpc_segmentation *s) {
  memset(s, 0, sizeof *s);
  s->bg = bg;
  s->c = 1;
  s->kb = bg == 1 ? 22 : 10;
  s->zc = z;
  s->k = s->kb * z;
  s->f = fillers;
  s->k_prime = s->k - fillers;
  s->a = s->k_prime;
  s->b = s->k_prime;
  s->n = (bg == 1 ? 66 : 50) * z;
}

/* Es/N0 (dB) where real BPSK-input AWGN capacity, approximated by the
 * Gaussian-input 1/2 log2(1 + 2 Es/N0), equals the rate. */
static double esn0_limit_db(double rate) { return 10.0 * log10((pow(2.0, 2.0 * rate) - 1.0) / 2.0); }

/* One block into llr[0 .. Nb Z - 1]: random information (fillers 0), encode,
 * rate match, BPSK (bit 1 -> +1) over AWGN at esn0_db (INFINITY: LLR +-10,
 * no noise), LLR 2y/sigma^2, accumulate, decoder input. */
static void make_block(const ldpc_code *code, const ldpc_segmentation *s, const ratematch_block *p,
                       double esn0_db, uint64_t *rng, uint8_t *info, float *llr) {
  std::vector<uint8_t> k_bits((size_t)s->k, 0), cw((size_t)ldpc_codeword_bits(code)), f((size_t)p->e);
  for (int j = 0; j < s->k_prime; j++) k_bits[j] = info[j] = (uint8_t)(test_splitmix64(rng) & 1);
  ldpc_encode(code, k_bits.data(), cw.data());
  ratematch_encode(p, cw.data(), f.data());
  std::vector<float> fl((size_t)p->e), buf((size_t)p->ncb, 0.0f);
  const double sigma2 = isinf(esn0_db) ? 0.0 : 0.5 / pow(10.0, esn0_db / 10.0);
  for (int k = 0; k < p->e; k++) {
    const double x = f[k] ? 1.0 : -1.0;
    if (sigma2 == 0.0) {
      fl[k] = (float)(10.0 * x);
    } else {
      /* Box-Muller from two uniforms in (0, 1). */
      const double u1 = test_splitmix_u01(rng), u2 = test_splitmix_u01(rng);
      const double n = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
      fl[k] = (float)(2.0 * (x + sqrt(sigma2) * n) / sigma2);
    }
  }
  ratematch_accumulate(p, fl.data(), buf.data());
  ratematch_decoder_input(p, buf.data(), llr);
}

/* Some LLRs of a noisy block made extreme: every 97th nonzero one +-1e30,
 * every 89th +-inf (its sign kept), every 83rd an erasure (+0) and every
 * 79th -0, so that phi's clamps, infinite sums and erased columns (which
 * may also shorten the rows decoded) meet the GPU exactly as the CPU.
 * Zeros stay zeros: ldpc_gpu_cols_for still bounds the nonzero ones. */
static void extreme_llrs(float *llr, int n) {
  for (int k = 0; k < n; k++) {
    if (llr[k] == 0.0f) continue;
    if (k % 97 == 0)
      llr[k] = copysignf(1.0e30f, llr[k]);
    else if (k % 89 == 0)
      llr[k] = copysignf(INFINITY, llr[k]);
    else if (k % 83 == 0)
      llr[k] = 0.0f;
    else if (k % 79 == 0)
      llr[k] = -0.0f; /* an erasure with its sign bit set: decisions are sign bits */
  }
}

/* Decodes nblocks of llr on the GPU with (place, cols) and kernel; SHARED
 * falls back to GLOBAL where a block does not fit. The decisions of all K
 * systematic bits and the results. 0, or -1 on a CUDA failure. */
static int gpu_decode(int bg, int z, const ldpc_decoder_config *cfg, ldpc_gpu_msg_place place, int cols,
                      ldpc_gpu_kernel kernel, const float *llr, int nblocks, std::vector<uint8_t> &bits,
                      std::vector<ldpc_decode_result> &res) {
  char err[300];
  ldpc_gpu_decoder *d = ldpc_gpu_create(bg, z, cfg, place, err, sizeof err);
  if (d && kernel != LDPC_GPU_KERNEL_PAIR && ldpc_gpu_placement(d, cols) < 0) {
    ldpc_gpu_destroy(d);
    d = ldpc_gpu_create(bg, z, cfg, LDPC_GPU_MSG_GLOBAL, err, sizeof err);
  }
  if (!d) {
    fprintf(stderr, "ldpc_gpu_create: %s\n", err);
    return -1;
  }
  if (ldpc_gpu_set_kernel(d, kernel) != 0) {
    fprintf(stderr, "ldpc_gpu_set_kernel refused kernel %d\n", (int)kernel);
    ldpc_gpu_destroy(d);
    return -1;
  }
  if (ldpc_gpu_placement(d, cols) < 0) {
    fprintf(stderr, "kernel %d: a block does not fit\n", (int)kernel);
    ldpc_gpu_destroy(d);
    return -1;
  }
  const int k_sys = (bg == 1 ? 22 : 10) * z;
  const size_t n_llr = (size_t)nblocks * (bg == 1 ? 68 : 52) * z;
  float *d_llr = NULL;
  uint8_t *d_bits = NULL;
  ldpc_decode_result *d_res = NULL;
  CUDA_CHECK(cudaMalloc(&d_llr, sizeof(float) * n_llr));
  CUDA_CHECK(cudaMalloc(&d_bits, (size_t)nblocks * k_sys));
  CUDA_CHECK(cudaMalloc(&d_res, sizeof(ldpc_decode_result) * nblocks));
  CUDA_CHECK(cudaMemcpy(d_llr, llr, sizeof(float) * n_llr, cudaMemcpyHostToDevice));
  /* Poisoned outputs: a decision or result the kernel never writes fails. */
  CUDA_CHECK(cudaMemset(d_bits, 0xab, (size_t)nblocks * k_sys));
  CUDA_CHECK(cudaMemset(d_res, 0xff, sizeof(ldpc_decode_result) * nblocks));
  const int rc = ldpc_gpu_decode(d, d_llr, nblocks, cols, d_bits, d_res, NULL);
  if (rc != 0) fprintf(stderr, "ldpc_gpu_decode: %s\n", gpu_last_error());
  CUDA_CHECK(cudaDeviceSynchronize());
  bits.resize((size_t)nblocks * k_sys);
  res.resize((size_t)nblocks);
  CUDA_CHECK(cudaMemcpy(bits.data(), d_bits, bits.size(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(res.data(), d_res, sizeof(ldpc_decode_result) * nblocks, cudaMemcpyDeviceToHost));
  cudaFree(d_llr);
  cudaFree(d_bits);
  cudaFree(d_res);
  ldpc_gpu_destroy(d);
  return rc;
}

static void run_case(int ci, const test_case *tc, int small) {
  char err[300];
  ldpc_code code;
  ldpc_code_init(&code, tc->bg, tc->z);
  ldpc_segmentation s;
  single_block(tc->bg, tc->z, tc->fillers, &s);
  const int nb_bits = ldpc_codeword_bits(&code), k_sys = ldpc_k(&code);
  const int e = (int)lround(s.k_prime / tc->rate);
  /* Noise-free: one block per launch position 0 with E = N - F, every bit
   * but the punctured 2Z sent once. Then per_snr blocks per Es/N0. */
  static const double offsets_full[4] = {0.5, 1.5, 2.5, 3.5}, offsets_small[1] = {1.5};
  const double *offsets = small ? offsets_small : offsets_full;
  const int n_snr = small ? 1 : 4;
  const int nblocks = 1 + n_snr * tc->per_snr;
  const double allowance = s.k_prime < 200 ? 3.0 : s.k_prime < 1000 ? 1.5 : 0.5;
  const double base = esn0_limit_db(tc->rate) + allowance;
  std::vector<float> llr((size_t)nblocks * nb_bits);
  std::vector<uint8_t> info((size_t)nblocks * s.k_prime);
  uint64_t rng = 0x1d9c0000ull + 7919ull * (uint64_t)ci;
  int cols = 0, cols_ok = 1; /* cols: over the noisy blocks */
  static const int rv_cycle[4] = {0, 2, 3, 1};
  for (int b = 0; b < nblocks; b++) {
    ratematch_block p;
    const int clean = b == 0;
    const int rv = clean || !tc->mixed_rv ? 0 : rv_cycle[b % 4];
    const int eb = clean ? s.n - s.f : e;
    ratematch_block_params(&s, 0, rv, 1, 1, eb, 0, &p);
    const double esn0 = clean ? INFINITY : base + offsets[(b - 1) / tc->per_snr];
    float *l = llr.data() + (size_t)b * nb_bits;
    make_block(&code, &s, &p, esn0, &rng, info.data() + (size_t)b * s.k_prime, l);
    if (tc->extreme && !clean) extreme_llrs(l, nb_bits);
    const int c = ldpc_gpu_cols_for(&p);
    for (int k = c * tc->z; k < nb_bits; k++) cols_ok &= l[k] == 0.0f;
    if (!clean) cols = c > cols ? c : cols;
  }
  CHECK(cols_ok, "case %d: a nonzero LLR past ldpc_gpu_cols_for", ci);

  ldpc_decoder_config cfg;
  ldpc_decoder_config_default(&cfg);
  cfg.algorithm = tc->bp      ? LDPC_FLOODING_BP
                  : tc->fixed ? LDPC_LAYERED_NMS16
                  : tc->offset ? LDPC_LAYERED_OMS
                               : LDPC_LAYERED_NMS;
  cfg.max_iterations = tc->max_iterations;
  ldpc_decoder *cpu = ldpc_decoder_create(tc->bg, tc->z, &cfg, err, sizeof err);
  CHECK(cpu != NULL, "case %d: CPU decoder: %s", ci, err);
  if (!cpu) return;
  std::vector<uint8_t> cpu_sys((size_t)nblocks * k_sys), cpu_bits((size_t)s.k_prime);
  std::vector<ldpc_decode_result> cpu_res((size_t)nblocks);
  for (int b = 0; b < nblocks; b++) {
    ldpc_decoder_execute(cpu, llr.data() + (size_t)b * nb_bits, s.k_prime, cpu_bits.data(), &cpu_res[b]);
    const float *app = ldpc_decoder_app(cpu);
    int same = 1;
    for (int j = 0; j < k_sys; j++) cpu_sys[(size_t)b * k_sys + j] = ldpc_hard_bit(app[j]);
    for (int j = 0; j < s.k_prime; j++) same &= cpu_bits[j] == cpu_sys[(size_t)b * k_sys + j];
    CHECK(same, "case %d block %d: CPU bits differ from its own a posteriori signs", ci, b);
    if (b > 0 && cpu_res[b].syndrome_ok && cpu_res[b].iterations > 1) early_stops++;
    if (b > 0 && !cpu_res[b].syndrome_ok) failures_at_cap++;
  }
  ldpc_decoder_destroy(cpu);

  /* Runs 0, 2 and 4: the noisy blocks (from block 1), messages in shared
   * memory where they fit (the pair kernel: global, the only place it
   * takes), only the columns ldpc_gpu_cols_for allows (the noise-free block
   * sends every column, so it is left out here). Runs 1, 3 and 5: every
   * block, messages in global memory, every column. Runs 0 and 1 launch the
   * grouped kernel, 2 and 3 the row kernel, 4 and 5 (nms16 only) the pair
   * kernel. BP has one kernel of its own and keeps its messages in global
   * memory whatever the placement asked: runs 0 and 1 only. */
  const int runs = tc->fixed ? 6 : tc->bp ? 2 : 4;
  for (int v = 0; v < runs; v++) {
    const int first = (v & 1) == 0 ? 1 : 0;
    const ldpc_gpu_kernel kernel = v < 2 ? LDPC_GPU_KERNEL_GROUPED : v < 4 ? LDPC_GPU_KERNEL_ROW : LDPC_GPU_KERNEL_PAIR;
    std::vector<uint8_t> gbits;
    std::vector<ldpc_decode_result> gres;
    const int rc = gpu_decode(tc->bg, tc->z, &cfg,
                              (v & 1) == 0 && v < 4 ? LDPC_GPU_MSG_SHARED : LDPC_GPU_MSG_GLOBAL,
                              (v & 1) == 0 ? cols : 0, kernel, llr.data() + (size_t)first * nb_bits, nblocks - first,
                              gbits, gres);
    CHECK(rc == 0, "case %d run %d: GPU decode failed", ci, v);
    if (rc != 0) continue;
    /* Indexed by block like the CPU's arrays (run 0's block 0 is a copy of
     * the CPU's, never compared). */
    std::vector<uint8_t> bits((size_t)nblocks * k_sys);
    std::vector<ldpc_decode_result> res((size_t)nblocks);
    memcpy(&bits[(size_t)first * k_sys], gbits.data(), gbits.size());
    memcpy(&bits[0], &cpu_sys[0], (size_t)first * k_sys);
    for (int b = 0; b < nblocks; b++) res[b] = b < first ? cpu_res[b] : gres[b - first];
    int bad_res = -1, bad_bits = -1;
    for (int b = first; b < nblocks; b++) {
      if (bad_res < 0 && (res[b].iterations != cpu_res[b].iterations || res[b].syndrome_ok != cpu_res[b].syndrome_ok ||
                          res[b].rows_used != cpu_res[b].rows_used))
        bad_res = b;
      if (bad_bits < 0 && memcmp(&bits[(size_t)b * k_sys], &cpu_sys[(size_t)b * k_sys], (size_t)k_sys) != 0)
        bad_bits = b;
    }
    const int br = bad_res < 0 ? 0 : bad_res;
    CHECK(bad_res < 0,
          "case %d (BG%d Z %d R %.3f %s) run %d: block %d: GPU %d iterations, syndrome %d, rows %d; CPU %d, %d, %d",
          ci, tc->bg, tc->z, tc->rate, tc->bp ? "BP" : tc->fixed ? "NMS16" : tc->offset ? "OMS" : "NMS", v, br, res[br].iterations, res[br].syndrome_ok,
          res[br].rows_used, cpu_res[br].iterations, cpu_res[br].syndrome_ok, cpu_res[br].rows_used);
    CHECK(bad_bits < 0, "case %d (BG%d Z %d R %.3f) run %d: block %d: GPU decisions differ from the CPU's", ci,
          tc->bg, tc->z, tc->rate, v, bad_bits);
    /* The noise-free block: one iteration, syndrome met, the bits back. */
    if (v & 1)
      CHECK(res[0].iterations == 1 && res[0].syndrome_ok == 1 &&
              memcmp(&bits[0], &info[0], (size_t)s.k_prime) == 0,
          "case %d run %d: noise-free block: %d iterations, syndrome %d", ci, v, res[0].iterations,
          res[0].syndrome_ok);
  }
}

int main(void) {
  char why[256];
  if (gpu_device_count(why, sizeof why) == 0) {
    printf("test_gpu_ldpc: skipped: %s\n", why);
    return TEST_SKIP;
  }
  const int small = test_small_mode();
  std::vector<test_case> cases;
  if (small) {
    cases.push_back({1, 384, 0.5, 0, 0, 0, 0, 5, 2});
    cases.push_back({2, 15, 1.0 / 3, 6, 1, 1, 0, 5, 3});
    cases.push_back({1, 2, 2.0 / 3, 4, 0, 1, 0, 5, 3});
    cases.push_back({2, 56, 1.0 / 3, 7, 0, 0, 1, 5, 3});
    cases.push_back({2, 56, 1.0 / 3, 7, 0, 0, 0, 5, 3, 1, 1});
    cases.push_back({1, 104, 0.5, 0, 1, 0, 0, 5, 2, 1, 0});
  } else {
    static const int zs[6] = {384, 208, 56, 15, 2, 104};
    static const double rates_bg1[4] = {1.0 / 3, 0.5, 2.0 / 3, 8.0 / 9};
    static const double rates_bg2[4] = {0.2, 1.0 / 3, 0.5, 2.0 / 3};
    static const int iters[3] = {10, 8, 20};
    int n = 0;
    for (int bg = 1; bg <= 2; bg++)
      for (int zi = 0; zi < 6; zi++)
        for (int ri = 0; ri < 4; ri++, n++) {
          test_case tc;
          tc.bg = bg;
          tc.z = zs[zi];
          tc.rate = bg == 1 ? rates_bg1[ri] : rates_bg2[ri];
          const int k = (bg == 1 ? 22 : 10) * tc.z;
          tc.fillers = n % 3 == 1 ? k / 8 : 0;
          tc.mixed_rv = n % 4 == 3 && tc.rate < 0.6;
          tc.offset = n % 2;
          tc.fixed = 0;
          tc.max_iterations = iters[n % 3];
          tc.per_snr = tc.z >= 200 ? 4 : 12;
          tc.bp = 0;
          tc.extreme = 0;
          cases.push_back(tc);
          if (!tc.offset) {
            tc.fixed = 1;
            cases.push_back(tc);
          }
          /* flooding BP on every other case, half of them with extreme LLRs
           * (BP's CPU decoder is the slowest, so fewer blocks) */
          if (ri % 2 == zi % 2) {
            tc.fixed = 0;
            tc.offset = 0;
            tc.bp = 1;
            tc.extreme = (n / 2) % 2;
            tc.per_snr = tc.z >= 200 ? 2 : 6;
            cases.push_back(tc);
          }
        }
  }
  for (size_t c = 0; c < cases.size(); c++) run_case((int)c, &cases[c], small);
  if (!small) {
    CHECK(early_stops > 0 && failures_at_cap > 0,
          "the blocks did not exercise early termination: %d stopped after several iterations, %d failed at the cap",
          early_stops, failures_at_cap);
  }
  printf("test_gpu_ldpc: %zu cases; %d noisy blocks stopped early after >1 iteration, %d failed at the cap\n",
         cases.size(), early_stops, failures_at_cap);

  /* Bad input. */
  char err[300];
  ldpc_decoder_config cfg;
  ldpc_decoder_config_default(&cfg);
  cfg.algorithm = LDPC_FLOODING_BP;
  ldpc_gpu_decoder *bp = ldpc_gpu_create(1, 384, &cfg, LDPC_GPU_MSG_SHARED, err, sizeof err);
  CHECK(bp != NULL, "BG1 Z 384 flooding BP: %s", err);
  if (bp) {
    CHECK(ldpc_gpu_placement(bp, 0) == LDPC_GPU_MSG_GLOBAL, "BP's messages not in global memory");
    CHECK(ldpc_gpu_set_kernel(bp, LDPC_GPU_KERNEL_PAIR) == -1, "the pair kernel accepted for BP");
    ldpc_gpu_destroy(bp);
  }
  cfg.algorithm = LDPC_LAYERED_NMS;
  CHECK(ldpc_gpu_create(1, 17, &cfg, LDPC_GPU_MSG_AUTO, err, sizeof err) == NULL, "Z 17 accepted");
  cfg.max_iterations = 0;
  CHECK(ldpc_gpu_create(2, 16, &cfg, LDPC_GPU_MSG_AUTO, err, sizeof err) == NULL, "0 iterations accepted");
  cfg.max_iterations = 5;
  cfg.algorithm = (ldpc_algorithm)9;
  CHECK(ldpc_gpu_create(2, 16, &cfg, LDPC_GPU_MSG_AUTO, err, sizeof err) == NULL, "algorithm 9 accepted");
  cfg.algorithm = LDPC_LAYERED_NMS;
  ldpc_gpu_decoder *d = ldpc_gpu_create(2, 16, &cfg, LDPC_GPU_MSG_AUTO, err, sizeof err);
  CHECK(d != NULL, "BG2 Z 16: %s", err);
  if (d) {
    CHECK(ldpc_gpu_decode(d, NULL, 4, 0, NULL, NULL, NULL) == -1, "null buffers accepted");
    CHECK(ldpc_gpu_decode(d, NULL, -1, 0, NULL, NULL, NULL) == -1, "negative block count accepted");
    CHECK(ldpc_gpu_decode(d, NULL, 0, 0, NULL, NULL, NULL) == 0, "zero blocks refused");
    CHECK(ldpc_gpu_set_kernel(d, (ldpc_gpu_kernel)7) == -1, "kernel 7 accepted");
    CHECK(ldpc_gpu_set_kernel(d, LDPC_GPU_KERNEL_PAIR) == -1, "the pair kernel accepted for float min-sum");
    ldpc_gpu_destroy(d);
  }
  cfg.algorithm = LDPC_LAYERED_NMS16;
  d = ldpc_gpu_create(2, 16, &cfg, LDPC_GPU_MSG_SHARED, err, sizeof err);
  CHECK(d != NULL, "BG2 Z 16 nms16: %s", err);
  if (d) {
    CHECK(ldpc_gpu_set_kernel(d, LDPC_GPU_KERNEL_PAIR) == -1, "the pair kernel accepted with shared messages");
    ldpc_gpu_destroy(d);
  }
  return test_finish("test_gpu_ldpc");
}
