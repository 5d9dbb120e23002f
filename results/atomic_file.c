/* Files written whole or not at all (atomic_file.h). */
#include "results/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary files open now, for the signal handler: fixed buffers it
 * may read (unlink is async-signal-safe; malloc'd strings that change under
 * it are not). A slot is written with the signals blocked. */
#define LIVE_MAX 8
#define LIVE_PATH 4096
static char live[LIVE_MAX][LIVE_PATH];
static volatile sig_atomic_t live_used[LIVE_MAX];

static void block_signals(sigset_t *old) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGHUP);
  sigprocmask(SIG_BLOCK, &s, old);
}

static void live_add(const char *tmp) {
  if (strlen(tmp) >= LIVE_PATH) return;
  for (int i = 0; i < LIVE_MAX; i++)
    if (!live_used[i]) {
      memcpy(live[i], tmp, strlen(tmp) + 1);
      live_used[i] = 1;
      return;
    }
}

static void live_remove(const char *tmp) {
  for (int i = 0; i < LIVE_MAX; i++)
    if (live_used[i] && !strcmp(live[i], tmp)) live_used[i] = 0;
}

static void on_signal(int sig) {
  for (int i = 0; i < LIVE_MAX; i++)
    if (live_used[i]) unlink(live[i]);
  signal(sig, SIG_DFL);
  raise(sig);
}

void results_file_remove_on_signals(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    sigaction(sigs[i], &sa, NULL);
  }
}

int results_file_open(results_file *w, const char *path) {
  *w = (results_file){0};
  const size_t len = strlen(path) + 16;
  w->path = strdup(path);
  w->tmp = malloc(len);
  if (!w->path || !w->tmp) {
    results_file_abort(w);
    errno = ENOMEM;
    return -1;
  }
  /* in the target's folder, so that the rename stays on one file system */
  snprintf(w->tmp, len, "%s.tmpXXXXXX", path);
  sigset_t old;
  block_signals(&old); /* made and listed at once, for the signal handler */
  const int fd = mkstemp(w->tmp);
  if (fd >= 0) live_add(w->tmp);
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (fd < 0) {
    const int e = errno;
    free(w->tmp);
    w->tmp = NULL;
    results_file_abort(w);
    errno = e;
    return -1;
  }
  /* mkstemp makes 0600; a result file is as readable as the run's (0666 less the umask) */
  const mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) || !(w->f = fdopen(fd, "w"))) {
    const int e = errno;
    close(fd);
    results_file_abort(w);
    errno = e;
    return -1;
  }
  return 0;
}

int results_file_close(results_file *w) {
  if (!w->f) return 0;
  int e = ferror(w->f) ? EIO : 0;
  if (fflush(w->f) && !e) e = errno ? errno : EIO;
  if (fsync(fileno(w->f)) && !e) e = errno;
  if (fclose(w->f) && !e) e = errno;
  w->f = NULL;
  if (e) {
    results_file_abort(w);
    errno = e;
    return -1;
  }
  return 0;
}

int results_file_rename(results_file *w) {
  sigset_t old;
  block_signals(&old); /* renamed and unlisted at once */
  const int failed = !w->tmp || rename(w->tmp, w->path);
  const int e = w->tmp ? errno : EINVAL;
  if (!failed) live_remove(w->tmp);
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (failed) {
    results_file_abort(w);
    errno = e;
    return -1;
  }
  free(w->tmp);
  w->tmp = NULL;
  /* the rename itself on disk: sync the folder (best effort) */
  char *copy = strdup(w->path);
  if (copy) {
    const int dfd = open(dirname(copy), O_RDONLY);
    if (dfd >= 0) {
      fsync(dfd);
      close(dfd);
    }
    free(copy);
  }
  results_file_abort(w);
  return 0;
}

int results_file_commit(results_file *w) {
  return results_file_close(w) || results_file_rename(w) ? -1 : 0;
}

void results_file_abort(results_file *w) {
  if (!w) return;
  if (w->f) fclose(w->f);
  if (w->tmp) {
    sigset_t old;
    block_signals(&old);
    unlink(w->tmp);
    live_remove(w->tmp);
    sigprocmask(SIG_SETMASK, &old, NULL);
  }
  free(w->tmp);
  free(w->path);
  *w = (results_file){0};
}
