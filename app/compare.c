/* `ofdmsim compare`: the command line, then read -> pair and test
 * (results/results_compare.h) -> the table and the verdict. */
#include "app/compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/opts.h"
#include "results/results.h"
#include "results/results_compare.h"
#include "results/results_curves.h"

#define PROG "ofdmsim compare"

enum { OPT_ALPHA = OPT_LONG_ONLY, OPT_TOLERANCE, OPT_REQUIRE_ALL, OPT_REQUIRE_SAME_DRAWS, OPT_BY, OPT_TARGET };

/* The most --by keys and files with --by. */
#define MAX_BY 8
#define MAX_FILES 64

static const opt_spec compare_options_spec[] = {
    {"alpha", OPT_ALPHA, required_argument, "0.01"},
    {"same-draws-tolerance", OPT_TOLERANCE, required_argument, "REL,ABS"},
    {"require-all", OPT_REQUIRE_ALL, no_argument, NULL},
    {"require-same-draws", OPT_REQUIRE_SAME_DRAWS, no_argument, NULL},
    {"by", OPT_BY, required_argument, "KEY"},
    {"target-ber", OPT_TARGET, required_argument, "1e-3"},
    OPT_HELP_AND_END,
};

static void print_help(void) {
  printf("usage: ofdmsim compare A.csv B.csv [options]\n"
         "       ofdmsim compare FILE.csv [MORE.csv ...] --by KEY [--by KEY ...] [--target-ber P]\n"
         "\n"
         "Do two result files (ofdmsim -o) agree? Rows are paired by point_key, the point's\n"
         "identity (link, receiver, SNR and seed; not the stopping rules, the frame range\n"
         "or the backend). Rows of different seeds share no key: rows left unpaired are\n"
         "paired by their config columns without the seed (marked * in the key column).\n"
         "Each pair is tested:\n"
         "\n"
         "  z-test      z = (ber_B - ber_A) / sqrt(v_A + v_B), two-sided p-value, where each\n"
         "              variance comes from the per-frame error counts (batch means over\n"
         "              frames: frame_errors_sq), never below the one the printed 95%%\n"
         "              interval implies ((ci95_high - ci95_low) / 3.92)^2, which covers few\n"
         "              frames and zero errors. A pair differs when p < alpha / M: a\n"
         "              Bonferroni correction over the M compared pairs, so that alpha is\n"
         "              the chance that agreeing files show any difference at all.\n"
         "  same draws  rows with the same point_key and frame range (simulation.first_frame,\n"
         "              frames) are the very same random draws (e.g. the CPU and the GPU\n"
         "              backend): perfectly correlated, so the z-test says nothing. They must\n"
         "              also have equal bits and |e_B - e_A| <= REL * max(e_A, e_B) + ABS.\n"
         "\n"
         "  --alpha A     family-wise level, 0 < A < 1 (default 0.01), Bonferroni-corrected\n"
         "  --same-draws-tolerance REL,ABS\n"
         "                the same-draws rule's tolerance on bit errors (default 0.001,2)\n"
         "  --require-all a point found in one file only makes the exit status 1\n"
         "                (otherwise it is listed and ignored)\n"
         "  --require-same-draws\n"
         "                every pair must be the same draws (same key and frame range);\n"
         "                one that is not differs (for backend-against-backend checks)\n"
         "  --by KEY      compare curves instead of files: rows that differ only in the\n"
         "                config key KEY (equalizer, mimo.tx, ...; repeat for several) and the\n"
         "                SNR are curves of one family; each curve is set against its family's\n"
         "                first (in file and row order) as the SNR gap in dB at the target BER\n"
         "                (log10 BER interpolated linearly between the points around it, with\n"
         "                an interval from the points' 95%% intervals) and as the BER ratio at\n"
         "                each SNR both have (95%% interval from the per-frame variances)\n"
         "  --target-ber P  the BER at which --by measures the gap, 0 < P < 1 (default 1e-3)\n"
         "  -h, --help    this text\n"
         "\n"
         "The table: point key, the point (its label and the columns that vary between\n"
         "rows), both BERs with their 95%% intervals, z (for the same draws: the difference\n"
         "of the error counts), p, the rule that decided and the verdict. Skipped points\n"
         "(bits = 0) are listed as skipped, not compared.\n"
         "Exit status: 0 every compared point agrees; 1 one differs (or, with\n"
         "--require-all, a point is in one file only); 2 usage error or bad input (a file\n"
         "unreadable or malformed, no point_key column, no point common to both files).\n");
}

