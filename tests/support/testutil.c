#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int test_passed = 0, test_failed = 0;

int test_finish(const char *name) {
  printf("%s: %d passed, %d failed\n", name, test_passed, test_failed);
  if (test_passed == 0 && test_failed == 0) {
    fprintf(stderr, "%s: no check ran\n", name);
    return 1;
  }
  return test_failed ? 1 : 0;
}

static uint64_t test_rng_state = 0x9e3779b97f4a7c15ull;

void test_rng_seed(uint64_t seed) { test_rng_state = seed ? seed : 0x9e3779b97f4a7c15ull; }

uint64_t test_rng_save(void) { return test_rng_state; }

uint64_t test_rng_u64(void) {
  test_rng_state ^= test_rng_state >> 12;
  test_rng_state ^= test_rng_state << 25;
  test_rng_state ^= test_rng_state >> 27;
  return test_rng_state * 0x2545f4914f6cdd1dull;
}

double test_rng_u01(void) {
  return ((double)(test_rng_u64() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

void test_rng_cnormal(double *re, double *im) {
  const double r = sqrt(-log(test_rng_u01())), p = 6.283185307179586 * test_rng_u01();
  *re = r * cos(p);
  *im = r * sin(p);
}

uint64_t test_splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double test_splitmix_u01(uint64_t *s) {
  return ((double)(test_splitmix64(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double test_size_scale(void) {
  static double scale = 0.0;
  if (scale > 0.0) return scale;
  const char *v = getenv("OFDMSIM_TEST_SCALE");
  if (!v || !*v) return scale = 1.0;
  char *end;
  const double s = strtod(v, &end);
  if (*end || !(s > 0.0 && s <= 1.0)) {
    fprintf(stderr, "OFDMSIM_TEST_SCALE=%s: not a share in (0, 1]\n", v);
    exit(2);
  }
  fprintf(stderr, "(OFDMSIM_TEST_SCALE=%s: statistical sizes scaled down)\n", v);
  return scale = s;
}

uint64_t test_scaled(uint64_t n, uint64_t least) {
  const double s = test_size_scale();
  if (s >= 1.0) return n;
  uint64_t m = (uint64_t)ceil((double)n * s * (1.0 - 1e-12)); /* 20000 * 0.1 is 2000, not 2001 */
  if (m < least) m = least;
  return m < n ? m : n;
}

double test_widened(double tol) { return tol / sqrt(test_size_scale()); }

int test_small_mode(void) {
  const char *v = getenv("OFDMSIM_SMALL");
  return v && *v && strcmp(v, "0") != 0;
}
