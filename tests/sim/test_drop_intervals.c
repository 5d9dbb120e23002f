/* Intervals over drops (channel.drop_frames = N > 1): the drop, not the
 * frame, is the unit of every interval (results/chunks.h, sim/point_fold.h).
 *
 *  - The schedule: with drops every chunk starts at a drop's first frame and
 *    holds whole drops (chunk_of still inverts chunk_range), so no chunk,
 *    journal line, work unit or merge part splits a drop.
 *  - The fold's sums against an independent computation from per-frame
 *    counts (synthetic, all kinds: bit errors, GMI losses at s = 1 and on
 *    the grid, coded TB / CB / information-bit errors, HARQ): each drop's
 *    counts summed, then squared; the frames fed in uneven batches that
 *    split drops, from a first_frame that starts a drop; a stop that cuts a
 *    drop makes it a unit of its own; folding the same frames chunk by
 *    chunk from saved tallies (a resume, an MPI unit ahead of its prefix)
 *    gives the same sums to the bit.
 *  - drop_frames = 1: every sum and interval is the frame-level one of
 *    before, to the bit.
 *  - Honesty on a real channel: TDL-A 2x2 QPSK MMSE, drops of 8 frames
 *    fading slowly (10 Hz: the channel barely moves over a drop), 320
 *    frames a run over many seeds. The spread of the runs' BERs is the
 *    truth of the estimator's variance: the drop-level variance the interval
 *    is built from matches it (their ratio within a bound derived below),
 *    the frame-level one is too small by a factor of several, and the
 *    drop-level interval covers the pooled BER about 95% of the time while
 *    the frame-level one covers it measurably less. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linktest.h"
#include "results/chunks.h"
#include "results/gmi_sup.h"
#include "results/stats.h"
#include "sim/backends.h"
#include "sim/point_fold.h"
#include "testparams.h"
#include "testutil.h"

/* ---- the schedule ---- */

static void check_schedule(void) {
  static const int drops[] = {3, 7, 8, 1000};
  for (size_t i = 0; i < sizeof drops / sizeof *drops; i++) {
    sim_point pt;
    memset(&pt, 0, sizeof pt);
    pt.p = tp_point(2, 2, 2, CH_TDL, 64, 4, 16);
    pt.p.drop_frames = drops[i];
    pt.max_frames = 1ull << 30;
    const uint64_t N = (uint64_t)drops[i];
    int aligned = 1, inverse = 1, tiled = 1;
    uint64_t next = 0;
    for (uint64_t k = 0; k < 300; k++) {
      uint64_t off, len;
      chunk_range(&pt, k, &off, &len);
      aligned &= off % N == 0 && len % N == 0 && len > 0;
      tiled &= off == next;
      next = off + len;
      inverse &= chunk_of(&pt, off) == k && chunk_of(&pt, off + len - 1) == k;
    }
    CHECK(aligned, "N = %llu: a chunk that does not hold whole drops", (unsigned long long)N);
    CHECK(tiled, "N = %llu: chunks that do not tile the frames", (unsigned long long)N);
    CHECK(inverse, "N = %llu: chunk_of does not invert chunk_range", (unsigned long long)N);
    CHECK(chunk_ceiling(&pt) <= (1ull << 22), "N = %llu: a chunk of %llu frames, above a work unit's 2^22",
          (unsigned long long)N, (unsigned long long)chunk_ceiling(&pt));
  }
}

/* ---- the fold against per-frame counts ---- */

#define FRAMES 157 /* 31 whole drops of 5 and a cut one of 2 */

typedef struct frames_in {
  int tx;
  uint32_t errors[FRAMES * 2];
  uint64_t loss[FRAMES * 2], loss_s[FRAMES * GMI_GRID];
  frame_coded coded[FRAMES];
} frames_in;

/* Deterministic per-frame counts whose drops differ (a drop's frames alike,
 * as a slowly fading drop's are). */
