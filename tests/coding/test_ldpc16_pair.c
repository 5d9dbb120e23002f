/* The two-block ("pair") form of the fixed-point decoder (nms16,
 * coding/ldpc_msg16x2.h), the arithmetic of the GPU's pair kernel, run here
 * on the host with the intrinsics' plain C forms, equals the CPU nms16
 * decoder (ldpc_decoder_execute) block for block: the same decisions on all
 * K systematic bits, iterations, syndrome flag and rows used, every a
 * posteriori value of the block's decoded columns and every message of its
 * decoded rows, at the iteration where the CPU stopped.
 *
 * pair_decode below is the GPU kernel's schedule written out for one
 * thread at a time (cuda/ldpc_gpu.cu, pair_block): rows in order, each lane
 * of a row in turn (the lanes of a row touch disjoint LLRs), a pair's rows
 * the larger of its two blocks' row counts, the syndrome of each block over
 * its own rows, and a block that stops (zero syndrome, or the cap) has its
 * results taken there while its half keeps running, unread, until its
 * partner stops too. A row past a block's own rows leaves that block's
 * decoded columns alone (its erased parity bit sends zero messages:
 * coding/ldpc_decode.h), which the comparison of the a posteriori values
 * checks.
 *
 * Blocks: both base graphs, lifting sizes from 2 to 384, rows from 4 to
 * all, fillers, two scales, capped and forced iterations, noisy codewords
 * near the waterfall with erasures, huge (1e30, inf), tiny and half-unit
 * LLRs and NaN; the two blocks of a pair at different Es/N0 and often
 * different rows, and a lone block with no partner. The test fails unless
 * some pairs saw their blocks stop at different iterations, some had
 * different row counts, and some blocks stopped early and some failed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coding/ldpc_decode.h"
#include "coding/ldpc_encode.h"
#include "coding/ldpc_msg16.h"
#include "coding/ldpc_msg16x2.h"
#include "coding/ratematch.h"
#include "ldpc16_input.h"
#include "testutil.h"

/* Words of a row's messages per lane: v1, v2 and three flag words. */
#define MSG_WORDS 5

static int g_pairs, g_split_stops, g_split_rows, g_early, g_failed, g_blocks, g_lone;

/* The rows a block decodes, as the kernels find them: up to the last column
 * past the core with a nonzero LLR (NaN counts: it is != 0), at least 4. */
static int rows_of(const ldpc_code *code, const float *llr) {
  const int z = code->z, from = (code->g->info_cols + 4) * z;
  int last = -1;
  for (int j = from; j < code->g->cols * z; j++)
    if (llr[j] != 0.0f) last = j;
  return last < 0 ? 4 : last / z - code->g->info_cols + 1;
}

/* What the pair decode keeps of a block when it stops. */
typedef struct {
  ldpc_decode_result res;
  uint8_t *bits;  /* K decisions */
  int16_t *app;   /* Nb Z a posteriori values */
  int16_t *msg;   /* nnz Z messages (entry e, lane i at e Z + i) */
} pair_out;

/* The message of entry k (of row r's flag words w) in lane i, half h. */
static int16_t message_of(const uint32_t *m, int k, int h) {
  const uint32_t f = m[2 + (k >> 3)] << (k & 7);
  const uint32_t v = ldpc16x2_sel(m[0], m[1], ldpc16x2_mask7(f));
  const uint32_t neg = ldpc16x2_mask15(f);
  const int16_t mag = h ? ldpc16x2_hi(v) : ldpc16x2_lo(v);
  const int s = h ? (int)(neg >> 31) : (int)(neg & 1u);
  return (int16_t)(s ? -mag : mag);
}

