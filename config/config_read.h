/* Reading a config file into a libconfig tree. Private to config/. */
#ifndef OFDMSIM_CONFIG_READ_H
#define OFDMSIM_CONFIG_READ_H

#include <libconfig.h>
#include <stddef.h>

/* Reads `path` into c (config_init'ed) with its @include lines expanded
 * (config/config_include.h: relative to the including file's folder) and the
 * fix-ups of cfg_fix_source on all of it; every setting's source file and
 * line name the file it was written in (file NULL: `path` itself). 0, or 2
 * with "FILE: cannot read: ...", "FILE:LINE: syntax error: ..." or
 * "FILE:LINE: @include ...: ..." in err. */
int cfg_read_file(config_t *c, const char *path, char *err, size_t errlen);

/* config_read_string without libconfig 1.5's leak on a syntax error that stops
 * at a string literal: the same result, and on failure the same
 * config_error_text and config_error_line in c. */
int cfg_parse_string(config_t *c, const char *text);

#endif
