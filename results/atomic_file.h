/* Files written whole or not at all, for every result ofdmsim writes (the
 * run's CSV and JSON, merge's outputs): a reader sees the old file or the new
 * one, never half of one, and never a file reached through a planted link. */
#ifndef OFDMSIM_ATOMIC_FILE_H
#define OFDMSIM_ATOMIC_FILE_H

#include <stdio.h>

/* A file written whole or not at all: the text goes to a temporary file made
 * with mkstemp in the target's folder (PATH.tmpXXXXXX, which
 * report_remove_stale_temps finds after a kill) and synced; results_file_commit renames
 * it over the target, results_file_abort removes it. */
typedef struct results_file {
  char *path, *tmp;
  FILE *f;
} results_file;
/* 0, or -1 with errno set. */
int results_file_open(results_file *w, const char *path);
/* Flushes, syncs and closes the temporary file, then renames it: 0, or -1
 * with errno set (the temporary file removed). */
int results_file_commit(results_file *w);
/* Flushes, syncs and closes without renaming: 0, or -1 with errno set (the
 * temporary file removed). For writing several files before renaming any. */
int results_file_close(results_file *w);
/* Renames a closed file into place: 0, or -1 with errno set. */
int results_file_rename(results_file *w);
/* Removes the temporary file (if any) and frees w; safe twice. */
void results_file_abort(results_file *w);

/* For the tools that end on a signal (merge, plot): SIGINT, SIGTERM and
 * SIGHUP remove the temporary files of every results_file still open, then
 * end the process as the signal would have. (The run catches these signals
 * itself, to save what it has, and does not call this.) */
void results_file_remove_on_signals(void);

#endif
