/* ZF / MMSE equalisation of SoA stacks in one pass: x_hat straight from H
 * and y, for square H of 2 or 4 streams on AVX-512 hosts. */
#include "equalizer/equalizer.h"
#include "equalizer/smallmat16.h"

#if C16_AVX512
/* Sixteen items a step: G and z (c16_gram_square), G^-1 (the inverse
 * eq_invert uses for NT), x_hat (mat_equalize), all in registers: the
 * stacks G, Ginv and z of the three-pass path are never written, and the
 * unrolled complex arithmetic runs on planar registers. Each lane computes
 * its item's eq_gram, eq_invert and eq_apply, operation for operation. */
#define EQ_SOLVE_AVX512(NAME, NT, INVERSE)                                                        \
  static void NAME(const cf32 *restrict H, size_t ldh, const cf32 *restrict y, size_t ldy,        \
                   float diag, float n0_bias, cf32 *restrict xhat, size_t ldx, float *restrict gdiag, \
                   size_t ldg, size_t n) {                                                        \
    for (size_t i = 0; i < n; i += 16) {                                                          \
      c16 g[NT * NT], z[NT], gi[NT * NT], x[NT];                                                  \
      c16_gram_square(NT, H, ldh, y, ldy, i, diag, g, z);                                         \
      INVERSE(g, gi);                                                                             \
      c16_equalize(NT, gi, z, n0_bias, x);                                                        \
      MAT_UNROLL                                                                                  \
      for (int t = 0; t < NT; t++) c16_store(xhat + (size_t)t * ldx + i, x[t]);                   \
      if (gdiag) {                                                                                \
        MAT_UNROLL                                                                                \
        for (int t = 0; t < NT; t++) _mm512_storeu_ps(gdiag + (size_t)t * ldg + i, gi[t * NT + t].re); \
      }                                                                                           \
    }                                                                                             \
  }
EQ_SOLVE_AVX512(solve_2, 2, c16_inv2_herm)
EQ_SOLVE_AVX512(solve_4, 4, c16_inv4_block)
#endif

size_t eq_solve_direct_diag(int nr, int nt, const cf32 *H, size_t ldh, const cf32 *y, size_t ldy, float diag,
                            float n0_bias, cf32 *xhat, size_t ldx, float *gdiag, size_t ldg, size_t n) {
#if C16_AVX512
  const size_t m = n - n % 16;
  if (m == 0 || nr != nt) return 0;
  if (nt == 2) {
    solve_2(H, ldh, y, ldy, diag, n0_bias, xhat, ldx, gdiag, ldg, m);
    return m;
  }
  if (nt == 4) {
    solve_4(H, ldh, y, ldy, diag, n0_bias, xhat, ldx, gdiag, ldg, m);
    return m;
  }
#else
  (void)nr, (void)nt, (void)H, (void)ldh, (void)y, (void)ldy, (void)diag, (void)n0_bias, (void)xhat, (void)ldx,
      (void)gdiag, (void)ldg, (void)n;
#endif
  return 0;
}

size_t eq_solve_direct(int nr, int nt, const cf32 *H, size_t ldh, const cf32 *y, size_t ldy, float diag,
                       float n0_bias, cf32 *xhat, size_t ldx, size_t n) {
  return eq_solve_direct_diag(nr, nt, H, ldh, y, ldy, diag, n0_bias, xhat, ldx, NULL, 0, n);
}
