/* The fixed-point layered normalised min-sum (LDPC_LAYERED_NMS16,
 * coding/ldpc_msg16.h):
 *   - its AVX2 row kernel equals its plain C one bit for bit (decisions,
 *     iterations, syndrome flag, rows, every a posteriori value and every
 *     message of the decoded rows) on all 102 graph/Z codes, with noisy
 *     codewords near the waterfall, erasures, fillers, huge (1e30, inf) and
 *     tiny LLRs, NaN, rates from 4 rows to all, two scales;
 *   - a valid codeword without noise decodes in one iteration, and the
 *     decisions satisfy every check of the graph (H c = 0, recomputed here
 *     from the base graph);
 *   - saturation: a codeword sent with LLRs of +-1e9 (every one clamped to
 *     +-32767) with a tenth of its bits erased decodes, and over 20 forced
 *     iterations no a posteriori value changes sign;
 *   - BLER against float normalised min-sum on the same draws, (BG1, K 8448,
 *     R 1/2) and (BG2, K 1024, R 1/3), BPSK over AWGN: with the noise of each
 *     block drawn once and scaled to each Es/N0, nms16 at Es/N0 + 0.2 dB must
 *     beat float nms at Es/N0 (so it loses less than 0.2 dB), and float nms
 *     at Es/N0 must beat nms16 at Es/N0 - 0.2 dB (so the test resolves
 *     0.2 dB), each by an exact sign test on the blocks only one of the two
 *     decodes; the BLERs of both at the same Es/N0 are printed. Block counts
 *     scale with OFDMSIM_TEST_SCALE, the significance level with them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coding/ldpc_decode.h"
#include "coding/ldpc_encode.h"
#include "coding/ldpc_msg16.h"
#include "coding/ratematch.h"
#include "ldpc_agree.h"
#include "ldpc16_input.h"
#include "testutil.h"

/* Waterfall points of float nms (25 iterations): its BLER 0.15 and 0.1. */
#ifndef BG1_ESN0
#define BG1_ESN0 (-1.9)
#endif
#ifndef BG2_ESN0
#define BG2_ESN0 (-4.0)
#endif

static int g_blocks, g_stopped_early, g_failed;

/* 1 when the decisions of d's a posteriori values meet every check of rows
 * 0 .. rows-1 (H c = 0 over those rows). */
static int checks_met(const ldpc_code *code, const float *app, int rows) {
  const int z = code->z;
  for (int r = 0; r < rows; r++)
    for (int i = 0; i < z; i++) {
      int par = 0;
      for (int e = code->g->row_start[r]; e < code->g->row_start[r + 1]; e++) {
        const int t = (i + code->shift[e]) % z;
        par ^= app[(size_t)code->g->col[e] * z + t] >= 0.0f;
      }
      if (par) return 0;
    }
  return 1;
}

/* Decodes `llr` with both kernels and compares everything; 1 when equal. */
static int compare_block(ldpc_decoder *gen, ldpc_decoder *avx, const ldpc_code *code, const float *llr) {
  ldpc_decode_result r;
  const int same = ldpc_decoders_agree(gen, avx, code, llr, &r);
  if (r.syndrome_ok) CHECK(checks_met(code, ldpc_decoder_app(gen), r.rows_used), "syndrome flag without H c = 0");
  g_blocks++;
  g_stopped_early += r.syndrome_ok && r.iterations < 6;
  g_failed += !r.syndrome_ok;
  return same;
}

static ldpc_decoder *make(int bg, int z, ldpc_algorithm alg, int max_it, int full) {
  char err[200];
  ldpc_decoder_config cfg;
  ldpc_decoder_config_default(&cfg);
  cfg.algorithm = alg;
  cfg.max_iterations = max_it;
  cfg.full_iterations = full;
  ldpc_decoder *d = ldpc_decoder_create(bg, z, &cfg, err, sizeof err);
  CHECK(d != NULL, "decoder BG%d Z %d: %s", bg, z, err);
  return d;
}

