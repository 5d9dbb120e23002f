/* The result-CSV reader (results.h): the whole file is read at once and cut
 * into records by a small state machine, so that a quoted field may hold
 * commas, doubled quotes and line breaks and the line of every record is
 * known for the messages. */
#include "results/results.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/grow_array.h"
#include "core/gmi_grid.h"

void results_fail(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || !errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  results_clean_text(err);
}

void results_clean_text(char *s) {
  /* Messages quote cells and names from the files, which may hold anything:
   * an escape sequence would drive the user's terminal. */
  for (unsigned char *q = (unsigned char *)s; *q; q++)
    if (*q < 0x20 || *q == 0x7f) *q = '?';
}

/* The whole file, NUL-terminated; its length in *len. NULL with errno set:
 * EINVAL for what is not a regular file (/dev/zero or a FIFO would be read
 * until memory runs out, or forever), EFBIG for one over the cap. The size
 * is checked on the open file and the read stops at the cap too, so a file
 * that grows while read cannot get past it. */
static char *slurp(const char *path, size_t *len, int *why) {
  *why = 0;
  const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  if (fstat(fd, &st)) {
    const int e = errno;
    close(fd);
    errno = e;
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    *why = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    errno = *why;
    return NULL;
  }
  if ((uint64_t)st.st_size > RESULTS_MAX_FILE_BYTES) {
    close(fd);
    *why = EFBIG;
    errno = EFBIG;
    return NULL;
  }
  size_t cap = (size_t)st.st_size + 1, n = 0;
  char *buf = malloc(cap);
  if (!buf) {
    close(fd);
    errno = ENOMEM;
    return NULL;
  }
  for (;;) {
    if (n + 1 == cap) { /* the file grew since fstat */
      if (cap > RESULTS_MAX_FILE_BYTES) {
        free(buf);
        close(fd);
        *why = EFBIG;
        errno = EFBIG;
        return NULL;
      }
      char *grown = realloc(buf, cap * 2);
      if (!grown) {
        free(buf);
        close(fd);
        errno = ENOMEM;
        return NULL;
      }
      buf = grown;
      cap *= 2;
    }
    const ssize_t got = read(fd, buf + n, cap - n - 1);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int e = errno;
      free(buf);
      close(fd);
      errno = e;
      return NULL;
    }
    if (got == 0) break;
    n += (size_t)got;
  }
  close(fd);
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* A growing array of strings, and a growing string. */
typedef struct strvec {
  char **v;
  size_t n, cap;
} strvec;

static int strvec_push(strvec *s, char *str) {
  char **grown = grow_array(s->v, &s->cap, s->n + 1, sizeof *grown, 32);
  if (!grown) return -1;
  s->v = grown;
  s->v[s->n++] = str;
  return 0;
}

static void strvec_free(strvec *s) {
  for (size_t i = 0; i < s->n; i++) free(s->v[i]);
  free(s->v);
  *s = (strvec){0};
}

typedef struct strbuf {
  char *s;
  size_t n, cap;
} strbuf;

static int strbuf_add(strbuf *b, const char *p, size_t len) {
  char *grown = grow_array(b->s, &b->cap, b->n + len + 1, 1, 64);
  if (!grown) return -1;
  b->s = grown;
  memcpy(b->s + b->n, p, len);
  b->n += len;
  b->s[b->n] = '\0';
  return 0;
}

/* The cursor of one parse. */
typedef struct csv_cursor {
  const char *path;
  const char *p, *end;
  size_t line; /* the line p is on */
} csv_cursor;

/* Is p at the end of a line ("\n", "\r\n", or a lone "\r" before the end of
 * the file)? Sets *skip to its length. */
static int at_eol(const csv_cursor *c, const char *p, size_t *skip) {
  if (p < c->end && *p == '\n') return *skip = 1, 1;
  if (p < c->end && *p == '\r' && (p + 1 == c->end || p[1] == '\n')) return *skip = p + 1 == c->end ? 1 : 2, 1;
  return 0;
}

