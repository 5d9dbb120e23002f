/* "Did you mean ...?": the closest of some names to a misspelt one. Used by
 * the config checks and by the command line (app/cli.c). */
#ifndef OFDMSIM_CONFIG_SUGGEST_H
#define OFDMSIM_CONFIG_SUGGEST_H

#include <stddef.h>

/* The candidate closest to `name`, comparing whole dotted paths and their last
 * components; NULL when none is close enough to be a plausible typo. */
const char *cfg_suggest(const char *name, const char *const *candidates, size_t n);

#endif
