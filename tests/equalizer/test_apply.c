/* Gram matrices, matched filter and equalisation of SoA stacks: eq_gram
 * against a double reference and against mat_gram item by item, ZF on
 * noise-free data, the MMSE bias correction, and the measured error variance
 * of ZF and MMSE against eq_predicted_error_var over i.i.d. Rayleigh REs. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "equalizer/equalizer.h"
#include "refmath.h"
#include "testutil.h"

typedef double complex zd;

#define U24 (1.0 / 16777216.0)
#define PAD 3 /* poisoned items before and after the processed range */

/* CN(0, 1) from the harness's generator (the equalizer library has no RNG) */
static zd cnormal(void) {
  double re, im;
  test_rng_cnormal(&re, &im);
  return re + I * im;
}
static cf32 to_cf(zd v) { return cf_make((float)creal(v), (float)cimag(v)); }
static zd to_zd(cf32 v) { return v.re + I * v.im; }
/* unit-energy QPSK */
static zd qpsk(void) {
  const double a = 0.7071067811865476;
  uint64_t b = test_rng_u64() >> 62;
  return ((b & 1) ? -a : a) + I * ((b & 2) ? -a : a);
}

static cf32 *stack_alloc(size_t elements, size_t ld) {
  cf32 *p = malloc(elements * ld * sizeof *p);
  for (size_t k = 0; k < elements * ld; k++) p[k] = cf_make(NAN, NAN);
  return p;
}

static int untouched(const cf32 *p, size_t elements, size_t ld, size_t first, size_t n) {
  for (size_t e = 0; e < elements; e++)
    for (size_t i = 0; i < ld; i++)
      if ((i < first || i >= first + n) && (!isnan(p[e * ld + i].re) || !isnan(p[e * ld + i].im))) return 0;
  return 1;
}

/* --- Gram and matched filter ---------------------------------------------- */
static void test_gram(void) {
  const size_t n = 1000 + 37; /* not a multiple of the block of eq_gram */
  const size_t ld = n + 2 * PAD;
  for (int nt = 1; nt <= MAT_MAX_N; nt++)
    for (int nr = 1; nr <= MAT_MAX_RX; nr++) {
      const float diag = (nr + nt) % 2 ? 0.0f : 0.25f;
      cf32 *H = stack_alloc((size_t)nr * nt, ld), *y = stack_alloc((size_t)nr, ld);
      cf32 *G = stack_alloc((size_t)nt * nt, ld), *z = stack_alloc((size_t)nt, ld);
      for (size_t i = PAD; i < PAD + n; i++) {
        for (int e = 0; e < nr * nt; e++) H[(size_t)e * ld + i] = to_cf(cnormal());
        for (int r = 0; r < nr; r++) y[(size_t)r * ld + i] = to_cf(cnormal());
      }
      eq_gram(nr, nt, H + PAD, ld, y + PAD, ld, diag, G + PAD, ld, z + PAD, ld, n);
      size_t bad_ref = 0, bad_same = 0, bad_herm = 0;
      for (size_t i = PAD; i < PAD + n; i++) {
        cf32 h[MAT_MAX_RX * MAT_MAX_N], yy[MAT_MAX_RX], g1[MAT_MAX_N * MAT_MAX_N], z1[MAT_MAX_N];
        for (int e = 0; e < nr * nt; e++) h[e] = H[(size_t)e * ld + i];
        for (int r = 0; r < nr; r++) yy[r] = y[(size_t)r * ld + i];
        /* the stack loop rounds exactly as the per-item function (the CUDA
         * kernels call it), sums in the same order */
        mat_gram(nr, nt, h, diag, g1);
        mat_herm_mulvec(nr, nt, h, yy, z1);
        double norm_h[MAT_MAX_N], norm_y = 0.0;
        for (int r = 0; r < nr; r++) norm_y += cabs(to_zd(yy[r])) * cabs(to_zd(yy[r]));
        norm_y = sqrt(norm_y);
        for (int t = 0; t < nt; t++) {
          double s = 0.0;
          for (int r = 0; r < nr; r++) s += cabs(to_zd(h[r * nt + t])) * cabs(to_zd(h[r * nt + t]));
          norm_h[t] = sqrt(s);
        }
        for (int p = 0; p < nt; p++) {
          zd ref = 0.0;
          for (int r = 0; r < nr; r++) ref += conj(to_zd(h[r * nt + p])) * to_zd(yy[r]);
          cf32 got = z[(size_t)p * ld + i];
          /* a dot product of nr terms: |error| <= (nr + 1) u sum |h||y| */
          if (cabs(to_zd(got) - ref) > 2.0 * (nr + 1) * U24 * norm_h[p] * norm_y) bad_ref++;
          if (got.re != z1[p].re || got.im != z1[p].im) bad_same++;
          for (int q = 0; q < nt; q++) {
            zd gref = p == q ? diag : 0.0;
            for (int r = 0; r < nr; r++) gref += conj(to_zd(h[r * nt + p])) * to_zd(h[r * nt + q]);
            cf32 gg = G[(size_t)(p * nt + q) * ld + i];
            double scale = norm_h[p] * norm_h[q] + (p == q ? diag : 0.0);
            if (cabs(to_zd(gg) - gref) > 2.0 * (nr + 1) * U24 * scale) bad_ref++;
            if (gg.re != g1[p * nt + q].re || gg.im != g1[p * nt + q].im) bad_same++;
            cf32 gt = G[(size_t)(q * nt + p) * ld + i];
            if (gg.re != gt.re || gg.im != -gt.im || (p == q && gg.im != 0.0f)) bad_herm++;
          }
        }
      }
      CHECK(bad_ref == 0, "gram nr=%d nt=%d: %zu values off the double reference", nr, nt, bad_ref);
      CHECK(bad_same == 0, "gram nr=%d nt=%d: %zu values differ from mat_gram/mat_herm_mulvec", nr, nt,
            bad_same);
      CHECK(bad_herm == 0, "gram nr=%d nt=%d: %zu G not exactly Hermitian", nr, nt, bad_herm);
      CHECK(untouched(G, (size_t)nt * nt, ld, PAD, n) && untouched(z, (size_t)nt, ld, PAD, n),
            "gram nr=%d nt=%d: items outside the range were written", nr, nt);
      free(H);
      free(y);
      free(G);
      free(z);
    }
}

