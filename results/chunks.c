/* Chunk boundaries, tallies and the stopping rules (chunks.h). */
#include "results/chunks.h"

#include <math.h>
#include <string.h>

#include "core/draws.h"
#include "results/stats.h"

/* About this many bits per chunk once the growing ones are done (the
 * chunk cap); then CHUNK_STEP_CHUNKS chunks at each length, doubling it up
 * to the ceiling of about CHUNK_CEILING_BITS (chunks.h says why). */
#define CHUNK_BITS (1ULL << 26)
#define CHUNK_CEILING_BITS (1ULL << 33)
#define CHUNK_CEILING_FRAMES (1ULL << 22)

void tally_add(tally *a, const tally *b, int tx) {
  a->frames += b->frames;
  a->bits += b->bits;
  a->bit_errors += b->bit_errors;
  a->fallbacks += b->fallbacks;
  a->inversions += b->inversions;
  a->sum_sq += b->sum_sq;
  for (int s = 0; s < tx; s++) a->stream_errors[s] += b->stream_errors[s];
  for (int s = 0; s < tx; s++) a->gmi_loss[s] += b->gmi_loss[s];
  a->gmi_loss_sq += b->gmi_loss_sq;
  for (int k = 0; k < GMI_GRID; k++) a->gmi_loss_s[k] += b->gmi_loss_s[k];
  for (int k = 0; k < GMI_GRID; k++) a->gmi_loss_s_sq[k] += b->gmi_loss_s_sq[k];
  a->seconds += b->seconds;
  stage_times_add(&a->t, &b->t, 1.0);
  tally_coded_add(&a->coded, &b->coded);
}

void tally_coded_add(tally_coded *a, const tally_coded *b) {
  a->blocks += b->blocks;
  a->block_errors += b->block_errors;
  a->cbs += b->cbs;
  a->cb_errors += b->cb_errors;
  a->info_bits += b->info_bits;
  a->info_errors += b->info_errors;
  a->iterations += b->iterations;
  a->cb_sq += b->cb_sq;
  a->info_sq += b->info_sq;
  a->block_sq += b->block_sq;
  a->harq_sq += b->harq_sq;
  a->delivered_sq += b->delivered_sq;
  a->harq_errors += b->harq_errors;
  a->transmissions += b->transmissions;
  a->transmissions_sq += b->transmissions_sq;
  a->delivered_transmissions += b->delivered_transmissions;
}

void tally_coded_frame(tally_coded *c, drop_sums *d, const frame_coded *f, uint64_t info_bits) {
  c->blocks++;
  c->block_errors += f->tb_error != 0;
  c->cbs += f->cbs;
  c->cb_errors += f->cb_errors;
  c->info_bits += info_bits;
  c->info_errors += f->info_errors;
  c->iterations += f->iterations;
  const uint64_t n = f->transmissions ? f->transmissions : 1;
  const int lost = f->transmissions ? f->harq_error != 0 : f->tb_error != 0;
  c->harq_errors += (uint64_t)lost;
  c->transmissions += n;
  d->cb += f->cb_errors;
  d->info += f->info_errors;
  d->block += f->tb_error != 0;
  d->harq += (uint64_t)lost;
  d->transmissions += n;
  d->delivered += (uint64_t)!lost;
}

void tally_close_drop(tally *t, drop_sums *d, uint64_t rf) {
  if (!d->frames) return;
  t->sum_sq += (double)d->errors * (double)d->errors;
  const double l = d->gmi_loss / (double)rf;
  t->gmi_loss_sq += l * l;
  for (int k = 0; k < GMI_GRID; k++) t->gmi_loss_s_sq[k] += (d->gmi_loss_s[k] / (double)rf) * (d->gmi_loss_s[k] / (double)rf);
  tally_coded *c = &t->coded;
  c->cb_sq += (double)d->cb * (double)d->cb;
  c->info_sq += (double)d->info * (double)d->info;
  c->block_sq += d->block * d->block;
  c->harq_sq += d->harq * d->harq;
  c->transmissions_sq += d->transmissions * d->transmissions;
  c->delivered_sq += d->delivered * d->delivered;
  c->delivered_transmissions += d->delivered * d->transmissions;
  memset(d, 0, sizeof *d);
}

