/* The schema's defaults as a libconfig tree, and a key's default setting from
 * it. Kept apart from config.c, which loads a config, so that the echo and
 * the point resolver (which read defaults) and the loader (which calls them)
 * form no cycle. */
#include <stdio.h>

#include "config/config_schema.h"
#include "config/config_state.h"

/* One `k<id> = <default>;` line per key with a literal default, parsed as one
 * libconfig text: defaults are then settings like any given value. */
int config_state_build_defaults(config_t *d) {
  char text[4096];
  size_t len = 0;
  for (int k = 0; k < KEY_COUNT; k++)
    if (config_keys[k].default_text)
      len += (size_t)snprintf(text + len, sizeof text - len, "k%d = %s;\n", k, config_keys[k].default_text);
  return len < sizeof text && config_read_string(d, text) ? 0 : -1;
}

const config_setting_t *config_state_default(const config_state *st, int k) {
  char name[16];
  snprintf(name, sizeof name, "k%d", k);
  return config_lookup(&st->defaults, name);
}
