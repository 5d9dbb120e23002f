/* Soft demapping and the GMI bit loss (equalizer/soft.h): exact and max-log
 * LLRs against a double-precision brute force over all M constellation
 * points (the 2-D sums, not the separable form the code uses), the decisions
 * the LLRs carry, the input edge cases, the quantised loss against a long
 * double reference, the post-equalisation variance, and the BICM capacity
 * reference (tests/support/bicm_ref.h) against independent computations and
 * against the mean GMI loss of exact LLRs on AWGN. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bicm_ref.h"
#include "core/qam.h"
#include "equalizer/soft.h"
#include "equalizer/soft_block.h"
#include "testutil.h"

#define U24 (1.0 / 16777216.0) /* float unit roundoff 2^-24 */
#define SAMPLES 40000          /* random (z, var) per bps */
#define PI 3.14159265358979323846

static const int all_bps[5] = {1, 2, 4, 6, 8};

/* Largest amplitude per dimension, (L-1) s (BPSK: 1). */
static double amax(int bps) {
  if (bps == 1) return 1.0;
  return (double)((1 << (bps / 2)) - 1) * qam_scale(bps);
}

/* --- the brute force ------------------------------------------------------ */
/* Over all M = 2^bps points x (qam_map's float values, in double): metric
 * d = |z - x|^2 / var; per label bit k and value b the smallest metric and the
 * log-sum-exp of -d shifted by it.  exact = LSE_1 - LSE_0, maxlog =
 * min_0 - min_1. */
static void brute(int bps, cf32 z, double var, double *exact, double *maxlog) {
  const int M = 1 << bps;
  double d[256];
  for (int x = 0; x < M; x++) {
    const cf32 p = qam_map(bps, (uint32_t)x);
    const double dr = (double)z.re - p.re, di = (double)z.im - p.im;
    d[x] = (dr * dr + di * di) / var;
  }
  for (int k = 0; k < bps; k++) {
    double mn[2] = {INFINITY, INFINITY}, s[2] = {0.0, 0.0};
    for (int x = 0; x < M; x++) {
      const int b = (x >> k) & 1;
      mn[b] = d[x] < mn[b] ? d[x] : mn[b];
    }
    for (int x = 0; x < M; x++) {
      const int b = (x >> k) & 1;
      s[b] += exp(mn[b] - d[x]);
    }
    maxlog[k] = mn[0] - mn[1];
    exact[k] = (mn[0] - mn[1]) + log(s[1] / s[0]);
  }
}

/* Distance from v to the nearest threshold of bit j of an L-level Gray PAM
 * (midpoints between adjacent levels whose bit j differs). */
static double threshold_distance(int levels, double s, int j, double v) {
  double best = INFINITY;
  for (int m = 0; m + 1 < levels; m++) {
    const unsigned g0 = (unsigned)(m ^ (m >> 1)), g1 = (unsigned)((m + 1) ^ ((m + 1) >> 1));
    if (((g0 >> j) & 1u) == ((g1 >> j) & 1u)) continue;
    const double t = (double)(2 * m + 1 - (levels - 1)) * s;
    best = fmin(best, fabs(v - t));
  }
  return best;
}

/* --- random inputs ---------------------------------------------------------- */
static double uni(double a, double b) { return a + (b - a) * test_rng_u01(); }

/* A threshold position of a dimension of this constellation, plus a small
 * (sometimes zero) offset: the band where decisions and signs are decided. */
static float near_threshold(int bps) {
  const int levels = bps == 1 ? 2 : 1 << (bps / 2);
  const double s = qam_scale(bps);
  const int m = (int)(test_rng_u01() * (levels - 1));
  const double t = (double)(2 * m + 1 - (levels - 1)) * s;
  const int kind = (int)(test_rng_u01() * 4);
  double off = 0.0;
  if (kind == 1) off = s * pow(10.0, uni(-7.0, -1.0));
  if (kind == 2) off = -s * pow(10.0, uni(-7.0, -1.0));
  if (kind == 3) off = s * uni(-0.5, 0.5);
  return (float)(t + off);
}

/* z: a point plus CN(0, var) noise, uniform over 1.5x the constellation's box,
 * on or near thresholds, or far out (|z| up to 1e3). */
static cf32 draw_z(int bps, double var) {
  const double A = amax(bps);
  const int kind = (int)(test_rng_u01() * 4);
  double re, im;
  switch (kind) {
    case 0: {
      const cf32 x = qam_map(bps, (uint32_t)(test_rng_u64() & ((1u << bps) - 1u)));
      test_rng_cnormal(&re, &im);
      const double sd = sqrt(fmin(var, 100.0));
      return cf_make((float)(x.re + sd * re), (float)(x.im + sd * im));
    }
    case 1: return cf_make((float)uni(-1.5 * A, 1.5 * A), (float)uni(-1.5 * A, 1.5 * A));
    case 2: {
      cf32 z = cf_make(near_threshold(bps), near_threshold(bps));
      if (test_rng_u01() < 0.5) z.im = (float)uni(-1.5 * A, 1.5 * A);
      else z.re = (float)uni(-1.5 * A, 1.5 * A);
      return z;
    }
    default: return cf_make((float)uni(-1e3, 1e3), (float)uni(-1e3, 1e3));
  }
}

static double draw_var(void) {
  const double u = test_rng_u01();
  if (u < 0.05) return pow(10.0, uni(-20.0, -8.0)); /* tiny */
  if (u < 0.10) return pow(10.0, uni(4.0, 10.0));   /* huge */
  return pow(10.0, uni(-8.0, 4.0));
}

/* --- LLRs against the brute force ------------------------------------------ */
/* Tolerance.  The float LLR is a difference of metrics E_k = (a_k - a_d)
 * (a_k + a_d - 2v) / var, each with an absolute error of a few ulps of
 * |a_k - a_d| (|a_k + a_d| + 2|v|) / var <= S = 4 A (A + |v|) / var (A the
 * largest amplitude); the decision threshold qam_demap rounds sits within
 * about the same (it decides max-log's sign and clamp).  Exact LLRs add
 * ln(S_own / S_cnt) with S in [1, L/2] from expf and logf: an absolute error
 * of a few ulps of ln 8.  So
 *     |L - L_ref| <= TOL_S u S + TOL_R u |L_ref| + TOL_A,
 * TOL_S = 16 (four roundings of each of two metrics, doubled), TOL_R = 8,
 * TOL_A = 1e-6 (~16 ulps of ln 8).  The worst observed ratio to this bound is
 * printed; a wrong variance factor, bit order, sign or a missing term of the
 * sum misses it by orders of magnitude wherever |L| > 1e-4. */
#define TOL_S 16.0
#define TOL_R 8.0
#define TOL_A 1e-6