/* --- the whole chain on a batch of REs ------------------------------------- */
/* One batch: i.i.d. Rayleigh H (or one H replicated when `fixed` is given),
 * unit-energy QPSK x, noise CN(0, n0) (none for n0 = 0), y = H x + n in float
 * as the simulator forms it; then gram (diag), invert, apply (n0_bias). */
typedef struct batch {
  int nr, nt;
  size_t n, ld;
  cf32 *H, *x, *y, *G, *z, *Ginv, *xhat;
} batch;

static void batch_run(batch *b, int nr, int nt, size_t n, const zd *fixed, float n0, float diag,
                      float n0_bias) {
  b->nr = nr;
  b->nt = nt;
  b->n = n;
  b->ld = n + 2 * PAD;
  size_t ld = b->ld;
  b->H = stack_alloc((size_t)nr * nt, ld);
  b->x = stack_alloc((size_t)nt, ld);
  b->y = stack_alloc((size_t)nr, ld);
  b->G = stack_alloc((size_t)nt * nt, ld);
  b->z = stack_alloc((size_t)nt, ld);
  b->Ginv = stack_alloc((size_t)nt * nt, ld);
  b->xhat = stack_alloc((size_t)nt, ld);
  const double sn = sqrt((double)n0);
  for (size_t i = PAD; i < PAD + n; i++) {
    zd h[MAT_MAX_RX * MAT_MAX_N], x[MAT_MAX_N];
    for (int e = 0; e < nr * nt; e++) {
      h[e] = fixed ? fixed[e] : cnormal();
      b->H[(size_t)e * ld + i] = to_cf(h[e]);
      h[e] = to_zd(b->H[(size_t)e * ld + i]); /* what the receiver sees */
    }
    for (int t = 0; t < nt; t++) {
      x[t] = qpsk();
      b->x[(size_t)t * ld + i] = to_cf(x[t]);
    }
    for (int r = 0; r < nr; r++) {
      zd s = n0 > 0.0f ? sn * cnormal() : 0.0;
      for (int t = 0; t < nt; t++) s += h[r * nt + t] * x[t];
      b->y[(size_t)r * ld + i] = to_cf(s);
    }
  }
  eq_gram(nr, nt, b->H + PAD, ld, b->y + PAD, ld, diag, b->G + PAD, ld, b->z + PAD, ld, n);
  eq_invert(nt, b->G + PAD, ld, b->Ginv + PAD, ld, n);
  eq_apply(nt, b->Ginv + PAD, ld, b->z + PAD, ld, n0_bias, b->xhat + PAD, ld, n);
}

