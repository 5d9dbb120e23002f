/* One transport block through the whole 38.212 chain, both ways: the plan
 * (segmentation, base graph, every block's rate matching over the frame's G
 * coded bits), the transmitter (TB CRC, segmentation, encoding, rate
 * matching, concatenation) and the receiver (de-rate-matching, decoding,
 * CB and TB CRCs, the counts). The simulator's backends call these per
 * frame; a test can call them on LLRs of its own and get the same counts. */
#ifndef OFDMSIM_CODING_TB_CHAIN_H
#define OFDMSIM_CODING_TB_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "coding/ldpc_batch.h"
#include "coding/ldpc_decode.h"
#include "coding/label_order.h"
#include "coding/ldpc_graph.h"
#include "coding/ratematch.h"
#include "coding/segment.h"
#include "core/draws.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_plan {
  ldpc_segmentation seg;
  ldpc_code code;
  int qm, layers, rv;
  long g;                 /* coded bits of the TB: the frame's data REs x layers x qm */
  ratematch_block *rm;    /* per code block */
  long *offset;           /* where block r's E_r bits start in the G */
} tb_plan;

/* The plan of a TB of `tbs` bits at target rate `rate` (base graph choice),
 * qm bits a symbol, `layers` layers and g coded bits, redundancy version rv.
 * 0, or -1 with "why" in err: the base graph's lowest rate (1/4 for BG1,
 * which 38.212 7.2.2 picks down to R = 1/4 and which repeats part of its
 * 1/3 mother code there; 1/5 for BG2) above the effective rate (TB and CRC
 * bits over g), an effective
 * rate above 0.95 (38.214's bound: the TB does not fit the frame), a TBS the
 * segmentation refuses, or out-of-range input. */
int tb_plan_make(int tbs, double rate, int qm, int layers, long g, int rv, tb_plan *p, char *err, size_t errlen);
void tb_plan_free(tb_plan *p);

/* Bytes of scratch tb_encode and tb_decode need. */
size_t tb_scratch_bytes(const tb_plan *p);

/* The transmitter: A information bits (0/1 a byte) to the g coded bits. */
void tb_encode(const tb_plan *p, const uint8_t *info, uint8_t *coded, void *scratch);

/* What decoding one TB gave. */
typedef struct tb_outcome {
  int tb_error;      /* 1 when the TB is lost: a CB CRC or the TB CRC fails, or
                        the delivered bits differ from those sent (a CRC miss) */
  int cb_errors;     /* code blocks whose decisions differ from those sent */
  int info_errors;   /* information bits (of A) decided wrong */
  int iterations;    /* decoder iterations, summed over the blocks */
} tb_outcome;

/* The receiver: the g LLRs (ln P(1)/P(0)) in the receivers' order (symbol
 * by symbol, each symbol's in label bit order: batch_result.llr; coded bit
 * i is llr[tb_llr_index(i, qm)]) through
 * de-rate-matching and decoder d (made for the plan's graph and Z), against
 * the A information bits sent. */
void tb_decode(const tb_plan *p, ldpc_decoder *d, const float *llr, const uint8_t *info, tb_outcome *out,
               void *scratch);

/* HARQ with incremental redundancy: transmission t (0 .. 3) of a TB is
 * rate matched at redundancy version tb_harq_rv(t), the sequence 0, 2, 3, 1
 * (TS 38.321's usual order: rv 0 and 3 carry the systematic bits, 2 the
 * parity 0 leaves out). */
int tb_harq_rv(int t);

/* Floats of a TB's combining buffer: its C code blocks' circular buffers
 * of Ncb each (block r at r Ncb). */
size_t tb_harq_buffer_floats(const tb_plan *p);

/* tb_decode with combining: the g LLRs of one transmission (rate matched by
 * p, the plan of that transmission's rv) ADDED into the circular buffers
 * `cbuf` (tb_harq_buffer_floats of them, zeroed by the caller before the
 * first transmission and kept across them), then every block decoded from
 * its buffer. With cbuf zeroed, the outcome is tb_decode's, bit for bit. */
