/* libconfig helpers behind sim/config.c: reading a file safely, --set
 * overrides, where a setting came from, writing settings back out (libconfig
 * and JSON syntax) and suggesting the closest name. Private to sim/config_*.c. */
#ifndef OFDMSIM_CONFIG_TREE_H
#define OFDMSIM_CONFIG_TREE_H

#include <libconfig.h>
#include <stddef.h>
#include <stdio.h>

/* ---- output: a FILE, or a bounded string that remembers it was cut ------- */
typedef struct cfg_out {
  FILE *f;          /* non-NULL: write here */
  char *buf;        /* else: append here, NUL-terminated */
  size_t cap, len;
  int cut;          /* something did not fit in buf */
} cfg_out;

cfg_out cfg_out_file(FILE *f);
cfg_out cfg_out_buffer(char *buf, size_t cap);
void cfg_printf(cfg_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The shortest decimal that reads back as the same double, always with a '.'
 * or an exponent so that libconfig reads it as a float ("4.0", "1e+15"). */
void cfg_format_double(double v, char *buf, size_t n);
/* A setting's value in libconfig syntax (aggregates on one line). */
void cfg_write_value(cfg_out *o, const config_setting_t *s);
void cfg_write_string(cfg_out *o, const char *s);     /* quoted, escaped */
void cfg_write_json(cfg_out *o, const config_setting_t *s);
void cfg_write_json_string(cfg_out *o, const char *s);
/* A value as an error message shows it after "got": libconfig syntax, cut
 * with "..." beyond about n characters. */
void cfg_describe(const config_setting_t *s, char *buf, size_t n);
/* Integer or float as a double (libconfig 1.5 does not convert by itself). */
double cfg_number(const config_setting_t *s);
int cfg_is_number(const config_setting_t *s);

/* ---- where a setting came from --------------------------------------------
 * Settings copied from a --set override carry the override text ("K=V") as
 * their hook; the rest come from `file` (or an @include'd one). Writes
 * "--set K=V" or "FILE:LINE". */
void cfg_where(const config_setting_t *s, const char *file, char *buf, size_t n);

/* ---- reading ---------------------------------------------------------------
 * Reads `path` into c (freshly config_init'ed), stepping around two libconfig
 * 1.5 traps first (lines stay where they were): integer literals beyond 32
 * bits get the L suffix (libconfig silently wraps them: seed = 5000000000
 * would read as 705032704), and an array mixing integers and floats, which
 * libconfig rejects ([0, 2.5, 5]), becomes a list. @include is resolved
 * relative to the file's folder. 0, or 2 with "FILE: cannot read: ..." or
 * "FILE:LINE: syntax error: ..." in err. */
int cfg_read_file(config_t *c, const char *path, char *err, size_t errlen);

/* Parses one value in libconfig syntax into `scratch` (config_init'ed) and
 * returns it, with the fix-ups of cfg_read_file. A text that is not one
 * valid value is a string (a bare word:
 * 16qam, tdl), unless it starts like an array, list, group or quoted string:
 * then NULL with libconfig's complaint in why. */
const config_setting_t *cfg_parse_value(config_t *scratch, const char *text, char *why,
                                        size_t whylen);

/* Sets the dotted `path` of c to a copy of `value`, creating missing groups
 * and replacing whatever was there. Every setting it creates gets `hook`.
 * 0; or -1 when a setting on the way is not a group: *blocker is set to it. */
int cfg_set_path(config_t *c, const char *path, const config_setting_t *value, void *hook,
                 const config_setting_t **blocker);

/* 1 when name is a valid libconfig setting name. */
int cfg_valid_name(const char *name);

/* The candidate closest to `name`, comparing whole dotted paths and their last
 * components; NULL when none is close enough to be a plausible typo. */
const char *cfg_suggest(const char *name, const char *const *candidates, size_t n);

#endif