static void test_llr_vs_brute(int bps) {
  const int levels = bps == 1 ? 2 : 1 << (bps / 2);
  const double A = amax(bps), s = qam_scale(bps), lnh = log((double)levels / 2.0);
  size_t bad_exact = 0, bad_maxlog = 0, bad_sign = 0, mismatch = 0, bad_mismatch = 0, bad_l2 = 0;
  double worst_exact = 0.0, worst_maxlog = 0.0, worst_mis_dist = 0.0;
  for (int n = 0; n < SAMPLES; n++) {
    const double var = draw_var();
    const cf32 z = draw_z(bps, var);
    const float fv = (float)var;
    float le[SOFT_MAX_BPS], lm[SOFT_MAX_BPS];
    double re[SOFT_MAX_BPS], rm[SOFT_MAX_BPS];
    soft_demap(bps, z, fv, 1, le);
    soft_demap(bps, z, fv, 0, lm);
    brute(bps, z, (double)fv, re, rm);
    const uint32_t hard = qam_demap(bps, z);
    const double S = 4.0 * A * (A + fmax(fabs(z.re), fabs(z.im))) / (double)fv;
    for (int k = 0; k < bps; k++) {
      const double tol_e = TOL_S * U24 * S + TOL_R * U24 * fabs(re[k]) + TOL_A;
      const double tol_m = TOL_S * U24 * S + TOL_R * U24 * fabs(rm[k]) + TOL_A;
      const double ee = fabs(le[k] - re[k]), em = fabs(lm[k] - rm[k]);
      worst_exact = fmax(worst_exact, ee / tol_e);
      worst_maxlog = fmax(worst_maxlog, em / tol_m);
      if (!(ee <= tol_e)) {
        if (bad_exact++ < 5)
          fprintf(stderr, "bps=%d z=(%.9g,%.9g) var=%.6g bit %d: exact %.9g, brute %.9g\n", bps, z.re, z.im, var,
                  k, le[k], re[k]);
      }
      if (!(em <= tol_m)) {
        if (bad_maxlog++ < 5)
          fprintf(stderr, "bps=%d z=(%.9g,%.9g) var=%.6g bit %d: max-log %.9g, brute %.9g\n", bps, z.re, z.im,
                  var, k, lm[k], rm[k]);
      }
      /* max-log's decision is qam_demap's, always */
      const uint32_t hb = (hard >> k) & 1u;
      if ((uint32_t)!signbit(lm[k]) != hb) bad_sign++;
      /* exact (MAP) decision: differs only where |max-log| <= ln(L/2), i.e.
       * within var ln(L/2) / (4s) of one of the bit's thresholds (plus the
       * rounding band of the decision itself) */
      if ((uint32_t)!signbit(le[k]) != hb) {
        mismatch++;
        const int q = bps > 1 && k < bps / 2; /* Q bit */
        const int j = bps == 1 ? 0 : (q ? k : k - bps / 2);
        const double v = q ? z.im : z.re;
        const double dist = threshold_distance(levels, s, j, v);
        const double slack = 8.0 * U24 * (fabs(v) + A);
        const double reach = (double)fv * lnh / (4.0 * s);
        worst_mis_dist = fmax(worst_mis_dist, dist / (reach + slack));
        if (!(fabs(rm[k]) <= lnh + tol_m) || !(dist <= reach + slack)) {
          if (bad_mismatch++ < 5)
            fprintf(stderr, "bps=%d z=(%.9g,%.9g) var=%.6g bit %d: exact sign differs %.3g from a threshold "
                    "(max-log %.6g)\n", bps, z.re, z.im, var, k, dist, rm[k]);
        }
      }
      /* L = 2: one level per class, exact = max-log (which clamps at 0) */
      if (levels == 2 && !(le[k] == lm[k] || (lm[k] == 0.0f && fabsf(le[k]) <= tol_e))) bad_l2++;
    }
  }
  printf("bps=%d: worst |err|/tol exact %.3f, max-log %.3f; %zu exact-sign/hard mismatches "
         "(worst distance / allowed %.3f)\n", bps, worst_exact, worst_maxlog, mismatch, worst_mis_dist);
  CHECK(bad_exact == 0, "bps=%d: %zu exact LLRs off the brute force", bps, bad_exact);
  CHECK(bad_maxlog == 0, "bps=%d: %zu max-log LLRs off the brute force", bps, bad_maxlog);
  CHECK(bad_sign == 0, "bps=%d: %zu max-log signs differ from qam_demap", bps, bad_sign);
  CHECK(bad_mismatch == 0, "bps=%d: %zu exact-sign mismatches away from a threshold", bps, bad_mismatch);
  CHECK(bad_l2 == 0, "bps=%d: %zu exact LLRs differ from max-log with one level per class", bps, bad_l2);
  /* for L >= 4 the MAP decision does differ near thresholds at large var:
   * the test sees some (its mismatch check is not vacuous) */
  if (levels >= 4) CHECK(mismatch > 0, "bps=%d: no MAP/nearest-point mismatch seen at all", bps);
}

/* Exactly on thresholds, and at the extremes of the rounding band: max-log
 * signs follow qam_demap (ties to the higher level) on every float within a
 * few ulps of each threshold. */
static void test_threshold_ties(void) {
  size_t bad = 0, n = 0;
  for (int bi = 0; bi < 5; bi++) {
    const int bps = all_bps[bi], levels = bps == 1 ? 2 : 1 << (bps / 2);
    const double s = qam_scale(bps);
    for (int m = 0; m + 1 < levels; m++) {
      float t = (float)((double)(2 * m + 1 - (levels - 1)) * s);
      for (int u = 0; u < 64; u++) t = nextafterf(t, -INFINITY);
      for (int u = 0; u < 129; u++, t = nextafterf(t, INFINITY)) {
        const cf32 zs[2] = {cf_make(t, 0.3f * (float)s), cf_make(-0.1f, t)};
        for (int c = 0; c < 2; c++) {
          const float vars[3] = {1.0f, 1e-6f, 1e-20f};
          for (int vi = 0; vi < 3; vi++) {
            float l[SOFT_MAX_BPS];
            soft_demap(bps, zs[c], vars[vi], 0, l);
            const uint32_t hard = qam_demap(bps, zs[c]);
            for (int k = 0; k < bps; k++, n++)
              if ((uint32_t)!signbit(l[k]) != ((hard >> k) & 1u)) bad++;
          }
        }
      }
    }
  }
  CHECK(bad == 0, "%zu of %zu max-log signs at thresholds differ from qam_demap", bad, n);
}

static int same_bits(const float *a, const float *b, int n) { return memcmp(a, b, sizeof(float) * (size_t)n) == 0; }

