/* @include expanded in the text, with a map from the combined lines back to
 * the files they came from. */
#include "config/config_include.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_format.h"
#include "config/grow_array.h"

/* ---- the files' names, kept for the life of the process ------------------
 * config_setting_t's file is a const char * that nobody frees; settings (and
 * the settings copied from them) may outlive any one config, so the names of
 * included files live here until exit. Few names, so a plain array. */
static char **interned;
static size_t n_interned, cap_interned;

static const char *intern(const char *name) {
  for (size_t i = 0; i < n_interned; i++)
    if (!strcmp(interned[i], name)) return interned[i];
  char **grown = grow_array(interned, &cap_interned, n_interned + 1, sizeof *grown, 16);
  if (!grown) return NULL;
  interned = grown;
  char *copy = strdup(name);
  if (!copy) return NULL;
  interned[n_interned++] = copy;
  return copy;
}

/* ---- reading ------------------------------------------------------------ */

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
    if (got == 0 || n > CFG_MAX_FILE_BYTES) break;
  }
  if (ferror(f)) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

char *cfg_read_whole(const char *path, size_t *len, struct stat *st, int *error) {
  /* O_NONBLOCK: opening a FIFO for reading would wait for a writer forever */
  const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *error = errno;
    return NULL;
  }
  /* only a regular file: a folder fails with EISDIR (say so first), and
   * /dev/zero or a FIFO would be read until memory runs out */
  if (fstat(fd, st) != 0) {
    *error = errno;
    close(fd);
    return NULL;
  }
  if (!S_ISREG(st->st_mode)) {
    *error = S_ISDIR(st->st_mode) ? EISDIR : CFG_NOT_REGULAR;
    close(fd);
    return NULL;
  }
  if ((unsigned long long)st->st_size > CFG_MAX_FILE_BYTES) {
    *error = CFG_TOO_BIG;
    close(fd);
    return NULL;
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    *error = errno;
    close(fd);
    return NULL;
  }
  errno = 0;
  char *text = slurp(f, len);
  *error = errno ? errno : ENOMEM;
  fclose(f);
  if (text && *len > CFG_MAX_FILE_BYTES) { /* it grew while read */
    free(text);
    *error = CFG_TOO_BIG;
    return NULL;
  }
  return text;
}

const char *cfg_read_strerror(int error) {
  if (error == CFG_NOT_REGULAR) return "expected a regular file, got a device, FIFO or socket";
  if (error == CFG_TOO_BIG) return "expected a config file of at most 16 MiB, got a larger one";
  return strerror(error);
}

/* ---- the combined text ---------------------------------------------------- */

typedef struct frame {
  const char *name; /* the path the file was opened by, as messages name it */
  dev_t dev;
  ino_t ino;
} frame;

typedef struct expander {
  char *text;
  size_t len, cap;
  cfg_origin *origins;
  size_t n_lines, cap_lines;
  int at_line_start;
  frame chain[CFG_INCLUDE_DEPTH + 1]; /* chain[0] the top file, chain[depth] the one being read */
  char *err;
  size_t errlen;
} expander;

static int oom(expander *x, const char *name) {
  char e[512];
  snprintf(x->err, x->errlen, "%s: cannot read: %s", cfg_escape(name, e, sizeof e), strerror(ENOMEM));
  return 2;
}

/* Appends s[0, n) of `file` (NULL: the top file), whose first character is
 * on line *line; each line of the combined text that starts here gets its
 * origin. */
static int put(expander *x, const char *s, size_t n, const char *file, unsigned *line) {
  char *text = grow_array(x->text, &x->cap, x->len + n + 1, 1, 4096);
  if (!text) return -1;
  x->text = text;
  for (size_t i = 0; i < n; i++) {
    if (x->at_line_start) {
      cfg_origin *origins = grow_array(x->origins, &x->cap_lines, x->n_lines + 1, sizeof *origins, 256);
      if (!origins) return -1;
      x->origins = origins;
      x->origins[x->n_lines++] = (cfg_origin){file, *line};
      x->at_line_start = 0;
    }
    x->text[x->len++] = s[i];
    if (s[i] == '\n') {
      ++*line;
      x->at_line_start = 1;
    }
  }
  x->text[x->len] = '\0';
  return 0;
}

/* The end of the comment or string at s[i], or i when none starts there;
 * *lines counts the newlines it holds. An unterminated one ends the text. */
