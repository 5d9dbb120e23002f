/* Reading config files and --set values, editing the tree at dotted paths,
 * locating settings, and suggesting names. */
#include "sim/config_tree.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- source fix-ups ------------------------------------------------------------
 * libconfig 1.5 has two traps this code steps around before parsing, keeping
 * every line where it was:
 *  - an integer literal beyond 32 bits without an L suffix silently wraps
 *    (seed = 5000000000 reads as 705032704): such literals get their L;
 *  - an array must hold one type, so [0, 2.5, 5] does not parse: an array
 *    that mixes integers and floats becomes the list (0, 2.5, 5). */

static int is_name_start(int c) { return isalpha(c) || c == '*'; }
static int is_name_char(int c) { return isalnum(c) || c == '-' || c == '_' || c == '*'; }

typedef enum { TOK_END, TOK_SPACE, TOK_COMMENT, TOK_STRING, TOK_NAME, TOK_NUMBER, TOK_CHAR } tok_kind;

/* The token at src[i]: its kind, and its end in *end. */
static tok_kind next_token(const char *src, size_t i, size_t *end) {
  const char c = src[i];
  size_t j = i + 1;
  if (c == '\0') {
    *end = i;
    return TOK_END;
  }
  if (isspace((unsigned char)c)) {
    *end = j;
    return TOK_SPACE;
  }
  if (c == '#' || (c == '/' && src[j] == '/')) {
    while (src[j] && src[j] != '\n') j++;
    *end = j;
    return TOK_COMMENT;
  }
  if (c == '/' && src[j] == '*') {
    j++;
    while (src[j] && !(src[j] == '*' && src[j + 1] == '/')) j++;
    *end = src[j] ? j + 2 : j;
    return TOK_COMMENT;
  }
  if (c == '"') {
    while (src[j] && src[j] != '"') j += (src[j] == '\\' && src[j + 1]) ? 2 : 1;
    *end = src[j] ? j + 1 : j;
    return TOK_STRING;
  }
  if (is_name_start((unsigned char)c)) {
    while (is_name_char((unsigned char)src[j])) j++;
    *end = j;
    return TOK_NAME;
  }
  if (isdigit((unsigned char)c) || ((c == '-' || c == '+' || c == '.') && isdigit((unsigned char)src[j]))) {
    const int hex = c == '0' && (src[j] == 'x' || src[j] == 'X');
    while (isalnum((unsigned char)src[j]) || src[j] == '.' ||
           (!hex && (src[j] == '+' || src[j] == '-') && (src[j - 1] == 'e' || src[j - 1] == 'E')))
      j++;
    *end = j;
    return TOK_NUMBER;
  }
  *end = j;
  return TOK_CHAR;
}

typedef enum { NUM_OTHER, NUM_INT, NUM_FLOAT } num_kind;

/* What a number token is; for integers, *needs_l: 1 when it needs an L, -1
 * when no libconfig integer type holds it. */
static num_kind number_kind(const char *tok, size_t len, int *needs_l) {
  char t[64];
  *needs_l = 0;
  if (len >= sizeof t) len = sizeof t - 1;
  memcpy(t, tok, len);
  t[len] = '\0';
  int has_l = 0;
  while (len > 0 && (t[len - 1] == 'L' || t[len - 1] == 'l')) {
    t[--len] = '\0';
    has_l = 1;
  }
  if (len == 0) return NUM_OTHER;
  if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    if (!t[2] || strspn(t + 2, "0123456789abcdefABCDEF") != len - 2) return NUM_OTHER;
    errno = 0;
    const unsigned long long v = strtoull(t, NULL, 16);
    if (errno == ERANGE || v > (unsigned long long)INT64_MAX) *needs_l = -1;
    else *needs_l = !has_l && v > (unsigned long long)INT32_MAX;
    return NUM_INT;
  }
  const char *digits = (t[0] == '-' || t[0] == '+') ? t + 1 : t;
  if (*digits && strspn(digits, "0123456789") == strlen(digits)) {
    errno = 0;
    const long long v = strtoll(t, NULL, 10);
    if (errno == ERANGE) *needs_l = -1;
    else *needs_l = !has_l && (v > INT32_MAX || v < INT32_MIN);
    return NUM_INT;
  }
  char *stop;
  strtod(t, &stop);
  return !has_l && *stop == '\0' ? NUM_FLOAT : NUM_OTHER;
}