static void snapshot(const ldpc_code *code, const uint32_t *app, const uint32_t *msg, int h, int it, int ok, int rows,
                     pair_out *o) {
  const int z = code->z, k = ldpc_k(code), n = ldpc_codeword_bits(code);
  o->res.iterations = it;
  o->res.syndrome_ok = ok;
  o->res.rows_used = rows;
  for (int j = 0; j < k; j++) o->bits[j] = h ? ldpc16x2_hard_hi(app[j]) : ldpc16x2_hard_lo(app[j]);
  for (int j = 0; j < n; j++) o->app[j] = h ? ldpc16x2_hi(app[j]) : ldpc16x2_lo(app[j]);
  for (int r = 0; r < code->g->rows; r++)
    for (int e = code->g->row_start[r]; e < code->g->row_start[r + 1]; e++)
      for (int i = 0; i < z; i++)
        o->msg[(size_t)e * z + i] = message_of(msg + ((size_t)r * z + i) * MSG_WORDS, e - code->g->row_start[r], h);
}

/* Row r, lane i of the pair: the kernel's layer step. */
static void pair_row(const ldpc_code *code, int r, int i, uint32_t *app, uint32_t *m, int32_t sk) {
  const int z = code->z, e0 = code->g->row_start[r], deg = code->g->row_start[r + 1] - e0;
  uint32_t q[LDPC_ROW_DEGREE_MAX];
  size_t at[LDPC_ROW_DEGREE_MAX];
  ldpc16x2_acc acc = ldpc16x2_acc_start(deg);
  for (int k = 0; k < deg; k++) {
    at[k] = (size_t)code->g->col[e0 + k] * z + (size_t)((i + code->shift[e0 + k]) % z);
    q[k] = ldpc16x2_q(app[at[k]], m[0], m[1], m[2 + (k >> 3)] << (k & 7));
    ldpc16x2_take(&acc, q[k], k);
  }
  const uint32_t v1 = ldpc16x2_v1(&acc, sk), v2 = ldpc16x2_v2(&acc, sk), sgn = ldpc16x2_row_sign(&acc);
  const uint32_t s1 = ldpc16x2_signed(v1, sgn), s2 = ldpc16x2_signed(v2, sgn);
  uint32_t hot[3], w[3];
  for (int j = 0; j < 3; j++) hot[j] = w[j] = ldpc16x2_hot(&acc, j);
  for (int k = 0; k < deg; k++)
    app[at[k]] = ldpc16x2_give(q[k], s1, s2, hot[k >> 3] << (k & 7), k & 7, &w[k >> 3]);
  m[0] = v1;
  m[1] = v2;
  for (int j = 0; j < 3; j++) {
    const int n = deg - 8 * j;
    m[2 + j] = n > 0 ? ldpc16x2_word_signs(w[j], sgn, n < 8 ? n : 8) : w[j];
  }
}

/* Decodes a (and b, or no partner for b NULL) as the pair kernel does. */
static void pair_decode(const ldpc_code *code, const ldpc_decoder_config *cfg, const float *a, const float *b,
                        pair_out out[2]) {
  const ldpc_base_graph *g = code->g;
  const int z = code->z, n = ldpc_codeword_bits(code);
  uint32_t *app = malloc(sizeof(uint32_t) * (size_t)n);
  uint32_t *msg = calloc((size_t)g->rows * z * MSG_WORDS, sizeof(uint32_t));
  for (int j = 0; j < n; j++) app[j] = ldpc16x2_quantise(a[j], b ? b[j] : 0.0f);
  const int rows[2] = {rows_of(code, a), b ? rows_of(code, b) : 0};
  const int used = rows[0] > rows[1] ? rows[0] : rows[1];
  const int32_t sk = ldpc16_scale_k(cfg->alpha);
  int done[2] = {0, b == NULL}, it = 0;
  while (!done[0] || !done[1]) {
    for (int r = 0; r < used; r++)
      for (int i = 0; i < z; i++) pair_row(code, r, i, app, msg + ((size_t)r * z + i) * MSG_WORDS, sk);
    it++;
    uint32_t unmet = 0;
    for (int r = 0; r < used; r++) {
      const uint32_t own = (r < rows[0] ? 0x8000u : 0u) | (r < rows[1] ? 0x80000000u : 0u);
      const int deg = g->row_start[r + 1] - g->row_start[r];
      for (int i = 0; i < z; i++) {
        uint32_t x = 0;
        for (int e = g->row_start[r]; e < g->row_start[r + 1]; e++)
          x ^= app[(size_t)g->col[e] * z + (size_t)((i + code->shift[e]) % z)];
        unmet |= ldpc16x2_unmet(x, deg) & own;
      }
    }
    for (int h = 0; h < 2; h++) {
      if (done[h]) continue;
      const int ok = !(unmet & (h ? 0x80000000u : 0x8000u));
      if ((ok && !cfg->full_iterations) || it == cfg->max_iterations) {
        snapshot(code, app, msg, h, it, ok, rows[h], &out[h]);
        done[h] = 1;
      }
    }
  }
  free(app);
  free(msg);
}

