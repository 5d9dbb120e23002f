/* The 5G NR channel coding library (TS 38.212 / 38.214, data channels), CPU
 * side, in plain C; it uses only core/ (for OFDM_HD). Bits are one a byte (0
 * or 1); LLRs are float ln P(b=1)/P(b=0), positive: 1, as the receivers
 * write them.
 *
 *   coding/crc.h          CRC24A/B/C, CRC16, CRC11, CRC6 (38.212 5.1)
 *   coding/tbs.h          MCS tables, TB size from REs (38.214 5.1.3), base
 *                         graph selection
 *   coding/segment.h      TB CRC and code block segmentation, fillers (5.2.2)
 *   coding/ldpc_graph.h   base graphs BG1/BG2, lifting sizes and sets, lifted
 *                         codes (5.3.2); the tables are generated into
 *                         coding/ldpc_tables.c from coding/tables/bg?.csv by
 *                         scripts/gen-ldpc-tables.py
 *   coding/ldpc_encode.h  encoding of one code block
 *   coding/ratematch.h    circular buffer, rv 0..3, bit selection and
 *                         interleaving, E per block (5.4.2); the receiver's
 *                         LLR accumulation and the decoder's input
 *   coding/ldpc_msg.h     check-node arithmetic shared with nvcc (min-sum,
 *                         sum-product)
 *   coding/ldpc_decode.h  layered normalised / offset min-sum and flooding
 *                         sum-product decoders with early termination
 *
 * Transmit chain of a TB: tbs_from_re -> ldpc_select_base_graph ->
 * ldpc_segment; TB CRC with crc_attach; per block ldpc_segment_block ->
 * ldpc_encode -> ratematch_block_params + ratematch_encode, concatenated at
 * ratematch_block_offset. Receive: ratematch_accumulate (HARQ: keep the
 * buffer) -> ratematch_decoder_input -> ldpc_decoder_execute -> crc_check of
 * the block CRC24B (C > 1) and of the TB CRC. */
#ifndef OFDMSIM_CODING_CODING_H
#define OFDMSIM_CODING_CODING_H

#include "coding/crc.h"
#include "coding/ldpc_decode.h"
#include "coding/ldpc_encode.h"
#include "coding/ldpc_graph.h"
#include "coding/ratematch.h"
#include "coding/segment.h"
#include "coding/tbs.h"

#endif
