/* The whole chain of a transport block, transmitter and receiver, on the
 * library's functions as the simulator will call them: TB CRC, segmentation
 * (one block and many, fillers or none), block CRC24B, encoding, rate
 * matching of every block into one concatenated G, BPSK over AWGN at an
 * Es/N0 well above every code's threshold, de-rate-matching at each block's
 * offset, decoding, the block CRCs and the TB CRC; and the CRCs catching a
 * block the decoder got wrong (a block sent with no signal at all). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coding/coding.h"
#include "testutil.h"

typedef struct {
  int tbs_ok, blocks_ok, crc_blocks_ok, bits_ok;
} chain_result;

/* Sends one TB of `tbs` bits at target rate `rate` (G = the coded bits that
 * rate gives, rounded to the modulation order qm) with redundancy version rv;
 * block `silent` (-1: none) is received as pure noise. */
static chain_result run_chain(int tbs, double rate, int qm, int rv, double esn0_db, int silent) {
  chain_result out = {0, 0, 0, 0};
  const int bg = ldpc_select_base_graph(tbs, rate);
  ldpc_segmentation s;
  if (ldpc_segment(tbs, bg, &s) != 0) return out;
  long g = (long)((double)s.b / rate);
  g -= g % qm;
  uint8_t *tb = malloc((size_t)s.b), *block = malloc((size_t)s.k), *tx = malloc((size_t)g);
  for (int j = 0; j < tbs; j++) tb[j] = (uint8_t)(test_rng_u64() & 1);
  crc_attach(ldpc_tb_crc_kind(&s), tb, (size_t)tbs);
  ldpc_code code;
  ldpc_code_init(&code, bg, s.zc);
  uint8_t *cw = malloc((size_t)ldpc_codeword_bits(&code));
  for (int r = 0; r < s.c; r++) {
    ratematch_block p;
    ldpc_segment_block(&s, tb, r, block);
    ldpc_encode(&code, block, cw);
    ratematch_block_params(&s, r, rv, qm, 1, g, 0, &p);
    ratematch_encode(&p, cw, tx + ratematch_block_offset(&s, r, qm, 1, g));
  }
  /* BPSK on each coded bit (the modulation order only shapes the
   * interleaver here): LLR = 2y/sigma^2, positive: 1. */
  const double sigma2 = 0.5 / pow(10.0, esn0_db / 10.0);
  float *rx = malloc(sizeof(float) * g);
  for (long k = 0; k < g; k++) {
    double re, im;
    test_rng_cnormal(&re, &im);
    rx[k] = (float)(2.0 * ((tx[k] ? 1.0 : -1.0) + sqrt(2.0 * sigma2) * re) / sigma2);
  }
  char err[200];
  ldpc_decoder_config cfg;
  ldpc_decoder_config_default(&cfg);
  cfg.max_iterations = 20;
  ldpc_decoder *d = ldpc_decoder_create(bg, s.zc, &cfg, err, sizeof err);
  float *buf = malloc(sizeof(float) * s.n), *llr = malloc(sizeof(float) * ldpc_codeword_bits(&code));
  uint8_t *rx_tb = malloc((size_t)s.b), *bits = malloc((size_t)s.k_prime);
  const int payload = s.k_prime - s.cb_crc;
  int blocks_ok = 0, crc_ok = 0, crc_agrees = 1;
  for (int r = 0; r < s.c; r++) {
    ratematch_block p;
    ratematch_block_params(&s, r, rv, qm, 1, g, 0, &p);
    const long off = ratematch_block_offset(&s, r, qm, 1, g);
    if (r == silent)
      for (int k = 0; k < p.e; k++) {
        double re, im;
        test_rng_cnormal(&re, &im);
        rx[off + k] = (float)(2.0 * sqrt(2.0 * sigma2) * re / sigma2);
      }
    memset(buf, 0, sizeof(float) * s.n);
    ratematch_accumulate(&p, rx + off, buf);
    ratematch_decoder_input(&p, buf, llr);
    ldpc_decode_result res;
    ldpc_decoder_execute(d, llr, s.k_prime, bits, &res);
    ldpc_segment_block(&s, tb, r, block);
    const int right = memcmp(bits, block, (size_t)s.k_prime) == 0;
    blocks_ok += right;
    if (s.c > 1) {
      const int passes = crc_check(CRC24B, bits, (size_t)s.k_prime);
      crc_ok += passes;
      crc_agrees &= passes == right;
    }
    memcpy(rx_tb + (size_t)r * payload, bits, (size_t)payload);
  }
  out.tbs_ok = crc_check(ldpc_tb_crc_kind(&s), rx_tb, (size_t)s.b);
  out.blocks_ok = blocks_ok == s.c;
  out.crc_blocks_ok = s.c == 1 || (crc_agrees && crc_ok == blocks_ok);
  out.bits_ok = memcmp(rx_tb, tb, (size_t)s.b) == 0;
  ldpc_decoder_destroy(d);
  free(tb);
  free(block);
  free(tx);
  free(cw);
  free(rx);
  free(buf);
  free(llr);
  free(rx_tb);
  free(bits);
  return out;
}

int main(void) {
  test_rng_seed(7212);
  /* TBS, rate, Qm, rv: BG2 one block with fillers; BG2 three blocks; BG1 one
   * block, no fillers; BG1 26 blocks with 224 fillers each at 256QAM's
   * interleaver; rv 2 and 3 (which start inside the parity). Es/N0 6 dB: a
   * raw bit error rate of 2.4e-3, so the decoder has work, while BPSK's
   * capacity there (0.99) is above every rate here. */
  static const struct {
    int tbs;
    double rate;
    int qm, rv;
  } cases[] = {{1000, 0.5, 2, 0}, {9984, 0.2, 4, 0}, {8424, 0.5, 6, 0}, {213176, 0.9, 8, 0}, {8424, 0.4, 2, 2},
               {1000, 0.3, 4, 3}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const chain_result r = run_chain(cases[c].tbs, cases[c].rate, cases[c].qm, cases[c].rv, 6.0, -1);
    CHECK(r.tbs_ok && r.blocks_ok && r.crc_blocks_ok && r.bits_ok, "TBS %d rate %.2f rv %d: TB CRC %d blocks %d "
          "block CRCs %d bits %d", cases[c].tbs, cases[c].rate, cases[c].rv, r.tbs_ok, r.blocks_ok, r.crc_blocks_ok,
          r.bits_ok);
  }
  /* A block received as noise alone: it decodes wrong (or not at all), its
   * CRC24B says so, and so does the TB CRC. */
  const chain_result bad = run_chain(9984, 0.2, 4, 0, 6.0, 1);
  CHECK(!bad.blocks_ok && bad.crc_blocks_ok && !bad.tbs_ok && !bad.bits_ok,
        "a block of noise: blocks %d, block CRCs agree %d, TB CRC %d", bad.blocks_ok, bad.crc_blocks_ok, bad.tbs_ok);
  return test_finish("test_coding_chain");
}