/* The CPU decoder's result on llr against the pair's o; 1 when equal. */
static int agrees(ldpc_decoder *cpu, const ldpc_code *code, const float *llr, const pair_out *o, int max_it,
                  const char *what) {
  const int z = code->z, k = ldpc_k(code);
  uint8_t *bits = malloc((size_t)k);
  ldpc_decode_result r;
  ldpc_decoder_execute(cpu, llr, k, bits, &r);
  int same = r.iterations == o->res.iterations && r.syndrome_ok == o->res.syndrome_ok &&
             r.rows_used == o->res.rows_used && memcmp(bits, o->bits, (size_t)k) == 0;
  const float *app = ldpc_decoder_app(cpu);
  const int cols = code->g->info_cols + r.rows_used;
  int first_app = -1, first_msg = -1;
  for (int j = 0; j < cols * z && first_app < 0; j++)
    if (app[j] != ldpc16_value(o->app[j])) first_app = j;
  for (int e = 0; e < code->g->row_start[r.rows_used] && first_msg < 0; e++)
    for (int i = 0; i < z; i++)
      if (ldpc_decoder_message(cpu, e, i) != ldpc16_value(o->msg[(size_t)e * z + i])) {
        first_msg = e * z + i;
        break;
      }
  same &= first_app < 0 && first_msg < 0;
  if (!same)
    fprintf(stderr, "  %s: CPU %d iterations, syndrome %d, rows %d; pair %d, %d, %d; bits %s; first app diff %d, "
                    "first message diff %d\n",
            what, r.iterations, r.syndrome_ok, r.rows_used, o->res.iterations, o->res.syndrome_ok, o->res.rows_used,
            memcmp(bits, o->bits, (size_t)k) ? "differ" : "equal", first_app, first_msg);
  g_blocks++;
  g_early += r.syndrome_ok && r.iterations > 1 && r.iterations < max_it;
  g_failed += !r.syndrome_ok;
  free(bits);
  return same;
}

static void pair_out_alloc(const ldpc_code *code, pair_out *o) {
  o->bits = malloc((size_t)ldpc_k(code));
  o->app = malloc(sizeof(int16_t) * (size_t)ldpc_codeword_bits(code));
  o->msg = malloc(sizeof(int16_t) * (size_t)code->g->nnz * code->z);
}

static void pair_out_free(pair_out *o) {
  free(o->bits);
  free(o->app);
  free(o->msg);
}

/* Es/N0 (dB) where the Gaussian-input capacity 1/2 log2(1 + 2 Es/N0) of
 * real BPSK equals the rate. */
static double esn0_limit_db(double rate) { return 10.0 * log10((pow(2.0, 2.0 * rate) - 1.0) / 2.0); }