/* var <= 0, NaN, Inf and below SOFT_VAR_MIN; z NaN and infinite; invalid bps. */
static void test_edge_inputs(void) {
  for (int bi = 0; bi < 5; bi++) {
    const int bps = all_bps[bi];
    for (int n = 0; n < 200; n++) {
      const cf32 z = draw_z(bps, 1.0);
      const uint32_t hard = qam_demap(bps, z);
      for (int exact = 0; exact < 2; exact++) {
        float ref[SOFT_MAX_BPS], l[SOFT_MAX_BPS];
        soft_demap(bps, z, SOFT_VAR_MIN, exact, ref);
        soft_demap(bps, z, 0.0f, exact, l);
        CHECK(same_bits(ref, l, bps), "bps=%d: var = 0 is not the noiseless limit SOFT_VAR_MIN", bps);
        soft_demap(bps, z, -0.0f, exact, l);
        CHECK(same_bits(ref, l, bps), "bps=%d: var = -0 is not the noiseless limit", bps);
        soft_demap(bps, z, 1e-44f, exact, l); /* subnormal: 1/var would overflow */
        CHECK(same_bits(ref, l, bps), "bps=%d: var below SOFT_VAR_MIN is not raised to it", bps);
        int finite = 1;
        for (int k = 0; k < bps; k++) finite &= isfinite(ref[k]) && ((uint32_t)!signbit(ref[k]) == ((hard >> k) & 1u) || exact);
        CHECK(finite, "bps=%d: noiseless LLRs not finite or not the hard decision", bps);
        const float erase[4] = {-1.0f, -1e-30f, NAN, INFINITY};
        for (int e = 0; e < 4; e++) {
          soft_demap(bps, z, erase[e], exact, l);
          int ok = 1;
          for (int k = 0; k < bps; k++) ok &= l[k] == 0.0f && (uint32_t)!signbit(l[k]) == ((hard >> k) & 1u);
          CHECK(ok, "bps=%d var=%g exact=%d: not an erasure carrying the decision", bps, erase[e], exact);
        }
      }
    }
    /* non-finite z: finite LLRs whose max-log decisions are qam_demap's */
    const float bad[5] = {NAN, INFINITY, -INFINITY, 3e38f, -3e38f};
    for (int a = 0; a < 5; a++)
      for (int b = 0; b < 5; b++) {
        const cf32 z = cf_make(bad[a], bad[b]);
        const uint32_t hard = qam_demap(bps, z);
        for (int exact = 0; exact < 2; exact++) {
          const float vars[3] = {1.0f, 1e-30f, 1e10f};
          for (int vi = 0; vi < 3; vi++) {
            float l[SOFT_MAX_BPS], l2[SOFT_MAX_BPS];
            soft_demap(bps, z, vars[vi], exact, l);
            soft_demap(bps, z, vars[vi], exact, l2);
            int ok = same_bits(l, l2, bps);
            for (int k = 0; k < bps; k++) {
              ok &= isfinite(l[k]);
              if (!exact) ok &= (uint32_t)!signbit(l[k]) == ((hard >> k) & 1u);
            }
            CHECK(ok, "bps=%d z=(%g,%g) var=%g exact=%d: not finite/deterministic/qam_demap's", bps, z.re, z.im,
                  vars[vi], exact);
          }
        }
      }
  }
  /* an unsupported bps: zeros for k < bps, nothing beyond */
  float l[SOFT_MAX_BPS + 1];
  for (int k = 0; k <= SOFT_MAX_BPS; k++) l[k] = 7.0f;
  soft_demap(3, cf_make(0.5f, 0.5f), 1.0f, 1, l);
  CHECK(l[0] == 0.0f && l[1] == 0.0f && l[2] == 0.0f && l[3] == 7.0f, "bps=3: expected zeros then untouched");
}

/* Symmetries of the exact LLRs: conjugating z swaps nothing for I bits and
 * mirrors Q levels; negating a dimension maps level idx to L-1-idx, whose Gray
 * label differs exactly in the top bit of the dimension (reflected code):
 * the top bit's LLR flips sign, the others keep it. */
static void test_mirror(void) {
  size_t bad = 0;
  for (int bi = 1; bi < 5; bi++) {
    const int bps = all_bps[bi], nb = bps / 2;
    for (int n = 0; n < 2000; n++) {
      const double var = pow(10.0, uni(-3.0, 1.0));
      const cf32 z = draw_z(bps, var);
      float a[SOFT_MAX_BPS], b[SOFT_MAX_BPS];
      soft_demap(bps, z, (float)var, 1, a);
      soft_demap(bps, cf_make(-z.re, z.im), (float)var, 1, b);
      for (int k = 0; k < bps; k++) {
        const int top_i = k == bps - 1, is_i = k >= nb;
        const float want = is_i && top_i ? -a[k] : a[k];
        if (is_i ? fabsf(b[k] - want) > 1e-4f * (1.0f + fabsf(want)) : b[k] != a[k]) bad++;
      }
    }
  }
  CHECK(bad == 0, "%zu LLRs break the mirror symmetry", bad);
}

/* --- GMI loss ---------------------------------------------------------------- */
static long double ref_loss_quanta(float llr, uint32_t bit) {
  long double l = llr != llr ? 0.0L : (long double)llr;
  l = l > 64.0L ? 64.0L : (l < -64.0L ? -64.0L : l);
  const long double m = bit ? l : -l;
  return log2l(1.0L + expl(-m)) * 16777216.0L;
}

