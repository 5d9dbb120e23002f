/* The batch decoder (coding/ldpc_batch.h) equals the one-block decoder lane
 * by lane, with either kernel: for blocks near the waterfall (where a
 * decoder's every rounding shows: some blocks stop early at different
 * iterations, some run out with wrong decisions), each lane's decisions,
 * iterations, syndrome flag and rows equal ldpc_decoder_execute's on that
 * block alone, bit for bit, whatever shares the batch: blocks of different
 * rates (rows), noise-free blocks beside noisy ones, batches of 1 to 8,
 * both min-sum kinds, early termination on and off, both graphs and a
 * lifting size below one vector (Z 2). The plain C kernel and the AVX2 one
 * are held to that same answer (the AVX2 one where the CPU has it: the
 * test says when it is not run). Then tb_decode_group equals tb_decode and
 * tb_decode_combine TB by TB. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coding/ldpc_batch.h"
#include "coding/ldpc_decode.h"
#include "coding/ldpc_encode.h"
#include "coding/ratematch.h"
#include "coding/tb_chain.h"
#include "testutil.h"

/* One block of A bits through the chain (rv 0, Qm 1) to E bits, BPSK over
 * AWGN at Es/N0 esn0_db (INFINITY: no noise, LLRs +-10), back to the
 * decoder's input (Nb Z floats, malloc'd). */
static float *make_llr(int a, int bg, int e, double esn0_db, ldpc_segmentation *s) {
  ldpc_code code;
  ratematch_block p;
  ldpc_segment(a, bg, s);
  ldpc_code_init(&code, bg, s->zc);
  ratematch_block_params(s, 0, 0, 1, 1, e, 0, &p);
  const int nbits = ldpc_codeword_bits(&code);
  uint8_t *info = calloc((size_t)s->k, 1), *cw = malloc((size_t)nbits), *f = malloc((size_t)e);
  float *fl = malloc(sizeof(float) * e), *buf = calloc((size_t)s->n, sizeof(float));
  float *llr = malloc(sizeof(float) * nbits);
  for (int j = 0; j < s->k_prime; j++) info[j] = (uint8_t)(test_rng_u64() & 1);
  ldpc_encode(&code, info, cw);
  ratematch_encode(&p, cw, f);
  const double sigma2 = isinf(esn0_db) ? 0.0 : 0.5 / pow(10.0, esn0_db / 10.0);
  for (int k = 0; k < e; k++) {
    const double x = f[k] ? 1.0 : -1.0;
    double re = 0.0, im;
    if (sigma2 > 0.0) test_rng_cnormal(&re, &im);
    fl[k] = sigma2 > 0.0 ? (float)(2.0 * (x + sqrt(2.0 * sigma2) * re) / sigma2) : (float)(10.0 * x);
  }
  ratematch_accumulate(&p, fl, buf);
  ratematch_decoder_input(&p, buf, llr);
  free(info);
  free(cw);
  free(f);
  free(fl);
  free(buf);
  return llr;
}

/* A case: blocks of A bits on graph bg, block j sent as e[j % 2] bits at
 * Es/N0 esn0[j % 3] (INFINITY: noise-free). */
typedef struct {
  int a, bg, e[2];
  double esn0[3];
} batch_case;

static int g_compared;

/* Decodes `nblocks` blocks in batches of n through kernel `kernel` and
 * one by one, and compares. */
