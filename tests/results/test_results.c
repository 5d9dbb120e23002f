/* The result-CSV reader (results/results.h) on good files (quoted fields with
 * commas, doubled quotes and line breaks, CRLF, blank lines, a byte-order
 * mark) and on each malformed case, which must give "PATH:LINE: ..." with
 * the right line; then the variance, pairing and verdicts of
 * results/results_compare.h and the merge rules of results/results_merge.h on
 * hand-made tables. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/results.h"
#include "results/results_compare.h"
#include "results/results_curves.h"
#include "results/results_merge.h"
#include "results/csv_columns.h"
#include "results/str_index.h"
#include "results/stats.h"
#include "testutil.h"

static char dir[64];

/* Writes len bytes of text (len 0: strlen) to dir/name; the path. */
static const char *write_file_n(const char *name, const char *text, size_t len) {
  static char paths[32][128];
  static int next = 0;
  char *path = paths[next++ % 32];
  snprintf(path, sizeof paths[0], "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(text, 1, len ? len : strlen(text), f) != (len ? len : strlen(text)) || fclose(f)) {
    perror(path);
    exit(1);
  }
  return path;
}
static const char *write_file(const char *name, const char *text) { return write_file_n(name, text, 0); }

/* err starts with "PATH:LINE:" (line 0: "PATH:") and holds `also`. */
static int says(const char *err, const char *path, int line, const char *also) {
  char head[256];
  if (line) snprintf(head, sizeof head, "%s:%d: ", path, line);
  else snprintf(head, sizeof head, "%s: ", path);
  return !strncmp(err, head, strlen(head)) && (!also || strstr(err, also));
}

static void test_good(void) {
  const char *path = write_file("good.csv",
                                "point,bits,bit_errors,label,ber\n"
                                "0,1000,10,\"equalizer=zf\",0.01\n"
                                "1,2000,0,\"a, \"\"b\"\", c\",0\n"
                                "2,0,0,\"\",\n");
  result_table t;
  char err[512] = "";
  CHECK(result_table_read(&t, path, err, sizeof err) == 0, "good file: %s", err);
  CHECK(!strcmp(t.path, path), "path %s", t.path);
  CHECK(t.n_cols == 5 && t.n_rows == 3, "%zu cols, %zu rows", t.n_cols, t.n_rows);
  CHECK(!strcmp(t.names[3], "label"), "names[3] %s", t.names[3]);
  CHECK(result_table_column(&t, "bit_errors") == 2 && result_table_column(&t, "nope") == -1, "columns");
  CHECK(!strcmp(result_table_cell(&t, 0, 3), "equalizer=zf"), "label unquoted: %s", result_table_cell(&t, 0, 3));
  CHECK(!strcmp(result_table_cell(&t, 1, 3), "a, \"b\", c"), "commas and doubled quotes: [%s]",
        result_table_cell(&t, 1, 3));
  CHECK(!strcmp(result_table_cell(&t, 2, 3), "") && !strcmp(result_table_cell(&t, 2, 4), ""), "empty cells");
  CHECK(t.lines[0] == 2 && t.lines[1] == 3 && t.lines[2] == 4, "lines %zu %zu %zu", t.lines[0], t.lines[1],
        t.lines[2]);
  CHECK(!strcmp(result_table_cell(&t, 9, 0), "") && !strcmp(result_table_cell(&t, 0, -1), "") &&
            !strcmp(result_table_cell(&t, 0, 99), ""),
        "out of range cells are empty");
  uint64_t u = 0;
  double d = 0;
  CHECK(result_table_u64(&t, 1, "bits", &u, err, sizeof err) == 0 && u == 2000, "u64 %llu", (unsigned long long)u);
  CHECK(result_table_double(&t, 0, "ber", &d, err, sizeof err) == 0 && d == 0.01, "double %g", d);
  /* typed errors name the file, the row's line and the column */
  CHECK(result_table_double(&t, 2, "ber", &d, err, sizeof err) == 2 && says(err, path, 4, "column ber: expected"),
        "empty double: %s", err);
  CHECK(result_table_u64(&t, 0, "label", &u, err, sizeof err) == 2 &&
            says(err, path, 2, "column label: expected an unsigned integer") && strstr(err, "got 'equalizer=zf'"),
        "text for u64: %s", err);
  CHECK(result_table_u64(&t, 0, "nope", &u, err, sizeof err) == 2 && says(err, path, 1, "expected a column nope"),
        "missing column: %s", err);
  const char *const need_ok[] = {"point", "label", NULL}, *const need_bad[] = {"point", "units", "zzz", NULL};
  CHECK(result_table_require(&t, need_ok, err, sizeof err) == 0, "require ok: %s", err);
  CHECK(result_table_require(&t, need_bad, err, sizeof err) == 2 && says(err, path, 1, "units") && !strstr(err, "zzz"),
        "require names the first missing: %s", err);
  result_table_free(&t);
  result_table_free(&t); /* twice */
  CHECK(t.n_rows == 0 && !t.cells && !t.path, "freed table is zeroed");
  result_table z = {0};
  result_table_free(&z);
}

