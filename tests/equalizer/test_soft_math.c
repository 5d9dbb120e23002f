/* The host's exponential and logarithm of the exact LLRs
 * (equalizer/soft_math.h) against double exp and log: within 1 ulp and 0.5
 * ulp (correctly rounded but for a hair) of the true value over the floats
 * the demapper gives them (every 211th float of [-104, 0] for the
 * exponential, every one near its ends and in the subnormal results; every 61st of [2^-8, 2^8] for the logarithm and a
 * sweep of the rest of the positive floats), and the values the demapper's
 * sums and decisions rest on exactly: e^0 = 1, e^x = +0 below -104, ln 1 =
 * +0, and the special inputs. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "equalizer/soft_math.h"
#include "testutil.h"

/* |got - want| in units of the last place of float at want (2^-149 among
 * the subnormals). */
static double ulps(float got, double want) {
  const double a = fabs(want);
  int e;
  frexp(a, &e); /* a = f 2^e, f in [0.5, 1) */
  const double ulp = ldexp(1.0, (e - 24 < -149) ? -149 : e - 24);
  return fabs((double)got - want) / (a == 0.0 ? ldexp(1.0, -149) : ulp);
}

static float from_bits(uint32_t b) {
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

/* Floats are walked by their bit patterns: the magnitude's pattern grows
 * with the magnitude, so a stride over it skips that many floats. */
static void test_exp(void) {
  double worst = 0.0;
  float at = 0.0f;
  size_t count = 0;
  const uint32_t end = 0x42d00000u; /* 104.0f */
  /* every 211th float from 0 down to -104, and every float within 2^16
   * steps of both ends, of where e^x turns subnormal (-87.34), of -0.5 and
   * of ln2/2 (where the reduction's n changes) */
  for (uint32_t m = 0; m <= end; m += 211u, count++) {
    const float x = from_bits(0x80000000u | m);
    const double u = ulps(soft_expf_(x), exp((double)x));
    if (u > worst) worst = u, at = x;
  }
  static const uint32_t ends[] = {0x00000000u, 0x42cfffffu - 65536u, 0x42aeac50u - 32768u, 0x3f000000u - 32768u,
                                  0x3eb17218u - 32768u};
  for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
    for (uint32_t m = ends[i]; m < ends[i] + 65536u; m++, count++) {
      const float y = from_bits(0x80000000u | m);
      const double u = ulps(soft_expf_(y), exp((double)y));
      if (u > worst) worst = u, at = y;
    }
  printf("  soft_expf_: worst %.3f ulp at %.9g over %zu floats\n", worst, at, count);
  CHECK(worst <= 1.0 && count > 4000000, "soft_expf_: %.3f ulp at %.9g (more than 1)", worst, at);

  /* below -104 (to -2^127): +0 */
  size_t nonzero = 0, below = 0;
  for (uint32_t m = end + 1u; m < 0x7f000000u; m += 61u, below++) {
    const float e = soft_expf_(from_bits(0x80000000u | m));
    nonzero += e != 0.0f || signbit(e);
  }
  nonzero += soft_expf_(-INFINITY) != 0.0f || signbit(soft_expf_(-INFINITY));
  nonzero += soft_expf_(-3.0e38f) != 0.0f;
  CHECK(nonzero == 0 && below > 1000000, "soft_expf_ below -104: %zu of %zu not +0", nonzero, below);
  CHECK(soft_expf_(0.0f) == 1.0f && soft_expf_(-0.0f) == 1.0f, "soft_expf_(+-0) = 1");
  const float n = soft_expf_(NAN);
  CHECK(n != n, "soft_expf_(NaN) is NaN");
}

static void test_log(void) {
  double worst = 0.0;
  float at = 0.0f;
  size_t count = 0;
  /* every 61st float of [2^-8, 2^8], then every 4099th positive float,
   * subnormals included */
  for (uint32_t b = 0x3b800000u; b <= 0x43800000u; b += 61u, count++) {
    const float x = from_bits(b);
    const double u = ulps(soft_logf_(x), log((double)x));
    if (u > worst) worst = u, at = x;
  }
  for (uint32_t b = 1; b < 0x7f800000u; b += 4099u, count++) {
    const float x = from_bits(b);
    const double u = ulps(soft_logf_(x), log((double)x));
    if (u > worst) worst = u, at = x;
  }
  printf("  soft_logf_: worst %.3f ulp at %.9g over %zu floats\n", worst, at, count);
  CHECK(worst <= 0.5001 && count > 1000000, "soft_logf_: %.3f ulp at %.9g (more than 0.5001)", worst, at);
  const float l1 = soft_logf_(1.0f);
  CHECK(l1 == 0.0f && !signbit(l1), "soft_logf_(1) = +0");
  CHECK(soft_logf_(INFINITY) == INFINITY, "soft_logf_(+inf) = +inf");
  CHECK(soft_logf_(0.0f) == -INFINITY && soft_logf_(-0.0f) == -INFINITY, "soft_logf_(+-0) = -inf");
  const float a = soft_logf_(-1.0f), b = soft_logf_(NAN);
  CHECK(a != a && b != b, "soft_logf_ of a negative number or NaN is NaN");
}

int main(void) {
  test_exp();
  test_log();
  return test_finish("test_soft_math");
}
