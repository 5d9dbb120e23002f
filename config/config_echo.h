/* The effective config key by key, for its writers (libconfig syntax in
 * config_echo.c, JSON in config_json.c). Private to config/. */
#ifndef OFDMSIM_CONFIG_ECHO_H
#define OFDMSIM_CONFIG_ECHO_H

#include <libconfig.h>

#include "config/config_state.h"

typedef void (*config_echo_fn)(void *ctx, const char *group, const char *name, const config_setting_t *s);

/* Calls fn for every key of the effective config (file, overrides, defaults)
 * in schema order, so the keys of a group come together: its group ("" at
 * the top level), its name in the group and its setting. A key whose default
 * follows a swept key, or whose condition does not hold, is left out: written
 * down with its default it would change the points. The sweep is st->sweep. */
void config_echo_each(const config_state *st, config_echo_fn fn, void *ctx);

#endif
