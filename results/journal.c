/* The journal file: records, locking, torn tails (journal.h). */
#define _GNU_SOURCE
#include "results/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define JOURNAL_MAGIC "ofdmsim-journal 1"
#define FIELDS 27      /* words of a chunk line, its check included (a coded point's: one more) */
#define FIELDS_MAX 28
#define FIELDS_GMI1 25 /* ... of a line written before the GMI grid's fields came (a coded point's: 26) */
#define FIELDS_HARD 23 /* ... of a line written before the GMI fields came */
#define LINE_MAX_BYTES 4096 /* longer than any record */

struct journal {
  int fd;
  int lock_fd;           /* the lock file's, held open and flocked while the journal is open */
  char path[4096];
  char lock_path[4096];
  journal_record *recs;  /* read at open, sorted by work key, chunk, line */
  size_t n;
  journal_record *scratch; /* journal_chunks' answer */
};

static uint32_t check_of(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

/* HARQ's counts as one TB a unit allows them: each TB lost or delivered
 * after 1 .. LINK_HARQ_MAX transmissions. */
static int per_tb_harq(const tally_coded *c) {
  const uint64_t b = c->blocks, t = c->transmissions;
  return !(c->harq_errors > c->block_errors || t < b || t > LINK_HARQ_MAX * b || c->transmissions_sq < t ||
           c->transmissions_sq > LINK_HARQ_MAX * t || c->delivered_transmissions > t ||
           c->delivered_transmissions < b - c->harq_errors);
}

/* 1 when c's sums of squares are over drops of several frames: they are
 * not what one TB a unit gives (channel.drop_frames; chunks.h). */
static int coded_drops(const tally_coded *c) {
  return c->block_sq != c->block_errors || c->harq_sq != c->harq_errors ||
         c->delivered_sq != c->blocks - c->harq_errors || !per_tb_harq(c);
}

int journal_format(const journal_record *r, char *buf, size_t n) {
  char streams[LINK_MAX_TX * 21 + 1] = "";
  size_t used = 0;
  for (int s = 0; s < r->tx && s < LINK_MAX_TX; s++)
    used += (size_t)snprintf(streams + used, sizeof streams - used, "%s%llu", s ? ";" : "",
                             (unsigned long long)r->n.stream_errors[s]);
  const tally *t = &r->n;
  const int len = snprintf(
      buf, n, "chunk %llu %016llx %016llx %llu %llu %llu %llu %llu %llu %a %a %a %a %a %a %a %a %d %s %s %s",
      (unsigned long long)r->point, (unsigned long long)r->work_key, (unsigned long long)r->point_key,
      (unsigned long long)r->chunk, (unsigned long long)t->frames, (unsigned long long)t->bits,
      (unsigned long long)t->bit_errors, (unsigned long long)t->fallbacks, (unsigned long long)t->inversions,
      t->sum_sq, t->seconds, t->t.draw, t->t.channel, t->t.gram, t->t.invert, t->t.equalize, t->t.demap, r->tx,
      streams, r->stop, r->backend[0] ? r->backend : "-");
  if (len < 0 || (size_t)len + 11 >= n) return -1;
  /* the GMI fields: the per-stream losses and the frames' sum of squares, "-" without soft outputs */
  /* (a soft chunk's grid sums are never all 0: at the grid's smallest s,
   * 2^-8, a bit loses at least log2(1 + e^-1/4) bits) */
  int soft = t->gmi_loss_sq != 0.0, grid = 0;
  for (int s = 0; s < r->tx && s < LINK_MAX_TX; s++) soft |= t->gmi_loss[s] != 0.0;
  for (int k = 0; k < GMI_GRID; k++) grid |= t->gmi_loss_s[k] != 0.0 || t->gmi_loss_s_sq[k] != 0.0;
  soft |= grid;
  int more = 0;
  if (!soft) {
    more = snprintf(buf + len, n - (size_t)len, " - -");
  } else {
    for (int s = 0; s < r->tx && s < LINK_MAX_TX && more >= 0 && (size_t)(len + more) < n; s++)
      more += snprintf(buf + len + more, n - (size_t)(len + more), "%s%a", s ? ";" : " ", t->gmi_loss[s]);
    if (more >= 0 && (size_t)(len + more) < n)
      more += snprintf(buf + len + more, n - (size_t)(len + more), " %a", t->gmi_loss_sq);
  }
  /* the GMI grid's fields */
  if (!grid && more >= 0 && (size_t)(len + more) < n) more += snprintf(buf + len + more, n - (size_t)(len + more), " - -");
  for (int part = 0; grid && part < 2; part++)
    for (int k = 0; k < GMI_GRID && more >= 0 && (size_t)(len + more) < n; k++)
      more += snprintf(buf + len + more, n - (size_t)(len + more), "%s%a", k ? ";" : " ",
                       part ? t->gmi_loss_s_sq[k] : t->gmi_loss_s[k]);
  /* the coded link's counts, one word, only on a coded point's lines */
  const tally_coded *c = &t->coded;
  if (c->blocks && more >= 0 && (size_t)(len + more) < n)
    more += snprintf(buf + len + more, n - (size_t)(len + more), " coded:%llu;%llu;%llu;%llu;%llu;%llu;%llu;%a;%a",
                     (unsigned long long)c->blocks, (unsigned long long)c->block_errors,
                     (unsigned long long)c->cbs, (unsigned long long)c->cb_errors,
                     (unsigned long long)c->info_bits, (unsigned long long)c->info_errors,
                     (unsigned long long)c->iterations, c->cb_sq, c->info_sq);
  /* HARQ's four counts, only where a TB was sent more than once or the
   * squares are over drops of several frames (a line without them reads
   * as one transmission a TB, every frame its own unit: tally_coded's
   * defaults; transmissions 0, a tally made without HARQ, reads so too),
   * then the drops' three sums where they are not a frame's (coded_drops) */
  const int drops = c->blocks && coded_drops(c);
  if (c->blocks && c->transmissions &&
      (c->transmissions != c->blocks || drops || c->transmissions_sq != c->blocks ||
       c->delivered_transmissions != c->blocks - c->block_errors) &&
      more >= 0 && (size_t)(len + more) < n)
    more += snprintf(buf + len + more, n - (size_t)(len + more), ";%llu;%llu;%llu;%llu",
                     (unsigned long long)c->harq_errors, (unsigned long long)c->transmissions,
                     (unsigned long long)c->transmissions_sq, (unsigned long long)c->delivered_transmissions);
  if (drops && more >= 0 && (size_t)(len + more) < n)
    more += snprintf(buf + len + more, n - (size_t)(len + more), ";%llu;%llu;%llu", (unsigned long long)c->block_sq,
                     (unsigned long long)c->harq_sq, (unsigned long long)c->delivered_sq);
  if (more < 0 || (size_t)(len + more) + 11 >= n) return -1;
  return len + more + snprintf(buf + len + more, n - (size_t)(len + more), " %08x\n",
                               check_of(buf, (size_t)(len + more)));
}


static int parse_u64(const char *s, int base, uint64_t *v) {
  if (!*s || *s == '-' || *s == '+' || *s == ' ') return -1;
  char *end;
  errno = 0;
  const unsigned long long x = strtoull(s, &end, base);
  if (errno || *end) return -1;
  *v = x;
  return 0;
}

static int parse_double(const char *s, double *v) {
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  return (!*s || *end || errno == ERANGE) ? -1 : 0;
}

/* A coded point's word: "coded:" and its counts (journal_format). */
static int parse_coded(char *word, tally_coded *c) {
  if (strncmp(word, "coded:", 6)) return -1;
  uint64_t *u[] = {&c->blocks, &c->block_errors, &c->cbs, &c->cb_errors, &c->info_bits, &c->info_errors,
                   &c->iterations};
  char *save = NULL, *e = strtok_r(word + 6, ";", &save);
  for (size_t i = 0; i < sizeof u / sizeof *u; i++, e = strtok_r(NULL, ";", &save))
    if (!e || parse_u64(e, 10, u[i])) return -1;
  if (!e || parse_double(e, &c->cb_sq) || !(e = strtok_r(NULL, ";", &save)) || parse_double(e, &c->info_sq))
    return -1;
  if (c->block_errors > c->blocks || c->cb_errors > c->cbs || c->info_errors > c->info_bits || c->blocks == 0 ||
      !(c->cb_sq >= 0.0) || !(c->info_sq >= 0.0))
    return -1;
  /* HARQ's counts where the line has them, else one transmission a TB */
  uint64_t *h[] = {&c->harq_errors, &c->transmissions, &c->transmissions_sq, &c->delivered_transmissions};
  e = strtok_r(NULL, ";", &save);
  if (!e) {
    c->harq_errors = c->block_errors;
    c->transmissions = c->transmissions_sq = c->blocks;
    c->delivered_transmissions = c->blocks - c->block_errors;
    c->block_sq = c->harq_sq = c->block_errors;
    c->delivered_sq = c->blocks - c->block_errors;
    return 0;
  }
  for (size_t i = 0; i < sizeof h / sizeof *h; i++, e = strtok_r(NULL, ";", &save))
    if (!e || parse_u64(e, 10, h[i])) return -1;
  if (!e) { /* every frame its own unit */
    c->block_sq = c->block_errors;
    c->harq_sq = c->harq_errors;
    c->delivered_sq = c->blocks - c->harq_errors;
    return per_tb_harq(c) ? 0 : -1;
  }
  /* the drops' sums: a unit's count squared is at least the count and at
   * most its square over all units */
  uint64_t *d[] = {&c->block_sq, &c->harq_sq, &c->delivered_sq};
  for (size_t i = 0; i < sizeof d / sizeof *d; i++, e = strtok_r(NULL, ";", &save))
    if (!e || parse_u64(e, 10, d[i])) return -1;
  if (e) return -1;
  const uint64_t b = c->blocks, t = c->transmissions, del = b - c->harq_errors;
  const double tt = (double)t;
  if (c->harq_errors > c->block_errors || t < b || t > LINK_HARQ_MAX * b || c->transmissions_sq < t ||
      (double)c->transmissions_sq > tt * tt || c->delivered_transmissions > c->transmissions_sq ||
      c->delivered_transmissions < del || c->block_sq < c->block_errors ||
      (double)c->block_sq > (double)c->block_errors * (double)c->block_errors || c->harq_sq < c->harq_errors ||
      (double)c->harq_sq > (double)c->harq_errors * (double)c->harq_errors || c->delivered_sq < del ||
      (double)c->delivered_sq > (double)del * (double)del)
    return -1;
  return 0;
}


/* A bare word of at most n-1 characters. */
static int parse_word(const char *s, char *out, size_t n) {
  if (!*s || strlen(s) >= n) return -1;
  snprintf(out, n, "%s", s);
  return 0;
}

int journal_parse(const char *line, journal_record *r, char *why, size_t n) {
  memset(r, 0, sizeof *r);
  char copy[LINE_MAX_BYTES];
  const size_t len = strlen(line);
  if (len >= sizeof copy) return snprintf(why, n, "a line of %zu characters, longer than any record", len), -1;
  memcpy(copy, line, len + 1);
  const char *last_space = strrchr(copy, ' ');
  uint64_t check;
  if (!last_space || parse_u64(last_space + 1, 16, &check) || strlen(last_space + 1) != 8 ||
      check != check_of(copy, (size_t)(last_space - copy)))
    return snprintf(why, n, "a record whose check does not match its text (damaged)"), -1;
  char *tok[FIELDS_MAX];
  int k = 0;
  for (char *save = NULL, *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    if (k == FIELDS_MAX) return snprintf(why, n, "more than %d fields", FIELDS_MAX), -1;
    tok[k++] = t;
  }
  if ((k != FIELDS_HARD && (k < FIELDS_GMI1 || k > FIELDS_MAX)) || strcmp(tok[0], "chunk"))
    return snprintf(why, n, "expected a chunk record of %d fields", FIELDS), -1;
  uint64_t tx;
  tally *t = &r->n;
  double *dbl[] = {&t->sum_sq, &t->seconds, &t->t.draw, &t->t.channel, &t->t.gram,
                   &t->t.invert, &t->t.equalize, &t->t.demap};
  if (parse_u64(tok[1], 10, &r->point) || parse_u64(tok[2], 16, &r->work_key) ||
      parse_u64(tok[3], 16, &r->point_key) || parse_u64(tok[4], 10, &r->chunk) ||
      parse_u64(tok[5], 10, &t->frames) || parse_u64(tok[6], 10, &t->bits) ||
      parse_u64(tok[7], 10, &t->bit_errors) || parse_u64(tok[8], 10, &t->fallbacks) ||
      parse_u64(tok[9], 10, &t->inversions))
    return snprintf(why, n, "a count that is not an unsigned integer"), -1;
  for (int i = 0; i < 8; i++)
    if (parse_double(tok[10 + i], dbl[i]))
      return snprintf(why, n, "a figure that is not a number: '%.40s'", tok[10 + i]), -1;
  if (parse_u64(tok[18], 10, &tx) || tx < 1 || tx > LINK_MAX_TX)
    return snprintf(why, n, "a stream count outside [1, %d]", LINK_MAX_TX), -1;
  r->tx = (int)tx;
  char *save = NULL, *e = strtok_r(tok[19], ";", &save);
  uint64_t sum = 0;
  for (int s = 0; s < r->tx; s++, e = strtok_r(NULL, ";", &save)) {
    if (!e || parse_u64(e, 10, &t->stream_errors[s]))
      return snprintf(why, n, "expected %d per-stream error counts", r->tx), -1;
    sum += t->stream_errors[s];
  }
  if (e) return snprintf(why, n, "expected %d per-stream error counts, got more", r->tx), -1;
  if (sum != t->bit_errors || t->bit_errors > t->bits || t->frames == 0)
    return snprintf(why, n, "counts that do not add up"), -1;
  if (parse_word(tok[20], r->stop, sizeof r->stop) || parse_word(tok[21], r->backend, sizeof r->backend))
    return snprintf(why, n, "a stop or backend word too long"), -1;
  if (!strcmp(r->backend, "-")) r->backend[0] = '\0';
  /* the words between the GMI fields and the check: the GMI grid's pair
   * and a coded point's word, each where the line has it */
  const int extra = k - FIELDS_GMI1, coded_at = extra == 1 || extra == 3 ? k - 2 : -1, grid = extra >= 2;
  if (coded_at >= 0 && parse_coded(tok[coded_at], &t->coded))
    return snprintf(why, n, "coded counts that are not 'coded:' and 7 counts and 2 sums (and HARQ's 4 counts) that add up"), -1;
  if (k >= FIELDS_GMI1 && (strcmp(tok[22], "-") || strcmp(tok[23], "-"))) {
    e = strtok_r(tok[22], ";", &save);
    for (int s = 0; s < r->tx; s++, e = strtok_r(NULL, ";", &save))
      if (!e || parse_double(e, &t->gmi_loss[s]) || !(t->gmi_loss[s] >= 0.0))
        return snprintf(why, n, "expected %d per-stream GMI losses", r->tx), -1;
    if (e) return snprintf(why, n, "expected %d per-stream GMI losses, got more", r->tx), -1;
    if (parse_double(tok[23], &t->gmi_loss_sq) || !(t->gmi_loss_sq >= 0.0))
      return snprintf(why, n, "a GMI sum of squares that is not a number >= 0"), -1;
  }
  if (grid && (strcmp(tok[24], "-") || strcmp(tok[25], "-")))
    for (int part = 0; part < 2; part++) {
      double *v = part ? t->gmi_loss_s_sq : t->gmi_loss_s;
      e = strtok_r(tok[24 + part], ";", &save);
      for (int g = 0; g < GMI_GRID; g++, e = strtok_r(NULL, ";", &save))
        if (!e || parse_double(e, &v[g]) || !(v[g] >= 0.0))
          return snprintf(why, n, "expected %d GMI grid %s >= 0", GMI_GRID, part ? "sums of squares" : "losses"), -1;
      if (e) return snprintf(why, n, "expected %d GMI grid %s, got more", GMI_GRID, part ? "sums of squares" : "losses"), -1;
    }
  static const char *const stops[] = {"more",     "ahead",    "target_errors", "target_precision",
                                      "max_bits", "target_block_errors", "max_blocks"};
  for (size_t i = 0; i < sizeof stops / sizeof *stops; i++)
    if (!strcmp(r->stop, stops[i])) return 0;
  return snprintf(why, n, "an unknown stop '%s'", r->stop), -1;
}

/* The lock file of the journal at path: X.journal -> X.lock. */
static void lock_path_of(const char *path, char *out, size_t n) {
  const size_t len = strlen(path), ext = strlen(".journal");
  if (len > ext && !strcmp(path + len - ext, ".journal")) snprintf(out, n, "%.*s.lock", (int)(len - ext), path);
  else snprintf(out, n, "%s.lock", path);
}

/* Takes the run's lock: the lock file flocked and held open. Why a file of
 * its own and not the journal: a journal deleted or moved mid-run took its
 * lock with it, and a second run made a new one, unlocked, and wrote the
 * same CSV and JSON. The lock file is never created anew under a holder:
 * the lock counts only while the path still names the locked file (checked
 * after flock, so a file unlinked by a holder that is closing is not
 * taken), and a holder removes it only while it still names its own. 0, or
 * -1 with the message. */
static int take_lock(journal *j, char *err, size_t errlen) {
  for (int tries = 0; tries < 100; tries++) {
    j->lock_fd = open(j->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (j->lock_fd < 0) {
      snprintf(err, errlen, "%s: cannot open the lock file: %s", j->lock_path, strerror(errno));
      return -1;
    }
    if (flock(j->lock_fd, LOCK_EX | LOCK_NB)) {
      const int e = errno;
      snprintf(err, errlen, "%s: " JOURNAL_BUSY_PREFIX " to this journal (%s %s)", j->path,
               e == EWOULDBLOCK ? "it holds the lock" : strerror(e), j->lock_path);
      close(j->lock_fd);
      j->lock_fd = -1;
      return -1;
    }
    struct stat held, named;
    if (!fstat(j->lock_fd, &held) && !stat(j->lock_path, &named) && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino)
      return 0;
    close(j->lock_fd); /* unlinked or replaced between open and flock: again */
    j->lock_fd = -1;
  }
  snprintf(err, errlen, "%s: cannot take the lock: it keeps being replaced", j->lock_path);
  return -1;
}

static void drop_lock(journal *j) {
  if (j->lock_fd < 0) return;
  struct stat held, named;
  if (!fstat(j->lock_fd, &held) && !lstat(j->lock_path, &named) && held.st_dev == named.st_dev &&
      held.st_ino == named.st_ino)
    unlink(j->lock_path);
  close(j->lock_fd);
  j->lock_fd = -1;
}

static journal *open_locked(const char *path, int flags, char *err, size_t errlen) {
  journal *j = calloc(1, sizeof *j);
  if (!j) return snprintf(err, errlen, "%s: out of memory", path), NULL;
  snprintf(j->path, sizeof j->path, "%s", path);
  lock_path_of(path, j->lock_path, sizeof j->lock_path);
  j->fd = j->lock_fd = -1;
  if (take_lock(j, err, errlen)) {
    free(j);
    return NULL;
  }
  j->fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (j->fd < 0) {
    snprintf(err, errlen, "%s: cannot open the journal: %s", path, strerror(errno));
    drop_lock(j);
    free(j);
    return NULL;
  }
  if (flock(j->fd, LOCK_EX | LOCK_NB)) {
    snprintf(err, errlen, "%s: " JOURNAL_BUSY_PREFIX " to this journal (%s)", path,
             errno == EWOULDBLOCK ? "it is locked" : strerror(errno));
    close(j->fd);
    drop_lock(j);
    free(j);
    return NULL;
  }
  return j;
}

static int write_all(int fd, const char *buf, size_t n) {
  while (n) {
    const ssize_t w = write(fd, buf, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    buf += w;
    n -= (size_t)w;
  }
  return 0;
}

journal *journal_create(const char *path, char *err, size_t errlen) {
  journal *j = open_locked(path, O_RDWR | O_CREAT | O_APPEND, err, errlen);
  if (!j) return NULL;
  if (ftruncate(j->fd, 0) || write_all(j->fd, JOURNAL_MAGIC "\n", strlen(JOURNAL_MAGIC) + 1)) {
    snprintf(err, errlen, "%s: cannot write the journal: %s", path, strerror(errno));
    journal_close(j);
    return NULL;
  }
  return j;
}

static int by_key(const void *a, const void *b) {
  const journal_record *x = a, *y = b;
  if (x->work_key != y->work_key) return x->work_key < y->work_key ? -1 : 1;
  if (x->chunk != y->chunk) return x->chunk < y->chunk ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

/* Reads every record; the size to keep (a torn tail cut off) in *keep. */
static int read_records(journal *j, const char *text, size_t size, size_t *keep, char *err, size_t errlen) {
  const size_t magic = strlen(JOURNAL_MAGIC);
  *keep = size;
  if (size == 0) return 0; /* killed before the header was written */
  if (size < magic + 1 || memcmp(text, JOURNAL_MAGIC "\n", magic + 1)) {
    const size_t n = strcspn(text, "\n");
    snprintf(err, errlen, "%s:1: expected '" JOURNAL_MAGIC "' (an ofdmsim journal), got '%.*s'", j->path,
             (int)(n < 60 ? n : 60), text);
    return -1;
  }
  size_t cap = 0, line = 1;
  for (size_t at = magic + 1; at < size;) {
    line++;
    const char *nl = memchr(text + at, '\n', size - at);
    const size_t end = nl ? (size_t)(nl - text) : size;
    char buf[LINE_MAX_BYTES], why[160];
    journal_record r;
    const size_t len = end - at;
    int bad = !nl || len >= sizeof buf || memchr(text + at, '\0', len);
    if (!bad) {
      memcpy(buf, text + at, len);
      buf[len] = '\0';
      bad = journal_parse(buf, &r, why, sizeof why) != 0;
    } else {
      snprintf(why, sizeof why, "%s", !nl ? "a record without its end of line" : "a damaged record");
    }
    if (bad) {
      if (end + 1 >= size) { /* the torn last write of a killed run */
        *keep = at;
        return 0;
      }
      snprintf(err, errlen, "%s:%zu: %s (the journal is damaged; --force starts over)", j->path, line, why);
      return -1;
    }
    r.line = line;
    if (j->n == cap) {
      cap = cap ? 2 * cap : 256;
      journal_record *grown = realloc(j->recs, cap * sizeof *grown);
      if (!grown) return snprintf(err, errlen, "%s: out of memory", j->path), -1;
      j->recs = grown;
    }
    j->recs[j->n++] = r;
    at = end + 1;
  }
  return 0;
}

journal *journal_resume(const char *path, char *err, size_t errlen) {
  journal *j = open_locked(path, O_RDWR | O_APPEND, err, errlen);
  if (!j) return NULL;
  struct stat st;
  char *text = NULL;
  size_t keep = 0;
  int rc = fstat(j->fd, &st);
  if (!rc && !S_ISREG(st.st_mode)) {
    errno = EINVAL;
    rc = -1;
  }
  if (!rc) {
    text = malloc((size_t)st.st_size + 1);
    rc = text ? 0 : -1;
    for (size_t got = 0; !rc && got < (size_t)st.st_size;) {
      const ssize_t r = pread(j->fd, text + got, (size_t)st.st_size - got, (off_t)got);
      if (r <= 0) rc = -1;
      else got += (size_t)r;
    }
  }
  if (rc) {
    snprintf(err, errlen, "%s: cannot read the journal: %s", path, strerror(errno));
  } else {
    text[st.st_size] = '\0';
    rc = read_records(j, text, (size_t)st.st_size, &keep, err, errlen);
    if (!rc && keep == 0) { /* a journal without its header: begin it again */
      if (ftruncate(j->fd, 0) || write_all(j->fd, JOURNAL_MAGIC "\n", strlen(JOURNAL_MAGIC) + 1)) rc = -1;
    } else if (!rc && keep < (size_t)st.st_size && ftruncate(j->fd, (off_t)keep)) {
      rc = -1;
    }
    if (rc && !*err) snprintf(err, errlen, "%s: cannot repair the journal's end: %s", path, strerror(errno));
  }
  free(text);
  if (rc) {
    journal_close(j);
    return NULL;
  }
  if (j->n) qsort(j->recs, j->n, sizeof *j->recs, by_key);
  return j;
}

size_t journal_count(const journal *j) { return j->n; }

const journal_record *journal_record_at(const journal *j, size_t i) { return i < j->n ? &j->recs[i] : NULL; }

static int same_counts(const journal_record *a, const journal_record *b) {
  return a->n.frames == b->n.frames && a->n.bits == b->n.bits && a->n.bit_errors == b->n.bit_errors &&
         a->n.sum_sq == b->n.sum_sq && a->n.gmi_loss_sq == b->n.gmi_loss_sq &&
         !memcmp(a->n.gmi_loss_s_sq, b->n.gmi_loss_s_sq, sizeof a->n.gmi_loss_s_sq) && !strcmp(a->stop, b->stop);
}

long journal_chunks(const journal *j, uint64_t work_key, const journal_record **out, size_t *decided,
                    char *err, size_t errlen) {
  size_t lo = 0, hi = j->n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (j->recs[mid].work_key < work_key) lo = mid + 1;
    else hi = mid;
  }
  size_t end = lo;
  while (end < j->n && j->recs[end].work_key == work_key) end++;
  journal *w = (journal *)j;
  free(w->scratch);
  w->scratch = NULL;
  *out = NULL;
  *decided = 0;
  if (end == lo) return 0;
  w->scratch = malloc((end - lo) * sizeof *w->scratch);
  if (!w->scratch) return snprintf(err, errlen, "%s: out of memory", j->path), -1;
  /* the decided chunks (sorted by chunk, then line): 0, 1, ... without a gap */
  size_t m = 0;
  int ended = 0;
  for (size_t i = lo; i < end; i++) {
    const journal_record *r = &j->recs[i];
    if (!strcmp(r->stop, "ahead")) continue;
    if (m && r->chunk == w->scratch[m - 1].chunk) {
      /* the same chunk twice: harmless only when it says the same */
      if (same_counts(r, &w->scratch[m - 1])) continue;
      snprintf(err, errlen, "%s:%zu: chunk %llu of point %016llx differs from its copy at line %zu", j->path,
               r->line, (unsigned long long)r->chunk, (unsigned long long)r->point_key, w->scratch[m - 1].line);
      return -1;
    }
    if (r->chunk != m || ended) {
      snprintf(err, errlen, "%s:%zu: chunk %llu of point %016llx %s", j->path, r->line,
               (unsigned long long)r->chunk, (unsigned long long)r->point_key,
               r->chunk != m ? "has no chunk before it" : "follows the chunk that ended the point");
      return -1;
    }
    ended = strcmp(r->stop, "more") != 0;
    w->scratch[m++] = *r;
  }
  *decided = m;
  /* then the chunks saved ahead of their prefix, past the decided ones (the
   * last copy of each); none once the point ended */
  for (size_t i = lo; i < end && !ended; i++) {
    const journal_record *r = &j->recs[i];
    if (strcmp(r->stop, "ahead") || r->chunk < *decided) continue;
    if (m > *decided && w->scratch[m - 1].chunk == r->chunk) w->scratch[m - 1] = *r;
    else w->scratch[m++] = *r;
  }
  *out = w->scratch;
  return (long)m;
}

int journal_append(journal *j, const journal_record *r) {
  char buf[LINE_MAX_BYTES];
  const int n = journal_format(r, buf, sizeof buf);
  if (n < 0) {
    errno = EOVERFLOW;
    return -1;
  }
  return write_all(j->fd, buf, (size_t)n);
}

int journal_sync(journal *j) { return fdatasync(j->fd); }

void journal_close(journal *j) {
  if (!j) return;
  if (j->fd >= 0) close(j->fd);
  drop_lock(j);
  free(j->recs);
  free(j->scratch);
  free(j);
}