uint64_t drops_of_frames(uint64_t frames, uint64_t drop_frames) {
  return drop_frames > 1 ? frames / drop_frames + (frames % drop_frames != 0) : frames;
}

uint64_t tally_drops(const sim_point *pt, const tally *t) { return drops_of_frames(t->frames, link_drop_frames(&pt->p)); }

/* Frames (or drops) are the independent units of every coded count: each
 * has its own draws (and under tdl its own channel), while the blocks and
 * bits of one frame, and the frames of a drop, share them. */
static void coded_interval(const sim_point *pt, const tally *t, uint64_t n, uint64_t k, double sq, double conf,
                           double *lo, double *hi) {
  if (!link_coded(&pt->p)) {
    *lo = *hi = NAN;
    return;
  }
  const uint64_t u = tally_drops(pt, t);
  const ber_sample s = {n, k, u, sq, u};
  ber_interval(&s, conf, lo, hi);
}

void tally_bler_interval(const sim_point *pt, const tally *t, double conf, double *lo, double *hi) {
  coded_interval(pt, t, t->coded.blocks, t->coded.block_errors, (double)t->coded.block_sq, conf, lo, hi);
}
void tally_cbler_interval(const sim_point *pt, const tally *t, double conf, double *lo, double *hi) {
  coded_interval(pt, t, t->coded.cbs, t->coded.cb_errors, t->coded.cb_sq, conf, lo, hi);
}
void tally_coded_ber_interval(const sim_point *pt, const tally *t, double conf, double *lo, double *hi) {
  coded_interval(pt, t, t->coded.info_bits, t->coded.info_errors, t->coded.info_sq, conf, lo, hi);
}

void tally_residual_bler_interval(const sim_point *pt, const tally *t, double conf, double *lo, double *hi) {
  coded_interval(pt, t, t->coded.blocks, t->coded.harq_errors, (double)t->coded.harq_sq, conf, lo, hi);
}

void transmissions_interval(const tally_coded *c, uint64_t units, double conf, double *lo, double *hi) {
  /* the t interval of the mean per unit, scaled to one TB (units / blocks:
   * 1 without drops) */
  mean_interval((double)c->transmissions, (double)c->transmissions_sq, units, conf, lo, hi);
  if (units != c->blocks && c->blocks) {
    const double per_tb = (double)units / (double)c->blocks;
    *lo *= per_tb;
    *hi *= per_tb;
  }
  /* every unit took the same transmissions (all at once, or none retried):
   * no spread to estimate, and none a frame can show */
  if (c->blocks && units == c->blocks && c->transmissions_sq * c->blocks == c->transmissions * c->transmissions &&
      isnan(*lo))
    *lo = *hi = (double)c->transmissions / (double)c->blocks;
  else if (c->blocks && units != c->blocks && c->transmissions == c->blocks && isnan(*lo))
    *lo = *hi = 1.0;
}

void tally_transmissions_interval(const sim_point *pt, const tally *t, double conf, double *lo, double *hi) {
  if (!link_coded(&pt->p)) {
    *lo = *hi = NAN;
    return;
  }
  transmissions_interval(&t->coded, tally_drops(pt, t), conf, lo, hi);
}

/* Throughput after HARQ, R = D / T over the units (frames, or drops): D
 * the information bits delivered (A D_u, D_u the TBs of unit u that got
 * through), T the REs of every transmission (f T_u). The delta method's
 * variance of a ratio of means, sum (D_u - R T_u)^2 / (n (n-1) mean(T)^2),
 * from the sums the tally keeps: sum D_u^2 = delivered_sq, sum D_u T_u =
 * delivered_transmissions, sum T_u^2 = transmissions_sq. A t interval with
 * n - 1 degrees of freedom, clipped at 0. */
