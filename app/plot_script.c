/* Curves -> a gnuplot script that needs nothing else: the data sit inline in
 * datablocks ($c1 << EOD), the terminal follows the picture's extension, and
 * every style is a plain gnuplot line a user can change before running
 * `gnuplot ber.gp` again.
 *
 * Nothing read from outside (file names, the title, labels, CSV cells and
 * column names) is ever script text: in strings it is single-quoted, where
 * gnuplot expands nothing (no backquotes, no @macros, no escapes) and '' is
 * the only quote; a line break or other control character there becomes a
 * space. In comments it is quoted the same way with control characters and
 * backquotes replaced, so no comment line can end early or be continued (a
 * comment ending in a backslash swallows the next line). The one line break
 * we mean, in a wrapped title, is the constant "\n" between quoted parts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/plot_internal.h"

/* Ten colours distinct on white and from one another (Tableau 10). */
static const char *const colours[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
    "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
};
#define N_COLOURS (sizeof colours / sizeof *colours)
/* Markers, so curves that lie on one another (2x2 and 4x4 ZF) or that a
 * reader sees in grey still differ: filled circle, square, up triangle,
 * diamond, pentagon, then the same open. The down-pointing triangles (10,
 * 11) are kept for the upper bounds. */
static const int point_types[] = {7, 5, 9, 13, 15, 6, 4, 8, 12, 14};
#define N_POINT_TYPES (sizeof point_types / sizeof *point_types)
/* Dashes: solid, dashed, dash-dot, long dashes, dash-dot-dot (gnuplot's
 * own dotted type is too faint at this width to tell a curve by). */
static const char *const dash_types[] = {"1", "(9,5)", "(10,4,2,4)", "(18,6)", "(10,4,2,4,2,4)"};
#define N_DASH_TYPES (sizeof dash_types / sizeof *dash_types)
/* The no-error marker: a filled down-pointing triangle. */
#define PT_UPPER_BOUND 11

const char *plot_colour(size_t i) { return colours[i % N_COLOURS]; }
/* Curve i's marker and dash: each its own up to 50 curves, with the colour. */
static int point_type(size_t i) { return point_types[(i + i / N_COLOURS) % N_POINT_TYPES]; }
static const char *dash_type(size_t i) { return dash_types[i % N_DASH_TYPES]; }

/* The theory's colour: the curve's, 45% of the way to white, so the thin
 * line on top of its curve stays visible and reads as its curve's. */
static void light_colour(size_t i, char out[8]) {
  unsigned rgb[3];
  sscanf(plot_colour(i) + 1, "%2x%2x%2x", &rgb[0], &rgb[1], &rgb[2]);
  for (int c = 0; c < 3; c++) rgb[c] += (unsigned)lround(0.45 * (255 - rgb[c]));
  snprintf(out, 8, "#%02x%02x%02x", rgb[0] & 255, rgb[1] & 255, rgb[2] & 255);
}

/* The first n bytes of s as a gnuplot single-quoted string: no escapes
 * inside, '' is a quote; a control character becomes a space. */
static void put_quoted(FILE *f, const char *s, size_t n) {
  fputc('\'', f);
  for (size_t i = 0; i < n && s[i]; i++) {
    if (s[i] == '\'') fputs("''", f);
    else if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) fputc(' ', f);
    else fputc(s[i], f);
  }
  fputc('\'', f);
}

static void put_string(FILE *f, const char *s) { put_quoted(f, s, strlen(s)); }

/* s inside a comment: control characters and backquotes (which old
 * gnuplots expand even in comments) become '?'. */
static void put_comment_text(FILE *f, const char *s) {
  for (; *s; s++)
    fputc((unsigned char)*s < 0x20 || *s == 0x7f || *s == '`' ? '?' : *s, f);
}

/* The same, quoted: the line goes on after it, so no backslash of s ends
 * the line (which would continue the comment onto the next). */
static void put_comment_string(FILE *f, const char *s) {
  fputc('\'', f);
  put_comment_text(f, s);
  fputc('\'', f);
}

/* s as a string expression of lines: 'a'."\n".'b'. The user's line breaks
 * stay; with wrap > 0 lines also break after a ", " where they would
 * otherwise run past wrap characters (a part longer than that keeps its
 * line). */
