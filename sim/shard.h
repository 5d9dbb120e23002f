/* --shard I/N: this job's deterministic share of a sweep's points, for runs
 * split over independent jobs (a Slurm array) and joined by `ofdmsim merge`.
 *
 * The points are ordered by point key (config_columns.h: the point itself,
 * not its place in the sweep) and dealt round-robin: shard I of N takes the
 * points at ranks I-1, I-1+N, ... of that order, so the shares differ by one
 * point at most and a point lands in the same shard whatever the jobs' order.
 * A curve with stop_below_ber is dealt whole, as the point with its first
 * point's key: whether a point is skipped depends on the points before it. */
#ifndef OFDMSIM_SHARD_H
#define OFDMSIM_SHARD_H

#include "config/config.h"

/* Keeps shard i (1-based) of n of c's points, in sweep order, each with its
 * index in the whole sweep. 0, or -1 when out of memory. */
int sim_config_shard(sim_config *c, unsigned i, unsigned n);

#endif
