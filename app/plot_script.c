/* Curves -> a gnuplot script that needs nothing else: the data sit inline in
 * datablocks ($c1 << EOD), the terminal follows the picture's extension, and
 * every style is a plain gnuplot line a user can change before running
 * `gnuplot ber.gp` again. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/plot_internal.h"

/* Ten colours distinct on white and from one another (Tableau 10); curve 11
 * takes the first colour again with another point type. */
static const char *const colours[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
    "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
};
#define N_COLOURS (sizeof colours / sizeof *colours)
/* filled circle, square, up triangle, diamond, pentagon */
static const int point_types[] = {7, 5, 9, 13, 15};
#define N_POINT_TYPES (sizeof point_types / sizeof *point_types)
/* The no-error marker: a filled down-pointing triangle. */
#define PT_UPPER_BOUND 11

const char *plot_colour(size_t i) { return colours[i % N_COLOURS]; }
static int point_type(size_t i) { return point_types[(i / N_COLOURS) % N_POINT_TYPES]; }

/* s as a gnuplot single-quoted string: no escapes inside, '' is a quote; a
 * line break (a label may hold one) becomes a space. */
static void put_string(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'') fputs("''", f);
    else if ((unsigned char)*s < 0x20) fputc(' ', f);
    else fputc(*s, f);
  }
  fputc('\'', f);
}

/* The axes' ranges: x over the SNRs with a margin, y in whole decades over
 * everything drawn. A lower interval bound far below the points (or 0) is
 * not allowed to stretch the axis more than two decades below the lowest
 * point; its bar ends at the axis. */
typedef struct ranges {
  double x0, x1, y0, y1;
} ranges;

static ranges ranges_of(const plot_data *d) {
  double x0 = INFINITY, x1 = -INFINITY, lo = INFINITY, hi = 0, low = INFINITY;
  for (size_t c = 0; c < d->n_curves; c++)
    for (size_t i = 0; i < d->curves[c].n; i++) {
      const plot_point *p = &d->curves[c].points[i];
      x0 = fmin(x0, p->snr), x1 = fmax(x1, p->snr);
      const double y = p->zero ? p->high : p->ber;
      lo = fmin(lo, y);
      hi = fmax(hi, p->high);
      if (!p->zero && p->low > 0) low = fmin(low, p->low);
      if (!isnan(p->theory)) lo = fmin(lo, p->theory), hi = fmax(hi, p->theory);
    }
  const double pad = x1 > x0 ? 0.04 * (x1 - x0) : 0.5;
  if (isfinite(low)) lo = fmin(lo, fmax(low, lo / 100));
  ranges r = {x0 - pad, x1 + pad, pow(10, floor(log10(lo))), pow(10, ceil(log10(hi)))};
  if (r.y1 > 1) r.y1 = 1; /* a BER is at most 1 */
  if (!(r.y1 > r.y0)) r.y1 = r.y0 * 10;
  return r;
}

static void put_terminal(FILE *f, const plot_style *s) {
  switch (s->format) {
  case PLOT_PNG:
    fprintf(f,
            "# pngcairo draws smoother lines; plain png (libgd) where gnuplot lacks cairo.\n"
            "if (strstrt(' '.GPVAL_TERMINALS.' ', ' pngcairo ') > 0) {\n"
            "  set terminal pngcairo size %d,%d enhanced font 'Sans,11'\n"
            "} else {\n"
            "  set terminal png size %d,%d enhanced\n"
            "}\n",
            s->width, s->height, s->width, s->height);
    break;
  case PLOT_SVG:
    fprintf(f, "set terminal svg size %d,%d enhanced font 'Sans,11' background rgb 'white'\n", s->width,
            s->height);
    break;
  case PLOT_PDF:
    /* a PDF is measured in inches: 150 pixels an inch makes the default
     * 900x600 a 6x4 in figure, with the same proportions of text to plot */
    fprintf(f,
            "if (strstrt(' '.GPVAL_TERMINALS.' ', ' pdfcairo ') == 0) {\n"
            "  print 'ofdmsim plot: error: this gnuplot has no pdfcairo terminal, which PDF needs "
            "(the Debian package gnuplot-nox has it); draw a .png or .svg instead'\n"
            "  exit status 1\n"
            "}\n"
            "set terminal pdfcairo size %.4gin,%.4gin enhanced font 'Sans,9'\n",
            s->width / 150.0, s->height / 150.0);
    break;
  }
}

/* The blocks of curve c: its measured points ($cN), the upper bounds of its
 * points without error ($cN_zero), its theory ($cN_theory); a block only
 * where it has a row. */
static void put_blocks(FILE *f, const plot_curve *c, size_t k, double y0, int *has_zero, int *has_theory) {
  size_t measured = 0, zero = 0, theory = 0;
  for (size_t i = 0; i < c->n; i++) {
    measured += !c->points[i].zero;
    zero += c->points[i].zero;
    theory += !isnan(c->points[i].theory);
  }
  fprintf(f, "\n# curve %zu: ", k + 1);
  put_string(f, c->legend);
  fprintf(f, ", colour %s, %zu point%s\n", plot_colour(k), c->n, c->n == 1 ? "" : "s");
  if (measured) {
    fprintf(f, "$c%zu << EOD\n# snr_db ber ci95_low ci95_high\n", k + 1);
    for (size_t i = 0; i < c->n; i++) {
      const plot_point *p = &c->points[i];
      if (!p->zero) fprintf(f, "%.10g %.10g %.10g %.10g\n", p->snr, p->ber, fmax(p->low, y0), p->high);
    }
    fputs("EOD\n", f);
  }
  if (zero) {
    fprintf(f, "$c%zu_zero << EOD\n# snr_db ci95_high (no bit error: the 95%% upper bound)\n", k + 1);
    for (size_t i = 0; i < c->n; i++)
      if (c->points[i].zero) fprintf(f, "%.10g %.10g\n", c->points[i].snr, c->points[i].high);
    fputs("EOD\n", f);
    *has_zero = 1;
  }
  if (theory) {
    fprintf(f, "$c%zu_theory << EOD\n# snr_db theory_ber\n", k + 1);
    for (size_t i = 0; i < c->n; i++)
      if (!isnan(c->points[i].theory)) fprintf(f, "%.10g %.10g\n", c->points[i].snr, c->points[i].theory);
    fputs("EOD\n", f);
    *has_theory = 1;
  }
}