/* A few characters of p for a message: up to the end of the line, at most 40. */
static void excerpt(const char *p, const char *end, char *out, size_t n) {
  size_t len = 0;
  while (p + len < end && p[len] != '\n' && p[len] != '\r' && len < 40) len++;
  snprintf(out, n, "%.*s%s", (int)len, p, len == 40 ? "..." : "");
}

/* One record into fields: 0 and the fields, or 2 with the message. c->p is at
 * the record's first character, which is not the end of the file. */
static int read_record(csv_cursor *c, strvec *fields, char *err, size_t errlen) {
  const size_t start_line = c->line;
  strbuf b = {0};
  for (;;) {
    b.n = 0;
    if (strbuf_add(&b, "", 0)) goto oom;
    size_t skip = 0;
    if (c->p < c->end && *c->p == '"') {
      const size_t open_line = c->line;
      const size_t column = fields->n + 1;
      c->p++;
      for (;;) {
        if (c->p >= c->end) {
          results_fail(err, errlen, "%s:%zu: field %zu: expected a closing '\"' for the quote opened here, got the end of the file",
               c->path, open_line, column);
          goto bad;
        }
        if (*c->p == '"') {
          if (c->p + 1 < c->end && c->p[1] == '"') {
            if (strbuf_add(&b, "\"", 1)) goto oom;
            c->p += 2;
            continue;
          }
          c->p++;
          break;
        }
        if (*c->p == '\n') c->line++;
        const char *run = c->p;
        while (c->p < c->end && *c->p != '"' && *c->p != '\n') c->p++;
        if (c->p == run) c->p++; /* the '\n' itself */
        if (strbuf_add(&b, run, (size_t)(c->p - run))) goto oom;
      }
      if (!(c->p >= c->end || *c->p == ',' || at_eol(c, c->p, &skip))) {
        char got[64];
        excerpt(c->p, c->end, got, sizeof got);
        results_fail(err, errlen, "%s:%zu: field %zu: expected ',' or the end of the line after the closing '\"', got '%s'",
             c->path, c->line, column, got);
        goto bad;
      }
    } else {
      const char *run = c->p;
      while (c->p < c->end && *c->p != ',' && !at_eol(c, c->p, &skip)) {
        if (*c->p == '"') {
          char got[64];
          excerpt(run, c->end, got, sizeof got);
          results_fail(err, errlen, "%s:%zu: field %zu: expected a field without '\"' or one quoted whole (\"...\"), got '%s'",
               c->path, c->line, fields->n + 1, got);
          goto bad;
        }
        c->p++;
      }
      if (strbuf_add(&b, run, (size_t)(c->p - run))) goto oom;
    }
    if (strvec_push(fields, b.s)) goto oom;
    b = (strbuf){0};
    if (c->p < c->end && *c->p == ',') {
      c->p++;
      continue;
    }
    if (c->p < c->end) { /* the end of the line */
      at_eol(c, c->p, &skip);
      c->p += skip;
      c->line++;
    }
    return 0;
  }
oom:
  results_fail(err, errlen, "%s:%zu: out of memory", c->path, start_line);
bad:
  free(b.s);
  return 2;
}

void result_table_free(result_table *t) {
  if (!t) return;
  if (t->names)
    for (size_t i = 0; i < t->n_cols; i++) free(t->names[i]);
  if (t->cells)
    for (size_t i = 0; i < t->n_rows * t->n_cols; i++) free(t->cells[i]);
  free(t->names);
  free(t->cells);
  free(t->lines);
  free(t->path);
  *t = (result_table){0};
}

/* The header's check: the columns every ofdmsim CSV has. (A name given
 * twice is allowed: the run's config columns may repeat a name, and
 * result_table_column finds the first.) */