/* For the '[' at src[i]: 1 when its array mixes integers and floats, with the
 * matching ']' in *close. */
static int array_is_mixed(const char *src, size_t i, size_t *close) {
  int ints = 0, floats = 0, dummy;
  size_t j = i + 1, end;
  for (tok_kind k; (k = next_token(src, j, &end)) != TOK_END; j = end) {
    if (k == TOK_NUMBER) {
      const num_kind nk = number_kind(src + j, end - j, &dummy);
      ints += nk == NUM_INT;
      floats += nk == NUM_FLOAT;
    } else if (k == TOK_CHAR && src[j] == ']') {
      *close = j;
      return ints && floats;
    } else if (k == TOK_STRING || k == TOK_NAME || (k == TOK_CHAR && strchr("[({;=:", src[j]))) {
      return 0; /* not a plain numeric array: leave it to libconfig */
    }
  }
  return 0;
}

/* src with the fix-ups above. NULL on an integer beyond 64 bits (its line in
 * *bad_line, its text in bad) or when out of memory (*bad_line == 0). */
static char *fix_source(const char *src, int *bad_line, char *bad, size_t badlen) {
  const size_t n = strlen(src);
  char *out = malloc(n + n / 8 + 2); /* an L per literal of at least 10 characters */
  if (!out) return NULL;
  size_t o = 0, end, list_close = SIZE_MAX;
  int line = 1;
  *bad_line = 0;
  for (size_t i = 0; next_token(src, i, &end) != TOK_END; i = end) {
    const tok_kind k = next_token(src, i, &end);
    int needs_l = 0;
    if (k == TOK_NUMBER && number_kind(src + i, end - i, &needs_l) == NUM_INT && needs_l < 0) {
      *bad_line = line;
      snprintf(bad, badlen, "%.*s", (int)(end - i > 40 ? 40 : end - i), src + i);
      free(out);
      return NULL;
    }
    size_t close;
    if (k == TOK_CHAR && src[i] == '[' && array_is_mixed(src, i, &close)) {
      list_close = close;
      out[o++] = '(';
    } else if (k == TOK_CHAR && i == list_close) {
      out[o++] = ')';
    } else {
      memcpy(out + o, src + i, end - i);
      o += end - i;
      if (needs_l > 0) out[o++] = 'L';
    }
    for (size_t q = i; q < end; q++) line += src[q] == '\n';
  }
  out[o] = '\0';
  return out;
}

/* ---- reading --------------------------------------------------------------- */

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

/* libconfig's complaint, with a hint where its words are cryptic. */
static void syntax_text(const config_t *c, char *buf, size_t n) {
  const char *text = config_error_text(c) ? config_error_text(c) : "unknown error";
  if (!strcmp(text, "mismatched element type in array"))
    snprintf(buf, n, "%s (an array holds one type: write [0.0, 10.0] or use a list (0, 10.5))", text);
  else
    snprintf(buf, n, "%s", text);
}