static void test_loss(void) {
  /* against long double, everywhere: within one quantum (rounding: 0.5) */
  long double worst = 0.0L;
  size_t bad = 0;
  for (int n = 0; n < 400000; n++) {
    float l;
    const double u = test_rng_u01();
    if (u < 0.6) l = (float)uni(-80.0, 80.0);
    else if (u < 0.8) l = (float)uni(-2.0, 2.0);
    else if (u < 0.95) l = (float)(pow(10.0, uni(-30.0, 1.0)) * (test_rng_u01() < 0.5 ? -1 : 1));
    else l = (float)(pow(10.0, uni(1.8, 38.0)) * (test_rng_u01() < 0.5 ? -1 : 1));
    for (uint32_t b = 0; b < 2; b++) {
      const uint32_t q = soft_loss_q(l, b);
      const long double d = fabsl((long double)q - ref_loss_quanta(l, b));
      worst = d > worst ? d : worst;
      if (!(d <= 1.0L)) bad++;
      if (soft_loss_q(-l, b ^ 1u) != q) bad++; /* symmetric exactly */
    }
  }
  printf("soft_loss_q: worst |q - exact| = %.4Lf quanta\n", worst);
  CHECK(bad == 0 && worst <= 0.5L + 1e-6L, "%zu losses more than a quantum off (worst %.4Lf)", bad, worst);
  /* known values and the clip */
  CHECK(soft_loss_q(0.0f, 0) == 16777216u && soft_loss_q(0.0f, 1) == 16777216u && soft_loss_q(-0.0f, 1) == 16777216u,
        "L = 0 must cost exactly one bit");
  CHECK(soft_loss_q(NAN, 0) == 16777216u && soft_loss_q(NAN, 1) == 16777216u, "a NaN LLR must count as an erasure");
  const uint32_t top = soft_loss_q(-SOFT_LLR_CLIP, 1);
  const long double want_top = (64.0L + log1pl(expl(-64.0L))) / logl(2.0L) * 16777216.0L;
  CHECK(fabsl((long double)top - want_top) <= 0.5L, "clip loss %u, expected %.1Lf", top, want_top);
  CHECK((uint64_t)top < ((uint64_t)SOFT_LOSS_Q_MAX_BITS << SOFT_LOSS_SHIFT), "the static bound does not hold");
  const float big[6] = {64.0f, 64.5f, 100.0f, 1e30f, INFINITY, FLT_MAX};
  int clip_ok = 1;
  for (int i = 0; i < 6; i++) {
    clip_ok &= soft_loss_q(-big[i], 1) == top && soft_loss_q(big[i], 0) == top;
    clip_ok &= soft_loss_q(big[i], 1) == 0u && soft_loss_q(-big[i], 0) == 0u;
  }
  CHECK(clip_ok, "|L| >= SOFT_LLR_CLIP must give the clip's loss (wrong bit) or 0 (right bit)");
  CHECK(soft_loss_q(63.0f, 0) < top && soft_loss_q(-30.0f, 1) > 0u, "below the clip the loss still moves");
  /* monotone: every float step over [-70, 70] for bit 1 (and bit 0 mirrored) */
  size_t nonmono = 0, steps = 0;
  uint32_t prev1 = soft_loss_q(-70.0f, 1), prev0 = soft_loss_q(-70.0f, 0);
  for (float l = -70.0f; l < 70.0f; steps++) {
    l += fmaxf(fabsf(l) * 1e-5f, 1e-8f); /* log-spaced, then linear through 0 */
    const uint32_t q1 = soft_loss_q(l, 1), q0 = soft_loss_q(l, 0);
    if (q1 > prev1 || q0 < prev0) nonmono++;
    prev1 = q1;
    prev0 = q0;
  }
  CHECK(nonmono == 0 && steps > 1000000, "%zu non-monotone steps of %zu", nonmono, steps);
  /* soft_label_loss is the sum over the label's bits */
  size_t bad_sum = 0;
  for (int n = 0; n < 10000; n++) {
    const int bps = all_bps[n % 5];
    float l[SOFT_MAX_BPS];
    for (int k = 0; k < SOFT_MAX_BPS; k++) l[k] = (float)uni(-90.0, 90.0);
    const uint32_t lab = (uint32_t)(test_rng_u64() & ((1u << bps) - 1u));
    uint64_t want = 0;
    for (int k = 0; k < bps; k++) want += soft_loss_q(l[k], (lab >> k) & 1u);
    if (soft_label_loss(bps, l, lab) != want) bad_sum++;
  }
  CHECK(bad_sum == 0, "%zu label losses differ from the sum of bit losses", bad_sum);
}

/* soft_loss_q's own exponential and logarithm (soft.h: e^-a by range
 * reduction, log1p by the degree-9 fit) against long double over all of
 * [0, 64]: a uniform sweep with both ends, the range reduction's seams
 * (a = k ln2 / 2 a few ulps either side, where n steps and |x| is largest),
 * and a down to 1e-45 on a log scale (u = 1 to the last bit).  The bounds
 * are soft.h's: e^-a < 1.5e-15 relative, log(1 + e^-a) < 2e-15, which keeps
 * a bit's loss (< 2^24 quanta from this term) within 4e-8 quanta.  A float
 * evaluation (1e-7) or a short Taylor series without range reduction fails
 * them by orders of magnitude. */
static void test_log1p_exp(void) {
  long double worst_e = 0.0L, worst_l = 0.0L;
  for (int i = 0; i <= 3000000; i++) {
    double a;
    if (i <= 1000000) a = 64.0 * (double)i / 1000000.0;
    else if (i <= 2000000) a = pow(10.0, -45.0 + 46.8 * (double)(i - 1000001) / 1000000.0);
    else {
      const int k = (i - 2000001) / 11, d = (i - 2000001) % 11 - 5; /* seam k, d ulps off */
      a = nextafter(0.34657359027997264 * k, d < 0 ? 0.0 : 128.0);
      for (int j = 1; j < (d < 0 ? -d : d); j++) a = nextafter(a, d < 0 ? 0.0 : 128.0);
      if (d == 0) a = 0.34657359027997264 * k;
    }
    if (a > 64.0) a = 64.0;
    const long double e = expl(-(long double)a), want = log1pl(e);
    const long double re = fabsl((long double)soft_exp_neg_(a) / e - 1.0L);
    const long double rl = fabsl((long double)soft_log1p_exp_(a) / want - 1.0L);
    worst_e = re > worst_e ? re : worst_e;
    worst_l = rl > worst_l ? rl : worst_l;
  }
  printf("soft_exp_neg_: worst relative error %.3Le; soft_log1p_exp_: %.3Le\n", worst_e, worst_l);
  CHECK(worst_e < 1.5e-15L, "soft_exp_neg_ off by %.3Le relative", worst_e);
  CHECK(worst_l < 2e-15L, "soft_log1p_exp_ off by %.3Le relative", worst_l);
  CHECK(soft_exp_neg_(0.0) == 1.0 && soft_exp_neg_(0.6931471805599453) == 0.5 && soft_exp_neg_(64.0) > 0.0,
        "e^-0 must be 1 and e^-ln2 one half exactly");
}

/* soft_loss_q against the correctly rounded quantum count, without draws:
 * |L| on a log scale from float's subnormals (1e-45) to the clip, then
 * linearly over [56, 64.5] (the largest exponent steps), both bits, both
 * signs.  The evaluation is within ~2e-7 quanta of exact, so it rounds
 * otherwise only when the exact value lies that close to a half quantum:
 * expected ~0.2 of these 1.2 million, allowed 2.  A loss evaluated to 1e-9
 * relative (a float exponential, say) misses by a quantum or more. */
static void test_loss_rounding(void) {
  long double worst = 0.0L;
  size_t off = 0, n = 0;
  for (int i = 0; i < 300000; i++) {
    const float mag = i < 200000 ? (float)pow(10.0, -45.0 + 46.8063 * i / 200000.0) : 56.0f + 8.5f * (float)(i - 200000) / 100000.0f;
    for (int sgn = 0; sgn < 2; sgn++)
      for (uint32_t b = 0; b < 2; b++, n++) {
        const float l = sgn ? -mag : mag;
        const long double exact = ref_loss_quanta(l, b);
        const uint32_t q = soft_loss_q(l, b);
        const long double d = fabsl((long double)q - exact);
        worst = d > worst ? d : worst;
        if ((long double)q != floorl(exact + 0.5L)) off++;
      }
  }
  printf("soft_loss_q: %zu of %zu not the correctly rounded count, worst |q - exact| = %.7Lf\n", off, n, worst);
  CHECK(off <= 2 && worst <= 0.5L + 1e-6L, "%zu of %zu losses not correctly rounded (worst %.7Lf quanta)", off, n, worst);
}