static void put_lines(FILE *f, const char *s, size_t wrap) {
  int first = 1;
  while (*s || first) {
    size_t len = strcspn(s, "\n");
    if (wrap && len > wrap) {
      /* the last ", " that keeps the line within wrap, else the first one */
      size_t cut = 0;
      for (size_t i = 0; i + 1 < len; i++)
        if (s[i] == ',' && s[i + 1] == ' ' && (i + 1 <= wrap || !cut)) cut = i + 1;
      if (cut) len = cut;
    }
    if (!first) fputs(".\"\\n\".", f);
    put_quoted(f, s, len);
    first = 0;
    s += len;
    while (*s == ' ') s++;
    if (*s == '\n') s++;
  }
}

/* The axes' ranges. x over the data with a margin. A log y axis in whole
 * decades over everything drawn; a lower interval bound far below the
 * points (or 0) may not stretch it more than two decades below the lowest
 * point, its bar ends at the axis. A linear y axis over the values and
 * their intervals, with a margin. */
typedef struct ranges {
  double x0, x1, y0, y1;
} ranges;

static ranges ranges_of(const plot_data *d) {
  double x0 = INFINITY, x1 = -INFINITY, lo = INFINITY, hi = -INFINITY, low = INFINITY;
  for (size_t c = 0; c < d->n_curves; c++)
    for (size_t i = 0; i < d->curves[c].n; i++) {
      const plot_point *p = &d->curves[c].points[i];
      x0 = fmin(x0, p->x), x1 = fmax(x1, p->x);
      if (d->log_y) {
        lo = fmin(lo, p->zero ? p->high : p->y);
        hi = fmax(hi, p->high);
        if (!p->zero && p->low > 0) low = fmin(low, p->low);
        if (!isnan(p->theory)) lo = fmin(lo, p->theory), hi = fmax(hi, p->theory);
      } else {
        lo = fmin(lo, isnan(p->low) ? p->y : fmin(p->y, p->low));
        hi = fmax(hi, isnan(p->high) ? p->y : fmax(p->y, p->high));
      }
    }
  const double pad = x1 > x0 ? 0.04 * (x1 - x0) : 0.5;
  ranges r = {x0 - pad, x1 + pad, 0, 0};
  if (d->log_y) {
    if (isfinite(low)) lo = fmin(lo, fmax(low, lo / 100));
    r.y0 = pow(10, floor(log10(lo)));
    r.y1 = fmin(pow(10, ceil(log10(hi))), 1); /* a rate is at most 1 */
    if (!(r.y1 > r.y0)) r.y1 = r.y0 * 10;
  } else {
    const double span = hi > lo ? hi - lo : fmax(fabs(hi), 1);
    r.y0 = lo - 0.06 * span, r.y1 = hi + 0.06 * span;
  }
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

typedef struct counts {
  size_t measured, zero, theory;
} counts;

static counts counts_of(const plot_curve *c) {
  counts n = {0, 0, 0};
  for (size_t i = 0; i < c->n; i++) {
    n.measured += !c->points[i].zero;
    n.zero += c->points[i].zero;
    n.theory += !isnan(c->points[i].theory);
  }
  return n;
}

/* The blocks of curve c: its measured points ($cN), the upper bounds of its
 * points without error ($cN_zero), its theory ($cN_theory); a block only
 * where it has a row. The comment above them keeps the curve's raw keys. */
static void put_blocks(FILE *f, const plot_data *d, size_t k, double y0) {
  const plot_curve *c = &d->curves[k];
  const counts n = counts_of(c);
  fprintf(f, "\n# curve %zu: ", k + 1);
  put_comment_string(f, c->label);
  fprintf(f, ", colour %s, marker %d, dash %s, %zu point%s\n# keys: ", plot_colour(k), point_type(k),
          dash_type(k), c->n, c->n == 1 ? "" : "s");
  put_comment_string(f, *c->keys ? c->keys : "(none differ)");
  fputc('\n', f);
  if (n.measured) {
    const int bars = c->n && !isnan(c->points[0].high);
    fprintf(f, "$c%zu << EOD\n# x y%s\n", k + 1, bars ? " low high (the 95% interval)" : "");
    for (size_t i = 0; i < c->n; i++) {
      const plot_point *p = &c->points[i];
      if (p->zero) continue;
      if (bars) {
        const double low = isnan(p->low) ? p->y : p->low, high = isnan(p->high) ? p->y : p->high;
        fprintf(f, "%.10g %.10g %.10g %.10g\n", p->x, p->y, d->log_y ? fmax(low, y0) : low, high);
      } else {
        fprintf(f, "%.10g %.10g\n", p->x, p->y);
      }
    }
    fputs("EOD\n", f);
  }
  if (n.zero) {
    fprintf(f, "$c%zu_zero << EOD\n# x high (no error: the 95%% upper bound)\n", k + 1);
    for (size_t i = 0; i < c->n; i++)
      if (c->points[i].zero) fprintf(f, "%.10g %.10g\n", c->points[i].x, c->points[i].high);
    fputs("EOD\n", f);
  }
  if (n.theory) {
    fprintf(f, "$c%zu_theory << EOD\n# x theory_ber\n", k + 1);
    for (size_t i = 0; i < c->n; i++)
      if (!isnan(c->points[i].theory)) fprintf(f, "%.10g %.10g\n", c->points[i].x, c->points[i].theory);
    fputs("EOD\n", f);
  }
}

#define SEP ", \\\n     "

/* A label wider than the key's room is cut after its last whole ", "
 * part that fits, and ", ..." says so. Its first parts say what tells
 * curves apart (plot_curves puts the keys that differ within a file before
 * those that tell files apart); the comment above the data keeps it whole. */
static void put_label(FILE *f, const char *label, size_t len, size_t max) {
  if (len <= max) {
    put_string(f, label);
    return;
  }
  size_t cut = 0;
  for (size_t i = 0; i + 1 < len && i + 5 <= max; i++)
    if (label[i] == ',' && label[i + 1] == ' ') cut = i;
  if (!cut) cut = max - 5;
  put_quoted(f, label, cut);
  fputs(".', ...'", f);
}

/* The measured elements of curve k, its label on the first; theory comes
 * later, over all curves. */
static void put_elements(FILE *f, const plot_curve *c, size_t k, size_t label_max, int *first) {
  const counts n = counts_of(c);
  const size_t len = strlen(c->label);
  int titled = 0;
  if (n.measured) {
    const int bars = !isnan(c->points[0].high);
    fprintf(f, "%s$c%zu using %s with %s lw 2 dt %s pt %d ps 1.3 lc rgb '%s' title ", *first ? "" : SEP, k + 1,
            bars ? "1:2:3:4" : "1:2", bars ? "yerrorlines" : "linespoints", dash_type(k), point_type(k),
            plot_colour(k));
    titled = 1, *first = 0;
  } else if (n.zero) {
    /* only upper bounds: the label goes on its own entry, the curve's line and marker */
    fprintf(f, "%sNaN with linespoints lw 2 dt %s pt %d ps 1.3 lc rgb '%s' title ", *first ? "" : SEP,
            dash_type(k), point_type(k), plot_colour(k));
    titled = 1, *first = 0;
  }
  if (titled) {
    put_label(f, c->label, len, label_max);
    fputs(" noenhanced", f);
  }
  if (n.zero)
    fprintf(f, "%s$c%zu_zero using 1:2 with points pt %d ps 1.6 lc rgb '%s' notitle", SEP, k + 1, PT_UPPER_BOUND,
            plot_colour(k));
}

/* Does any curve pass through the box [u0, u1] x [v0, v1] of the plot, in
 * fractions of its width and height? The lines between points are sampled
 * too, and the error bars, the theory and the upper bounds count. */
static int box_hit(const plot_data *d, const ranges *r, double u0, double u1, double v0, double v1) {
  const double ly0 = d->log_y ? log10(r->y0) : r->y0, ly1 = d->log_y ? log10(r->y1) : r->y1;
#define U(x) (((x) - r->x0) / (r->x1 - r->x0))
#define V(y) (((d->log_y ? log10(fmax(y, 1e-300)) : (y)) - ly0) / (ly1 - ly0))
#define IN(u, v) ((u) >= u0 && (u) <= u1 && (v) >= v0 && (v) <= v1)
  for (size_t c = 0; c < d->n_curves; c++) {
    const plot_curve *cv = &d->curves[c];
    for (size_t i = 0; i < cv->n; i++) {
      const plot_point *p = &cv->points[i];
      const double u = U(p->x), y = p->zero ? p->high : p->y;
      if (IN(u, V(y)) || (!isnan(p->high) && IN(u, V(p->high))) ||
          (!isnan(p->low) && p->low > 0 && IN(u, V(p->low))) || (!isnan(p->theory) && IN(u, V(p->theory))))
        return 1;
      if (i + 1 < cv->n)
        for (int k = 1; k < 16; k++) {
          const plot_point *q = &cv->points[i + 1];
          const double t = k / 16.0, yq = q->zero ? q->high : q->y;
          const double uu = (1 - t) * u + t * U(q->x), vv = (1 - t) * V(y) + t * V(yq);
          if (IN(uu, vv)) return 1;
        }
    }
  }
#undef U
#undef V
#undef IN
  return 0;
}

/* Where the key goes: inside, in a corner no curve passes through (BER
 * curves fall to the right, so bottom left first; rates that grow, the GMI,
 * top left first), when its entries are few and short enough to fit there;
 * else outside on the right, where it hides nothing; labels too long for
 * that, below the plot in a smaller font, cut to the picture's width.
 * Widths in characters, at about 7.5 pixels a character at 11 pt and 6.5 at
 * 9 pt. */
typedef struct key_place {
  const char *line;  /* the set key command */
  size_t label_max;  /* the longest label drawn on one line */
  size_t side_chars; /* what the key takes from the plot's width */
} key_place;

static key_place key_place_of(const plot_data *d, const plot_style *s, const ranges *r, size_t entries,
                              char *line, size_t n) {
  size_t longest = 0;
  for (size_t k = 0; k < d->n_curves; k++)
    if (strlen(d->curves[k].label) > longest) longest = strlen(d->curves[k].label);
  const size_t inside_max = (size_t)s->width / 22, right_max = (size_t)s->width / 20;
  const size_t rows = (size_t)(s->height - 120) / 20;
  if (entries <= 6 && longest <= inside_max) {
    /* the key's box in fractions of the plot (about 100 pixels of margins
     * across, 110 down), with a little room around it */
    const double w = ((double)longest * 7.5 + 75) / (s->width - 100);
    const double h = ((double)entries * 19 + 20) / (s->height - 110);
    static const char *const corners[][2] = {
        {"bottom", "left"}, {"top", "left"}, {"bottom", "right"}, {"top", "right"}};
    static const int log_order[] = {0, 3, 2, 1}, linear_order[] = {1, 2, 0, 3};
    for (int i = 0; i < 4; i++) {
      const int c = d->log_y ? log_order[i] : linear_order[i];
      const int bottom = c == 0 || c == 2, left = c < 2;
      if (box_hit(d, r, left ? 0 : 1 - w, left ? w : 1, bottom ? 0 : 1 - h, bottom ? h : 1)) continue;
      snprintf(line, n, "set key %s %s reverse Left box opaque samplen 3 spacing 1.1\n", corners[c][0],
               corners[c][1]);
      return (key_place){line, inside_max, 0};
    }
  }
  if (longest <= right_max && entries <= rows) {
    snprintf(line, n, "set key outside right top vertical reverse Left samplen 3 spacing 1.1\n");
    return (key_place){line, right_max, (longest > 20 ? longest : 20) + 8};
  }
  snprintf(line, n, "set key below left reverse Left samplen 3 font ',%d' height 1.5\n",
           s->format == PLOT_PDF ? 7 : 9);
  return (key_place){line, (size_t)(s->width - 170) * 2 / 13, 0};
}

int plot_script_write(FILE *f, const plot_data *d, const plot_style *s, const char *source_line) {
  const ranges r = ranges_of(d);
  /* the x label may be an --x key: a column's name from the CSV */
  fputs("# ", f);
  put_comment_text(f, d->ylabel);
  fputs(" against ", f);
  put_comment_text(f, d->xlabel);
  fputs(", drawn by ", f);
  put_comment_string(f, source_line);
  fputs(".\n# Self-contained: the data are inline below. Restyle it and draw again with\n#   gnuplot ", f);
  put_comment_string(f, s->script);
  fputs("                        (in this folder) writes ", f);
  put_comment_string(f, s->output);
  fputs("\n#   gnuplot -e \"out='elsewhere'\" ", f);
  put_comment_string(f, s->script);
  fputs("   writes there, in the same format\n", f);
  fputs("# Each curve has its own colour, marker and dash; its raw keys are in the\n"
        "# comment above its data.",
        f);
  fputs(" Error bars: the 95% interval.", f);
  fputs(d->log_y ? " Thin lighter lines: the\n"
                   "# closed-form theory (theory_ber), in its curve's colour, drawn on top. A\n"
                   "# down-pointing triangle: a point without an error, drawn at its 95% upper bound.\n"
                 : "\n",
        f);
  fputs("\nif (!exists('out')) out = ", f);
  put_string(f, s->output);
  fputc('\n', f);
  put_terminal(f, s);
  fputs("set output out\n", f);
  int has_zero = 0, has_theory = 0;
  for (size_t k = 0; k < d->n_curves; k++) {
    const counts n = counts_of(&d->curves[k]);
    has_zero |= n.zero > 0, has_theory |= n.theory > 0;
  }
  char key_line[160];
  const key_place key =
      key_place_of(d, s, &r, d->n_curves + (size_t)has_zero + (size_t)has_theory, key_line, sizeof key_line);
  const char *title = s->title ? s->title : d->title;
  if (*title) {
    fputs("set title ", f);
    /* the data's title is wrapped to the plot's width (gnuplot centres it
     * there: a key on the right takes its share); the user's keeps the
     * user's line breaks */
    const size_t plot_chars = (size_t)(s->width - 100) * 2 / 15;
    put_lines(f, title, s->title ? 0 : plot_chars > key.side_chars + 30 ? plot_chars - key.side_chars : 30);
    fputs(" noenhanced\n", f);
  } else {
    fputs("unset title\n", f);
  }
  fputs("set xlabel ", f);
  put_string(f, d->xlabel);
  fputs(" noenhanced\nset ylabel ", f);
  put_string(f, d->ylabel);
  fputs(" noenhanced\n", f);
  fputs(d->log_y ? "set logscale y\n"
                   "set format y '10^{%L}'\n"
                   "set mytics 10\n"
                 : "set format y '%g'\n",
        f);
  fprintf(f,
          "set xrange [%.10g:%.10g]\n"
          "set yrange [%.10g:%.10g]\n"
          "set grid xtics ytics lc rgb '#d0d0d0'\n"
          "set bars small\n",
          r.x0, r.x1, r.y0, r.y1);
  /* 2, 3, 4 antennas, not 2.5: a tic on every whole number where few */
  if (d->x_counts && r.x1 - r.x0 <= 17) fputs("set xtics 1\n", f);

  fputs(key.line, f);
  for (size_t k = 0; k < d->n_curves; k++) put_blocks(f, d, k, r.y0);

  fputs("\nplot ", f);
  int first = 1;
  for (size_t k = 0; k < d->n_curves; k++) put_elements(f, &d->curves[k], k, key.label_max, &first);
  /* the theory last, so it lies on top of the measured curves */
  for (size_t k = 0; k < d->n_curves; k++) {
    if (!counts_of(&d->curves[k]).theory) continue;
    char light[8];
    light_colour(k, light);
    fprintf(f, "%s$c%zu_theory using 1:2 with lines dt 1 lw 1 lc rgb '%s' notitle", SEP, k + 1, light);
  }
  /* what the markers mean, once, in the key: NaN draws nothing but its entry */
  if (has_theory) fputs(SEP "NaN with lines dt 1 lw 1 lc rgb '#909090' title 'closed-form theory'", f);
  if (has_zero)
    fprintf(f, SEP "NaN with points pt %d ps 1.6 lc rgb 'gray40' title 'no error: 95%% upper bound'",
            PT_UPPER_BOUND);
  fputs("\n", f);
  return ferror(f) ? -1 : 0;
}
