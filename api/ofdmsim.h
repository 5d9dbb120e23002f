/* libofdmsim: the simulator as a library, the one public header.
 *
 * What a program (or the Python package, over ctypes) needs to use ofdmsim
 * without its command line: load a config (a file or text, with --set style
 * overrides), run its sweep with a progress callback that may cancel, read
 * each point's results with every CSV column typed, and draw batches of the
 * link itself (transmitted bits, LLRs, optionally the channels and the
 * equalised symbols) into the caller's host or device buffers.
 *
 * Errors: every function that can fail returns an ofdmsim_status, the same
 * number the command line exits with (2 a config or usage error, nothing
 * written; 1 a runtime error; 130 a run cancelled, its finished points
 * kept), and leaves the message, the command line's text without its
 * "ofdmsim: error: " lead, in ofdmsim_last_error() of the calling thread.
 * Nothing here ends the process or prints an error. Objects are not shared
 * between threads while in use; distinct links may run on distinct
 * threads, but one ofdmsim_run at a time in a process (its stop is the
 * process's, the one SIGINT asks for, and it sets OpenMP's thread count). */
#ifndef OFDMSIM_H
#define OFDMSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised whenever a function below changes or is added. */
#define OFDMSIM_API_VERSION 1

typedef enum ofdmsim_status {
  OFDMSIM_OK = 0,
  OFDMSIM_ERR_RUNTIME = 1,   /* a backend failed, a file could not be written, out of memory */
  OFDMSIM_ERR_CONFIG = 2,    /* a bad config, override, argument or result file; nothing was written */
  OFDMSIM_CANCELLED = 130,   /* the progress callback (or SIGINT) stopped the run; finished points are kept */
  OFDMSIM_TERMINATED = 143   /* SIGTERM stopped a run that keeps the signals (library = 0) */
} ofdmsim_status;

/* The API version this library implements (OFDMSIM_API_VERSION when built). */
int ofdmsim_api_version(void);
/* "0.1.0": the program's version. */
const char *ofdmsim_version(void);
/* The message of the last failure on this thread ("" when none). */
const char *ofdmsim_last_error(void);
/* Frees text this library returned (ofdmsim_config_echo). */
void ofdmsim_free(void *p);

/* ---- configs -------------------------------------------------------------- */

typedef struct ofdmsim_config ofdmsim_config;

/* Loads a config file and applies the overrides ("KEY=VALUE", as --set) in
 * order; every key and every sweep point is checked before it returns. On
 * failure *out is NULL and the message is the command line's
 * ("FILE:LINE: KEY: expected WHAT, got VALUE", "--set KEY=VALUE: ..."). */
ofdmsim_status ofdmsim_config_load(ofdmsim_config **out, const char *path, const char *const *overrides,
                                   int n_overrides);
/* The same from config text (read through a temporary file, so an @include
 * in it needs an absolute path); messages name the text as "<text>". */
ofdmsim_status ofdmsim_config_parse(ofdmsim_config **out, const char *text, const char *const *overrides,
                                    int n_overrides);
void ofdmsim_config_free(ofdmsim_config *c);
/* Keeps only shard `shard` (1-based) of `shards` of the points, as --shard
 * I/N does: `ofdmsim merge` joins the N shards' results into the sweep's. */
ofdmsim_status ofdmsim_config_shard(ofdmsim_config *c, unsigned shard, unsigned shards);
/* Points of the sweep. */
size_t ofdmsim_config_points(const ofdmsim_config *c);
/* The effective config (file, overrides, defaults) in libconfig syntax, one
 * `key = value;` per line, as the run's header echoes it; ofdmsim_free it. */
char *ofdmsim_config_echo(const ofdmsim_config *c);

/* ---- sweeps --------------------------------------------------------------- */

typedef struct ofdmsim_progress {
  size_t point;          /* the point being computed (0-based) */
  size_t points;         /* points of the sweep */
  size_t points_done;    /* points finished */
  uint64_t frames, bits, bit_errors; /* the current point's counts so far */
  double seconds;        /* the current point's time so far */
} ofdmsim_progress;
/* Called after every batch and every finished point, on the thread that
 * called ofdmsim_run; nonzero cancels the run (between batches), which then
 * keeps every finished point, and the partial one, as Ctrl-C does. */
typedef int (*ofdmsim_progress_fn)(void *ctx, const ofdmsim_progress *p);

typedef struct ofdmsim_run_options {
  const char *output;      /* results CSV (with its .json sidecar and .journal), or NULL for none */
  int force;               /* replace existing results (--force) */
  int resume;              /* continue them from the journal (--resume) */
  const char *backend;     /* "auto", "cpu", "cuda"; NULL: simulation.backend of the config */
  int table;               /* 1: the header and the table on stdout, as the command line prints them */
  int quiet;               /* 1: no progress line on stderr (a library caller's usual choice) */
  double progress_seconds; /* --progress: the stderr line every so many seconds; 0: its default */
  const char *llr_out;     /* --llr-out FILE after the sweep, or NULL */
  uint64_t llr_frames;     /* --llr-frames (0: 1) */
  const char *command_line; /* recorded in the sidecar; NULL: "libofdmsim" */
  ofdmsim_progress_fn progress;
  void *progress_ctx;
  int library;             /* 1: leave SIGINT/SIGTERM alone and print no error (the progress
                              callback cancels); 0: as the command line (Ctrl-C saves and stops) */
} ofdmsim_run_options;

