/* Gram matrices G = H^H H + diag*I and matched-filter outputs z = H^H y of SoA
 * stacks. */
/* GCC tunes AVX-512 CPUs for 256-bit vectors; the item loops here go 512
 * bits wide (equalizer/simd16.h says why that changes no result). */
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("prefer-vector-width=512")
#endif
#include "equalizer/equalizer.h"
#include "equalizer/smallmat16.h"

/* Items are taken EQ_GRAM_BLOCK at a time.  Within a block the loop over
 * receive antennas is outermost and each (block, antenna) step is a
 * straight-line loop over items with NT fixed: it vectorises for any nr, and
 * the block's accumulators (at most 36 + 8 complex per item) stay in L1. */
#define EQ_GRAM_BLOCK 64

#define EQ_GRAM_INSTANCE(NAME, NT)                                                    \
  static void NAME(int nr, const cf32 *restrict H, size_t ldh, const cf32 *restrict y, \
                   size_t ldy, float diag, cf32 *restrict G, size_t ldg,              \
                   cf32 *restrict z, size_t ldz, size_t n) {                          \
    for (size_t i0 = 0; i0 < n; i0 += EQ_GRAM_BLOCK) {                                \
      size_t m = n - i0 < EQ_GRAM_BLOCK ? n - i0 : EQ_GRAM_BLOCK;                     \
      float gd[NT][EQ_GRAM_BLOCK];                 /* diagonal, real */               \
      float gr[NT * NT][EQ_GRAM_BLOCK], gi[NT * NT][EQ_GRAM_BLOCK]; /* (p,q), p<q */ \
      float zr[NT][EQ_GRAM_BLOCK], zi[NT][EQ_GRAM_BLOCK];                             \
      for (size_t k = 0; k < m; k++) {                                                \
        MAT_UNROLL                                                                    \
        for (int p = 0; p < NT; p++) {                                                \
          gd[p][k] = diag;                                                            \
          zr[p][k] = 0.0f;                                                            \
          zi[p][k] = 0.0f;                                                            \
          MAT_UNROLL                                                                  \
          for (int q = p + 1; q < NT; q++) gr[p * NT + q][k] = gi[p * NT + q][k] = 0.0f; \
        }                                                                             \
      }                                                                               \
      for (int r = 0; r < nr; r++) {                                                  \
        const cf32 *hr = H + (size_t)r * NT * ldh + i0;                               \
        const cf32 *yr = y + (size_t)r * ldy + i0;                                    \
        EQ_ITEMS_INDEPENDENT                                                          \
        for (size_t k = 0; k < m; k++) {                                              \
          cf32 h[NT];                                                                 \
          MAT_UNROLL                                                                  \
          for (int t = 0; t < NT; t++) h[t] = eq_load(hr, (size_t)t * ldh + k);       \
          cf32 yk = eq_load(yr, k);                                                   \
          MAT_UNROLL                                                                  \
          for (int p = 0; p < NT; p++) {                                              \
            gd[p][k] += cf_abs2(h[p]);                                                \
            cf32 zp = cf_cfma(cf_make(zr[p][k], zi[p][k]), h[p], yk);                 \
            zr[p][k] = zp.re;                                                         \
            zi[p][k] = zp.im;                                                         \
            MAT_UNROLL                                                                \
            for (int q = p + 1; q < NT; q++) {                                        \
              cf32 g = cf_cfma(cf_make(gr[p * NT + q][k], gi[p * NT + q][k]), h[p], h[q]); \
              gr[p * NT + q][k] = g.re;                                               \
              gi[p * NT + q][k] = g.im;                                               \
            }                                                                         \
          }                                                                           \
        }                                                                             \
      }                                                                               \
      EQ_ITEMS_INDEPENDENT                                                            \
      for (size_t k = 0; k < m; k++) {                                                \
        size_t i = i0 + k;                                                            \
        MAT_UNROLL                                                                    \
        for (int p = 0; p < NT; p++) {                                                \
          eq_store(G, (size_t)(p * NT + p) * ldg + i, cf_make(gd[p][k], 0.0f));        \
          eq_store(z, (size_t)p * ldz + i, cf_make(zr[p][k], zi[p][k]));               \
          MAT_UNROLL                                                                  \
          for (int q = p + 1; q < NT; q++) {                                          \
            cf32 g = cf_make(gr[p * NT + q][k], gi[p * NT + q][k]);                   \
            eq_store(G, (size_t)(p * NT + q) * ldg + i, g);                           \
            eq_store(G, (size_t)(q * NT + p) * ldg + i, cf_conj(g));                  \
          }                                                                           \
        }                                                                             \
      }                                                                               \
    }                                                                                 \
  }