static void make_frames(frames_in *in, uint64_t N) {
  uint64_t x = 0x9e3779b97f4a7c15ull;
  in->tx = 2;
  for (uint64_t f = 0; f < FRAMES; f++) {
    const uint64_t d = f / N;
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t r = (uint32_t)(x >> 33);
    const uint32_t level = (uint32_t)((d * 2654435761u) % 97); /* the drop's channel */
    for (int s = 0; s < 2; s++) in->errors[f * 2 + (uint64_t)s] = level * 3 + (r >> (8 * s)) % 11;
    for (int s = 0; s < 2; s++) in->loss[f * 2 + (uint64_t)s] = ((uint64_t)level << 20) + (r >> (4 * s)) % 100000;
    for (int k = 0; k < GMI_GRID; k++) in->loss_s[f * GMI_GRID + (uint64_t)k] = ((uint64_t)(level + k) << 21) + r % 77777;
    frame_coded *c = &in->coded[f];
    memset(c, 0, sizeof *c);
    c->cbs = 4;
    c->cb_errors = (level + r % 3) % 5;
    c->tb_error = c->cb_errors > 0;
    c->info_errors = c->cb_errors * (100 + r % 50);
    c->iterations = 5 + r % 7;
    c->transmissions = 1 + (level + r) % 4;
    c->harq_error = c->tb_error && c->transmissions == 4;
  }
}

/* The independent sums: each drop's counts (drops of N counted from the
 * run's first frame, which starts one), squared; the real-valued squares
 * added chunk by chunk (chunks.h: a point's sums are its chunks' sums in
 * chunk order, so that a resumed run adds them as an uninterrupted one). */
typedef struct ref_sums {
  double sum_sq, gmi_sq, gmi_s_sq[GMI_GRID], cb_sq, info_sq;
  uint64_t block_sq, harq_sq, delivered_sq, transmissions_sq, delivered_transmissions, drops;
} ref_sums;

static void add_sums(ref_sums *a, const ref_sums *b) {
  a->sum_sq += b->sum_sq;
  a->gmi_sq += b->gmi_sq;
  for (int k = 0; k < GMI_GRID; k++) a->gmi_s_sq[k] += b->gmi_s_sq[k];
  a->cb_sq += b->cb_sq;
  a->info_sq += b->info_sq;
  a->block_sq += b->block_sq;
  a->harq_sq += b->harq_sq;
  a->delivered_sq += b->delivered_sq;
  a->transmissions_sq += b->transmissions_sq;
  a->delivered_transmissions += b->delivered_transmissions;
  a->drops += b->drops;
}

static ref_sums reference(const frames_in *in, const sim_point *pt, uint64_t frames, double rf) {
  const uint64_t N = (uint64_t)(pt->p.drop_frames > 1 ? pt->p.drop_frames : 1);
  ref_sums r, chunk;
  memset(&r, 0, sizeof r);
  memset(&chunk, 0, sizeof chunk);
  uint64_t k = 0, off, len;
  chunk_range(pt, k, &off, &len);
  for (uint64_t a = 0; a < frames; a += N) {
    if (a >= off + len) { /* the chunk is done: its sums into the run's */
      add_sums(&r, &chunk);
      memset(&chunk, 0, sizeof chunk);
      chunk_range(pt, ++k, &off, &len);
    }
    const uint64_t b = a + N < frames ? a + N : frames;
    double e = 0, g = 0, gs[GMI_GRID] = {0}, cb = 0, info = 0;
    uint64_t blk = 0, harq = 0, del = 0, tr = 0;
    for (uint64_t f = a; f < b; f++) {
      double frame_loss = 0.0;
      for (int s = 0; s < 2; s++) {
        e += in->errors[f * 2 + (uint64_t)s];
        frame_loss += ldexp((double)in->loss[f * 2 + (uint64_t)s], -GMI_LOSS_SHIFT);
      }
      g += frame_loss;
      for (int q = 0; q < GMI_GRID; q++) gs[q] += ldexp((double)in->loss_s[f * GMI_GRID + (uint64_t)q], -GMI_LOSS_SHIFT);
      const frame_coded *c = &in->coded[f];
      cb += c->cb_errors;
      info += c->info_errors;
      blk += c->tb_error != 0;
      harq += c->harq_error != 0;
      del += c->harq_error == 0;
      tr += c->transmissions;
    }
    chunk.sum_sq += e * e;
    chunk.gmi_sq += (g / rf) * (g / rf);
    for (int q = 0; q < GMI_GRID; q++) chunk.gmi_s_sq[q] += (gs[q] / rf) * (gs[q] / rf);
    chunk.cb_sq += cb * cb;
    chunk.info_sq += info * info;
    chunk.block_sq += blk * blk;
    chunk.harq_sq += harq * harq;
    chunk.delivered_sq += del * del;
    chunk.transmissions_sq += tr * tr;
    chunk.delivered_transmissions += del * tr;
    chunk.drops++;
  }
  add_sums(&r, &chunk);
  return r;
}

