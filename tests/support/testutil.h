/* A minimal check harness: CHECK records a failure with file and line and goes
 * on; test_finish prints "N passed, N failed" and returns the exit code. */
#ifndef OFDMSIM_TESTUTIL_H
#define OFDMSIM_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

extern int test_passed, test_failed;

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    if (cond) {                                                            \
      test_passed++;                                                       \
    } else {                                                               \
      test_failed++;                                                       \
      fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond);   \
      fprintf(stderr, __VA_ARGS__);                                        \
      fputc('\n', stderr);                                                 \
    }                                                                      \
  } while (0)

/* Prints the summary line; returns 0 when nothing failed and something passed. */
int test_finish(const char *name);
/* A small deterministic generator for test inputs (xorshift64*), for tests
 * that must not depend on the library's own random streams. */
void test_rng_seed(uint64_t seed);
/* The state, to replay a stretch of draws with test_rng_seed(saved). */
uint64_t test_rng_save(void);
uint64_t test_rng_u64(void);
double test_rng_u01(void);                  /* in (0, 1) */
void test_rng_cnormal(double *re, double *im); /* CN(0, 1): unit total variance */

/* SplitMix64 on a caller-owned state, for tests that need several
 * independent, reproducible streams (one per thread or per case) rather than
 * the single global stream above: advances *s and returns the next word. */
uint64_t test_splitmix64(uint64_t *s);
/* Uniform in (0, 1) from test_splitmix64: the top 53 bits, centred in their
 * interval, so that log() of it is always finite. */
double test_splitmix_u01(uint64_t *s);

/* The size the statistical end-to-end tests run at: OFDMSIM_TEST_SCALE, a
 * share in (0, 1], 1 when unset. scripts/sanitize.sh sets it (0.1), because
 * under ASan + UBSan the code runs 10-20 times slower and what the sanitizers
 * look for (a bad access, a leak, undefined behaviour) shows on the first
 * frames that take a path, not on the millionth: the same paths run, on
 * fewer frames. The full size runs in the normal pass, which alone holds the
 * statistics to their full precision. A value that is not a number in
 * (0, 1] is an error (the test exits 2): a typo must not silently run the
 * full size, or a zero size. */
double test_size_scale(void);
/* n * test_size_scale(), rounded up, at least `least` (and never more
 * than n): frame, bit, error and run counts. */
uint64_t test_scaled(uint64_t n, uint64_t least);
/* A statistical tolerance for a check over test_scaled() samples: tol at
 * full size, tol / sqrt(test_size_scale()) below it (a mean's spread grows
 * as one over the root of the sample count), so a check that holds with a
 * margin at full size holds with the same margin, in standard errors,
 * scaled. */
double test_widened(double tol);

/* OFDMSIM_SMALL set, and neither empty nor "0": the GPU tests' smaller run
 * for compute-sanitizer (scripts/gpu-check.sh sets OFDMSIM_SMALL=1), which
 * slows kernels 10-100 times; each test says what it leaves out. */
int test_small_mode(void);

/* Exit code a test uses when it cannot run here (no GPU): ctest's skip. */
#define TEST_SKIP 77

#ifdef __cplusplus
}
#endif
#endif
