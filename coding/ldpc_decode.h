/* LDPC decoding of one code block from channel LLRs (ln P(1)/P(0), positive:
 * bit 1): layered normalised or offset min-sum, or flooding sum-product (BP)
 * as the reference; the per-check arithmetic is coding/ldpc_msg.h.
 *
 * Input: llr[0 .. Nb Z - 1], the whole codeword (ratematch_decoder_input
 * builds it: 0 for punctured and unsent bits, LDPC_LLR_FILLER for fillers).
 * Only the rows whose extension parity column carries a nonzero LLR are
 * decoded: a row whose own parity bit is erased (q = 0 on a degree-one bit)
 * sends zero messages to every other bit under min-sum (under BP at most
 * phi(16.8) = 1e-7, the clamp of coding/ldpc_msg.h), and its check can always
 * be met by that bit, so leaving it out changes no decision and makes a
 * high-rate block cheap.
 *
 * Each iteration ends with the syndrome of the hard decisions (bit 1 where
 * the a posteriori LLR's sign bit is clear, as the receivers decide) over
 * the decoded rows; a zero syndrome stops the decoder. The caller checks the
 * code block CRC. */
#ifndef OFDMSIM_CODING_LDPC_DECODE_H
#define OFDMSIM_CODING_LDPC_DECODE_H

#include <stddef.h>
#include <stdint.h>

typedef enum ldpc_algorithm {
  LDPC_LAYERED_NMS,   /* layered normalised min-sum, messages times alpha */
  LDPC_LAYERED_OMS,   /* layered offset min-sum, magnitudes minus beta */
  LDPC_FLOODING_BP,   /* flooding sum-product, float */
  LDPC_LAYERED_NMS16, /* layered normalised min-sum in int16 fixed point
                         (coding/ldpc_msg16.h: the LLRs quantised once at
                         the input, alpha rounded to k/2^15) */
} ldpc_algorithm;

typedef struct ldpc_decoder_config {
  ldpc_algorithm algorithm;
  float alpha;          /* normalised min-sum scale (default 0.75) */
  float beta;           /* offset min-sum offset (default 0.5) */
  int max_iterations;   /* >= 1 (default 10) */
  int full_iterations;  /* 1: always max_iterations (no early termination on
                           a zero syndrome); 0 (default): stop there */
} ldpc_decoder_config;

typedef struct ldpc_decode_result {
  int iterations;       /* iterations run (the one that met the syndrome included) */
  int syndrome_ok;      /* 1 when the decisions satisfy every decoded check */
  int rows_used;        /* base-graph rows decoded */
} ldpc_decode_result;

/* Which kernel runs the layered rows (the batch decoder, coding/ldpc_batch.h,
 * takes the same choice): the plain C one (any host, the reference) or
 * the AVX2 one, which computes the same bits; AUTO: AVX2 where the CPU (and
 * the compiler) has it. */
typedef enum ldpc_kernel {
  LDPC_KERNEL_AUTO,
  LDPC_KERNEL_GEN,   /* plain C, any host */
  LDPC_KERNEL_AVX2,  /* refused on a CPU (or build) without AVX2 */
} ldpc_kernel;

typedef struct ldpc_decoder ldpc_decoder;

/* 1 when this host can run the AVX2 kernels. */
int ldpc_have_avx2(void);

void ldpc_decoder_config_default(ldpc_decoder_config *cfg);

/* A decoder for base graph bg (1, 2) and lifting size z; NULL with a message
 * in err on bad input or no memory. */
ldpc_decoder *ldpc_decoder_create(int bg, int z, const ldpc_decoder_config *cfg, char *err, size_t err_len);

/* Decodes one block: bits[0 .. k_prime - 1] get the decisions on the
 * systematic bits before the fillers (the punctured 2Z included). 0, or -1
 * when k_prime is outside 1 .. K. */
int ldpc_decoder_execute(ldpc_decoder *d, const float *llr, int k_prime, uint8_t *bits, ldpc_decode_result *res);

/* After execute: the a posteriori LLRs of all Nb Z bits (bits of undecoded
 * rows keep their channel LLR; LDPC_LAYERED_NMS16: the int16 values times
 * 2^-LDPC16_FRAC_BITS, exact in float), and the last message from base-graph entry
 * `entry`'s check in lane `lane` (check entry-row*Z + lane) to its bit. */
const float *ldpc_decoder_app(const ldpc_decoder *d);
float ldpc_decoder_message(const ldpc_decoder *d, int entry, int lane);

/* The layered rows' kernel of d (a new decoder has AUTO's); 0, or -1 (d
 * unchanged) for a kernel this host cannot run. Flooding BP has one, plain
 * C. */
int ldpc_decoder_set_kernel(ldpc_decoder *d, ldpc_kernel kernel);
/* LDPC_KERNEL_GEN or LDPC_KERNEL_AVX2. */
ldpc_kernel ldpc_decoder_kernel_used(const ldpc_decoder *d);

void ldpc_decoder_destroy(ldpc_decoder *d);

#endif
