/* The CPU backend's coded link (cpu/coded_cpu.c) end to end:
 *
 * - consistency: for every frame the backend's transmitted bits (the LLR
 *   export's) are the coding library's encoding of that frame's TB drawn
 *   from the point's stream, laid on the layers in order, and its decoded
 *   counts (TB error, CB errors, information-bit errors, iterations) are
 *   what the library's own receiver (coding/tb_chain.h with a decoder of
 *   its own) gives on the backend's LLRs; at an SNR in the waterfall, so
 *   that lost and delivered TBs both occur;
 * - limits: every TB delivered at a very high SNR, every TB lost at a very
 *   low one (rate 1/2 far above the channel's capacity);
 * - tb_judge (the GPU backend's CRCs and counts on the host) on decisions
 *   made block by block gives tb_decode's outcome;
 * - invariance: the counts of every frame do not depend on the thread count
 *   or the batch size;
 * for BPSK and QPSK over AWGN (H = I), one code block and several (with
 * pilots, the comb or NR DMRS, which carry no coded bits), layered min-sum
 * and BP, zf, mmse and kbest receivers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coding/tb_chain.h"
#include "core/draws.h"
#include "coded_point.h"
#include "cpu_create.h"
#include "testparams.h"
#include "testutil.h"

enum { FRAMES = 16 };

typedef tp_coded_spec spec;

static link_params point_of(const spec *s, double esno) { return tp_coded_point(s, esno, 7); }

/* Frames [0, FRAMES) in batches of `batch`: coded[f], and with llr/bits
 * (NULL: not asked) the export. 0, or -1 on a failure (CHECKed). */
static int run(const link_params *p, int threads, uint64_t batch, frame_coded *coded, float *llr, uint8_t *bits) {
  return tc_run_coded(p, threads, batch, FRAMES, coded, llr, bits);
}

static int same(const frame_coded *a, const frame_coded *b) {
  return a->tb_error == b->tb_error && a->cbs == b->cbs && a->cb_errors == b->cb_errors &&
         a->info_errors == b->info_errors && a->iterations == b->iterations;
}

/* The library's receiver on the backend's LLRs, and its transmitter against
 * the backend's bits. Returns the TB errors. */
static int consistent(const spec *s, double esno, const char *what) {
  const link_params p = point_of(s, esno);
  const size_t g = (size_t)link_bits_per_frame(&p);
  frame_coded coded[FRAMES];
  float *llr = malloc(sizeof(float) * g * FRAMES);
  uint8_t *bits = malloc(g * FRAMES), *enc = malloc(g), *info = malloc((size_t)p.code.tbs);
  int lost = 0;
  char err[256];
  tb_plan plan;
  CHECK(llr && bits && enc && info, "memory");
  if (!llr || !bits || !enc || !info || run(&p, 2, 5, coded, llr, bits)) goto done;
  if (tb_plan_make(p.code.tbs, p.code.rate, p.bps, p.tx, (long)g, 0, &plan, err, sizeof err)) {
    CHECK(0, "%s: plan: %s", what, err);
    goto done;
  }
  const ldpc_decoder_config cfg = tb_decoder_config((int)p.code.decoder, 0.75, 0.5, 10, 1);
  ldpc_decoder *d = ldpc_decoder_create(plan.seg.bg, plan.seg.zc, &cfg, err, sizeof err);
  void *scratch = malloc(tb_scratch_bytes(&plan));
  const size_t nbits = (size_t)ldpc_codeword_bits(&plan.code);
  float *jbuf = malloc(sizeof(float) * nbits), *jin = malloc(sizeof(float) * nbits), *jcoded = malloc(sizeof(float) * g);
  uint8_t *jbits = malloc((size_t)plan.seg.c * (size_t)plan.seg.k);
  CHECK(d && scratch && jbuf && jin && jcoded && jbits, "%s: decoder: %s", what, err);
  for (int f = 0; d && scratch && jbuf && jin && jcoded && jbits && f < FRAMES; f++) {
    tb_draw_info(rng_key(p.seed, p.stream_key), (uint64_t)f, p.code.tbs, info);
    tb_encode(&plan, info, enc, scratch);
    /* the backend's bits come symbol by symbol in label bit order: coded
     * bit i is bit tb_llr_index(i) (38.211's order, label_order.h) */
    int moved = 0;
    for (size_t i = 0; i < g; i++) moved += enc[i] != bits[(size_t)f * g + tb_llr_index(i, p.bps)];
    CHECK(moved == 0, "%s: frame %d: %d sent bits are not the TB's coding in 38.211's order", what, f, moved);
    tb_outcome o;
    tb_decode(&plan, d, llr + (size_t)f * g, info, &o, scratch);
    const frame_coded ref = {(uint32_t)o.tb_error, (uint32_t)plan.seg.c, (uint32_t)o.cb_errors,
                             (uint32_t)o.info_errors, (uint32_t)o.iterations, (uint32_t)o.tb_error, 1};
    /* tb_judge (the GPU backend's host half) on the same decisions made
     * block by block here gives tb_decode's outcome */
    int it = 0;
    for (int r = 0; r < plan.seg.c; r++) {
      const ratematch_block *rm = &plan.rm[r];
      memset(jbuf, 0, sizeof(float) * (size_t)rm->ncb);
      for (int i = 0; i < rm->e; i++) jcoded[i] = llr[(size_t)f * g + (size_t)plan.offset[r] + tb_llr_index((size_t)i, p.bps)];
      ratematch_accumulate(rm, jcoded, jbuf);
      ratematch_decoder_input(rm, jbuf, jin);
      ldpc_decode_result res;
      ldpc_decoder_execute(d, jin, plan.seg.k_prime, jbits + (size_t)r * (size_t)plan.seg.k, &res);
      it += res.iterations;
    }
    tb_outcome oj;
    tb_judge(&plan, jbits, (size_t)plan.seg.k, it, info, &oj, scratch);
    CHECK(oj.tb_error == o.tb_error && oj.cb_errors == o.cb_errors && oj.info_errors == o.info_errors &&
          oj.iterations == o.iterations, "%s: frame %d: tb_judge TB %d CB %d info %d it %d, tb_decode %d %d %d %d",
          what, f, oj.tb_error, oj.cb_errors, oj.info_errors, oj.iterations, o.tb_error, o.cb_errors, o.info_errors,
          o.iterations);
    CHECK(same(&coded[f], &ref), "%s: frame %d: backend TB %u CB %u/%u info %u it %u, library %u %u/%u %u %u", what,
          f, coded[f].tb_error, coded[f].cb_errors, coded[f].cbs, coded[f].info_errors, coded[f].iterations,
          ref.tb_error, ref.cb_errors, ref.cbs, ref.info_errors, ref.iterations);
    CHECK(coded[f].tb_error || coded[f].info_errors == 0, "%s: frame %d: a delivered TB with wrong bits", what, f);
    lost += coded[f].tb_error != 0;
  }
  if (d) ldpc_decoder_destroy(d);
  free(scratch);
  free(jbuf);
  free(jin);
  free(jcoded);
  free(jbits);
  tb_plan_free(&plan);
done:
  free(llr);
  free(bits);
  free(enc);
  free(info);
  return lost;
}