static void test_numbers(void) {
  const char *path = write_file("numbers.csv",
                                "point,bits,bit_errors,n,x\n"
                                "0,1,1,18446744073709551615,1e-3\n"
                                "1,1,1,18446744073709551616,nan\n"
                                "2,1,1,-1,1e999\n"
                                "3,1,1,12x, 4\n"
                                "4,1,1,,4x\n");
  result_table t;
  char err[512] = "";
  CHECK(result_table_read(&t, path, err, sizeof err) == 0, "%s", err);
  uint64_t u = 0;
  double d = 0;
  CHECK(result_table_u64(&t, 0, "n", &u, err, sizeof err) == 0 && u == UINT64_MAX, "2^64 - 1");
  CHECK(result_table_double(&t, 0, "x", &d, err, sizeof err) == 0 && d == 1e-3, "1e-3");
  for (size_t r = 1; r < 5; r++) {
    CHECK(result_table_u64(&t, r, "n", &u, err, sizeof err) == 2 && says(err, path, (int)r + 2, "column n"),
          "row %zu n refused: %s", r, err);
    CHECK(result_table_double(&t, r, "x", &d, err, sizeof err) == 2 && says(err, path, (int)r + 2, "column x"),
          "row %zu x refused: %s", r, err);
  }
  result_table_free(&t);
}

/* CRLF, blank lines, a byte-order mark, a quoted line break, no final newline. */
static void test_layouts(void) {
  const char *lf = write_file("lf.csv", "point,bits,bit_errors,label\n0,10,1,\"x\"\n1,20,2,\"y\"\n");
  const char *crlf = write_file("crlf.csv", "point,bits,bit_errors,label\r\n0,10,1,\"x\"\r\n1,20,2,\"y\"\r\n");
  const char *bare = write_file("bare.csv", "\xef\xbb\xbfpoint,bits,bit_errors,label\n\n0,10,1,\"x\"\r\n\n1,20,2,y");
  const char *paths[3] = {lf, crlf, bare};
  for (int i = 0; i < 3; i++) {
    result_table t;
    char err[512] = "";
    const int rc = result_table_read(&t, paths[i], err, sizeof err);
    CHECK(rc == 0, "%s: %s", paths[i], err);
    if (rc) continue;
    CHECK(t.n_rows == 2 && t.n_cols == 4, "%s: %zu rows %zu cols", paths[i], t.n_rows, t.n_cols);
    CHECK(!strcmp(t.names[0], "point") && !strcmp(t.names[3], "label"), "%s: header [%s] [%s]", paths[i],
          t.names[0], t.names[3]);
    CHECK(!strcmp(result_table_cell(&t, 0, 3), "x") && !strcmp(result_table_cell(&t, 1, 3), "y"),
          "%s: no stray \\r: [%s] [%s]", paths[i], result_table_cell(&t, 0, 3), result_table_cell(&t, 1, 3));
    if (i == 2) CHECK(t.lines[0] == 3 && t.lines[1] == 5, "blank lines counted: %zu %zu", t.lines[0], t.lines[1]);
    result_table_free(&t);
  }
  const char *nl = write_file("newline.csv", "point,bits,bit_errors,label\n0,1,0,\"two\nlines\"\n1,1,0,\"z\"\n");
  result_table t;
  char err[512] = "";
  CHECK(result_table_read(&t, nl, err, sizeof err) == 0, "%s", err);
  CHECK(t.n_rows == 2 && !strcmp(result_table_cell(&t, 0, 3), "two\nlines"), "quoted line break");
  CHECK(t.n_rows == 2 && t.lines[0] == 2 && t.lines[1] == 4, "the row after it is on line 4: %zu",
        t.n_rows == 2 ? t.lines[1] : 0);
  result_table_free(&t);
  const char *head_only = write_file("head_only.csv", "point,bits,bit_errors\n");
  CHECK(result_table_read(&t, head_only, err, sizeof err) == 0 && t.n_rows == 0 && t.cells, "header only: %s", err);
  result_table_free(&t);
}

