/* Settings written back out in libconfig syntax: the effective-config echo,
 * and values as error messages quote them. Private to config/, but for
 * cfg_escape, which every message quoting user text uses (app/opts.c and
 * app/cli.c too). */
#ifndef OFDMSIM_CONFIG_FORMAT_H
#define OFDMSIM_CONFIG_FORMAT_H

#include <libconfig.h>
#include <stddef.h>
#include <stdio.h>

/* Where the text goes: a FILE, or a bounded string that remembers it was cut. */
typedef struct cfg_out {
  FILE *f;          /* non-NULL: write here */
  char *buf;        /* else: append here, NUL-terminated */
  size_t cap, len;
  int cut;          /* something did not fit in buf */
} cfg_out;

cfg_out cfg_out_file(FILE *f);
cfg_out cfg_out_buffer(char *buf, size_t cap);
void cfg_printf(cfg_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A number as printf wrote it ("1.5e+09", "2e-05", "120") copied to buf[n]
 * with its exponent as a person writes it: no '+', no leading zeros
 * ("1.5e9", "2e-5"). */
void cfg_tidy_exponent(const char *printed, char *buf, size_t n);

/* A setting's value in libconfig syntax that reads back the same (aggregates
 * on one line). */
void cfg_write_value(cfg_out *o, const config_setting_t *s);
/* A string, quoted and escaped for libconfig. */
void cfg_write_string(cfg_out *o, const char *s);
/* A value as an error message shows it after "got": libconfig syntax, cut
 * with "..." beyond about n characters. */
void cfg_describe(const config_setting_t *s, char *buf, size_t n);

/* s as a message may quote it: every control character (C0, DEL, and the C1
 * controls as UTF-8 spells them) written as an escape (\n, \t, \r, \x1b,
 * \xc2\x9b), so that text from a command line or a file keeps an error message
 * on one line and cannot drive the terminal; other bytes, backslashes
 * included, stay as they are. Cut with "..." when it does not fit in n. Returns
 * buf, so that it can stand in a printf argument list. */
const char *cfg_escape(const char *s, char *buf, size_t n);

#endif