static int check_header(const result_table *t, char *err, size_t errlen) {
  static const char *const required[] = {"point", "bits", "bit_errors"};
  for (size_t i = 0; i < sizeof required / sizeof *required; i++)
    if (result_table_column(t, required[i]) < 0) {
      char got[128] = "";
      size_t used = 0;
      for (size_t k = 0; k < t->n_cols && used + 1 < sizeof got; k++)
        used += (size_t)snprintf(got + used, sizeof got - used, "%s%s", k ? "," : "", t->names[k]);
      results_fail(err, errlen, "%s:1: expected an ofdmsim results header (with columns point, bits, bit_errors), got '%.60s%s'",
           t->path, got, strlen(got) > 60 ? "..." : "");
      return 2;
    }
  return 0;
}

int result_table_read(result_table *t, const char *path, char *err, size_t errlen) {
  *t = (result_table){0};
  if (err && errlen) err[0] = '\0';
  size_t len = 0;
  int why = 0;
  char *text = slurp(path, &len, &why);
  if (!text) {
    if (why == EINVAL)
      results_fail(err, errlen, "%s: cannot read: expected a regular file, got a device, FIFO or socket", path);
    else if (why == EISDIR)
      results_fail(err, errlen, "%s: cannot read: expected a regular file, got a folder", path);
    else if (why == EFBIG)
      results_fail(err, errlen, "%s: cannot read: expected a results CSV of at most %llu MiB, got a larger file",
                   path, (unsigned long long)(RESULTS_MAX_FILE_BYTES >> 20));
    else results_fail(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    return 2;
  }
  csv_cursor c = {path, text, text + len, 1};
  if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) c.p += 3; /* a byte-order mark */
  strvec cells = {0}, fields = {0};
  size_t *lines = NULL, n_lines = 0, cap_lines = 0;
  int rc = 0;
  if (memchr(text, '\0', len)) {
    const char *z = memchr(text, '\0', len);
    size_t line = 1;
    for (const char *q = text; q < z; q++) line += *q == '\n';
    results_fail(err, errlen, "%s:%zu: expected text, got a NUL byte (not a CSV file)", path, line);
    rc = 2;
    goto done;
  }
  if (!(t->path = strdup(path))) goto oom;
  while (c.p < c.end) {
    size_t skip;
    if (at_eol(&c, c.p, &skip)) { /* a blank line */
      c.p += skip;
      c.line++;
      continue;
    }
    const size_t line = c.line;
    if ((rc = read_record(&c, &fields, err, errlen))) goto done;
    if (!t->names) {
      t->names = fields.v;
      t->n_cols = fields.n;
      fields = (strvec){0};
      if ((rc = check_header(t, err, errlen))) goto done;
      continue;
    }
    if (fields.n != t->n_cols) {
      results_fail(err, errlen, "%s:%zu: expected %zu fields (as the header has), got %zu", path, line, t->n_cols,
           fields.n);
      rc = 2;
      goto done;
    }
    for (size_t i = 0; i < fields.n; i++)
      if (strvec_push(&cells, fields.v[i])) {
        for (size_t k = 0; k < i; k++) fields.v[k] = NULL; /* cells owns them now */
        goto oom;
      }
    free(fields.v);
    fields = (strvec){0};
    if (n_lines == cap_lines) {
      cap_lines = cap_lines ? 2 * cap_lines : 64;
      size_t *grown = realloc(lines, cap_lines * sizeof *grown);
      if (!grown) goto oom;
      lines = grown;
    }
    lines[n_lines++] = line;
  }
  if (!t->names) {
    results_fail(err, errlen, "%s:1: expected a header line, got an empty file", path);
    rc = 2;
    goto done;
  }
  t->n_rows = n_lines;
  t->lines = lines;
  t->cells = cells.v;
  lines = NULL;
  cells = (strvec){0};
  if (!t->cells && !(t->cells = calloc(1, sizeof *t->cells))) goto oom; /* no rows: still not NULL */
  for (size_t r = 0; r < t->n_rows; r++)
    if ((rc = result_table_check_row(t, r, err, errlen))) goto done;
  goto done;
oom:
  results_fail(err, errlen, "%s:%zu: out of memory", path, c.line);
  rc = 2;
done:
  strvec_free(&fields);
  strvec_free(&cells);
  free(lines);
  free(text);
  if (rc) result_table_free(t);
  return rc;
}

