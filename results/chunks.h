/* A point's frames in fixed chunks, and the counts ("tallies") of runs of
 * frames that the driver folds frame by frame.
 *
 * Why chunks: the journal saves a point as it goes, and a resumed (or, later,
 * distributed) run must reach the very counts of one uninterrupted run. So a
 * point's frames first_frame + 0, 1, 2, ... are cut into chunks whose
 * boundaries depend on the point alone (never on the backend, the batch size
 * or the process count): chunk k holds 2^k frames while that is below the
 * point's chunk cap (a power of two near 2^26 bits), then CHUNK_STEP_CHUNKS
 * chunks of the cap, CHUNK_STEP_CHUNKS of twice the cap, and so on, doubling
 * up to the ceiling (a power of two near 2^33 bits, and at most 2^22 frames),
 * then the ceiling each. Small first chunks let easy points stop early; a
 * chunk is one journal line, and the growth past the cap keeps a fast
 * backend's journal quiet (at 100 Gbit/s about 1500 lines a second at the
 * cap, at most 24 at the ceiling for frames of 1024 bits or more; the
 * 2^22 frames, a work unit's most, bound smaller frames' ceiling) while
 * the work a kill -9 can lose, the
 * chunk under way, stays bounded: at most the ceiling (86 ms at 100
 * Gbit/s), and past the cap at most 2/CHUNK_STEP_CHUNKS (a quarter) of the
 * point's frames before it. The schedule is a function of the point and k
 * alone, like the rest, so a resumed run and the MPI engine's ranks cut
 * where an uninterrupted run does. A stopping rule is evaluated after every
 * frame on the ordered prefix; the chunk it fires in is cut there and is the
 * point's last.
 *
 * Every tally of a point is summed chunk by chunk in chunk order (the frames
 * of a chunk in frame order), so even the floating-point sum of squares is
 * the same in a run that was interrupted and resumed. */
#ifndef OFDMSIM_CHUNKS_H
#define OFDMSIM_CHUNKS_H

#include <stdint.h>

#include "core/backend.h"
#include "config/config.h"

/* The coded link's counts (code.type ldpc), one transport block a frame. */
typedef struct tally_coded {
  uint64_t blocks, block_errors;  /* transport blocks, and those lost */
  uint64_t cbs, cb_errors;        /* code blocks, and those decoded wrong */
  uint64_t info_bits, info_errors;/* information bits delivered, and wrong */
  uint64_t iterations;            /* decoder iterations, summed over the code blocks */
  /* The intervals' sums over the units (frames, or drops: tally_drops) of
   * a unit's count squared: CB and information-bit errors; below, the TBs
   * lost (block_sq, one TB a frame: = block_errors without drops), lost
   * after HARQ (harq_sq) and delivered after HARQ (delivered_sq). */
  double cb_sq, info_sq;
  uint64_t block_sq, harq_sq, delivered_sq;
  /* HARQ (code.harq_transmissions; without it: harq_errors = block_errors,
   * transmissions = transmissions_sq = blocks, delivered_transmissions =
   * blocks - block_errors) */
  uint64_t harq_errors;           /* TBs lost after their last transmission */
  uint64_t transmissions;         /* transmissions sent, summed over the TBs */
  uint64_t transmissions_sq;      /* ... of each unit squared (the mean's interval) */
  uint64_t delivered_transmissions; /* sum over the units of TBs delivered x
                                     transmissions sent (the throughput's;
                                     without drops those of the TBs delivered) */
} tally_coded;

/* One drop's counts while its frames come in (point_fold.h): its squares
 * enter the tally when the drop is whole (tally_close_drop). Without drops
 * every frame is one. */
typedef struct drop_sums {
  uint64_t frames;
  uint64_t errors;                 /* bit errors */
  double gmi_loss;                 /* GMI loss at s = 1, bits (all streams) */
  double gmi_loss_s[GMI_GRID];     /* ... at each grid scaling */
  uint64_t cb, info, block, harq;  /* CB, information-bit, TB errors, TBs lost after HARQ */
  uint64_t transmissions, delivered; /* HARQ transmissions, TBs delivered after HARQ */
} drop_sums;

/* Counts of consecutive frames of one point. */
typedef struct tally {
  uint64_t frames, bits, bit_errors;
  uint64_t fallbacks;   /* REs equalised in double (float Gram flagged singular) */
  uint64_t inversions;  /* matrices inverted for these frames */
  double sum_sq;        /* sum over the frames of (bit errors of the frame)^2 */
  uint64_t stream_errors[LINK_MAX_TX];
  /* GMI (points with soft outputs): the loss of each stream, the sum over
   * its bits of log2(1 + exp(-(2b-1) L)) in bits, and the sum over frames of
   * the squared loss of the frame per RE (for the interval). Sums of
   * per-frame integers (batch_result.gmi_loss) in frame order, so they are
   * the same whoever computed the frames. */
  double gmi_loss[LINK_MAX_TX];
  double gmi_loss_sq;
  /* ... and at each LLR scaling s = gmi_grid_s(k) of the GMI grid
   * (core/gmi_grid.h), summed over the streams: the loss in bits and the sum
   * over frames of the frame's squared loss per RE (k = GMI_GRID_S1 equals
   * the sum of gmi_loss and gmi_loss_sq exactly). The report maximises the
   * GMI over s from these (results/gmi_sup.h). */
  double gmi_loss_s[GMI_GRID];
  double gmi_loss_s_sq[GMI_GRID];
  double seconds;       /* wall time spent on these frames */
  stage_times t;        /* the stages' share of it */
  tally_coded coded;    /* the coded link (zero when uncoded) */
} tally;