void harq_throughput_interval(const tally_coded *c, uint64_t units, double tbs, double res, double conf, double *lo,
                              double *hi) {
  const double n = (double)units, T = (double)c->transmissions;
  if (units < 2 || !(T > 0.0) || !(res > 0.0)) {
    *lo = *hi = NAN;
    return;
  }
  const double delivered = (double)(c->blocks - c->harq_errors);
  const double r = delivered / T;                        /* TBs per transmission */
  double ss = (double)c->delivered_sq - 2.0 * r * (double)c->delivered_transmissions +
              r * r * (double)c->transmissions_sq;
  if (ss < 0.0) ss = 0.0;
  const double mean_t = T / n, se = sqrt(ss / (n * (n - 1.0))) / mean_t;
  const double q = t_quantile(0.5 + conf / 2.0, n - 1.0), scale = tbs / res;
  *lo = fmax(0.0, r - q * se) * scale;
  *hi = (r + q * se) * scale;
  /* where the units show no spread (every TB lost, or every one delivered
   * at once) the delta method has no variance: at least the residual BLER's
   * interval over the mean transmissions, which has one for those counts */
  double blo, bhi;
  const ber_sample b = {c->blocks, c->harq_errors, units, (double)c->harq_sq, units};
  ber_interval(&b, conf, &blo, &bhi);
  const double mean_tb = T / (double)c->blocks;
  *lo = fmin(*lo, (1.0 - bhi) / mean_tb * scale);
  *hi = fmax(*hi, (1.0 - blo) / mean_tb * scale);
}

void tally_harq_throughput_interval(const sim_point *pt, const tally *t, double conf, double *lo, double *hi) {
  if (!link_coded(&pt->p)) {
    *lo = *hi = NAN;
    return;
  }
  harq_throughput_interval(&t->coded, tally_drops(pt, t), (double)pt->p.code.tbs, (double)link_res_per_frame(&pt->p),
                           conf, lo, hi);
}

double tally_harq_throughput_per_re(const sim_point *pt, const tally *t) {
  if (!link_coded(&pt->p) || !t->coded.transmissions) return NAN;
  return (double)(t->coded.blocks - t->coded.harq_errors) * (double)pt->p.code.tbs /
         ((double)t->coded.transmissions * (double)link_res_per_frame(&pt->p));
}

double tally_harq_throughput_bps(const sim_point *pt, const tally *t) {
  if (!link_coded(&pt->p) || !t->coded.transmissions) return NAN;
  return (double)(t->coded.blocks - t->coded.harq_errors) * (double)pt->p.code.tbs /
         ((double)t->coded.transmissions * link_frame_seconds(&pt->p));
}

/* Information bits of the TBs delivered without error. */
static double delivered_bits(const sim_point *pt, const tally *t) {
  return (double)(t->coded.blocks - t->coded.block_errors) * (double)pt->p.code.tbs;
}
double tally_throughput_per_re(const sim_point *pt, const tally *t) {
  if (!link_coded(&pt->p) || !t->frames) return NAN;
  return delivered_bits(pt, t) / ((double)t->frames * (double)link_res_per_frame(&pt->p));
}
double tally_throughput_bps(const sim_point *pt, const tally *t) {
  if (!link_coded(&pt->p) || !t->frames) return NAN;
  return delivered_bits(pt, t) / ((double)t->frames * link_frame_seconds(&pt->p));
}

/* The schedule counts in whole drops (link_drop_frames; a frame when there
 * are none): every chunk starts at a drop's first frame, so no drop is
 * split between chunks, journal lines, work units or the parts of a merge,
 * and a chunk's sums of squares over its drops are its own. */
static uint64_t drop_of(const sim_point *pt) { return link_drop_frames(&pt->p); }

/* Drops of at most `bits` bits, a power of two (at least 1). */
static uint64_t pow2_drops(const sim_point *pt, uint64_t bits) {
  const uint64_t bpd = link_bits_per_frame(&pt->p) * drop_of(pt);
  uint64_t n = 1;
  while (n * 2 * bpd <= bits) n *= 2;
  return n;
}