typedef struct compare_args {
  const char *files[MAX_FILES];
  size_t n_files;
  compare_options o;
  int require_all, help;
  const char *by[MAX_BY];
  size_t n_by;
  double target;
  int target_given;
} compare_args;

static int parse_tolerance(const char *v, double *rel, double *abs_) {
  char *end = NULL;
  errno = 0;
  *rel = strtod(v, &end);
  if (end == v || *end != ',' || errno || !(*rel >= 0) || !isfinite(*rel)) return -1;
  const char *b = end + 1;
  *abs_ = strtod(b, &end);
  if (end == b || *end || errno || !(*abs_ >= 0) || !isfinite(*abs_)) return -1;
  return 0;
}

static void on_option(opt_parser *p, int key, const char *v, void *ctx) {
  compare_args *a = ctx;
  char *end = NULL;
  switch (key) {
  case OPT_ARG:
    /* two files, or (with --by, which may come later) up to MAX_FILES */
    if (a->n_files == MAX_FILES) opt_fail(p, "expected at most %d CSV files, got more: '%s'", MAX_FILES, v);
    else a->files[a->n_files++] = v;
    break;
  case OPT_BY:
    if (!*v) opt_fail_value(p);
    else if (a->n_by == MAX_BY) opt_fail(p, "%s %s: expected at most %d keys", opt_name(p), v, MAX_BY);
    else a->by[a->n_by++] = v;
    break;
  case OPT_TARGET:
    errno = 0;
    a->target = strtod(v, &end);
    a->target_given = 1;
    if (end == v || *end || errno || !(a->target > 0 && a->target < 1))
      opt_fail(p, "%s %s: expected a BER 0 < P < 1, e.g. 1e-3", opt_name(p), v);
    break;
  case OPT_ALPHA:
    errno = 0;
    a->o.alpha = strtod(v, &end);
    if (end == v || *end || errno || !(a->o.alpha > 0 && a->o.alpha < 1))
      opt_fail(p, "%s %s: expected a level 0 < A < 1, e.g. 0.01", opt_name(p), v);
    break;
  case OPT_TOLERANCE:
    if (parse_tolerance(v, &a->o.same_rel, &a->o.same_abs))
      opt_fail(p, "%s %s: expected REL,ABS with two numbers >= 0, e.g. 0.001,2", opt_name(p), v);
    break;
  case OPT_REQUIRE_ALL: a->require_all = 1; break;
  case OPT_REQUIRE_SAME_DRAWS: a->o.require_same_draws = 1; break;
  case 'h': a->help = 1; break;
  }
}

/* ---- the table -------------------------------------------------------------- */

/* The columns that say which point a row is, shown where they vary. */
static const char *const describe_columns[] = {"tx", "rx", "modulation", "equalizer", "channel",
                                               "domain", "snr_kind", "snr_db", NULL};

/* Does column name take more than one value over the rows of both tables? */
static int varies(const result_table *t[2], const char *name) {
  const char *first = NULL;
  for (int i = 0; i < 2; i++) {
    const int c = result_table_column(t[i], name);
    if (c < 0) continue;
    for (size_t r = 0; r < t[i]->n_rows; r++) {
      const char *v = result_table_cell(t[i], r, c);
      if (!first) first = v;
      else if (strcmp(first, v)) return 1;
    }
  }
  return 0;
}

/* "equalizer=zf snr_db=4": the row's label, then each varying column the
 * label does not already name. */