/* Each malformed file: exit 2, "PATH:LINE: ..." with the right line, the table zeroed. */
static void test_malformed(void) {
  static const struct {
    const char *name, *text;
    int line;
    const char *also;
  } cases[] = {
      {"empty.csv", "", 1, "empty file"},
      {"blank.csv", "\n\r\n\n", 1, "empty file"},
      {"no_bits.csv", "point,bit_errors,ber\n0,1,0.1\n", 1, "bits"},
      {"not_csv.csv", "hello world\n", 1, "expected an ofdmsim results header"},
      {"short_row.csv", "point,bits,bit_errors\n0,1,0\n1,2\n", 3, "expected 3 fields (as the header has), got 2"},
      {"long_row.csv", "point,bits,bit_errors\n0,1,0\n1,2,0\n2,3,0,9\n", 4, "got 4"},
      {"unterminated.csv", "point,bits,bit_errors,label\n0,1,0,\"a\"\n1,1,0,\"b\n2,1,0,c\n", 3,
       "expected a closing '\"'"},
      {"stray_quote.csv", "point,bits,bit_errors,label\n0,1,0,a\"b\"\n", 2, "field 4"},
      {"after_quote.csv", "point,bits,bit_errors,label\n0,1,0,\"ab\"c\n", 2, "after the closing"},
      {"quote_in_header.csv", "point,\"bits,bit_errors\n0,1,0\n", 1, "closing"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *path = write_file(cases[i].name, cases[i].text);
    result_table t;
    char err[512] = "";
    const int rc = result_table_read(&t, path, err, sizeof err);
    CHECK(rc == 2 && says(err, path, cases[i].line, cases[i].also), "%s: rc %d, '%s' (want line %d, '%s')",
          cases[i].name, rc, err, cases[i].line, cases[i].also);
    CHECK(!t.names && !t.cells && !t.path && t.n_rows == 0, "%s: table zeroed", cases[i].name);
    result_table_free(&t);
  }
  const char *nul = write_file_n("nul.csv", "point,bits,bit_errors\n0,1\0,0\n", sizeof "point,bits,bit_errors\n0,1\0,0\n" - 1);
  result_table t;
  char err[512] = "";
  CHECK(result_table_read(&t, nul, err, sizeof err) == 2 && says(err, nul, 2, "NUL"), "NUL byte: %s", err);
  char missing[128];
  snprintf(missing, sizeof missing, "%s/does-not-exist.csv", dir);
  CHECK(result_table_read(&t, missing, err, sizeof err) == 2 && says(err, missing, 0, "cannot read"), "missing: %s",
        err);
  CHECK(result_table_read(&t, dir, err, sizeof err) == 2 && says(err, dir, 0, "cannot read"), "a folder: %s", err);
}

/* ---- compare ------------------------------------------------------------- */

#define CMP_HEAD "point,bits,bit_errors,ci95_low,ci95_high,frames,frame_errors_sq,point_key,label,simulation.seed,simulation.first_frame,snr_db\n"

static void test_variance(void) {
  /* 4 frames of 100 bits with 1, 3, 5, 7 errors: var of the frame means 20/3,
   * of the BER 20/3/4/100^2; the interval gives less. */
  const char *path = write_file("var.csv", CMP_HEAD "0,400,16,0.039,0.041,4,84,0123456789abcdef,,1,0,0\n"
                                                    "1,400,0,0,0.0392,4,0,0123456789abcdef,,1,0,0\n");
  result_table t;
  char err[512] = "";
  CHECK(result_table_read(&t, path, err, sizeof err) == 0, "%s", err);
  double ber, var;
  CHECK(results_ber_variance(&t, 0, &ber, &var, err, sizeof err) == 0, "%s", err);
  const double want = (84.0 - 16.0 * 16.0 / 4.0) / 3.0 / 4.0 / (100.0 * 100.0);
  CHECK(ber == 0.04 && fabs(var - want) < 1e-15, "batch means: ber %g var %g want %g", ber, var, want);
  /* no error: the interval's half-width is all there is */
  const double h = 0.0392 / (2.0 * 1.959963984540054);
  CHECK(results_ber_variance(&t, 1, &ber, &var, err, sizeof err) == 0 && ber == 0 && fabs(var - h * h) < 1e-15,
        "zero errors: var %g want %g", var, h * h);
  result_table_free(&t);
}

static int run_compare(const char *a_text, const char *b_text, const compare_options *o, compare_result *r,
                       char *err, size_t errlen) {
  static int n = 0;
  char na[32], nb[32];
  snprintf(na, sizeof na, "cmp%da.csv", n);
  snprintf(nb, sizeof nb, "cmp%db.csv", n++);
  result_table a, b;
  int rc = result_table_read(&a, write_file(na, a_text), err, errlen);
  if (!rc) rc = result_table_read(&b, write_file(nb, b_text), err, errlen);
  else return rc;
  if (!rc) rc = results_compare(&a, &b, o, r, err, errlen);
  result_table_free(&a);
  result_table_free(&b);
  return rc;
}

static void test_compare(void) {
  const compare_options o = {0.01, 0.001, 2.0, 0};
  compare_result r;
  char err[512] = "";
  /* Same draws: errors 1000 vs 1003 pass (<= 1 + 2), 1000 vs 1004 do not. */
  const char *a = CMP_HEAD "0,100000,1000,0.009,0.011,10,100000,00000000000000aa,\"p\",1,0,0\n"
                           "1,100000,1000,0.009,0.011,10,100000,00000000000000bb,\"q\",1,0,4\n"
                           "2,0,0,0,1,0,0,00000000000000cc,\"r\",1,0,8\n"
                           "3,100000,100,0.0008,0.0012,10,1000,00000000000000dd,\"s\",1,0,12\n";
  const char *b = CMP_HEAD "0,100000,1003,0.009,0.011,10,100000,00000000000000aa,\"p\",1,0,0\n"
                           "1,100000,1004,0.009,0.011,10,100000,00000000000000bb,\"q\",1,0,4\n"
                           "2,100000,5,0,1e-4,10,10,00000000000000cc,\"r\",1,0,8\n"
                           "9,100000,100,0.0008,0.0012,10,1000,00000000000000ee,\"t\",1,0,16\n";
  CHECK(run_compare(a, b, &o, &r, err, sizeof err) == 0, "%s", err);
  CHECK(r.n_pairs == 5 && r.n_compared == 2 && r.n_skipped == 1 && r.n_only_a == 1 && r.n_only_b == 1,
        "pairs %zu compared %zu skipped %zu only %zu/%zu", r.n_pairs, r.n_compared, r.n_skipped, r.n_only_a,
        r.n_only_b);
  if (r.n_pairs == 5) {
    CHECK(r.pairs[0].same_draws && r.pairs[0].verdict == CMP_AGREE && r.pairs[0].diff == 3, "1000 vs 1003 agree");
    CHECK(r.pairs[1].same_draws && r.pairs[1].verdict == CMP_DIFFER && !strcmp(r.pairs[1].rule, "same draws"),
          "1000 vs 1004 differ by the same-draws rule (%s)", r.pairs[1].rule);
    CHECK(r.pairs[1].z_ok, "... which the z-test alone would pass (p %g)", r.pairs[1].p);
    CHECK(r.pairs[2].verdict == CMP_SKIPPED, "bits = 0: skipped");
    CHECK(r.pairs[3].verdict == CMP_ONLY_A && !strcmp(r.pairs[3].key, "00000000000000dd"), "only in A");
    CHECK(r.pairs[4].verdict == CMP_ONLY_B && !strcmp(r.pairs[4].key, "00000000000000ee"), "only in B");
    CHECK(r.alpha_each == 0.005, "Bonferroni over 2 compared pairs: %g", r.alpha_each);
  }
  compare_result_free(&r);
  /* Independent runs (another frame range): the z-test. 100 frames of 1000
   * bits whose error counts vary by 10 (sum_sq = F mean^2 + (F-1) 10): the
   * BER's variance 10 / 100 / 1000^2 = 1e-7, far above the binomial 1e-7 /
   * 10 and the written intervals'. 1000 vs 1020 errors is z 0.45, 1000 vs
   * 1300 is z 6.7. */
  const char *c = CMP_HEAD "0,100000,1000,0.0099,0.0101,100,10990,00000000000000aa,\"p\",1,0,0\n"
                           "1,100000,1000,0.0099,0.0101,100,10990,00000000000000bb,\"q\",1,0,4\n";
  const char *d = CMP_HEAD "0,100000,1020,0.0099,0.0103,100,11394,00000000000000aa,\"p\",1,100,0\n"
                           "1,100000,1300,0.0128,0.0132,100,17890,00000000000000bb,\"q\",1,100,4\n";
  CHECK(run_compare(c, d, &o, &r, err, sizeof err) == 0, "%s", err);
  CHECK(r.n_compared == 2 && r.n_agree == 1 && r.n_differ == 1, "z-test: %zu agree, %zu differ", r.n_agree,
        r.n_differ);
  if (r.n_pairs == 2) {
    CHECK(!r.pairs[0].same_draws && !strcmp(r.pairs[0].rule, "z-test") && r.pairs[0].verdict == CMP_AGREE &&
              fabs(r.pairs[0].z) < 2,
          "1000 vs 1020: z %g", r.pairs[0].z);
    CHECK(r.pairs[1].verdict == CMP_DIFFER && r.pairs[1].z > 5 && r.pairs[1].p < 1e-6, "1000 vs 1300: z %g p %g",
          r.pairs[1].z, r.pairs[1].p);
    /* the variance is the batch-means one, not the binomial (which would be ~1e-7) */
    const double bm = (10990.0 - 1e6 / 100.0) / 99.0 / 100.0 / 1e6;
    CHECK(fabs(r.pairs[0].a.var - bm) < 1e-12 * bm + 1e-20, "var %g want %g", r.pairs[0].a.var, bm);
  }
  compare_result_free(&r);
  /* the same draws must have the same bits */
  const char *f = CMP_HEAD "0,100001,1000,0.009,0.011,10,100000,00000000000000aa,\"p\",1,0,0\n";
  CHECK(run_compare(a, f, &o, &r, err, sizeof err) == 0 && r.n_pairs && r.pairs[0].same_draws &&
            r.pairs[0].diff == 0 && r.pairs[0].verdict == CMP_DIFFER,
        "same draws, other bits: differ");
  compare_result_free(&r);
  const compare_options strict = {0.01, 0.001, 2.0, 1};
  CHECK(run_compare(c, d, &strict, &r, err, sizeof err) == 0 && r.n_differ == 2 && r.n_pairs &&
            !strcmp(r.pairs[0].rule, "frame ranges"),
        "--require-same-draws: other frame ranges differ");
  compare_result_free(&r);
  /* Another seed: no common key; paired by the config columns */
  const char *e = CMP_HEAD "0,100000,1010,0.0099,0.0103,100,11191,11111111111111aa,\"p\",2,0,0\n"
                           "1,100000,1000,0.0099,0.0101,100,10990,11111111111111bb,\"q\",2,0,8\n";
  CHECK(run_compare(c, e, &o, &r, err, sizeof err) == 0, "%s", err);
  CHECK(r.n_by_config == 1 && r.n_compared == 1 && r.n_only_a == 1 && r.n_only_b == 1 && r.n_agree == 1,
        "across seeds: %zu by config, %zu only in A", r.n_by_config, r.n_only_a);
  CHECK(r.n_pairs && r.pairs[0].match == MATCH_CONFIG && !r.pairs[0].same_draws, "matched by config, not same draws");
  compare_result_free(&r);
  /* bad input */
  const char *no_key = "point,bits,bit_errors,ci95_low,ci95_high,frames\n0,1,0,0,1,1\n";
  CHECK(run_compare(no_key, c, &o, &r, err, sizeof err) == 2 && strstr(err, ":1: expected a point_key column"),
        "no point_key: %s", err);
  const char *other = CMP_HEAD "0,100000,1000,0.0099,0.0101,100,10090,22222222222222aa,\"p\",1,0,99\n";
  CHECK(run_compare(c, other, &o, &r, err, sizeof err) == 2 && strstr(err, "expected points common to both files"),
        "no common point: %s", err);
  const char *bad_key = CMP_HEAD "0,100000,1000,0.0099,0.0101,100,10090,ABC,\"p\",1,0,0\n";
  CHECK(run_compare(c, bad_key, &o, &r, err, sizeof err) == 2 && strstr(err, ":2: column point_key"), "bad key: %s",
        err);
  const char *too_many = CMP_HEAD "0,100,1000,0.0099,0.0101,100,10090000,00000000000000aa,\"p\",1,0,0\n";
  CHECK(run_compare(c, too_many, &o, &r, err, sizeof err) == 2 && strstr(err, ":2: column bit_errors"),
        "errors > bits: %s", err);
}

/* ---- merge --------------------------------------------------------------- */

#define MERGE_HEAD                                                                                        \
  "point,bits,bit_errors,ber,ci95_low,ci95_high,stream_bit_errors,frames,stop,inversions,inv_per_s,"    \
  "mbit_per_s,seconds,backend,label,fallbacks,frame_errors_sq,units,point_key,simulation.seed,"          \
  "simulation.first_frame,simulation.max_bits\n"

static int run_merge(const char *const *texts, size_t n, result_table *out, char *err, size_t errlen) {
  static int k = 0;
  result_table in[4];
  memset(in, 0, sizeof in);
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    char name[32];
    snprintf(name, sizeof name, "m%d_%zu.csv", k, i);
    rc = result_table_read(&in[i], write_file(name, texts[i]), err, errlen);
  }
  k++;
  if (!rc) rc = results_merge(in, n, out, err, errlen);
  for (size_t i = 0; i < n; i++) result_table_free(&in[i]);
  return rc;
}

