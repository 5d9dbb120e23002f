/* Inversion of SoA stacks of Hermitian positive-definite matrices, n = 1..8:
 * residuals in double against the condition number, the fast paths against
 * the general Cholesky method, the layout contract (strides, untouched items,
 * upper triangle only, exact Hermitian output), and singular inputs. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "equalizer/equalizer.h"
#include "refmath.h"
#include "testutil.h"

typedef double complex zd;

/* matrices per size and family: 100000, or under the sanitizers
 * (OFDMSIM_TEST_SCALE, testutil.h) fewer, down the same paths and against
 * the same worst-case bounds (fewer matrices can only lower the worst) */
static size_t n_items = 100000;
#define PAD 5        /* poisoned items either side of the processed range */
#define U24 (1.0 / 16777216.0)

/* Error bound constant.  Inverting through Cholesky (or the block LDL^H of the
 * 4x4 path) gives ||A X - I|| <= c_n u kappa(A) with c_n = O(n) from three
 * O(n)-deep stages (factor, triangular inverse, product; Higham, Accuracy and
 * Stability of Numerical Algorithms, ch. 10 and 14); the float input is exact
 * here (the residual is taken against the float matrix itself).  The smallest
 * case fixes the constant: the 1x1 Cholesky path computes 1/a as
 * (1/sqrt(a))^2, three roundings of which two are doubled by the square, so
 * its first-order worst case is 5u; RES_C = 6 covers that with n = 1 and
 * grows with n as the analysis does.  The worst ||AX - I||_max / (n kappa u)
 * measured over all 1.5e6 matrices is printed: about 3.9 for n = 1 and at most
 * 1.5 for n >= 2, so the bound is neither loose by orders of magnitude nor
 * tight enough to fail on rounding noise. */
#define RES_C 6.0

/* CN(0, 1) from the harness's generator (the equalizer library has no RNG) */
static zd cnormal(void) {
  double re, im;
  test_rng_cnormal(&re, &im);
  return re + I * im;
}

/* --- double-precision references ----------------------------------------- */
/* The Gauss-Jordan inverse and the infinity norm are refmath.h's, shared with
 * the GPU inversion test; they take the zd arrays as interleaved doubles. */
static int dinv(int n, const zd *a, zd *x) { return ref_zinv(n, (const double *)a, (double *)x); }
static double norm_inf(int n, const zd *a) { return ref_znorm_inf(n, (const double *)a); }

static double max_abs(int n, const zd *a) {
  double m = 0.0;
  for (int e = 0; e < n * n; e++) m = fmax(m, cabs(a[e]));
  return m;
}

/* Random unitary: Gram-Schmidt (twice, for orthogonality to rounding) on the
 * columns of a complex Gaussian matrix. */
static void random_unitary(int n, zd *u) {
  for (int e = 0; e < n * n; e++) u[e] = cnormal();
  for (int c = 0; c < n; c++) {
    for (int pass = 0; pass < 2; pass++)
      for (int k = 0; k < c; k++) {
        zd d = 0.0;
        for (int r = 0; r < n; r++) d += conj(u[r * n + k]) * u[r * n + c];
        for (int r = 0; r < n; r++) u[r * n + c] -= d * u[r * n + k];
      }
    double s = 0.0;
    for (int r = 0; r < n; r++) s += creal(u[r * n + c] * conj(u[r * n + c]));
    s = 1.0 / sqrt(s);
    for (int r = 0; r < n; r++) u[r * n + c] *= s;
  }
}

/* Rounds a double Hermitian matrix to float, exactly Hermitian. */
static void to_float_herm(int n, const zd *a, cf32 *f) {
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) {
      zd v = r <= c ? a[r * n + c] : conj(a[c * n + r]);
      f[r * n + c] = cf_make((float)creal(v), r == c ? 0.0f : (float)cimag(v));
    }
}

/* Family 0: A^H A + eps I with A n x n complex Gaussian and eps = 0.1 (well
 * conditioned, kappa up to a few hundred).  Family 1: U diag(lambda) U^H with
 * U random unitary, lambda log-spread from s to s*kappa, kappa log-uniform in
 * [1e2, 1e5], the scale s log-uniform in [1e-3, 1e3] (inversion is scale
 * invariant; the flag test must be too).  Returns the designed 2-norm kappa
 * (family 1) or 0. */