static void describe(const result_table *t, size_t row, const int *vary, char *out, size_t n) {
  const char *label = result_table_cell(t, row, result_table_column(t, "label"));
  size_t used = (size_t)snprintf(out, n, "%s", label);
  for (size_t k = 0; describe_columns[k] && used + 1 < n; k++) {
    if (!vary[k]) continue;
    char named[64];
    snprintf(named, sizeof named, "%s=", describe_columns[k]);
    if (strstr(label, named)) continue;
    used += (size_t)snprintf(out + used, n - used, "%s%s%s", used ? " " : "", named,
                             result_table_cell(t, row, result_table_column(t, describe_columns[k])));
  }
  if (!out[0]) snprintf(out, n, "-");
  results_clean_text(out); /* the label and cells come from the file */
}

static void ber_text(const compare_side *s, int present, char *out, size_t n) {
  if (!present) snprintf(out, n, "-");
  else if (!s->bits) snprintf(out, n, "(bits = 0)");
  else snprintf(out, n, "%.4e [%.3e, %.3e]", s->ber, s->lo, s->hi);
}

static const char *verdict_text(const compare_pair *p) {
  switch (p->verdict) {
  case CMP_AGREE: return "agree";
  case CMP_DIFFER: return "DIFFER";
  case CMP_SKIPPED: return "skipped";
  case CMP_ONLY_A: return "only in A";
  case CMP_ONLY_B: return "only in B";
  }
  return "?";
}

static void print_table(const result_table *t[2], const compare_result *res) {
  int vary[16] = {0};
  for (size_t k = 0; describe_columns[k]; k++) vary[k] = varies(t, describe_columns[k]);
  char (*desc)[256] = calloc(res->n_pairs + 1, sizeof *desc);
  if (!desc) return;
  int wd = 5;
  for (size_t i = 0; i < res->n_pairs; i++) {
    const compare_pair *p = &res->pairs[i];
    if (p->has_a) describe(t[0], p->a.row, vary, desc[i], sizeof desc[i]);
    else describe(t[1], p->b.row, vary, desc[i], sizeof desc[i]);
    const int len = (int)strlen(desc[i]);
    if (len > wd) wd = len;
  }
  if (wd > 60) wd = 60;
  printf("%-19s %-*s %-34s %-34s %9s %9s  %-10s %s\n", "point_key", wd, "point", "A: ber [95% interval]",
         "B: ber [95% interval]", "z / diff", "p", "rule", "verdict");
  for (size_t i = 0; i < res->n_pairs; i++) {
    const compare_pair *p = &res->pairs[i];
    char key[32], ba[64], bb[64], zd[32] = "-", pv[32] = "-";
    snprintf(key, sizeof key, "%s%s", p->key, p->match == MATCH_CONFIG ? "*" : "");
    ber_text(&p->a, p->has_a, ba, sizeof ba);
    ber_text(&p->b, p->has_b, bb, sizeof bb);
    if (p->rule) {
      if (p->same_draws) snprintf(zd, sizeof zd, "%+lld err", p->diff);
      else snprintf(zd, sizeof zd, "%+.2f", p->z);
      snprintf(pv, sizeof pv, "%.3g", p->p);
    }
    printf("%-19s %-*.*s %-34s %-34s %9s %9s  %-10s %s\n", key, wd, wd, desc[i], ba, bb, zd, pv,
           p->rule ? p->rule : "-", verdict_text(p));
  }
  free(desc);
}

/* ---- --by: curves ------------------------------------------------------------ */

/* A number to 3 decimals, or "-" for NAN. */
static void num3(double v, char *out, size_t n) {
  if (isnan(v)) snprintf(out, n, "-");
  else snprintf(out, n, "%.3f", v);
}

/* A cell of a file for the terminal: control bytes as '?'. */
static void clean(const char *s, char *out, size_t n) {
  snprintf(out, n, "%s", s);
  results_clean_text(out);
}

/* What tells a family apart from the others: its columns that take more
 * than one value over the families' reference curves ("" for one family). */
