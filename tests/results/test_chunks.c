/* The chunk schedule (results/chunks.h): chunks tile a point's frames with
 * no gap, their lengths grow past the cap by doubling every
 * CHUNK_STEP_CHUNKS chunks up to the ceiling, chunk_of inverts chunk_range,
 * the schedule is a function of the point and the chunk index alone (so a
 * resumed run, replaying the journal's chunks, cuts where an uninterrupted
 * one does), a kill -9 loses a bounded share, and the journal's line rate at
 * a simulated 100 Gbit/s is bounded (computed from the schedule, not timed). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/chunks.h"
#include "testparams.h"
#include "testutil.h"

/* A point of tx x tx antennas, bps bits a symbol, K subcarriers x 14 symbols. */
static sim_point point_of(int tx, int bps, int K, double max_bits) {
  sim_point pt;
  memset(&pt, 0, sizeof pt);
  pt.p = tp_point(tx, tx, bps, CH_RAYLEIGH, K, 14, 0);
  pt.max_bits = max_bits;
  pt.max_frames = point_max_frames(&pt);
  pt.target_errors = 1000;
  pt.point_key = 42;
  return pt;
}

static uint64_t umax(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Tiling, growth, inversion and the loss bound over the first n chunks. */
static void check_schedule(const sim_point *pt, uint64_t n) {
  const uint64_t cap = chunk_cap(pt), top = chunk_ceiling(pt);
  const uint64_t bpf = link_bits_per_frame(&pt->p);
  CHECK((cap & (cap - 1)) == 0 && (top & (top - 1)) == 0 && top >= cap, "cap %llu, ceiling %llu: powers of two",
        (unsigned long long)cap, (unsigned long long)top);
  CHECK(cap * bpf <= (1ull << 26) && 2 * cap * bpf > (1ull << 26), "the cap is the largest under 2^26 bits");
  CHECK(top * bpf <= (1ull << 33) && (top == cap || 2 * top * bpf > (1ull << 33) || top == (1ull << 22)),
        "the ceiling is the largest under 2^33 bits (or 2^22 frames)");
  uint64_t next = 0, prev_len = 0, at_len = 0, seen_top = 0;
  int ok_tile = 1, ok_inv = 1, ok_grow = 1, ok_loss = 1;
  for (uint64_t k = 0; k < n; k++) {
    uint64_t off, len;
    chunk_range(pt, k, &off, &len);
    ok_tile &= off == next && len >= 1;
    ok_inv &= chunk_of(pt, off) == k && chunk_of(pt, off + len - 1) == k;
    /* the growing chunks double; past the cap a length holds for
     * CHUNK_STEP_CHUNKS chunks, then doubles, up to the ceiling */
    if (len < cap) {
      ok_grow &= len == (1ull << k);
    } else if (k > 0 && len == prev_len) {
      ok_grow &= ++at_len < CHUNK_STEP_CHUNKS || len == top;
    } else {
      /* a new length: the cap after the growing chunks, else twice the last
       * after CHUNK_STEP_CHUNKS of it */
      if (len > cap) ok_grow &= len == 2 * prev_len && at_len == CHUNK_STEP_CHUNKS - 1;
      at_len = 0;
    }
    ok_grow &= len <= top;
    /* the chunk under way (what a kill -9 loses) is never longer than the
     * cap or a quarter of the frames before it */
    ok_loss &= len <= umax(cap, 2 * off / CHUNK_STEP_CHUNKS);
    seen_top |= len == top;
    prev_len = len;
    next = off + len;
  }
  CHECK(ok_tile, "chunks tile the frames (bpf %llu)", (unsigned long long)bpf);
  CHECK(ok_inv, "chunk_of inverts chunk_range (bpf %llu)", (unsigned long long)bpf);
  CHECK(ok_grow, "lengths double every %d chunks from the cap to the ceiling (bpf %llu)", CHUNK_STEP_CHUNKS,
        (unsigned long long)bpf);
  CHECK(ok_loss, "a chunk holds at most max(cap, 2/%d of the frames before it) (bpf %llu)", CHUNK_STEP_CHUNKS,
        (unsigned long long)bpf);
  CHECK(seen_top, "the ceiling is reached within %llu chunks (bpf %llu)", (unsigned long long)n,
        (unsigned long long)bpf);
}

/* The cut a run makes depends on the point alone: a run that replays the
 * chunks 0 .. r-1 from its journal (their frames are what the journal
 * holds) and goes on from chunk r cuts at the very offsets of one that ran
 * from the start, whatever r. Here the "resumed" run derives its next chunk
 * from the journaled frames alone (chunk_of of their sum), never from the
 * uninterrupted run's index. */
static void check_resume_cuts(const sim_point *pt) {
  uint64_t whole[200];
  for (uint64_t k = 0; k < 200; k++) {
    uint64_t len;
    chunk_range(pt, k, &whole[k], &len);
  }
  int ok = 1;
  for (uint64_t r = 0; r < 200; r += 7) {
    uint64_t journaled = 0; /* frames the journal's r chunks hold */
    for (uint64_t k = 0; k < r; k++) {
      uint64_t o, len;
      chunk_range(pt, k, &o, &len);
      journaled += len;
    }
    uint64_t k = chunk_of(pt, journaled), off, len;
    chunk_range(pt, k, &off, &len);
    ok &= k == r && off == journaled;
    for (; k < 200; k++) {
      chunk_range(pt, k, &off, &len);
      ok &= off == whole[k];
    }
  }
  CHECK(ok, "a run resumed after any number of journaled chunks cuts where the uninterrupted one does");
}

/* Journal lines a point writes at `bps` bits a second: in its first second,
 * and per second once at the ceiling (from the schedule: chunks closed by
 * time t are those whose end is at most t * bps / bpf frames). */
static void check_line_rate(const sim_point *pt, double bits_per_s) {
  const uint64_t bpf = link_bits_per_frame(&pt->p);
  const double frames_per_s = bits_per_s / (double)bpf;
  uint64_t k = 0, off, len;
  uint64_t first_second = 0;
  for (;; k++) {
    chunk_range(pt, k, &off, &len);
    if ((double)(off + len) > frames_per_s) break;
    first_second++;
  }
  /* the old schedule (the cap for ever) wrote frames_per_s / cap lines a second */
  const double old_rate = frames_per_s / (double)chunk_cap(pt);
  const double steady = frames_per_s / (double)chunk_ceiling(pt);
  /* in the first second: the growing chunks (log2 cap), CHUNK_STEP_CHUNKS
   * per doubling (log2(ceiling/cap)), and the rest at the ceiling */
  const double growing = log2((double)chunk_cap(pt)), steps = log2((double)chunk_ceiling(pt) / chunk_cap(pt));
  const double bound1 = growing + CHUNK_STEP_CHUNKS * steps + steady;
  printf("bpf %llu at %.0f Gbit/s: %llu lines in the first second (bound %.0f), %.1f a second at the ceiling "
         "(cap for ever: %.0f)\n",
         (unsigned long long)bpf, bits_per_s * 1e-9, (unsigned long long)first_second, bound1, steady, old_rate);
  CHECK((double)first_second <= bound1, "first second: %llu lines <= %.0f", (unsigned long long)first_second,
        bound1);
  if (bpf >= 1024) CHECK(steady <= 24.0, "at the ceiling at most 24 lines a second (%.1f)", steady);
  CHECK(steady * 50 <= old_rate || chunk_ceiling(pt) == (1ull << 22), "at least 50x fewer lines than the cap's");
}

int main(void) {
  /* 2x2 QPSK on 1024 x 14 (the benchmark's frame), 4x4 16-QAM, a small
   * frame (test_resume's 512 bits are 2x2 QPSK on 64 x 2), BPSK 1x1 on 12
   * subcarriers (168 bits: the 2^22-frame limit binds) */
  const sim_point pts[] = {point_of(2, 2, 1024, 1e15), point_of(4, 4, 1024, 1e15), point_of(1, 2, 18, 1e15),
                           point_of(1, 1, 12, 1e15)};
  for (size_t i = 0; i < sizeof pts / sizeof *pts; i++) {
    check_schedule(&pts[i], 400);
    check_resume_cuts(&pts[i]);
    check_line_rate(&pts[i], 100e9);
  }
  /* the 2^22-frame limit: no chunk longer than a work unit's most */
  CHECK(chunk_ceiling(&pts[3]) == (1ull << 22), "small frames: the ceiling is 2^22 frames (%llu)",
        (unsigned long long)chunk_ceiling(&pts[3]));

  /* Determinism: the schedule is a function of the point; two separately
   * made copies agree chunk by chunk, and the work key tells a point whose
   * chunks grow from the same point cut short of the growth. */
  sim_point a = point_of(2, 2, 1024, 1e12), b = point_of(2, 2, 1024, 1e12);
  int same = 1;
  for (uint64_t k = 0; k < 300; k++) {
    uint64_t oa, la, ob, lb;
    chunk_range(&a, k, &oa, &la);
    chunk_range(&b, k, &ob, &lb);
    same &= oa == ob && la == lb;
  }
  CHECK(same && point_work_key(&a) == point_work_key(&b), "equal points: equal chunks and work keys");
  /* the first chunk longer than the cap starts at frame cap - 1 + 8 cap */
  const uint64_t cap = chunk_cap(&a), diverge = cap - 1 + CHUNK_STEP_CHUNKS * cap;
  sim_point short_pt = point_of(2, 2, 1024, (double)(diverge * link_bits_per_frame(&a.p)));
  sim_point long_pt = point_of(2, 2, 1024, (double)((diverge + 1) * link_bits_per_frame(&a.p)));
  CHECK(!chunk_schedule_grows(&short_pt) && chunk_schedule_grows(&long_pt),
        "the growth shows from frame %llu on", (unsigned long long)diverge);
  {
    uint64_t off, len;
    chunk_range(&a, chunk_of(&a, diverge), &off, &len);
    CHECK(off == diverge && len == 2 * cap, "frame %llu starts the first chunk of twice the cap",
          (unsigned long long)diverge);
    chunk_range(&a, chunk_of(&a, diverge - 1), &off, &len);
    CHECK(len == cap, "the chunk before it is at the cap, as before the growth");
  }
  CHECK(point_work_key(&short_pt) != point_work_key(&long_pt), "growing and short points have distinct keys");
  return test_finish("test_chunks");
}