int cfg_read_file(config_t *c, const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    return 2;
  }
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    fclose(f);
    snprintf(err, errlen, "%s: cannot read: %s", path, strerror(EISDIR));
    return 2;
  }
  size_t len = 0;
  errno = 0;
  char *text = slurp(f, &len);
  const int read_errno = errno ? errno : ENOMEM;
  fclose(f);
  if (!text) {
    snprintf(err, errlen, "%s: cannot read: %s", path, strerror(read_errno));
    return 2;
  }
  if (strlen(text) != len) {
    /* libconfig would stop reading there without a word */
    int line = 1;
    for (const char *q = text; *q; q++) line += *q == '\n';
    snprintf(err, errlen, "%s:%d: syntax error: a NUL byte (is this a text file?)", path, line);
    free(text);
    return 2;
  }
  int bad_line = 0;
  char bad[64];
  char *wide = fix_source(text, &bad_line, bad, sizeof bad);
  if (!wide) {
    if (bad_line)
      snprintf(err, errlen, "%s:%d: syntax error: integer %s does not fit in 64 bits", path,
               bad_line, bad);
    else
      snprintf(err, errlen, "%s: cannot read: %s", path, strerror(ENOMEM));
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
  const int ok = config_read_string(c, wide);
  free(wide);
  if (!ok) {
    const char *efile = config_error_file(c);
    const int eline = config_error_line(c);
    const char *etext = config_error_text(c) ? config_error_text(c) : "unknown error";
    char near[80], what[200];
    syntax_text(c, what, sizeof what);
    etext = what;
    if (!efile && line_text(text, eline, near, sizeof near))
      snprintf(err, errlen, "%s:%d: syntax error: %s, in: %s", path, eline, etext, near);
    else
      snprintf(err, errlen, "%s:%d: syntax error: %s", efile ? efile : path, eline, etext);
    free(text);
    return 2;
  }
  free(text);
  return 0;
}

/* ---- values from the command line ----------------------------------------- */

static const config_setting_t *single_v(config_t *scratch) {
  const config_setting_t *root = config_root_setting(scratch);
  if (config_setting_length(root) != 1) return NULL;
  const config_setting_t *v = config_setting_get_elem(root, 0);
  return strcmp(config_setting_name(v), "v") ? NULL : v;
}

static void put_escaped(char *dst, const char *s) {
  char *o = dst;
  for (; *s; s++) {
    const unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') {
      *o++ = '\\';
      *o++ = (char)ch;
    } else if (ch < 0x20 || ch == 0x7f) {
      o += sprintf(o, "\\x%02x", ch);
    } else {
      *o++ = (char)ch;
    }
  }
  *o = '\0';
}

const config_setting_t *cfg_parse_value(config_t *scratch, const char *text, char *why, size_t whylen) {
  const size_t n = strlen(text);
  int bad_line;
  char bad[64];
  snprintf(why, whylen, "out of memory");
  char *wide = fix_source(text, &bad_line, bad, sizeof bad);
  const char *first = text + strspn(text, " \t");
  const int structured = *first && strchr("[({\"", *first);
  if (!wide && bad_line) {
    snprintf(why, whylen, "integer %s does not fit in 64 bits", bad);
    if (structured) return NULL;
  }
  if (wide) {
    char *src = malloc(strlen(wide) + 8);
    if (src) {
      /* the newline keeps a trailing # comment from swallowing the ';' */
      sprintf(src, "v = %s\n;", wide);
      const int ok = config_read_string(scratch, src);
      free(src);
      if (ok && single_v(scratch)) {
        free(wide);
        return single_v(scratch);
      }
      if (!ok) syntax_text(scratch, why, whylen);
      else snprintf(why, whylen, "more than one value");
    }
    free(wide);
    config_destroy(scratch);
    config_init(scratch);
    if (structured) return NULL;
  }
  /* not one libconfig value: a bare word, so a string */
  char *src = malloc(4 * n + 8);
  if (!src) return NULL;
  strcpy(src, "v = \"");
  put_escaped(src + 5, text);
  strcat(src, "\";");
  const int ok = config_read_string(scratch, src);
  free(src);
  return ok ? single_v(scratch) : NULL;
}

/* ---- editing ------------------------------------------------------------------ */

int cfg_valid_name(const char *name) {
  if (!is_name_start((unsigned char)name[0])) return 0;
  for (const char *p = name; *p; p++)
    if (!is_name_char((unsigned char)*p)) return 0;
  return 1;
}