static void family_text(const curve_result *r, const curve *c, char *out, size_t n) {
  out[0] = '\0';
  if (r->n_families < 2) return;
  const char *f = c->family;
  size_t used = 0;
  /* the identity text is "k=v\x1fk=v...\x1evalue": show the k=v that differ */
  while (*f && *f != '\x1e' && used + 1 < n) {
    const size_t len = strcspn(f, "\x1f\x1e");
    int differs = 0;
    for (size_t i = 0; i < r->n_curves && !differs; i++) {
      const char *g = r->curves[i].family;
      /* the same k=v somewhere in the other family's text? */
      int found = 0;
      for (const char *q = g; *q && *q != '\x1e';) {
        const size_t l2 = strcspn(q, "\x1f\x1e");
        if (l2 == len && !memcmp(q, f, len)) found = 1;
        q += l2;
        if (*q == '\x1f') q++;
      }
      differs = !found;
    }
    if (differs) used += (size_t)snprintf(out + used, n - used, "%s%.*s", used ? " " : "", (int)len, f);
    f += len;
    if (*f == '\x1f') f++;
  }
  results_clean_text(out);
}

static int compare_curves_main(const compare_args *a) {
  char err[2048];
  result_table *in = calloc(a->n_files, sizeof *in);
  curve_result res = {0};
  int rc = 2;
  if (!in) return 1;
  for (size_t i = 0; i < a->n_files; i++)
    if (result_table_read(&in[i], a->files[i], err, sizeof err)) {
      opt_print_error(PROG, err);
      goto done;
    }
  if (results_curves(in, a->n_files, a->by, a->n_by, a->target_given ? a->target : 1e-3, &res, err, sizeof err)) {
    opt_print_error(PROG, err);
    goto done;
  }
  printf("%zu curve%s in %zu famil%s; each against its family's first curve (A)\n", res.n_curves,
         res.n_curves == 1 ? "" : "s", res.n_families, res.n_families == 1 ? "y" : "ies");
  printf("\nSNR gap at BER %g (dB; B - A, positive: B needs more SNR; 95%% interval):\n", res.target);
  printf("%-28s %-28s %10s %10s %8s %20s  %s\n", "A", "B", "snr A", "snr B", "gap", "[95% interval]", "family");
  for (size_t i = 0; i < res.n_pairs; i++) {
    const curve_pair *p = &res.pairs[i];
    char va[256], vb[256], sa[32], sb[32], g[32], lo[32], hi[32], fam[512];
    clean(res.curves[p->a].value, va, sizeof va);
    clean(res.curves[p->b].value, vb, sizeof vb);
    num3(p->xa.snr, sa, sizeof sa);
    num3(p->xb.snr, sb, sizeof sb);
    num3(p->gap, g, sizeof g);
    num3(p->gap_lo, lo, sizeof lo);
    num3(p->gap_hi, hi, sizeof hi);
    family_text(&res, &res.curves[p->b], fam, sizeof fam);
    char iv[80];
    snprintf(iv, sizeof iv, "[%s, %s]", lo, hi);
    printf("%-28s %-28s %10s %10s %8s %20s  %s\n", va, vb, sa, sb, g, iv, fam);
  }
  int missing = 0;
  for (size_t i = 0; i < res.n_pairs; i++) missing |= isnan(res.pairs[i].gap);
  if (missing)
    printf("(-: a curve does not cross BER %g within its SNRs; an open interval end: its 95%% bound does not)\n",
           res.target);
  printf("\nBER ratio B / A at each SNR both curves have (95%% interval; - without a bit error):\n");
  printf("%-28s %-28s %9s %11s %11s %10s %24s\n", "A", "B", "snr_db", "ber A", "ber B", "B / A", "[95% interval]");
  for (size_t i = 0; i < res.n_pairs; i++) {
    const curve_pair *p = &res.pairs[i];
    char va[256], vb[256];
    clean(res.curves[p->a].value, va, sizeof va);
    clean(res.curves[p->b].value, vb, sizeof vb);
    for (size_t k = 0; k < p->n_ratios; k++) {
      const curve_ratio *r = &p->ratios[k];
      char ratio[32] = "-", iv[64] = "-";
      if (!isnan(r->ratio)) snprintf(ratio, sizeof ratio, "%.4g", r->ratio);
      if (!isnan(r->lo)) snprintf(iv, sizeof iv, "[%.4g, %.4g]", r->lo, r->hi);
      printf("%-28s %-28s %9g %11.4e %11.4e %10s %24s\n", va, vb, r->snr, r->ber_a, r->ber_b, ratio, iv);
    }
    if (!p->n_ratios) printf("%-28s %-28s (no SNR in common)\n", va, vb);
  }
  rc = 0;
done:
  curve_result_free(&res);
  for (size_t i = 0; i < a->n_files; i++) result_table_free(&in[i]);
  free(in);
  return rc;
}

