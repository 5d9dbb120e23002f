/* HARQ with incremental redundancy (code.harq_transmissions) on the CPU
 * backend, and the combining it rests on (coding/tb_chain.h):
 *
 * - combining into a zeroed buffer is tb_decode, outcome for outcome;
 * - the LLR sum property: two rv 0 transmissions combined decode as their
 *   sum sent once (integer-valued LLRs, so the float sums are exact and the
 *   check is bit for bit);
 * - Chase's gain: on BPSK-AWGN, two rv 0 transmissions combined fail as
 *   often as one at +3.01 dB (their LLRs add to one of twice the SNR), a
 *   two-sample test on independent noise;
 * - the backend: the first transmission's counts equal a point without HARQ
 *   frame for frame (transmission 0 draws as before); a TB is retried only
 *   when lost, delivered after at most harq transmissions, lost after HARQ
 *   only when lost at first and then sent harq times; fewer TBs lost after
 *   HARQ than at first at an SNR in the waterfall; with 2 transmissions
 *   allowed every frame's outcome is the 4's cut at 2 (each transmission's
 *   draws are its own, keyed by frame and transmission); and every count
 *   the same for 1 and 2 threads and in batches of 1 and of all frames. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coding/tb_chain.h"
#include "core/draws.h"
#include "coded_point.h"
#include "cpu_create.h"
#include "testparams.h"
#include "testutil.h"

enum { FRAMES = 32 };

/* ---- the library: combining ------------------------------------------- */

