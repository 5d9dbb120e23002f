/* Reading the result CSV a run writes (results/report.h): one header line, then
 * one row per point, every cell kept as the text it was written as, so that a
 * tool that copies cells (merge) writes them back byte for byte and a tool
 * that needs numbers asks for them by column name (never by position: later
 * versions add columns, and unknown ones are carried along).
 *
 * The format read is the run's: comma-separated fields, a field may be quoted
 * ("...", with "" for a quote inside, and commas or line breaks within it),
 * lines end in \n or \r\n, blank lines are skipped, a UTF-8 byte-order mark is
 * ignored. The header must name at least `point`, `bits` and `bit_errors`.
 * Every error names the file and the line: "PATH:LINE: what was expected, got
 * what". Only a regular file of at most RESULTS_MAX_FILE_BYTES is read (not
 * /dev/zero, a FIFO or a folder), and every row passes
 * result_table_check_row. */
#ifndef OFDMSIM_RESULTS_H
#define OFDMSIM_RESULTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct result_table {
  char *path;
  size_t n_cols, n_rows;
  char **names;  /* n_cols header names */
  char **cells;  /* n_rows * n_cols, row-major, never NULL ("" when empty), label unquoted */
  size_t *lines; /* the file line of each row (where the row starts) */
} result_table;

/* Reads path into t (which needs no initialisation). 0, or 2 with "PATH:LINE:
 * what was expected, got what" in err and t zeroed: an unreadable file
 * ("PATH: cannot read: why"), an empty file, not an ofdmsim CSV (no `point` /
 * `bits` / `bit_errors` column), a row with the wrong
 * number of fields, an unterminated quote, a stray quote. A column named
 * twice is kept twice; result_table_column finds the first. */
int result_table_read(result_table *t, const char *path, char *err, size_t errlen);
/* Frees what t holds and zeroes it; safe on a zeroed table and twice. */
void result_table_free(result_table *t);
/* The index of the column called name, or -1. */
int result_table_column(const result_table *t, const char *name);
/* The cell of row and column col; "" for a column of -1 (a missing optional
 * column) or any index out of range. */
const char *result_table_cell(const result_table *t, size_t row, int col);
/* Typed cells: 0, or 2 with "PATH:LINE: column NAME: expected ..., got '...'"
 * (a missing column: "PATH:1: expected a column NAME, got none"). u64 takes
 * plain decimal digits only; double takes any finite strtod number. */
int result_table_u64(const result_table *t, size_t row, const char *name, uint64_t *v, char *err,
                     size_t errlen);
int result_table_double(const result_table *t, size_t row, const char *name, double *v, char *err,
                        size_t errlen);
/* 0, or 2 naming the first of the NULL-terminated names that is missing. */
int result_table_require(const result_table *t, const char *const *names, char *err, size_t errlen);

/* printf into err (when err and errlen allow): the one way the result
 * readers, merge and compare report. Control characters (terminal escapes,
 * line breaks from a cell) come out as '?' (results_clean_text). */
void results_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Replaces every control byte of s (below 0x20, and 0x7f) by '?' in place:
 * for text from a file that goes to a terminal. */
void results_clean_text(char *s);

/* The largest results CSV read (2 GiB): a reader holds the whole text and
 * its cells, several times its size. */
#define RESULTS_MAX_FILE_BYTES ((uint64_t)2 << 30)

/* The one row check every reader (merge, compare, plot) applies, through
 * result_table_read, to the columns the file has: bits, bit_errors and
 * frames unsigned integers, bit_errors <= bits, frames > 0 where bits > 0,
 * frame_errors_sq a finite number >= 0 (and, where bit_errors > 0, at most
 * bit_errors^2: a frame's errors are part of the total), ci95_low <=
 * ci95_high, both in [0, 1], frame_gmi_loss_sq >= 0, gmi_s >= 0, and
 * gmi_loss_s and frame_gmi_loss_s_sq GMI_GRID numbers >= 0 each, where
 * given. 0, or 2 with "PATH:LINE: column NAME: expected ..., got ...". */
int result_table_check_row(const result_table *t, size_t row, char *err, size_t errlen);

/* A cell of n numbers >= 0 joined by ';' (the GMI grid's sums, n =
 * GMI_GRID) into v: 0 with *has = 0 when the table lacks the column or the
 * cell is empty, 0 with *has = 1 when read, 2 with the error in err. */
int result_table_numbers(const result_table *t, size_t row, const char *name, double *v, size_t n, int *has,
                         char *err, size_t errlen);

#endif