static void batch_free(batch *b) {
  free(b->H);
  free(b->x);
  free(b->y);
  free(b->G);
  free(b->z);
  free(b->Ginv);
  free(b->xhat);
}

static cf32 at(const cf32 *p, const batch *b, int e, size_t k) { return p[(size_t)e * b->ld + PAD + k]; }

/* kappa_inf of a float Hermitian matrix in double, through refmath.h's
 * Gauss-Jordan inverse (on zd entries, which are interleaved doubles);
 * infinite when the matrix is exactly singular. */
static double kappa_inf(int n, const cf32 *g) {
  zd a[MAT_MAX_N * MAT_MAX_N], x[MAT_MAX_N * MAT_MAX_N];
  for (int e = 0; e < n * n; e++) a[e] = to_zd(g[e]);
  if (!ref_zinv(n, (const double *)a, (double *)x)) return INFINITY;
  return ref_znorm_inf(n, (const double *)a) * ref_znorm_inf(n, (const double *)x);
}

/* ZF without noise returns x: to 1e-4 where G is well conditioned
 * (kappa_inf <= 100, the bulk of Rayleigh draws), and to 16 n kappa u
 * otherwise (the inversion's error bound of test_equalizer_inverse, doubled
 * for the rounding of y and z, relative to |x| = 1). */
static void test_zf_noise_free(void) {
  static const int cfg[][2] = {{2, 2}, {4, 4}, {4, 2}, {8, 8}, {3, 1}, {6, 3}, {16, 8}, {5, 5}};
  for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
    int nr = cfg[c][0], nt = cfg[c][1];
    batch b;
    const size_t n = 20000;
    batch_run(&b, nr, nt, n, NULL, 0.0f, 0.0f, 0.0f);
    size_t well = 0, bad_well = 0, bad_all = 0, flagged = 0;
    double worst_well = 0.0;
    for (size_t k = 0; k < n; k++) {
      cf32 g[MAT_MAX_N * MAT_MAX_N];
      for (int e = 0; e < nt * nt; e++) g[e] = at(b.G, &b, e, k);
      double kap = kappa_inf(nt, g), err = 0.0;
      int finite = 1;
      for (int t = 0; t < nt; t++) {
        cf32 xh = at(b.xhat, &b, t, k);
        finite &= isfinite(xh.re) && isfinite(xh.im);
        err = fmax(err, cabs(to_zd(xh) - to_zd(at(b.x, &b, t, k))));
      }
      if (!finite) {
        /* only a matrix beyond the flag threshold may come out NaN */
        if (kap < 1.0 / MAT_SINGULAR_TOL) bad_all++;
        flagged++;
        continue;
      }
      if (kap <= 100.0) {
        well++;
        worst_well = fmax(worst_well, err);
        if (err > 1e-4) bad_well++;
      }
      if (err > 16.0 * nt * kap * U24 && err > 1e-4) bad_all++;
    }
    printf("zf noise-free %dx%d: %zu of %zu REs with kappa <= 100, worst error there %.2g, %zu flagged\n", nr,
           nt, well, n, worst_well, flagged);
    CHECK(well >= 200, "zf %dx%d: only %zu well-conditioned REs: the check would be empty", nr, nt, well);
    CHECK(bad_well == 0, "zf %dx%d: %zu well-conditioned REs off by more than 1e-4", nr, nt, bad_well);
    CHECK(bad_all == 0, "zf %dx%d: %zu REs off by more than 16 n kappa u", nr, nt, bad_all);
    CHECK(untouched(b.xhat, (size_t)nt, b.ld, PAD, n), "zf %dx%d: items outside the range written", nr, nt);
    batch_free(&b);
  }
  /* AWGN: H = I, so G = I and x_hat = y exactly */
  zd eye[MAT_MAX_N * MAT_MAX_N];
  for (int nt = 1; nt <= MAT_MAX_N; nt++) {
    for (int e = 0; e < nt * nt; e++) eye[e] = e % (nt + 1) == 0 ? 1.0 : 0.0;
    batch b;
    batch_run(&b, nt, nt, 1000, eye, 0.1f, 0.0f, 0.0f);
    size_t bad = 0;
    for (size_t k = 0; k < b.n; k++)
      for (int t = 0; t < nt; t++) {
        cf32 xh = at(b.xhat, &b, t, k), yy = at(b.y, &b, t, k);
        if (xh.re != yy.re || xh.im != yy.im) bad++;
      }
    CHECK(bad == 0, "H = I (%dx%d): %zu estimates differ from y", nt, nt, bad);
    batch_free(&b);
  }
}

