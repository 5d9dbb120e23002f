/* The equalizer's specialised paths against the generic ones they stand in
 * for, bit for bit, on random stacks:
 *   - eq_gram (its square nr == nt == 2 and 4 loops: plain C, and AVX-512
 *     sixteen items at a time where the host has it) against
 *     eq_gram_general (blocks of items, any nr and nt), for every size;
 *   - eq_solve_direct (Gram, inverse and equalisation in one pass) against
 *     eq_gram + eq_invert + eq_apply, ZF and MMSE.
 * Any value that is not NaN must have the same bits (signed zeros
 * included); a NaN must be a NaN on both sides (payloads and signs are
 * nobody's business: a flagged inverse is all NaN whatever they are). The
 * inputs mix well-conditioned Rayleigh items with rank-deficient ones (the
 * flagged, all-NaN path), zeros of both signs, tiny and huge scales,
 * subnormals, infinities and NaNs, for run lengths that are and are not
 * multiples of 16 and stacks that start anywhere; items outside the run
 * must stay untouched. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "equalizer/equalizer.h"
#include "equalizer/simd16.h"
#include "testutil.h"

#define PAD 5 /* poisoned items either side of the processed run */

static const size_t lengths[] = {1, 7, 15, 16, 17, 33, 64, 100, 1024, 1037};

/* one float as the mixes below want it */
static float value(int kind) {
  double re, im;
  test_rng_cnormal(&re, &im);
  switch (kind) {
    case 0: return (float)re;                                      /* CN(0,1) */
    case 1: return (float)(re * ldexp(1.0, (int)(test_rng_u64() % 61) - 30)); /* 2^-30 .. 2^30 */
    default: break;
  }
  /* specials, one in a few hundred values */
  switch (test_rng_u64() % 8) {
    case 0: return 0.0f;
    case 1: return -0.0f;
    case 2: return 1e-40f;  /* subnormal */
    case 3: return 3e38f;   /* overflows in a product */
    case 4: return INFINITY;
    case 5: return -INFINITY;
    case 6: return NAN;
    default: return (float)re * 1e-20f;
  }
}

static cf32 cvalue(int kind) {
  const float re = value(kind), im = value(kind);
  return cf_make(re, im);
}

/* Same bits, or both NaN. */
static int same(float a, float b) {
  if (a != a || b != b) return a != a && b != b;
  uint32_t x, y;
  memcpy(&x, &a, sizeof x);
  memcpy(&y, &b, sizeof y);
  return x == y;
}
static int same_cf(cf32 a, cf32 b) { return same(a.re, b.re) && same(a.im, b.im); }

static cf32 *stack(size_t elements, size_t ld) {
  cf32 *p = malloc(elements * ld * sizeof *p);
  for (size_t k = 0; k < elements * ld; k++) p[k] = cf_make(NAN, NAN);
  return p;
}

/* Items outside [PAD, PAD + n) are still the poison (both parts NaN) of
 * stack(); 0 when one was written. */
static int untouched(const cf32 *p, size_t elements, size_t ld, size_t n) {
  for (size_t e = 0; e < elements; e++)
    for (size_t i = 0; i < ld; i++)
      if ((i < PAD || i >= PAD + n) && (p[e * ld + i].re == p[e * ld + i].re || p[e * ld + i].im == p[e * ld + i].im))
        return 0;
  return 1;
}

/* Fills nr x nt H stacks and y: mostly CN(0,1); per item a mix picked at
 * random: every value of the item scaled, one column a multiple of another
 * (rank deficient: G singular), a column of zeros, or specials here and
 * there. Returns the number of rank-deficient items. */