static const char *cell(const result_table *t, size_t row, const char *name) {
  return result_table_cell(t, row, result_table_column(t, name));
}

static void test_merge(void) {
  result_table out;
  char err[1024] = "";
  /* point aa in frames [0,2) and [2,5) (given in the other order), point bb
   * in one part, point cc skipped in one part and run in the other */
  const char *p1 = MERGE_HEAD
      "1,300,30,0.1,0,1,10;20,3,max_bits,60,1000,0.003,0.1,cuda,\"x\",1,350,3,00000000000000aa,7,2,300\n"
      "0,100,5,0.05,0,1,2;3,1,target_errors,10,100,0.001,0.1,cpu,\"y\",0,25,1,00000000000000bb,7,0,100\n"
      "2,0,0,0,0,1,0;0,0,skipped,0,0,0,0,cpu,\"z\",0,0,0,00000000000000cc,7,0,100\n";
  const char *p2 = MERGE_HEAD
      "1,200,10,0.05,0,1,4;6,2,max_bits,40,400,0.002,0.1,cpu,\"x\",2,52,2,00000000000000aa,7,0,200\n"
      "2,50,1,0.02,0,1,1;0,1,max_bits,10,100,0.0005,0.1,cpu,\"z, \"\"q\"\"\",0,1,1,00000000000000cc,7,0,100\n";
  const char *const ok[] = {p1, p2};
  CHECK(run_merge(ok, 2, &out, err, sizeof err) == 0, "%s", err);
  CHECK(out.n_rows == 3, "3 points, got %zu", out.n_rows);
  if (out.n_rows == 3) {
    CHECK(!strcmp(cell(&out, 0, "point_key"), "00000000000000bb") && !strcmp(cell(&out, 1, "point_key"), "00000000000000aa") &&
              !strcmp(cell(&out, 2, "point_key"), "00000000000000cc"),
          "sorted by point");
    CHECK(!strcmp(cell(&out, 0, "ber"), "0.05") && !strcmp(cell(&out, 0, "stop"), "target_errors"),
          "a point of one part keeps its row");
    CHECK(!strcmp(cell(&out, 1, "bits"), "500") && !strcmp(cell(&out, 1, "bit_errors"), "40") &&
              !strcmp(cell(&out, 1, "stream_bit_errors"), "14;26") && !strcmp(cell(&out, 1, "frames"), "5") &&
              !strcmp(cell(&out, 1, "inversions"), "100") && !strcmp(cell(&out, 1, "fallbacks"), "3") &&
              !strcmp(cell(&out, 1, "frame_errors_sq"), "402.0") && !strcmp(cell(&out, 1, "units"), "5") &&
              !strcmp(cell(&out, 1, "ber"), "0.08") && !strcmp(cell(&out, 1, "simulation.first_frame"), "0"),
          "counts summed: bits %s errors %s streams %s frames %s sq %s", cell(&out, 1, "bits"),
          cell(&out, 1, "bit_errors"), cell(&out, 1, "stream_bit_errors"), cell(&out, 1, "frames"),
          cell(&out, 1, "frame_errors_sq"));
    CHECK(!strcmp(cell(&out, 1, "stop"), "max_bits") && !strcmp(cell(&out, 1, "simulation.max_bits"), "300") &&
              !strcmp(cell(&out, 1, "backend"), "cpu+cuda"),
          "stop, max_bits of the highest range, backends joined: %s %s %s", cell(&out, 1, "stop"),
          cell(&out, 1, "simulation.max_bits"), cell(&out, 1, "backend"));
    CHECK(!strcmp(cell(&out, 1, "seconds"), "0.2") && !strcmp(cell(&out, 1, "mbit_per_s"), "0.0025") &&
              !strcmp(cell(&out, 1, "inv_per_s"), "625.0"),
          "throughputs: %s s, %s Mbit/s, %s inv/s (want 0.2, 0.0025, 100/(0.06+0.1))", cell(&out, 1, "seconds"),
          cell(&out, 1, "mbit_per_s"), cell(&out, 1, "inv_per_s"));
    const ber_sample s = {500, 40, 5, 402.0, 5};
    double lo, hi;
    ber_interval(&s, 0.95, &lo, &hi);
    char want_lo[32], want_hi[32];
    snprintf(want_lo, sizeof want_lo, "%.10g", lo);
    snprintf(want_hi, sizeof want_hi, "%.10g", hi);
    CHECK(!strcmp(cell(&out, 1, "ci95_low"), want_lo) && !strcmp(cell(&out, 1, "ci95_high"), want_hi),
          "interval recomputed: [%s, %s] want [%s, %s]", cell(&out, 1, "ci95_low"), cell(&out, 1, "ci95_high"),
          want_lo, want_hi);
    CHECK(!strcmp(cell(&out, 2, "bits"), "50") && !strcmp(cell(&out, 2, "label"), "z, \"q\""),
          "a skipped part adds nothing: bits %s label %s", cell(&out, 2, "bits"), cell(&out, 2, "label"));
    /* written and read back: the same cells, the label quoted */
    const char *path = write_file("merged.csv", "");
    FILE *f = fopen(path, "w");
    CHECK(f && results_write_csv(f, &out) == 0, "write");
    if (f) fclose(f);
    result_table back;
    CHECK(result_table_read(&back, path, err, sizeof err) == 0 && back.n_rows == 3 && back.n_cols == out.n_cols,
          "read back: %s", err);
    int same = back.n_rows == 3;
    for (size_t i = 0; same && i < 3 * out.n_cols; i++) same = !strcmp(back.cells[i], out.cells[i]);
    CHECK(same, "read back equal");
    result_table_free(&back);
    f = fopen(path, "r");
    char line[1024] = "";
    if (f) {
      for (int i = 0; i < 4 && fgets(line, sizeof line, f); i++) continue;
      fclose(f);
    }
    CHECK(strstr(line, ",\"z, \"\"q\"\"\",") != NULL, "label written quoted with doubled quotes: %s", line);
  }
  result_table_free(&out);

  /* the refusals, each naming the files and lines */
  const char *overlap = MERGE_HEAD
      "1,100,10,0.1,0,1,4;6,1,interrupted,40,400,0.002,0.1,cpu,\"x\",2,52,2,00000000000000aa,7,0,200\n";
  const char *const ov[] = {p2, overlap};
  CHECK(run_merge(ov, 2, &out, err, sizeof err) == 2 &&
            strstr(err, "point 00000000000000aa: frames 0..1 of ") && strstr(err, "m1_0.csv:2 overlap frames 0..0 of ") &&
            strstr(err, "m1_1.csv:2 (an interrupted point is a prefix of its re-run: keep one of them)"),
        "overlap: %s", err);
  const char *late = MERGE_HEAD
      "1,100,10,0.1,0,1,4;6,1,max_bits,40,400,0.002,0.1,cpu,\"x\",2,52,2,00000000000000aa,7,3,200\n";
  const char *const gap[] = {p2, late};
  CHECK(run_merge(gap, 2, &out, err, sizeof err) == 2 && strstr(err, "point 00000000000000aa: frames 0..1 of ") &&
            strstr(err, "frames 3..3 of ") && strstr(err, "leave frames 2..2 out"),
        "gap: %s", err);
  const char *seed = MERGE_HEAD
      "5,100,10,0.1,0,1,4;6,1,max_bits,40,400,0.002,0.1,cpu,\"x\",2,52,2,00000000000000ff,8,0,200\n";
  const char *const sd[] = {p1, seed};
  CHECK(run_merge(sd, 2, &out, err, sizeof err) == 2 && strstr(err, "m3_1.csv:2 has simulation.seed 8") &&
            strstr(err, "m3_0.csv:2 has 7"),
        "seeds: %s", err);
  const char *head = "point,bits,bit_errors,ber,ci95_low,ci95_high,stream_bit_errors,frames,stop,inversions,"
                     "inv_per_s,mbit_per_s,seconds,backend,label,fallbacks,frame_errors_sq,units,point_key,"
                     "simulation.seed,simulation.first_frame,simulation.min_bits\n";
  const char *const hd[] = {p1, head};
  CHECK(run_merge(hd, 2, &out, err, sizeof err) == 2 && strstr(err, "m4_1.csv:1: expected the header of ") &&
            strstr(err, "m4_0.csv") && strstr(err, "column 22 'simulation.min_bits'") &&
            strstr(err, "'simulation.max_bits'"),
        "header: %s", err);
  const char *streams = MERGE_HEAD
      "1,100,10,0.1,0,1,4;6;0,1,max_bits,40,400,0.002,0.1,cpu,\"x\",2,52,2,00000000000000aa,7,5,200\n";
  const char *const st[] = {p1, p2, streams};
  CHECK(run_merge(st, 3, &out, err, sizeof err) == 2 && strstr(err, "streams"), "stream counts: %s", err);
  const char *no_units = "point,bits,bit_errors\n0,1,0\n";
  const char *const nu[] = {no_units, no_units};
  CHECK(run_merge(nu, 2, &out, err, sizeof err) == 2 && strstr(err, ":1: expected a column point_key"),
        "old files: %s", err);
}


