/* The decoders on their own: noise-free input decodes in one layered
 * iteration; layered min-sum (normalised and offset) equals an independent
 * double-precision message-passing reference written here, decisions bit for
 * bit and messages within a stated tolerance, after 1, 3, 8 and 25
 * iterations of noisy blocks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coding/ldpc_decode.h"
#include "coding/ldpc_encode.h"
#include "coding/ratematch.h"
#include "testutil.h"

/* One TB of one block through the chain: random info, encode, rate match
 * (rv 0, Qm 1) to E bits, BPSK over AWGN at Es/N0 `esn0_db` (no noise when
 * esn0_db is INFINITY: LLRs +-10), back to the decoder's input. */
typedef struct {
  ldpc_segmentation s;
  ldpc_code code;
  ratematch_block p;
  uint8_t *info, *cw;
  float *llr;
} block;

static void make_block(block *b, int a, int bg, int e, double esn0_db) {
  ldpc_segment(a, bg, &b->s);
  ldpc_code_init(&b->code, bg, b->s.zc);
  ratematch_block_params(&b->s, 0, 0, 1, 1, e, 0, &b->p);
  const int nbits = ldpc_codeword_bits(&b->code);
  b->info = calloc((size_t)b->s.k, 1);
  b->cw = malloc((size_t)nbits);
  b->llr = malloc(sizeof(float) * nbits);
  for (int j = 0; j < b->s.k_prime; j++) b->info[j] = (uint8_t)(test_rng_u64() & 1);
  ldpc_encode(&b->code, b->info, b->cw);
  uint8_t *f = malloc((size_t)e);
  float *fl = malloc(sizeof(float) * e), *buf = calloc((size_t)b->s.n, sizeof(float));
  ratematch_encode(&b->p, b->cw, f);
  /* Bit 1 -> +1; y = x + n, n ~ N(0, N0/2), Es = 1: LLR = 2y / sigma^2. */
  const double sigma2 = isinf(esn0_db) ? 0.0 : 0.5 / pow(10.0, esn0_db / 10.0);
  for (int k = 0; k < e; k++) {
    const double x = f[k] ? 1.0 : -1.0;
    if (sigma2 == 0.0) {
      fl[k] = (float)(10.0 * x);
    } else {
      double re, im;
      test_rng_cnormal(&re, &im);
      fl[k] = (float)(2.0 * (x + sqrt(2.0 * sigma2) * re) / sigma2);
    }
  }
  ratematch_accumulate(&b->p, fl, buf);
  ratematch_decoder_input(&b->p, buf, b->llr);
  free(f);
  free(fl);
  free(buf);
}

static void free_block(block *b) {
  free(b->info);
  free(b->cw);
  free(b->llr);
}

/* The reference: per-edge messages over the expanded H, double precision,
 * the same row order (layered) and the same rows (those up to the last
 * column with a nonzero LLR), in the input's ln P(1)/P(0) domain. A check
 * of degree d says its bits XOR to 0: bit e is 1 when an odd number of the
 * d-1 others are, so the message to bit e is (-1)^d prod_{j != e} s_j
 * (d = 2: the other's sign; d = 3: two 1s give a 0) times
 * alpha min_{j != e} |q_j| (or
 * max(min - beta, 0)), s_j = -1 where q_j's sign bit is set, else +1;
 * decisions are 1 where the sign bit is clear. The minimum over the others
 * is taken directly, edge by edge (no running minima). */
typedef struct {
  int rows;
  double *app;   /* a posteriori LLR per bit */
  double *msg;   /* per base entry and lane */
} reference;

