/* A transport block of the coded-link tests: the link's TB for n_re data
 * REs a frame at a target code rate, Qm bits a symbol and so many layers
 * (TBS from tbs_from_re, G = n_re x layers x Qm coded bits), and its plan
 * for one redundancy version; with the coding headers those tests check
 * against (C headers without C++ guards: wrapped here for the .cu tests). */
#ifndef OFDMSIM_TEST_TB_CASE_H
#define OFDMSIM_TEST_TB_CASE_H

#ifdef __cplusplus
extern "C" {
#endif
#include "coding/crc.h"
#include "coding/segment.h"
#include "coding/tb_chain.h"
#include "coding/tbs.h"
#ifdef __cplusplus
}
#endif

typedef struct tb_case {
  int n_re;    /* data REs a frame */
  double rate; /* target rate */
  int qm, layers;
} tb_case;

/* The case's coded bits a frame (G). */
static inline long tb_case_bits(const tb_case *c) { return (long)c->n_re * c->layers * c->qm; }

/* The case's TB and its plan for redundancy version rv into *plan (freed
 * with tb_plan_free); *tbs is the TBS. Non-zero with the reason in err. */
static inline int tb_case_plan(const tb_case *c, int rv, tb_plan *plan, int *tbs, char *err, size_t n) {
  *tbs = tbs_from_re(c->n_re, c->rate, c->qm, c->layers);
  return tb_plan_make(*tbs, c->rate, c->qm, c->layers, tb_case_bits(c), rv, plan, err, n);
}

#endif