/* One row check for every reader (issue 23, item 20): result_table_read
 * itself refuses the rows merge once took (bit_errors > bits, a negative
 * frame_errors_sq) with file, line and column. */
static void test_row_check(void) {
  static const char head[] = "point,bits,bit_errors,frames,ci95_low,ci95_high,frame_errors_sq\n";
  char text[512];
  char err[512];
  result_table t;
  snprintf(text, sizeof text, "%s0,100,5,10,0.01,0.1,9.0\n1,100,101,10,0.9,1,10201.0\n", head);
  const char *p = write_file("rc1.csv", text);
  CHECK(result_table_read(&t, p, err, sizeof err) == 2 && says(err, p, 3, "column bit_errors: expected at most bits (100), got 101"),
        "bit_errors > bits: %s", err);
  snprintf(text, sizeof text, "%s0,100,5,10,0.01,0.1,-1\n", head);
  p = write_file("rc2.csv", text);
  CHECK(result_table_read(&t, p, err, sizeof err) == 2 && says(err, p, 2, "column frame_errors_sq: expected"),
        "negative frame_errors_sq: %s", err);
  snprintf(text, sizeof text, "%s0,100,5,10,0.01,0.1,26\n", head);
  p = write_file("rc3.csv", text);
  CHECK(result_table_read(&t, p, err, sizeof err) == 2 && says(err, p, 2, "column frame_errors_sq"),
        "frame_errors_sq above bit_errors^2: %s", err);
  snprintf(text, sizeof text, "%s0,100,5,10,0.2,0.1,9\n", head);
  p = write_file("rc4.csv", text);
  CHECK(result_table_read(&t, p, err, sizeof err) == 2 && says(err, p, 2, "column ci95_high: expected at least ci95_low"),
        "ci95_low > ci95_high: %s", err);
  snprintf(text, sizeof text, "%s0,100,5,0,0.01,0.1,9\n", head);
  p = write_file("rc5.csv", text);
  CHECK(result_table_read(&t, p, err, sizeof err) == 2 && says(err, p, 2, "column frames: expected at least 1"),
        "bits without frames: %s", err);
  snprintf(text, sizeof text, "%s0,0,0,0,0,1,0\n1,100,5,10,0.01,0.1,9\n", head);
  p = write_file("rc6.csv", text);
  CHECK(result_table_read(&t, p, err, sizeof err) == 0, "a skipped row and a good one pass: %s", err);
  result_table_free(&t);
  /* an escape in a cell comes out of the message as '?' */
  snprintf(text, sizeof text, "%s0,100,\x1b[31m5,10,0.01,0.1,9\n", head);
  p = write_file("rc7.csv", text);
  CHECK(result_table_read(&t, p, err, sizeof err) == 2 && !strchr(err, '\x1b') && strstr(err, "?[31m5"),
        "no escape byte in the message: %s", err);
  /* not a regular file */
  CHECK(result_table_read(&t, "/dev/zero", err, sizeof err) == 2 && strstr(err, "expected a regular file"),
        "/dev/zero: %s", err);
}

