/* Reading a config file whole before libconfig sees it, so that a folder, a
 * binary file or an unreadable one gets a message instead of a silent stop. */
#include "sim/config_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/config_source.h"
#include "sim/config_where.h"

static char *slurp(FILE *f, size_t *len) {
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  if (!buf) return NULL;
  for (;;) {
    if (cap - n < 2) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        return NULL;
      }
      buf = nb;
      cap *= 2;
    }
    const size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  if (ferror(f)) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* The whole text of path, NUL-terminated; NULL with "FILE: cannot read: ..." in err. */
static char *read_text(const char *path, size_t *len, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    fclose(f);
    snprintf(err, errlen, "%s: cannot read: %s", path, strerror(EISDIR));
    return NULL;
  }
  errno = 0;
  char *text = slurp(f, len);
  const int read_errno = errno ? errno : ENOMEM;
  fclose(f);
  if (!text) snprintf(err, errlen, "%s: cannot read: %s", path, strerror(read_errno));
  return text;
}

/* Line `line` (1-based) of text, trimmed, into buf; 0 when there is none. */
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
  if (len > 60) snprintf(buf, n, "%.57s...", p);
  else snprintf(buf, n, "%.*s", (int)len, p);
  return 1;
}

/* Parses text (the file's own, before the fix-ups) into c. */
static int parse(config_t *c, const char *path, const char *text, char *err, size_t errlen) {
  int bad_line = 0;
  char bad[64];
  char *fixed = cfg_fix_source(text, &bad_line, bad, sizeof bad);
  if (!fixed) {
    if (bad_line)
      snprintf(err, errlen, "%s:%d: syntax error: integer %s does not fit in 64 bits", path, bad_line, bad);
    else
      snprintf(err, errlen, "%s: cannot read: %s", path, strerror(ENOMEM));
    return 2;
  }
  const int ok = config_read_string(c, fixed);
  free(fixed);
  if (ok) return 0;
  char where[1100], what[200], near[80];
  cfg_locate(c, config_error_file(c), path, (unsigned)config_error_line(c), where, sizeof where);
  cfg_syntax_text(c, what, sizeof what);
  /* the top file's own words help find the spot; an included file's we do not hold */
  if (!config_error_file(c) && line_text(text, config_error_line(c), near, sizeof near))
    snprintf(err, errlen, "%s: syntax error: %s, in: %s", where, what, near);
  else
    snprintf(err, errlen, "%s: syntax error: %s", where, what);
  return 2;
}

int cfg_read_file(config_t *c, const char *path, char *err, size_t errlen) {
  size_t len = 0;
  char *text = read_text(path, &len, err, errlen);
  if (!text) return 2;
  if (strlen(text) != len) {
    /* libconfig would stop reading there without a word */
    int line = 1;
    for (const char *q = text; *q; q++) line += *q == '\n';
    snprintf(err, errlen, "%s:%d: syntax error: a NUL byte (is this a text file?)", path, line);
    free(text);
    return 2;
  }
  /* @include "x.cfg" means next to this file, not next to the working folder */
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) {
    slash[slash == dir ? 1 : 0] = '\0';
    config_set_include_dir(c, dir);
  }
  const int rc = parse(c, path, text, err, errlen);
  free(text);
  return rc;
}