/* The cap and the ceiling in drops. */
static uint64_t cap_drops(const sim_point *pt) { return pow2_drops(pt, CHUNK_BITS); }
static uint64_t ceiling_drops(const sim_point *pt) {
  const uint64_t cap = cap_drops(pt);
  uint64_t top = pow2_drops(pt, CHUNK_CEILING_BITS);
  /* a work unit of the MPI engine is whole chunks and crosses in one
   * message of at most 2^22 frames: no growth past that (a drop is at
   * most 2^20 frames) */
  while (top > 1 && top * drop_of(pt) > CHUNK_CEILING_FRAMES) top /= 2;
  return top > cap ? top : cap;
}

uint64_t chunk_cap(const sim_point *pt) { return cap_drops(pt) * drop_of(pt); }
uint64_t chunk_ceiling(const sim_point *pt) { return ceiling_drops(pt) * drop_of(pt); }

/* The schedule's phases for point pt, in drops: the growing chunks 0 ..
 * g-1 (1, 2, ..., cap/2 drops, 2^g = cap), then the steps j = 0 .. J-1 of
 * CHUNK_STEP_CHUNKS chunks of cap 2^j drops each (2^J cap = the ceiling),
 * then the ceiling for ever; d frames a drop. */
typedef struct chunk_plan {
  uint64_t cap, top, d;
  unsigned g, J;
} chunk_plan;

static chunk_plan plan_of(const sim_point *pt) {
  chunk_plan c = {cap_drops(pt), ceiling_drops(pt), drop_of(pt), 0, 0};
  while ((1ULL << c.g) < c.cap) c.g++;
  while ((c.cap << c.J) < c.top) c.J++;
  return c;
}

/* The first drop (offset) of step j's first chunk. */
static uint64_t step_offset(const chunk_plan *c, unsigned j) {
  return (c->cap - 1) + CHUNK_STEP_CHUNKS * c->cap * ((1ULL << j) - 1);
}

/* Chunk k in drops. */
static void chunk_range_drops(const chunk_plan *c, uint64_t k, uint64_t *offset, uint64_t *drops) {
  if (k < c->g) {
    *offset = (1ULL << k) - 1;
    *drops = 1ULL << k;
    return;
  }
  const uint64_t s = k - c->g; /* chunks since the growing ones */
  if (s < (uint64_t)c->J * CHUNK_STEP_CHUNKS) {
    const unsigned j = (unsigned)(s / CHUNK_STEP_CHUNKS);
    *drops = c->cap << j;
    *offset = step_offset(c, j) + (s % CHUNK_STEP_CHUNKS) * *drops;
    return;
  }
  *drops = c->top;
  *offset = step_offset(c, c->J) + (s - (uint64_t)c->J * CHUNK_STEP_CHUNKS) * c->top;
}

void chunk_range(const sim_point *pt, uint64_t k, uint64_t *offset, uint64_t *frames) {
  const chunk_plan c = plan_of(pt);
  chunk_range_drops(&c, k, offset, frames);
  *offset *= c.d;
  *frames *= c.d;
}

uint64_t chunk_of(const sim_point *pt, uint64_t offset) {
  const chunk_plan c = plan_of(pt);
  offset /= c.d;
  if (offset < c.cap - 1) {
    unsigned k = 0;
    while ((1ULL << (k + 1)) - 1 <= offset) k++;
    return k;
  }
  unsigned j = 0;
  while (j < c.J && offset >= step_offset(&c, j + 1)) j++;
  const uint64_t len = j < c.J ? c.cap << j : c.top;
  return c.g + (uint64_t)j * CHUNK_STEP_CHUNKS + (offset - step_offset(&c, j)) / len;
}

int chunk_schedule_grows(const sim_point *pt) {
  const chunk_plan c = plan_of(pt);
  const uint64_t end = pt->max_frames ? pt->max_frames : point_max_frames(pt);
  return c.J > 0 && end > step_offset(&c, 1) * c.d;
}

