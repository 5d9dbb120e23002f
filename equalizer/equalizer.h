/* ZF / MMSE equalisation of struct-of-arrays stacks on the CPU.
 *
 * Layout (struct of arrays, as on the GPU): element (r,c) of matrix i of a stack of M matrices sits
 * at base[(r*N + c)*M + i]; vectors the same with c = 0.  Every function takes
 * base pointers already offset to its first item, the element stride ld (the
 * M of the whole stack) and a count n of consecutive items, and runs serially:
 * the caller parallelises by handing each OpenMP thread its own chunk.
 *
 * The per-item arithmetic is equalizer/smallmat.h, the same inline functions
 * the CUDA kernels call, instantiated per size so that the item loops
 * vectorise.  Sizes: 1 <= nt <= MAT_MAX_N (8), 1 <= nr <= EQ_MAX_RX (16);
 * the functions do not check them (hot loops: the caller validated the
 * configuration once).
 *
 * Singular Gram matrices (non-PD, or numerically singular for float: the
 * reciprocal condition estimate r <= MAT_SINGULAR_TOL = 2^-18; for 2x2 ZF
 * r = det G / (g00 g11), uniform on (0,1) under i.i.d. Rayleigh, so 4e-6 of
 * the REs) come out of eq_invert as all-NaN
 * matrices and so give NaN estimates; whatever decides symbols from x_hat must
 * treat NaN deterministically.  See smallmat.h. */
#ifndef OFDMSIM_EQUALIZER_H
#define OFDMSIM_EQUALIZER_H

#include <stddef.h>

#include "equalizer/smallmat.h"
#include "core/cplx.h"
#include "core/params.h"

#define EQ_MAX_RX MAT_MAX_RX
#ifndef __cplusplus
_Static_assert(MAT_MAX_RX == LINK_MAX_RX && MAT_MAX_N == LINK_MAX_TX, "smallmat.h sizes follow core/params.h");
#endif

/* On the item loops of the stack kernels: the stores of one item to the
 * different element arrays (base + e*ld) never overlap another item's, as ld
 * >= n, but with ld unknown at compile time GCC would need more run-time
 * alias checks than it is willing to emit and leave the loop scalar. */
#if defined(__GNUC__) && !defined(__clang__)
#define EQ_ITEMS_INDEPENDENT _Pragma("GCC ivdep")
#elif defined(__clang__)
#define EQ_ITEMS_INDEPENDENT _Pragma("clang loop vectorize(assume_safety)")
#else
#define EQ_ITEMS_INDEPENDENT
#endif

/* Element access for the stack loops, member by member: GCC's loop vectoriser
 * gives up on a loop containing a whole-struct copy of a cf32. */
static inline cf32 eq_load(const cf32 *base, size_t idx) {
  return cf_make(base[idx].re, base[idx].im);
}
static inline void eq_store(cf32 *base, size_t idx, cf32 v) {
  base[idx].re = v.re;
  base[idx].im = v.im;
}

#ifdef __cplusplus
extern "C" {
#endif

/* G = H^H H + diag*I (full G, both triangles, real diagonal) and z = H^H y.
 * H is nr x nt (element r*nt + t), y has nr elements, z nt. Square H of 2
 * and 4 streams take loops of their own (accumulators in registers, on
 * AVX-512 hosts sixteen items a vector), any other size eq_gram_general's. */
void eq_gram(int nr, int nt, const cf32 *H, size_t ldh, const cf32 *y, size_t ldy, float diag,
             cf32 *G, size_t ldg, cf32 *z, size_t ldz, size_t n);

/* eq_gram's loops for any nr and nt (blocks of items, one receive row at a
 * time): the reference its square nr == nt == 2 and 4 loops are tested
 * against, bit for bit (tests/equalizer/test_fast_paths.c). */
void eq_gram_general(int nr, int nt, const cf32 *H, size_t ldh, const cf32 *y, size_t ldy, float diag,
                     cf32 *G, size_t ldg, cf32 *z, size_t ldz, size_t n);

/* Ginv = G^-1 for Hermitian positive-definite G (reads its upper triangle):
 * nt = 1 -> mat_inv1, 2 -> mat_inv2_herm, 4 -> mat_inv4_block, else
 * mat_inv_chol.  The output is the full matrix. */
void eq_invert(int nt, const cf32 *G, size_t ldg, cf32 *Ginv, size_t ldi, size_t n);

/* Always mat_inv_chol: the reference the fast paths are tested and benchmarked
 * against.  (GCC 12/13 leave its nt = 2 instance scalar; the others
 * vectorise.) */
void eq_invert_general(int nt, const cf32 *G, size_t ldg, cf32 *Ginv, size_t ldi, size_t n);

/* x_hat = Ginv z, then with n0_bias > 0 the MMSE bias correction
 * x_hat_t /= 1 - n0_bias Re(Ginv_tt) (for G = H^H H + N0 I, W H = I - N0 G^-1);
 * ZF passes 0. */
void eq_apply(int nt, const cf32 *Ginv, size_t ldi, const cf32 *z, size_t ldz, float n0_bias,
              cf32 *xhat, size_t ldx, size_t n);

/* eq_gram, eq_invert and eq_apply in one pass, without the G, Ginv and z
 * stacks, for the leading items it covers: nr == nt == 2 or 4 on a host
 * compiled for AVX-512, sixteen items at a time. Returns how many leading
 * items it equalised (n rounded down to a multiple of 16, or 0 where it has
 * no such path); the caller runs the three passes on the rest. x_hat comes
 * out bit for bit as the three passes make it (tests/equalizer/
 * test_fast_paths.c). */
size_t eq_solve_direct(int nr, int nt, const cf32 *H, size_t ldh, const cf32 *y, size_t ldy, float diag,
                       float n0_bias, cf32 *xhat, size_t ldx, size_t n);

/* The same, and with gdiag non-NULL the real parts of the inverse's
 * diagonal, (G^-1)_tt at gdiag[t*ldg + i]: what eq_invert writes into
 * Ginv[(t*nt + t)*ld + i].re, the soft demapper's variances
 * (equalizer/soft.h, soft_post_var). */
size_t eq_solve_direct_diag(int nr, int nt, const cf32 *H, size_t ldh, const cf32 *y, size_t ldy, float diag,
                            float n0_bias, cf32 *xhat, size_t ldx, float *gdiag, size_t ldg, size_t n);

#ifdef __cplusplus
}
#endif

#endif
