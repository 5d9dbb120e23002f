/* The LDPC decoder tests' comparison of two kernels on one block (header
 * only: the coding tests link the coding library, the test support library
 * does not): test_ldpc_kernels (float, plain C against AVX2, and a reused
 * decoder against a fresh one) and test_ldpc16 (int16, the same pair). */
#ifndef OFDMSIM_TEST_LDPC_AGREE_H
#define OFDMSIM_TEST_LDPC_AGREE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coding/ldpc_decode.h"

/* Decodes llr with a and with b and compares everything: decisions,
 * iterations, syndrome flag, rows used, every a posteriori value and every
 * message, bit for bit (memcmp: -0 and +0 differ). *r: a's result. 1 when
 * equal; otherwise the first difference on stderr. */
static inline int ldpc_decoders_agree(ldpc_decoder *a, ldpc_decoder *b, const ldpc_code *code, const float *llr,
                                      ldpc_decode_result *r) {
  const int k = ldpc_k(code), z = code->z, nbits = ldpc_codeword_bits(code);
  uint8_t *b1 = malloc((size_t)k), *b2 = malloc((size_t)k);
  ldpc_decode_result r1, r2;
  ldpc_decoder_execute(a, llr, k, b1, &r1);
  ldpc_decoder_execute(b, llr, k, b2, &r2);
  int same = memcmp(b1, b2, (size_t)k) == 0 && r1.iterations == r2.iterations &&
             r1.syndrome_ok == r2.syndrome_ok && r1.rows_used == r2.rows_used;
  same &= memcmp(ldpc_decoder_app(a), ldpc_decoder_app(b), sizeof(float) * (size_t)nbits) == 0;
  const int entries = code->g->row_start[r1.rows_used];
  for (int e = 0; e < entries && same; e++)
    for (int i = 0; i < z; i++) {
      const float m1 = ldpc_decoder_message(a, e, i), m2 = ldpc_decoder_message(b, e, i);
      if (memcmp(&m1, &m2, sizeof m1) != 0) {
        fprintf(stderr, "  entry %d lane %d: message %.9g vs %.9g\n", e, i, (double)m1, (double)m2);
        same = 0;
        break;
      }
    }
  if (!same)
    fprintf(stderr, "  iterations %d vs %d, syndrome %d vs %d, rows %d vs %d\n", r1.iterations, r2.iterations,
            r1.syndrome_ok, r2.syndrome_ok, r1.rows_used, r2.rows_used);
  *r = r1;
  free(b1);
  free(b2);
  return same;
}

#endif
