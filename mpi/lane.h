/* A rank's compute thread ("lane"): it computes the units its rank is dealt
 * while the rank's main thread does all of MPI (MPI_THREAD_FUNNELED).
 *
 * Why a thread: a rank that computed and spoke MPI on one thread answered
 * only between batches, so rank 0, which also deals and folds everyone's
 * units, left its own GPU idle while it coordinated, and a large result
 * (sent in fragments that the sender must push) crossed only as fast as
 * the sender's batches let it. With the lane, rank 0's backend computes
 * all the time and every message moves at once.
 *
 * The lane takes orders (proto.h: a unit, a prefix, a cancel) and posts
 * messages: TAG_RESULT with the unit's per-frame arrays (a local_result,
 * which a worker's main thread encodes and sends, and rank 0's coordinator
 * folds as it is), TAG_FAIL with the reason. */
#ifndef OFDMSIM_MPI_LANE_H
#define OFDMSIM_MPI_LANE_H

#include <stddef.h>
#include <stdint.h>

#include "mpi/job.h"
#include "mpi/proto.h"
#include "config/config.h"

/* A rank holds this many units: one it computes, one queued, so that it
 * never waits for the coordinator between units. */
#define LANE_DEPTH 2

typedef struct lane lane;

/* A message from the lane: tag and bytes (malloc'd; the taker frees them
 * with lane_msg_free). A TAG_RESULT holds a local_result (proto.h). */
typedef struct lane_msg {
  int tag;
  uint8_t *buf;
  size_t len;
} lane_msg;

/* Starts the compute thread of rank j on backend o->backend (the GPU of its
 * node-local rank, o->threads CPU threads); `pace`: seconds a batch may take
 * at most, how soon an order reaches a unit under way. NULL when out of
 * memory or no thread. */
lane *lane_start(const mpi_job *j, const sim_config *c, const run_options *o, double pace);
/* Passes an order on (ORDER_UNIT, ORDER_PREFIX, ORDER_CANCEL). */
void lane_order(lane *l, const order *o);
/* Takes the next message the lane posted; 1 when there was one. */
int lane_take(lane *l, lane_msg *m);
void lane_msg_free(lane_msg *m);
/* Waits until the lane posts a message or `seconds` pass. */
void lane_wait(lane *l, double seconds);
/* 1 once a unit failed (the lane then takes no more units). */
int lane_failed(lane *l);
/* Stops the thread (a unit under way is dropped at its next batch), waits
 * for it and gives its times; messages it posted before remain to take.
 * lane_free then frees it. */
void lane_stop(lane *l, lane_times *t);
void lane_free(lane *l);

#endif