static sim_point fold_point(uint64_t N, uint64_t first_frame, uint64_t frames) {
  sim_point pt;
  memset(&pt, 0, sizeof pt);
  pt.p = tp_point(2, 2, 2, CH_TDL, 64, 4, 16);
  pt.p.drop_frames = (int)N;
  pt.p.llr = LLR_MAXLOG;
  pt.p.code.type = CODE_LDPC;
  pt.p.code.tbs = 1000;
  pt.first_frame = first_frame;
  pt.max_frames = frames;
  pt.target_errors = UINT64_MAX;
  pt.target_block_errors = UINT64_MAX;
  return pt;
}

/* Folds the frames in batches of the lengths in `cuts` (cycled). */
static void fold_batches(point_fold *f, const frames_in *in, uint64_t frames, const uint64_t *cuts, size_t n_cuts) {
  const work_cost none = {0};
  for (uint64_t at = 0, i = 0; at < frames; i++) {
    uint64_t n = cuts[i % n_cuts];
    if (n > frames - at) n = frames - at;
    point_fold_frames(f, in->errors + at * 2, NULL, in->loss + at * 2, in->loss_s + at * GMI_GRID, in->coded + at, n,
                      &none, NULL, NULL, NULL);
    at += n;
  }
}

static int same_sums(const tally *t, const ref_sums *r) {
  const tally_coded *c = &t->coded;
  return t->sum_sq == r->sum_sq && t->gmi_loss_sq == r->gmi_sq && !memcmp(t->gmi_loss_s_sq, r->gmi_s_sq, sizeof r->gmi_s_sq) &&
         c->cb_sq == r->cb_sq && c->info_sq == r->info_sq && c->block_sq == r->block_sq && c->harq_sq == r->harq_sq &&
         c->delivered_sq == r->delivered_sq && c->transmissions_sq == r->transmissions_sq &&
         c->delivered_transmissions == r->delivered_transmissions;
}

/* Saved chunk tallies (a journal) folded chunk by chunk. */
typedef struct saved {
  tally chunk[64];
  uint64_t n;
} saved;

static int save_chunk(void *ctx, uint64_t k, const tally *chunk, const char *stop) {
  saved *s = ctx;
  (void)stop;
  if (k != s->n || s->n >= 64) return -1;
  s->chunk[s->n++] = *chunk;
  return 0;
}