int result_table_column(const result_table *t, const char *name) {
  for (size_t i = 0; t && i < t->n_cols; i++)
    if (!strcmp(t->names[i], name)) return (int)i;
  return -1;
}

const char *result_table_cell(const result_table *t, size_t row, int col) {
  if (!t || col < 0 || (size_t)col >= t->n_cols || row >= t->n_rows) return "";
  return t->cells[row * t->n_cols + (size_t)col];
}

/* The column called name, or -1 with the message. */
static int need_column(const result_table *t, const char *name, char *err, size_t errlen) {
  const int col = result_table_column(t, name);
  if (col < 0) results_fail(err, errlen, "%s:1: expected a column %s, got none", t->path, name);
  return col;
}

static size_t line_of(const result_table *t, size_t row) { return row < t->n_rows ? t->lines[row] : 0; }

int result_table_u64(const result_table *t, size_t row, const char *name, uint64_t *v, char *err,
                     size_t errlen) {
  const int col = need_column(t, name, err, errlen);
  if (col < 0) return 2;
  const char *s = result_table_cell(t, row, col);
  uint64_t x = 0;
  int ok = *s != '\0';
  for (const char *q = s; ok && *q; q++) {
    const unsigned d = (unsigned)(*q - '0');
    if (d > 9 || x > (UINT64_MAX - d) / 10) ok = 0;
    else x = 10 * x + d;
  }
  if (!ok) {
    results_fail(err, errlen, "%s:%zu: column %s: expected an unsigned integer below 2^64, got '%.40s'", t->path,
         line_of(t, row), name, s);
    return 2;
  }
  *v = x;
  return 0;
}

int result_table_double(const result_table *t, size_t row, const char *name, double *v, char *err,
                        size_t errlen) {
  const int col = need_column(t, name, err, errlen);
  if (col < 0) return 2;
  const char *s = result_table_cell(t, row, col);
  char *end = NULL;
  errno = 0;
  const double x = *s && *s != ' ' && *s != '\t' ? strtod(s, &end) : NAN;
  if (!end || *end || !isfinite(x)) {
    results_fail(err, errlen, "%s:%zu: column %s: expected a finite number, got '%.40s'", t->path, line_of(t, row),
         name, s);
    return 2;
  }
  *v = x;
  return 0;
}

int result_table_require(const result_table *t, const char *const *names, char *err, size_t errlen) {
  for (size_t i = 0; names[i]; i++)
    if (need_column(t, names[i], err, errlen) < 0) return 2;
  return 0;
}

/* An optional double column: 0 and *has = 0 when the table lacks it or the
 * cell is empty, else result_table_double's. */
static int optional_double(const result_table *t, size_t row, const char *name, double *v, int *has, char *err,
                           size_t errlen) {
  const int col = result_table_column(t, name);
  *has = col >= 0 && *result_table_cell(t, row, col);
  return *has ? result_table_double(t, row, name, v, err, errlen) : 0;
}

int result_table_numbers(const result_table *t, size_t row, const char *name, double *v, size_t n, int *has,
                         char *err, size_t errlen) {
  const int col = result_table_column(t, name);
  *has = col >= 0 && *result_table_cell(t, row, col);
  if (!*has) return 0;
  const char *s = result_table_cell(t, row, col), *q = s;
  for (size_t k = 0; k < n; k++) {
    char *end;
    errno = 0;
    v[k] = strtod(q, &end);
    const int last = k + 1 == n;
    if (end == q || errno || !(v[k] >= 0.0) || isinf(v[k]) || (last ? *end != '\0' : *end != ';')) {
      results_fail(err, errlen, "%s:%zu: column %s: expected %zu numbers >= 0 joined by ';', got '%.60s'", t->path,
                   line_of(t, row), name, n, s);
      return 2;
    }
    q = end + 1;
  }
  return 0;
}

