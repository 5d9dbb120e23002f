/* Fuzz target: the result-CSV reader and what reads through it. The input is
 * split at the first line "----" into two CSV files (the second defaults to
 * the first), read with result_table_read, then compared (results_compare)
 * and merged (results_merge) the way `ofdmsim compare` and `merge` do, and
 * the merged table written out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "results/results.h"
#include "results/results_compare.h"
#include "results/results_merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *split = NULL;
  for (size_t i = 0; i + 5 <= size; i++)
    if (!memcmp(data + i, "\n----", 5)) {
      split = data + i;
      break;
    }
  const size_t na = split ? (size_t)(split - data) + 1 : size;
  const uint8_t *b = split ? split + 5 : data;
  const size_t nb = split ? size - (size_t)(b - data) : size;
  const char *pa = fuzz_scratch_file(0, data, na), *pb = fuzz_scratch_file(1, b, nb);
  if (!pa || !pb) return 0;
  result_table t[2] = {{0}}, merged = {0};
  char err[1024];
  if (result_table_read(&t[0], pa, err, sizeof err) == 0 && result_table_read(&t[1], pb, err, sizeof err) == 0) {
    compare_options o = {.alpha = 0.01, .same_rel = 0.001, .same_abs = 2};
    compare_result r = {0};
    if (results_compare(&t[0], &t[1], &o, &r, err, sizeof err) == 0) compare_result_free(&r);
    if (results_merge(t, 2, &merged, err, sizeof err) == 0) {
      FILE *devnull = fopen("/dev/null", "w");
      if (devnull) {
        results_write_csv(devnull, &merged);
        fclose(devnull);
      }
    }
  }
  result_table_free(&merged);
  result_table_free(&t[0]);
  result_table_free(&t[1]);
  return 0;
}