/* MMSE bias.  W = G^-1 H^H with G = H^H H + N0 I gives W H = I - N0 G^-1, so
 * E[x~_t | x_t] = mu_t x_t with mu_t = 1 - N0 (G^-1)_tt (the other streams and
 * the noise average out: zero mean).  "Unbiased" is this conditional mean,
 * given the stream's own symbol: given ALL symbols the interference would not
 * average out and no linear equaliser is unbiased.  For QPSK |x_t| = 1, so the
 * gain E[x_hat_t conj(x_t)] is 1 after eq_apply's correction and mu_t without
 * it.  Per channel, K noise and symbol draws; the gain's estimate has standard
 * deviation sqrt(var/K) (var the predicted error variance), and 5 of those
 * bound it (a false alarm has probability e^-25 per check). */
static void test_mmse_unbiased(void) {
  const int nr = 4, nt = 4, channels = 12;
  const size_t K = 20000;
  const float n0 = 0.3f;
  int biased_far = 0, checks = 0;
  for (int c = 0; c < channels; c++) {
    zd h[MAT_MAX_RX * MAT_MAX_N];
    for (int e = 0; e < nr * nt; e++) h[e] = cnormal();
    /* one draw of everything, two equalisers: corrected and not */
    const uint64_t saved = test_rng_save();
    batch b, u;
    batch_run(&b, nr, nt, K, h, n0, n0, n0);
    test_rng_seed(saved);
    batch_run(&u, nr, nt, K, h, n0, n0, 0.0f);
    for (int t = 0; t < nt; t++) {
      zd gain = 0.0, gain_u = 0.0;
      for (size_t k = 0; k < K; k++) {
        zd xc = conj(to_zd(at(b.x, &b, t, k)));
        gain += to_zd(at(b.xhat, &b, t, k)) * xc;
        gain_u += to_zd(at(u.xhat, &u, t, k)) * xc;
      }
      gain /= (double)K;
      gain_u /= (double)K;
      cf32 gtt = at(b.Ginv, &b, t * nt + t, 0);
      double mu = 1.0 - n0 * gtt.re;
      double var = eq_predicted_error_var(EQ_MMSE, n0, gtt);
      double sd = sqrt(var / (double)K), sd_u = mu * sd; /* the uncorrected error is mu times */
      CHECK(cabs(gain - 1.0) <= 5.0 * sd, "channel %d stream %d: corrected gain %.5f%+.5fi, want 1 +- %.2g", c,
            t, creal(gain), cimag(gain), 5.0 * sd);
      CHECK(cabs(gain_u - mu) <= 5.0 * sd_u, "channel %d stream %d: uncorrected gain %.5f%+.5fi, want mu %.5f", c,
            t, creal(gain_u), cimag(gain_u), mu);
      biased_far += cabs(gain_u - 1.0) > 5.0 * sd_u;
      checks++;
    }
    batch_free(&b);
    batch_free(&u);
  }
  printf("mmse bias: the uncorrected estimate is detectably biased on %d of %d streams\n", biased_far, checks);
  CHECK(biased_far >= checks * 3 / 4, "the bias test is blind: only %d of %d uncorrected streams detected",
        biased_far, checks);
}

