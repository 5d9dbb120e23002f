/* The checks before a run (run_checks.h), the command line's since its
 * first version: every message names the option it is about. */
#define _GNU_SOURCE /* realpath; O_TMPFILE */
#include "api/run_checks.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/report.h"
#include "sim/llr_export.h"

/* The folder of `path` into dir ("/" at the root, "." for a bare name);
 * returns the name's start in path. */
static const char *folder_of(const char *path, char *dir, size_t n) {
  const char *slash = strrchr(path, '/');
  if (slash == path) snprintf(dir, n, "/");
  else if (slash) snprintf(dir, n, "%.*s", (int)(slash - path), path);
  else snprintf(dir, n, ".");
  return slash ? slash + 1 : path;
}

/* Whether the folder of `path` takes a new file: 0, or -1 with errno set.
 * The probe is an unnamed file (O_TMPFILE), so that a run killed right here
 * leaves nothing behind; where the file system has none, a named one,
 * removed at once (and by report_remove_stale_temps if a kill lands between
 * the two). */
static int folder_takes_a_file(const char *path) {
#ifdef O_TMPFILE
  char dir[4200];
  folder_of(path, dir, sizeof dir);
  int fd = open(dir, O_TMPFILE | O_WRONLY, 0600);
  if (fd >= 0) return close(fd), 0;
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) return -1;
#endif
  char probe[4200];
  snprintf(probe, sizeof probe, "%s" REPORT_PROBE_SUFFIX "XXXXXX", path);
  const int named = mkstemp(probe);
  if (named < 0) return -1;
  close(named);
  unlink(probe);
  return 0;
}

/* Every output of -o is checked before any work starts: the CSV, its JSON
 * sidecar and its journal must be plain files (or absent), none of them the
 * config itself, none replaced without --force (or continued without
 * --resume), and the folder must take a new file. */