static void check_fold(uint64_t N, uint64_t first_frame) {
  frames_in *in = calloc(1, sizeof *in);
  make_frames(in, N);
  sim_point pt = fold_point(N, first_frame, FRAMES);
  const double rf = (double)link_data_res_per_frame(&pt.p);
  const ref_sums want = reference(in, &pt, FRAMES, rf);
  static const uint64_t cuts[] = {3, 1, 7, 2, 11, 4};
  point_fold f;
  point_fold_init(&f, &pt, 0, NULL, 1);
  fold_batches(&f, in, FRAMES, cuts, sizeof cuts / sizeof *cuts);
  tally t;
  point_fold_total(&f, &t);
  CHECK(t.frames == FRAMES && !strcmp(f.stop ? f.stop : "", "max_bits"), "N = %llu: folded %llu frames, stop %s",
        (unsigned long long)N, (unsigned long long)t.frames, f.stop ? f.stop : "none");
  CHECK(same_sums(&t, &want), "N = %llu, first frame %llu: the fold's squares are not the drops' (sum_sq %.17g, "
        "want %.17g; block_sq %llu, want %llu)", (unsigned long long)N, (unsigned long long)first_frame, t.sum_sq,
        want.sum_sq, (unsigned long long)t.coded.block_sq, (unsigned long long)want.block_sq);
  CHECK(tally_drops(&pt, &t) == want.drops, "N = %llu: %llu drops, want %llu", (unsigned long long)N,
        (unsigned long long)tally_drops(&pt, &t), (unsigned long long)want.drops);

  /* the interval is the batch-means one over the drops, computed here */
  double lo, hi, wlo, whi;
  tally_interval(&pt, &t, 0.95, &lo, &hi);
  const ber_sample s = {t.bits, t.bit_errors, want.drops, want.sum_sq, want.drops};
  ber_interval(&s, 0.95, &wlo, &whi);
  CHECK(lo == wlo && hi == whi, "N = %llu: BER interval [%.10g, %.10g], want [%.10g, %.10g]", (unsigned long long)N,
        lo, hi, wlo, whi);
  tally_bler_interval(&pt, &t, 0.95, &lo, &hi);
  const ber_sample b = {t.coded.blocks, t.coded.block_errors, want.drops, (double)want.block_sq, want.drops};
  ber_interval(&b, 0.95, &wlo, &whi);
  CHECK(lo == wlo && hi == whi, "N = %llu: BLER interval [%.10g, %.10g], want [%.10g, %.10g]", (unsigned long long)N,
        lo, hi, wlo, whi);

  /* a stop that cuts a drop: its frames so far are a unit of their own */
  sim_point cut = fold_point(N, first_frame, FRAMES - 1);
  point_fold_init(&f, &cut, 0, NULL, 1);
  fold_batches(&f, in, FRAMES, cuts, sizeof cuts / sizeof *cuts);
  point_fold_total(&f, &t);
  const ref_sums want_cut = reference(in, &cut, FRAMES - 1, rf);
  CHECK(t.frames == FRAMES - 1 && same_sums(&t, &want_cut), "N = %llu: the sums of a run cut inside a drop",
        (unsigned long long)N);

  /* ahead of the prefix (decide 0, as an MPI rank or a resume's saved
   * chunks), then chunk by chunk from the tallies: the same sums */
  saved sv = {.n = 0};
  point_fold ahead;
  point_fold_init(&ahead, &pt, 0, NULL, 0);
  const work_cost none = {0};
  point_fold_frames(&ahead, in->errors, NULL, in->loss, in->loss_s, in->coded, FRAMES, &none, save_chunk, &sv, NULL);
  point_fold g;
  point_fold_init(&g, &pt, 0, NULL, 1);
  uint64_t folded = 0;
  for (uint64_t k = 0; k < sv.n; k++) {
    const int r = point_fold_chunk(&g, &sv.chunk[k], NULL, NULL);
    if (r == 0) {
      folded += sv.chunk[k].frames;
      continue;
    }
    /* the last chunk (the point's end) by its frames */
    point_fold_frames(&g, in->errors + folded * 2, NULL, in->loss + folded * 2, in->loss_s + folded * GMI_GRID,
                      in->coded + folded, FRAMES - folded, &none, NULL, NULL, NULL);
    folded = FRAMES;
    break;
  }
  tally t2;
  point_fold_total(&g, &t2);
  CHECK(t2.frames == FRAMES && same_sums(&t2, &want), "N = %llu: chunk by chunk from saved tallies, other sums",
        (unsigned long long)N);
  free(in);
}

