/* soft_demap_block (equalizer/demap_block.h, the CPU's symbols in vector
 * lanes) against soft_demap symbol by symbol: every LLR equal bit for bit
 * (the sign of a zero included), max-log and exact, every constellation
 * size, on hostile inputs (NaN, infinities, zeros of both signs, huge and
 * tiny components, points on and next to the decision thresholds, var <= 0,
 * NaN, subnormal, below SOFT_VAR_MIN, +inf), over run lengths around the
 * vector width and with a row stride past the run. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/qam.h"
#include "equalizer/demap_block.h"
#include "equalizer/soft.h"
#include "testutil.h"

static double uni(double a, double b) { return a + (b - a) * test_rng_u01(); }

/* One component: on, next to, or near a decision threshold or a level of an
 * L-level PAM of half-spacing s, or one of the special values. */
static float component(int levels, float s) {
  const uint64_t r = test_rng_u64();
  const int m = (int)((r >> 8) % (uint64_t)(2 * levels + 1)) - levels; /* a multiple of s */
  const float at = (float)m * s;
  switch (r % 16) {
    case 0: return (r & 64) ? -0.0f : 0.0f;
    case 1: return (r & 64) ? NAN : -NAN;
    case 2: return (r & 64) ? INFINITY : -INFINITY;
    case 3: return (float)((r & 64) ? 1 : -1) * (float)uni(1e6, 1e30); /* past SOFT_Z_MAX */
    case 4: return (r & 64) ? SOFT_Z_MAX : nextafterf(-SOFT_Z_MAX, 0.0f);
    case 5: return at; /* a level or a threshold exactly */
    case 6: return nextafterf(at, (r & 64) ? INFINITY : -INFINITY);
    case 7: return at + (float)uni(-1e-5, 1e-5);
    case 8: return (float)uni(-1e-30, 1e-30);
    default: return (float)uni(-1.6, 1.6); /* over the box and a little past it */
  }
}

static float variance(void) {
  const uint64_t r = test_rng_u64();
  switch (r % 16) {
    case 0: return (r & 64) ? 0.0f : -0.0f;
    case 1: return (r & 64) ? -1.0f : NAN;
    case 2: return INFINITY;
    case 3: return 1e-40f; /* subnormal */
    case 4: return SOFT_VAR_MIN * (float)uni(0.1, 3.0);
    case 5: return (float)uni(1e6, 1e30);
    default: return (float)pow(10.0, uni(-4.0, 1.0)); /* the realistic range */
  }
}

/* Every (bps, exact) over runs of several lengths and offsets: bad LLRs
 * (not equal bit for bit), and how many were checked. */
static void test_against_scalar(void) {
  enum { N = 700, LD = N + 5 };
  static cf32 z[N];
  static float var[N], got[SOFT_MAX_BPS * LD];
  static const int sizes[] = {1, 2, 4, 6, 8, 3};
  static const size_t lengths[] = {0, 1, 15, 16, 17, 31, 33, 64, N - 3};
  for (int si = 0; si < (int)(sizeof sizes / sizeof *sizes); si++) {
    const int bps = sizes[si];
    const int levels = bps == 1 ? 2 : 1 << (bps / 2);
    const float s = qam_bps_valid(bps) ? qam_scale(bps) : 0.3f;
    size_t bad = 0, checked = 0, nonzero = 0;
    for (int exact = 0; exact < 2; exact++)
      for (size_t t = 0; t < sizeof lengths / sizeof *lengths; t++) {
        const size_t n = lengths[t], at = t % 3;
        for (size_t i = 0; i < N; i++) {
          z[i] = cf_make(component(levels, s), component(levels, s));
          var[i] = variance();
        }
        for (size_t i = 0; i < SOFT_MAX_BPS * LD; i++) got[i] = 12345.0f;
        soft_demap_block(bps, n, z + at, var + at, exact, got, LD);
        for (size_t i = 0; i < n; i++) {
          float want[SOFT_MAX_BPS];
          soft_demap(bps, z[at + i], var[at + i], exact, want);
          for (int k = 0; k < bps; k++, checked++) {
            bad += memcmp(&want[k], &got[(size_t)k * LD + i], sizeof(float)) != 0;
            nonzero += want[k] != 0.0f && isfinite(want[k]);
          }
        }
        /* nothing written past the run */
        for (int k = 0; k < SOFT_MAX_BPS; k++)
          for (size_t i = n; i < LD; i++) bad += got[(size_t)k * LD + i] != 12345.0f;
      }
    CHECK(bad == 0 && checked > 1000 && (nonzero > checked / 4) == qam_bps_valid(bps),
          "bps %d: %zu of %zu LLRs differ from soft_demap's (%zu nonzero)", bps, bad, checked, nonzero);
  }
}

/* Whether a metric of z's levels (soft.h's E_k, in double) lies within 4 of
 * 104, where the exact LLRs' exponential turns +0 (soft_math.h). */
