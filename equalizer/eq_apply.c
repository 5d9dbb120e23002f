/* Equalisation of SoA stacks, x_hat = diag(gain) G^-1 z, and the error
 * variance theory predicts for it. */
/* GCC tunes AVX-512 CPUs for 256-bit vectors; the item loops here go 512
 * bits wide (equalizer/simd16.h says why that changes no result). */
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("prefer-vector-width=512")
#endif
#include "equalizer/equalizer.h"

/* One item loop per size, NT a literal (see eq_invert.c). */
#define EQ_APPLY_INSTANCE(NAME, NT)                                                   \
  static void NAME(const cf32 *restrict Ginv, size_t ldi, const cf32 *restrict z,     \
                   size_t ldz, float n0_bias, cf32 *restrict xhat, size_t ldx,        \
                   size_t n) {                                                        \
    EQ_ITEMS_INDEPENDENT                                                              \
    for (size_t i = 0; i < n; i++) {                                                  \
      cf32 g[NT * NT], zz[NT], x[NT];                                                 \
      MAT_UNROLL                                                                      \
      for (int e = 0; e < NT * NT; e++) g[e] = eq_load(Ginv, (size_t)e * ldi + i);    \
      MAT_UNROLL                                                                      \
      for (int t = 0; t < NT; t++) zz[t] = eq_load(z, (size_t)t * ldz + i);           \
      mat_equalize(NT, g, zz, n0_bias, x);                                            \
      MAT_UNROLL                                                                      \
      for (int t = 0; t < NT; t++) eq_store(xhat, (size_t)t * ldx + i, x[t]);         \
    }                                                                                 \
  }

EQ_APPLY_INSTANCE(apply_1, 1)
EQ_APPLY_INSTANCE(apply_2, 2)
EQ_APPLY_INSTANCE(apply_3, 3)
EQ_APPLY_INSTANCE(apply_4, 4)
EQ_APPLY_INSTANCE(apply_5, 5)
EQ_APPLY_INSTANCE(apply_6, 6)
EQ_APPLY_INSTANCE(apply_7, 7)
EQ_APPLY_INSTANCE(apply_8, 8)

void eq_apply(int nt, const cf32 *Ginv, size_t ldi, const cf32 *z, size_t ldz, float n0_bias,
              cf32 *xhat, size_t ldx, size_t n) {
  switch (nt) {
    case 1: apply_1(Ginv, ldi, z, ldz, n0_bias, xhat, ldx, n); break;
    case 2: apply_2(Ginv, ldi, z, ldz, n0_bias, xhat, ldx, n); break;
    case 3: apply_3(Ginv, ldi, z, ldz, n0_bias, xhat, ldx, n); break;
    case 4: apply_4(Ginv, ldi, z, ldz, n0_bias, xhat, ldx, n); break;
    case 5: apply_5(Ginv, ldi, z, ldz, n0_bias, xhat, ldx, n); break;
    case 6: apply_6(Ginv, ldi, z, ldz, n0_bias, xhat, ldx, n); break;
    case 7: apply_7(Ginv, ldi, z, ldz, n0_bias, xhat, ldx, n); break;
    case 8: apply_8(Ginv, ldi, z, ldz, n0_bias, xhat, ldx, n); break;
    default: break;
  }
}
