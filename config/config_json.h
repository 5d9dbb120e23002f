/* The effective config as a Jansson value, for the results sidecar. Private
 * to sim/. */
#ifndef OFDMSIM_CONFIG_JSON_H
#define OFDMSIM_CONFIG_JSON_H

#include <jansson.h>

#include "config/config.h"

/* What sim_config_print writes, as one JSON object with the groups nested
 * and the sweep as [{"key": ..., "values": [...]}, ...]; an empty object for
 * a config that did not load. NULL when out of memory. */
json_t *sim_config_json(const sim_config *c);

#endif