/* Real columns print as reals (item 12). */
static void test_csv_real(void) {
  char b[64];
  csv_real_text(b, sizeof b, 17, 10.0);
  CHECK(!strcmp(b, "10.0"), "10 -> %s", b);
  csv_real_text(b, sizeof b, 10, 0.0);
  CHECK(!strcmp(b, "0.0"), "0 -> %s", b);
  csv_real_text(b, sizeof b, 17, -3.0);
  CHECK(!strcmp(b, "-3.0"), "-3 -> %s", b);
  csv_real_text(b, sizeof b, 10, 0.25);
  CHECK(!strcmp(b, "0.25"), "0.25 -> %s", b);
  csv_real_text(b, sizeof b, 6, 1e20);
  CHECK(!strcmp(b, "1e+20"), "1e20 -> %s", b);
  csv_real_text(b, sizeof b, 6, NAN);
  CHECK(!strcmp(b, "nan") || !strcmp(b, "-nan"), "nan -> %s", b);
}

/* The string index: every value of a key, in order; many keys. */
static void test_str_index(void) {
  str_index x;
  CHECK(str_index_init(&x, 2) == 0, "init");
  static char keys[5000][16];
  int ok = 1;
  for (size_t i = 0; i < 5000; i++) {
    snprintf(keys[i], sizeof keys[i], "k%zu", i % 1000);
    size_t first;
    ok &= str_index_add(&x, keys[i], i, &first) == 0 && first == i % 1000;
  }
  CHECK(ok, "first values");
  size_t n = 0, last = 0;
  for (size_t e = str_index_find(&x, "k7"); e != SIZE_MAX; e = str_index_next(&x, e)) {
    ok &= str_index_value(&x, e) == 7 + 1000 * n && (n == 0 || str_index_value(&x, e) > last);
    last = str_index_value(&x, e);
    n++;
  }
  CHECK(ok && n == 5 && x.n_keys == 1000, "k7: %zu values", n);
  CHECK(str_index_find(&x, "k1000") == SIZE_MAX, "a key not there");
  str_index_free(&x);
}