/* Every TB delivered far above the waterfall, every TB lost far below it,
 * and the counts the same on 1 and 2 threads and in batches of 1 and 16. */
static void limits_and_invariance(const spec *s, const char *what) {
  frame_coded a[FRAMES], b[FRAMES];
  const link_params hi = point_of(s, 30.0), lo = point_of(s, -12.0);
  if (run(&hi, 1, 1, a, NULL, NULL) == 0)
    for (int f = 0; f < FRAMES; f++)
      CHECK(!a[f].tb_error && !a[f].cb_errors && !a[f].info_errors, "%s: 30 dB: frame %d lost", what, f);
  if (run(&lo, 1, 1, a, NULL, NULL) == 0 && run(&lo, 2, 16, b, NULL, NULL) == 0)
    for (int f = 0; f < FRAMES; f++) {
      CHECK(a[f].tb_error && a[f].cb_errors == a[f].cbs, "%s: -12 dB: frame %d delivered", what, f);
      CHECK(same(&a[f], &b[f]), "%s: -12 dB: frame %d differs between 1 thread and 2", what, f);
    }
}

int main(void) {
  /* name, spec, the Es/N0 in the waterfall */
  static const struct {
    const char *name;
    spec s;
    double mid;
  } cases[] = {
      {"bpsk 1x1 nms, one CB", {1, 1, 96, 14, 0, EQ_MMSE, CODE_DEC_NMS, 0.5}, -1.2},
      {"qpsk 2x2 mmse nms, one CB", {2, 2, 72, 14, 0, EQ_MMSE, CODE_DEC_NMS, 0.5}, 1.6},
      {"qpsk 2x2 zf bp", {2, 2, 72, 14, 0, EQ_ZF, CODE_DEC_BP, 0.5}, 1.4},
      {"qpsk 2x2 kbest oms, pilots, 3 CBs", {2, 2, 600, 14, 1, EQ_KBEST, CODE_DEC_OMS, 0.6}, 2.6},
      {"qpsk 2x2 kbest oms, DMRS, 3 CBs", {2, 2, 600, 14, 2, EQ_KBEST, CODE_DEC_OMS, 0.6}, 2.6},
      {"qpsk 2x2 mmse nms16, one CB", {2, 2, 72, 14, 0, EQ_MMSE, CODE_DEC_NMS16, 0.5}, 1.6},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const int lost = consistent(&cases[i].s, cases[i].mid, cases[i].name);
    CHECK(lost > 0 && lost < FRAMES, "%s: %d of %d TBs lost at %.1f dB: expected a waterfall SNR", cases[i].name,
          lost, FRAMES, cases[i].mid);
    limits_and_invariance(&cases[i].s, cases[i].name);
  }
  return test_finish("test_coded_cpu");
}