/* The plot elements of curve k; the legend goes on its first one. */
static void put_elements(FILE *f, const plot_curve *c, size_t k, int *first) {
  int titled = 0;
  size_t measured = 0, zero = 0, theory = 0;
  for (size_t i = 0; i < c->n; i++) {
    measured += !c->points[i].zero;
    zero += c->points[i].zero;
    theory += !isnan(c->points[i].theory);
  }
  const char *sep = ", \\\n     ";
  if (measured) {
    fprintf(f, "%s$c%zu using 1:2:3:4 with yerrorlines lw 2 pt %d ps 1.2 lc rgb '%s' title ",
            *first ? "" : sep, k + 1, point_type(k), plot_colour(k));
    put_string(f, c->legend);
    fputs(" noenhanced", f);
    titled = 1, *first = 0;
  }
  if (zero) {
    fprintf(f, "%s$c%zu_zero using 1:2 with points pt %d ps 1.6 lc rgb '%s' ", *first ? "" : sep, k + 1,
            PT_UPPER_BOUND, plot_colour(k));
    if (titled) fputs("notitle", f);
    else fputs("title ", f), put_string(f, c->legend), fputs(" noenhanced", f);
    titled = 1, *first = 0;
  }
  if (theory) {
    fprintf(f, "%s$c%zu_theory using 1:2 with lines dt 2 lw 1.5 lc rgb '%s' notitle", *first ? "" : sep,
            k + 1, plot_colour(k));
    *first = 0;
  }
}

int plot_script_write(FILE *f, const plot_data *d, const plot_style *s, const char *source_line) {
  const ranges r = ranges_of(d);
  fprintf(f,
          "# BER against SNR, drawn by `%s`.\n"
          "# Self-contained: the data are inline below. Restyle it and draw again with\n"
          "#   gnuplot %s                        (in this folder) writes %s\n"
          "#   gnuplot -e \"out='elsewhere'\" %s   writes there, in the same format\n"
          "# Error bars: the 95%% interval (ci95_low, ci95_high). Dashed: the closed-form\n"
          "# theory (theory_ber), in its curve's colour. A down-pointing triangle: a point\n"
          "# without a bit error, drawn at its 95%% upper bound (ci95_high).\n"
          "\n"
          "if (!exists('out')) out = ",
          source_line, s->script, s->output, s->script);
  put_string(f, s->output);
  fputc('\n', f);
  put_terminal(f, s);
  fputs("set output out\n", f);
  const char *title = s->title ? s->title : d->title;
  if (*title) fputs("set title ", f), put_string(f, title), fputs(" noenhanced\n", f);
  else fputs("unset title\n", f);
  fputs("set xlabel ", f);
  put_string(f, d->xlabel);
  fputs(" noenhanced\n", f);
  fprintf(f,
          "set ylabel 'BER'\n"
          "set logscale y\n"
          "set format y '10^{%%L}'\n"
          "set mytics 10\n"
          "set xrange [%.10g:%.10g]\n"
          "set yrange [%.10g:%.10g]\n"
          "set grid xtics ytics\n"
          "set bars small\n",
          r.x0, r.x1, r.y0, r.y1);
  /* BER curves fall to the right, so the bottom left corner is mostly free
   * for a few short entries; many or long ones go below the plot, where they
   * hide nothing, in a smaller font */
  size_t longest = 0;
  for (size_t k = 0; k < d->n_curves; k++)
    if (strlen(d->curves[k].legend) > longest) longest = strlen(d->curves[k].legend);
  if (d->n_curves <= 4 && longest <= 40) fputs("set key bottom left reverse Left box opaque samplen 3\n", f);
  else
    fprintf(f, "set key below left reverse Left samplen 3 font ',%d' height 1.5\n",
            s->format == PLOT_PDF ? 7 : 9);

  int has_zero = 0, has_theory = 0;
  for (size_t k = 0; k < d->n_curves; k++) put_blocks(f, &d->curves[k], k, r.y0, &has_zero, &has_theory);

  fputs("\nplot ", f);
  int first = 1;
  for (size_t k = 0; k < d->n_curves; k++) put_elements(f, &d->curves[k], k, &first);
  /* what the markers mean, once, in the key: NaN draws nothing but its entry */
  if (has_theory) fputs(", \\\n     NaN with lines dt 2 lw 1.5 lc rgb 'gray40' title 'theory (dashed)'", f);
  if (has_zero)
    fprintf(f,
            ", \\\n     NaN with points pt %d ps 1.6 lc rgb 'gray40' title 'no bit error: 95%% upper bound'",
            PT_UPPER_BOUND);
  fputs("\n", f);
  return ferror(f) ? -1 : 0;
}