/* A curve file: BER = 0.5 * 10^(-(snr - shift) / 10) at the SNRs, with
 * intervals of +-20% (so the crossings are exact on the log scale). */
static const char *curve_file(const char *name, const char *eq, double shift, const char *extra_rows) {
  static char text[8192];
  size_t used = (size_t)snprintf(text, sizeof text,
                                 "point,snr_db,bits,bit_errors,frames,ci95_low,ci95_high,frame_errors_sq,"
                                 "simulation.seed,equalizer,mimo.tx,simulation.snr_db\n");
  const double snrs[] = {0, 5, 10, 15, 20, 25};
  for (int i = 0; i < 6; i++) {
    const double ber = 0.5 * pow(10.0, -(snrs[i] - shift) / 10.0);
    const uint64_t bits = 100000000, errors = (uint64_t)llround(ber * (double)bits);
    const double p = (double)errors / (double)bits;
    used += (size_t)snprintf(text + used, sizeof text - used, "%d,%.1f,%llu,%llu,100,%.10g,%.10g,%.1f,1,%s,2,0.0\n", i,
                             snrs[i], (unsigned long long)bits, (unsigned long long)errors, p * 0.8, p * 1.2,
                             (double)errors * (double)errors / 100.0, eq);
  }
  if (extra_rows) snprintf(text + used, sizeof text - used, "%s", extra_rows);
  return write_file(name, text);
}

