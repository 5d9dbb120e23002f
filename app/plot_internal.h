/* The parts of `ofdmsim plot`, each in its own file:
 *   plot_curves.c  result rows -> curves (which keys differ, legends, title)
 *   plot_script.c  curves -> a self-contained gnuplot script
 *   plot_gnuplot.c finding and running gnuplot
 *   plot.c         the command line and the order of the steps */
#ifndef OFDMSIM_APP_PLOT_INTERNAL_H
#define OFDMSIM_APP_PLOT_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

/* One drawn row. */
typedef struct plot_point {
  double snr;    /* snr_db */
  double ber;    /* bit_errors / bits */
  double low;    /* ci95_low, may be 0 (clamped to the axis when drawn) */
  double high;   /* ci95_high */
  double theory; /* theory_ber, or NAN where the CSV has none */
  int zero;      /* no bit error: no point on a log axis, only `high` is drawn */
} plot_point;

typedef struct plot_curve {
  char *legend;       /* the differing keys: "mimo.tx=4 equalizer=zf" */
  plot_point *points; /* sorted by snr */
  size_t n, cap;
} plot_curve;

typedef struct plot_data {
  plot_curve *curves;
  size_t n_curves;
  size_t n_points; /* over all curves */
  char *title;     /* the keys every curve shares, shortened; may be "" */
  char *xlabel;    /* "Eb/N0 (dB)", ...; "SNR (dB), see legend" for mixed kinds */
} plot_data;

/* Reads the CSVs and groups their plottable rows (bits > 0) into curves. 0,
 * or 2 with "PATH:LINE: what was expected, got what" in err (unreadable or
 * malformed CSV, a CSV without a plottable row). */
int plot_data_load(plot_data *d, char *const *paths, size_t n_paths, char *err, size_t errlen);
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
/* The gnuplot script drawing d; 0, or -1 on a write error (errno). */
int plot_script_write(FILE *f, const plot_data *d, const plot_style *s, const char *source_line);

/* The gnuplot to run: $GNUPLOT (a path, or a name looked up on PATH) or
 * "gnuplot" on PATH. 0 with its path in out, or -1 with what was looked for
 * in out ("gnuplot on PATH", "GNUPLOT=/x"). */
int plot_gnuplot_find(char *out, size_t n);
/* Runs `gnuplot -e "out='picture'" script`, its stdout and stderr kept
 * aside. 0, or 1 with why in err (gnuplot's own messages included). */
int plot_gnuplot_run(const char *gnuplot, const char *script, const char *picture, char *err, size_t errlen);

#endif
