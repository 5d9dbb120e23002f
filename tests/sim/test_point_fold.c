/* The fold of a point (sim/point_fold.h) is what makes a run's counts
 * independent of who computed its frames: folded in any batch split, or
 * chunk tallies computed ahead and folded later, the same chunks, stop and
 * totals come out, bit for bit. Also the per-frame codec the MPI engine
 * ships frames with (results/frame_codec.h), and the journal's chunks saved
 * ahead of their prefix (results/journal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linktest.h"
#include "results/frame_codec.h"
#include "results/journal.h"
#include "sim/point_fold.h"
#include "testutil.h"

#define FRAMES 3000

typedef struct seen {
  tally chunks[64];
  const char *stops[64];
  uint64_t ks[64];
  int n;
} seen;

static int keep(void *ctx, uint64_t k, const tally *t, const char *stop) {
  seen *s = ctx;
  if (s->n < 64) {
    s->chunks[s->n] = *t;
    s->stops[s->n] = stop;
    s->ks[s->n] = k;
  }
  s->n++;
  return 0;
}

static sim_point point(uint64_t target, double max_bits, uint64_t min_frames, double precision) {
  sim_point pt;
  memset(&pt, 0, sizeof pt);
  pt.p = lt_params(2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 10.0);
  pt.p.subcarriers = 12;
  pt.p.symbols = 1;
  lt_finish(&pt.p);
  pt.target_errors = target;
  pt.max_bits = max_bits;
  pt.min_frames = min_frames;
  pt.target_precision = precision;
  pt.max_frames = point_max_frames(&pt);
  pt.point_key = 42;
  return pt;
}

static uint32_t errs[FRAMES * 2], falls[FRAMES];
static uint64_t losses[FRAMES * 2]; /* GMI losses, 2^-GMI_LOSS_SHIFT bits */
static uint64_t grid[FRAMES * GMI_GRID]; /* ... at the GMI grid's scalings */

/* Sparse random counts: most frames clean, some with errors or fallbacks. */
static void make_frames(uint64_t seed) {
  test_rng_seed(seed);
  for (int i = 0; i < FRAMES; i++) {
    const double u = test_rng_u01();
    for (int s = 0; s < 2; s++) errs[2 * i + s] = u < 0.3 ? (uint32_t)(test_rng_u64() % 9) : 0;
    falls[i] = test_rng_u01() < 0.02 ? (uint32_t)(1 + test_rng_u64() % 3) : 0;
    for (int s = 0; s < 2; s++) losses[2 * i + s] = test_rng_u01() < 0.5 ? test_rng_u64() >> (20 + i % 40) : 0;
    for (int k = 0; k < GMI_GRID; k++) grid[GMI_GRID * i + k] = test_rng_u01() < 0.7 ? test_rng_u64() >> (20 + (i + k) % 40) : 0;
    grid[GMI_GRID * i + GMI_GRID_S1] = losses[2 * i] + losses[2 * i + 1]; /* as a backend gives it */
  }
}

static int same_tally(const tally *a, const tally *b) {
  return a->frames == b->frames && a->bits == b->bits && a->bit_errors == b->bit_errors &&
         a->fallbacks == b->fallbacks && a->sum_sq == b->sum_sq && a->stream_errors[0] == b->stream_errors[0] &&
         a->stream_errors[1] == b->stream_errors[1] && a->gmi_loss[0] == b->gmi_loss[0] &&
         a->gmi_loss[1] == b->gmi_loss[1] && a->gmi_loss_sq == b->gmi_loss_sq &&
         !memcmp(a->gmi_loss_s, b->gmi_loss_s, sizeof a->gmi_loss_s) &&
         !memcmp(a->gmi_loss_s_sq, b->gmi_loss_s_sq, sizeof a->gmi_loss_s_sq);
}

/* Folds the frames in batches of random sizes; the totals and chunks seen. */
static void fold_split(const sim_point *pt, uint64_t seed, tally *total, seen *s, const char **stop) {
  point_fold f;
  point_fold_init(&f, pt, 0, NULL, 1);
  memset(s, 0, sizeof *s);
  test_rng_seed(seed);
  const work_cost cost = {.seconds = 1.0, .inversions = 1000};
  while (!f.stop && f.off < FRAMES) {
    uint64_t n = seed ? 1 + test_rng_u64() % 200 : FRAMES;
    if (n > FRAMES - f.off) n = FRAMES - f.off;
    if (n > f.end - f.off) n = f.end - f.off;
    point_fold_frames(&f, errs + 2 * f.off, falls + f.off, losses + 2 * f.off, grid + GMI_GRID * f.off, NULL, n,
                      &cost, keep, s, NULL);
  }
  point_fold_total(&f, total);
  *stop = f.stop;
}