typedef struct ofdmsim_results ofdmsim_results;

/* Runs every point of c. With `results` non-NULL, *results receives the
 * points that were computed (also on OFDMSIM_CANCELLED: the finished ones
 * and the partial one; NULL on an error before any work). The outputs are
 * checked before any work, as the command line checks -o. */
ofdmsim_status ofdmsim_run(const ofdmsim_config *c, const ofdmsim_run_options *o, ofdmsim_results **results);

/* ---- results -------------------------------------------------------------- */

typedef enum ofdmsim_type {
  OFDMSIM_INT = 0,  /* a column of integers (counts, sizes, integer config keys) */
  OFDMSIM_REAL = 1, /* a column of reals; an empty cell is NaN */
  OFDMSIM_TEXT = 2  /* names, keys in hex, per-stream lists "a;b", labels */
} ofdmsim_type;

/* Reads a results CSV (a run's, a merge's, an MPI run's), rows checked as
 * every reader of the program checks them. */
ofdmsim_status ofdmsim_results_read(ofdmsim_results **out, const char *csv_path);
void ofdmsim_results_free(ofdmsim_results *r);
size_t ofdmsim_results_rows(const ofdmsim_results *r);
size_t ofdmsim_results_columns(const ofdmsim_results *r);
/* In CSV order; NULL past the last. */
const char *ofdmsim_results_column_name(const ofdmsim_results *r, size_t col);
/* The column's type: the fixed columns as README's "Result files" gives
 * them, a config column by its cells (integers, else numbers, else text). */
ofdmsim_type ofdmsim_results_column_type(const ofdmsim_results *r, size_t col);
/* A whole column into dst (rows values): 0, or OFDMSIM_ERR_CONFIG for a
 * column of another type. */
ofdmsim_status ofdmsim_results_ints(const ofdmsim_results *r, size_t col, int64_t *dst);
ofdmsim_status ofdmsim_results_reals(const ofdmsim_results *r, size_t col, double *dst);
/* A cell as the CSV has it (any type); "" out of range. */
const char *ofdmsim_results_text(const ofdmsim_results *r, size_t row, size_t col);

/* ---- the link, batch by batch ----------------------------------------------- */

typedef struct ofdmsim_link ofdmsim_link;

enum {
  OFDMSIM_LINK_CHANNELS = 1 /* keep each batch's channels and equalised symbols (the staged path) */
};

typedef struct ofdmsim_link_info {
  int tx, rx, bps;             /* streams, antennas, bits per symbol */
  int symbols, subcarriers;    /* of a frame */
  uint64_t res_per_frame;      /* symbols x subcarriers */
  uint64_t data_res_per_frame; /* less the pilot REs: the LLRs' REs */
  uint64_t first_frame;        /* the point's first frame: frame offsets count from it */
  uint64_t max_frames;         /* the largest batch */
  uint64_t point_key;          /* the CSV's point_key */
  double snr_db, n0;
  int soft;                    /* 1 when the point has LLRs (receiver.llr != off) */
  int device;                  /* 1 when the backend is a GPU: buffers may be its memory */
  char backend[16];            /* "cpu" or "cuda" */
} ofdmsim_link_info;

/* One batch's outputs, each NULL when not wanted; host memory, or on a GPU
 * link also memory of ofdmsim_link_device_alloc (or any device memory of
 * the link's GPU). For F frames, D data REs and R = F x res_per_frame REs:
 *   bits, llr     [F][D][tx][bps]  the transmitted bits (0, 1) and their LLRs,
 *                                  ln P(b=1)/P(b=0) (needs a soft point)
 *   bit_errors    [F][tx]          the receiver's bit errors, as the run counts them (host only)
 *   channels      [rx][tx][R]      complex float pairs: the true channel (OFDMSIM_LINK_CHANNELS)
 *   symbols       [tx][R]          the equalised, bias-corrected symbols (OFDMSIM_LINK_CHANNELS) */
typedef struct ofdmsim_batch {
  uint8_t *bits;
  float *llr;
  uint32_t *bit_errors;
  float *channels;
  float *symbols;
} ofdmsim_batch;

/* A link for point `point` of c's sweep on `backend` ("auto", "cpu",
 * "cuda"; NULL: the config's), taking batches of up to max_frames frames
 * (0: the backend's choice). */
ofdmsim_status ofdmsim_link_create(ofdmsim_link **out, const ofdmsim_config *c, size_t point, const char *backend,
                                   uint64_t max_frames, int flags);
void ofdmsim_link_free(ofdmsim_link *l);
void ofdmsim_link_get_info(const ofdmsim_link *l, ofdmsim_link_info *info);
/* Frames frame_offset .. frame_offset + frames - 1 of the point (offset 0 is
 * the point's own first frame, the run's first frame of that point): the
 * same counter-based draws the run counts. frames <= max_frames. */
ofdmsim_status ofdmsim_link_batch(ofdmsim_link *l, uint64_t frame_offset, uint64_t frames, const ofdmsim_batch *out);
/* Device memory of the link's GPU (NULL with the message on a CPU link or
 * when none is left); freed with ofdmsim_link_device_free. */
void *ofdmsim_link_device_alloc(ofdmsim_link *l, size_t bytes);
void ofdmsim_link_device_free(ofdmsim_link *l, void *p);

#ifdef __cplusplus
}
#endif
#endif