int result_table_check_row(const result_table *t, size_t row, char *err, size_t errlen) {
  const size_t line = line_of(t, row);
  uint64_t bits = 0, errors = 0, frames = 0;
  if (result_table_u64(t, row, "bits", &bits, err, errlen) ||
      result_table_u64(t, row, "bit_errors", &errors, err, errlen))
    return 2;
  if (errors > bits) {
    results_fail(err, errlen, "%s:%zu: column bit_errors: expected at most bits (%llu), got %llu", t->path, line,
                 (unsigned long long)bits, (unsigned long long)errors);
    return 2;
  }
  const int has_frames = result_table_column(t, "frames") >= 0;
  if (has_frames && result_table_u64(t, row, "frames", &frames, err, errlen)) return 2;
  if (has_frames && bits > 0 && frames == 0) {
    results_fail(err, errlen, "%s:%zu: column frames: expected at least 1 for %llu bits, got 0", t->path, line,
                 (unsigned long long)bits);
    return 2;
  }
  double sq, lo, hi, gsq;
  int has_sq, has_lo, has_hi, has_gsq;
  if (optional_double(t, row, "frame_errors_sq", &sq, &has_sq, err, errlen)) return 2;
  /* the sum of the frames' squared counts lies between errors^2 / frames
   * and errors^2; the upper bound with room for the rounding of %.17g */
  const double e = (double)errors;
  if (has_sq && (sq < 0 || sq > e * e * (1 + 1e-12))) {
    results_fail(err, errlen, "%s:%zu: column frame_errors_sq: expected a sum of squared frame counts in [0, %.17g] "
                 "(bit_errors^2), got %.17g", t->path, line, e * e, sq);
    return 2;
  }
  if (optional_double(t, row, "ci95_low", &lo, &has_lo, err, errlen) ||
      optional_double(t, row, "ci95_high", &hi, &has_hi, err, errlen))
    return 2;
  if (has_lo && !(lo >= 0 && lo <= 1)) {
    results_fail(err, errlen, "%s:%zu: column ci95_low: expected a probability in [0, 1], got %.10g", t->path, line, lo);
    return 2;
  }
  if (has_hi && !(hi >= 0 && hi <= 1)) {
    results_fail(err, errlen, "%s:%zu: column ci95_high: expected a probability in [0, 1], got %.10g", t->path, line, hi);
    return 2;
  }
  if (has_lo && has_hi && !(lo <= hi)) {
    results_fail(err, errlen, "%s:%zu: column ci95_high: expected at least ci95_low (%.10g), got %.10g", t->path, line,
                 lo, hi);
    return 2;
  }
  if (optional_double(t, row, "frame_gmi_loss_sq", &gsq, &has_gsq, err, errlen)) return 2;
  if (has_gsq && gsq < 0) {
    results_fail(err, errlen, "%s:%zu: column frame_gmi_loss_sq: expected a sum of squares >= 0, got %.17g", t->path,
                 line, gsq);
    return 2;
  }
  double gs, grid[GMI_GRID];
  int has_gs, has_grid;
  if (optional_double(t, row, "gmi_s", &gs, &has_gs, err, errlen)) return 2;
  if (has_gs && !(gs >= 0)) {
    results_fail(err, errlen, "%s:%zu: column gmi_s: expected a scaling >= 0, got %.17g", t->path, line, gs);
    return 2;
  }
  if (result_table_numbers(t, row, "gmi_loss_s", grid, GMI_GRID, &has_grid, err, errlen) ||
      result_table_numbers(t, row, "frame_gmi_loss_s_sq", grid, GMI_GRID, &has_grid, err, errlen))
    return 2;
  return 0;
}