/* The chunks of the point computed ahead, one unit each (decide = 0), then
 * folded by their tallies alone: 0 when every decision could be made without
 * the frames and matched the frame fold; 1 when one could not. */
static int fold_by_tallies(const sim_point *pt, const tally *want, const char *want_stop) {
  point_fold f;
  point_fold_init(&f, pt, 0, NULL, 1);
  const work_cost cost = {0};
  while (!f.stop) {
    const uint64_t k = f.k, len = point_chunk_frames(pt, k);
    point_fold ahead;
    point_fold_init(&ahead, pt, k, NULL, 0);
    seen one = {0};
    point_fold_frames(&ahead, errs + 2 * ahead.off, falls + ahead.off, losses + 2 * ahead.off,
                      grid + GMI_GRID * ahead.off, NULL, len, &cost, keep, &one, NULL);
    CHECK(one.n == 1 && one.ks[0] == k && one.stops[0] == NULL && one.chunks[0].frames == len,
          "ahead: chunk %llu closes once, undecided", (unsigned long long)k);
    const int rc = point_fold_chunk(&f, &one.chunks[0], NULL, NULL);
    if (rc == 1) return 1;
    CHECK(rc == 0, "point_fold_chunk: %d", rc);
    if (rc) return 1;
  }
  tally got;
  point_fold_total(&f, &got);
  CHECK(same_tally(&got, want) && !strcmp(f.stop, want_stop), "tallies folded = frames folded (%llu errors)",
        (unsigned long long)got.bit_errors);
  return 0;
}