/* --- The loss at the GMI grid's scalings --------------------------------------
 * soft_grid_bit_ computes its own exponential and logarithm (so that the CPU
 * and the GPU agree bit for bit): against long double log2(1 + e^-(s m))
 * everywhere within one quantum (rounding 0.5, the series < 1e-3 quanta, and
 * the tail cut below half a quantum), s = 1 left to soft_loss_q, which
 * soft_label_loss_grid puts in grid[GMI_GRID_S1] unchanged. */
static long double ref_grid_quanta(float llr, uint32_t bit, double s) {
  long double l = llr != llr ? 0.0L : (long double)llr;
  l = l > 64.0L ? 64.0L : (l < -64.0L ? -64.0L : l);
  const long double x = (long double)s * (bit ? l : -l);
  const long double nats = (x < 0 ? -x : 0.0L) + log1pl(expl(-fabsl(x)));
  return nats / logl(2.0L) * 16777216.0L;
}

/* soft_log1p_unit_, the logarithm behind every grid loss: relative error
 * below 1e-13 against long double log1pl over all of [0, 1] (a uniform sweep
 * with both ends, and u down to 1e-300 on a log scale), and exactly 0 at 0.
 * The fit's own bound is 7e-14 (soft.h); the margin is the rounding of the
 * division and the fma chain.  At 1e-13 the loss of a bit, below ln 2 nats =
 * 2^24 quanta, is off by < 2e-6 quanta. */
static void test_log1p_unit(void) {
  long double worst = 0.0L;
  for (int i = 0; i <= 2000000; i++) {
    const double u = i <= 1000000 ? (double)i / 1000000.0 : pow(10.0, -300.0 * (double)(i - 1000000) / 1000000.0);
    const long double want = log1pl((long double)u);
    const long double got = (long double)soft_log1p_unit_(u);
    const long double rel = want == 0.0L ? fabsl(got) : fabsl(got / want - 1.0L);
    worst = rel > worst ? rel : worst;
  }
  printf("soft_log1p_unit_: worst relative error %.3Le\n", worst);
  CHECK(worst < 1e-13L, "soft_log1p_unit_ off by %.3Le relative", worst);
  CHECK(soft_log1p_unit_(0.0) == 0.0, "log1p(0) must be exactly 0 (the tail's cut relies on it)");
}

static void test_grid_loss(void) {
  CHECK(gmi_grid_s(GMI_GRID_S1) == 1.0 && gmi_grid_s(0) == 0.00390625 && gmi_grid_s(GMI_GRID - 1) == 8.0,
        "the grid runs from 2^-8 to 2^3 with s = 1 at GMI_GRID_S1");
  int spaced = 1;
  for (int k = 1; k < GMI_GRID; k++)
    spaced &= fabs(gmi_grid_s(k) / gmi_grid_s(k - 1) - 1.4142135623730951) < 1e-15;
  CHECK(spaced, "grid points half an octave apart");
  long double worst = 0.0L;
  size_t bad = 0, convex_bad = 0;
  for (int n = 0; n < 60000; n++) {
    float l;
    const double u = test_rng_u01();
    if (u < 0.5) l = (float)uni(-80.0, 80.0);
    else if (u < 0.9) l = (float)uni(-3.0, 3.0);
    else if (u < 0.95) l = (float)uni(-1e-3, 1e-3);
    else l = (float)(n & 1 ? NAN : 0.0);
    const uint32_t b = (uint32_t)(test_rng_u64() & 1u);
    double g[GMI_GRID] = {0};
    soft_grid_bit_(l, b, g);
    for (int k = 0; k < GMI_GRID; k++) {
      if (k == GMI_GRID_S1) {
        if (g[k] != 0) bad++; /* left to soft_loss_q */
        continue;
      }
      const long double d = fabsl((long double)g[k] - ref_grid_quanta(l, b, gmi_grid_s(k)));
      if (g[k] != floor(g[k])) bad++; /* whole quanta */
      if (d > worst) worst = d;
      if (d > 0.5L + 1e-3L) bad++;
    }
    /* a bit's loss is convex in s (so the GMI is concave): on a grid of ratio
     * r the slopes (f_{k+1} - f_k) / (s_k (r - 1)) grow, i.e. f_{k+1} - f_k
     * >= r (f_k - f_{k-1}), up to the quanta's rounding (< 3 quanta) */
    for (int k = 1; k + 1 < GMI_GRID; k++) {
      if (k - 1 == GMI_GRID_S1 || k == GMI_GRID_S1 || k + 1 == GMI_GRID_S1) continue;
      const double up = g[k + 1] - g[k], down = g[k] - g[k - 1];
      if (up < 1.4142135623730951 * down - 3.0) convex_bad++;
    }
  }
  printf("soft_grid_bit_: worst |q - exact| = %.4Lf quanta\n", worst);
  CHECK(bad == 0 && worst <= 0.5L + 1e-3L, "%zu grid losses more than half a quantum off (worst %.4Lf)", bad, worst);
  CHECK(convex_bad == 0, "%zu bits whose grid losses are not convex in s", convex_bad);
  /* an erasure costs one bit at every scaling */
  double g0[GMI_GRID] = {0};
  soft_grid_bit_(0.0f, 1, g0);
  int one_bit = 1;
  for (int k = 0; k < GMI_GRID; k++) one_bit &= k == GMI_GRID_S1 || g0[k] == 16777216.0;
  CHECK(one_bit, "a zero LLR must cost exactly one bit at every s");
  /* soft_label_loss_grid: s = 1 is soft_label_loss itself; the others add up bit by bit */
  size_t bad_sum = 0;
  for (int n = 0; n < 2000; n++) {
    const int bps = all_bps[n % 5];
    float l[SOFT_MAX_BPS];
    for (int k = 0; k < bps; k++) l[k] = (float)uni(-30.0, 30.0);
    const uint32_t lab = (uint32_t)(test_rng_u64() & ((1u << bps) - 1u));
    uint64_t g[GMI_GRID] = {0};
    double want[GMI_GRID] = {0};
    for (int k = 0; k < bps; k++) soft_grid_bit_(l[k], (lab >> k) & 1u, want);
    const uint64_t at1 = soft_label_loss_grid(bps, l, lab, g);
    for (int k = 0; k < GMI_GRID; k++)
      if (g[k] != (k == GMI_GRID_S1 ? soft_label_loss(bps, l, lab) : (uint64_t)want[k])) bad_sum++;
    if (at1 != soft_label_loss(bps, l, lab)) bad_sum++;
  }
  CHECK(bad_sum == 0, "%zu label grid losses differ from their bits' (or s = 1 from soft_label_loss)", bad_sum);
}