static double make_matrix(int n, int family, cf32 *f) {
  zd a[MAT_MAX_N * MAT_MAX_N], g[MAT_MAX_N * MAT_MAX_N];
  double kappa = 0.0;
  if (family == 0) {
    for (int e = 0; e < n * n; e++) a[e] = cnormal();
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) {
        zd s = r == c ? 0.1 : 0.0;
        for (int k = 0; k < n; k++) s += conj(a[k * n + r]) * a[k * n + c];
        g[r * n + c] = s;
      }
  } else {
    double lam[MAT_MAX_N];
    kappa = pow(10.0, 2.0 + 3.0 * test_rng_u01());
    double scale = pow(10.0, -3.0 + 6.0 * test_rng_u01());
    for (int k = 0; k < n; k++) lam[k] = scale * pow(kappa, test_rng_u01());
    lam[0] = scale; /* the extremes, in random places */
    lam[n - 1] = scale * kappa;
    for (int k = n - 1; k > 0; k--) {
      int j = (int)(test_rng_u01() * (k + 1));
      double t = lam[k];
      lam[k] = lam[j];
      lam[j] = t;
    }
    random_unitary(n, a);
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) {
        zd s = 0.0;
        for (int k = 0; k < n; k++) s += a[r * n + k] * lam[k] * conj(a[c * n + k]);
        g[r * n + c] = s;
      }
  }
  to_float_herm(n, g, f);
  return kappa;
}

static void load_item(int n, const cf32 *stack, size_t ld, size_t i, zd *m) {
  for (int e = 0; e < n * n; e++) m[e] = stack[(size_t)e * ld + i].re + I * stack[(size_t)e * ld + i].im;
}

/* max |A X - I| in double */
static double residual(int n, const zd *a, const zd *x) {
  double worst = 0.0;
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) {
      zd s = r == c ? -1.0 : 0.0;
      for (int k = 0; k < n; k++) s += a[r * n + k] * x[k * n + c];
      worst = fmax(worst, cabs(s));
    }
  return worst;
}

static int all_finite(int n, const zd *x) {
  for (int e = 0; e < n * n; e++)
    if (!isfinite(creal(x[e])) || !isfinite(cimag(x[e]))) return 0;
  return 1;
}

static int exactly_hermitian(int n, const cf32 *stack, size_t ld, size_t i) {
  for (int r = 0; r < n; r++) {
    if (stack[(size_t)(r * n + r) * ld + i].im != 0.0f) return 0;
    for (int c = r + 1; c < n; c++) {
      cf32 u = stack[(size_t)(r * n + c) * ld + i], l = stack[(size_t)(c * n + r) * ld + i];
      if (u.re != l.re || u.im != -l.im) return 0;
    }
  }
  return 1;
}

static void poison(cf32 *p, size_t count) {
  for (size_t k = 0; k < count; k++) p[k] = cf_make(NAN, NAN);
}

static int untouched(int n, const cf32 *stack, size_t ld) {
  for (int e = 0; e < n * n; e++)
    for (size_t i = 0; i < ld; i++) {
      if (i >= PAD && i < PAD + n_items) continue;
      if (!isnan(stack[(size_t)e * ld + i].re) || !isnan(stack[(size_t)e * ld + i].im)) return 0;
    }
  return 1;
}

/* The smallmat function eq_invert dispatches to, called directly (for its
 * returned pivot ratio). */
static float direct_inverse(int n, const cf32 *a, cf32 *x) {
  switch (n) {
    case 1: return mat_inv1(a, x);
    case 2: return mat_inv2_herm(a, x);
    case 4: return mat_inv4_block(a, x);
    default: return mat_inv_chol(n, a, x);
  }
}