/* Error variance over i.i.d. Rayleigh REs.  Two measures per setting:
 *   ratio  = mean |x_hat - x|^2 / mean predicted   (the criterion)
 *   normal = mean (|x_hat - x|^2 / predicted)      (each term has mean 1 and
 *            finite variance, so it converges like 1/sqrt(N) even where the
 *            predicted variance itself is heavy-tailed: ZF with nr = nt)
 * MMSE: both within 5%; ZF: the normalised one (its mean variance E[N0
 * (G^-1)_tt] is infinite for nr = nt). */
static void test_error_variance(void) {
  static const int cfg[][2] = {{2, 2}, {4, 4}};
  static const double esn0_db[2] = {5.0, 15.0};
  const size_t n = 100000;
  for (size_t c = 0; c < 2; c++)
    for (int s = 0; s < 2; s++)
      for (int kind = 0; kind < 2; kind++) {
        int nr = cfg[c][0], nt = cfg[c][1];
        float n0 = (float)pow(10.0, -esn0_db[s] / 10.0);
        eq_kind eq = kind ? EQ_MMSE : EQ_ZF;
        batch b;
        batch_run(&b, nr, nt, n, NULL, n0, eq == EQ_MMSE ? n0 : 0.0f, eq == EQ_MMSE ? n0 : 0.0f);
        double sum_err = 0.0, sum_pred = 0.0, sum_norm = 0.0;
        size_t used = 0, skipped = 0;
        for (size_t k = 0; k < n; k++)
          for (int t = 0; t < nt; t++) {
            cf32 xh = at(b.xhat, &b, t, k);
            if (!isfinite(xh.re) || !isfinite(xh.im)) { /* flagged singular (ZF) */
              skipped++;
              continue;
            }
            double e2 = cabs(to_zd(xh) - to_zd(at(b.x, &b, t, k)));
            e2 *= e2;
            double pred = eq_predicted_error_var(eq, n0, at(b.Ginv, &b, t * nt + t, k));
            sum_err += e2;
            sum_pred += pred;
            sum_norm += e2 / pred;
            used++;
          }
        double ratio = sum_err / sum_pred, normal = sum_norm / (double)used;
        printf("%s %dx%d Es/N0 %2.0f dB: measured/predicted %.4f, mean normalised error %.4f (%zu skipped)\n",
               eq == EQ_MMSE ? "mmse" : "zf  ", nr, nt, esn0_db[s], ratio, normal, skipped);
        CHECK(fabs(normal - 1.0) <= 0.05, "%s %dx%d %g dB: normalised error %.4f", eq == EQ_MMSE ? "mmse" : "zf",
              nr, nt, esn0_db[s], normal);
        if (eq == EQ_MMSE)
          CHECK(fabs(ratio - 1.0) <= 0.05, "mmse %dx%d %g dB: measured/predicted %.4f", nr, nt, esn0_db[s], ratio);
        CHECK(skipped * 10000 <= (size_t)nt * n, "%zu of %zu estimates flagged singular", skipped, (size_t)nt * n);
        batch_free(&b);
      }
}

static void test_predicted_formulas(void) {
  /* ZF: N0 (G^-1)_tt; MMSE: (1 - mu)/mu, mu = 1 - N0 (G^-1)_tt */
  CHECK(fabsf(eq_predicted_error_var(EQ_ZF, 0.1f, cf_make(2.0f, 0.0f)) - 0.2f) < 1e-7f, "zf formula");
  CHECK(fabsf(eq_predicted_error_var(EQ_MMSE, 0.1f, cf_make(2.0f, 0.0f)) - 0.25f) < 1e-6f, "mmse formula");
  /* a scalar channel h = 1: MMSE G = 1 + N0, mu = 1/(1+N0), var = N0 = ZF's */
  float n0 = 0.37f, g = 1.0f / (1.0f + n0);
  CHECK(fabsf(eq_predicted_error_var(EQ_MMSE, n0, cf_make(g, 0.0f)) - n0) < 1e-6f, "scalar mmse = zf");
  CHECK(fabsf(mat_unbias_gain(0.0f, cf_make(123.0f, 0.0f)) - 1.0f) == 0.0f, "zf gain is exactly 1");
}

int main(void) {
  test_rng_seed(0x2545f4914f6cdd1dull);
  test_predicted_formulas();
  test_gram();
  test_zf_noise_free();
  test_mmse_unbiased();
  test_error_variance();
  return test_finish("test_equalizer_apply");
}