static config_setting_t *copy_into(config_setting_t *parent, const char *name,
                                   const config_setting_t *src, void *hook) {
  config_setting_t *d = config_setting_add(parent, name, config_setting_type(src));
  if (!d) return NULL;
  d->line = src->line;
  config_setting_set_hook(d, hook);
  switch (config_setting_type(src)) {
    case CONFIG_TYPE_INT: config_setting_set_int(d, config_setting_get_int(src)); break;
    case CONFIG_TYPE_INT64: config_setting_set_int64(d, config_setting_get_int64(src)); break;
    case CONFIG_TYPE_FLOAT: config_setting_set_float(d, config_setting_get_float(src)); break;
    case CONFIG_TYPE_BOOL: config_setting_set_bool(d, config_setting_get_bool(src)); break;
    case CONFIG_TYPE_STRING: config_setting_set_string(d, config_setting_get_string(src)); break;
    default: /* aggregates */
      for (int i = 0; i < config_setting_length(src); i++) {
        const config_setting_t *e = config_setting_get_elem(src, (unsigned)i);
        if (!copy_into(d, config_setting_name(e), e, hook)) return NULL;
      }
  }
  return d;
}

int cfg_set_path(config_t *c, const char *path, const config_setting_t *value, void *hook,
                 const config_setting_t **blocker) {
  *blocker = NULL;
  config_setting_t *g = config_root_setting(c);
  char comp[256];
  const char *p = path;
  for (;;) {
    const size_t len = strcspn(p, ".");
    if (len == 0 || len >= sizeof comp) return -1;
    memcpy(comp, p, len);
    comp[len] = '\0';
    if (!cfg_valid_name(comp)) return -1;
    if (p[len] == '\0') break;
    config_setting_t *m = config_setting_get_member(g, comp);
    if (!m) {
      m = config_setting_add(g, comp, CONFIG_TYPE_GROUP);
      if (!m) return -1;
      config_setting_set_hook(m, hook);
    } else if (!config_setting_is_group(m)) {
      *blocker = m;
      return -1;
    }
    g = m;
    p += len + 1;
  }
  if (config_setting_get_member(g, comp)) config_setting_remove(g, comp);
  return copy_into(g, comp, value, hook) ? 0 : -1;
}

void cfg_where(const config_setting_t *s, const char *file, char *buf, size_t n) {
  const char *origin = config_setting_get_hook(s);
  if (origin) {
    snprintf(buf, n, "--set %s", origin);
  } else if (s->file) {
    const char *dir = s->config ? config_get_include_dir(s->config) : NULL;
    if (dir && s->file[0] != '/') snprintf(buf, n, "%s/%s:%u", dir, s->file, s->line);
    else snprintf(buf, n, "%s:%u", s->file, s->line);
  } else {
    snprintf(buf, n, "%s:%u", file, s->line);
  }
}

/* ---- suggestions -------------------------------------------------------------- */

/* Levenshtein distance, blind to case (QPSK is a plausible typo of qpsk). */
static size_t edit_distance(const char *a, const char *b) {
  const size_t la = strlen(a), lb = strlen(b);
  if (la > 127 || lb > 127) return SIZE_MAX;
  size_t prev[128], cur[128];
  for (size_t j = 0; j <= lb; j++) prev[j] = j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      const size_t sub = prev[j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
      const size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
    memcpy(prev, cur, (lb + 1) * sizeof *prev);
  }
  return prev[lb];
}

static const char *last_component(const char *path) {
  const char *dot = strrchr(path, '.');
  return dot ? dot + 1 : path;
}

const char *cfg_suggest(const char *name, const char *const *candidates, size_t n) {
  const char *best = NULL;
  size_t best_score = SIZE_MAX, best_full = SIZE_MAX;
  const char *nl = last_component(name);
  for (size_t i = 0; i < n; i++) {
    const size_t full = edit_distance(name, candidates[i]);
    const char *cl = last_component(candidates[i]);
    const size_t last = edit_distance(nl, cl);
    const size_t nlen = strlen(nl), clen = strlen(cl), longest = nlen > clen ? nlen : clen;
    /* a typo changes a character or two of a longer name, or leaves more than
     * half of it; or the name is the start of the candidate (rho -> rho_tx) */
    const int plausible = (full <= 2 && 2 * full < strlen(name)) || (last != SIZE_MAX && 2 * last < longest) ||
                          (nlen >= 2 && !strncmp(cl, nl, nlen));
    if (!plausible) continue;
    const size_t score = full < last ? full : last;
    if (score < best_score || (score == best_score && full < best_full)) {
      best = candidates[i];
      best_score = score;
      best_full = full;
    }
  }
  return best;
}
