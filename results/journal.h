/* The journal: an append-only text file beside the CSV (results.journal)
 * holding one line per finished chunk of frames (chunks.h), written as the
 * chunk completes. A run killed at any moment leaves every finished chunk in
 * it; `--resume` replays them and goes on from the next chunk, so the totals
 * equal those of one uninterrupted run.
 *
 * Records are keyed by the point's work key (point key + stopping rules +
 * frame range), not by its place in the sweep, so a resumed run may reorder,
 * extend or cut its sweep and still reuse every point it already has.
 *
 * Format (version 1): a first line "ofdmsim-journal 1", then per chunk
 *   chunk POINT WORK_KEY POINT_KEY K FRAMES BITS ERRORS FALLBACKS INVERSIONS
 *         SUM_SQ SECONDS DRAW CHANNEL GRAM INVERT EQUALIZE DEMAP
 *         TX STREAM_ERRORS STOP BACKEND GMI_LOSS GMI_LOSS_SQ GMI_LOSS_S
 *         GMI_LOSS_S_SQ CHECK
 * keys in hex, doubles in C99 hex-float (%a, exact), STREAM_ERRORS joined by
 * ';', GMI_LOSS the per-stream GMI losses (hex floats joined by ';') and
 * GMI_LOSS_SQ their frames' sum of squares, both "-" for a point without soft
 * outputs (lines without these two fields, written before they came, read
 * as "- -"), GMI_LOSS_S and GMI_LOSS_S_SQ the same at the GMI grid's
 * GMI_GRID scalings (the tally's gmi_loss_s and gmi_loss_s_sq, each
 * GMI_GRID hex floats joined by ';'), both "-" without soft outputs (lines
 * without them read as "- -": a chunk of a soft point written before they
 * came is never replayed, as point_work_key changed with them),
 * STOP "more" or the rule that ended the point in this chunk, or
 * "ahead" for a chunk finished before the chunks ahead of it (the MPI engine
 * saves every chunk it receives; whether a rule fired inside it is decided
 * when its prefix is there, and written again then), CHECK a
 * 32-bit FNV-1a of everything before it. A line that does not end in '\n' or
 * fails its check at the end of the file is the torn write of a killed run:
 * it is dropped (and cut off before appending); anywhere else it is an error. */
#ifndef OFDMSIM_JOURNAL_H
#define OFDMSIM_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "results/chunks.h"

typedef struct journal_record {
  uint64_t point;        /* the point's index in the run that wrote it (for readers) */
  uint64_t work_key, point_key;
  uint64_t chunk;        /* k of chunks.h */
  tally n;               /* the chunk's counts */
  int tx;                /* streams in n.stream_errors */
  char stop[24];         /* "more", "ahead", or "target_errors" | "target_precision" | "max_bits" */
  char backend[16];
  size_t line;           /* where it was read; 0 for a new record */
} journal_record;

typedef struct journal journal;

/* A new, empty journal at path (an existing one is replaced). NULL with the
 * reason in err. */
journal *journal_create(const char *path, char *err, size_t errlen);
/* An existing journal, read in full, open for appending. NULL with
 * "PATH:LINE: ..." in err when it is not a journal or is damaged before its
 * last line, or the reason it cannot be opened. */
journal *journal_resume(const char *path, char *err, size_t errlen);
/* Another process holds the journal: each open one holds the lock file
 * beside it (X.journal -> X.lock) open and flocked, and removes it when
 * closed; a file of its own, so that deleting or moving the journal does
 * not release the lock. */
#define JOURNAL_BUSY_PREFIX "another ofdmsim is writing"

/* The saved chunks of a work key, one record per chunk, in *out (valid until
 * the journal closes): first the decided chunks 0 .. *decided - 1 in order
 * (stop "more", the last one maybe the rule that ended the point), then the
 * chunks saved "ahead" past them, in chunk order (the last copy of each; none
 * once the point ended; a decided copy of a chunk stands over an ahead one).
 * Returns the count. A decided record with an earlier one missing, after the
 * one that ended the point, or disagreeing with a decided copy, is an error:
 * -1 with "PATH:LINE: ..." in err. */
long journal_chunks(const journal *j, uint64_t work_key, const journal_record **out, size_t *decided,
                    char *err, size_t errlen);
/* Records read at open, and the i-th of them (sorted by work key and chunk). */
size_t journal_count(const journal *j);
const journal_record *journal_record_at(const journal *j, size_t i);

/* Appends one record with one write(2). 0, or -1 with errno set. */
int journal_append(journal *j, const journal_record *r);
/* Flushes the journal to the disk (fdatasync). 0, or -1 with errno set. */
int journal_sync(journal *j);
void journal_close(journal *j);

/* One record as its line (with '\n'): the length, or -1 when n is too small. */
int journal_format(const journal_record *r, char *buf, size_t n);
/* Parses one line (without '\n'); 0, or -1 with what is wrong in why. */
int journal_parse(const char *line, journal_record *r, char *why, size_t n);

#endif
