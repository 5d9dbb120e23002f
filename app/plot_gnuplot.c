/* Finding and running gnuplot. Its output (warnings, the script's own
 * messages) is kept in a temporary file and shown only when it fails, so a
 * good run prints nothing but ofdmsim's one line. A SIGINT or SIGTERM while
 * it draws ends it: ofdmsim would otherwise die and leave gnuplot drawing
 * into a temporary file nobody removes. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/plot_internal.h"

extern char **environ;

static volatile sig_atomic_t stop_signal = 0;

static void on_stop_signal(int sig) {
  if (!stop_signal) stop_signal = sig;
}

void plot_catch_signals(void) {
  /* No SA_RESTART: a blocking call returns, and the caller looks at the flag.
   * Installed even where the shell started us with SIGINT ignored (a
   * background job): a stop asked for is a stop. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int plot_stopped(void) { return stop_signal; }

static int executable(const char *path) {
  struct stat st;
  return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/* name (no '/') looked up on PATH into out; 0 found, -1 not. */
static int on_path(const char *name, char *out, size_t n) {
  const char *path = getenv("PATH");
  if (!path || !*path) return -1;
  for (const char *p = path;; p++) {
    const char *end = strchr(p, ':');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    /* an empty entry is the current folder, as for the shell */
    if ((size_t)snprintf(out, n, "%.*s%s%s", (int)len, len ? p : ".", "/", name) < n && executable(out))
      return 0;
    if (!end) return -1;
    p = end;
  }
}

int plot_gnuplot_find(char *out, size_t n) {
  const char *want = getenv("GNUPLOT");
  if (want && *want) {
    if (strchr(want, '/')) {
      if (executable(want) && (size_t)snprintf(out, n, "%s", want) < n) return 0;
    } else if (!on_path(want, out, n)) {
      return 0;
    }
    snprintf(out, n, "GNUPLOT=%s", want);
    return -1;
  }
  if (!on_path("gnuplot", out, n)) return 0;
  snprintf(out, n, "gnuplot on PATH");
  return -1;
}

/* The last lines of what f holds (at most ~2 kB), for the message. */
static void tail_of(FILE *f, char *out, size_t n) {
  out[0] = '\0';
  if (fseek(f, 0, SEEK_END)) return;
  const long size = ftell(f);
  const long keep = size < 2000 ? size : 2000;
  if (keep <= 0 || fseek(f, size - keep, SEEK_SET)) return;
  const size_t got = fread(out, 1, n - 1 < (size_t)keep ? n - 1 : (size_t)keep, f);
  out[got] = '\0';
  while (got && (out[strlen(out) - 1] == '\n')) out[strlen(out) - 1] = '\0';
}

int plot_gnuplot_run(const char *gnuplot, const char *script, const char *picture, char *err, size_t errlen) {
  /* out='...' in gnuplot's single quotes, where '' is a quote */
  size_t len = 0;
  for (const char *s = picture; *s; s++) len += *s == '\'' ? 2 : 1;
  char *assign = malloc(len + 16);
  FILE *log = tmpfile();
  if (!assign || !log) {
    snprintf(err, errlen, "cannot start gnuplot: %s", strerror(errno));
    free(assign);
    if (log) fclose(log);
    return 1;
  }
  char *a = assign + sprintf(assign, "out='");
  for (const char *s = picture; *s; s++) {
    if (*s == '\'') *a++ = '\'';
    *a++ = *s;
  }
  strcpy(a, "'");

  /* SIGINT, SIGTERM and SIGCHLD are blocked from before the spawn and taken
   * with sigtimedwait, so none can slip in between looking at the flag and
   * waiting (one that came before is in the flag). gnuplot starts with the
   * mask and the two stop signals as they were before ofdmsim touched them. */
  sigset_t waited, before;
  sigemptyset(&waited);
  sigaddset(&waited, SIGINT);
  sigaddset(&waited, SIGTERM);
  sigaddset(&waited, SIGCHLD);
  sigprocmask(SIG_BLOCK, &waited, &before);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t dfl;
  sigemptyset(&dfl);
  sigaddset(&dfl, SIGINT);
  sigaddset(&dfl, SIGTERM);
  posix_spawnattr_setsigmask(&attr, &before);
  posix_spawnattr_setsigdefault(&attr, &dfl);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fileno(log), 1);
  posix_spawn_file_actions_adddup2(&fa, fileno(log), 2);
  char *argv[] = {(char *)gnuplot, "-e", assign, (char *)script, NULL};
  pid_t pid;
  const int spawn_rc = stop_signal ? ECANCELED : posix_spawn(&pid, gnuplot, &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  free(assign);
  if (spawn_rc) {
    sigprocmask(SIG_SETMASK, &before, NULL);
    if (stop_signal) snprintf(err, errlen, "stopped before gnuplot started");
    else snprintf(err, errlen, "cannot run %s: %s", gnuplot, strerror(spawn_rc));
    fclose(log);
    return 1;
  }
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      snprintf(err, errlen, "waiting for %s: %s", gnuplot, strerror(errno));
      sigprocmask(SIG_SETMASK, &before, NULL);
      fclose(log);
      return 1;
    }
    if (stop_signal) {
      /* gnuplot draws into our temporary file, which the caller removes:
       * nothing of its work is kept, so it need not finish anything, and
       * SIGKILL cannot be caught or ignored */
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      sigprocmask(SIG_SETMASK, &before, NULL);
      snprintf(err, errlen, "stopped while gnuplot drew");
      fclose(log);
      return 1;
    }
    /* SIGCHLD wakes this at once; the timeout only bounds a lost wake-up */
    const struct timespec tick = {1, 0};
    siginfo_t info;
    const int sig = sigtimedwait(&waited, &info, &tick);
    if ((sig == SIGINT || sig == SIGTERM) && !stop_signal) stop_signal = sig;
  }
  sigprocmask(SIG_SETMASK, &before, NULL);
  char said[2048];
  tail_of(log, said, sizeof said);
  fclose(log);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  char how[64];
  if (WIFEXITED(status)) snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
  else snprintf(how, sizeof how, "signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  snprintf(err, errlen, "%s failed (%s) on %s%s%s", gnuplot, how, script, *said ? ":\n" : "", said);
  return 1;
}
