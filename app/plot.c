/* `ofdmsim plot`: the command line, then read -> group -> script -> gnuplot.
 * Everything that can be wrong with the input is found before a file is
 * written (an output that is an input included); the picture is drawn into a
 * temporary file beside it and renamed over the old one only once gnuplot
 * has succeeded. SIGINT/SIGTERM end gnuplot and remove that file (exit 130 /
 * 143). */
#include "app/plot.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/opts.h"
#include "app/plot_internal.h"
#include "results/atomic_file.h"

#define PROG "ofdmsim plot"

enum { OPT_TITLE = OPT_LONG_ONLY, OPT_SIZE, OPT_X, OPT_Y };

static const opt_spec plot_options[] = {
    {"output", 'o', required_argument, "ber.png"},
    {"title", OPT_TITLE, required_argument, "TEXT"},
    {"size", OPT_SIZE, required_argument, "WxH"},
    {"x", OPT_X, required_argument, "KEY"},
    {"y", OPT_Y, required_argument, "ber|bler|gmi|throughput|residual_bler|harq_throughput"},
    OPT_HELP_AND_END,
};

static void print_help(void) {
  printf("usage: ofdmsim plot RESULTS.csv [MORE.csv ...] -o ber.png|ber.svg|ber.pdf [options]\n"
         "\n"
         "Draws BER (or --y) against SNR (or --x) from result CSVs (ofdmsim -o) with\n"
         "gnuplot: one curve per combination of the config keys that differ between the\n"
         "rows, each with its own colour, marker and dash, named in words (\"2x2 ZF\", the\n"
         "file name too when several files hold the same point; the raw keys are in the\n"
         "script's comments); error bars from the 95%% interval; the closed-form theory\n"
         "as a thin lighter line in its curve's colour, on top; and for a point without\n"
         "an error its 95%% upper bound as a down-pointing triangle. Skipped points\n"
         "(bits = 0) are left out. Values gnuplot cannot draw are refused.\n"
         "\n"
         "  -o, --output FILE  the picture; its extension picks the format: .png, .svg or\n"
         "                     .pdf. An existing picture is replaced: it is derived data,\n"
         "                     drawn again from the CSVs at will. Beside it goes the\n"
         "                     gnuplot script that draws it (ber.png -> ber.gp), with the\n"
         "                     data inline: restyle it and run `gnuplot ber.gp` again.\n"
         "                     Neither may be an input; no control characters in FILE.\n"
         "  --title TEXT       the title (default: what all curves share, wrapped; '' for\n"
         "                     none; a line break in TEXT starts a new line)\n"
         "  --size WxH         the picture's size in pixels (default 900x600; a PDF is\n"
         "                     W/150 x H/150 inches, 6x4 in by default)\n"
         "  --y WHAT           what is drawn: ber (default), bler, gmi (the achievable\n"
         "                     rate, with receiver.llr on: the supremum over the LLR\n"
         "                     scaling), throughput, or HARQ's residual_bler and\n"
         "                     harq_throughput; the CSV needs the column of that name\n"
         "  --x KEY            the x axis: snr_db (default) or any numeric config key that\n"
         "                     differs between the rows (channel.doppler_hz, mimo.rx, ...);\n"
         "                     the SNR then tells curves apart\n"
         "  -h, --help         this text\n"
         "\n"
         "Environment: GNUPLOT, the gnuplot to run (default: gnuplot on PATH; the Debian\n"
         "package gnuplot-nox, which scripts/setup.sh installs).\n"
         "Exit status: 0 drawn; 1 gnuplot missing or failing (the script is written);\n"
         "2 usage error, a bad CSV or an output that is an input (nothing is written);\n"
         "130 / 143 stopped by SIGINT / SIGTERM (gnuplot ended, no temporary file left).\n");
}

typedef struct plot_args {
  char **csvs;
  size_t n_csvs;
  const char *output;
  const char *title;
  plot_request request;
  int width, height;
  plot_format format;
  int help;
} plot_args;

