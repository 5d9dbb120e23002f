/* Inversion of SoA stacks of Hermitian positive-definite Gram matrices. */
/* GCC tunes AVX-512 CPUs for 256-bit vectors; the item loops here go 512
 * bits wide (equalizer/simd16.h says why that changes no result). */
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("prefer-vector-width=512")
#endif
#include "equalizer/equalizer.h"

/* One item loop per size.  NT is a literal in each instance, so the smallmat
 * loops unroll fully, the local arrays become registers and the loop over
 * items vectorises (one SIMD lane per item, as one CUDA thread per item).
 * Only the upper triangle is loaded: the inverses never read the rest. */
#define EQ_INVERT_INSTANCE(NAME, NT, CALL)                                          \
  static void NAME(const cf32 *restrict G, size_t ldg, cf32 *restrict Ginv, size_t ldi, \
                   size_t n) {                                                      \
    EQ_ITEMS_INDEPENDENT                                                            \
    for (size_t i = 0; i < n; i++) {                                                \
      cf32 a[NT * NT], x[NT * NT];                                                  \
      MAT_UNROLL                                                                    \
      for (int r = 0; r < NT; r++) {                                                \
        MAT_UNROLL                                                                  \
        for (int c = 0; c < NT; c++)                                                \
          a[r * NT + c] = c >= r ? eq_load(G, (size_t)(r * NT + c) * ldg + i) : cf_make(0.0f, 0.0f); \
      }                                                                             \
      CALL;                                                                         \
      MAT_UNROLL                                                                    \
      for (int e = 0; e < NT * NT; e++) eq_store(Ginv, (size_t)e * ldi + i, x[e]);   \
    }                                                                               \
  }

EQ_INVERT_INSTANCE(invert_1, 1, mat_inv_herm(1, a, x))
EQ_INVERT_INSTANCE(invert_2, 2, mat_inv_herm(2, a, x))
EQ_INVERT_INSTANCE(invert_4, 4, mat_inv_herm(4, a, x))
EQ_INVERT_INSTANCE(chol_1, 1, mat_inv_chol(1, a, x))
EQ_INVERT_INSTANCE(chol_2, 2, mat_inv_chol(2, a, x))
EQ_INVERT_INSTANCE(chol_3, 3, mat_inv_chol(3, a, x))
EQ_INVERT_INSTANCE(chol_4, 4, mat_inv_chol(4, a, x))
EQ_INVERT_INSTANCE(chol_5, 5, mat_inv_chol(5, a, x))
EQ_INVERT_INSTANCE(chol_6, 6, mat_inv_chol(6, a, x))
EQ_INVERT_INSTANCE(chol_7, 7, mat_inv_chol(7, a, x))
EQ_INVERT_INSTANCE(chol_8, 8, mat_inv_chol(8, a, x))

void eq_invert_general(int nt, const cf32 *G, size_t ldg, cf32 *Ginv, size_t ldi, size_t n) {
  switch (nt) {
    case 1: chol_1(G, ldg, Ginv, ldi, n); break;
    case 2: chol_2(G, ldg, Ginv, ldi, n); break;
    case 3: chol_3(G, ldg, Ginv, ldi, n); break;
    case 4: chol_4(G, ldg, Ginv, ldi, n); break;
    case 5: chol_5(G, ldg, Ginv, ldi, n); break;
    case 6: chol_6(G, ldg, Ginv, ldi, n); break;
    case 7: chol_7(G, ldg, Ginv, ldi, n); break;
    case 8: chol_8(G, ldg, Ginv, ldi, n); break;
    default: break;
  }
}

/* mat_inv_herm's rule: its own instances where it differs from Cholesky. */
void eq_invert(int nt, const cf32 *G, size_t ldg, cf32 *Ginv, size_t ldi, size_t n) {
  switch (nt) {
    case 1: invert_1(G, ldg, Ginv, ldi, n); break;
    case 2: invert_2(G, ldg, Ginv, ldi, n); break;
    case 4: invert_4(G, ldg, Ginv, ldi, n); break;
    default: eq_invert_general(nt, G, ldg, Ginv, ldi, n); break;
  }
}