static void test_size_family(int n, int family) {
  const size_t ld = n_items + 2 * PAD, total = (size_t)n * n * ld;
  cf32 *G = malloc(total * sizeof *G), *Gl = malloc(total * sizeof *G);
  cf32 *Xf = malloc(total * sizeof *G), *Xc = malloc(total * sizeof *G), *Xl = malloc(total * sizeof *G);
  double *kap2 = malloc(n_items * sizeof *kap2);
  poison(G, total);
  for (size_t i = 0; i < n_items; i++) {
    cf32 f[MAT_MAX_N * MAT_MAX_N];
    kap2[i] = make_matrix(n, family, f);
    for (int e = 0; e < n * n; e++) G[(size_t)e * ld + PAD + i] = f[e];
  }
  /* the same stack with garbage below the diagonal */
  memcpy(Gl, G, total * sizeof *G);
  for (int r = 1; r < n; r++)
    for (int c = 0; c < r; c++)
      for (size_t i = 0; i < ld; i++) Gl[(size_t)(r * n + c) * ld + i] = cf_make(NAN, 1e30f);
  poison(Xf, total);
  poison(Xc, total);
  poison(Xl, total);
  eq_invert(n, G + PAD, ld, Xf + PAD, ld, n_items);
  eq_invert_general(n, G + PAD, ld, Xc + PAD, ld, n_items);
  eq_invert(n, Gl + PAD, ld, Xl + PAD, ld, n_items);

  size_t bad_finite = 0, bad_res = 0, bad_abs = 0, bad_cmp = 0, bad_herm = 0, bad_flag = 0;
  size_t first = (size_t)-1;
  double worst_ratio = 0.0, worst_cmp = 0.0, worst_abs = 0.0, worst_kappa = 0.0;
  for (size_t k = 0; k < n_items; k++) {
    size_t i = PAD + k;
    zd a[MAT_MAX_N * MAT_MAX_N], xf[MAT_MAX_N * MAT_MAX_N], xc[MAT_MAX_N * MAT_MAX_N],
        ref[MAT_MAX_N * MAT_MAX_N];
    load_item(n, G, ld, i, a);
    load_item(n, Xf, ld, i, xf);
    load_item(n, Xc, ld, i, xc);
    if (!dinv(n, a, ref)) {
      bad_finite++;
      continue;
    }
    double kappa = norm_inf(n, a) * norm_inf(n, ref);
    double bound = RES_C * n * kappa * U24;
    worst_kappa = fmax(worst_kappa, kappa);
    int fail = 0;
    if (!all_finite(n, xf) || !all_finite(n, xc)) {
      bad_finite++;
      fail = 1;
    } else {
      double rf = residual(n, a, xf), rc = residual(n, a, xc);
      worst_ratio = fmax(worst_ratio, fmax(rf, rc) / (n * kappa * U24));
      if (rf > bound || rc > bound) bad_res++, fail = 1;
      if (family == 0) {
        worst_abs = fmax(worst_abs, fmax(rf, rc));
        if (rf > 1e-3 || rc > 1e-3) bad_abs++, fail = 1;
      }
      /* ||Xf - Xc|| <= ||A^-1|| (||A Xf - I|| + ||A Xc - I||): twice the bound
       * relative to the size of the inverse */
      double d = 0.0;
      for (int e = 0; e < n * n; e++) d = fmax(d, cabs(xf[e] - xc[e]));
      d /= max_abs(n, ref);
      worst_cmp = fmax(worst_cmp, d / (n * kappa * U24));
      if (d > 2.0 * bound) bad_cmp++, fail = 1;
    }
    if (!exactly_hermitian(n, Xf, ld, i) || !exactly_hermitian(n, Xc, ld, i)) bad_herm++, fail = 1;
    /* the returned estimate r of 1/cond: 1/kappa_2 <= r <= 1 in exact
     * arithmetic (family 1 knows kappa_2); the computed diagonal of X is off
     * by at most ~kappa u < 1%, so half that lower bound must hold */
    if (family == 1) {
      cf32 f[MAT_MAX_N * MAT_MAX_N], x[MAT_MAX_N * MAT_MAX_N];
      for (int e = 0; e < n * n; e++) f[e] = G[(size_t)e * ld + i];
      double lo = 0.5 / kap2[k], hi = 1.0 + 1e-6;
      float r = direct_inverse(n, f, x), rc = mat_inv_chol(n, f, x);
      if (!(r >= lo && r <= hi) || !(rc >= lo && rc <= hi)) bad_flag++, fail = 1;
    }
    if (fail && first == (size_t)-1) first = k;
  }
  int same_upper_only = memcmp(Xf, Xl, total * sizeof *Xf) == 0;

  const char *fam = family ? "ill-conditioned (1e2..1e5)" : "A^H A + 0.1 I";
  printf("n=%d %-26s worst ||AX-I||/(n kappa u) = %.3f, ||Xfast-Xchol||/||A^-1||/(n kappa u) = %.3f, "
         "max kappa_inf %.3g%s\n",
         n, fam, worst_ratio, worst_cmp, worst_kappa, family ? "" : "");
  if (family == 0) printf("      worst ||AX-I||_max = %.3g\n", worst_abs);
  CHECK(bad_finite == 0, "n=%d %s: %zu results not finite (first item %zu)", n, fam, bad_finite, first);
  CHECK(bad_res == 0, "n=%d %s: %zu residuals above %g n kappa u (first item %zu)", n, fam, bad_res,
        RES_C, first);
  CHECK(bad_abs == 0, "n=%d %s: %zu residuals above 1e-3", n, fam, bad_abs);
  CHECK(bad_cmp == 0, "n=%d %s: %zu fast-path results differ from Cholesky (first item %zu)", n, fam,
        bad_cmp, first);
  CHECK(bad_herm == 0, "n=%d %s: %zu outputs not exactly Hermitian", n, fam, bad_herm);
  CHECK(bad_flag == 0, "n=%d %s: %zu condition estimates outside [1/(2 kappa), 1]", n, fam,
        bad_flag);
  CHECK(untouched(n, Xf, ld) && untouched(n, Xc, ld), "n=%d: items outside the range were written", n);
  CHECK(same_upper_only, "n=%d %s: the result depends on the lower triangle", n, fam);
  free(G);
  free(Gl);
  free(Xf);
  free(Xc);
  free(Xl);
  free(kap2);
}