static size_t skip_literal(const char *s, size_t i, unsigned *lines) {
  size_t j = i;
  if (s[i] == '#' || (s[i] == '/' && s[i + 1] == '/')) {
    while (s[j] && s[j] != '\n') j++;
    return j;
  }
  if (s[i] == '/' && s[i + 1] == '*') {
    j += 2;
    while (s[j] && !(s[j] == '*' && s[j + 1] == '/')) *lines += s[j++] == '\n';
    return s[j] ? j + 2 : j;
  }
  if (s[i] == '"') {
    j++;
    while (s[j] && s[j] != '"') {
      if (s[j] == '\\' && s[j + 1]) j++;
      *lines += s[j++] == '\n';
    }
    return s[j] ? j + 1 : j;
  }
  return i;
}

/* At s[i], the start of a line: the @include there, as libconfig's scanner
 * matches it (^[ \t]*@include[ \t]+\"): the index of the opening quote, or 0
 * when the line is no include. */
static size_t include_quote(const char *s, size_t i) {
  i += strspn(s + i, " \t");
  if (strncmp(s + i, "@include", 8) || (s[i + 8] != ' ' && s[i + 8] != '\t')) return 0;
  i += 8;
  i += strspn(s + i, " \t");
  return s[i] == '"' ? i : 0;
}

/* The file name of the string literal at s[q] (a '"') into name (room for
 * the rest of the line), unescaping \\ and \" as libconfig does; the index
 * after the closing quote, or 0 when the line ends first. */
static size_t include_name(const char *s, size_t q, char *name) {
  size_t j = q + 1, o = 0;
  for (; s[j] && s[j] != '"' && s[j] != '\n'; j++) {
    if (s[j] == '\\' && (s[j + 1] == '\\' || s[j + 1] == '"')) j++;
    name[o++] = s[j];
  }
  name[o] = '\0';
  return s[j] == '"' ? j + 1 : 0;
}

/* `name` as the file `from` names it: next to `from` unless absolute. -1
 * when that does not fit in n. */
static int resolve(const char *from, const char *name, char *out, size_t n) {
  const char *slash = strrchr(from, '/');
  const size_t dir = name[0] == '/' || !slash ? 0 : (size_t)(slash - from + 1);
  if (dir + strlen(name) >= n) return -1;
  memcpy(out, from, dir);
  strcpy(out + dir, name);
  return 0;
}

/* "a.cfg -> b.cfg -> ... -> last" */
static void chain_text(const expander *x, int depth, const char *last, char *buf, size_t n) {
  size_t len = 0;
  char e[512];
  buf[0] = '\0';
  for (int d = 0; d <= depth && len < n; d++)
    len += (size_t)snprintf(buf + len, n - len, "%s -> ", cfg_escape(x->chain[d].name, e, sizeof e));
  if (len < n) snprintf(buf + len, n - len, "%s", cfg_escape(last, e, sizeof e));
}

static int expand(expander *x, const char *s, const char *file, int depth);

/* The @include of line `line` of chain[depth], naming `name`: its file's text
 * in place. */
static int include_one(expander *x, int depth, unsigned line, const char *name) {
  char path[4096], where[600], quoted[600], chain[1500];
  const char *from = x->chain[depth].name;
  snprintf(where, sizeof where, "%s:%u: @include \"%s\"", cfg_escape(from, path, sizeof path), line,
           cfg_escape(name, quoted, sizeof quoted));
  size_t len;
  struct stat st;
  int error = ENAMETOOLONG;
  char *text = resolve(from, name, path, sizeof path) ? NULL : cfg_read_whole(path, &len, &st, &error);
  if (!text) {
    snprintf(x->err, x->errlen, "%s: cannot read: %s", where, cfg_read_strerror(error));
    return 2;
  }
  int rc = 0;
  for (int d = 0; d <= depth && !rc; d++)
    if (x->chain[d].dev == st.st_dev && x->chain[d].ino == st.st_ino) {
      chain_text(x, depth, path, chain, sizeof chain);
      snprintf(x->err, x->errlen, "%s: expected no include loop, got %s", where, chain);
      rc = 2;
    }
  if (!rc && depth + 1 > CFG_INCLUDE_DEPTH) {
    chain_text(x, depth, path, chain, sizeof chain);
    snprintf(x->err, x->errlen, "%s: expected includes nested at most %d deep, got %s", where,
             CFG_INCLUDE_DEPTH, chain);
    rc = 2;
  }
  if (!rc && strlen(text) != len) {
    /* libconfig would stop reading there without a word */
    unsigned at = 1;
    for (const char *q = text; *q; q++) at += *q == '\n';
    snprintf(x->err, x->errlen, "%s:%u: syntax error: a NUL byte (is this a text file?)",
             cfg_escape(path, quoted, sizeof quoted), at);
    rc = 2;
  }
  const char *kept = rc ? NULL : intern(path);
  if (!rc && !kept) rc = oom(x, path);
  if (!rc) {
    x->chain[depth + 1] = (frame){kept, st.st_dev, st.st_ino};
    rc = expand(x, text, kept, depth + 1);
  }
  free(text);
  /* the rest of the @include line goes on a line of its own */
  unsigned ignored = 0;
  if (!rc && !x->at_line_start && put(x, "\n", 1, kept, &ignored)) rc = oom(x, path);
  return rc;
}