static void run_code(int bg, int z, int ci) {
  char err[200];
  ldpc_code code;
  if (ldpc_code_init(&code, bg, z) != 0) {
    CHECK(0, "no code BG%d Z %d", bg, z);
    return;
  }
  const int nbits = ldpc_codeword_bits(&code), k = ldpc_k(&code);
  ldpc_decoder_config cfg;
  ldpc_decoder_config_default(&cfg);
  cfg.algorithm = LDPC_LAYERED_NMS16;
  cfg.alpha = (ci & 1) ? 0.8125f : 0.75f;
  cfg.max_iterations = ci % 3 == 2 ? 12 : 8;
  cfg.full_iterations = ci % 5 == 4;
  ldpc_decoder *cpu = ldpc_decoder_create(bg, z, &cfg, err, sizeof err);
  CHECK(cpu != NULL, "decoder BG%d Z %d: %s", bg, z, err);
  if (!cpu) return;
  float *a = malloc(sizeof(float) * (size_t)nbits), *b = malloc(sizeof(float) * (size_t)nbits);
  pair_out out[2];
  pair_out_alloc(&code, &out[0]);
  pair_out_alloc(&code, &out[1]);
  const int max_rows = code.g->rows, mid = bg == 1 ? 24 : 22;
  static const double offsets[5] = {-0.5, 0.5, 1.0, 2.0, 6.0};
  int same = 1;
  for (int p = 0; p < 6; p++) {
    /* block A's rows and Es/N0, then B's: B's rows differ in half the pairs */
    const int rows_a = p < 2 ? mid : p < 4 ? max_rows : 4 + (int)(test_rng_u64() % (uint64_t)(max_rows - 3));
    const int rows_b = (p & 1) ? 4 + (int)(test_rng_u64() % (uint64_t)(max_rows - 3)) : rows_a;
    const int fill_a = (p % 3 == 1) ? (int)(test_rng_u64() % (uint64_t)(z + 1)) : 0;
    const int fill_b = (p % 3 == 2) ? (int)(test_rng_u64() % (uint64_t)(2 * z + 1)) : fill_a;
    const double rate_a = (double)(k - fill_a) / ((code.g->info_cols + rows_a - 2) * z);
    const double rate_b = (double)(k - fill_b) / ((code.g->info_cols + rows_b - 2) * z);
    const double sa = esn0_limit_db(rate_a) + offsets[test_rng_u64() % 5];
    const double sb = esn0_limit_db(rate_b) + offsets[test_rng_u64() % 5];
    ldpc16_make_input(&code, rows_a, fill_a, sa, a);
    ldpc16_make_input(&code, rows_b, fill_b, sb, b);
    const int lone = p == 5;
    pair_decode(&code, &cfg, a, lone ? NULL : b, out);
    char what[120];
    snprintf(what, sizeof what, "BG%d Z %d pair %d block A", bg, z, p);
    same &= agrees(cpu, &code, a, &out[0], cfg.max_iterations, what);
    if (!lone) {
      snprintf(what, sizeof what, "BG%d Z %d pair %d block B", bg, z, p);
      same &= agrees(cpu, &code, b, &out[1], cfg.max_iterations, what);
      g_pairs++;
      g_split_stops += out[0].res.iterations != out[1].res.iterations;
      g_split_rows += out[0].res.rows_used != out[1].res.rows_used;
    } else {
      g_lone++;
    }
  }
  CHECK(same, "BG%d Z %d alpha %g max %d full %d: the pair decode differs from the CPU nms16 decoder", bg, z,
        (double)cfg.alpha, cfg.max_iterations, cfg.full_iterations);
  pair_out_free(&out[0]);
  pair_out_free(&out[1]);
  free(a);
  free(b);
  ldpc_decoder_destroy(cpu);
}

/* The 16x2 primitives against their definition on the halves, over edge
 * values and random words. */
