/* The parts of `ofdmsim plot`, each in its own file:
 *   plot_curves.c  result rows -> curves (which keys differ, labels, title)
 *   plot_script.c  curves -> a self-contained gnuplot script
 *   plot_gnuplot.c finding and running gnuplot, and SIGINT/SIGTERM meanwhile
 *   plot.c         the command line and the order of the steps */
#ifndef OFDMSIM_APP_PLOT_INTERNAL_H
#define OFDMSIM_APP_PLOT_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

/* One drawn row. */
typedef struct plot_point {
  double x;      /* snr_db, or the --x key */
  double y;      /* the --y quantity: ber (bit_errors / bits), bler, gmi, throughput */
  double low;    /* its interval, NAN where the CSV has none; may be 0 on a log axis (clamped there) */
  double high;
  double theory; /* theory_ber (--y ber only), or NAN */
  int zero;      /* no error (log axes): no point, only `high` is drawn */
} plot_point;

typedef struct plot_curve {
  char *label;        /* for readers: "2x2 ZF", "a.csv: 16-QAM, TDL-C" */
  char *keys;         /* the raw differing keys: "mimo.tx=2 mimo.rx=2 equalizer=zf" */
  plot_point *points; /* sorted by x */
  size_t n, cap;
} plot_curve;

/* What to draw: --x (NULL: snr_db) against --y (NULL: ber). */
typedef struct plot_request {
  const char *x;
  const char *y;
} plot_request;

typedef struct plot_data {
  plot_curve *curves;
  size_t n_curves;
  size_t n_points; /* over all curves */
  char *title;     /* what every curve shares, its parts joined by ", "; may be "" */
  char *xlabel;    /* "Eb/N0 per stream (dB)", "Doppler shift (Hz)", ... */
  const char *ylabel;
  int log_y;       /* an error rate, on a log axis */
  int x_counts;    /* an --x key of whole numbers (antennas, subcarriers): tics on them */
} plot_data;

/* The --y names plot_data_load takes, NULL-terminated. */
extern const char *const plot_y_names[];

/* Reads the CSVs and groups their plottable rows (bits > 0, the quantity
 * present) into curves. 0, or 2 with "PATH:LINE: what was expected, got
 * what" in err (unreadable or malformed CSV, a value that cannot be drawn,
 * a missing column, a CSV without a plottable row, an --x that is no
 * numeric key or does not vary). */
int plot_data_load(plot_data *d, const plot_request *q, char *const *paths, size_t n_paths, char *err,
                   size_t errlen);
void plot_data_free(plot_data *d);

typedef enum plot_format { PLOT_PNG, PLOT_SVG, PLOT_PDF } plot_format;

typedef struct plot_style {
  plot_format format;
  int width, height;  /* pixels (a PDF: width/150 x height/150 inches) */
  const char *title;  /* NULL: the data's own; "": none */
  const char *output; /* the picture's file name, as the script writes it */
  const char *script; /* the script's own file name, for its comments */
} plot_style;

/* The colour of curve i, "#rrggbb" (a fixed cycle of distinct colours). */
const char *plot_colour(size_t i);
/* The gnuplot script drawing d; 0, or -1 on a write error (errno). Every
 * string in it is quoted for gnuplot or, in a comment, made harmless. */
int plot_script_write(FILE *f, const plot_data *d, const plot_style *s, const char *source_line);

/* The gnuplot to run: $GNUPLOT (a path, or a name looked up on PATH) or
 * "gnuplot" on PATH. 0 with its path in out, or -1 with what was looked for
 * in out ("gnuplot on PATH", "GNUPLOT=/x"). */
int plot_gnuplot_find(char *out, size_t n);
/* Runs `gnuplot -e "out='picture'" script`, its stdout and stderr kept
 * aside. 0, or 1 with why in err (gnuplot's own messages included; on
 * SIGINT/SIGTERM gnuplot is killed and waited for, and plot_stopped says
 * which came). */
int plot_gnuplot_run(const char *gnuplot, const char *script, const char *picture, char *err, size_t errlen);

/* SIGINT and SIGTERM only note that they came, from plot_catch_signals on,
 * so that plot can end gnuplot and remove its temporary files itself. */
void plot_catch_signals(void);
/* The signal that came (SIGINT, SIGTERM), or 0. */
int plot_stopped(void);

#endif
