/* The nms16 decoder tests' input block (header only, as ldpc_agree.h: the
 * coding tests link the coding library, the test support library does
 * not): test_ldpc16 (the plain C kernel against AVX2) and test_ldpc16_pair
 * (two blocks as int16x2 against the one-block decoder) decode the same kind
 * of block. */
#ifndef OFDMSIM_TEST_LDPC16_INPUT_H
#define OFDMSIM_TEST_LDPC16_INPUT_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "coding/ldpc_decode.h"
#include "coding/ldpc_encode.h"
#include "coding/ldpc_msg16.h"
#include "testutil.h"

/* Half of the nms16 format's unit: a tie for its rounding. */
static const float ldpc16_half_unit = 0.5f / (float)(1 << LDPC16_FRAC_BITS);

/* A random codeword of `code` whose last `fillers` systematic bits are
 * filler zeros. */
static inline void ldpc16_random_codeword(const ldpc_code *code, int fillers, uint8_t *cw) {
  const int k = ldpc_k(code);
  uint8_t *info = calloc((size_t)k, 1);
  for (int j = 0; j < k - fillers; j++) info[j] = (uint8_t)(test_rng_u64() & 1);
  ldpc_encode(code, info, cw);
  free(info);
}

/* A codeword over AWGN at Es/N0 esn0_db with columns up to info_cols + rows
 * sent, the punctured 2Z erased, the last `fillers` systematic bits
 * fillers, plus erasures of both signs, extremes, NaN, tiny values and ties
 * of the format's rounding; the last sent column's first bit nonzero, so
 * that the rows a decoder uses are `rows`. */
static inline void ldpc16_make_input(const ldpc_code *code, int rows, int fillers, double esn0_db, float *llr) {
  const int z = code->z, k = ldpc_k(code), nbits = ldpc_codeword_bits(code);
  const int cols_sent = code->g->info_cols + rows;
  uint8_t *cw = malloc((size_t)nbits);
  ldpc16_random_codeword(code, fillers, cw);
  const double sigma2 = 0.5 / pow(10.0, esn0_db / 10.0);
  for (int j = 0; j < nbits; j++) {
    double re, im;
    test_rng_cnormal(&re, &im);
    float v = (float)(2.0 * ((cw[j] ? 1.0 : -1.0) + sqrt(2.0 * sigma2) * re) / sigma2);
    const uint64_t u = test_rng_u64() % 1000;
    const float sgn = cw[j] ? 1.0f : -1.0f;
    if (u < 40) v = 0.0f;
    else if (u < 50) v = -0.0f;
    else if (u < 53) v = sgn * 1.0e30f;
    else if (u < 54) v = sgn * INFINITY;
    else if (u < 55) v = NAN;
    else if (u < 58) v = sgn * 1.0e-6f;
    else if (u < 60) v = sgn * ldpc16_half_unit * (float)(1 + 2 * (test_rng_u64() % 3)); /* rounds to even */
    llr[j] = v;
  }
  for (int j = 0; j < 2 * z; j++) llr[j] = 0.0f;
  for (int j = k - fillers; j < k; j++) llr[j] = LDPC_LLR_FILLER;
  for (int j = cols_sent * z; j < nbits; j++) llr[j] = 0.0f;
  llr[(size_t)(cols_sent - 1) * z] = cw[(size_t)(cols_sent - 1) * z] ? 2.0f : -2.0f;
  free(cw);
}

#endif