static void test_kernels(void) {
  if (!ldpc_have_avx2()) {
    printf("test_ldpc16: no AVX2 on this host: the plain C kernel alone runs\n");
    return;
  }
  int zs[LDPC_NUM_Z];
  ldpc_lifting_sizes(zs);
  char err[200];
  for (int bg = 1; bg <= 2; bg++)
    for (int zi = 0; zi < LDPC_NUM_Z; zi++) {
      ldpc_code code;
      ldpc_code_init(&code, bg, zs[zi]);
      const int z = code.z;
      float *llr = malloc(sizeof(float) * (size_t)ldpc_codeword_bits(&code));
      ldpc_decoder_config cfg;
      ldpc_decoder_config_default(&cfg);
      cfg.algorithm = LDPC_LAYERED_NMS16;
      cfg.alpha = (zi & 1) ? 0.8125f : 0.75f;
      cfg.max_iterations = 6;
      cfg.full_iterations = (zi % 5) == 4;
      ldpc_decoder *gen = ldpc_decoder_create(bg, z, &cfg, err, sizeof err);
      ldpc_decoder *avx = ldpc_decoder_create(bg, z, &cfg, err, sizeof err);
      CHECK(gen && avx, "decoders BG%d Z %d: %s", bg, z, err);
      if (!gen || !avx) continue;
      CHECK(ldpc_decoder_set_kernel(gen, LDPC_KERNEL_GEN) == 0 && ldpc_decoder_set_kernel(avx, LDPC_KERNEL_AVX2) == 0,
            "kernels refused");
      const int rows[3] = {4, bg == 1 ? 24 : 22, code.g->rows};
      const double esn0[3][2] = {{7.0, 12.0}, {0.5, 8.0}, {-2.5, 6.0}};
      int same = 1;
      for (int t = 0; t < 3; t++)
        for (int b = 0; b < 4; b++) {
          const int fillers = (b & 1) ? (int)(test_rng_u64() % (uint64_t)(z + 1)) : 0;
          ldpc16_make_input(&code, rows[t], fillers, esn0[t][b == 3], llr);
          same &= compare_block(gen, avx, &code, llr);
        }
      CHECK(same, "BG%d Z %d alpha %g full %d: the int16 AVX2 kernel differs from the plain C one", bg, z,
            (double)cfg.alpha, cfg.full_iterations);
      ldpc_decoder_destroy(gen);
      ldpc_decoder_destroy(avx);
      free(llr);
    }
  printf("test_ldpc16: kernels: %d blocks, %d stopped early (< 6 iterations), %d failed their syndrome\n", g_blocks,
         g_stopped_early, g_failed);
  CHECK(g_stopped_early > g_blocks / 10, "only %d of %d blocks stopped early", g_stopped_early, g_blocks);
  CHECK(g_failed > g_blocks / 10, "only %d of %d blocks failed", g_failed, g_blocks);
}

/* Noise-free, and saturated: LLRs of +-mag on every sent bit, the punctured
 * 2Z (and, with `erase`, every tenth bit) erased. */
static void test_clean(int bg, int z, float mag, int erase, int max_it, int full) {
  ldpc_code code;
  ldpc_code_init(&code, bg, z);
  const int nbits = ldpc_codeword_bits(&code), k = ldpc_k(&code), fillers = z / 3;
  uint8_t *cw = malloc((size_t)nbits), *bits = malloc((size_t)k);
  float *llr = malloc(sizeof(float) * (size_t)nbits);
  ldpc16_random_codeword(&code, fillers, cw);
  for (int j = 0; j < nbits; j++) llr[j] = cw[j] ? mag : -mag;
  for (int j = 0; j < 2 * z; j++) llr[j] = 0.0f;
  for (int j = k - fillers; j < k; j++) llr[j] = LDPC_LLR_FILLER;
  if (erase)
    for (int j = 2 * z; j < nbits; j += 10) llr[j] = 0.0f;
  for (int kern = LDPC_KERNEL_GEN; kern <= LDPC_KERNEL_AVX2; kern++) {
    ldpc_decoder *d = make(bg, z, LDPC_LAYERED_NMS16, max_it, full);
    if (!d || ldpc_decoder_set_kernel(d, (ldpc_kernel)kern) != 0) {
      ldpc_decoder_destroy(d);
      continue;
    }
    ldpc_decode_result res;
    ldpc_decoder_execute(d, llr, k, bits, &res);
    const float *app = ldpc_decoder_app(d);
    int flips = 0;
    for (int j = 2 * z; j < nbits; j++) flips += (app[j] >= 0.0f) != cw[j];
    CHECK(res.syndrome_ok && memcmp(bits, cw, (size_t)k) == 0 && flips == 0 &&
              checks_met(&code, app, code.g->rows),
          "BG%d Z %d |LLR| %g erase %d kernel %d: syndrome %d, %d flipped decisions", bg, z, (double)mag, erase,
          kern, res.syndrome_ok, flips);
    if (!erase && !full) CHECK(res.iterations == 1, "BG%d Z %d noise-free: %d iterations", bg, z, res.iterations);
    if (full) CHECK(res.iterations == max_it, "%d iterations, %d forced", res.iterations, max_it);
    ldpc_decoder_destroy(d);
  }
  free(cw);
  free(bits);
  free(llr);
}