static void compare(const batch_case *c, int nblocks, int n, ldpc_algorithm alg, int max_it, int full,
                    ldpc_batch_kernel kernel) {
  char err[200];
  ldpc_segmentation s;
  float **llr = malloc(sizeof(float *) * nblocks);
  for (int j = 0; j < nblocks; j++) llr[j] = make_llr(c->a, c->bg, c->e[j % 2], c->esn0[j % 3], &s);
  ldpc_decoder_config cfg;
  ldpc_decoder_config_default(&cfg);
  cfg.algorithm = alg;
  cfg.max_iterations = max_it;
  cfg.full_iterations = full;
  ldpc_decoder *one = ldpc_decoder_create(s.bg, s.zc, &cfg, err, sizeof err);
  ldpc_batch_decoder *bd = ldpc_batch_create(s.bg, s.zc, &cfg, kernel, err, sizeof err);
  CHECK(one && bd, "decoders for BG%d Z %d: %s", s.bg, s.zc, err);
  if (!one || !bd) return;
  CHECK(ldpc_batch_kernel_used(bd) == kernel, "kernel %d asked, %d used", (int)kernel,
        (int)ldpc_batch_kernel_used(bd));
  const int kp = s.k_prime;
  uint8_t *want = malloc((size_t)kp), *got = malloc((size_t)kp * LDPC_BATCH);
  int same = 1, it_lo = 1 << 30, it_hi = 0, wrong = 0;
  for (int j0 = 0; j0 < nblocks; j0 += n) {
    const int m = nblocks - j0 < n ? nblocks - j0 : n;
    uint8_t *bits[LDPC_BATCH];
    ldpc_decode_result res[LDPC_BATCH];
    for (int b = 0; b < m; b++) bits[b] = got + (size_t)b * kp;
    CHECK(ldpc_batch_execute(bd, m, (const float *const *)(llr + j0), kp, bits, res) == 0, "execute refused");
    for (int b = 0; b < m; b++) {
      ldpc_decode_result r;
      ldpc_decoder_execute(one, llr[j0 + b], kp, want, &r);
      const int ok = memcmp(want, bits[b], (size_t)kp) == 0 && r.iterations == res[b].iterations &&
                     r.syndrome_ok == res[b].syndrome_ok && r.rows_used == res[b].rows_used;
      if (!ok)
        fprintf(stderr, "  block %d: iterations %d vs %d, syndrome %d vs %d, rows %d vs %d\n", j0 + b,
                res[b].iterations, r.iterations, res[b].syndrome_ok, r.syndrome_ok, res[b].rows_used, r.rows_used);
      same &= ok;
      it_lo = r.iterations < it_lo ? r.iterations : it_lo;
      it_hi = r.iterations > it_hi ? r.iterations : it_hi;
      wrong += !r.syndrome_ok;
      g_compared++;
    }
  }
  CHECK(same, "A %d BG%d Z %d algorithm %d, %d iterations (full %d), batches of %d, kernel %d: the batch differs",
        c->a, s.bg, s.zc, (int)alg, max_it, full, n, (int)kernel);
  /* the case must exercise what it is for: lanes stopping at different
   * iterations (unless every lane runs them all) and, near the waterfall,
   * blocks that fail */
  if (!full && alg != LDPC_FLOODING_BP)
    CHECK(it_lo < it_hi, "A %d BG%d: every block took %d iterations: the case tests no early stop", c->a, s.bg,
          it_lo);
  (void)wrong;
  for (int j = 0; j < nblocks; j++) free(llr[j]);
  free(llr);
  free(want);
  free(got);
  ldpc_decoder_destroy(one);
  ldpc_batch_destroy(bd);
}

/* tb_decode_group against tb_decode / tb_decode_combine, n TBs. */
static void compare_tbs(int tbs, double rate, int qm, long g, double esn0, ldpc_batch_kernel kernel) {
  char err[200];
  tb_plan p, p2;
  CHECK(tb_plan_make(tbs, rate, qm, 1, g, 0, &p, err, sizeof err) == 0, "plan: %s", err);
  CHECK(tb_plan_make(tbs, rate, qm, 1, g, 2, &p2, err, sizeof err) == 0, "plan rv 2: %s", err);
  ldpc_decoder_config cfg;
  ldpc_decoder_config_default(&cfg);
  ldpc_decoder *one = ldpc_decoder_create(p.seg.bg, p.seg.zc, &cfg, err, sizeof err);
  ldpc_batch_decoder *bd = ldpc_batch_create(p.seg.bg, p.seg.zc, &cfg, kernel, err, sizeof err);
  const int n = TB_GROUP;
  const size_t nbuf = tb_harq_buffer_floats(&p);
  unsigned char *scratch = malloc(tb_scratch_bytes(&p) + (size_t)g), *gs = malloc(tb_group_scratch_bytes(&p));
  uint8_t *info[TB_GROUP], *coded = malloc((size_t)g);
  float *llr[TB_GROUP], *llr2[TB_GROUP], *cb1[TB_GROUP], *cb2[TB_GROUP];
  for (int t = 0; t < n; t++) {
    /* TB t at esn0 + 0.1 t dB: across the waterfall, so some TBs are lost */
    const double sigma2 = 0.5 / pow(10.0, (esn0 + 0.1 * t) / 10.0);
    info[t] = malloc((size_t)tbs);
    llr[t] = malloc(sizeof(float) * g);
    llr2[t] = malloc(sizeof(float) * g);
    cb1[t] = calloc(nbuf, sizeof(float));
    cb2[t] = calloc(nbuf, sizeof(float));
    for (int i = 0; i < tbs; i++) info[t][i] = (uint8_t)(test_rng_u64() & 1);
    for (int tx = 0; tx < 2; tx++) {
      tb_encode(tx ? &p2 : &p, info[t], coded, scratch);
      for (long k = 0; k < g; k++) {
        double re, im;
        test_rng_cnormal(&re, &im);
        /* coded bit k goes where the receivers put it (tb_llr_index) */
        (tx ? llr2 : llr)[t][tb_llr_index((size_t)k, qm)] = (float)(2.0 * ((coded[k] ? 1.0 : -1.0) + sqrt(2.0 * sigma2) * re) / sigma2);
      }
    }
  }
  tb_outcome got[TB_GROUP], want;
  int same = 1, lost = 0;
  tb_decode_group(&p, bd, n, (const float *const *)llr, NULL, (const uint8_t *const *)info, got, gs);
  for (int t = 0; t < n; t++) {
    tb_decode(&p, one, llr[t], info[t], &want, scratch);
    same &= memcmp(&want, &got[t], sizeof want) == 0;
    lost += want.tb_error;
  }
  CHECK(same, "TBS %d: tb_decode_group differs from tb_decode", tbs);
  /* combining: rv 0 then rv 2 into each TB's buffer, both ways */
  same = 1;
  tb_decode_group(&p, bd, n, (const float *const *)llr, cb1, (const uint8_t *const *)info, got, gs);
  tb_decode_group(&p2, bd, n, (const float *const *)llr2, cb1, (const uint8_t *const *)info, got, gs);
  for (int t = 0; t < n; t++) {
    tb_decode_combine(&p, one, llr[t], cb2[t], info[t], &want, scratch);
    tb_decode_combine(&p2, one, llr2[t], cb2[t], info[t], &want, scratch);
    same &= memcmp(&want, &got[t], sizeof want) == 0 && memcmp(cb1[t], cb2[t], sizeof(float) * nbuf) == 0;
  }
  CHECK(same, "TBS %d: tb_decode_group with combining differs from tb_decode_combine", tbs);
  CHECK(lost > 0 && lost < n, "TBS %d from %.1f dB: %d of %d TBs lost on the first transmission: the case should "
        "hold both outcomes", tbs, esn0, lost, n);
  for (int t = 0; t < n; t++) {
    free(info[t]);
    free(llr[t]);
    free(llr2[t]);
    free(cb1[t]);
    free(cb2[t]);
  }
  free(coded);
  free(scratch);
  free(gs);
  ldpc_decoder_destroy(one);
  ldpc_batch_destroy(bd);
  tb_plan_free(&p);
  tb_plan_free(&p2);
}