/* soft_grid_losses (the bits in vector lanes) against soft_grid_bit_ bit by
 * bit: the same quanta at every scaling, for every run length (the lanes
 * past its end must add nothing), on LLRs that reach the clip, the tail,
 * zero, NaN and infinities; s = 1's sum untouched. */
/* n LLRs of every kind a block function must take as the per-bit one does
 * (zeros of both signs, NaN, infinities, huge, the clip, just inside and
 * outside it, subnormals, tiny) and their sent bits. */
static void hostile_llrs(int n, float *l, uint8_t *b) {
  for (int i = 0; i < n; i++) {
    const uint64_t r = test_rng_u64();
    switch (r % 20) {
      case 0: l[i] = 0.0f; break;
      case 1: l[i] = (r & 16) ? -0.0f : NAN; break;
      case 2: l[i] = (r & 16) ? INFINITY : -INFINITY; break;
      case 3: l[i] = (float)uni(-1e6, 1e6); break;
      case 4: l[i] = (r & 16) ? 64.0f : -64.0f; break;
      case 5: l[i] = nextafterf((r & 16) ? 64.0f : -64.0f, (r & 32) ? 0.0f : INFINITY * ((r & 16) ? 1 : -1)); break;
      case 6: l[i] = (float)((r & 16) ? 1e-40 : -1e-42); break; /* subnormal */
      case 7: l[i] = (float)uni(-1e-6, 1e-6); break;
      default: l[i] = (float)uni(-70.0, 70.0); break;
    }
    b[i] = (uint8_t)((r >> 8) & 1u);
  }
}

/* soft_losses_q (the CPU's fused path, bits in vector lanes) against
 * soft_loss_q bit by bit, over lengths and starts around the vector width. */
static void test_loss_block(void) {
  enum { N = 9000 };
  static float l[N];
  static uint8_t b[N];
  static uint32_t q[N];
  hostile_llrs(N, l, b);
  static const size_t lengths[] = {0, 1, 7, 8, 9, 15, 16, 17, 23, 4095, 4096, 4097, N - 2};
  size_t bad = 0, checked = 0;
  for (size_t t = 0; t < sizeof lengths / sizeof *lengths; t++) {
    const size_t n = lengths[t], at = t % 3;
    for (size_t i = 0; i < n; i++) q[i] = 0xdeadbeefu;
    soft_losses_q(n, l + at, b + at, q);
    uint64_t want = 0;
    for (size_t i = 0; i < n; i++, checked++) {
      const uint32_t one = soft_loss_q(l[at + i], b[at + i]);
      bad += q[i] != one;
      want += one;
    }
    const uint64_t got = soft_losses_sum_q(n, l + at, b + at);
    CHECK(got == want, "soft_losses_sum_q of %zu bits: %llu quanta, soft_loss_q's sum %llu", n,
          (unsigned long long)got, (unsigned long long)want);
  }
  CHECK(bad == 0 && checked > 20000, "soft_losses_q: %zu of %zu quanta differ from soft_loss_q's", bad, checked);
}

/* soft_losses_q against soft_loss_q on every float LLR in [16, 64.5] and its
 * negative, both bits: where soft_losses_q gives right bits 0 quanta without
 * the series (from 18 up), every such bit, and the bits just below. */
static void test_loss_block_high(void) {
  enum { N = 4096 };
  static float l[N];
  static uint8_t b[N];
  static uint32_t q[N];
  size_t bad = 0, checked = 0, zeros = 0;
  float x = 16.0f;
  while (x <= 64.5f) {
    size_t n = 0;
    for (; n < N && x <= 64.5f; n += 4, x = nextafterf(x, INFINITY)) {
      l[n] = x, b[n] = 1;
      l[n + 1] = x, b[n + 1] = 0;
      l[n + 2] = -x, b[n + 2] = 0;
      l[n + 3] = -x, b[n + 3] = 1;
    }
    soft_losses_q(n, l, b, q);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++, checked++) {
      const uint32_t want = soft_loss_q(l[i], b[i]);
      bad += q[i] != want;
      zeros += want == 0;
      sum += want;
    }
    bad += soft_losses_sum_q(n, l, b) != sum;
  }
  CHECK(bad == 0 && checked > 60000000 && zeros > checked / 3,
        "soft_losses_q: %zu of %zu quanta differ from soft_loss_q's (%zu zeros)", bad, checked, zeros);
}

/* What the CPU's packed losses rest on (equalizer/soft_block.c): a bit's
 * quanta are soft_loss_q_clipped_ of its signed LLR at bit 1, on hostile
 * LLRs, and 0 for every float signed LLR from SOFT_LOSS_ZERO_FROM to the
 * clip (and 1 quantum or more just below it, so the bound is not loose by
 * more than a few ulp: checked at 17). */
static void test_loss_signed(void) {
  enum { N = 20000 };
  static float l[N];
  static uint8_t b[N];
  hostile_llrs(N, l, b);
  size_t bad = 0;
  for (int i = 0; i < N; i++)
    bad += soft_loss_q(l[i], b[i]) != soft_loss_q_clipped_(soft_signed_llr_(l[i], b[i]), 1u);
  CHECK(bad == 0, "soft_loss_q differs from the signed LLR's loss on %zu of %d bits", bad, N);
  size_t nonzero = 0, count = 0;
  for (float m = SOFT_LOSS_ZERO_FROM; m <= SOFT_LLR_CLIP; m = nextafterf(m, INFINITY), count++)
    nonzero += soft_loss_q_clipped_(m, 1u) != 0;
  CHECK(nonzero == 0 && count > 1000000, "%zu of %zu signed LLRs past SOFT_LOSS_ZERO_FROM have quanta", nonzero,
        count);
  CHECK(soft_loss_q_clipped_(17.0f, 1u) > 0, "the loss at 17 is at least a quantum");
}

static void test_grid_block(void) {
  enum { N = 9000 };
  static float l[N];
  static uint8_t b[N];
  hostile_llrs(N, l, b);
  static const size_t lengths[] = {0, 1, 7, 8, 9, 23, 4095, 4096, 4097, N};
  size_t bad = 0;
  for (size_t t = 0; t < sizeof lengths / sizeof *lengths; t++) {
    const size_t n = lengths[t], at = t % 3; /* runs that start off a vector's alignment too */
    if (at + n > N) continue;
    double want[GMI_GRID] = {0};
    for (size_t i = 0; i < n; i++) soft_grid_bit_(l[at + i], b[at + i], want);
    uint64_t got[GMI_GRID];
    for (int k = 0; k < GMI_GRID; k++) got[k] = 7;
    soft_grid_losses(n, l + at, b + at, got);
    for (int k = 0; k < GMI_GRID; k++)
      bad += got[k] != (k == GMI_GRID_S1 ? 7u : 7u + (uint64_t)want[k]);
  }
  CHECK(bad == 0, "%zu grid sums of soft_grid_losses differ from soft_grid_bit_'s", bad);
}