/* Diagonal matrices spanning 1e-12..1e12: kappa is huge but every pivot ratio
 * is 1, so nothing is flagged and the inverse is exact to rounding. */
static void test_wide_diagonal(void) {
  for (int n = 1; n <= MAT_MAX_N; n++) {
    const size_t m = 64;
    cf32 *G = calloc((size_t)n * n * m, sizeof *G), *X = malloc((size_t)n * n * m * sizeof *X);
    cf32 *Xc = malloc((size_t)n * n * m * sizeof *X);
    for (size_t i = 0; i < m; i++)
      for (int k = 0; k < n; k++) G[(size_t)(k * n + k) * m + i] = cf_make(powf(10.0f, (float)(-12 + (int)((i * 7 + k * 5) % 25))), 0.0f);
    eq_invert(n, G, m, X, m, m);
    eq_invert_general(n, G, m, Xc, m, m);
    int bad = 0;
    for (size_t i = 0; i < m; i++)
      for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
          size_t e = (size_t)(r * n + c) * m + i;
          double want = r == c ? 1.0 / G[e].re : 0.0;
          if (fabs(X[e].re - want) > 4e-7 * fabs(want) || X[e].im != 0.0f) bad++;
          if (fabs(Xc[e].re - want) > 4e-7 * fabs(want) || Xc[e].im != 0.0f) bad++;
        }
    CHECK(bad == 0, "n=%d: %d elements of diagonal inverses wrong", n, bad);
    free(G);
    free(X);
    free(Xc);
  }
}

/* Singular and non-PD inputs.  The chosen contract (smallmat.h): every output
 * value is NaN and the returned estimate is 0.  The rank-deficient integer
 * matrices are exactly singular in float, but the rounding of the elimination
 * usually hides it (the last pivot comes out as small positive noise): they
 * test the condition-estimate half of the flag. */
enum { SING_RANK1, SING_RANK_DEFICIENT, SING_SCHUR, SING_ZERO, SING_INDEFINITE, SING_NAN, SING_KINDS };
static const char *sing_name[SING_KINDS] = {"rank 1", "rank n-1 (integer B^H B)", "singular Schur complement",
                                            "zero", "indefinite", "NaN entry"};