void tb_decode_combine(const tb_plan *p, ldpc_decoder *d, const float *llr, float *cbuf, const uint8_t *info,
                       tb_outcome *out, void *scratch);

/* Up to TB_GROUP TBs of one plan decoded together, their code blocks
 * LDPC_BATCH at a time through batch decoder d (made for the plan's graph
 * and Z; one block a call above LDPC_BATCH_Z_MAX): TB t's g LLRs are
 * llr[t], its information bits info[t], its outcome goes to out[t]. With cbuf NULL, each outcome is tb_decode's; with
 * cbuf, TB t's LLRs are added into its combining buffer cbuf[t] first, and
 * each outcome is tb_decode_combine's. The batch decoder equals the one-block
 * one lane by lane, so an outcome never depends on the other TBs of the
 * group. `scratch` holds tb_group_scratch_bytes. */
#define TB_GROUP LDPC_BATCH
size_t tb_group_scratch_bytes(const tb_plan *p);
void tb_decode_group(const tb_plan *p, ldpc_batch_decoder *d, int n, const float *const *llr, float *const *cbuf,
                     const uint8_t *const *info, tb_outcome *out, void *scratch);

/* tb_decode's judgement, for decisions made elsewhere (the GPU backend's
 * decoder): block r's decisions are bits[r * stride ...] (its first K' are
 * read), `iterations` their decoder iterations summed; the CRCs and counts
 * are tb_decode's, so equal decisions give equal outcomes. */
void tb_judge(const tb_plan *p, const uint8_t *bits, size_t stride, int iterations, const uint8_t *info,
              tb_outcome *out, void *scratch);

/* The A information bits of frame `frame`'s TB from the point's random
 * stream (Philox key `key`, purpose RNG_TB_BITS of core/draws.h): bit i is
 * bit (i mod 32) of word (i/32) mod 4 of draw i/128. Every backend draws
 * them so, so their TBs are the same. */
void tb_draw_info(uint64_t key, uint64_t frame, int a, uint8_t *info);

/* The decoder configuration of the simulator's decoder names (0 nms, 1 oms,
 * 2 bp, 3 nms16). */
ldpc_decoder_config tb_decoder_config(int decoder, double scale, double offset, int max_iterations,
                                      int early_termination);

#ifdef __cplusplus
}
#endif

/* The per-bit steps of the transmitter that the GPU backend's encoder
 * (cuda/tb_encode_gpu.cu) runs on the device, written once for gcc and nvcc
 * (OFDM_HD) so that the two sides cannot drift. */

/* Information bit j (0 .. 127) of draw w of RNG_TB_BITS: bit i of a TB is
 * bit i mod 128 of its draw i/128, bit (i mod 32) of word (i/32) mod 4. */
OFDM_HD uint8_t tb_info_bit(rng_words w, int j) { return (uint8_t)((w.w[j >> 5] >> (j & 31)) & 1u); }

/* The label (QAM symbol index) of stream t on a frame's data RE d: the
 * coded bits fill the data REs in frame order, and on each RE the tx layers
 * in turn (TS 38.211 7.3.1.3: symbol i of the codeword goes to layer i mod
 * v), so symbol d tx + t takes coded bits ((d tx + t) bps + k), k < bps,
 * bit k onto label bit tb_label_bit(k, bps) (label_order.h: 38.211 7.3.1.2's
 * order). The receivers' LLRs come back in that symbol order. The CPU
 * backend and the GPU's labels kernel both call it. */
OFDM_HD uint32_t tb_label(const uint8_t *coded, uint64_t d, int tx, int t, int bps) {
  return tb_symbol_label(coded + ((size_t)d * (size_t)tx + (size_t)t) * (size_t)bps, bps);
}

#endif
