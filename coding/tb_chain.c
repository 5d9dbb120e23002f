/* One transport block through the 38.212 chain (tb_chain.h). */
#include "coding/tb_chain.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coding/crc.h"
#include "core/rng.h"
#include "coding/ldpc_encode.h"
#include "coding/tbs.h"

int tb_plan_make(int tbs, double rate, int qm, int layers, long g, int rv, tb_plan *p, char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  if (tbs < 1 || !(rate > 0.0 && rate < 1.0) || layers < 1 || g < 1 || rv < 0 || rv > 3) {
    snprintf(err, errlen, "a TB of %d bits at rate %g on %d layers over %ld coded bits, rv %d: out of range", tbs,
             rate, layers, g, rv);
    return -1;
  }
  const int bg = ldpc_select_base_graph(tbs, rate);
  if (ldpc_segment(tbs, bg, &p->seg)) {
    snprintf(err, errlen, "a TB of %d bits: not a 38.214 transport block size (its code blocks do not split it "
             "evenly)", tbs);
    return -1;
  }
  const ldpc_segmentation *s = &p->seg;
  /* the rate the code must carry: TB and CRC bits over what the frame sends */
  const double eff = (double)s->b / (double)g;
  /* BG2's mother code rate is 1/5; BG1's is 1/3, but 38.212 picks BG1 down
   * to R = 1/4 (7.2.2), repeating part of its circular buffer there */
  const double lowest = bg == 1 ? 1.0 / 4.0 : 1.0 / 5.0;
  if (eff < lowest) {
    snprintf(err, errlen,
             "a TB of %d bits (%d with its CRC) in %ld coded bits is rate %.4f, below base graph %d's lowest rate "
             "%s: expected a larger TB or a smaller frame", tbs, s->b, g, eff, bg, bg == 1 ? "1/4" : "1/5");
    return -1;
  }
  if (eff > 0.95) {
    snprintf(err, errlen,
             "a TB of %d bits (%d with its CRC) does not fit %ld coded bits (rate %.4f, at most 0.95): expected a "
             "smaller TB or a larger frame", tbs, s->b, g, eff);
    return -1;
  }
  if (g % ((long)layers * qm) != 0 || g / ((long)layers * qm) < s->c) {
    snprintf(err, errlen, "%ld coded bits cannot carry %d code blocks on %d layers of %d bits", g, s->c, layers, qm);
    return -1;
  }
  if (ldpc_code_init(&p->code, s->bg, s->zc)) {
    snprintf(err, errlen, "no LDPC code for base graph %d, Z %d", s->bg, s->zc);
    return -1;
  }
  p->qm = qm;
  p->layers = layers;
  p->rv = rv;
  p->g = g;
  p->rm = calloc((size_t)s->c, sizeof *p->rm);
  p->offset = calloc((size_t)s->c, sizeof *p->offset);
  if (!p->rm || !p->offset) {
    tb_plan_free(p);
    snprintf(err, errlen, "no memory for %d code blocks", s->c);
    return -1;
  }
  for (int r = 0; r < s->c; r++) {
    if (ratematch_block_params(s, r, rv, qm, layers, g, 0, &p->rm[r])) {
      tb_plan_free(p);
      snprintf(err, errlen, "rate matching refuses block %d (rv %d, qm %d, %d layers, G %ld)", r, rv, qm, layers, g);
      return -1;
    }
    p->offset[r] = ratematch_block_offset(s, r, qm, layers, g);
  }
  return 0;
}

void tb_plan_free(tb_plan *p) {
  free(p->rm);
  free(p->offset);
  p->rm = NULL;
  p->offset = NULL;
}

/* Scratch: the TB with its CRC twice (B bits: decided and sent), a block
 * twice (K), a codeword (Nb Z bytes), and as floats a circular buffer and
 * the decoder's input (Nb Z each), then a block's E LLRs in coded order. */
static size_t cw_bits(const tb_plan *p) { return (size_t)ldpc_codeword_bits(&p->code); }

static size_t max_e(const tb_plan *p) {
  size_t e = 0;
  for (int r = 0; r < p->seg.c; r++) e = (size_t)p->rm[r].e > e ? (size_t)p->rm[r].e : e;
  return e;
}

size_t tb_scratch_bytes(const tb_plan *p) {
  const size_t b = (size_t)p->seg.b + 64, k = (size_t)p->seg.k + 64, cw = cw_bits(p);
  return 2 * b + 2 * k + cw + sizeof(float) * (2 * cw + max_e(p)) + 64;
}

void tb_encode(const tb_plan *p, const uint8_t *info, uint8_t *coded, void *scratch) {
  const ldpc_segmentation *s = &p->seg;
  uint8_t *tb = scratch, *block = tb + s->b + 64, *cw = block + s->k + 64;
  memcpy(tb, info, (size_t)s->a);
  crc_attach(ldpc_tb_crc_kind(s), tb, (size_t)s->a);
  for (int r = 0; r < s->c; r++) {
    ldpc_segment_block(s, tb, r, block);
    ldpc_encode(&p->code, block, cw);
    ratematch_encode(&p->rm[r], cw, coded + p->offset[r]);
  }
}

