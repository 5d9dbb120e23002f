/* Where a setting came from, and config errors that say so. Private to
 * config/. */
#ifndef OFDMSIM_CONFIG_WHERE_H
#define OFDMSIM_CONFIG_WHERE_H

#include <libconfig.h>
#include <stddef.h>

/* "FILE:LINE" for line `line` of `file`, a setting's source file: NULL is the
 * top file `top`, else an @include'd file by its path as resolved
 * (config/config_include.h). Control characters in the name come out escaped
 * (cfg_escape). */
void cfg_locate(const char *file, const char *top, unsigned line, char *buf, size_t n);

/* "--set K=V" for a setting a --set override made (its hook is the override
 * text, escaped as cfg_escape does), else "FILE:LINE" as cfg_locate. */
void cfg_where(const config_setting_t *s, const char *top, char *buf, size_t n);

/* Writes "WHERE: message" to err, WHERE the place of s (just `top` when s is
 * NULL), and returns 2, the exit code of a config error. */
int cfg_fail_at(const config_setting_t *s, const char *top, char *err, size_t errlen, const char *fmt,
                ...) __attribute__((format(printf, 5, 6)));

#endif