/* Appends s, the text of chain[depth] (`file` as origins name it), with its
 * includes in place. */
static int expand(expander *x, const char *s, const char *file, int depth) {
  size_t i = 0, from = 0; /* s[from, i) is yet to be put */
  unsigned line = 1, from_line = 1;
  while (s[i]) {
    size_t q;
    if ((i == 0 || s[i - 1] == '\n') && (q = include_quote(s, i))) {
      char *name = malloc(strcspn(s + q, "\n") + 1);
      if (!name) return oom(x, x->chain[depth].name);
      const size_t after = include_name(s, q, name);
      if (!after) {
        free(name);
        char e[512];
        snprintf(x->err, x->errlen, "%s:%u: syntax error: @include: expected a file name in quotes on one line",
                 cfg_escape(x->chain[depth].name, e, sizeof e), line);
        return 2;
      }
      if (put(x, s + from, i - from, file, &from_line)) {
        free(name);
        return oom(x, x->chain[depth].name);
      }
      const int rc = include_one(x, depth, line, name);
      free(name);
      if (rc) return rc;
      i = from = after;
      from_line = line;
      continue;
    }
    const size_t end = skip_literal(s, i, &line);
    if (end > i) {
      i = end;
      continue;
    }
    line += s[i++] == '\n';
  }
  return put(x, s + from, i - from, file, &from_line) ? oom(x, x->chain[depth].name) : 0;
}

int cfg_include_expand(const char *top, const char *top_text, const struct stat *top_st, cfg_text *out,
                       char *err, size_t errlen) {
  expander x = {0};
  x.at_line_start = 1;
  x.err = err;
  x.errlen = errlen;
  x.chain[0] = (frame){top, top_st->st_dev, top_st->st_ino};
  memset(out, 0, sizeof *out);
  const int rc = expand(&x, top_text, NULL, 0);
  if (!rc && !x.text && !(x.text = calloc(1, 1))) return oom(&x, top); /* an empty file */
  if (rc) {
    free(x.text);
    free(x.origins);
    return rc;
  }
  out->text = x.text;
  out->origins = x.origins;
  out->n_lines = x.n_lines;
  return 0;
}

cfg_origin cfg_text_origin(const cfg_text *t, int line) {
  if (line < 1 || t->n_lines == 0) return (cfg_origin){NULL, line > 0 ? (unsigned)line : 0};
  if ((size_t)line <= t->n_lines) return t->origins[line - 1];
  cfg_origin last = t->origins[t->n_lines - 1];
  last.line += (unsigned)((size_t)line - t->n_lines);
  return last;
}

static void relocate(const cfg_text *t, config_setting_t *s) {
  for (int i = 0; i < config_setting_length(s); i++) {
    config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
    if (e->line > 0) {
      const cfg_origin o = cfg_text_origin(t, (int)e->line);
      e->line = o.line;
      e->file = o.file;
    }
    if (config_setting_is_aggregate(e)) relocate(t, e);
  }
}

void cfg_text_relocate(const cfg_text *t, config_t *c) { relocate(t, config_root_setting(c)); }

void cfg_text_free(cfg_text *t) {
  if (!t) return;
  free(t->text);
  free(t->origins);
  memset(t, 0, sizeof *t);
}
