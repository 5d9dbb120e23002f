/* Reading a config file into a libconfig tree. Private to sim/config_*.c. */
#ifndef OFDMSIM_CONFIG_READ_H
#define OFDMSIM_CONFIG_READ_H

#include <libconfig.h>
#include <stddef.h>

/* Reads `path` into c (config_init'ed) with the fix-ups of cfg_fix_source;
 * @include is resolved relative to the file's folder. 0, or 2 with "FILE:
 * cannot read: ..." or "FILE:LINE: syntax error: ..." in err. */
int cfg_read_file(config_t *c, const char *path, char *err, size_t errlen);

#endif