static void test_fold(void) {
  make_frames(7);
  const sim_point probe = point(1, 1, 1, 0);
  const uint64_t bpf = link_bits_per_frame(&probe.p);
  const struct {
    uint64_t target;
    double max_frames;
    uint64_t min_frames;
    double precision;
    const char *stop;
  } cases[] = {
      {500, 2000, 1, 0, "target_errors"},    /* stops inside a chunk */
      {1u << 30, 1500, 1, 0, "max_bits"},     /* runs to the last frame, off a chunk boundary */
      {3, 2000, 700, 0, "target_errors"},     /* min_frames holds it back */
      {1u << 30, 2900, 30, 0.2, "target_precision"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    const sim_point pt = point(cases[c].target, cases[c].max_frames * (double)bpf, cases[c].min_frames,
                               cases[c].precision);
    tally whole, split;
    seen a, b;
    const char *stop_a, *stop_b;
    fold_split(&pt, 0, &whole, &a, &stop_a);
    CHECK(stop_a && !strcmp(stop_a, cases[c].stop), "case %zu stops by %s (got %s)", c, cases[c].stop,
          stop_a ? stop_a : "nothing");
    for (uint64_t seed = 1; seed <= 20; seed++) {
      fold_split(&pt, seed, &split, &b, &stop_b);
      int same = a.n == b.n && stop_a == stop_b && same_tally(&whole, &split);
      for (int i = 0; same && i < a.n && i < 64; i++)
        same = a.ks[i] == b.ks[i] && a.stops[i] == b.stops[i] && same_tally(&a.chunks[i], &b.chunks[i]);
      CHECK(same, "case %zu: batch split %llu gives the one-batch chunks and totals", c,
            (unsigned long long)seed);
    }
    /* Each closed chunk but the last is full; the last ends at the stop. */
    uint64_t frames = 0;
    for (int i = 0; i < a.n && i < 64; i++) {
      uint64_t off, len;
      chunk_range(&pt, a.ks[i], &off, &len);
      CHECK(off == frames && (i == a.n - 1 ? a.chunks[i].frames <= len : a.chunks[i].frames == len),
            "case %zu: chunk %d covers its range", c, i);
      frames += a.chunks[i].frames;
    }
    CHECK(frames == whole.frames, "case %zu: the chunks sum to the total", c);
    /* the grid's s = 1 sums are the streams' losses summed, to the bit */
    CHECK(whole.gmi_loss_s_sq[GMI_GRID_S1] == whole.gmi_loss_sq && whole.gmi_loss_s[GMI_GRID_S1] > 0,
          "case %zu: the grid's s = 1 sum of squares is gmi_loss_sq exactly", c);
    CHECK(fabs(whole.gmi_loss_s[GMI_GRID_S1] - (whole.gmi_loss[0] + whole.gmi_loss[1])) <=
              1e-15 * whole.gmi_loss_s[GMI_GRID_S1],
          "case %zu: the grid's s = 1 loss is the streams' sum", c);
    const int undecidable = fold_by_tallies(&pt, &whole, stop_a);
    /* Only target_errors inside a chunk, or a precision rule, needs the frames. */
    CHECK(undecidable == (c != 1), "case %zu: decided by tallies alone: %s", c, undecidable ? "no" : "yes");
  }
}

static void test_codec(void) {
  make_frames(11);
  static uint8_t buf[FRAMES * 40];
  static uint8_t soft[FRAMES * (64 + 10 * GMI_GRID)];
  static uint32_t e2[FRAMES * 2], f2[FRAMES];
  static uint64_t l2[FRAMES * 2], g2[FRAMES * GMI_GRID];
  const size_t len = frame_encode(errs, falls, NULL, NULL, FRAMES, 2, buf);
  CHECK(len <= frame_encoded_max(FRAMES, 2), "within the bound");
  CHECK(len < FRAMES * 3, "sparse frames take little room (%zu bytes for %d frames)", len, FRAMES);
  CHECK(frame_decode(buf, len, FRAMES, 2, e2, f2, NULL, NULL) == 0, "decodes");
  CHECK(!memcmp(errs, e2, sizeof errs) && !memcmp(falls, f2, sizeof falls), "round trip");
  CHECK(frame_decode(buf, len - 1, FRAMES, 2, e2, f2, NULL, NULL) == -1, "a short buffer is refused");
  CHECK(frame_decode(buf, len, FRAMES - 1, 2, e2, f2, NULL, NULL) == -1,
        "a frame count that does not fit is refused");
  uint32_t big[3] = {0xffffffffu, 7, 0x80000000u};
  uint32_t got[3];
  const size_t n = frame_encode(big, big + 2, NULL, NULL, 1, 2, buf);
  CHECK(frame_decode(buf, n, 1, 2, got, got + 2, NULL, NULL) == 0 && !memcmp(big, got, sizeof got),
        "32-bit counts");
  CHECK(frame_encode(errs, NULL, NULL, NULL, 0, 2, buf) == 0 &&
            frame_decode(buf, 0, 0, 2, e2, f2, NULL, NULL) == 0,
        "no frames");
  /* with GMI losses (64-bit) and the GMI grid's beside the counts */
  const size_t sl = frame_encode(errs, falls, losses, grid, FRAMES, 2, soft);
  CHECK(sl <= frame_encoded_max(FRAMES, 2), "with losses: within the bound");
  CHECK(frame_decode(soft, sl, FRAMES, 2, e2, f2, l2, g2) == 0 && !memcmp(errs, e2, sizeof errs) &&
            !memcmp(falls, f2, sizeof falls) && !memcmp(losses, l2, sizeof losses) && !memcmp(grid, g2, sizeof grid),
        "with losses: round trip");
  CHECK(frame_decode(soft, sl, FRAMES, 2, e2, f2, NULL, NULL) == -1, "losses the decoder does not expect are refused");
  const uint64_t top[2] = {UINT64_MAX, 1};
  uint64_t top_grid[GMI_GRID], top2[2], top_grid2[GMI_GRID];
  for (int k = 0; k < GMI_GRID; k++) top_grid[k] = UINT64_MAX - (uint64_t)k;
  const size_t tn = frame_encode(big, big + 2, top, top_grid, 1, 2, soft);
  CHECK(tn <= frame_encoded_max(1, 2), "the largest frame within the bound");
  CHECK(frame_decode(soft, tn, 1, 2, got, got + 2, top2, top_grid2) == 0 && !memcmp(top, top2, sizeof top) &&
            !memcmp(top_grid, top_grid2, sizeof top_grid),
        "64-bit losses");
  /* the coded link's TBs, ahead of the frames' bytes as the MPI engine sends them */
  static frame_coded tb[FRAMES], tb2[FRAMES];
  for (int i = 0; i < FRAMES; i++)
    tb[i] = (frame_coded){.tb_error = (uint32_t)(i % 3 == 0), .cbs = 3, .cb_errors = (uint32_t)(i % 3 == 0) * (uint32_t)(i % 4),
                          .info_errors = (uint32_t)i * 7u, .iterations = 3 + (uint32_t)i % 17};
  tb[1].iterations = 0xffffffffu;
  const size_t cl = coded_encode(tb, FRAMES, soft);
  CHECK(cl <= coded_encoded_max(FRAMES), "TBs: within the bound");
  const size_t fl = frame_encode(errs, falls, NULL, NULL, FRAMES, 2, soft + cl);
  const long long used = coded_decode(soft, cl + fl, FRAMES, tb2);
  CHECK(used == (long long)cl && !memcmp(tb, tb2, sizeof tb), "TBs: round trip, their length told");
  CHECK(frame_decode(soft + used, fl, FRAMES, 2, e2, f2, NULL, NULL) == 0 && !memcmp(errs, e2, sizeof errs),
        "TBs: the frames' bytes follow");
  CHECK(coded_decode(soft, cl - 1, FRAMES, tb2) == -1, "TBs: a short buffer is refused");
  tb[0].cb_errors = tb[0].cbs + 1;
  CHECK(coded_decode(soft, coded_encode(tb, 1, soft), 1, tb2) == -1, "TBs: more CB errors than CBs are refused");
}

static journal_record rec(uint64_t k, const char *stop, uint64_t errors) {
  journal_record r = {.point = 0, .work_key = 9, .point_key = 42, .chunk = k, .tx = 1};
  r.n.frames = 1;
  r.n.bits = 100;
  r.n.bit_errors = r.n.stream_errors[0] = errors;
  snprintf(r.stop, sizeof r.stop, "%s", stop);
  snprintf(r.backend, sizeof r.backend, "cpu");
  return r;
}

static void test_journal_ahead(void) {
  char path[] = "/tmp/ofdmsim-test-journal-XXXXXX";
  const int fd = mkstemp(path);
  close(fd);
  char err[600] = "";
  journal *j = journal_create(path, err, sizeof err);
  CHECK(j != NULL, "create: %s", err);
  if (!j) return;
  const journal_record lines[] = {rec(0, "more", 1), rec(3, "ahead", 4), rec(1, "ahead", 2), rec(2, "ahead", 3),
                                  rec(1, "more", 2), rec(3, "ahead", 5)};
  for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) journal_append(j, &lines[i]);
  journal_close(j);
  j = journal_resume(path, err, sizeof err);
  CHECK(j != NULL, "resume: %s", err);
  if (!j) return;
  const journal_record *out;
  size_t decided = 99;
  const long m = journal_chunks(j, 9, &out, &decided, err, sizeof err);
  CHECK(m == 4 && decided == 2, "decided 0, 1 then ahead 2, 3 (got %ld, %zu)", m, decided);
  if (m == 4)
    CHECK(out[1].chunk == 1 && !strcmp(out[1].stop, "more") && out[2].chunk == 2 && out[3].chunk == 3 &&
              out[3].n.bit_errors == 5,
          "the decided copy of chunk 1 stands; the last ahead copy of chunk 3");
  journal_close(j);

  /* the point ended in chunk 1: the chunks ahead of it are dropped */
  j = journal_create(path, err, sizeof err);
  const journal_record ended[] = {rec(0, "more", 1), rec(2, "ahead", 1), rec(1, "target_errors", 1)};
  for (size_t i = 0; i < 3; i++) journal_append(j, &ended[i]);
  journal_close(j);
  j = journal_resume(path, err, sizeof err);
  CHECK(j && journal_chunks(j, 9, &out, &decided, err, sizeof err) == 2 && decided == 2,
        "an ended point has no chunk ahead");
  journal_close(j);

  /* a decided chunk with a gap before it is damage, ahead ones are not */
  j = journal_create(path, err, sizeof err);
  const journal_record gap[] = {rec(0, "more", 1), rec(2, "more", 1)};
  for (size_t i = 0; i < 2; i++) journal_append(j, &gap[i]);
  journal_close(j);
  j = journal_resume(path, err, sizeof err);
  CHECK(j && journal_chunks(j, 9, &out, &decided, err, sizeof err) == -1 && strstr(err, ":3: chunk 2") &&
            strstr(err, "has no chunk before it"),
        "a gap before a decided chunk: %s", err);
  journal_close(j);
  unlink(path);
}

int main(void) {
  test_fold();
  test_codec();
  test_journal_ahead();
  return test_finish("test_point_fold");
}
