/* LDPC rate matching (TS 38.212 5.4.2) and its receiver-side inverse.
 *
 * Transmitter, per code block r: the circular buffer is d = codeword bits
 * 2Z .. (Nb Z - 1) (the first 2Z systematic bits are never sent), the first
 * Ncb of them; bit selection reads E bits from position k0(rv) on, around the
 * buffer, skipping filler bits; bit interleaving writes them row by row into
 * Qm rows of E/Qm and reads them out column by column
 * (f_{i + j Qm} = e_{i E/Qm + j}); the blocks' f are concatenated.
 *
 * Receiver: LLRs (ln P(b=1)/P(b=0), positive: 1, as the receivers write
 * them) are de-interleaved and ADDED into a circular buffer at the positions
 * the transmitter read, so a repeated bit (E > Ncb) or a retransmission with
 * another rv (HARQ) is combined by the same accumulation; the decoder's input
 * then has 0 (erasure) for the punctured 2Z bits and never-sent bits, and
 * LDPC_LLR_FILLER, a large negative LLR, for the fillers (known 0). */
#ifndef OFDMSIM_CODING_RATEMATCH_H
#define OFDMSIM_CODING_RATEMATCH_H

#include <stdint.h>

#include "coding/segment.h"
#include "core/cplx.h"

/* The LLR a filler bit gets: a known 0, far beyond any channel LLR. */
#define LDPC_LLR_FILLER (-1.0e4f)

/* (also included by cuda/coded_gpu.cu: C linkage there) */
#ifdef __cplusplus
extern "C" {
#endif

typedef struct ratematch_block {
  int bg, zc;
  int n;        /* N = 66 Zc or 50 Zc */
  int ncb;      /* circular buffer length: N, or min(N, Nref) with LBRM */
  int k0;       /* start position of the redundancy version */
  int e;        /* E_r: bits of this block after rate matching */
  int qm;       /* modulation order: the interleaver's row count */
  int filler_begin, filler_end; /* fillers at buffer positions [begin, end) */
} ratematch_block;

/* Rate matching parameters of block r of segmentation s for redundancy
 * version rv (0..3), modulation order qm, nl layers and G coded bits for the
 * TB (E_r: the Nl Qm floor/ceil split of G over the C blocks). tbs_lbrm > 0
 * selects limited buffer rate matching (I_LBRM = 1, R_LBRM = 2/3:
 * Nref = floor(TBS_LBRM / (C R_LBRM))); 0 the full buffer. 0, or -1 on
 * out-of-range input (rv, qm not in 1, 2, 4, 6, 8, G not a multiple of
 * nl qm, r out of range). */
int ratematch_block_params(const ldpc_segmentation *s, int r, int rv, int qm, int nl, long g, long tbs_lbrm,
                           ratematch_block *p);

/* Where block r's bits start in the concatenated g: the sum of E_0..E_{r-1}. */
long ratematch_block_offset(const ldpc_segmentation *s, int r, int qm, int nl, long g);

/* Transmitter: codeword cw (Nb Zc bits from ldpc_encode) to the E
 * interleaved bits f[0..E-1]. */
void ratematch_encode(const ratematch_block *p, const uint8_t *cw, uint8_t *f);

/* Receiver: adds the E LLRs of f_llr (interleaved order) into buffer[0..Ncb-1]
 * (circular buffer positions, zeroed by the caller before the first
 * transmission and kept across retransmissions). */
void ratematch_accumulate(const ratematch_block *p, const float *f_llr, float *buffer);

/* The decoder's input from a circular buffer: llr[0 .. Nb Zc - 1] with 0 for
 * the 2 Zc punctured bits and positions past Ncb, LDPC_LLR_FILLER at the
 * fillers, the buffer's sums elsewhere. */
void ratematch_decoder_input(const ratematch_block *p, const float *buffer, float *llr);

/* The gather form of de-rate-matching, for a decoder input built one
 * position at a time (the GPU backend's de-rate-matching kernel): the walk
 * of bit selection visits the non-filler buffer positions in a cycle of
 * P = Ncb - fillers steps, so buffer position pos receives the LLRs of the
 * selected bits k = first[pos], first[pos] + P, ... (< E), in that order,
 * each read from f_llr[src[k]]. first: Ncb entries (-1: a position no bit
 * reaches, or a filler), src: E entries. Returns P. Summing from 0 in that
 * order gives ratematch_accumulate's buffer bit for bit (the same float
 * additions in the same order). */
int ratematch_gather_table(const ratematch_block *p, int32_t *first, int32_t *src);

#ifdef __cplusplus
}
#endif