static size_t fill(int nr, int nt, cf32 *H, cf32 *y, size_t ld, size_t n) {
  size_t deficient = 0;
  for (size_t i = PAD; i < PAD + n; i++) {
    const uint64_t mix = test_rng_u64() % 16;
    const int kind = mix == 0 ? 1 : 0;
    for (int e = 0; e < nr * nt; e++) H[(size_t)e * ld + i] = cvalue(kind);
    for (int r = 0; r < nr; r++) y[(size_t)r * ld + i] = cvalue(kind);
    if (mix == 1 && nt > 1) { /* column 1 = s * column 0 */
      const float s = value(0);
      for (int r = 0; r < nr; r++) {
        const cf32 h0 = H[(size_t)(r * nt) * ld + i];
        H[(size_t)(r * nt + 1) * ld + i] = cf_make(s * h0.re, s * h0.im);
      }
      deficient++;
    } else if (mix == 2) { /* a zero column, of either sign */
      const int t = (int)(test_rng_u64() % (uint64_t)nt);
      const float z = test_rng_u64() & 1 ? 0.0f : -0.0f;
      for (int r = 0; r < nr; r++) H[(size_t)(r * nt + t) * ld + i] = cf_make(z, -z);
    } else if (mix == 3) { /* specials sprinkled over H and y */
      H[(size_t)(test_rng_u64() % (uint64_t)(nr * nt)) * ld + i] = cvalue(2);
      y[(size_t)(test_rng_u64() % (uint64_t)nr) * ld + i] = cvalue(2);
    } else if (mix == 4) { /* all of H tiny or huge, y too */
      const float s = test_rng_u64() & 1 ? 1e-18f : 1e18f;
      for (int e = 0; e < nr * nt; e++) {
        cf32 *h = &H[(size_t)e * ld + i];
        *h = cf_make(h->re * s, h->im * s);
      }
    }
  }
  return deficient;
}

static void test_gram(void) {
  size_t runs = 0;
  for (int nt = 1; nt <= MAT_MAX_N; nt++)
    for (int nr = 1; nr <= MAT_MAX_RX; nr++) {
      /* every size once at one length, the square ones at all */
      const int square = nr == nt && (nt == 2 || nt == 4);
      for (size_t li = square ? 0 : sizeof lengths / sizeof *lengths - 1; li < sizeof lengths / sizeof *lengths;
           li++) {
        const size_t n = lengths[li], ld = n + 2 * PAD;
        const float diag = li % 2 ? 0.0f : 0.125f;
        cf32 *H = stack((size_t)nr * nt, ld), *y = stack((size_t)nr, ld);
        cf32 *G = stack((size_t)nt * nt, ld), *z = stack((size_t)nt, ld);
        cf32 *Gg = stack((size_t)nt * nt, ld), *zg = stack((size_t)nt, ld);
        fill(nr, nt, H, y, ld, n);
        eq_gram(nr, nt, H + PAD, ld, y + PAD, ld, diag, G + PAD, ld, z + PAD, ld, n);
        eq_gram_general(nr, nt, H + PAD, ld, y + PAD, ld, diag, Gg + PAD, ld, zg + PAD, ld, n);
        size_t bad = 0;
        for (size_t i = PAD; i < PAD + n; i++) {
          for (int e = 0; e < nt * nt; e++) bad += !same_cf(G[(size_t)e * ld + i], Gg[(size_t)e * ld + i]);
          for (int t = 0; t < nt; t++) bad += !same_cf(z[(size_t)t * ld + i], zg[(size_t)t * ld + i]);
        }
        CHECK(bad == 0, "gram nr=%d nt=%d n=%zu: %zu values differ from eq_gram_general", nr, nt, n, bad);
        CHECK(untouched(G, (size_t)nt * nt, ld, n) && untouched(z, (size_t)nt, ld, n),
              "gram nr=%d nt=%d n=%zu: items outside the run were written", nr, nt, n);
        free(H);
        free(y);
        free(G);
        free(z);
        free(Gg);
        free(zg);
        runs++;
      }
    }
  printf("eq_gram = eq_gram_general on %zu stacks\n", runs);
}