EQ_GRAM_INSTANCE(gram_1, 1)
EQ_GRAM_INSTANCE(gram_2, 2)
EQ_GRAM_INSTANCE(gram_3, 3)
EQ_GRAM_INSTANCE(gram_4, 4)
EQ_GRAM_INSTANCE(gram_5, 5)
EQ_GRAM_INSTANCE(gram_6, 6)
EQ_GRAM_INSTANCE(gram_7, 7)
EQ_GRAM_INSTANCE(gram_8, 8)

/* Square H with nr == nt == NT, NT a literal: one SIMD lane an item, as
 * eq_invert's loops, the item's H and y loaded row by row and every
 * accumulator of G and z kept in registers across the rows (no block
 * arrays). Each element is summed as in EQ_GRAM_INSTANCE (and mat_gram):
 * from diag or 0, rows r = 0 .. NT-1 in order, the same cf_abs2 / cf_cfma,
 * so the results are the same bits (tests/equalizer/test_fast_paths.c). */
#define EQ_GRAM_SQUARE_INSTANCE(NAME, NT)                                             \
  static void NAME(const cf32 *restrict H, size_t ldh, const cf32 *restrict y,        \
                   size_t ldy, float diag, cf32 *restrict G, size_t ldg,              \
                   cf32 *restrict z, size_t ldz, size_t n) {                          \
    EQ_ITEMS_INDEPENDENT                                                              \
    for (size_t i = 0; i < n; i++) {                                                  \
      float gd[NT];                                                                   \
      cf32 go[NT * NT], zz[NT];                                                       \
      MAT_UNROLL                                                                      \
      for (int p = 0; p < NT; p++) {                                                  \
        gd[p] = diag;                                                                 \
        zz[p] = cf_make(0.0f, 0.0f);                                                  \
        MAT_UNROLL                                                                    \
        for (int q = p + 1; q < NT; q++) go[p * NT + q] = cf_make(0.0f, 0.0f);        \
      }                                                                               \
      MAT_UNROLL                                                                      \
      for (int r = 0; r < NT; r++) {                                                  \
        cf32 h[NT];                                                                   \
        MAT_UNROLL                                                                    \
        for (int t = 0; t < NT; t++) h[t] = eq_load(H, (size_t)(r * NT + t) * ldh + i); \
        const cf32 yr = eq_load(y, (size_t)r * ldy + i);                              \
        MAT_UNROLL                                                                    \
        for (int p = 0; p < NT; p++) {                                                \
          gd[p] += cf_abs2(h[p]);                                                     \
          zz[p] = cf_cfma(zz[p], h[p], yr);                                           \
          MAT_UNROLL                                                                  \
          for (int q = p + 1; q < NT; q++) go[p * NT + q] = cf_cfma(go[p * NT + q], h[p], h[q]); \
        }                                                                             \
      }                                                                               \
      MAT_UNROLL                                                                      \
      for (int p = 0; p < NT; p++) {                                                  \
        eq_store(G, (size_t)(p * NT + p) * ldg + i, cf_make(gd[p], 0.0f));            \
        eq_store(z, (size_t)p * ldz + i, zz[p]);                                      \
        MAT_UNROLL                                                                    \
        for (int q = p + 1; q < NT; q++) {                                            \
          eq_store(G, (size_t)(p * NT + q) * ldg + i, go[p * NT + q]);                \
          eq_store(G, (size_t)(q * NT + p) * ldg + i, cf_conj(go[p * NT + q]));       \
        }                                                                             \
      }                                                                               \
    }                                                                                 \
  }

