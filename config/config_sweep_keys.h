/* The keys of one sweep entry: `key = "KEY"`, or `keys = ["KEY", ...]` for
 * several keys set together. Private to config/. */
#ifndef OFDMSIM_CONFIG_SWEEP_KEYS_H
#define OFDMSIM_CONFIG_SWEEP_KEYS_H

#include <libconfig.h>
#include <stddef.h>

#include "config/config_sweep.h"

/* Reads the key or keys of `entry`, sweep[i], into plan->entry[plan->n]
 * (its key, n_keys and zipped; plan->n is left alone): each a known key that
 * may differ between points, other than simulation.snr_db, and swept once
 * across the entries before it and within its own keys. 0, or 2 with the
 * message located at the offending name in err. */
int sweep_entry_keys(const config_setting_t *entry, int i, sweep_plan *plan, const char *file, char *err,
                     size_t errlen);

/* "mimo.tx, mimo.rx": the keys of e, for messages. */
void sweep_entry_key_list(const sweep_entry *e, char *buf, size_t n);

#endif