static void test_solve(void) {
  size_t flagged = 0, finite = 0, covered = 0;
  for (int nt = 1; nt <= 5; nt++)
    for (int nr = nt; nr <= nt + 1; nr++)
      for (int mmse = 0; mmse < 2; mmse++)
        for (size_t run = 0; run < 3 * sizeof lengths / sizeof *lengths; run++) {
          const size_t li = run % (sizeof lengths / sizeof *lengths), n = lengths[li], ld = n + 2 * PAD;
          const float n0 = mmse ? 0.05f * (float)(li + 1) : 0.0f;
          cf32 *H = stack((size_t)nr * nt, ld), *y = stack((size_t)nr, ld), *x = stack((size_t)nt, ld);
          cf32 *G = stack((size_t)nt * nt, ld), *Gi = stack((size_t)nt * nt, ld), *z = stack((size_t)nt, ld);
          cf32 *xr = stack((size_t)nt, ld);
          fill(nr, nt, H, y, ld, n);
          const size_t done = eq_solve_direct(nr, nt, H + PAD, ld, y + PAD, ld, n0, n0, x + PAD, ld, n);
          eq_gram(nr, nt, H + PAD, ld, y + PAD, ld, n0, G + PAD, ld, z + PAD, ld, n);
          eq_invert(nt, G + PAD, ld, Gi + PAD, ld, n);
          eq_apply(nt, Gi + PAD, ld, z + PAD, ld, n0, xr + PAD, ld, n);
          const int has = C16_AVX512 && nr == nt && (nt == 2 || nt == 4);
          CHECK(done == (has ? n - n % 16 : 0), "solve nr=%d nt=%d n=%zu: %zu items done", nr, nt, n, done);
          size_t bad = 0;
          for (size_t i = PAD; i < PAD + done; i++)
            for (int t = 0; t < nt; t++) {
              const cf32 a = x[(size_t)t * ld + i], b = xr[(size_t)t * ld + i];
              bad += !same_cf(a, b);
              if (t == 0) {
                flagged += a.re != a.re;
                finite += isfinite(a.re) && isfinite(a.im);
              }
            }
          covered += done;
          CHECK(bad == 0, "solve nr=%d nt=%d %s n=%zu: %zu values differ from gram + invert + apply", nr, nt,
                mmse ? "mmse" : "zf", n, bad);
          /* only the leading `done` items are written */
          CHECK(untouched(x, (size_t)nt, ld, done), "solve nr=%d nt=%d n=%zu: items past %zu were written", nr,
                nt, n, done);
          /* the variant that also gives the inverse's diagonal: the same x_hat, and
           * the diagonal eq_invert wrote (the NaN of a flagged item included) */
          float *gd = malloc(sizeof(float) * (size_t)nt * ld);
          cf32 *x2 = stack((size_t)nt, ld);
          CHECK(gd != NULL, "no memory");
          const size_t done2 =
              gd ? eq_solve_direct_diag(nr, nt, H + PAD, ld, y + PAD, ld, n0, n0, x2 + PAD, ld, gd + PAD, ld, n) : 0;
          size_t bad2 = done2 != done;
          for (size_t i = PAD; gd && i < PAD + done2; i++)
            for (int t = 0; t < nt; t++) {
              const float g = gd[(size_t)t * ld + i], r = Gi[(size_t)(t * nt + t) * ld + i].re;
              bad2 += !same_cf(x2[(size_t)t * ld + i], x[(size_t)t * ld + i]) ||
                      !(g == r || (g != g && r != r));
            }
          CHECK(bad2 == 0, "solve_diag nr=%d nt=%d %s n=%zu: %zu values differ from gram + invert + apply", nr, nt,
                mmse ? "mmse" : "zf", n, bad2);
          free(gd);
          free(x2);
          free(H);
          free(y);
          free(x);
          free(G);
          free(Gi);
          free(z);
          free(xr);
        }
  printf("eq_solve_direct = three passes on %zu items (%zu flagged, %zu finite)\n", covered, flagged, finite);
  if (C16_AVX512) {
    CHECK(flagged > 1000 && finite > 20000, "the mix left a path untried: %zu flagged, %zu finite", flagged, finite);
  }
}

int main(void) {
  test_rng_seed(0x6a09e667f3bcc909ull);
  test_gram();
  test_solve();
  return test_finish("test_equalizer_fast_paths");
}
