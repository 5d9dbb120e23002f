/* Rate matching against a reference written here from 38.212 5.4.2 (k0,
 * E split, bit selection, interleaving), and the receiver's inverse:
 * de-interleaving and accumulation give back every kept bit, as many times
 * as it was sent (repetition, retransmissions). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coding/ldpc_encode.h"
#include "coding/ratematch.h"
#include "testutil.h"

/* 5.4.2.1/5.4.2.2 straight from the text: e_k from d around the buffer,
 * skipping NULL (filler) bits, then f_{i + j Qm} = e_{i E/Qm + j}. Also
 * counts how often each buffer position is sent. */
static void reference_rm(const uint8_t *d, int ncb, int k0, int e, int qm, int fill_lo, int fill_hi, uint8_t *f,
                         int *sent) {
  uint8_t *ev = malloc((size_t)e);
  int k = 0, j = 0;
  while (k < e) {
    const int pos = (k0 + j) % ncb;
    if (!(pos >= fill_lo && pos < fill_hi)) {
      ev[k++] = d[pos];
      sent[pos]++;
    }
    j++;
  }
  for (int jj = 0; jj < e / qm; jj++)
    for (int i = 0; i < qm; i++) f[i + jj * qm] = ev[i * (e / qm) + jj];
  free(ev);
}

/* The gather table (the GPU's de-rate-matching) against ratematch_accumulate
 * and ratematch_decoder_input: random non-integer LLRs, so a different
 * addition order would show; bit-for-bit equal decoder inputs for every rv,
 * Qm and block of segmentation s at G = g_per_qm Qm. 1 when all match. */
static int gather_matches(const ldpc_segmentation *s, long g_per_qm, int *repeated) {
  static const int qms[5] = {1, 2, 4, 6, 8};
  const int nb = s->bg == 1 ? 68 : 52;
  int ok = 1;
  for (int qi = 0; qi < 5; qi++)
    for (int rv = 0; rv < 4; rv++)
      for (int r = 0; r < s->c; r++) {
        const long g = g_per_qm * qms[qi];
        ratematch_block p;
        if (ratematch_block_params(s, r, rv, qms[qi], 1, g, 0, &p)) return 0;
        float *fl = malloc(sizeof(float) * p.e), *buf = calloc((size_t)p.ncb, sizeof(float));
        float *want = malloc(sizeof(float) * nb * p.zc), *got = malloc(sizeof(float) * nb * p.zc);
        int32_t *first = malloc(sizeof(int32_t) * p.ncb), *src = malloc(sizeof(int32_t) * p.e);
        for (int k = 0; k < p.e; k++) fl[k] = (float)((double)(test_rng_u64() % 2000001) / 1e5 - 10.0);
        ratematch_accumulate(&p, fl, buf);
        ratematch_decoder_input(&p, buf, want);
        const int period = ratematch_gather_table(&p, first, src);
        if (p.e > period) *repeated = 1;
        for (int j = 0; j < nb * p.zc; j++) {
          const int pos = j - 2 * p.zc;
          float v = 0.0f;
          if (pos >= p.filler_begin && pos < p.filler_end) v = LDPC_LLR_FILLER;
          else if (pos >= 0 && pos < p.ncb && first[pos] >= 0)
            for (int k = first[pos]; k < p.e; k += period) v += fl[src[k]];
          got[j] = v;
        }
        ok &= memcmp(want, got, sizeof(float) * nb * p.zc) == 0;
        free(fl), free(buf), free(want), free(got), free(first), free(src);
      }
  return ok;
}