static int near_cut(int bps, cf32 z, float var) {
  const int levels = 1 << (bps / 2), top = levels - 1;
  const double s = qam_scale(bps);
  const float h = 0.5f * qam_inv_scale(bps);
  for (int dim = 0; dim < 2; dim++) {
    const float v = dim ? z.im : z.re;
    const int d = (int)qam_pam_index(v, h, levels);
    for (int k = 0; k < levels; k++) {
      const double ak = (2 * k - top) * s, ad = (2 * d - top) * s;
      if (fabs((ak - ad) * (ak + ad - 2.0 * v) / var - 104.0) < 4.0) return 1;
    }
  }
  return 0;
}

/* Realistic symbols: points plus noise at a var that puts the exact LLRs'
 * terms all over the exponential's range, the cutoff at -104 included. */
static void test_realistic(void) {
  enum { N = 4096 };
  static cf32 z[N];
  static float var[N], got[SOFT_MAX_BPS * N];
  static const int sizes[] = {2, 4, 6, 8};
  for (int si = 0; si < 4; si++) {
    const int bps = sizes[si];
    size_t bad = 0, cut = 0;
    for (int exact = 0; exact < 2; exact++) {
      for (size_t i = 0; i < N; i++) {
        const cf32 x = qam_map(bps, (uint32_t)(test_rng_u64() & ((1u << bps) - 1u)));
        var[i] = (float)pow(10.0, uni(-3.5, 0.0));
        double nr, ni;
        test_rng_cnormal(&nr, &ni);
        const double sd = sqrt(var[i]);
        z[i] = cf_make(x.re + (float)(sd * nr), x.im + (float)(sd * ni));
      }
      soft_demap_block(bps, N, z, var, exact, got, N);
      for (size_t i = 0; i < N; i++) {
        float want[SOFT_MAX_BPS];
        soft_demap(bps, z[i], var[i], exact, want);
        for (int k = 0; k < bps; k++) bad += memcmp(&want[k], &got[(size_t)k * N + i], sizeof(float)) != 0;
        cut += near_cut(bps, z[i], var[i]);
      }
    }
    CHECK(bad == 0 && cut > 50, "bps %d: %zu LLRs differ from soft_demap's (%zu symbols near the cut)", bps, bad,
          cut);
  }
}

/* soft_exact_zero_loss_from's claim: where a max-log LLR signed towards the
 * sent bit reaches it, the exact LLR signed the same way is at least
 * SOFT_LOSS_ZERO_FROM and its s = 1 loss 0 quanta; on realistic symbols
 * whose LLRs lie around the bound and on the hostile inputs. */
static void test_zero_loss_from(void) {
  static const int sizes[] = {1, 2, 4, 6, 8};
  for (int si = 0; si < 5; si++) {
    const int bps = sizes[si];
    const float from = soft_exact_zero_loss_from(bps);
    size_t bad = 0, near = 0, settled = 0;
    for (int i = 0; i < 400000; i++) {
      const uint32_t lab = (uint32_t)(test_rng_u64() & ((1u << bps) - 1u));
      cf32 z;
      float var;
      if (i % 8 == 7) { /* hostile */
        z = cf_make(component(1 << (bps + 1) / 2, qam_scale(bps)), component(1 << bps / 2, qam_scale(bps)));
        var = variance();
      } else {
        const cf32 x = qam_map(bps, lab);
        /* the adjacent levels' metric gap (2s)^2 / var about 20: LLRs
         * around the bound */
        const double s2 = 4.0 * (double)qam_scale(bps) * (double)qam_scale(bps);
        var = (float)(s2 / 20.0 * pow(10.0, uni(-0.7, 0.7)));
        double nr, ni;
        test_rng_cnormal(&nr, &ni);
        const double sd = sqrt(var);
        z = cf_make(x.re + (float)(sd * nr), x.im + (float)(sd * ni));
      }
      float ml[SOFT_MAX_BPS], ex[SOFT_MAX_BPS];
      soft_demap(bps, z, var, 0, ml);
      soft_demap(bps, z, var, 1, ex);
      for (int k = 0; k < bps; k++) {
        const int b = (int)((lab >> k) & 1u);
        const float m = b ? ml[k] : -ml[k], e = b ? ex[k] : -ex[k];
        if (!(m >= from)) continue;
        settled++;
        near += m < from + 1.0f;
        bad += !(e >= SOFT_LOSS_ZERO_FROM) || soft_loss_q(ex[k], (uint32_t)b) != 0;
      }
    }
    CHECK(bad == 0 && near > 1000 && settled > 100000,
          "bps %d: %zu of %zu bits past soft_exact_zero_loss_from (%zu within 1 of it) have an exact LLR below "
          "SOFT_LOSS_ZERO_FROM or a loss",
          bps, bad, settled, near);
  }
  CHECK(isinf(soft_exact_zero_loss_from(3)) && isinf(soft_exact_zero_loss_from(0)),
        "a constellation size soft_demap does not take has a finite bound");
}

int main(void) {
  test_rng_seed(0xdea9b10cull);
  test_against_scalar();
  test_realistic();
  test_zero_loss_from();
  return test_finish("test_demap_block");
}
