/* The row and syndrome kernels of the batch decoder (coding/ldpc_batch.h),
 * in two versions with one contract: plain C (coding/ldpc_batch_gen.c) and
 * AVX2 (coding/ldpc_batch_avx2.c).
 *
 * Layout, LDPC_BATCH floats (one per block, lane b = block b) at every place:
 *   app: bit j = column*Z + i at app + j*8;
 *   msg: the message of base-graph row r's k-th entry (of deg) to check
 *        r*Z + i at msg + ((row_start[r]*Z + i*deg) + k)*8: a check's deg
 *        messages are one contiguous run, read and written once per row.
 * A row's check r*Z + i reads bit col*Z + ((i + shift) mod Z) of each entry. */
#ifndef OFDMSIM_CODING_LDPC_BATCH_KERNEL_H
#define OFDMSIM_CODING_LDPC_BATCH_KERNEL_H

#include <stdint.h>

#include "coding/ldpc_graph.h"

typedef struct ldpc_batch_state {
  const ldpc_code *code;
  float *app;
  float *msg;
  float alpha, beta;
  int offset;          /* 1: offset min-sum (beta), 0: normalised (alpha) */
} ldpc_batch_state;

/* One layered min-sum row for all lanes; the lanes in bit mask `keep` (rows
 * past that block's last decoded row) compute but keep their LLRs. */
typedef void (*ldpc_batch_layer_fn)(const ldpc_batch_state *s, int r, uint32_t keep);

/* The lanes of `want` whose hard decisions fail a check of rows 0 .. rows-1,
 * a lane counting only the rows r whose row_lanes[r] holds it; may stop
 * early, once every lane of want has failed. */
typedef uint32_t (*ldpc_batch_syndrome_fn)(const ldpc_batch_state *s, int rows, const uint8_t *row_lanes,
                                           uint32_t want);

void ldpc_batch_layer_gen(const ldpc_batch_state *s, int r, uint32_t keep);
uint32_t ldpc_batch_syndrome_gen(const ldpc_batch_state *s, int rows, const uint8_t *row_lanes, uint32_t want);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LDPC_BATCH_HAVE_AVX2_KERNEL 1
void ldpc_batch_layer_avx2(const ldpc_batch_state *s, int r, uint32_t keep);
uint32_t ldpc_batch_syndrome_avx2(const ldpc_batch_state *s, int rows, const uint8_t *row_lanes, uint32_t want);
#endif

#endif