int main(void) {
  test_rng_seed(77);
  char err[200];
  ldpc_batch_kernel kernels[2] = {LDPC_KERNEL_GEN, LDPC_KERNEL_AVX2};
  const int nk = ldpc_batch_have_avx2() ? 2 : 1;
  if (nk == 1) fprintf(stderr, "test_ldpc_batch: this CPU has no AVX2: the AVX2 kernel is not tested here\n");

  /* blocks of two lengths (the second with fewer parity bits, so fewer rows)
   * at three Es/N0: noise-free, near the waterfall, in it */
  static const batch_case cases[] = {
      {3824, 1, {7680, 6400}, {INFINITY, 0.3, 0.8}},     /* BG1 Z 176 */
      {1000, 2, {3048, 2600}, {INFINITY, -2.5, -1.5}},    /* BG2 Z 104 */
      {20, 2, {64, 48}, {INFINITY, 1.0, 3.0}},            /* BG2 Z 2: Z below one vector */
  };
  for (int k = 0; k < nk; k++)
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      compare(&cases[c], 24, LDPC_BATCH, LDPC_LAYERED_NMS, 12, 0, kernels[k]);
      compare(&cases[c], 11, 3, LDPC_LAYERED_OMS, 12, 0, kernels[k]);
      compare(&cases[c], 9, 1, LDPC_LAYERED_NMS, 6, 0, kernels[k]);
      compare(&cases[c], 10, 5, LDPC_LAYERED_NMS, 4, 1, kernels[k]);
    }
  /* flooding BP: the blocks one by one through the one-block decoder */
  compare(&cases[1], 6, 4, LDPC_FLOODING_BP, 8, 0, LDPC_KERNEL_GEN);

  for (int k = 0; k < nk; k++) {
    compare_tbs(24, 0.5, 2, 112, -5.5, kernels[k]);       /* one block a TB */
    compare_tbs(12000, 0.6, 2, 20000, -0.7, kernels[k]);   /* 2 blocks a TB: a batch holds 4 TBs */
  }

  /* bad input: a batch past LDPC_BATCH or empty, k_prime past K, an unknown
   * kernel, a lifting size that is none */
  ldpc_decoder_config cfg;
  ldpc_decoder_config_default(&cfg);
  CHECK(ldpc_batch_create(1, 17, &cfg, LDPC_KERNEL_AUTO, err, sizeof err) == NULL, "Z 17 accepted");
  CHECK(ldpc_batch_create(1, 16, &cfg, (ldpc_batch_kernel)7, err, sizeof err) == NULL, "kernel 7 accepted");
  if (!ldpc_batch_have_avx2())
    CHECK(ldpc_batch_create(1, 16, &cfg, LDPC_KERNEL_AVX2, err, sizeof err) == NULL, "AVX2 without AVX2");
  ldpc_batch_decoder *d = ldpc_batch_create(2, 16, &cfg, LDPC_KERNEL_AUTO, err, sizeof err);
  float llr[52 * 16] = {0};
  const float *in[9] = {llr, llr, llr, llr, llr, llr, llr, llr, llr};
  uint8_t b0[200], *bits[9] = {b0, b0, b0, b0, b0, b0, b0, b0, b0};
  ldpc_decode_result res[9];
  CHECK(ldpc_batch_execute(d, 9, in, 100, bits, res) == -1, "a batch of 9 accepted");
  CHECK(ldpc_batch_execute(d, 0, in, 100, bits, res) == -1, "a batch of 0 accepted");
  CHECK(ldpc_batch_execute(d, 1, in, 161, bits, res) == -1, "k_prime past K accepted");
  ldpc_batch_destroy(d);
  CHECK(g_compared > 300, "only %d blocks compared", g_compared);
  return test_finish("test_ldpc_batch");
}
