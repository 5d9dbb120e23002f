/* The one-block decoder's two layered row kernels (coding/ldpc_rows.h): the
 * AVX2 one equals the plain C one bit for bit. For both base graphs, all 51
 * lifting sizes (below one 32-lane chunk, not a multiple of it, a multiple
 * of it: the chunk that wraps past Z goes through a column's mirror in the
 * AVX2 kernel, through a buffer in the plain C one), normalised and offset
 * min-sum at two scales each, early termination on and off, and inputs
 * made to reach every path: noisy codewords near the waterfall (so blocks
 * stop at different iterations and some fail), the 2Z punctured bits and
 * random further bits erased (LLR 0, of either sign), filler bits
 * (LDPC_LLR_FILLER), LLRs of 1e4 and 1e-6, and rates from the highest (4
 * rows) to the lowest (every row): the decisions, the iterations, the
 * syndrome flag, the rows, every a posteriori LLR and every message of the
 * decoded rows are compared as bit patterns (so a -0 against a +0 counts).
 * On a host without AVX2 the plain C kernel is checked against itself only
 * through test_ldpc_decode's reference, and this test says so. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coding/ldpc_decode.h"
#include "coding/ldpc_encode.h"
#include "coding/ratematch.h"
#include "ldpc_agree.h"
#include "testutil.h"

static int g_blocks, g_stopped_early, g_failed;

/* The input for one block of graph `code` decoding rows 4 .. `rows`: a
 * random codeword (the last `fillers` systematic bits filler zeros), BPSK
 * over AWGN at Es/N0 esn0_db, then the erasures and extremes above. */
static void make_input(const ldpc_code *code, int rows, int fillers, double esn0_db, float *llr) {
  const int z = code->z, k = ldpc_k(code), nbits = ldpc_codeword_bits(code);
  const int cols_sent = code->g->info_cols + rows;
  uint8_t *info = calloc((size_t)k, 1), *cw = malloc((size_t)nbits);
  for (int j = 0; j < k - fillers; j++) info[j] = (uint8_t)(test_rng_u64() & 1);
  ldpc_encode(code, info, cw);
  const double sigma2 = 0.5 / pow(10.0, esn0_db / 10.0);
  for (int j = 0; j < nbits; j++) {
    double re, im;
    test_rng_cnormal(&re, &im);
    const double y = (cw[j] ? 1.0 : -1.0) + sqrt(2.0 * sigma2) * re;
    float v = (float)(2.0 * y / sigma2);
    const uint64_t u = test_rng_u64() % 1000;
    if (u < 40) v = 0.0f;             /* erased */
    else if (u < 50) v = -0.0f;       /* erased, the other zero */
    else if (u < 53) v = cw[j] ? 1.0e4f : -1.0e4f;
    else if (u < 56) v = cw[j] ? 1.0e-6f : -1.0e-6f;
    llr[j] = v;
  }
  for (int j = 0; j < 2 * z; j++) llr[j] = 0.0f; /* punctured */
  for (int j = k - fillers; j < k; j++) llr[j] = LDPC_LLR_FILLER;
  for (int j = cols_sent * z; j < nbits; j++) llr[j] = 0.0f; /* unsent: rows past `rows` left out */
  /* the last sent column must carry a nonzero LLR for the decoder to take
   * all `rows` rows */
  llr[(size_t)(cols_sent - 1) * z] = cw[(size_t)(cols_sent - 1) * z] ? 2.0f : -2.0f;
  free(info);
  free(cw);
}

/* Decodes `llr` with both kernels and compares everything; 1 when equal. */
static int compare_block(ldpc_decoder *gen, ldpc_decoder *avx, const ldpc_code *code, const float *llr) {
  ldpc_decode_result r;
  const int same = ldpc_decoders_agree(gen, avx, code, llr, &r);
  g_blocks++;
  g_stopped_early += r.syndrome_ok && r.iterations < 6;
  g_failed += !r.syndrome_ok;
  return same;
}