/* compare --by (item 6): the SNR gap at a target and the BER ratios. */
static void test_curves(void) {
  char err[1024];
  result_table in[2];
  const char *a = curve_file("cz.csv", "zf", 0.0, NULL), *b = curve_file("cm.csv", "mmse", -2.0, NULL);
  CHECK(result_table_read(&in[0], a, err, sizeof err) == 0 && result_table_read(&in[1], b, err, sizeof err) == 0,
        "%s", err);
  const char *const keys[] = {"equalizer"};
  curve_result r;
  CHECK(results_curves(in, 2, keys, 1, 1e-3, &r, err, sizeof err) == 0, "curves: %s", err);
  if (r.n_pairs == 1) {
    const curve_pair *p = &r.pairs[0];
    /* A crosses 1e-3 at 10 log10(500) = 26.99: beyond its SNRs; use 1e-2 */
    CHECK(isnan(p->gap), "1e-3 not reached by A: gap %g", p->gap);
    CHECK(!strcmp(r.curves[p->a].value, "equalizer=zf") && !strcmp(r.curves[p->b].value, "equalizer=mmse"),
          "A is the first curve: %s, %s", r.curves[p->a].value, r.curves[p->b].value);
    CHECK(p->n_ratios == 6, "6 common SNRs: %zu", p->n_ratios);
    const double want = pow(10.0, -0.2);
    int ok = 1;
    for (size_t k = 0; k < p->n_ratios; k++)
      ok &= fabs(p->ratios[k].ratio / want - 1) < 1e-3 && p->ratios[k].lo < p->ratios[k].ratio &&
            p->ratios[k].hi > p->ratios[k].ratio;
    CHECK(ok, "ratios 10^-0.2 with an interval around each");
  } else {
    CHECK(0, "one pair, got %zu", r.n_pairs);
  }
  curve_result_free(&r);
  CHECK(results_curves(in, 2, keys, 1, 1e-2, &r, err, sizeof err) == 0, "curves: %s", err);
  if (r.n_pairs == 1) {
    const curve_pair *p = &r.pairs[0];
    CHECK(fabs(p->xa.snr - 10 * log10(50.0)) < 0.01, "A crosses 1e-2 at 16.99 dB: %g", p->xa.snr);
    CHECK(fabs(p->gap + 2.0) < 0.01, "gap -2 dB: %g", p->gap);
    CHECK(p->gap_lo < p->gap && p->gap < p->gap_hi && p->gap_hi - p->gap_lo < 3,
          "gap interval around it: [%g, %g]", p->gap_lo, p->gap_hi);
    /* the +-20% band is +-0.79 / -0.97 dB on each curve: in quadrature */
    const double d_up = 10 * log10(1.2), d_dn = -10 * log10(0.8);
    CHECK(fabs((p->gap_hi - p->gap) - hypot(d_up, d_dn)) < 0.01, "upper side %g", p->gap_hi - p->gap);
  }
  curve_result_free(&r);
  /* by a key that is no identity column, or no column at all */
  const char *const bad[] = {"simulation.seed"};
  CHECK(results_curves(in, 2, bad, 1, 1e-2, &r, err, sizeof err) == 2 && strstr(err, "--by simulation.seed"),
        "--by seed: %s", err);
  const char *const none[] = {"receiver.llr"};
  CHECK(results_curves(in, 2, none, 1, 1e-2, &r, err, sizeof err) == 2 && strstr(err, "expected a column receiver.llr"),
        "--by a missing column: %s", err);
  /* one family, one curve: nothing to compare */
  CHECK(results_curves(in, 1, keys, 1, 1e-2, &r, err, sizeof err) == 2 && strstr(err, "expected curves that differ"),
        "one curve: %s", err);
  /* two rows at one SNR of a curve */
  result_table_free(&in[1]);
  const char *dup = curve_file("cd.csv", "mmse", -2.0, "9,5.0,1000,10,10,0.005,0.02,10.0,2,mmse,2,0.0\n");
  CHECK(result_table_read(&in[1], dup, err, sizeof err) == 0, "%s", err);
  CHECK(results_curves(in, 2, keys, 1, 1e-2, &r, err, sizeof err) == 2 && strstr(err, "expected one row per SNR"),
        "two rows at one SNR: %s", err);
  result_table_free(&in[0]);
  result_table_free(&in[1]);
  /* crossing: exact on the log scale, NAN when not bracketed */
  const double s[] = {0, 10}, y[] = {1e-1, 1e-3};
  CHECK(fabs(curve_crossing_snr(s, y, 2, 1e-2) - 5) < 1e-12, "crossing at 5");
  CHECK(isnan(curve_crossing_snr(s, y, 2, 1e-4)), "no crossing");
  const double y0[] = {1e-1, 0};
  CHECK(curve_crossing_snr(s, y0, 2, 1e-2) > 0 && curve_crossing_snr(s, y0, 2, 1e-2) < 1, "to zero errors");
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/ofdmsim-results-XXXXXX");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_good();
  test_numbers();
  test_layouts();
  test_malformed();
  test_variance();
  test_compare();
  test_merge();
  test_row_check();
  test_csv_real();
  test_str_index();
  test_curves();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  return test_finish("results");
}
