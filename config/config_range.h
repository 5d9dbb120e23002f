/* Ranges: a group { from = A; to = B; step = C; } wherever the schema takes a
 * list of numbers (simulation.snr_db, the values of a numeric sweep key). A
 * range is replaced in the tree by the array it stands for, so that every
 * later check, the points and both echoes see a plain list: the echo shows
 * the values themselves and re-reads to the same points. Private to
 * config/. */
#ifndef OFDMSIM_CONFIG_RANGE_H
#define OFDMSIM_CONFIG_RANGE_H

#include <libconfig.h>
#include <stddef.h>

#include "config/config_schema.h"

/* Replaces the range group s, given for key k and called `what` in messages
 * ("simulation.snr_db", "sweep[0].values"), by the array of its values in
 * s's parent: from + i*step for i = 0, 1, ... while not beyond `to` (give or
 * take 1e-9 x |step|, so that 0 to 30 by 2 ends at 30). Integers for a KT_INT
 * key (then from, to and step must be integers), floats otherwise, snapped
 * to the decimals of from and step (0.1 steps give 0.3, not
 * 0.30000000000000004). The new settings take s's place for error messages
 * (its line, file or --set). 0 with the array in *out, or 2 with a located
 * error in err: a missing, unknown or non-numeric member, step 0, no value,
 * or more than SIM_MAX_POINTS values. */
int cfg_range_expand(config_setting_t *s, config_key_id k, const char *what, const char *file,
                     config_setting_t **out, char *err, size_t errlen);

/* Expands every range given to a key that takes a list of numbers
 * (KT_NUMBERS) in tree. 0, or 2 as cfg_range_expand. */
int cfg_expand_list_ranges(config_t *tree, const char *file, char *err, size_t errlen);

#endif
