/* The frame-by-frame fold of a point's counts (point_fold.h). */
#include "sim/point_fold.h"

#include <math.h>
#include <string.h>

void point_fold_init(point_fold *f, const sim_point *pt, uint64_t k, const tally *done, int decide) {
  memset(f, 0, sizeof *f);
  f->pt = pt;
  if (done) f->tot = *done;
  f->k = k;
  chunk_range(pt, k, &f->chunk_off, &f->chunk_len);
  f->off = f->chunk_off;
  f->end = pt->max_frames ? pt->max_frames : point_max_frames(pt);
  f->decide = decide;
  f->drop = link_drop_frames(&pt->p);
}

uint64_t point_chunk_frames(const sim_point *pt, uint64_t k) {
  uint64_t off, len;
  chunk_range(pt, k, &off, &len);
  const uint64_t end = pt->max_frames ? pt->max_frames : point_max_frames(pt);
  if (off >= end) return 0;
  return len < end - off ? len : end - off;
}

/* Adds to a the share of frames [from, from + frames) of n in their cost: the
 * inversions split exactly, the times in proportion. */
static void add_share(tally *a, const work_cost *c, uint64_t from, uint64_t frames, uint64_t n) {
  const unsigned __int128 inv = c->inversions;
  a->inversions += (uint64_t)(inv * (from + frames) / n - inv * from / n);
  const double w = (double)frames / (double)n;
  a->seconds += c->seconds * w;
  stage_times_add(&a->t, &c->t, w);
}

/* Closes the chunk under way (stop: the rule that ended the point in it). */
static int close_chunk(point_fold *f, const char *stop, chunk_sink sink, void *ctx) {
  tally_close_drop(&f->cur, &f->pend, link_data_res_per_frame(&f->pt->p));
  const int rc = sink ? sink(ctx, f->k, &f->cur, stop) : 0;
  tally_add(&f->tot, &f->cur, f->pt->p.tx);
  memset(&f->cur, 0, sizeof f->cur);
  chunk_range(f->pt, ++f->k, &f->chunk_off, &f->chunk_len);
  if (stop) f->stop = stop;
  return rc;
}

int point_fold_frames(point_fold *f, const uint32_t *errors, const uint32_t *fallbacks,
                      const uint64_t *gmi_loss, const uint64_t *gmi_loss_s, const frame_coded *coded,
                      uint64_t n,
                      const work_cost *cost, chunk_sink sink, void *ctx, uint64_t *used) {
  const sim_point *pt = f->pt;
  const int tx = pt->p.tx;
  const uint64_t bpf = link_bits_per_frame(&pt->p);
  const uint64_t rf = link_data_res_per_frame(&pt->p); /* the REs the losses are over */
  uint64_t seg = 0; /* the first frame not yet in a chunk's cost */
  uint64_t i = 0;
  int rc = 0;
  for (; i < n && !f->stop; i++) {
    tally *c = &f->cur;
    drop_sums *d = &f->pend;
    uint64_t frame_errors = 0;
    for (int s = 0; s < tx; s++) {
      const uint32_t e = errors[i * (uint64_t)tx + (uint64_t)s];
      c->stream_errors[s] += e;
      frame_errors += e;
    }
    c->bit_errors += frame_errors;
    d->errors += frame_errors;
    if (fallbacks) c->fallbacks += fallbacks[i];
    if (gmi_loss) {
      double frame_loss = 0.0;
      for (int s = 0; s < tx; s++) {
        const double l = ldexp((double)gmi_loss[i * (uint64_t)tx + (uint64_t)s], -GMI_LOSS_SHIFT);
        c->gmi_loss[s] += l;
        frame_loss += l;
      }
      d->gmi_loss += frame_loss;
    }
    if (gmi_loss_s)
      for (int k = 0; k < GMI_GRID; k++) {
        /* as above, the frame's loss over its streams at scaling k (at k =
         * GMI_GRID_S1 the very frame_loss above: the same integers) */
        const double l = ldexp((double)gmi_loss_s[i * GMI_GRID + (uint64_t)k], -GMI_LOSS_SHIFT);
        c->gmi_loss_s[k] += l;
        d->gmi_loss_s[k] += l;
      }
    if (coded) tally_coded_frame(&c->coded, d, &coded[i], (uint64_t)pt->p.code.tbs);
    c->bits += bpf;
    c->frames++;
    d->frames++;
    f->off++;
    /* a whole drop (every frame, without drops): its squares are the unit's */
    if ((pt->first_frame + f->off) % f->drop == 0) tally_close_drop(c, d, rf);
    /* the rules see the ordered prefix: the closed chunks, then this one,
     * the drop under way closed as a stop here would close it */
    const char *stop = NULL;
    if (f->decide) {
      tally view = {.frames = f->tot.frames + c->frames, .bits = f->tot.bits + c->bits,
                          .bit_errors = f->tot.bit_errors + c->bit_errors, .sum_sq = f->tot.sum_sq + c->sum_sq,
                          .coded = f->tot.coded};
      tally_coded_add(&view.coded, &c->coded);
      if (d->frames) {
        drop_sums open = *d;
        tally_close_drop(&view, &open, rf);
      }
      stop = chunk_stop_rule(pt, &view);
    }
    if (!stop && f->off < f->chunk_off + f->chunk_len && f->off < f->end) continue;
    /* frames computed past the stop were computed for nothing: their cost is the point's */
    const uint64_t last = stop ? n : i + 1;
    add_share(c, cost, seg, last - seg, n);
    seg = last;
    const int r = close_chunk(f, stop, sink, ctx);
    if (r && !rc) rc = r;
  }
  if (seg < n && !f->stop) add_share(&f->cur, cost, seg, n - seg, n);
  if (used) *used = i;
  return rc;
}

int point_fold_chunk(point_fold *f, const tally *chunk, chunk_sink sink, void *ctx) {
  const sim_point *pt = f->pt;
  if (f->cur.frames || chunk->frames != point_chunk_frames(pt, f->k)) return -1;
  /* The precision rule may hold inside a chunk and fail at its end. */
  if (pt->target_precision > 0.0) return 1;
  tally view = f->tot;
  tally_add(&view, chunk, pt->p.tx);
  const char *stop = chunk_stop_rule(pt, &view);
  /* target_errors and min_frames only grow frame by frame: if the rule holds
   * at the end, it fired somewhere in the chunk, at a frame only its frames
   * tell. max_bits fires at the point's last frame, which ends the chunk. */
  if (stop && strcmp(stop, "max_bits") && strcmp(stop, "max_blocks")) return 1;
  f->cur = *chunk;
  f->off += chunk->frames;
  const int rc = close_chunk(f, stop, sink, ctx);
  return rc ? rc + 1 : 0;
}

void point_fold_total(const point_fold *f, tally *out) {
  *out = f->tot;
  tally cur = f->cur;
  drop_sums open = f->pend;
  tally_close_drop(&cur, &open, link_data_res_per_frame(&f->pt->p));
  tally_add(out, &cur, f->pt->p.tx);
}