int tb_harq_rv(int t) {
  static const int seq[4] = {0, 2, 3, 1};
  return seq[t & 3];
}

size_t tb_harq_buffer_floats(const tb_plan *p) { return (size_t)p->seg.c * (size_t)p->rm[0].ncb; }

/* Block r's decoder input `in` (Nb Z floats) from a transmission's g LLRs:
 * de-rate-matched into the zeroed circular buffer `own` with cbuf NULL,
 * else added into block r's part of the combining buffer cbuf, kept;
 * `coded` holds the block's E LLRs in the coded order meanwhile. */
static void block_input(const tb_plan *p, const float *llr, float *cbuf, int r, float *own, float *coded,
                        float *in) {
  const ratematch_block *rm = &p->rm[r];
  float *buf = cbuf ? cbuf + (size_t)r * (size_t)rm->ncb : own;
  if (!cbuf) memset(buf, 0, sizeof(float) * (size_t)rm->ncb);
  /* block r's E bits start on a symbol (E_r is a multiple of layers x qm),
   * so its coded order is the receivers' order permuted within symbols */
  const float *l = llr + p->offset[r];
  for (size_t i = 0; i < (size_t)rm->e; i++) coded[i] = l[tb_llr_index(i, p->qm)];
  ratematch_accumulate(rm, coded, buf);
  ratematch_decoder_input(rm, buf, in);
}

/* The receiver's body: with cbuf NULL every block's circular buffer is the
 * scratch's, zeroed (one transmission); else block r's is cbuf + r Ncb, kept
 * (combining). */
static void decode_blocks(const tb_plan *p, ldpc_decoder *d, const float *llr, float *cbuf, const uint8_t *info,
                          tb_outcome *out, void *scratch);

void tb_decode(const tb_plan *p, ldpc_decoder *d, const float *llr, const uint8_t *info, tb_outcome *out,
               void *scratch) {
  decode_blocks(p, d, llr, NULL, info, out, scratch);
}

void tb_decode_combine(const tb_plan *p, ldpc_decoder *d, const float *llr, float *cbuf, const uint8_t *info,
                       tb_outcome *out, void *scratch) {
  decode_blocks(p, d, llr, cbuf, info, out, scratch);
}

/* Block r's decisions `bits` (K' of them) into the decided TB `tb`, and
 * against the block sent (cut from `sent`, the TB with its CRC, into
 * `block`): a block is in error when its decisions (payload and CRC) are
 * not what was sent, whatever its CRC says. Returns 1 when its CB CRC fails. */
static int judge_block(const ldpc_segmentation *s, int r, const uint8_t *bits, const uint8_t *sent, uint8_t *tb,
                       uint8_t *block, tb_outcome *out) {
  const int payload = s->k_prime - s->cb_crc;
  memcpy(tb + (size_t)r * payload, bits, (size_t)payload);
  ldpc_segment_block(s, sent, r, block);
  out->cb_errors += memcmp(bits, block, (size_t)s->k_prime) != 0;
  return s->cb_crc && !crc_check(CRC24B, bits, (size_t)s->k_prime);
}

/* The decided TB's CRC and information bits: lost when a CRC fails, or (a
 * CRC miss) the delivered bits are wrong. */
static void judge_tb(const ldpc_segmentation *s, const uint8_t *tb, const uint8_t *info, int crc_failed,
                     tb_outcome *out) {
  if (!crc_check(ldpc_tb_crc_kind(s), tb, (size_t)s->b)) crc_failed = 1;
  for (int i = 0; i < s->a; i++) out->info_errors += tb[i] != info[i];
  out->tb_error = crc_failed || out->info_errors > 0;
}

static void decode_blocks(const tb_plan *p, ldpc_decoder *d, const float *llr, float *cbuf, const uint8_t *info,
                          tb_outcome *out, void *scratch) {
  const ldpc_segmentation *s = &p->seg;
  /* the decided TB, the sent TB, a block's decisions, the block sent */
  uint8_t *tb = scratch, *sent = tb + s->b + 64, *bits = sent + s->b + 64, *block = bits + s->k + 64;
  float *const own = (float *)(((uintptr_t)(block + s->k + 64) + 15) & ~(uintptr_t)15);
  float *in = own + cw_bits(p), *coded = in + cw_bits(p);
  memset(out, 0, sizeof *out);
  memcpy(sent, info, (size_t)s->a);
  crc_attach(ldpc_tb_crc_kind(s), sent, (size_t)s->a);
  int crc_failed = 0;
  for (int r = 0; r < s->c; r++) {
    block_input(p, llr, cbuf, r, own, coded, in);
    ldpc_decode_result res;
    ldpc_decoder_execute(d, in, s->k_prime, bits, &res);
    out->iterations += res.iterations;
    crc_failed |= judge_block(s, r, bits, sent, tb, block, out);
  }
  judge_tb(s, tb, info, crc_failed, out);
}

