/* A point described by its config: one value per config key, for the CSV's
 * self-describing columns, and the point key derived from those values.
 *
 * The point key is a 64-bit hash of every key that shapes the point's result:
 * the link (antennas, modulation, channel, OFDM), the receiver (equalizer), the
 * SNR and the seed. It leaves out the stopping rules, the frame range
 * (simulation.first_frame), the per-run settings (backend, threads, batch
 * size, GPU memory) and the point's place in the sweep. Two rows with one
 * point key are the same point, run on the same draws frame for frame;
 * resume, merge and compare match rows by it. (The stream key of
 * core/params.h is narrower still: it leaves out the receiver, so different
 * equalizers see the same draws.) */
#ifndef OFDMSIM_CONFIG_COLUMNS_H
#define OFDMSIM_CONFIG_COLUMNS_H

#include <stdint.h>
#include <stdio.h>

#include "config/config.h"

/* ",simulation.backend,simulation.seed,...": a comma then each key's dotted
 * path, in the schema's order. */
void config_columns_head(FILE *f);

/* ",auto,1,...": a comma then each key's effective value at this point
 * (computed defaults resolved, e.g. ofdm.cp_length and simulation.min_frames;
 * empty for a key that does not apply, e.g. channel.profile without tdl). */
void config_columns_row(FILE *f, const sim_config *c, const sim_point *pt);

/* The point key of pt, as described above. */
uint64_t config_point_key(const sim_config *c, const sim_point *pt);

#endif
