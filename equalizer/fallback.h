/* The equaliser of one RE in double precision: what an RE gets when its
 * float Gram matrix was flagged singular (smallmat.h turns such an inverse
 * into all NaN). At high SNR, ZF Gram matrices of larger MIMO sizes, and MMSE
 * ones with a vanishing N0, are often too ill-conditioned for float (cond >
 * 2.6e5) while double keeps ten or more correct digits; deciding such an RE
 * from NaN would be a wrong decision, so it is solved again here instead.
 *
 * Shared by the CPU receiver and the CUDA kernels like smallmat.h. On the GPU
 * it is kept out of line (__noinline__): it runs for a tiny share of REs, and
 * inlined its double arrays would cost every thread registers. */
#ifndef OFDMSIM_FALLBACK_H
#define OFDMSIM_FALLBACK_H

#include <math.h>
#include <stdint.h>

#include "core/cplx.h"
#include "equalizer/smallmat.h"

/* Out of line on the GPU; on the host a plain static function, marked unused
 * so that a file including this header (sic.h does) without calling every
 * function compiles warning-free. */
#ifdef __CUDACC__
#define EQ_COLD static __host__ __device__ __noinline__
#elif defined(__GNUC__)
#define EQ_COLD static __attribute__((unused))
#else
#define EQ_COLD static
#endif

typedef struct cd64 {
  double re, im;
} cd64;

/* The double-precision path of every receiver that has one: the linear
 * receivers' eq_solve_double below and mmse-sic's stage (sic.h) share these
 * steps, so that both solve a flagged RE the same way.
 *
 * Every product of two doubles is written mul_rn_d (rounded on its own):
 * with plain a*b + c, GCC 12's SLP vectoriser turns complex-product shapes
 * into vfmaddsub (fused, one rounding) despite C11's -ffp-contract=off, in
 * some inlining contexts and not others (seen at -O1 and at -O3 with AVX-512
 * on an AMD EPYC host: the fused and the staged CPU paths then differed by
 * an ulp on ill-conditioned REs), and nvcc fuses them under -fmad.  The
 * Gram sums of float inputs need none: a product of two floats is exact in
 * double, so fused or not it rounds the same. */

/* G = H^H H + diag I (the lower triangle and the diagonal; the diagonal of
 * a stream whose bit is set in `unit` is 1: mmse-sic's detected streams) and
 * z = H^H y, for h nr x nt (h[r*nt + t]) and y nr; g is then factored
 * G = L L^H in place (Cholesky over the lower triangle). A G that is not
 * positive definite even in double (an exactly rank-deficient channel, diag
 * lost against |H|^2) is built again and loaded on the diagonal by 1e-12 of
 * its largest entry, which gives the minimum-norm (pseudo-inverse) solution
 * to that precision. 1 when a factor was found, 0 when not even the loaded G
 * has one (NaN or Inf in H). */
EQ_COLD int eq_factor_double(int nr, int nt, const cf32 *h, const cf32 *y, float diag, uint32_t unit, cd64 *g,
                             cd64 *z) {
  int ok = 0;
  for (int attempt = 0; attempt < 2 && !ok; attempt++) {
    double gmax = 0.0;
    for (int a = 0; a < nt; a++) {
      for (int b = 0; b <= a; b++) {
        double re = 0.0, im = 0.0; /* sum_r conj(h_ra) h_rb */
        for (int r = 0; r < nr; r++) {
          const cf32 s = h[r * nt + a], t = h[r * nt + b];
          re += (double)s.re * t.re + (double)s.im * t.im;
          im += (double)s.re * t.im - (double)s.im * t.re;
        }
        if (a == b) {
          re = (unit >> a) & 1u ? 1.0 : re + (double)diag;
          im = 0.0;
          gmax = re > gmax ? re : gmax;
        }
        g[a * nt + b].re = re;
        g[a * nt + b].im = im;
      }
      double re = 0.0, im = 0.0; /* z_a = sum_r conj(h_ra) y_r */
      for (int r = 0; r < nr; r++) {
        const cf32 s = h[r * nt + a], t = y[r];
        re += (double)s.re * t.re + (double)s.im * t.im;
        im += (double)s.re * t.im - (double)s.im * t.re;
      }
      z[a].re = re;
      z[a].im = im;
    }
    if (attempt)
      for (int a = 0; a < nt; a++) g[a * nt + a].re += mul_rn_d(1e-12, gmax > 0.0 ? gmax : 1.0);
    /* l_jj = sqrt(g_jj - sum_k |l_jk|^2), l_ij = (g_ij - sum_k l_ik conj(l_jk)) / l_jj for i > j */
    ok = 1;
    for (int j = 0; j < nt && ok; j++) {
      double d = g[j * nt + j].re;
      for (int k = 0; k < j; k++) d -= mul_rn_d(g[j * nt + k].re, g[j * nt + k].re) + mul_rn_d(g[j * nt + k].im, g[j * nt + k].im);
      ok = d > 0.0; /* false for NaN too */
      const double ljj = sqrt(ok ? d : 1.0);
      g[j * nt + j].re = ljj;
      for (int i = j + 1; i < nt; i++) {
        double re = g[i * nt + j].re, im = g[i * nt + j].im;
        for (int k = 0; k < j; k++) {
          const cd64 p = g[i * nt + k], q = g[j * nt + k];
          re -= mul_rn_d(p.re, q.re) + mul_rn_d(p.im, q.im);
          im -= mul_rn_d(p.im, q.re) - mul_rn_d(p.re, q.im);
        }
        g[i * nt + j].re = re / ljj;
        g[i * nt + j].im = im / ljj;
      }
    }
  }
  return ok;
}

