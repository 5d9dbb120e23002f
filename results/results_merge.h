/* Adding up results of disjoint parts: different points (the shards of one
 * sweep, runs over different SNR lists) or different frame ranges of one
 * point (the same point_key, another simulation.first_frame). The parts of
 * a point must tile one contiguous range of frames, so the sum is exactly
 * what one run over that range gives: counts, frame_errors_sq and units add,
 * and the interval is computed again from them (results/stats.h), in the number
 * formats the run writes (results/report.c), so that merged shards equal the
 * whole run byte for byte on the count columns.
 *
 * Rules (each breach is a "bad input" error, 2, and nothing is written):
 *  - every input has the same header;
 *  - every row has the same simulation.seed (other seeds are other draws:
 *    independent estimates to compare, not parts to add);
 *  - rows of one point_key have frame ranges [first_frame, first_frame +
 *    frames) that neither overlap (an interrupted point is a prefix of its
 *    re-run) nor leave a gap; a skipped row (bits = 0) adds nothing where
 *    another part has data.
 * The merged row of a point takes: counts summed (bits, bit_errors,
 * stream_bit_errors per stream, frames, inversions, fallbacks,
 * frame_errors_sq, units, seconds), the smallest first_frame, ber and
 * ci95_low/high recomputed, mbit_per_s = bits / seconds / 1e6, inv_per_s =
 * inversions / (the sum of each part's inversions / inv_per_s; 0 when one is
 * unknown), backend = the parts' backends joined by '+' when they differ,
 * and every other cell (stop, simulation.max_bits, ...) from the part with
 * the highest range. A point with one part keeps its row as it is. Rows come
 * out sorted by `point`, then in input order. */
#ifndef OFDMSIM_RESULTS_MERGE_H
#define OFDMSIM_RESULTS_MERGE_H

#include <stdint.h>
#include <stdio.h>

#include "results/atomic_file.h"
#include "results/results.h"

/* Merges the n tables into out (a new table with their header; out->path is
 * NULL). 0, or 2 with the message in err ("point KEY: frames A..B of
 * FILE:LINE overlap frames C..D of FILE:LINE ...", "FILE:1: ...", ...). */
int results_merge(const result_table *in, size_t n, result_table *out, char *err, size_t errlen);

/* The same, and with pool_seeds the runs of other seeds added up too
 * (`merge --pool-seeds`): rows are grouped by the point's identity without
 * its seed (results_identity_column), each seed's parts must tile their
 * frames as above, and all of them add up (the seeds are independent draws,
 * so the frames' batch means still give the interval). A row pooled over
 * several seeds has simulation.seed and stream_key empty and a point_key of
 * its own (a hash of its parts' keys); such a row is not pooled again. The
 * seeds of the inputs, sorted and once each, in *seeds (the caller frees;
 * NULL and 0 when not pooled or on an error). */
int results_merge_pooled(const result_table *in, size_t n, int pool_seeds, result_table *out, uint64_t **seeds,
                         size_t *n_seeds, char *err, size_t errlen);

/* Writes t as a CSV: the label column always quoted (as the run writes it),
 * other cells only where they hold a comma, a quote or a line break. 0, or -1
 * on a write error. */
int results_write_csv(FILE *f, const result_table *t);

#endif
