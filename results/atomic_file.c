/* Files written whole or not at all (atomic_file.h). */
#include "results/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
  const int fd = mkstemp(w->tmp);
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
  if (!w->tmp || rename(w->tmp, w->path)) {
    const int e = w->tmp ? errno : EINVAL;
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
  if (w->tmp) unlink(w->tmp);
  free(w->tmp);
  free(w->path);
  *w = (results_file){0};
}