static int parse_size(const char *v, int *w, int *h) {
  char *end;
  errno = 0;
  const long x = strtol(v, &end, 10);
  if (end == v || (*end != 'x' && *end != 'X')) return -1;
  const char *rest = end + 1;
  const long y = strtol(rest, &end, 10);
  if (errno || end == rest || *end || x < 100 || y < 100 || x > 10000 || y > 10000) return -1;
  *w = (int)x, *h = (int)y;
  return 0;
}

/* s for a message, control characters as \n, \t or \xNN (a terminal would
 * act on them). */
static void show_escaped(const char *s, char *out, size_t n) {
  size_t k = 0;
  for (; *s && k + 5 < n; s++) {
    const unsigned char c = (unsigned char)*s;
    if (c == '\n') k += (size_t)snprintf(out + k, n - k, "\\n");
    else if (c == '\t') k += (size_t)snprintf(out + k, n - k, "\\t");
    else if (c < 0x20 || c == 0x7f) k += (size_t)snprintf(out + k, n - k, "\\x%02x", c);
    else out[k++] = (char)c;
  }
  out[k] = '\0';
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* The format of a picture's name, or -1. */
static int format_of(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(slash ? slash + 1 : path, '.');
  if (!dot) return -1;
  if (!strcasecmp(dot, ".png")) return PLOT_PNG;
  if (!strcasecmp(dot, ".svg")) return PLOT_SVG;
  if (!strcasecmp(dot, ".pdf")) return PLOT_PDF;
  return -1;
}

static void on_plot_option(opt_parser *p, int key, const char *v, void *ctx) {
  plot_args *a = ctx;
  switch (key) {
  case OPT_ARG: a->csvs[a->n_csvs++] = (char *)v; break;
  case 'o': opt_set_once(p, &a->output, v); break;
  case OPT_TITLE: a->title = v; break;
  case OPT_X: a->request.x = v; break;
  case OPT_Y: {
    size_t i = 0;
    while (plot_y_names[i] && strcmp(plot_y_names[i], v)) i++;
    if (plot_y_names[i]) a->request.y = v;
    else opt_fail(p, "%s %s: expected one of ber, bler, gmi, throughput, residual_bler, harq_throughput", opt_name(p), v);
    break;
  }
  case OPT_SIZE:
    if (parse_size(v, &a->width, &a->height))
      opt_fail(p, "%s %s: expected WIDTHxHEIGHT in pixels, each 100..10000, e.g. 900x600", opt_name(p), v);
    break;
  case 'h': a->help = 1; break;
  }
}

/* The command line into a; 0, or 2 with the usage error in err. */
static int plot_parse(int argc, char **argv, plot_args *a, char *err, size_t errlen) {
  if (!(a->csvs = calloc((size_t)argc + 1, sizeof *a->csvs))) {
    snprintf(err, errlen, "out of memory");
    return 2;
  }
  a->width = 900, a->height = 600;
  int rc = opt_parse(plot_options, argc, argv, on_plot_option, a, err, errlen);
  if (rc || a->help) return rc;
  if (!a->n_csvs) {
    snprintf(err, errlen, "expected a results CSV to plot, got none (ofdmsim plot results.csv -o ber.png)");
    return 2;
  }
  if (!a->output) {
    snprintf(err, errlen, "expected the picture to write (-o ber.png, .svg or .pdf), got no -o");
    return 2;
  }
  const int format = format_of(a->output);
  if (format < 0) {
    const char *dot = strrchr(base_name(a->output), '.');
    snprintf(err, errlen, "-o %s: expected a picture ending in .png, .svg or .pdf, got '%s'", a->output,
             dot ? dot : "no extension");
    return 2;
  }
  a->format = (plot_format)format;
  /* The name goes into the script (its comments, the default `out`); a line
   * break there would end a comment and run what follows. Quotes, backquotes
   * and the rest are quoted in the script and are fine in a file name. */
  for (const char *c = a->output; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) {
      char shown[600];
      show_escaped(a->output, shown, sizeof shown);
      snprintf(err, errlen, "-o '%s': expected a file name without control characters (a line break, a tab, ...)",
               shown);
      return 2;
    }
  return 0;
}

/* 2 with the message when an output (the picture, its script) is one of the
 * inputs, whatever the spelling: a link, a hard link, ./a/../b. Compared by
 * device and inode, after following links: an output that does not exist
 * yet is no input. */
static int outputs_are_not_inputs(const plot_args *a, const char *script, char *err, size_t errlen) {
  const char *const outputs[] = {a->output, script};
  const char *const what[] = {"the picture", "its script"};
  for (size_t o = 0; o < 2; o++) {
    struct stat so;
    if (stat(outputs[o], &so)) continue;
    for (size_t i = 0; i < a->n_csvs; i++) {
      struct stat si;
      if (stat(a->csvs[i], &si) || si.st_dev != so.st_dev || si.st_ino != so.st_ino) continue;
      snprintf(err, errlen,
               "-o %s: %s %s is the input %s; expected outputs other than the inputs (plot would replace it)",
               a->output, what[o], outputs[o], a->csvs[i]);
      return 2;
    }
  }
  return 0;
}

/* "ber.gp" beside "ber.png": the picture's name with .gp for its extension. */
static char *script_path_of(const char *picture) {
  const size_t stem = (size_t)(strrchr(picture, '.') - picture);
  char *s = malloc(stem + 4);
  if (s) memcpy(s, picture, stem), strcpy(s + stem, ".gp");
  return s;
}

/* "ofdmsim plot a.csv b.csv -o ber.png --size 800x500", for the script's head. */
static char *command_line(int argc, char **argv) {
  size_t len = strlen(PROG) + 1;
  for (int i = 1; i < argc; i++) len += strlen(argv[i]) + 3;
  char *s = malloc(len), *p = s;
  if (!s) return NULL;
  p += sprintf(p, "%s", PROG);
  for (int i = 1; i < argc; i++) {
    static const char plain_chars[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=+,:";
    const int plain = argv[i][0] && strspn(argv[i], plain_chars) == strlen(argv[i]);
    p += sprintf(p, plain ? " %s" : " '%s'", argv[i]);
  }
  /* a line break would end the comment, a backquote its `...`; plot_script
   * makes the rest of a comment harmless */
  for (char *q = s; *q; q++)
    if ((unsigned char)*q < 0x20 || *q == 0x7f || *q == '`') *q = ' ';
  return s;
}

/* mkstemp's files are private (0600); a script or a picture is as readable
 * as any file the user creates. */
static void make_readable(const char *path) {
  const mode_t mask = umask(0);
  umask(mask);
  chmod(path, 0666 & ~mask);
}

/* The script, written whole or not at all; 0, or 1 with the message. */
static int write_script(const char *path, const plot_data *d, const plot_style *st, const char *line,
                        char *err, size_t errlen) {
  results_file w;
  int rc = results_file_open(&w, path) != 0;
  if (!rc && (plot_script_write(w.f, d, st, line) || ferror(w.f) || plot_stopped())) {
    const int stopped = plot_stopped();
    results_file_abort(&w);
    if (stopped) return 1; /* plot_main says so */
    rc = 1;
  } else if (!rc) {
    rc = results_file_commit(&w) != 0;
  }
  if (rc) snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
  return rc;
}

/* gnuplot draws into a temporary file beside the picture, which replaces the
 * picture only when gnuplot succeeded and wrote something; 0, or 1 with the
 * message. */
static int draw(const char *gnuplot, const char *script, const char *picture, char *err, size_t errlen) {
  char *tmp = malloc(strlen(picture) + 16);
  if (!tmp) return snprintf(err, errlen, "out of memory"), 1;
  sprintf(tmp, "%s.tmp.XXXXXX", picture);
  const int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(err, errlen, "cannot write %s: %s", picture, strerror(errno));
    free(tmp);
    return 1;
  }
  close(fd);
  int rc = plot_gnuplot_run(gnuplot, script, tmp, err, errlen);
  struct stat st;
  if (!rc && plot_stopped()) rc = 1; /* came after gnuplot ended: the old picture stays */
  if (!rc && (stat(tmp, &st) || st.st_size == 0)) {
    snprintf(err, errlen, "%.1000s ran without error on %.1000s but drew nothing (an empty picture)", gnuplot,
             script);
    rc = 1;
  }
  if (!rc) {
    make_readable(tmp);
    if (rename(tmp, picture)) {
      snprintf(err, errlen, "cannot write %s: %s", picture, strerror(errno));
      rc = 1;
    }
  }
  if (rc) unlink(tmp);
  free(tmp);
  return rc;
}

/* The exit of a run stopped by SIGINT/SIGTERM, with its message. */
static int stopped(const char *script, int script_written) {
  const int sig = plot_stopped();
  if (script_written)
    fprintf(stderr, PROG ": stopped by %s: gnuplot ended, no picture drawn; the script is in %s\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM", script);
  else fprintf(stderr, PROG ": stopped by %s: nothing written\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  return 128 + sig;
}

int plot_main(int argc, char **argv) {
  plot_catch_signals();
  char err[4096] = "";
  plot_args a = {0};
  int rc = plot_parse(argc, argv, &a, err, sizeof err);
  if (a.help) {
    print_help();
    free(a.csvs);
    return 0;
  }
  if (rc) {
    opt_print_error(PROG, err);
    free(a.csvs);
    return rc;
  }
  char *script = script_path_of(a.output);
  if (!script) {
    fprintf(stderr, PROG ": error: out of memory\n");
    free(a.csvs);
    return 1;
  }
  plot_data d;
  if ((rc = outputs_are_not_inputs(&a, script, err, sizeof err)) ||
      (rc = plot_data_load(&d, &a.request, a.csvs, a.n_csvs, err, sizeof err))) {
    fprintf(stderr, PROG ": error: %s\n", err);
    free(script);
    free(a.csvs);
    return rc;
  }
  char *line = command_line(argc, argv);
  const plot_style st = {a.format, a.width, a.height, a.title, base_name(a.output), base_name(script)};
  char gnuplot[4096];
  if (plot_stopped()) {
    rc = stopped(script, 0);
  } else if (!line) {
    fprintf(stderr, PROG ": error: out of memory\n");
    rc = 1;
  } else if (write_script(script, &d, &st, line, err, sizeof err)) {
    if (plot_stopped()) rc = stopped(script, 0);
    else fprintf(stderr, PROG ": error: %s\n", err), rc = 1;
  } else if (plot_gnuplot_find(gnuplot, sizeof gnuplot)) {
    const char *asked = getenv("GNUPLOT");
    const int named = asked && *asked;
    fprintf(stderr,
            PROG ": error: gnuplot not found (%s%s%sinstall the Debian package gnuplot-nox; scripts/setup.sh "
                 "does); the script is in %s\n",
            named ? "GNUPLOT=" : "", named ? asked : "", named ? " is no executable; " : "", script);
    rc = 1;
  } else if (draw(gnuplot, script, a.output, err, sizeof err)) {
    if (plot_stopped()) rc = stopped(script, 1);
    else fprintf(stderr, PROG ": error: %s\n", err), rc = 1;
  } else {
    printf("wrote %s (%zu curve%s, %zu point%s) and %s\n", a.output, d.n_curves, d.n_curves == 1 ? "" : "s",
           d.n_points, d.n_points == 1 ? "" : "s", script);
  }
  free(script);
  free(line);
  plot_data_free(&d);
  free(a.csvs);
  return rc;
}
