/* What a loaded sim_config keeps behind its priv pointer: the effective tree
 * and what the echoes need to print it. Private to config/. */
#ifndef OFDMSIM_CONFIG_STATE_H
#define OFDMSIM_CONFIG_STATE_H

#include <libconfig.h>

#include "config/config_schema.h"
#include "config/config_sweep.h"

typedef struct config_state {
  config_t tree;        /* the file with the overrides applied */
  config_t defaults;    /* k<id> = <default of key id>, parsed from the schema */
  config_t computed;    /* cp_length = subcarriers/8 of the base config, for the echo */
  char **origins;       /* the override texts: hooks of the settings they made */
  int n_origins;
  const config_setting_t *given[KEY_COUNT]; /* the base config's settings; NULL: default */
  sweep_plan sweep;
  char notes[4096];     /* lines for the run's header: what the config did that its text does not say */
} config_state;

/* Parses the schema's literal defaults into d (config_default.c): 0, or -1
 * when they do not parse (a schema defect). */
int config_state_build_defaults(config_t *d);
/* The schema default of key k as a setting; NULL for a computed default. */
const config_setting_t *config_state_default(const config_state *st, int k);

#endif