int main(void) {
  /* k0 by hand: BG1 Zc 384, Ncb = N = 25344 = 66 Zc, so k0 = num * Zc:
   * 0, 17*384 = 6528, 33*384 = 12672, 56*384 = 21504; BG2 Zc 104, N 5200:
   * 0, 13*104 = 1352, 25*104 = 2600, 43*104 = 4472. */
  ldpc_segmentation s1, s2, s3;
  ldpc_segment(8424, 1, &s1);
  ldpc_segment(1000, 2, &s2);
  ratematch_block p;
  const int k0_bg1[4] = {0, 6528, 12672, 21504}, k0_bg2[4] = {0, 1352, 2600, 4472};
  int k0_ok = 1;
  for (int rv = 0; rv < 4; rv++) {
    k0_ok &= ratematch_block_params(&s1, 0, rv, 2, 1, 16896, 0, &p) == 0 && p.k0 == k0_bg1[rv] && p.ncb == 25344;
    k0_ok &= ratematch_block_params(&s2, 0, rv, 2, 1, 3072, 0, &p) == 0 && p.k0 == k0_bg2[rv] && p.ncb == 5200;
  }
  CHECK(k0_ok, "k0 of the full buffer");
  /* Limited buffer: A 213176 (C 26), TBS_LBRM 213176: Nref = floor(213176 /
   * (26 * 2/3)) = floor(12298.6) = 12298 < N; k0 = floor(num 12298 / 25344)
   * 384: rv1 8*384 = 3072, rv2 16*384 = 6144, rv3 27*384 = 10368. */
  ldpc_segment(213176, 1, &s3);
  const int k0_lbrm[4] = {0, 3072, 6144, 10368};
  k0_ok = 1;
  for (int rv = 0; rv < 4; rv++)
    k0_ok &= ratematch_block_params(&s3, 0, rv, 8, 2, 16L * 26 * 1000, 213176, &p) == 0 && p.ncb == 12298 &&
             p.k0 == k0_lbrm[rv];
  CHECK(k0_ok, "k0 and Ncb of the limited buffer");
  /* E split: A 9984 on BG2 has C 3; G 10000, Qm 4, 2 layers: G/(Nl Qm) = 1250,
   * 1250 mod 3 = 2, so block 0 gets 8 floor(1250/3) = 3328 and blocks 1, 2
   * get 8 * 417 = 3336 (3328 + 2*3336 = 10000). */
  ldpc_segmentation s4;
  ldpc_segment(9984, 2, &s4);
  int e_ok = 1;
  const int e_want[3] = {3328, 3336, 3336}, off_want[3] = {0, 3328, 6664};
  for (int r = 0; r < 3; r++)
    e_ok &= ratematch_block_params(&s4, r, 0, 4, 2, 10000, 0, &p) == 0 && p.e == e_want[r] &&
            ratematch_block_offset(&s4, r, 4, 2, 10000) == off_want[r];
  CHECK(e_ok, "E per block and offsets");
  CHECK(ratematch_block_params(&s4, 0, 4, 4, 2, 10000, 0, &p) == -1, "rv 4 accepted");
  CHECK(ratematch_block_params(&s4, 0, 0, 3, 2, 10000, 0, &p) == -1, "Qm 3 accepted");
  CHECK(ratematch_block_params(&s4, 3, 0, 4, 2, 10000, 0, &p) == -1, "block 3 of 3 accepted");
  CHECK(ratematch_block_params(&s4, 0, 0, 4, 2, 10001, 0, &p) == -1, "G not a multiple of Nl Qm accepted");

  /* Round trips: several TBs (fillers or not, both graphs), every rv and Qm;
   * G below the buffer and above it (repetition). */
  static const struct {
    int a, bg;
    long g_per_qm;
  } tbs[] = {{100, 2, 300}, {100, 2, 1500}, {1000, 2, 1540}, {8424, 1, 8448}, {8424, 1, 30000}, {9984, 2, 5000}};
  static const int qms[5] = {1, 2, 4, 6, 8};
  test_rng_seed(77);
  int match = 1, back = 1, repeated = 0, harq = 1;
  for (size_t t = 0; t < sizeof tbs / sizeof tbs[0]; t++) {
    ldpc_segmentation s;
    ldpc_segment(tbs[t].a, tbs[t].bg, &s);
    ldpc_code code;
    ldpc_code_init(&code, s.bg, s.zc);
    const int nbits = ldpc_codeword_bits(&code);
    uint8_t *info = calloc((size_t)s.k, 1), *cw = malloc((size_t)nbits);
    float *buf = malloc(sizeof(float) * s.n), *llr = malloc(sizeof(float) * nbits);
    int *sent = malloc(sizeof(int) * s.n);
    for (int j = 0; j < s.k_prime; j++) info[j] = (uint8_t)(test_rng_u64() & 1);
    ldpc_encode(&code, info, cw);
    for (int qi = 0; qi < 5; qi++) {
      const int qm = qms[qi];
      const long g = tbs[t].g_per_qm * qm;
      ratematch_block_params(&s, 0, 0, qm, 1, g, 0, &p);
      uint8_t *f = malloc((size_t)p.e), *fr = malloc((size_t)p.e);
      float *fl = malloc(sizeof(float) * p.e);
      memset(buf, 0, sizeof(float) * s.n);
      memset(sent, 0, sizeof(int) * s.n);
      for (int rv = 0; rv < 4; rv++) {
        ratematch_block_params(&s, 0, rv, qm, 1, g, 0, &p);
        ratematch_encode(&p, cw, f);
        reference_rm(cw + 2 * s.zc, p.ncb, p.k0, p.e, qm, p.filler_begin, p.filler_end, fr, sent);
        match &= memcmp(f, fr, (size_t)p.e) == 0;
        /* Each bit as an LLR of +-1 (positive: 1), accumulated over the rvs:
         * HARQ combining in the buffer. */
        for (int k = 0; k < p.e; k++) fl[k] = f[k] ? 1.0f : -1.0f;
        ratematch_accumulate(&p, fl, buf);
        ratematch_decoder_input(&p, buf, llr);
        /* Every position: the sign of its bit times how often it was sent. */
        for (int k = 0; k < nbits; k++) {
          const int pos = k - 2 * s.zc;
          float want;
          if (pos < 0 || pos >= p.ncb)
            want = 0.0f;
          else if (pos >= p.filler_begin && pos < p.filler_end)
            want = LDPC_LLR_FILLER;
          else
            want = (float)sent[pos] * (cw[k] ? 1.0f : -1.0f);
          back &= llr[k] == want;
        }
        if (rv == 0)
          for (int k = 0; k < p.ncb; k++) repeated |= sent[k] >= 2;
        if (rv == 3) {
          int total = 0;
          for (int k = 0; k < p.ncb; k++) total += sent[k];
          harq &= total == 4 * p.e;
        }
      }
      free(f);
      free(fr);
      free(fl);
    }
    free(info);
    free(cw);
    free(buf);
    free(llr);
    free(sent);
  }
  CHECK(match, "rate matching differs from the reference");
  CHECK(back, "de-rate-matching does not return every sent bit with its count");
  CHECK(repeated, "no case repeated a bit (E > Ncb)");
  CHECK(harq, "four transmissions did not accumulate 4E LLRs");
  /* the gather table: one block and several (C > 1, unequal E_r), with
   * repetition (G above the buffer) */
  int gather_rep = 0, gather_ok = 1;
  for (size_t t = 0; t < sizeof tbs / sizeof tbs[0]; t++) {
    ldpc_segmentation s;
    ldpc_segment(tbs[t].a, tbs[t].bg, &s);
    gather_ok &= gather_matches(&s, tbs[t].g_per_qm, &gather_rep);
  }
  CHECK(gather_ok, "the gather table's decoder input differs from ratematch_accumulate's");
  /* The closed forms ratematch_encode uses (and the device with it) against
   * the reference walk where they are least obvious: limited buffers (Ncb
   * below N, down into and below the fillers), so that k0 falls inside the
   * fillers or the fillers run past Ncb, every rv and Qm, several blocks. */
  static const struct {
    int a, bg;
  } lbrm_tbs[] = {{100, 2}, {400, 2}, {1000, 2}, {3000, 1}, {8424, 1}, {9984, 2}, {25344, 1}};
  int closed_ok = 1, k0_in_fillers = 0, fillers_cut = 0;
  for (size_t t = 0; t < sizeof lbrm_tbs / sizeof lbrm_tbs[0]; t++) {
    ldpc_segmentation s;
    if (ldpc_segment(lbrm_tbs[t].a, lbrm_tbs[t].bg, &s)) {
      closed_ok = 0;
      continue;
    }
    ldpc_code code;
    ldpc_code_init(&code, s.bg, s.zc);
    const int nbits = ldpc_codeword_bits(&code);
    uint8_t *info = calloc((size_t)s.k, 1), *cw = malloc((size_t)nbits);
    for (int j = 0; j < s.k_prime; j++) info[j] = (uint8_t)(test_rng_u64() & 1);
    ldpc_encode(&code, info, cw);
    int *sent = malloc(sizeof(int) * s.n);
    /* TBS_LBRM from the full buffer down: Nref = 3 TBS_LBRM / (2 C) */
    for (int step = 0; step <= 12; step++) {
      const long ncb_want = (long)s.n - (long)step * s.n / 14;
      const long lbrm = step == 0 ? 0 : (2L * s.c * ncb_want) / 3;
      for (int qi = 0; qi < 5; qi++)
        for (int rv = 0; rv < 4; rv++)
          for (int r = 0; r < s.c; r++) {
            const long g = (long)s.c * 700 * qms[qi];
            if (ratematch_block_params(&s, r, rv, qms[qi], 1, g, lbrm, &p)) {
              closed_ok = 0;
              continue;
            }
            uint8_t *f = malloc((size_t)p.e), *fr = malloc((size_t)p.e);
            ratematch_encode(&p, cw, f);
            memset(sent, 0, sizeof(int) * s.n);
            reference_rm(cw + 2 * s.zc, p.ncb, p.k0, p.e, p.qm, p.filler_begin, p.filler_end, fr, sent);
            if (memcmp(f, fr, (size_t)p.e))
              fprintf(stderr, "closed form differs: A %d block %d rv %d Qm %d Ncb %d k0 %d fillers [%d, %d) E %d\n",
                      lbrm_tbs[t].a, r, rv, p.qm, p.ncb, p.k0, p.filler_begin, p.filler_end, p.e);
            closed_ok &= memcmp(f, fr, (size_t)p.e) == 0;
            /* the device's form, one output bit on its own */
            for (int o = 0; o < p.e; o++)
              f[o] = cw[2 * s.zc + ratematch_selected_position(&p, ratematch_interleaved_source(&p, o))];
            if (memcmp(f, fr, (size_t)p.e))
              fprintf(stderr, "per-bit closed form differs: A %d block %d rv %d Qm %d Ncb %d k0 %d E %d\n",
                      lbrm_tbs[t].a, r, rv, p.qm, p.ncb, p.k0, p.e);
            closed_ok &= memcmp(f, fr, (size_t)p.e) == 0;
            k0_in_fillers |= p.k0 >= p.filler_begin && p.k0 < p.filler_end;
            fillers_cut |= p.filler_end > p.ncb;
            free(f);
            free(fr);
          }
    }
    free(info);
    free(cw);
    free(sent);
  }
  CHECK(closed_ok, "the closed forms of bit selection differ from the reference walk");
  CHECK(k0_in_fillers, "no closed-form case started inside the fillers");
  CHECK(fillers_cut, "no closed-form case had fillers past Ncb");
  CHECK(gather_rep, "no gather case repeated a bit (E > P)");
  return test_finish("test_ratematch");
}
