/* Config text made safe for libconfig 1.5 to parse, and its syntax complaints
 * in plain words. Private to config/. */
#ifndef OFDMSIM_CONFIG_SOURCE_H
#define OFDMSIM_CONFIG_SOURCE_H

#include <libconfig.h>
#include <stddef.h>

/* src with two libconfig traps stepped around, every line kept where it was:
 * an integer literal beyond 32 bits gets the L suffix, and an array that
 * libconfig rejects (an array holds scalars of one type) becomes a list: one
 * that mixes kinds of values ([0, 2.5] -> (0, 2.5), [2, "zf"] -> (2, "zf"))
 * or holds arrays ([[2, 2], [4, 4]] -> ([2, 2], [4, 4])). The result is the caller's to
 * free. NULL when out of memory (*bad_line = 0), or on an integer
 * beyond 64 bits (its line in *bad_line, its text in bad). */
char *cfg_fix_source(const char *src, int *bad_line, char *bad, size_t badlen);

/* 1 when name is a valid libconfig setting name. */
int cfg_valid_name(const char *name);

/* libconfig's last complaint about c, with a hint where its words are cryptic. */
void cfg_syntax_text(const config_t *c, char *buf, size_t n);

#endif