/* v = L^-1 v in place (forward substitution) for the factor l of
 * eq_factor_double. */
EQ_COLD void eq_forward_double(int n, const cd64 *l, cd64 *v) {
  for (int i = 0; i < n; i++) {
    double re = v[i].re, im = v[i].im;
    for (int c = 0; c < i; c++) {
      const cd64 p = l[i * n + c], q = v[c];
      re -= mul_rn_d(p.re, q.re) - mul_rn_d(p.im, q.im);
      im -= mul_rn_d(p.re, q.im) + mul_rn_d(p.im, q.re);
    }
    v[i].re = re / l[i * n + i].re;
    v[i].im = im / l[i * n + i].re;
  }
}

/* (G^-1)_tt = ||L^-1 e_t||^2, with w = L^-1 e_t left in w[t..n-1] (it is
 * zero above row t; w[0..t-1] is not written). */
EQ_COLD double eq_inverse_diag_double(int n, const cd64 *l, int t, cd64 *w) {
  double gt = 0.0;
  for (int i = t; i < n; i++) {
    double re = i == t ? 1.0 : 0.0, im = 0.0;
    for (int c = t; c < i; c++) {
      const cd64 p = l[i * n + c], q = w[c];
      re -= mul_rn_d(p.re, q.re) - mul_rn_d(p.im, q.im);
      im -= mul_rn_d(p.re, q.im) + mul_rn_d(p.im, q.re);
    }
    w[i].re = re / l[i * n + i].re;
    w[i].im = im / l[i * n + i].re;
    gt += mul_rn_d(w[i].re, w[i].re) + mul_rn_d(w[i].im, w[i].im);
  }
  return gt;
}

/* x_hat of one RE from its channel estimate h (nr x nt, h[r*nt + t]) and its
 * received vector y: G = H^H H + diag I and z = H^H y in double, G = L L^H
 * (eq_factor_double, with its load for a singular G), x = G^-1 z with the
 * MMSE bias removed per stream (diag = N0) or as it is (ZF, diag = 0).
 * ginv_diag (NULL: not wanted) gets (G^-1)_tt of each stream, for the soft
 * demapper's variance. Returns 1, the number of REs it solved, for the
 * caller's count. */
EQ_COLD int eq_solve_double(int nr, int nt, const cf32 *h, const cf32 *y, float diag, cf32 *xhat,
                            float *ginv_diag) {
  cd64 l[MAT_MAX_N * MAT_MAX_N], z[MAT_MAX_N], w[MAT_MAX_N];
  nt = nt < MAT_MAX_N ? nt : MAT_MAX_N;
  nr = nr < MAT_MAX_RX ? nr : MAT_MAX_RX;
  if (!eq_factor_double(nr, nt, h, y, diag, 0u, l, z)) {
    for (int t = 0; t < nt; t++) xhat[t] = cf_make(0.0f, 0.0f); /* no channel at all */
    if (ginv_diag)
      for (int t = 0; t < nt; t++) ginv_diag[t] = 1e30f; /* nothing known of x: the soft output is 0 */
    return 1;
  }
  /* x = L^-H L^-1 z: forward then backward substitution. */
  eq_forward_double(nt, l, z);
  for (int i = nt - 1; i >= 0; i--) {
    double re = z[i].re, im = z[i].im;
    for (int k = i + 1; k < nt; k++) { /* conj(l_ki) x_k */
      const cd64 p = l[k * nt + i], q = z[k];
      re -= mul_rn_d(p.re, q.re) + mul_rn_d(p.im, q.im);
      im -= mul_rn_d(p.re, q.im) - mul_rn_d(p.im, q.re);
    }
    z[i].re = re / l[i * nt + i].re;
    z[i].im = im / l[i * nt + i].re;
  }
  /* (G^-1)_tt, for the MMSE gain 1/(1 - N0 (G^-1)_tt) and the demapper. */
  for (int t = 0; t < nt; t++) {
    double gain = 1.0;
    if (diag > 0.0f || ginv_diag) {
      const double ginv_tt = eq_inverse_diag_double(nt, l, t, w);
      if (diag > 0.0f) gain = 1.0 / (1.0 - mul_rn_d((double)diag, ginv_tt));
      if (ginv_diag) ginv_diag[t] = (float)ginv_tt;
    }
    xhat[t] = cf_make((float)mul_rn_d(z[t].re, gain), (float)mul_rn_d(z[t].im, gain));
  }
  return 1;
}

/* 1 when the float inverse flagged this RE: a flagged inverse is all NaN, so
 * every stream of x_hat is, and stream 0 (x0) tells. */
OFDM_HD int eq_flagged(cf32 x0) { return x0.re != x0.re; }

#endif
