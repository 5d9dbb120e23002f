/* Reading a config file whole before libconfig sees it, so that a folder, a
 * binary file or an unreadable one gets a message instead of a silent stop,
 * its @include lines are ours (config/config_include.h) and the fix-ups of
 * cfg_fix_source reach every line, included ones too. */
#include "config/config_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/config_format.h"
#include "config/config_include.h"
#include "config/config_source.h"
#include "config/config_where.h"

/* text with every string literal blanked out: the first of a run of them
 * (libconfig joins "a" "b") becomes " 0 ", the others a blank, each keeping its
 * newlines (before the 0: libconfig counts a token's line where it ends).
 * Comments and unterminated strings stay as they are. */
static char *mask_strings(const char *text) {
  const size_t n = strlen(text);
  char *out = malloc(3 * n + 2); /* a string of 2 bytes or more becomes " 0 " */
  if (!out) return NULL;
  size_t o = 0, i = 0;
  int after_string = 0; /* the last token was a string: the next one joins it */
  while (text[i]) {
    const char c = text[i];
    if (c == '#' || (c == '/' && text[i + 1] == '/')) {
      while (text[i] && text[i] != '\n') out[o++] = text[i++];
    } else if (c == '/' && text[i + 1] == '*') {
      const char *close = strstr(text + i + 2, "*/");
      const size_t end = close ? (size_t)(close - text) + 2 : n;
      memcpy(out + o, text + i, end - i);
      o += end - i;
      i = end;
    } else if (c == '"') {
      size_t j = i + 1;
      while (text[j] && text[j] != '"') j += (text[j] == '\\' && text[j + 1]) ? 2 : 1;
      if (!text[j]) { /* unterminated: libconfig makes no token of it */
        memcpy(out + o, text + i, n - i);
        o += n - i;
        break;
      }
      for (size_t k = i; k < j; k++)
        if (text[k] == '\n') out[o++] = '\n';
      /* a lone 0 token where the string stood: the spaces keep it from
       * joining its neighbours (0x7f"x"ff must not read as 0x7f0ff) */
      if (!after_string) {
        out[o++] = ' ';
        out[o++] = '0';
      }
      out[o++] = ' ';
      after_string = 1;
      i = j + 1;
    } else {
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\f') after_string = 0;
      out[o++] = text[i++];
    }
  }
  out[o] = '\0';
  return out;
}

int cfg_parse_string(config_t *c, const char *text) {
  /* libconfig 1.5 leaks the text of a string literal when it is the token a
   * syntax error stops at (a = 1 "x";): bison has no destructor for it. So the
   * syntax is checked first on the text without strings, where no token owns
   * memory; what can still fail on the real text (an array of mixed types, a
   * setting named twice) stops on a token that is no string. */
  char *masked = mask_strings(text);
  if (!masked) return config_read_string(c, text);
  config_t probe;
  config_init(&probe);
  const int ok = config_read_string(&probe, masked);
  free(masked);
  if (!ok) {
    /* the complaint is a constant of libconfig's, it outlives probe */
    c->error_text = config_error_text(&probe);
    c->error_line = config_error_line(&probe);
    c->error_file = NULL;
    c->error_type = config_error_type(&probe);
  }
  config_destroy(&probe);
  return ok ? config_read_string(c, text) : CONFIG_FALSE;
}

/* Line `line` (1-based) of text, trimmed and with its control characters
 * escaped, into buf; 0 when there is none. */
static int line_text(const char *text, int line, char *buf, size_t n) {
  const char *p = text;
  for (int l = 1; l < line && p; l++) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  if (!p || !*p) return 0;
  while (*p == ' ' || *p == '\t') p++;
  size_t len = strcspn(p, "\r\n");
  while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
  if (len == 0) return 0;
  char raw[64];
  if (len > 60) snprintf(raw, sizeof raw, "%.57s...", p);
  else snprintf(raw, sizeof raw, "%.*s", (int)len, p);
  cfg_escape(raw, buf, n);
  return 1;
}

/* "FILE:LINE" of line `line` of the combined text. */
static void locate(const cfg_text *t, const char *path, int line, char *where, size_t n) {
  const cfg_origin o = cfg_text_origin(t, line);
  cfg_locate(o.file, path, o.line, where, n);
}

/* Parses t (the files' own text, before the fix-ups) into c. */
static int parse(config_t *c, const char *path, const cfg_text *t, char *err, size_t errlen) {
  int bad_line = 0;
  char bad[64], where[1100];
  char *fixed = cfg_fix_source(t->text, &bad_line, bad, sizeof bad);
  if (!fixed) {
    if (bad_line) {
      locate(t, path, bad_line, where, sizeof where);
      snprintf(err, errlen, "%s: syntax error: integer %s does not fit in 64 bits", where, bad);
    } else {
      snprintf(err, errlen, "%s: cannot read: %s", cfg_escape(path, where, sizeof where), strerror(ENOMEM));
    }
    return 2;
  }
  const int ok = cfg_parse_string(c, fixed);
  free(fixed);
  if (ok) {
    cfg_text_relocate(t, c);
    return 0;
  }
  char what[200], near[200];
  locate(t, path, config_error_line(c), where, sizeof where);
  cfg_syntax_text(c, what, sizeof what);
  /* the file's own words help find the spot, but only a config's: an
   * @include of another file ("/etc/shadow") must not show its content */
  const cfg_origin o = cfg_text_origin(t, config_error_line(c));
  const char *from = o.file ? o.file : path;
  const size_t from_len = strlen(from);
  if (from_len > 4 && !strcmp(from + from_len - 4, ".cfg") && line_text(t->text, config_error_line(c), near, sizeof near))
    snprintf(err, errlen, "%s: syntax error: %s, in: %s", where, what, near);
  else
    snprintf(err, errlen, "%s: syntax error: %s", where, what);
  return 2;
}

int cfg_read_file(config_t *c, const char *path, char *err, size_t errlen) {
  size_t len = 0;
  struct stat st;
  int error;
  char shown[1100];
  cfg_escape(path, shown, sizeof shown);
  char *text = cfg_read_whole(path, &len, &st, &error);
  if (!text) {
    snprintf(err, errlen, "%s: cannot read: %s", shown, cfg_read_strerror(error));
    return 2;
  }
  if (strlen(text) != len) {
    /* libconfig would stop reading there without a word */
    int line = 1;
    for (const char *q = text; *q; q++) line += *q == '\n';
    snprintf(err, errlen, "%s:%d: syntax error: a NUL byte (is this a text file?)", shown, line);
    free(text);
    return 2;
  }
  cfg_text t;
  int rc = cfg_include_expand(path, text, &st, &t, err, errlen);
  free(text);
  if (rc) return rc;
  rc = parse(c, path, &t, err, errlen);
  cfg_text_free(&t);
  return rc;
}