uint64_t tally_units(const sim_point *pt, const tally *t) {
  const uint64_t u = tally_drops(pt, t);
  return pt->p.model == CH_TDL ? u : u * link_res_per_frame(&pt->p);
}

void tally_interval(const sim_point *pt, const tally *t, double conf, double *lo, double *hi) {
  const ber_sample s = {t->bits, t->bit_errors, tally_drops(pt, t), t->sum_sq, tally_units(pt, t)};
  ber_interval(&s, conf, lo, hi);
}

/* The precision rule: the interval the report will print is narrow enough. */
static int precise_enough(const sim_point *pt, const tally *t) {
  if (!(pt->target_precision > 0.0) || t->frames < pt->min_frames || t->bit_errors == 0) return 0;
  double lo, hi;
  tally_interval(pt, t, 0.95, &lo, &hi);
  const double ber = (double)t->bit_errors / (double)t->bits;
  return 0.5 * (hi - lo) <= pt->target_precision * ber;
}

const char *chunk_stop_rule(const sim_point *pt, const tally *t) {
  if (link_coded(&pt->p)) {
    /* coded: the block errors decide, not the raw bits' */
    if (t->coded.block_errors >= pt->target_block_errors && t->frames >= pt->min_frames) return "target_block_errors";
    if (pt->max_blocks && t->coded.blocks >= pt->max_blocks) return "max_blocks";
  } else if (t->bit_errors >= pt->target_errors && t->frames >= pt->min_frames) {
    return "target_errors";
  }
  if (precise_enough(pt, t)) return "target_precision";
  if (t->frames >= (pt->max_frames ? pt->max_frames : point_max_frames(pt))) return "max_bits";
  return NULL;
}

uint64_t point_work_key(const sim_point *pt) {
  uint64_t precision, max_bits;
  memcpy(&precision, &pt->target_precision, sizeof precision);
  memcpy(&max_bits, &pt->max_bits, sizeof max_bits);
  const uint64_t rules[] = {pt->target_errors, max_bits, pt->min_frames, precision, pt->first_frame};
  uint64_t h = pt->point_key;
  for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) h = rng_mix64(h ^ rng_mix64(rules[i] + i));
  /* A point with soft outputs also sums its losses at the GMI grid's
   * scalings: a chunk saved before those sums came lacks them, and must not
   * stand for one that has them. */
  if (pt->p.llr != LLR_OFF) h = rng_mix64(h ^ 0x676d69677269642full); /* "gmigrid/" */
  /* the coded link's rules (uncoded points keep their work keys) */
  if (link_coded(&pt->p)) h = rng_mix64(h ^ rng_mix64(pt->target_block_errors + 5) ^ rng_mix64(pt->max_blocks + 6));
  /* A point long enough to reach chunks past the cap had chunks of the cap
   * for ever before they grew: its older journal's chunks are not these
   * (the shorter points keep their work keys and journals). */
  if (chunk_schedule_grows(pt)) h = rng_mix64(h ^ 0x63686b67726f7731ull); /* "chkgrow1" */
  /* With drops the chunks count whole drops and the squares are over
   * drops: a journal of before, over frames, stands for none of these
   * (points without drops keep their work keys). */
  if (link_drop_frames(&pt->p) > 1) h = rng_mix64(h ^ 0x64726f70756e6974ull); /* "dropunit" */
  return h;
}

double tally_gmi(const sim_point *pt, const tally *t, int s) {
  const link_params *p = &pt->p;
  if (!link_gmi_loss(p) || !t->frames) return NAN;
  const double uses = (double)t->frames * (double)link_data_res_per_frame(p);
  if (s >= 0) return p->bps - t->gmi_loss[s] / uses;
  double loss = 0.0;
  for (int k = 0; k < p->tx; k++) loss += t->gmi_loss[k];
  return (double)p->bps * p->tx - loss / uses;
}