/* Bit selection and interleaving as closed forms of one index, for gcc and
 * nvcc alike (OFDM_HD): ratematch_encode on the host and the GPU backend's
 * transmitter (cuda/tb_encode_gpu.cu, one thread a bit) read f_o from the
 * same buffer position, so the two cannot drift; the receiver's walk
 * (ratematch_accumulate) visits the same positions one after another, and
 * the rate-matching tests hold the two forms to each other.
 *
 * The fillers inside the buffer are [fb, fe) = [filler_begin, filler_end)
 * clipped to [0, Ncb); the walk from k0 around the buffer skips them, so
 * selected bit k sits at the non-filler position of rank (rank(k0) + k) mod
 * P, P = Ncb - (fe - fb) the non-filler positions, where rank(pos) counts
 * the non-filler positions before pos (a k0 inside the fillers has the rank
 * of the first position after them, where the walk goes on). */
OFDM_HD int ratematch_filler_lo(const ratematch_block *p) {
  return p->filler_begin < 0 ? 0 : p->filler_begin > p->ncb ? p->ncb : p->filler_begin;
}
OFDM_HD int ratematch_filler_hi(const ratematch_block *p) {
  const int lo = ratematch_filler_lo(p);
  return p->filler_end < lo ? lo : p->filler_end > p->ncb ? p->ncb : p->filler_end;
}

/* P: the non-filler positions of the buffer, the walk's period. */
OFDM_HD int ratematch_period(const ratematch_block *p) {
  return p->ncb - (ratematch_filler_hi(p) - ratematch_filler_lo(p));
}

/* The rank of e_k among the non-filler positions, (rank(k0) + k) mod P. */
OFDM_HD int ratematch_selected_rank(const ratematch_block *p, int k) {
  const int lo = ratematch_filler_lo(p), hi = ratematch_filler_hi(p);
  const int period = p->ncb - (hi - lo);
  const int k0 = p->k0, rank0 = k0 < lo ? k0 : k0 < hi ? lo : k0 - (hi - lo);
  /* 32-bit unsigned: both terms are below 2^31, and the device divides
   * faster than in 64 bits */
  return (int)(((unsigned)rank0 + (unsigned)k) % (unsigned)period);
}

/* The buffer position of the non-filler position of rank q (0 .. P-1). */
OFDM_HD int ratematch_rank_position(const ratematch_block *p, int q) {
  const int lo = ratematch_filler_lo(p), hi = ratematch_filler_hi(p);
  return q < lo ? q : q + (hi - lo);
}

/* The buffer position (0 .. Ncb-1, codeword bit 2Zc + it) of e_k. */
OFDM_HD int ratematch_selected_position(const ratematch_block *p, int k) {
  return ratematch_rank_position(p, ratematch_selected_rank(p, k));
}

/* The bit selection index k of f_o: the interleaver writes e row by row into
 * Qm rows of E/Qm and reads column by column, f_{i + j Qm} = e_{i E/Qm + j}. */
OFDM_HD int ratematch_interleaved_source(const ratematch_block *p, int o) {
  return (o % p->qm) * (p->e / p->qm) + o / p->qm;
}

#endif