/* P(X >= m) for X ~ Binomial(n, 1/2), summed over the tail itself (1 - the
 * other side would round to 0 or below). */
static double half_tail(int m, int n) {
  double sum = 0.0;
  for (int i = m; i <= n; i++) sum += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * log(2.0));
  return sum;
}

/* One code for the BLER comparison: graph bg, lifting z, the last `fillers`
 * systematic bits fillers, columns 2 .. cols-1 sent (BPSK). */
typedef struct {
  ldpc_code code;
  int fillers, cols, k_prime;
  uint8_t *cw, *bits;
  float *llr;
  double *noise;
} bler_link;

/* Block b: its codeword and noise, fixed by b alone. */
static void bler_draw(bler_link *l, uint64_t b) {
  const int nbits = ldpc_codeword_bits(&l->code);
  test_rng_seed(0x6d5a11edu + b * 7919u);
  ldpc16_random_codeword(&l->code, l->fillers, l->cw);
  for (int j = 0; j < nbits; j += 2) {
    double re, im;
    test_rng_cnormal(&re, &im);
    l->noise[j] = sqrt(2.0) * re;
    if (j + 1 < nbits) l->noise[j + 1] = sqrt(2.0) * im;
  }
}

/* 1 when decoder d gets block l's K' bits right at Es/N0 esn0_db. */
static int bler_ok(bler_link *l, ldpc_decoder *d, double esn0_db) {
  const int z = l->code.z, nbits = ldpc_codeword_bits(&l->code), k = ldpc_k(&l->code);
  const double sigma2 = 0.5 / pow(10.0, esn0_db / 10.0), sigma = sqrt(sigma2);
  for (int j = 0; j < nbits; j++)
    l->llr[j] = j < 2 * z || j >= l->cols * z ? 0.0f
                                              : (float)(2.0 * ((l->cw[j] ? 1.0 : -1.0) + sigma * l->noise[j]) / sigma2);
  for (int j = k - l->fillers; j < k; j++) l->llr[j] = LDPC_LLR_FILLER;
  ldpc_decode_result res;
  ldpc_decoder_execute(d, l->llr, l->k_prime, l->bits, &res);
  return memcmp(l->bits, l->cw, (size_t)l->k_prime) == 0;
}

/* Sign test: of the blocks only one of (a at snr_a, b at snr_b) decodes, a
 * must win so many that a fair coin would do it with probability < p_max. */
static void paired(const char *name, bler_link *l, ldpc_decoder *a, double snr_a, ldpc_decoder *b, double snr_b,
                   int blocks, double p_max, const char *claim) {
  int a_only = 0, b_only = 0, a_err = 0, b_err = 0;
  for (int i = 0; i < blocks; i++) {
    bler_draw(l, (uint64_t)i);
    const int oa = bler_ok(l, a, snr_a), ob = bler_ok(l, b, snr_b);
    a_only += oa && !ob;
    b_only += ob && !oa;
    a_err += !oa;
    b_err += !ob;
  }
  const int n = a_only + b_only;
  const double p = n ? half_tail(a_only, n) : 1.0;
  printf("%s: %s: BLER %.3f vs %.3f in %d blocks; only the first decodes %d, only the second %d, sign test p %.2g\n",
         name, claim, (double)a_err / blocks, (double)b_err / blocks, blocks, a_only, b_only, p);
  CHECK(p < p_max, "%s: %s fails: %d against %d", name, claim, a_only, b_only);
}

