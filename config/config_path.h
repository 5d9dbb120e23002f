/* The settings of a libconfig tree by dotted path ("channel.model"). Private
 * to config/. */
#ifndef OFDMSIM_CONFIG_PATH_H
#define OFDMSIM_CONFIG_PATH_H

#include <libconfig.h>
#include <stddef.h>

/* Sets the dotted `path` of c to a copy of `value`, creating missing groups
 * and replacing whatever was there. Every setting it creates gets `hook`.
 * 0; or -1 when a setting on the way is not a group (*blocker is set to it)
 * or a component is not a valid name. */
int cfg_set_path(config_t *c, const char *path, const config_setting_t *value, void *hook,
                 const config_setting_t **blocker);

/* The dotted path of s in its tree. */
void cfg_setting_path(const config_setting_t *s, char *buf, size_t n);

#endif