static int reference_decode(const ldpc_code *code, const float *llr, int offset, double alpha, double beta,
                            int max_it, reference *ref) {
  const ldpc_base_graph *g = code->g;
  const int z = code->z, nbits = g->cols * z;
  int last = g->info_cols + 3;
  for (int k = nbits - 1; k >= 0; k--)
    if (llr[k] != 0.0f) {
      last = k / z > last ? k / z : last;
      break;
    }
  ref->rows = last - g->info_cols + 1;
  ref->app = malloc(sizeof(double) * nbits);
  ref->msg = calloc((size_t)g->nnz * z, sizeof(double));
  for (int k = 0; k < nbits; k++) ref->app[k] = (double)llr[k];
  int it;
  for (it = 1; it <= max_it; it++) {
    for (int r = 0; r < ref->rows; r++)
      for (int i = 0; i < z; i++) {
        double q[32];
        int bit[32];
        const int e0 = g->row_start[r], deg = g->row_start[r + 1] - e0;
        for (int k = 0; k < deg; k++) {
          bit[k] = g->col[e0 + k] * z + (i + g->shift[e0 + k][code->set] % z) % z;
          q[k] = ref->app[bit[k]] - ref->msg[(size_t)(e0 + k) * z + i];
        }
        for (int k = 0; k < deg; k++) {
          double mn = INFINITY, sg = deg % 2 ? -1.0 : 1.0;
          for (int j = 0; j < deg; j++)
            if (j != k) {
              mn = fmin(mn, fabs(q[j]));
              sg *= signbit(q[j]) ? -1.0 : 1.0;
            }
          const double mag = offset ? fmax(mn - beta, 0.0) : alpha * mn;
          ref->msg[(size_t)(e0 + k) * z + i] = sg * mag;
          ref->app[bit[k]] = q[k] + sg * mag;
        }
      }
    /* Syndrome of the decisions over the decoded rows. */
    int fail = 0;
    for (int r = 0; r < ref->rows && !fail; r++)
      for (int i = 0; i < z && !fail; i++) {
        int par = 0;
        for (int e = g->row_start[r]; e < g->row_start[r + 1]; e++)
          par ^= !signbit(ref->app[g->col[e] * z + (i + g->shift[e][code->set] % z) % z]);
        fail = par;
      }
    if (!fail) break;
  }
  return it > max_it ? max_it : it;
}