static void test_bler(const char *name, int bg, int z, int fillers, int cols, double esn0_db, int blocks) {
  bler_link l;
  ldpc_code_init(&l.code, bg, z);
  const int nbits = ldpc_codeword_bits(&l.code);
  l.fillers = fillers;
  l.cols = cols;
  l.k_prime = ldpc_k(&l.code) - fillers;
  l.cw = malloc((size_t)nbits);
  l.bits = malloc((size_t)l.k_prime);
  l.llr = malloc(sizeof(float) * (size_t)nbits);
  l.noise = malloc(sizeof(double) * (size_t)nbits);
  ldpc_decoder *fl = make(bg, z, LDPC_LAYERED_NMS, 25, 0), *fx = make(bg, z, LDPC_LAYERED_NMS16, 25, 0);
  const double p_max = test_size_scale() < 1.0 ? 0.05 : 1e-3;
  printf("%s: K' %d, n %d, Es/N0 %.2f dB\n", name, l.k_prime, (cols - 2) * z, esn0_db);
  /* the two at the same Es/N0: printed, the measured difference */
  {
    int e_fl = 0, e_fx = 0;
    for (int i = 0; i < blocks; i++) {
      bler_draw(&l, (uint64_t)i);
      e_fl += !bler_ok(&l, fl, esn0_db);
      e_fx += !bler_ok(&l, fx, esn0_db);
    }
    printf("%s: same Es/N0: float nms BLER %.3f, nms16 BLER %.3f (%d blocks)\n", name, (double)e_fl / blocks,
           (double)e_fx / blocks, blocks);
    CHECK(e_fl > blocks / 20, "%s: float nms BLER %.3f: not a waterfall point", name, (double)e_fl / blocks);
  }
  paired(name, &l, fx, esn0_db + 0.2, fl, esn0_db, blocks, p_max, "nms16 at +0.2 dB beats float nms");
  paired(name, &l, fl, esn0_db, fx, esn0_db - 0.2, blocks, p_max, "float nms beats nms16 at -0.2 dB");
  ldpc_decoder_destroy(fl);
  ldpc_decoder_destroy(fx);
  free(l.cw);
  free(l.bits);
  free(l.llr);
  free(l.noise);
}

int main(void) {
  test_rng_seed(0x16b17u);
  test_kernels();
  test_clean(1, 384, 8.0f, 0, 10, 0);
  test_clean(2, 52, 8.0f, 0, 10, 0);
  test_clean(1, 15, 8.0f, 0, 10, 0);
  test_clean(1, 384, 1.0e9f, 1, 20, 1);
  test_clean(2, 208, 1.0e9f, 1, 20, 1);
  test_clean(2, 7, 1.0e9f, 1, 20, 1);
  /* the scale in integer form */
  CHECK(ldpc16_scale_k(0.75f) == 24576 && ldpc16_scale(1024, 24576) == 768 && ldpc16_scale(2, 24576) == 2 &&
            ldpc16_scale(1, 24576) == 1 && ldpc16_scale(3, 24576) == 2,
        "scale: 0.75 of 32767, 2, 1, 3");
  CHECK(ldpc16_quantise(ldpc16_half_unit) == 0 && ldpc16_quantise(3.0f * ldpc16_half_unit) == 2 &&
            ldpc16_quantise(-5.0f * ldpc16_half_unit) == -2 && ldpc16_quantise(-1e30f) == -LDPC16_MAG_MAX &&
            ldpc16_quantise(NAN) == 0 && ldpc16_quantise(LDPC_LLR_FILLER) == -LDPC16_MAG_MAX,
        "quantisation");
  const uint64_t blocks1 = test_scaled(300, 40), blocks2 = test_scaled(600, 60);
  /* (BG1, K 8448, R 1/2): 44 columns of 384 sent; (BG2, Z 104, K' 1024 with
   * 16 fillers, 30 columns sent: n 3120, R 0.33). */
  test_bler("BG1 K 8448 R 1/2", 1, 384, 0, 46, BG1_ESN0, (int)blocks1);
  test_bler("BG2 K' 1024 R 1/3", 2, 104, 16, 32, BG2_ESN0, (int)blocks2);
  return test_finish("test_ldpc16");
}
