/* The MPI engine: one sweep computed by every rank of the job.
 *
 * Rank 0 coordinates and computes: it deals work units (whole chunks of a
 * point, sim/work_unit.h) to the ranks as they free up, the next chunks of
 * the earliest points first and further ahead only when a rank would idle,
 * so a long point is shared by all ranks; it folds each point's units in
 * chunk order (sim/point_fold.h) and decides the stop on that ordered
 * prefix, exactly as one process does, discarding work past the stop: the
 * counts are the same for any number of ranks. It alone writes the journal,
 * the CSV and the JSON; a unit that arrives before the units ahead of it is
 * saved in the journal at once ("ahead"), so a kill loses no finished unit.
 * The other ranks compute the units they are dealt and send back their
 * chunks' tallies and per-frame counts (proto.h). Every rank computes on a
 * thread of its own (lane.h) while its main thread does all of MPI. */
#ifndef OFDMSIM_MPI_ENGINE_H
#define OFDMSIM_MPI_ENGINE_H

#include "mpi/job.h"
#include "config/config.h"
#include "sim/driver.h"

/* Runs the sweep c on every rank of job j (every rank calls it with the same
 * config): exit codes as sim_run's on rank 0; the other ranks return 0, or
 * 1 when their backend failed, or 128 + a signal that stopped them. */
int mpi_engine_run(const mpi_job *j, const sim_config *c, const run_options *o);

#endif