int main(void) {
  test_rng_seed(2024);
  char err[200];

  /* Noise-free: one iteration for layered min-sum on both graphs, with and
   * without fillers, wherever every bit but the 2Z punctured ones is sent:
   * a layer meets the punctured bits after a row that has only one of them
   * and passes them on within the same iteration. Flooding BP needs two:
   * each check of the second punctured column in BG1 also holds the first,
   * both erased, so the first iteration tells the second column nothing.
   * At rates so high that core parity bits go unsent too (the last two
   * lines: R 0.87 and 0.88), those erased bits are recovered in the first
   * iteration and their checks settle in the next: the bounds say so. */
  static const struct {
    int a, bg, e, layered, flooding;
  } clean[] = {{100, 2, 400, 1, 2},   {1000, 2, 3000, 1, 2}, {8424, 1, 16896, 1, 2},
               {3824, 1, 4400, 1, 3}, {600, 2, 700, 2, 3}};
  for (size_t c = 0; c < sizeof clean / sizeof clean[0]; c++) {
    block b;
    make_block(&b, clean[c].a, clean[c].bg, clean[c].e, INFINITY);
    for (int alg = 0; alg <= LDPC_LAYERED_NMS16; alg++) { /* nms, oms, bp and the fixed-point nms16 */
      ldpc_decoder_config cfg;
      ldpc_decoder_config_default(&cfg);
      cfg.algorithm = (ldpc_algorithm)alg;
      cfg.max_iterations = 20;
      ldpc_decoder *d = ldpc_decoder_create(b.s.bg, b.s.zc, &cfg, err, sizeof err);
      uint8_t *bits = malloc((size_t)b.s.k_prime);
      ldpc_decode_result res;
      ldpc_decoder_execute(d, b.llr, b.s.k_prime, bits, &res);
      const int max_it = alg == LDPC_FLOODING_BP ? clean[c].flooding : clean[c].layered;
      CHECK(res.syndrome_ok && res.iterations <= max_it && memcmp(bits, b.info, (size_t)b.s.k_prime) == 0,
            "noise-free A %d BG%d algorithm %d: %d iterations, syndrome %d", clean[c].a, clean[c].bg, alg,
            res.iterations, res.syndrome_ok);
      free(bits);
      ldpc_decoder_destroy(d);
    }
    free_block(&b);
  }

  /* Against the reference, noisy blocks near the waterfall (some decode,
   * some do not within the iterations), both min-sum kinds. Tolerance on a
   * message: 1e-4 (1 + |m|): float rounding (2^-24 a step) grown over at most
   * 25 iterations stays far below it, while any different decision or
   * schedule moves messages by whole LLR units. */
  static const struct {
    int a, bg, e;
    double esn0;
  } noisy[] = {{1000, 2, 3048, -3.0}, {1000, 2, 3048, -2.0}, {3824, 1, 7680, 0.5}, {100, 2, 232, 1.0}};
  static const int iters[4] = {1, 3, 8, 25};
  for (size_t c = 0; c < sizeof noisy / sizeof noisy[0]; c++) {
    block b;
    make_block(&b, noisy[c].a, noisy[c].bg, noisy[c].e, noisy[c].esn0);
    for (int offset = 0; offset <= 1; offset++)
      for (int t = 0; t < 4; t++) {
        ldpc_decoder_config cfg;
        ldpc_decoder_config_default(&cfg);
        cfg.algorithm = offset ? LDPC_LAYERED_OMS : LDPC_LAYERED_NMS;
        cfg.max_iterations = iters[t];
        ldpc_decoder *d = ldpc_decoder_create(b.s.bg, b.s.zc, &cfg, err, sizeof err);
        uint8_t *bits = malloc((size_t)b.s.k_prime);
        ldpc_decode_result res;
        ldpc_decoder_execute(d, b.llr, b.s.k_prime, bits, &res);
        reference ref;
        const int ref_it = reference_decode(&b.code, b.llr, offset, cfg.alpha, cfg.beta, iters[t], &ref);
        const int nbits = ldpc_codeword_bits(&b.code);
        const float *app = ldpc_decoder_app(d);
        int same_bits = res.rows_used == ref.rows && res.iterations == ref_it;
        for (int k = 0; k < nbits; k++) same_bits &= !signbit(app[k]) == !signbit(ref.app[k]);
        for (int k = 0; k < b.s.k_prime; k++) same_bits &= bits[k] == !signbit(ref.app[k]);
        double worst = 0.0;
        const int z = b.code.z;
        for (int e = 0; e < b.code.g->row_start[ref.rows]; e++)
          for (int i = 0; i < z; i++) {
            const double m = ldpc_decoder_message(d, e, i), want = ref.msg[(size_t)e * z + i];
            const double rel = fabs(m - want) / (1.0 + fabs(want));
            worst = rel > worst ? rel : worst;
          }
        CHECK(same_bits, "case %zu %s %d iterations: decisions differ (iterations %d vs %d, rows %d vs %d)", c,
              offset ? "offset" : "normalised", iters[t], res.iterations, ref_it, res.rows_used, ref.rows);
        CHECK(worst < 1e-4, "case %zu %s %d iterations: message error %.3g", c, offset ? "offset" : "normalised",
              iters[t], worst);
        free(ref.app);
        free(ref.msg);
        free(bits);
        ldpc_decoder_destroy(d);
      }
    free_block(&b);
  }

  /* Bad input: a lifting size that is none, a zero iteration cap, an
   * algorithm that is none, k_prime beyond K. */
  ldpc_decoder_config cfg;
  ldpc_decoder_config_default(&cfg);
  CHECK(ldpc_decoder_create(1, 17, &cfg, err, sizeof err) == NULL, "Z 17 accepted");
  cfg.max_iterations = 0;
  CHECK(ldpc_decoder_create(1, 16, &cfg, err, sizeof err) == NULL, "0 iterations accepted");
  cfg.max_iterations = 5;
  cfg.algorithm = (ldpc_algorithm)(LDPC_LAYERED_NMS16 + 1);
  CHECK(ldpc_decoder_create(2, 16, &cfg, err, sizeof err) == NULL, "an algorithm past nms16 accepted");
  cfg.algorithm = LDPC_LAYERED_NMS;
  ldpc_decoder *d = ldpc_decoder_create(2, 16, &cfg, err, sizeof err);
  float llr[52 * 16] = {0};
  uint8_t bits[200];
  ldpc_decode_result res;
  CHECK(ldpc_decoder_execute(d, llr, 161, bits, &res) == -1, "k_prime past K accepted");
  ldpc_decoder_destroy(d);
  return test_finish("test_ldpc_decode");
}
