/* The messages between the ranks of the MPI engine, and between a rank's
 * message thread and its compute thread (lane.h), which speak the same
 * language so that rank 0's own units take the path of everyone else's. */
#ifndef OFDMSIM_MPI_PROTO_H
#define OFDMSIM_MPI_PROTO_H

#include <stdint.h>

#include "sim/driver.h"
#include "sim/work_unit.h"

/* Rank 0 sends orders (TAG_ORDER): a unit to compute, the prefix of a unit
 * dealt before its prefix was known (the rank then stops it at its stop
 * rather than compute past it), the cancel of a point's units (it stopped:
 * they are dropped unsent), or stop (the worker finishes its sends, says bye
 * with its times and returns). */
enum { TAG_HELLO = 1, TAG_ORDER, TAG_RESULT, TAG_FAIL, TAG_SIGNAL, TAG_BYE };
enum { ORDER_UNIT = 1, ORDER_PREFIX, ORDER_CANCEL, ORDER_STOP };
typedef struct order {
  uint64_t what;
  unit_spec u;
} order;

typedef struct hello {
  char host[64];
  char backend[16];
  char device[160];
} hello;

/* A result message: this header, then the unit's chunks' tallies (tally
 * [chunks], each of whole chunks but maybe the last, cut at the stop of a
 * unit with a known prefix), the bytes of each chunk's frame_encode'd
 * per-frame counts (uint64_t [chunks]), and those bytes (`bytes` in all),
 * chunk after chunk. The tallies let rank 0 fold a chunk in which no stop can
 * fall without its frames (point_fold_chunk): its work per unit then grows
 * with the chunks, not the frames, and rank 0 keeps up with many ranks.
 * The per-frame counts are there for the chunk where the stop falls. */
typedef struct result_head {
  unit_spec u;
  work_cost cost;
  char backend[16];
  uint64_t chunks, bytes;
} result_head;

/* A unit done by rank 0's own lane, handed to its coordinator as it is (no
 * encoding: the coordinator folds its frames directly). */
typedef struct local_result {
  result_head h; /* chunks and bytes 0 */
  uint32_t *errors, *fallbacks;
  uint64_t *loss, *loss_s; /* GMI losses: per stream, and at the GMI grid's scalings */
  frame_coded *coded; /* NULL when uncoded */
} local_result;

/* Where a rank's time went (its compute thread's view; seconds). Every
 * figure is a duration on the rank's own clock, so ranks on other hosts need
 * no common clock. */
typedef struct lane_times {
  double startup; /* process start to the first batch of its first unit: MPI,
                     the config, the GPU's context, the first backend */
  double setup;   /* starting the later units: a backend made for a new point */
  double idle;    /* waiting for a unit between its first and its last */
  double tail;    /* from the end of its last unit to the stop */
  double wall;    /* process start to the stop */
  /* The start-up's steps, each from process start (mpi_job's t_mpi, t_gpu,
   * t_ready): MPI_Init done, the GPU taken, the config and backend ready. */
  double to_mpi, to_gpu, to_ready;
} lane_times;

/* The bye of a worker: its exit code and its times. */
typedef struct bye {
  int rc;
  lane_times t;
} bye;

#endif