/* drop_frames 1: the frame-level sums and intervals of before, to the bit. */
static void check_no_drops(void) {
  frames_in *in = calloc(1, sizeof *in);
  make_frames(in, 1);
  sim_point pt = fold_point(1, 0, FRAMES);
  const double rf = (double)link_data_res_per_frame(&pt.p);
  static const uint64_t cuts[] = {5, 2, 9};
  point_fold f;
  point_fold_init(&f, &pt, 0, NULL, 1);
  fold_batches(&f, in, FRAMES, cuts, 3);
  tally t;
  point_fold_total(&f, &t);
  /* the frame-level sums as the fold of before made them, frame by frame */
  double sum_sq = 0, gmi_sq = 0, cb_sq = 0, c_sum = 0, c_gmi = 0, c_cb = 0;
  uint64_t trans_sq = 0, k = 0, off, len;
  chunk_range(&pt, k, &off, &len);
  for (uint64_t i = 0; i < FRAMES; i++) {
    if (i >= off + len) { /* chunk by chunk, as the tallies add up */
      sum_sq += c_sum, gmi_sq += c_gmi, cb_sq += c_cb;
      c_sum = c_gmi = c_cb = 0;
      chunk_range(&pt, ++k, &off, &len);
    }
    const double e = (double)in->errors[i * 2] + in->errors[i * 2 + 1];
    c_sum += e * e;
    double frame_loss = 0.0;
    for (int s = 0; s < 2; s++) frame_loss += ldexp((double)in->loss[i * 2 + (uint64_t)s], -GMI_LOSS_SHIFT);
    frame_loss /= rf;
    c_gmi += frame_loss * frame_loss;
    c_cb += (double)in->coded[i].cb_errors * (double)in->coded[i].cb_errors;
    trans_sq += (uint64_t)in->coded[i].transmissions * in->coded[i].transmissions;
  }
  sum_sq += c_sum, gmi_sq += c_gmi, cb_sq += c_cb;
  CHECK(t.sum_sq == sum_sq && t.gmi_loss_sq == gmi_sq && t.coded.cb_sq == cb_sq && t.coded.transmissions_sq == trans_sq,
        "drop_frames 1: sums other than the frame-level ones");
  CHECK(t.coded.block_sq == t.coded.block_errors && t.coded.harq_sq == t.coded.harq_errors &&
            t.coded.delivered_sq == t.coded.blocks - t.coded.harq_errors,
        "drop_frames 1: a TB's squared count is not its count");
  double lo, hi, wlo, whi;
  tally_interval(&pt, &t, 0.95, &lo, &hi);
  const ber_sample s = {t.bits, t.bit_errors, t.frames, sum_sq, t.frames};
  ber_interval(&s, 0.95, &wlo, &whi);
  CHECK(lo == wlo && hi == whi, "drop_frames 1: BER interval [%.12g, %.12g], the frame-level [%.12g, %.12g]", lo, hi,
        wlo, whi);
  tally_transmissions_interval(&pt, &t, 0.95, &lo, &hi);
  mean_interval((double)t.coded.transmissions, (double)trans_sq, t.coded.blocks, 0.95, &wlo, &whi);
  CHECK(lo == wlo && hi == whi, "drop_frames 1: transmissions interval differs from the frame-level t interval");
  /* and the schedule of before: 2^k frames from frame 2^k - 1 */
  chunk_range(&pt, 5, &off, &len);
  CHECK(off == 31 && len == 32, "drop_frames 1: chunk 5 is frames %llu + %llu, want 31 + 32", (unsigned long long)off,
        (unsigned long long)len);
  free(in);
}

/* ---- honesty on a slowly fading channel ---- */

#define FULL_SEEDS 300
#define RUN_FRAMES 320 /* 40 drops of 8 */
#define DROP 8