/* soft_grid_losses against soft_grid_bit_ on every 64th float LLR in
 * [2, 64.5], its negative, both bits, in runs of 4096 bits: where
 * soft_grid_losses leaves a right bit's larger scalings out (their quanta 0
 * from s |m| >= 18 up), every class of bit it sorts by, and the bits around
 * each class's bound. */
static void test_grid_block_high(void) {
  enum { N = 4096 };
  static float l[N];
  static uint8_t b[N];
  size_t bad = 0, runs = 0;
  float x = 2.0f;
  while (x <= 64.5f) {
    size_t n = 0;
    for (; n < N && x <= 64.5f; n += 4) {
      l[n] = x, b[n] = 1;
      l[n + 1] = x, b[n + 1] = 0;
      l[n + 2] = -x, b[n + 2] = 0;
      l[n + 3] = -x, b[n + 3] = 1;
      for (int step = 0; step < 64; step++) x = nextafterf(x, INFINITY);
    }
    double want[GMI_GRID] = {0};
    for (size_t i = 0; i < n; i++) soft_grid_bit_(l[i], b[i], want);
    uint64_t got[GMI_GRID] = {0};
    soft_grid_losses(n, l, b, got);
    for (int k = 0; k < GMI_GRID; k++) bad += got[k] != (k == GMI_GRID_S1 ? 0u : (uint64_t)want[k]);
    runs++;
  }
  CHECK(bad == 0 && runs > 500, "%zu grid sums of soft_grid_losses differ from soft_grid_bit_'s over %zu runs", bad,
        runs);
}

/* soft_grid_losses on runs where most right bits sit at the clip (which it
 * counts rather than computes: at high SNR most bits), beside hostile ones,
 * over lengths across its 512-bit blocks: the same sums as soft_grid_bit_
 * bit by bit, the right bits at the clip of either sign of LLR counted. */
static void test_grid_block_clip(void) {
  enum { N = 3000 };
  static float l[N];
  static uint8_t b[N];
  hostile_llrs(N, l, b);
  size_t at_clip = 0;
  for (int i = 0; i < N; i++)
    if (test_rng_u64() % 4) { /* three in four: right at the clip, or past it */
      b[i] = (uint8_t)(test_rng_u64() & 1u);
      const float mag = (i % 3) ? SOFT_LLR_CLIP : 1e4f;
      l[i] = b[i] ? mag : -mag;
      at_clip++;
    }
  static const size_t lengths[] = {1, 511, 512, 513, 1600, N};
  size_t bad = 0;
  for (size_t t = 0; t < sizeof lengths / sizeof *lengths; t++) {
    const size_t n = lengths[t];
    double want[GMI_GRID] = {0};
    for (size_t i = 0; i < n; i++) soft_grid_bit_(l[i], b[i], want);
    uint64_t got[GMI_GRID] = {0};
    soft_grid_losses(n, l, b, got);
    for (int k = 0; k < GMI_GRID; k++) bad += got[k] != (k == GMI_GRID_S1 ? 0u : (uint64_t)want[k]);
  }
  CHECK(bad == 0 && at_clip > N / 2, "%zu grid sums differ from soft_grid_bit_'s with %zu of %d bits at the clip",
        bad, at_clip, N);
}

static void test_post_var(void) {
  CHECK(soft_post_var(0, 0.25f, 2.0f) == 0.5f, "ZF n0 g");
  CHECK(soft_post_var(0, 0.0f, 3.0f) == 0.0f, "ZF without noise");
  CHECK(soft_post_var(1, 0.25f, 2.0f) == 1.0f, "MMSE: n0 g / (1 - n0 g) = 0.5 / 0.5");
  CHECK(soft_post_var(1, 0.125f, 2.0f) == 1.0f / 3.0f, "MMSE: 0.25 / 0.75");
  CHECK(soft_post_var(1, 0.5f, 0.25f) == 0.125f / 0.875f, "MMSE: 0.125 / 0.875");
  CHECK(soft_post_var(1, 0.0f, 5.0f) == 0.0f, "MMSE without noise");
  CHECK(isinf(soft_post_var(1, 1.0f, 1.0f)) && isinf(soft_post_var(1, 2.0f, 1.0f)), "MMSE n0 g >= 1: +inf");
  CHECK(isinf(soft_post_var(1, 1.0f, NAN)) && isnan(soft_post_var(0, 1.0f, NAN)), "NaN g");
  /* 1 / SINR: an MMSE stream of a 1x1 channel h with noise n0 has g = 1/(|h|^2 + n0),
   * SINR |h|^2 / n0 */
  const float h2 = 3.0f, n0 = 0.2f;
  const float v = soft_post_var(1, n0, 1.0f / (h2 + n0));
  CHECK(fabsf(v - n0 / h2) <= 4e-7f * (n0 / h2), "1x1 MMSE: %.9g, expected n0/|h|^2 = %.9g", v, n0 / h2);
}

/* --- BICM capacity reference ------------------------------------------------ */
/* BPSK on the real channel with noise variance sigma2, by a plain midpoint
 * Riemann sum over y (by symmetry x = +1):
 *   C = 1 - int N(y; 1, sigma2) log2(1 + exp(-2y/sigma2)) dy. */
static double bpsk_riemann(double sigma2) {
  const double sd = sqrt(sigma2), h = sd * 2e-4;
  double sum = 0.0;
  for (double y = 1.0 - 14.0 * sd + 0.5 * h; y < 1.0 + 14.0 * sd; y += h) {
    const double a = -2.0 * y / sigma2; /* log2(1 + e^a), stable */
    const double l = (a > 0.0 ? a + log1p(exp(-a)) : log1p(exp(a))) / log(2.0);
    sum += exp(-(y - 1.0) * (y - 1.0) / (2.0 * sigma2)) * l;
  }
  return 1.0 - sum * h / sqrt(2.0 * PI * sigma2);
}

/* Square QAM's BICM capacity by a 2-D midpoint sum over y with all M points
 * (no separability): sum_k I(b_k; y) = bps - (1/M) sum_x E log2(S_all / S_{b_k(x)}). */