int main(void) {
  test_rng_seed(0x1d9c5eedu);
  if (!ldpc_have_avx2()) {
    printf("test_ldpc_kernels: no AVX2 on this host (or build): only the plain C kernel runs here\n");
    return 77;
  }
  int zs[LDPC_NUM_Z];
  ldpc_lifting_sizes(zs);
  char err[200];
  for (int bg = 1; bg <= 2; bg++)
    for (int zi = 0; zi < LDPC_NUM_Z; zi++) {
      ldpc_code code;
      ldpc_code_init(&code, bg, zs[zi]);
      const int z = code.z, rows_max = code.g->rows;
      float *llr = malloc(sizeof(float) * (size_t)ldpc_codeword_bits(&code));
      /* the configurations take turns over the lifting sizes: every one
       * meets every size class */
      ldpc_decoder_config cfg;
      ldpc_decoder_config_default(&cfg);
      cfg.algorithm = (zi & 1) ? LDPC_LAYERED_OMS : LDPC_LAYERED_NMS;
      cfg.alpha = (zi & 2) ? 0.8125f : 0.75f;
      cfg.beta = (zi & 2) ? 0.25f : 0.5f;
      cfg.max_iterations = 6;
      cfg.full_iterations = (zi % 5) == 4;
      ldpc_decoder *gen = ldpc_decoder_create(bg, z, &cfg, err, sizeof err);
      ldpc_decoder *avx = ldpc_decoder_create(bg, z, &cfg, err, sizeof err);
      CHECK(gen && avx, "decoders BG%d Z %d: %s", bg, z, err);
      if (!gen || !avx) continue;
      CHECK(ldpc_decoder_set_kernel(gen, LDPC_KERNEL_GEN) == 0 && ldpc_decoder_set_kernel(avx, LDPC_KERNEL_AVX2) == 0,
            "kernels refused");
      CHECK(ldpc_decoder_kernel_used(gen) == LDPC_KERNEL_GEN && ldpc_decoder_kernel_used(avx) == LDPC_KERNEL_AVX2,
            "kernels not taken");
      /* rates: the highest (4 rows), about 1/2 (BG1) or 1/3 (BG2), all rows;
       * Es/N0 around each one's waterfall, and a block far above it */
      const int rows[3] = {4, bg == 1 ? 24 : 22, rows_max};
      const double esn0[3][2] = {{7.0, 12.0}, {0.5, 8.0}, {-2.5, 6.0}};
      int same = 1;
      for (int t = 0; t < 3; t++)
        for (int b = 0; b < 4; b++) {
          const int fillers = (b & 1) ? (int)(test_rng_u64() % (uint64_t)(z + 1)) : 0;
          make_input(&code, rows[t], fillers, esn0[t][b == 3], llr);
          same &= compare_block(gen, avx, &code, llr);
        }
      CHECK(same, "BG%d Z %d algorithm %d alpha %g beta %g full %d: the AVX2 kernel differs from the plain C one", bg,
            z, (int)cfg.algorithm, (double)cfg.alpha, (double)cfg.beta, cfg.full_iterations);
      /* a decoder reused across blocks: the same answer as a fresh one
       * (the layered kernels never clear their messages) */
      ldpc_decoder *fresh = ldpc_decoder_create(bg, z, &cfg, err, sizeof err);
      ldpc_decoder_set_kernel(fresh, LDPC_KERNEL_AVX2);
      CHECK(compare_block(avx, fresh, &code, llr), "BG%d Z %d: a reused decoder differs from a fresh one", bg, z);
      ldpc_decoder_destroy(fresh);
      ldpc_decoder_destroy(gen);
      ldpc_decoder_destroy(avx);
      free(llr);
    }
  /* the inputs must exercise what they are for */
  printf("test_ldpc_kernels: %d blocks, %d stopped early (< 6 iterations), %d failed their syndrome\n", g_blocks,
         g_stopped_early, g_failed);
  CHECK(g_stopped_early > g_blocks / 10, "only %d of %d blocks stopped early", g_stopped_early, g_blocks);
  CHECK(g_failed > g_blocks / 10, "only %d of %d blocks failed", g_failed, g_blocks);
  char e2[200];
  ldpc_decoder_config cfg;
  ldpc_decoder_config_default(&cfg);
  ldpc_decoder *d = ldpc_decoder_create(1, 64, &cfg, e2, sizeof e2);
  CHECK(ldpc_decoder_set_kernel(d, (ldpc_kernel)7) == -1, "kernel 7 accepted");
  ldpc_decoder_destroy(d);
  return test_finish("test_ldpc_kernels");
}
