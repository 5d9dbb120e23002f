/* @include done by us, not by libconfig: libconfig 1.5 would read an included
 * file itself, past the fix-ups of cfg_fix_source (an integer beyond 32 bits
 * silently wrapped), relative to the working folder or a single include
 * folder, and with flex's own words for a folder or a missing file. Here each
 * @include line is replaced by the included file's text before libconfig sees
 * anything, and a line map remembers which file and line every line of the
 * combined text came from. Private to config/. */
#ifndef OFDMSIM_CONFIG_INCLUDE_H
#define OFDMSIM_CONFIG_INCLUDE_H

#include <libconfig.h>
#include <stddef.h>
#include <sys/stat.h>

/* The deepest nesting of includes, as libconfig allows. */
#define CFG_INCLUDE_DEPTH 10

/* Where a line came from: file NULL is the top file (messages name it by the
 * path it was given by), else an included file's path as resolved (relative
 * to the including file's folder), kept for the life of the process. */
typedef struct cfg_origin {
  const char *file;
  unsigned line;
} cfg_origin;

/* A config's text with its includes in place. */
typedef struct cfg_text {
  char *text;          /* NUL-terminated */
  cfg_origin *origins; /* origins[k]: where line k + 1 of text came from */
  size_t n_lines;
} cfg_text;

/* The whole of path into a NUL-terminated buffer (the caller's to free), its
 * length in *len and its stat in *st; NULL with the errno in *error (EISDIR for
 * a folder, CFG_NOT_REGULAR for a device, FIFO or socket, CFG_TOO_BIG past
 * CFG_MAX_FILE_BYTES): cfg_read_strerror says which. */
char *cfg_read_whole(const char *path, size_t *len, struct stat *st, int *error);
#define CFG_NOT_REGULAR (-1)
#define CFG_TOO_BIG (-2)
#define CFG_MAX_FILE_BYTES (16ULL << 20)
const char *cfg_read_strerror(int error);

/* top_text (the text of the top file `top`, whose stat is *top_st) with every
 * @include "PATH" line (libconfig's syntax: at the start of a line after
 * blanks, with \\ and \" escapes in PATH) replaced by the text of PATH,
 * recursively. A relative PATH is taken next to the including file, an
 * absolute one as it is. 0, or 2 with "FILE:LINE: @include \"PATH\": ..." in
 * err (a file that cannot be read, a loop, nesting beyond CFG_INCLUDE_DEPTH, a
 * NUL byte, an unterminated PATH). */
int cfg_include_expand(const char *top, const char *top_text, const struct stat *top_st, cfg_text *out,
                       char *err, size_t errlen);

/* Where line `line` (1-based, as libconfig numbers the combined text) came
 * from; a line past the end counts on from the last one. */
cfg_origin cfg_text_origin(const cfg_text *t, int line);

/* Gives every setting of c (read from t's text) the file and line its text
 * came from, so that config_setting_source_file/line name the included file. */
void cfg_text_relocate(const cfg_text *t, config_t *c);

void cfg_text_free(cfg_text *t);

#endif