static double qam_riemann_2d(int bps, double esn0_db) {
  const int M = 1 << bps;
  const double n0 = pow(10.0, -esn0_db / 10.0), sd = sqrt(n0 / 2.0), A = amax(bps);
  const double h = sd / 12.0, lo = -A - 9.0 * sd, hi = A + 9.0 * sd;
  double px[256], py[256];
  for (int x = 0; x < M; x++) {
    const cf32 p = qam_map(bps, (uint32_t)x);
    px[x] = p.re;
    py[x] = p.im;
  }
  double acc = 0.0;
  for (double yr = lo + 0.5 * h; yr < hi; yr += h)
    for (double yi = lo + 0.5 * h; yi < hi; yi += h) {
      double lik[256], all = 0.0, cls[8][2] = {{0}};
      for (int x = 0; x < M; x++) {
        const double dr = yr - px[x], di = yi - py[x];
        lik[x] = exp(-(dr * dr + di * di) / n0);
        all += lik[x];
        for (int k = 0; k < bps; k++) cls[k][(x >> k) & 1] += lik[x];
      }
      if (all < 1e-300) continue;
      for (int x = 0; x < M; x++) {
        if (lik[x] < 1e-30 * all) continue;
        double l = 0.0;
        for (int k = 0; k < bps; k++) l += log2(all / cls[k][(x >> k) & 1]);
        acc += lik[x] * l;
      }
    }
  return (double)bps - acc * h * h / (PI * n0) / (double)M;
}

static void test_bicm_reference(void) {
  /* BPSK at Es/N0 = 0 dB: the real channel with sigma^2 = N0/2 = 0.5 */
  const double c0 = bicm_capacity(1, 0.0), r0 = bpsk_riemann(0.5);
  printf("BICM: BPSK at Es/N0 = 0 dB %.9f (Riemann %.9f); at -3.0103 dB %.9f\n", c0, r0,
         bicm_capacity(1, -10.0 * log10(2.0)));
  CHECK(fabs(c0 - r0) < 1e-7, "BPSK 0 dB: %.9f vs Riemann %.9f", c0, r0);
  /* the textbook 0.4859 is the binary-input channel at unit SNR per real
   * dimension (sigma^2 = 1 = N0/2): Es/N0 = -3.0103 dB in this convention */
  const double ch = bicm_capacity(1, -10.0 * log10(2.0)), rh = bpsk_riemann(1.0);
  CHECK(fabs(ch - rh) < 1e-7 && fabs(ch - 0.4859) < 5e-5, "BPSK at unit real SNR: %.9f vs Riemann %.9f, ~0.4859",
        ch, rh);
  for (double x = -10.0; x <= 20.0; x += 5.0) {
    const double q = bicm_capacity(2, x), b = 2.0 * bicm_capacity(1, x - 10.0 * log10(2.0));
    CHECK(fabs(q - b) < 1e-9, "QPSK at %g dB %.12f != 2 x BPSK at -3.01 dB %.12f", x, q, b);
  }
  /* 16-QAM: increasing, below Shannon, to 4 at high SNR */
  double prev = 0.0;
  int ok = 1;
  for (double x = -10.0; x <= 40.0; x += 2.5) {
    const double c = bicm_capacity(4, x), shannon = log2(1.0 + pow(10.0, x / 10.0));
    /* strictly increasing until it saturates at 4 to double precision */
    ok &= (c > prev || c > 4.0 - 1e-12) && c < shannon && c <= 4.0 + 1e-12;
    prev = c;
  }
  CHECK(ok, "16-QAM capacity not increasing, or not below Shannon and 4");
  CHECK(fabs(bicm_capacity(4, 40.0) - 4.0) < 1e-9 && bicm_capacity(8, 50.0) > 8.0 - 1e-9, "QAM capacity must tend to bps");
  CHECK(isnan(bicm_capacity(3, 0.0)), "bps = 3 is not a constellation");
  /* the separable computation against the 2-D brute force (16- and 64-QAM) */
  const int qb[3] = {2, 4, 6};
  const double qx[3] = {0.0, 8.0, 15.0};
  for (int i = 0; i < 3; i++) {
    const double c = bicm_capacity(qb[i], qx[i]), r = qam_riemann_2d(qb[i], qx[i]);
    printf("BICM: %d-QAM at %g dB %.9f (2-D sum %.9f)\n", 1 << qb[i], qx[i], c, r);
    CHECK(fabs(c - r) < 1e-6, "%d-QAM at %g dB: %.9f vs 2-D sum %.9f", 1 << qb[i], qx[i], c, r);
  }
}

/* The mean GMI loss of exact LLRs on AWGN estimates the BICM capacity: for a
 * matched demapper E[1 - loss of a bit] = I(b; y) exactly.  A wrong variance
 * convention (var/2, 2 var) or bit order moves the estimate far outside the
 * statistical band. */
static void test_gmi_awgn(void) {
  const int bpsl[4] = {1, 2, 4, 6};
  const double snr[4] = {0.0, 3.0, 10.0, 14.0};
  for (int i = 0; i < 4; i++) {
    const int bps = bpsl[i], n = 200000;
    const double n0 = pow(10.0, -snr[i] / 10.0), sd = sqrt(n0);
    double sum = 0.0, sum2 = 0.0;
    for (int s = 0; s < n; s++) {
      const uint32_t lab = (uint32_t)(test_rng_u64() & ((1u << bps) - 1u));
      const cf32 x = qam_map(bps, lab);
      double re, im;
      test_rng_cnormal(&re, &im);
      /* BPSK: the demapper uses Re z alone, whatever the imaginary noise */
      const cf32 z = cf_make((float)(x.re + sd * re), (float)(x.im + sd * im));
      float l[SOFT_MAX_BPS];
      soft_demap(bps, z, (float)n0, 1, l);
      const double loss = (double)soft_label_loss(bps, l, lab) * U24;
      sum += loss;
      sum2 += loss * loss;
    }
    const double mean = sum / n, sdm = sqrt((sum2 / n - mean * mean) / n);
    const double gmi = bps - mean, cap = bicm_capacity(bps, snr[i]);
    printf("GMI bps=%d at %g dB: %.5f +- %.5f, BICM capacity %.5f\n", bps, snr[i], gmi, sdm, cap);
    CHECK(fabs(gmi - cap) < 5.0 * sdm + 1e-4, "bps=%d %g dB: GMI %.5f vs capacity %.5f (sd %.5f)", bps, snr[i], gmi,
          cap, sdm);
  }
}

int main(void) {
  test_rng_seed(0x5eed50f7ull);
  for (int i = 0; i < 5; i++) test_llr_vs_brute(all_bps[i]);
  test_threshold_ties();
  test_edge_inputs();
  test_mirror();
  test_loss();
  test_log1p_exp();
  test_loss_rounding();
  test_log1p_unit();
  test_grid_loss();
  test_grid_block();
  test_grid_block_clip();
  test_grid_block_high();
  test_loss_block();
  test_loss_block_high();
  test_loss_signed();
  test_post_var();
  test_bicm_reference();
  test_gmi_awgn();
  return test_finish("test_soft");
}