EQ_GRAM_SQUARE_INSTANCE(gram_sq_2_loop, 2)
EQ_GRAM_SQUARE_INSTANCE(gram_sq_4_loop, 4)

#if C16_AVX512
/* The square loops again sixteen items a vector, the real and imaginary
 * parts in separate registers (smallmat16.h): the same operations on each
 * item in the same order as the C loops, so the same bits; the last n mod 16
 * items go through the C loop. */
#define EQ_GRAM_SQUARE_AVX512(NAME, NT, LOOP)                                        \
  static void NAME(const cf32 *restrict H, size_t ldh, const cf32 *restrict y,       \
                   size_t ldy, float diag, cf32 *restrict G, size_t ldg,             \
                   cf32 *restrict z, size_t ldz, size_t n) {                         \
    size_t i = 0;                                                                    \
    for (; i + 16 <= n; i += 16) {                                                   \
      c16 g[NT * NT], zz[NT];                                                        \
      c16_gram_square(NT, H, ldh, y, ldy, i, diag, g, zz);                           \
      MAT_UNROLL                                                                     \
      for (int p = 0; p < NT; p++) {                                                 \
        c16_store(z + (size_t)p * ldz + i, zz[p]);                                   \
        c16_store(G + (size_t)(p * NT + p) * ldg + i, g[p * NT + p]);                \
        MAT_UNROLL                                                                   \
        for (int q = p + 1; q < NT; q++) {                                           \
          c16_store(G + (size_t)(p * NT + q) * ldg + i, g[p * NT + q]);              \
          c16_store(G + (size_t)(q * NT + p) * ldg + i, c16_conj(g[p * NT + q]));    \
        }                                                                            \
      }                                                                              \
    }                                                                                \
    if (i < n) LOOP(H + i, ldh, y + i, ldy, diag, G + i, ldg, z + i, ldz, n - i);    \
  }

EQ_GRAM_SQUARE_AVX512(gram_sq_2, 2, gram_sq_2_loop)
EQ_GRAM_SQUARE_AVX512(gram_sq_4, 4, gram_sq_4_loop)
#else
#define gram_sq_2 gram_sq_2_loop
#define gram_sq_4 gram_sq_4_loop
#endif

void eq_gram_general(int nr, int nt, const cf32 *H, size_t ldh, const cf32 *y, size_t ldy, float diag,
                     cf32 *G, size_t ldg, cf32 *z, size_t ldz, size_t n) {
  switch (nt) {
    case 1: gram_1(nr, H, ldh, y, ldy, diag, G, ldg, z, ldz, n); break;
    case 2: gram_2(nr, H, ldh, y, ldy, diag, G, ldg, z, ldz, n); break;
    case 3: gram_3(nr, H, ldh, y, ldy, diag, G, ldg, z, ldz, n); break;
    case 4: gram_4(nr, H, ldh, y, ldy, diag, G, ldg, z, ldz, n); break;
    case 5: gram_5(nr, H, ldh, y, ldy, diag, G, ldg, z, ldz, n); break;
    case 6: gram_6(nr, H, ldh, y, ldy, diag, G, ldg, z, ldz, n); break;
    case 7: gram_7(nr, H, ldh, y, ldy, diag, G, ldg, z, ldz, n); break;
    case 8: gram_8(nr, H, ldh, y, ldy, diag, G, ldg, z, ldz, n); break;
    default: break;
  }
}

void eq_gram(int nr, int nt, const cf32 *H, size_t ldh, const cf32 *y, size_t ldy, float diag,
             cf32 *G, size_t ldg, cf32 *z, size_t ldz, size_t n) {
  if (nr == 2 && nt == 2)
    gram_sq_2(H, ldh, y, ldy, diag, G, ldg, z, ldz, n);
  else if (nr == 4 && nt == 4)
    gram_sq_4(H, ldh, y, ldy, diag, G, ldg, z, ldz, n);
  else
    eq_gram_general(nr, nt, H, ldh, y, ldy, diag, G, ldg, z, ldz, n);
}