/* a += b. */
void tally_coded_add(tally_coded *a, const tally_coded *b);
/* Folds one frame's decoded TB into c's counts and its drop's sums d
 * (the squares wait for tally_close_drop). */
void tally_coded_frame(tally_coded *c, drop_sums *d, const frame_coded *f, uint64_t info_bits);
/* Adds the drop d's squares to t (losses per RE of a frame: rf data REs)
 * and empties d; nothing when d has no frame. */
void tally_close_drop(tally *t, drop_sums *d, uint64_t rf);

/* The independent units of t's counts for every interval: its frames, or
 * with drops (link_drop_frames N > 1) its drops, ceil(frames / N): t's
 * frames start at a drop's first frame (chunks, journal lines and parts of
 * a merge all do), so only its last drop may be cut short (a stop). */
uint64_t tally_drops(const sim_point *pt, const tally *t);
/* The same from the frames of a range that starts at a drop's first frame. */
uint64_t drops_of_frames(uint64_t frames, uint64_t drop_frames);

/* The coded link's intervals at confidence conf, by the frame-level
 * method of the BER (stats.h's ber_interval, frames or drops the units): the BLER,
 * the CBLER and the coded (information) BER. NAN when uncoded. */
void tally_bler_interval(const sim_point *pt, const tally *t, double conf, double *lo, double *hi);
void tally_cbler_interval(const sim_point *pt, const tally *t, double conf, double *lo, double *hi);
void tally_coded_ber_interval(const sim_point *pt, const tally *t, double conf, double *lo, double *hi);
/* HARQ's: the residual BLER (TBs lost after their last transmission; the
 * BLER's method), and the mean transmissions per TB (a t interval over the
 * frames). NAN when uncoded. */
void tally_residual_bler_interval(const sim_point *pt, const tally *t, double conf, double *lo, double *hi);
void tally_transmissions_interval(const sim_point *pt, const tally *t, double conf, double *lo, double *hi);
/* Throughput after HARQ: information bits of the TBs delivered after any
 * transmission over the air time of every transmission sent, per RE (pilots
 * included) and per second; its interval (per RE) by the delta method of a
 * ratio of sums over the frames. NAN when uncoded or without frames. */
double tally_harq_throughput_per_re(const sim_point *pt, const tally *t);
double tally_harq_throughput_bps(const sim_point *pt, const tally *t);
void tally_harq_throughput_interval(const sim_point *pt, const tally *t, double conf, double *lo, double *hi);
/* The same from the sums alone (A information bits a TB, f REs a frame,
 * `units` the independent units, tally_drops): for the merge, which has no
 * point. */
void harq_throughput_interval(const tally_coded *c, uint64_t units, double tbs, double res, double conf, double *lo,
                              double *hi);
/* The mean transmissions per TB and its t interval over the units (frames
 * or drops): for the report and the merge. */
void transmissions_interval(const tally_coded *c, uint64_t units, double conf, double *lo, double *hi);
/* Delivered information bits (those of TBs without error) per RE of the
 * frames (pilots included) and per second of air time (link_frame_seconds);
 * NAN when uncoded or without frames. */
double tally_throughput_per_re(const sim_point *pt, const tally *t);
double tally_throughput_bps(const sim_point *pt, const tally *t);

/* a += b for the first tx streams. */
void tally_add(tally *a, const tally *b, int tx);

/* Chunks at each length between the cap and the ceiling. */
#define CHUNK_STEP_CHUNKS 8

/* Frames in a full chunk at the cap: a power of two, at least 1. */
uint64_t chunk_cap(const sim_point *pt);
/* Frames in a chunk at the ceiling: a power of two, at least the cap. */
uint64_t chunk_ceiling(const sim_point *pt);
/* 1 when the point has frames in chunks longer than the cap (its chunks
 * differ there from those of the schedule before the growth, which had the
 * cap for ever: point_work_key tells the two apart). */
int chunk_schedule_grows(const sim_point *pt);
/* Chunk k: its first frame as an offset from the point's first_frame, and
 * its length in frames. */
void chunk_range(const sim_point *pt, uint64_t k, uint64_t *offset, uint64_t *frames);
/* The chunk holding frame offset `offset`. */
uint64_t chunk_of(const sim_point *pt, uint64_t offset);

/* What stops a point after the frames in `t` (the ordered prefix): NULL to go
 * on, or "target_errors", "target_precision", "max_bits"; a coded point
 * "target_block_errors" (instead of target_errors) or "max_blocks". */
const char *chunk_stop_rule(const sim_point *pt, const tally *t);

/* The point's BER interval at confidence conf from the prefix in t
 * (stats.h's ber_interval; the clusters are frames, or drops: tally_drops;
 * the worst-case units are those of tally_units). */
void tally_interval(const sim_point *pt, const tally *t, double conf, double *lo, double *hi);
/* The interval's worst-case units for t: frames (drops) for tdl, frames
 * (drops) x REs otherwise. */
uint64_t tally_units(const sim_point *pt, const tally *t);

/* GMI of the frames in t at LLR scaling 1, bits per channel use (RE):
 * stream s, or the sum over the streams for s < 0; NAN without soft outputs
 * or frames. The estimate is bps minus the mean loss per bit (BICM GMI with
 * the LLRs as the decoder's metric, unscaled: results/gmi_sup.h gives the
 * supremum over the scaling). */
double tally_gmi(const sim_point *pt, const tally *t, int s);

/* The point key with the stopping rules and the frame range folded in (and,
 * with soft outputs, the GMI grid's sums): two runs with equal work keys do
 * the very same work, so one's chunks stand for the other's (the journal's
 * records are keyed by it). */
uint64_t point_work_key(const sim_point *pt);

#endif
