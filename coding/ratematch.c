/* Rate matching, 38.212 5.4.2. */
#include "coding/ratematch.h"

#include <string.h>

/* k0 = floor(num Ncb / (den Zc)) Zc: Table 5.4.2.1-2, the numerators for
 * rv 0..3 over den = 66 (BG1) or 50 (BG2). */
static const int k0_num[2][4] = {{0, 17, 33, 56}, {0, 13, 25, 43}};

long ratematch_block_offset(const ldpc_segmentation *s, int r, int qm, int nl, long g) {
  long off = 0;
  const long per = (long)nl * qm;
  const long units = g / per; /* G / (Nl Qm) */
  for (int j = 0; j < r; j++) off += per * (units / s->c + (j > s->c - (units % s->c) - 1 ? 1 : 0));
  return off;
}

int ratematch_block_params(const ldpc_segmentation *s, int r, int rv, int qm, int nl, long g, long tbs_lbrm,
                           ratematch_block *p) {
  if (rv < 0 || rv > 3 || (qm != 1 && qm != 2 && qm != 4 && qm != 6 && qm != 8) || nl < 1 || r < 0 ||
      r >= s->c || g < 1 || g % ((long)nl * qm) != 0 || tbs_lbrm < 0)
    return -1;
  memset(p, 0, sizeof *p);
  p->bg = s->bg;
  p->zc = s->zc;
  p->n = s->n;
  p->qm = qm;
  p->ncb = s->n;
  if (tbs_lbrm > 0) {
    /* Nref = floor(TBS_LBRM / (C * 2/3)) = floor(3 TBS_LBRM / (2 C)). */
    const long nref = 3 * tbs_lbrm / (2L * s->c);
    if (nref < p->ncb) p->ncb = (int)nref;
  }
  const int den = s->bg == 1 ? 66 : 50;
  p->k0 = (int)((long)k0_num[s->bg - 1][rv] * p->ncb / ((long)den * s->zc)) * s->zc;
  /* 5.4.2.1: the first C - mod(G/(Nl Qm), C) blocks get Nl Qm floor(G/(Nl Qm C))
   * bits, the rest one Nl Qm more (all C blocks scheduled). */
  const long per = (long)nl * qm, units = g / per;
  p->e = (int)(per * (units / s->c + (r > s->c - (units % s->c) - 1 ? 1 : 0)));
  /* The fillers are systematic bits K'..K-1, buffer positions shifted by the
   * 2 Zc punctured bits. */
  p->filler_begin = s->k_prime - 2 * s->zc;
  p->filler_end = s->k - 2 * s->zc;
  return 0;
}

/* Bit selection visits buffer positions k0, k0+1, ... mod Ncb, skipping the
 * fillers; the k-th kept position goes to e_k. Both directions walk it
 * through this one function, which also applies the interleaver:
 * e_k = e_{i E/Qm + j} lands at f_{i + j Qm}. */
#define WALK_SELECTED(p, BODY)                                                    \
  do {                                                                            \
    const int rows_ = (p)->qm, cols_ = (p)->e / (p)->qm;                          \
    int pos_ = (p)->k0;                                                           \
    for (int k_ = 0; k_ < (p)->e; k_++) {                                         \
      while (pos_ >= (p)->filler_begin && pos_ < (p)->filler_end) {               \
        pos_ = pos_ + 1 == (p)->ncb ? 0 : pos_ + 1;                               \
      }                                                                           \
      const int buf = pos_;                                                       \
      const int out = (k_ % cols_) * rows_ + k_ / cols_;                          \
      BODY;                                                                       \
      pos_ = pos_ + 1 == (p)->ncb ? 0 : pos_ + 1;                                 \
    }                                                                             \
  } while (0)

/* By the closed forms (ratematch.h) the device uses too: row i of the
 * interleaver, f_{i + j Qm} = e_{i E/Qm + j}, starts at the rank of
 * e_{i E/Qm} and steps one rank a bit (no division in the loop); the
 * transmitter's bits are then the GPU's by construction, and the walk below
 * (the receiver's) is held to them by the tests. */
void ratematch_encode(const ratematch_block *p, const uint8_t *cw, uint8_t *f) {
  const uint8_t *d = cw + 2 * p->zc;
  const int rows = p->qm, cols = p->e / p->qm, period = ratematch_period(p);
  for (int i = 0; i < rows; i++) {
    int q = ratematch_selected_rank(p, i * cols);
    for (int j = 0; j < cols; j++) {
      f[i + j * rows] = d[ratematch_rank_position(p, q)];
      q = q + 1 == period ? 0 : q + 1;
    }
  }
}

void ratematch_accumulate(const ratematch_block *p, const float *f_llr, float *buffer) {
  WALK_SELECTED(p, buffer[buf] += f_llr[out]);
}

void ratematch_decoder_input(const ratematch_block *p, const float *buffer, float *llr) {
  const int nb = p->bg == 1 ? 68 : 52;
  memset(llr, 0, sizeof(float) * 2 * p->zc);
  memcpy(llr + 2 * p->zc, buffer, sizeof(float) * p->ncb);
  memset(llr + 2 * p->zc + p->ncb, 0, sizeof(float) * (size_t)(nb * p->zc - 2 * p->zc - p->ncb));
  for (int k = p->filler_begin; k < p->filler_end; k++) llr[2 * p->zc + k] = LDPC_LLR_FILLER;
}

int ratematch_gather_table(const ratematch_block *p, int32_t *first, int32_t *src) {
  for (int i = 0; i < p->ncb; i++) first[i] = -1;
  int fill = 0; /* fillers inside the buffer */
  for (int i = p->filler_begin; i < p->filler_end; i++) fill += i >= 0 && i < p->ncb;
  int k = 0;
  WALK_SELECTED(p, {
    if (first[buf] < 0) first[buf] = k;
    src[k++] = out;
  });
  return p->ncb - fill;
}
