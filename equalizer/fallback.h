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

#include "core/cplx.h"
#include "equalizer/smallmat.h"

#ifdef __CUDACC__
#define EQ_COLD static __host__ __device__ __noinline__
#else
#define EQ_COLD static
#endif

typedef struct cd64 {
  double re, im;
} cd64;

/* Cholesky of the n x n Hermitian a (both triangles valid) into l (lower),
 * 0 when every pivot is positive. */
EQ_COLD int eq_chol_double(int n, const cd64 *a, cd64 *l) {
  for (int j = 0; j < n; j++) {
    double d = a[j * n + j].re;
    for (int k = 0; k < j; k++) d -= l[j * n + k].re * l[j * n + k].re + l[j * n + k].im * l[j * n + k].im;
    if (!(d > 0.0)) return -1;
    const double s = sqrt(d);
    l[j * n + j].re = s;
    l[j * n + j].im = 0.0;
    for (int i = j + 1; i < n; i++) {
      /* l_ij = (a_ij - sum_k l_ik conj(l_jk)) / l_jj */
      double re = a[i * n + j].re, im = a[i * n + j].im;
      for (int k = 0; k < j; k++) {
        const cd64 p = l[i * n + k], q = l[j * n + k];
        re -= p.re * q.re + p.im * q.im;
        im -= p.im * q.re - p.re * q.im;
      }
      l[i * n + j].re = re / s;
      l[i * n + j].im = im / s;
    }
    for (int c = j + 1; c < n; c++) l[j * n + c].re = l[j * n + c].im = 0.0;
  }
  return 0;
}

/* x_hat of one RE from its channel estimate h (nr x nt, h[r*nt + t]) and its
 * received vector y: G = H^H H + diag I and z = H^H y in double, G^-1 through
 * Cholesky, x = G^-1 z with the MMSE bias removed per stream (diag = N0) or
 * as it is (ZF, diag = 0). A G that is singular even in double (an exactly
 * rank-deficient channel) is loaded on the diagonal by 1e-12 of its largest
 * entry, which gives the minimum-norm (pseudo-inverse) solution to that
 * precision. ginv_diag (NULL: not wanted) gets (G^-1)_tt of each stream, for
 * the soft demapper's variance. Returns 1, the number of REs it solved, for
 * the caller's count. */
EQ_COLD int eq_solve_double(int nr, int nt, const cf32 *h, const cf32 *y, float diag, cf32 *xhat,
                            float *ginv_diag) {
  cd64 g[MAT_MAX_N * MAT_MAX_N], l[MAT_MAX_N * MAT_MAX_N], z[MAT_MAX_N], w[MAT_MAX_N];
  nt = nt < MAT_MAX_N ? nt : MAT_MAX_N;
  nr = nr < MAT_MAX_RX ? nr : MAT_MAX_RX;
  double gmax = 0.0;
  for (int a = 0; a < nt; a++) {
    for (int b = 0; b < nt; b++) {
      double re = 0.0, im = 0.0; /* sum_r conj(h_ra) h_rb */
      for (int r = 0; r < nr; r++) {
        const cf32 p = h[r * nt + a], q = h[r * nt + b];
        re += (double)p.re * q.re + (double)p.im * q.im;
        im += (double)p.re * q.im - (double)p.im * q.re;
      }
      if (a == b) {
        re += diag;
        im = 0.0;
        gmax = re > gmax ? re : gmax;
      }
      g[a * nt + b].re = re;
      g[a * nt + b].im = im;
    }
    double re = 0.0, im = 0.0; /* z_a = sum_r conj(h_ra) y_r */
    for (int r = 0; r < nr; r++) {
      const cf32 p = h[r * nt + a], q = y[r];
      re += (double)p.re * q.re + (double)p.im * q.im;
      im += (double)p.re * q.im - (double)p.im * q.re;
    }
    z[a].re = re;
    z[a].im = im;
  }
  if (eq_chol_double(nt, g, l)) {
    for (int a = 0; a < nt; a++) g[a * nt + a].re += 1e-12 * (gmax > 0.0 ? gmax : 1.0);
    if (eq_chol_double(nt, g, l)) {
      for (int t = 0; t < nt; t++) xhat[t] = cf_make(0.0f, 0.0f); /* no channel at all */
      if (ginv_diag)
        for (int t = 0; t < nt; t++) ginv_diag[t] = 1e30f; /* nothing known of x: the soft output is 0 */
      return 1;
    }
  }
  /* x = L^-H L^-1 z: forward then backward substitution. */
  for (int i = 0; i < nt; i++) {
    double re = z[i].re, im = z[i].im;
    for (int k = 0; k < i; k++) {
      const cd64 p = l[i * nt + k], q = w[k];
      re -= p.re * q.re - p.im * q.im;
      im -= p.re * q.im + p.im * q.re;
    }
    w[i].re = re / l[i * nt + i].re;
    w[i].im = im / l[i * nt + i].re;
  }
  for (int i = nt - 1; i >= 0; i--) {
    double re = w[i].re, im = w[i].im;
    for (int k = i + 1; k < nt; k++) { /* conj(l_ki) x_k */
      const cd64 p = l[k * nt + i], q = z[k];
      re -= p.re * q.re + p.im * q.im;
      im -= p.re * q.im - p.im * q.re;
    }
    z[i].re = re / l[i * nt + i].re;
    z[i].im = im / l[i * nt + i].re;
  }
  /* (G^-1)_tt = || column t of L^-1 ||^2, for the MMSE gain 1/(1 - N0 (G^-1)_tt). */
  for (int t = 0; t < nt; t++) {
    double gain = 1.0;
    if (diag > 0.0f || ginv_diag) {
      double ginv_tt = 0.0;
      for (int i = 0; i < nt; i++) w[i].re = w[i].im = 0.0;
      for (int i = t; i < nt; i++) { /* v = L^-1 e_t */
        double re = i == t ? 1.0 : 0.0, im = 0.0;
        for (int k = t; k < i; k++) {
          const cd64 p = l[i * nt + k], q = w[k];
          re -= p.re * q.re - p.im * q.im;
          im -= p.re * q.im + p.im * q.re;
        }
        w[i].re = re / l[i * nt + i].re;
        w[i].im = im / l[i * nt + i].re;
        ginv_tt += w[i].re * w[i].re + w[i].im * w[i].im;
      }
      if (diag > 0.0f) gain = 1.0 / (1.0 - (double)diag * ginv_tt);
      if (ginv_diag) ginv_diag[t] = (float)ginv_tt;
    }
    xhat[t] = cf_make((float)(z[t].re * gain), (float)(z[t].im * gain));
  }
  return 1;
}

/* 1 when the float inverse flagged this RE: a flagged inverse is all NaN, so
 * every stream of x_hat is, and stream 0 (x0) tells. */
OFDM_HD int eq_flagged(cf32 x0) { return x0.re != x0.re; }

#endif
