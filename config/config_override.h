/* --set KEY=VALUE overrides applied to the loaded tree. Private to
 * config/. */
#ifndef OFDMSIM_CONFIG_OVERRIDE_H
#define OFDMSIM_CONFIG_OVERRIDE_H

#include <stddef.h>

#include "config/config_state.h"

/* Sets KEY in st->tree to VALUE, parsed as libconfig syntax, or as a string
 * when it is a bare word (16qam, tdl); the settings made remember the text, so
 * that errors point at the --set. `file` is the config file, for an error at
 * a setting of the file that is in the way. 0, or 2 with the error in err. */
int config_apply_override(config_state *st, const char *text, const char *file, char *err,
                          size_t errlen);

#endif