/* Group scratch: tb_judge's (2 B + K bytes, padded), a circular buffer and
 * LDPC_BATCH decoder inputs (Nb Z floats each), a block's E LLRs, and the
 * decisions of every
 * block of TB_GROUP TBs (K' bytes each, padded). */
static size_t group_bits_stride(const tb_plan *p) { return ((size_t)p->seg.k_prime + 63) & ~(size_t)63; }
static size_t group_judge_bytes(const tb_plan *p) {
  return (2 * ((size_t)p->seg.b + 64) + (size_t)p->seg.k + 64 + 63) & ~(size_t)63;
}

size_t tb_group_scratch_bytes(const tb_plan *p) {
  return group_judge_bytes(p) + sizeof(float) * ((1 + LDPC_BATCH) * cw_bits(p) + max_e(p)) +
         (size_t)TB_GROUP * (size_t)p->seg.c * group_bits_stride(p) + 64;
}

void tb_decode_group(const tb_plan *p, ldpc_batch_decoder *d, int n, const float *const *llr, float *const *cbuf,
                     const uint8_t *const *info, tb_outcome *out, void *scratch) {
  const ldpc_segmentation *s = &p->seg;
  const size_t cw = cw_bits(p), stride = group_bits_stride(p);
  unsigned char *judge = scratch;
  float *const own = (float *)(((uintptr_t)(judge + group_judge_bytes(p)) + 63) & ~(uintptr_t)63);
  float *const inputs = own + cw;
  float *const coded = inputs + LDPC_BATCH * cw;
  uint8_t *const decided = (uint8_t *)(coded + max_e(p));
  int iterations[TB_GROUP] = {0};
  /* the group's blocks in TB order, (t, r) = (j / C, j mod C), a batch of
   * LDPC_BATCH at a time, or one at a time above LDPC_BATCH_Z_MAX (where
   * the batch is the slower) */
  const int blocks = n * s->c, per = s->zc <= LDPC_BATCH_Z_MAX ? LDPC_BATCH : 1;
  for (int j0 = 0; j0 < blocks; j0 += per) {
    const int m = blocks - j0 < per ? blocks - j0 : per;
    const float *in[LDPC_BATCH];
    uint8_t *bits[LDPC_BATCH];
    for (int b = 0; b < m; b++) {
      const int t = (j0 + b) / s->c, r = (j0 + b) % s->c;
      float *x = inputs + (size_t)b * cw;
      block_input(p, llr[t], cbuf ? cbuf[t] : NULL, r, own, coded, x);
      in[b] = x;
      bits[b] = decided + (size_t)(j0 + b) * stride;
    }
    ldpc_decode_result res[LDPC_BATCH];
    ldpc_batch_execute(d, m, in, s->k_prime, bits, res);
    for (int b = 0; b < m; b++) iterations[(j0 + b) / s->c] += res[b].iterations;
  }
  for (int t = 0; t < n; t++)
    tb_judge(p, decided + (size_t)t * s->c * stride, stride, iterations[t], info[t], &out[t], judge);
}

void tb_judge(const tb_plan *p, const uint8_t *bits, size_t stride, int iterations, const uint8_t *info,
              tb_outcome *out, void *scratch) {
  const ldpc_segmentation *s = &p->seg;
  uint8_t *tb = scratch, *sent = tb + s->b + 64, *block = sent + s->b + 64;
  memset(out, 0, sizeof *out);
  out->iterations = iterations;
  memcpy(sent, info, (size_t)s->a);
  crc_attach(ldpc_tb_crc_kind(s), sent, (size_t)s->a);
  int crc_failed = 0;
  for (int r = 0; r < s->c; r++) crc_failed |= judge_block(s, r, bits + (size_t)r * stride, sent, tb, block, out);
  judge_tb(s, tb, info, crc_failed, out);
}

ldpc_decoder_config tb_decoder_config(int decoder, double scale, double offset, int max_iterations,
                                      int early_termination) {
  ldpc_decoder_config c;
  ldpc_decoder_config_default(&c);
  c.algorithm = decoder == 1   ? LDPC_LAYERED_OMS
                : decoder == 2 ? LDPC_FLOODING_BP
                : decoder == 3 ? LDPC_LAYERED_NMS16
                               : LDPC_LAYERED_NMS;
  c.alpha = (float)scale;
  c.beta = (float)offset;
  c.max_iterations = max_iterations;
  c.full_iterations = !early_termination;
  return c;
}

void tb_draw_info(uint64_t key, uint64_t frame, int a, uint8_t *info) {
  for (int i = 0; i < a; i += 128) {
    const rng_words w = rng_draw(key, RNG_TB_BITS, frame, (uint64_t)(i / 128));
    for (int j = 0; j < 128 && i + j < a; j++) info[i + j] = tb_info_bit(w, j);
  }
}