int run_check_outputs(const char *csv, const char *config_path, int force, int resume, char *err, size_t errlen) {
  char sidecar[4096], journal[4096];
  report_sidecar_path(csv, sidecar, sizeof sidecar);
  report_journal_path(csv, journal, sizeof journal);
  const char *paths[] = {csv, sidecar, journal};
  const char *what[] = {"the file", "its JSON sidecar", "its journal"};
  struct stat cfg, st;
  const int have_cfg = stat(config_path, &cfg) == 0;
  int exists[3];
  for (int i = 0; i < 3; i++) {
    if (strlen(paths[i]) >= sizeof sidecar - 1) {
      snprintf(err, errlen, "-o %.80s...: the name is too long", csv);
      return -1;
    }
    exists[i] = lstat(paths[i], &st) == 0;
    if (!exists[i]) continue;
    if (!S_ISREG(st.st_mode)) {
      snprintf(err, errlen, "-o %s: %s %s is %s, expected a regular file", csv, what[i], paths[i],
               S_ISDIR(st.st_mode) ? "a directory" : S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file");
      return -1;
    }
    if (have_cfg && st.st_dev == cfg.st_dev && st.st_ino == cfg.st_ino) {
      snprintf(err, errlen, "-o %s: %s %s is the config file itself; choose another result name", csv,
               what[i], paths[i]);
      return -1;
    }
  }
  const int any = exists[0] || exists[1] || exists[2];
  if (any && !force && !resume) {
    const int i = exists[0] ? 0 : exists[1] ? 1 : 2;
    snprintf(err, errlen,
             "-o %.400s: %s already exists%s%.400s; --force replaces it, --resume continues it (results are "
             "never overwritten silently)",
             csv, what[i], i ? " " : "", i ? paths[i] : "");
    return -1;
  }
  if (resume && (exists[0] || exists[1]) && !exists[2]) {
    snprintf(err, errlen, "--resume: -o %.400s has no journal %.400s to continue from; --force starts over", csv,
             journal);
    return -1;
  }
  if (folder_takes_a_file(csv)) {
    snprintf(err, errlen, "-o %s: cannot write there: %s", csv, strerror(errno));
    return -1;
  }
  return 0;
}

/* A thread of the trial below: waits until every thread of the trial has
 * started, so that they all hold their stacks at once as OpenMP's team will. */
typedef struct trial {
  pthread_mutex_t lock;
  pthread_cond_t go;
  int started_all;
} trial;

static void *trial_thread(void *arg) {
  trial *t = arg;
  pthread_mutex_lock(&t->lock);
  while (!t->started_all) pthread_cond_wait(&t->go, &t->lock);
  pthread_mutex_unlock(&t->lock);
  return NULL;
}

/* Whether `threads` threads can run at once here. libgomp ends the process
 * with a bare "Thread creation failed" when it cannot start its team (a
 * memory limit, ulimit -v, counts every thread's stack): the same threads,
 * with the same default stacks, are started and joined first, so that the
 * limit is told in words before anything runs (run_checks.h). */
int run_check_threads(int threads, char *err, size_t errlen) {
  if (threads <= 1) return 0;
  trial t = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
  pthread_t *ids = malloc(sizeof *ids * (size_t)threads);
  int started = 0, why = ids ? 0 : ENOMEM;
  while (!why && started < threads - 1 && !(why = pthread_create(&ids[started], NULL, trial_thread, &t))) started++;
  pthread_mutex_lock(&t.lock);
  t.started_all = 1;
  pthread_cond_broadcast(&t.go);
  pthread_mutex_unlock(&t.lock);
  for (int i = 0; i < started; i++) pthread_join(ids[i], NULL);
  free(ids);
  if (!why) return 0;
  snprintf(err, errlen,
           "simulation.threads = %d: only %d threads could start here (%s; under a memory limit "
           "such as ulimit -v every thread's stack counts); lower simulation.threads or raise the limit",
           threads, started + 1, strerror(why));
  return -1;
}

/* Where path is or would be created: the resolved folder (symbolic links
 * and "..", followed) and the name. 0, or -1 when the folder does not
 * resolve (errno says why). */
static int resolved_path(const char *path, char *out, size_t n) {
  char dir[4096], real[PATH_MAX];
  const char *name = folder_of(path, dir, sizeof dir);
  /* an existing file resolves whole (a link to one of the results is that result) */
  if (realpath(path, real)) return snprintf(out, n, "%s", real) >= (int)n ? -1 : 0;
  if (!realpath(dir, real)) return -1;
  return snprintf(out, n, "%s/%s", strcmp(real, "/") ? real : "", name) >= (int)n ? -1 : 0;
}

/* --llr-out: every point has soft outputs, and FILE is a new file (or
 * --force / --resume, which write it again) in a folder that takes one, and
 * none of the config and -o's files, whether they exist yet or not: a fresh
 * run would otherwise write the export over its own results. */
int run_check_llr_out(const char *path, const char *csv, const sim_config *cfg, int force, int resume, char *err,
                      size_t errlen) {
  if (llr_export_check(cfg, err, errlen)) return -1;
  char sidecar[4096] = "", journal[4096] = "", mine[4096], theirs[4096];
  if (resolved_path(path, mine, sizeof mine))
    return snprintf(err, errlen, "--llr-out %s: cannot write there: %s", path, strerror(errno)), -1;
  if (csv) {
    report_sidecar_path(csv, sidecar, sizeof sidecar);
    report_journal_path(csv, journal, sizeof journal);
  }
  const char *taken[] = {cfg->path, csv, sidecar, journal};
  static const char *const what[] = {"the config file", "the results CSV of -o", "the JSON sidecar of -o",
                                     "the journal of -o"};
  for (size_t i = 0; i < sizeof taken / sizeof *taken; i++)
    if (taken[i] && taken[i][0] && !resolved_path(taken[i], theirs, sizeof theirs) && !strcmp(mine, theirs))
      return snprintf(err, errlen, "--llr-out %s: that is %s (%s); choose another name", path, what[i], taken[i]),
             -1;
  struct stat st;
  if (lstat(path, &st) == 0) {
    if (!S_ISREG(st.st_mode))
      return snprintf(err, errlen, "--llr-out %s: it is %s, expected a regular file", path,
                      S_ISDIR(st.st_mode) ? "a directory" : "not a regular file"), -1;
    if (!force && !resume)
      return snprintf(err, errlen, "--llr-out %s: the file already exists; --force replaces it", path), -1;
  }
  /* the export is written after the whole sweep: a folder that takes no
   * file must be found now, not after hours of work */
  if (folder_takes_a_file(path))
    return snprintf(err, errlen, "--llr-out %s: cannot write there: %s", path, strerror(errno)), -1;
  return 0;
}

