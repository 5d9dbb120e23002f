/* The libconfig 1.5 fix-ups, done on the tokens of the text so that strings
 * and comments are left alone. */
#include "config/config_source.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int is_name_start(int c) { return isalpha(c) || c == '*'; }
static int is_name_char(int c) { return isalnum(c) || c == '-' || c == '_' || c == '*'; }

int cfg_valid_name(const char *name) {
  if (!is_name_start((unsigned char)name[0])) return 0;
  for (const char *p = name; *p; p++)
    if (!is_name_char((unsigned char)*p)) return 0;
  return 1;
}

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
static num_kind classify(char *t, size_t len, int *needs_l);

static num_kind number_kind(const char *tok, size_t len, int *needs_l) {
  /* the whole token: a cut copy of 0000...0004294967298 would read as 0 */
  char small[64], *t = len < sizeof small ? small : malloc(len + 1);
  *needs_l = 0;
  if (!t) return NUM_OTHER;
  memcpy(t, tok, len);
  t[len] = '\0';
  const num_kind k = classify(t, len, needs_l);
  if (t != small) free(t);
  return k;
}

static num_kind classify(char *t, size_t len, int *needs_l) {
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

/* For the '[' at src[i]: 1 when libconfig would refuse it as an array (an
 * array holds scalars of one type) but reads it as a list: its scalars are of
 * more than one kind ([0, 2.5], [2, "zf"]) or its elements are arrays or lists
 * ([[2, 2], [4, 4]]). The matching ']' in *close. */
static int array_as_list(const char *src, size_t i, size_t *close) {
  int kinds = 0, depth = 0, nested = 0, dummy;
  size_t j = i + 1, end;
  for (tok_kind k; (k = next_token(src, j, &end)) != TOK_END; j = end) {
    const char c = src[j];
    if (k == TOK_SPACE || k == TOK_COMMENT || (k == TOK_CHAR && c == ',')) continue;
    if (k == TOK_CHAR && (c == '[' || c == '(')) {
      nested |= depth++ == 0;
      continue;
    }
    if (k == TOK_CHAR && (c == ']' || c == ')')) {
      if (depth-- > 0) continue;
      *close = j;
      /* two kinds or more: more than one bit of kinds */
      return c == ']' && (nested || (kinds & (kinds - 1)) != 0);
    }
    if (depth > 0) continue; /* inside an element: its own '[' decides for it */
    if (k == TOK_NUMBER) {
      const num_kind nk = number_kind(src + j, end - j, &dummy);
      if (nk == NUM_OTHER) return 0;
      /* an integer that will carry an L is libconfig's int64, another type
       * than a plain int: [2, 4294967298] must become a list too */
      const int wide = nk == NUM_INT && (dummy > 0 || src[end - 1] == 'L' || src[end - 1] == 'l');
      kinds |= nk == NUM_INT ? (wide ? 16 : 1) : 2;
    } else if (k == TOK_STRING) {
      kinds |= 4;
    } else if (k == TOK_NAME && ((end - j == 4 && !strncasecmp(src + j, "true", 4)) ||
                                 (end - j == 5 && !strncasecmp(src + j, "false", 5)))) {
      kinds |= 8;
    } else {
      return 0; /* not a plain array of values: leave it to libconfig */
    }
  }
  return 0;
}

char *cfg_fix_source(const char *src, int *bad_line, char *bad, size_t badlen) {
  const size_t n = strlen(src);
  char *out = malloc(n + n / 8 + 2); /* an L per literal of at least 10 characters */
  *bad_line = 0;
  if (!out) return NULL;
  size_t o = 0, end, closes[32], n_closes = 0; /* the ']' of the arrays made lists, innermost last */
  int line = 1;
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
    if (k == TOK_CHAR && src[i] == '[' && n_closes < sizeof closes / sizeof *closes && array_as_list(src, i, &close)) {
      closes[n_closes++] = close;
      out[o++] = '(';
    } else if (k == TOK_CHAR && n_closes > 0 && i == closes[n_closes - 1]) {
      n_closes--;
      out[o++] = ')';
    } else {
      memcpy(out + o, src + i, end - i);
      o += end - i;
      /* libconfig 1.5 reads an integer without L as 32 bits: 5000000000 would silently be 705032704 */
      if (needs_l > 0) out[o++] = 'L';
    }
    for (size_t q = i; q < end; q++) line += src[q] == '\n';
  }
  out[o] = '\0';
  return out;
}

void cfg_syntax_text(const config_t *c, char *buf, size_t n) {
  const char *text = config_error_text(c) ? config_error_text(c) : "unknown error";
  if (!strcmp(text, "mismatched element type in array"))
    snprintf(buf, n, "%s (an array holds one type: write [0.0, 10.0] or use a list (0, 10.5))", text);
  else
    snprintf(buf, n, "%s", text);
}