static void test_primitives(void) {
  static const int16_t edge[] = {0, 1, -1, 2, -2, 1023, 1024, 1025, -1024, -1025, 31744, -31744, 32767, -32767};
  const int ne = (int)(sizeof edge / sizeof edge[0]);
  int bad = 0;
  for (int t = 0; t < 20000; t++) {
    const int16_t x0 = t < ne * ne ? edge[t % ne] : (int16_t)(test_rng_u64() % 63489) - 31744;
    const int16_t y0 = t < ne * ne ? edge[t / ne] : (int16_t)(test_rng_u64() % 63489) - 31744;
    const int16_t x1 = (int16_t)(test_rng_u64() % 63489) - 31744, y1 = edge[t % ne];
    const uint32_t x = ldpc16x2_pack(x0, x1), y = ldpc16x2_pack(y0, y1);
    bad += ldpc16x2_add(x, y) != ldpc16x2_pack((int16_t)(x0 + y0), (int16_t)(x1 + y1));
    bad += ldpc16x2_sub(x, y) != ldpc16x2_pack((int16_t)(x0 - y0), (int16_t)(x1 - y1));
    bad += ldpc16x2_maxs(x, y) != ldpc16x2_pack(x0 > y0 ? x0 : y0, x1 > y1 ? x1 : y1);
    bad += ldpc16x2_mins(x, y) != ldpc16x2_pack(x0 < y0 ? x0 : y0, x1 < y1 ? x1 : y1);
    /* min1 and its edge: a strictly smaller value takes edge 7, a tie keeps 3 */
    ldpc16x2_acc acc = ldpc16x2_acc_start(4);
    acc.m1 = x;
    acc.ia = acc.ib = 3;
    ldpc16x2_min1(&acc, y, 7);
    bad += acc.m1 != ldpc16x2_pack(x0 < y0 ? x0 : y0, x1 < y1 ? x1 : y1) || acc.ia != (y0 < x0 ? 7 : 3) ||
           acc.ib != (y1 < x1 ? 7 : 3);
    const uint16_t u0 = (uint16_t)x0, u1 = (uint16_t)x1, w0 = (uint16_t)y0, w1 = (uint16_t)y1;
    bad += ldpc16x2_minu(x, y) != ((uint32_t)(u0 < w0 ? u0 : w0) | (uint32_t)(u1 < w1 ? u1 : w1) << 16);
    bad += ldpc16x2_maxu(x, y) != ((uint32_t)(u0 > w0 ? u0 : w0) | (uint32_t)(u1 > w1 ? u1 : w1) << 16);
    bad += ldpc16x2_mask15(x) != ((x0 < 0 ? 0xffffu : 0u) | (x1 < 0 ? 0xffff0000u : 0u));
    bad += ldpc16x2_mask7(x) != ((u0 & 0x80u ? 0xffffu : 0u) | (u1 & 0x80u ? 0xffff0000u : 0u));
    /* the scale per half against ldpc16_scale, magnitudes 0 .. 1024 */
    const int32_t kk = (int32_t)(test_rng_u64() % 32768);
    const int32_t m0 = (int32_t)(test_rng_u64() % 1025), m1 = (int32_t)(test_rng_u64() % 1025);
    bad += ldpc16x2_scale((uint32_t)m0 | (uint32_t)m1 << 16, kk) !=
           ldpc16x2_pack(ldpc16_scale(m0, kk), ldpc16_scale(m1, kk));
  }
  CHECK(bad == 0, "%d 16x2 primitive results differ from their definitions", bad);
}

int main(void) {
  test_rng_seed(0x9a125eedu);
  test_primitives();
  int zs[LDPC_NUM_Z];
  ldpc_lifting_sizes(zs);
  /* a spread of lifting sizes: every third of the 51, and 384 */
  int ci = 0;
  for (int bg = 1; bg <= 2; bg++)
    for (int zi = 0; zi < LDPC_NUM_Z; zi += test_small_mode() ? 17 : 3) run_code(bg, zs[zi], ci++);
  run_code(1, 384, ci++);
  run_code(2, 384, ci++);
  printf("test_ldpc16_pair: %d blocks in %d pairs and %d lone: %d pairs stopped their blocks at different "
         "iterations, %d had different rows; %d blocks stopped early, %d failed their syndrome\n",
         g_blocks, g_pairs, g_lone, g_split_stops, g_split_rows, g_early, g_failed);
  CHECK(g_split_stops > g_pairs / 4, "only %d of %d pairs stopped their blocks at different iterations", g_split_stops,
        g_pairs);
  CHECK(g_split_rows > g_pairs / 4, "only %d of %d pairs had different rows", g_split_rows, g_pairs);
  CHECK(g_early > g_blocks / 10, "only %d of %d blocks stopped early", g_early, g_blocks);
  CHECK(g_failed > g_blocks / 20, "only %d of %d blocks failed", g_failed, g_blocks);
  return test_finish("test_ldpc16_pair");
}