/* Exactly singular in float: small-integer entries, so G's entries are exact. */
static void make_singular(int n, int kind, cf32 *f) {
  zd b[MAT_MAX_N * MAT_MAX_N], g[MAT_MAX_N * MAT_MAX_N];
  int rows = kind == SING_RANK1 ? 1 : n - 1;
  for (int e = 0; e < n * n; e++) g[e] = 0.0;
  switch (kind) {
    case SING_RANK1:
    case SING_RANK_DEFICIENT:
      for (int r = 0; r < rows; r++)
        for (int c = 0; c < n; c++) b[r * n + c] = (double)((int)(test_rng_u01() * 7) - 3) + I * (double)((int)(test_rng_u01() * 7) - 3);
      for (int r = 0; r < rows; r++) b[r * n + (int)(test_rng_u01() * n)] += 4.0; /* no zero row */
      for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
          for (int k = 0; k < rows; k++) g[r * n + c] += conj(b[k * n + r]) * b[k * n + c];
      break;
    case SING_SCHUR: /* [I w; w^H |w|^2]: the leading block is fine, the last pivot 0 */
      for (int k = 0; k < n - 1; k++) {
        zd w = (double)((int)(test_rng_u01() * 5) - 2) + I * (double)((int)(test_rng_u01() * 5) - 2);
        g[k * n + k] = 1.0;
        g[k * n + n - 1] = w;
        g[(n - 1) * n + k] = conj(w);
        g[(n - 1) * n + n - 1] += creal(w * conj(w));
      }
      break;
    case SING_ZERO: break;
    case SING_INDEFINITE: /* a PD matrix with one eigenvalue made negative */
      for (int k = 0; k < n; k++) g[k * n + k] = k == n - 1 ? -1.0 : 2.0;
      for (int k = 0; k + 1 < n; k++) g[k * n + k + 1] = g[(k + 1) * n + k] = 0.5;
      break;
    case SING_NAN:
      for (int k = 0; k < n; k++) g[k * n + k] = 1.0;
      g[n - 1] = NAN; /* top-right: in the upper triangle every method reads */
      break;
  }
  to_float_herm(n, g, f);
  if (kind == SING_NAN) f[n - 1] = cf_make(NAN, 0.0f);
}

static void test_singular(void) {
  const size_t m = 1000;
  for (int n = 1; n <= MAT_MAX_N; n++) {
    for (int kind = 0; kind < SING_KINDS; kind++) {
      if (n == 1 && kind != SING_ZERO && kind != SING_INDEFINITE && kind != SING_NAN) continue; /* rank 1 is full */
      const size_t total = (size_t)n * n * m;
      cf32 *G = malloc(total * sizeof *G), *X = malloc(total * sizeof *X), *Xc = malloc(total * sizeof *X);
      size_t bad_ratio = 0;
      for (size_t i = 0; i < m; i++) {
        cf32 f[MAT_MAX_N * MAT_MAX_N], x[MAT_MAX_N * MAT_MAX_N];
        make_singular(n, kind, f);
        for (int e = 0; e < n * n; e++) G[(size_t)e * m + i] = f[e];
        float r1 = direct_inverse(n, f, x), r2 = mat_inv_chol(n, f, x);
        if (r1 != 0.0f || r2 != 0.0f) bad_ratio++;
      }
      poison(X, total);
      poison(Xc, total);
      eq_invert(n, G, m, X, m, m);
      eq_invert_general(n, G, m, Xc, m, m);
      size_t not_nan = 0;
      for (size_t k = 0; k < total; k++) not_nan += !isnan(X[k].re) + !isnan(X[k].im) + !isnan(Xc[k].re) + !isnan(Xc[k].im);
      /* fill X with a good inverse first: the NaNs must be written, not left */
      for (size_t k = 0; k < total; k++) X[k] = cf_make(0.0f, 0.0f);
      eq_invert(n, G, m, X, m, m);
      size_t not_written = 0;
      for (size_t k = 0; k < total; k++) not_written += !isnan(X[k].re) || !isnan(X[k].im);
      CHECK(not_nan == 0 && not_written == 0, "n=%d %s: %zu output values are not NaN", n, sing_name[kind],
            not_nan + not_written);
      CHECK(bad_ratio == 0, "n=%d %s: %zu returned estimates not 0", n, sing_name[kind],
            bad_ratio);
      free(G);
      free(X);
      free(Xc);
    }
  }
}

int main(void) {
  n_items = test_scaled(n_items, 2000);
  test_rng_seed(0x9e3779b97f4a7c15ull);
  for (int n = 1; n <= MAT_MAX_N; n++)
    for (int family = 0; family < 2; family++) {
      if (n == 1 && family == 1) continue; /* a 1x1 has kappa 1 */
      test_size_family(n, family);
    }
  test_wide_diagonal();
  test_singular();
  return test_finish("test_equalizer_inverse");
}