int compare_main(int argc, char **argv) {
  compare_args a = {.o = {.alpha = 0.01, .same_rel = 0.001, .same_abs = 2.0}};
  char err[2048];
  const int prc = opt_parse(compare_options_spec, argc, argv, on_option, &a, err, sizeof err);
  if (a.help) {
    print_help();
    return 0;
  }
  if (!prc && a.n_by) {
    if (a.n_files >= 1) return compare_curves_main(&a);
    opt_print_error(PROG, "expected CSV files to compare (ofdmsim compare FILE.csv ... --by KEY), got none");
    return 2;
  }
  if (!prc && a.target_given) {
    opt_print_error(PROG, "--target-ber: expected --by KEY with it (the gap is between curves), got no --by");
    return 2;
  }
  if (!prc && a.n_files != 2)
    snprintf(err, sizeof err, "expected two CSV files (ofdmsim compare A.csv B.csv), got %zu", a.n_files);
  if (prc || a.n_files != 2) {
    opt_print_error(PROG, err);
    return 2;
  }
  result_table ta, tb;
  if (result_table_read(&ta, a.files[0], err, sizeof err)) {
    opt_print_error(PROG, err);
    return 2;
  }
  if (result_table_read(&tb, a.files[1], err, sizeof err)) {
    opt_print_error(PROG, err);
    result_table_free(&ta);
    return 2;
  }
  compare_result res;
  int rc = 2;
  if (results_compare(&ta, &tb, &a.o, &res, err, sizeof err)) {
    opt_print_error(PROG, err);
    goto done;
  }
  const result_table *t[2] = {&ta, &tb};
  printf("A = %s (%zu rows)\nB = %s (%zu rows)\n\n", ta.path, ta.n_rows, tb.path, tb.n_rows);
  print_table(t, &res);
  printf("\n%zu of %zu points agree at alpha %g (Bonferroni over %zu pairs: each differs when p < %.3g)",
         res.n_agree, res.n_compared, a.o.alpha, res.n_compared, res.alpha_each);
  if (res.n_same_draws)
    printf("; %zu pair%s on the same draws also held to equal bits and errors within %g * max + %g",
           res.n_same_draws, res.n_same_draws == 1 ? "" : "s", a.o.same_rel, a.o.same_abs);
  printf("\n");
  if (res.n_by_config)
    printf("* %zu pair%s matched by config across different seeds (point keys include the seed)\n",
           res.n_by_config, res.n_by_config == 1 ? "" : "s");
  if (res.n_skipped) printf("%zu skipped (bits = 0 in a file): not compared\n", res.n_skipped);
  if (res.n_only_a || res.n_only_b)
    printf("%zu point%s only in A (%s), %zu only in B (%s)%s\n", res.n_only_a, res.n_only_a == 1 ? "" : "s",
           ta.path, res.n_only_b, tb.path, a.require_all ? ": --require-all makes that a difference" : "");
  rc = res.n_differ || (a.require_all && (res.n_only_a || res.n_only_b)) ? 1 : 0;
  compare_result_free(&res);
done:
  result_table_free(&ta);
  result_table_free(&tb);
  return rc;
}
