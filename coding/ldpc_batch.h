/* LDPC decoding of up to LDPC_BATCH code blocks at once, one block per
 * vector lane: the layered min-sum of coding/ldpc_decode.h on the same
 * graph and Z for every block, the lanes of an 8-float AVX2 vector being 8
 * blocks' copies of the same bit. Every lane computes exactly what
 * ldpc_decoder_execute computes for its block alone (the same
 * coding/ldpc_msg.h operations in the same order): the same decisions,
 * iterations, syndrome flag and rows, bit for bit, whatever the other
 * lanes hold. So a caller may batch any blocks of one (graph, Z), and the
 * GPU, which equals ldpc_decoder_execute, equals this too.
 *
 * Why across blocks rather than across the Z lanes of one block (as
 * ldpc_decoder_execute does): a block's bit j of column c lies at the same
 * place for every lane, so each vector is one aligned load whatever the
 * shift, with no wrap past Z and no partial last vector; and a chunk of
 * 32 lanes, the one-block decoder's unit, is mostly empty at small Z.
 *
 * Two kernels compute the rows and the syndrome: a plain C one (`gen`, any
 * host, the reference) and an AVX2 one, chosen at run time from what the
 * CPU has (ldpc_batch_kernel); the tests hold both to the one-block decoder.
 * Flooding BP and the fixed-point min-sum (LDPC_LAYERED_NMS16, whose
 * one-block AVX2 kernel already has 16 lanes a vector) are not batched: a
 * batch decoder made for them runs the blocks one after the other through
 * ldpc_decoder_execute, as it runs a batch of one block (the one-block
 * decoder is the faster for a single block).
 *
 * Speed (BENCHMARKS.md, `ldpc_speed sweep`): the batch spends about the
 * same time an 8-lane edge at every Z (an index computed per check and
 * edge), the one-block decoder less as Z grows (its per-chunk work spreads
 * over more lanes, and below 32 lanes a chunk is mostly empty); so the batch
 * is the faster up to Z 72 (4-5x at Z 16, 1.1-1.3x at Z 32-72) and the
 * slower from Z 96 (0.7-0.85x at Z 128-384). LDPC_BATCH_Z_MAX is where a
 * caller should stop batching. */
#ifndef OFDMSIM_CODING_LDPC_BATCH_H
#define OFDMSIM_CODING_LDPC_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "coding/ldpc_decode.h"

#define LDPC_BATCH 8
/* The largest Z at which batching pays (measured, BENCHMARKS.md). */
#define LDPC_BATCH_Z_MAX 72

/* The kernel choice of coding/ldpc_decode.h: AUTO (AVX2 where the CPU has
 * it, else gen), GEN (plain C, any host) or AVX2 (refused, NULL, on a CPU
 * without it). */
typedef ldpc_kernel ldpc_batch_kernel;

typedef struct ldpc_batch_decoder ldpc_batch_decoder;

/* A batch decoder for base graph bg and lifting size z with kernel `kernel`;
 * NULL with a message in err on bad input, no memory, or an AVX2 kernel
 * asked of a CPU without it (or of a build for a compiler without it). */
ldpc_batch_decoder *ldpc_batch_create(int bg, int z, const ldpc_decoder_config *cfg, ldpc_batch_kernel kernel,
                                      char *err, size_t err_len);

/* The kernel a decoder runs: LDPC_KERNEL_GEN or LDPC_KERNEL_AVX2. */
ldpc_batch_kernel ldpc_batch_kernel_used(const ldpc_batch_decoder *d);

/* 1 when this host can run the AVX2 kernel. */
int ldpc_batch_have_avx2(void);

/* Decodes n blocks (1 .. LDPC_BATCH): block b's input is llr[b] (Nb Z LLRs,
 * as ldpc_decoder_execute takes them), its decisions on the first k_prime
 * systematic bits go to bits[b] and its result to res[b]. 0, or -1 when n or
 * k_prime is out of range. */
int ldpc_batch_execute(ldpc_batch_decoder *d, int n, const float *const *llr, int k_prime, uint8_t *const *bits,
                       ldpc_decode_result *res);

void ldpc_batch_destroy(ldpc_batch_decoder *d);

#endif