static void check_honesty(void) {
  const int seeds = (int)test_scaled(FULL_SEEDS, 60);
  link_params p = lt_params(2, 2, 2, EQ_MMSE, CH_TDL, 10.0);
  p.profile = PDP_TDL_A;
  p.delay_spread = 3.0;
  p.doppler_hz = 10.0; /* f_d x a drop's 8 frames of 320 samples at 1.92 MHz: 0.013 turns */
  p.drop_frames = DROP;
  if (lt_finish(&p)) {
    CHECK(0, "tdl point");
    return;
  }
  char err[512];
  CHECK(!link_params_check(&p, err, sizeof err), "%s", err);
  double *ber = calloc((size_t)seeds, sizeof *ber), *var_drop = calloc((size_t)seeds, sizeof *var_drop),
         *var_frame = calloc((size_t)seeds, sizeof *var_frame);
  double (*ci)[4] = calloc((size_t)seeds, sizeof *ci);
  uint64_t pooled_bits = 0, pooled_errors = 0;
  uint32_t *e = malloc(sizeof(uint32_t) * RUN_FRAMES * 3);
  for (int s = 0; s < seeds; s++) {
    p.seed = 0xd0770000u + (uint64_t)s;
    p.stream_key = link_stream_key(&p);
    backend_options opt;
    memset(&opt, 0, sizeof opt);
    backend *b = backends_create("cpu", &p, &opt, err, sizeof err);
    if (!b) {
      CHECK(0, "backend: %s", err);
      break;
    }
    const uint64_t cap = b->ops->max_frames(b);
    uint32_t *be = malloc(sizeof(uint32_t) * cap * 3);
    batch_result r = {.errors = be, .fallbacks = be + cap * 2};
    for (uint64_t at = 0; at < RUN_FRAMES;) {
      const uint64_t n = RUN_FRAMES - at < cap ? RUN_FRAMES - at : cap;
      if (backend_run(b, at, n, &r)) {
        CHECK(0, "backend_run");
        break;
      }
      memcpy(e + at * 2, be, sizeof(uint32_t) * n * 2);
      at += n;
    }
    free(be);
    backend_destroy(b);
    /* the simulator's fold and interval */
    sim_point pt;
    memset(&pt, 0, sizeof pt);
    pt.p = p;
    pt.max_frames = RUN_FRAMES;
    pt.target_errors = UINT64_MAX;
    point_fold f;
    point_fold_init(&f, &pt, 0, NULL, 1);
    const work_cost none = {0};
    point_fold_frames(&f, e, NULL, NULL, NULL, NULL, RUN_FRAMES, &none, NULL, NULL, NULL);
    tally t;
    point_fold_total(&f, &t);
    tally_interval(&pt, &t, 0.95, &ci[s][0], &ci[s][1]);
    /* independently, from the per-frame counts: per-drop and per-frame
     * batch means of the BER's variance, and the frame-level interval */
    double fsq = 0, dsq = 0, drop = 0;
    for (uint64_t i = 0; i < RUN_FRAMES; i++) {
      const double fe = (double)e[i * 2] + e[i * 2 + 1];
      fsq += fe * fe;
      drop += fe;
      if ((i + 1) % DROP == 0) dsq += drop * drop, drop = 0;
    }
    CHECK(t.sum_sq == dsq, "seed %d: the fold's sum of squares %.17g is not the drops' %.17g", s, t.sum_sq, dsq);
    const ber_sample fs = {t.bits, t.bit_errors, t.frames, fsq, t.frames};
    ber_interval(&fs, 0.95, &ci[s][2], &ci[s][3]);
    const double E = (double)t.bit_errors, B = (double)t.bits, nd = RUN_FRAMES / DROP, nf = RUN_FRAMES;
    var_drop[s] = (dsq - E * E / nd) / (nd - 1.0) / nd / ((B / nd) * (B / nd));
    var_frame[s] = (fsq - E * E / nf) / (nf - 1.0) / nf / ((B / nf) * (B / nf));
    ber[s] = E / B;
    pooled_bits += t.bits;
    pooled_errors += t.bit_errors;
  }
  free(e);
  /* the truth: the pooled BER (seeds times one run's data) */
  const double truth = (double)pooled_errors / (double)pooled_bits;
  double mean = 0, m2 = 0, vd = 0, vf = 0;
  int cover_drop = 0, cover_frame = 0;
  for (int s = 0; s < seeds; s++) {
    mean += ber[s];
    vd += var_drop[s];
    vf += var_frame[s];
    cover_drop += ci[s][0] <= truth && truth <= ci[s][1];
    cover_frame += ci[s][2] <= truth && truth <= ci[s][3];
  }
  mean /= seeds;
  vd /= seeds;
  vf /= seeds;
  for (int s = 0; s < seeds; s++) m2 += (ber[s] - mean) * (ber[s] - mean);
  const double v_emp = m2 / (seeds - 1.0);
  const double r_drop = v_emp / vd, r_frame = v_emp / vf;
  const double c_drop = (double)cover_drop / seeds, c_frame = (double)cover_frame / seeds;
  printf("tdl-a 2x2 qpsk mmse 10 dB, drops of %d at 10 Hz, %d frames a run, %d seeds: BER %.4e\n", DROP, RUN_FRAMES,
         seeds, truth);
  printf("  spread of the runs' BER over the variance each run estimates: drops %.3f, frames %.3f\n", r_drop, r_frame);
  printf("  coverage of the pooled BER: drop-level interval %.3f, frame-level %.3f\n", c_drop, c_frame);
  /* The bound: the runs are independent, so (seeds - 1) v_emp / v is about
   * chi-square with seeds - 1 degrees of freedom when the estimated
   * variance is right: sd(v_emp / v) = sqrt(2 / (seeds - 1)), 0.082 at 300
   * seeds; the per-run estimates average over seeds too (each from 40
   * drops: their mean's relative sd about sqrt(2 / 39 / seeds), 0.013). A
   * band of 4 sd each side, 0.33 at 300 seeds (widened as 1/sqrt(seeds)
   * when scaled down), leaves no room for the frame-level variance, which
   * is low by the drop's design effect (about 8 when the channel holds over
   * a drop and the channel, not the noise, decides the errors). */
  const double band = 4.0 * sqrt(2.0 / (seeds - 1.0));
  CHECK(fabs(r_drop - 1.0) <= band, "the drop-level variance is not the spread of the runs: ratio %.3f outside 1 +- %.3f",
        r_drop, band);
  CHECK(r_frame >= 1.0 + 2.0 * band && r_frame >= 2.0,
        "the frame-level variance is not measurably too small: ratio %.3f (want >= %.3f)", r_frame,
        fmax(2.0, 1.0 + 2.0 * band));
  /* Coverage: binomial over seeds, sd sqrt(0.95 0.05 / seeds) = 0.0126 at
   * 300; the drop-level interval within 4 sd of 95% (a t interval over 40
   * drops of skewed counts may lean a little either way), the frame-level
   * one below 95% by more than 4 sd. */
  const double cband = 4.0 * sqrt(0.95 * 0.05 / seeds);
  CHECK(fabs(c_drop - 0.95) <= cband, "drop-level coverage %.3f outside 0.95 +- %.3f", c_drop, cband);
  CHECK(c_frame < 0.95 - cband, "frame-level coverage %.3f not measurably below 0.95 (- %.3f)", c_frame, cband);
  free(ber);
  free(var_drop);
  free(var_frame);
  free(ci);
}

int main(void) {
  check_schedule();
  check_fold(5, 0);
  check_fold(5, 35);
  check_fold(1, 0);
  check_no_drops();
  check_honesty();
  return test_finish("test_drop_intervals");
}