/* splitmix64 and Box-Muller in double: the test's own noise. */
static uint64_t sm_state;
static uint64_t sm_next(void) {
  uint64_t z = (sm_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double gauss(void) {
  const double u1 = ((double)(sm_next() >> 11) + 0.5) / 9007199254740992.0;
  const double u2 = (double)(sm_next() >> 11) / 9007199254740992.0;
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

typedef struct chain {
  tb_plan plan;
  ldpc_decoder *dec;
  void *scratch;
  float *cbuf, *cbuf2;
  uint8_t *info, *coded;
  float *l1, *l2, *sum;
} chain;

static int chain_make(chain *c, int tbs, double rate, long g) {
  char err[256];
  memset(c, 0, sizeof *c);
  if (tb_plan_make(tbs, rate, 1, 1, g, 0, &c->plan, err, sizeof err)) {
    CHECK(0, "plan: %s", err);
    return -1;
  }
  const ldpc_decoder_config cfg = tb_decoder_config(0, 0.75, 0.5, 20, 1);
  c->dec = ldpc_decoder_create(c->plan.seg.bg, c->plan.seg.zc, &cfg, err, sizeof err);
  const size_t nf = tb_harq_buffer_floats(&c->plan);
  c->scratch = malloc(tb_scratch_bytes(&c->plan));
  c->cbuf = malloc(sizeof(float) * nf);
  c->cbuf2 = malloc(sizeof(float) * nf);
  c->info = malloc((size_t)tbs);
  c->coded = malloc((size_t)g);
  c->l1 = malloc(sizeof(float) * (size_t)g);
  c->l2 = malloc(sizeof(float) * (size_t)g);
  c->sum = malloc(sizeof(float) * (size_t)g);
  const int ok = c->dec && c->scratch && c->cbuf && c->cbuf2 && c->info && c->coded && c->l1 && c->l2 && c->sum;
  CHECK(ok, "decoder or memory: %s", err);
  return ok ? 0 : -1;
}

static void chain_free(chain *c) {
  if (c->dec) ldpc_decoder_destroy(c->dec);
  free(c->scratch);
  free(c->cbuf);
  free(c->cbuf2);
  free(c->info);
  free(c->coded);
  free(c->l1);
  free(c->l2);
  free(c->sum);
  tb_plan_free(&c->plan);
}

static void new_tb(chain *c) {
  for (int i = 0; i < c->plan.seg.a; i++) c->info[i] = (uint8_t)(sm_next() & 1u);
  tb_encode(&c->plan, c->info, c->coded, c->scratch);
}

static int same_outcome(const tb_outcome *a, const tb_outcome *b) {
  return a->tb_error == b->tb_error && a->cb_errors == b->cb_errors && a->info_errors == b->info_errors &&
         a->iterations == b->iterations;
}

/* Zeroed-buffer combining is tb_decode; rv 0 twice is the sum once. */
static void combining_exact(void) {
  chain c;
  const long g = 2400;
  if (chain_make(&c, 1032, 0.5, g)) return chain_free(&c);
  const size_t nf = tb_harq_buffer_floats(&c.plan);
  int lost = 0, delivered = 0;
  for (int trial = 0; trial < 40; trial++) {
    new_tb(&c);
    /* integer LLRs, -3 .. 3 around a bias toward the right sign of 0, 2 or
     * 4 (the second transmission's none), so that some TBs decode and
     * some do not */
    for (long i = 0; i < g; i++) {
      const float s = c.coded[i] ? 1.0f : -1.0f;
      const int m1 = (int)(sm_next() % 7) - 3 + 2 * (trial % 3), m2 = (int)(sm_next() % 7) - 3;
      c.l1[i] = s * (float)m1;
      c.l2[i] = s * (float)m2;
      c.sum[i] = c.l1[i] + c.l2[i];
    }
    tb_outcome a, b, x, y;
    tb_decode(&c.plan, c.dec, c.l1, c.info, &a, c.scratch);
    memset(c.cbuf, 0, sizeof(float) * nf);
    tb_decode_combine(&c.plan, c.dec, c.l1, c.cbuf, c.info, &b, c.scratch);
    CHECK(same_outcome(&a, &b), "trial %d: zeroed combining differs from tb_decode", trial);
    tb_decode_combine(&c.plan, c.dec, c.l2, c.cbuf, c.info, &x, c.scratch);
    tb_decode(&c.plan, c.dec, c.sum, c.info, &y, c.scratch);
    CHECK(same_outcome(&x, &y), "trial %d: rv 0 twice combined: TB %d it %d; their sum once: TB %d it %d", trial,
          x.tb_error, x.iterations, y.tb_error, y.iterations);
    memset(c.cbuf2, 0, sizeof(float) * nf);
    tb_decode_combine(&c.plan, c.dec, c.sum, c.cbuf2, c.info, &y, c.scratch);
    CHECK(memcmp(c.cbuf, c.cbuf2, sizeof(float) * nf) == 0, "trial %d: the combined buffer is not the sum's", trial);
    lost += x.tb_error;
    delivered += !x.tb_error;
  }
  CHECK(lost > 0 && delivered > 0, "combining: %d lost, %d delivered: expected both (the check would be empty)", lost,
        delivered);
  chain_free(&c);
}

/* BPSK over AWGN at Es/N0 esno: the LLRs of the g coded bits, ln P(1)/P(0)
 * = 2 y / sigma^2 with x = +1 for a 1. */
static void bpsk_llr(const chain *c, long g, double esno, float *llr) {
  const double sigma2 = pow(10.0, -esno / 10.0) / 2.0; /* per real dimension, Es = 1 */
  const double sd = sqrt(sigma2);
  for (long i = 0; i < g; i++) {
    const double y = (c->coded[i] ? 1.0 : -1.0) + sd * gauss();
    llr[i] = (float)(2.0 * y / sigma2);
  }
}

/* Chase: two rv 0 transmissions at Es/N0 s combined against one at s + 3.01
 * dB, each on its own noise: their BLERs agree (a two-sample z test at
 * 3.5 sigma); and both lie in the waterfall, so that the test can tell. */
static void chase_gain(void) {
  chain c;
  const long g = 2400;
  if (chain_make(&c, 1032, 0.5, g)) return chain_free(&c);
  const size_t nf = tb_harq_buffer_floats(&c.plan);
  const int n = (int)test_scaled(600, 60);
  const double s = -5.7, gain = 10.0 * log10(2.0);
  int lost2 = 0, lost1 = 0, first = 0;
  for (int t = 0; t < n; t++) {
    tb_outcome o;
    new_tb(&c);
    memset(c.cbuf, 0, sizeof(float) * nf);
    bpsk_llr(&c, g, s, c.l1);
    tb_decode_combine(&c.plan, c.dec, c.l1, c.cbuf, c.info, &o, c.scratch);
    first += o.tb_error;
    bpsk_llr(&c, g, s, c.l2);
    tb_decode_combine(&c.plan, c.dec, c.l2, c.cbuf, c.info, &o, c.scratch);
    lost2 += o.tb_error;
    new_tb(&c);
    bpsk_llr(&c, g, s + gain, c.l1);
    tb_decode(&c.plan, c.dec, c.l1, c.info, &o, c.scratch);
    lost1 += o.tb_error;
  }
  const double p2 = (double)lost2 / n, p1 = (double)lost1 / n, pool = (p1 + p2) / 2.0;
  const double sd = sqrt(2.0 * pool * (1.0 - pool) / n);
  printf("chase: %d TBs: one at %.2f dB lost %d, two at %.2f dB combined lost %d (each alone: %d)\n", n, s + gain,
         lost1, s, lost2, first);
  CHECK(pool > 0.05 && pool < 0.95, "chase: BLER %.3f: expected the waterfall (0.05, 0.95)", pool);
  CHECK(fabs(p2 - p1) <= 3.5 * sd, "chase: combined BLER %.4f, one at +3 dB %.4f: |diff| > 3.5 sd (%.4f)", p2, p1,
        sd);
  CHECK(first > lost2, "chase: one transmission alone lost %d, combined %d: combining must help", first, lost2);
  chain_free(&c);
}

/* ---- the backend ------------------------------------------------------- */

static link_params point_of(int harq, double esno) {
  static const tp_coded_spec s = {2, 2, 72, 14, 0, EQ_MMSE, CODE_DEC_NMS, 0.6};
  link_params p = tp_coded_point(&s, esno, 11);
  p.code.harq = harq;
  p.stream_key = link_stream_key(&p);
  return p;
}

static int run(const link_params *p, int threads, uint64_t batch, frame_coded *coded) {
  return tc_run_coded(p, threads, batch, FRAMES, coded, NULL, NULL);
}

static int same_all(const frame_coded *a, const frame_coded *b) {
  return a->tb_error == b->tb_error && a->cbs == b->cbs && a->cb_errors == b->cb_errors &&
         a->info_errors == b->info_errors && a->iterations == b->iterations && a->harq_error == b->harq_error &&
         a->transmissions == b->transmissions;
}

static void backend_harq(void) {
  const double esno = 2.5; /* the waterfall of this rate-0.6 QPSK point: 16 of 32 lost at first */
  const link_params p1 = point_of(1, esno), p2 = point_of(2, esno), p4 = point_of(4, esno);
  frame_coded a[FRAMES], b2[FRAMES], h[FRAMES], h1[FRAMES], hb[FRAMES];
  if (run(&p1, 2, 5, a) || run(&p2, 2, 5, b2) || run(&p4, 2, 5, h) || run(&p4, 1, 1, h1) ||
      run(&p4, 2, FRAMES, hb))
    return;
  int first = 0, residual = 0, retried = 0;
  for (int f = 0; f < FRAMES; f++) {
    /* the first transmission: the point without HARQ's counts */
    CHECK(h[f].tb_error == a[f].tb_error && h[f].cb_errors == a[f].cb_errors && h[f].info_errors == a[f].info_errors &&
              h[f].iterations == a[f].iterations && h[f].cbs == a[f].cbs,
          "frame %d: the first transmission differs from the point without HARQ", f);
    CHECK(a[f].transmissions == 1 && a[f].harq_error == a[f].tb_error, "frame %d: without HARQ %u transmissions", f,
          a[f].transmissions);
    /* retried only when lost; lost after HARQ only after every transmission */
    CHECK((h[f].transmissions == 1) == !h[f].tb_error, "frame %d: %u transmissions, first TB error %u", f,
          h[f].transmissions, h[f].tb_error);
    CHECK(h[f].transmissions >= 1 && h[f].transmissions <= 4, "frame %d: %u transmissions", f, h[f].transmissions);
    CHECK(!h[f].harq_error || (h[f].tb_error && h[f].transmissions == 4), "frame %d: lost after %u transmissions",
          f, h[f].transmissions);
    /* 2 allowed: the 4's outcome cut at 2 */
    const unsigned cut = h[f].transmissions < 2 ? h[f].transmissions : 2;
    const unsigned lost2 = h[f].harq_error || h[f].transmissions > 2;
    CHECK(b2[f].transmissions == cut && b2[f].harq_error == lost2,
          "frame %d: harq 2: %u transmissions lost %u; harq 4's cut at 2: %u lost %u", f, b2[f].transmissions,
          b2[f].harq_error, cut, lost2);
    CHECK(same_all(&h[f], &h1[f]) && same_all(&h[f], &hb[f]),
          "frame %d: the counts depend on the threads or the batch", f);
    first += h[f].tb_error != 0;
    residual += h[f].harq_error != 0;
    retried += h[f].transmissions > 1;
  }
  printf("backend: %d frames, %d lost at first, %d after HARQ\n", FRAMES, first, residual);
  CHECK(first > 0 && first < FRAMES, "%d of %d lost at first: expected a waterfall SNR", first, FRAMES);
  CHECK(residual < first, "residual %d lost, first %d: HARQ must deliver some", residual, first);
  CHECK(retried == first, "%d retried, %d lost at first", retried, first);
}

int main(void) {
  sm_state = 0x1234;
  combining_exact();
  chase_gain();
  backend_harq();
  return test_finish("test_harq_cpu");
}
