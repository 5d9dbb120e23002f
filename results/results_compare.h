/* Do two result files agree? Rows are paired by point_key (the point's
 * identity, results/report.h), and each pair's BERs are tested against each
 * other with the variance the per-frame counts give (batch means over
 * frames), never the binomial one, which the clustered errors of this
 * simulator make far too small.
 *
 * Two rules decide a pair:
 *  - the z-test, for independent estimates: z = (p1 - p2) / sqrt(v1 + v2),
 *    two-sided p-value, differing when p < alpha / M (Bonferroni over the M
 *    compared pairs, so alpha is the chance that any pair of two files that
 *    agree is called different);
 *  - the same-draws rule, for rows with the same point_key and the same frame
 *    range (simulation.first_frame, frames): they are the very same random
 *    draws (the CPU and the GPU backend, say), perfectly correlated, so the
 *    z-test says nothing; they must have equal bits and bit errors within
 *    rel * max(e1, e2) + abs (float rounding of the two backends differs).
 *    Such pairs must pass both rules.
 * Point keys include the seed, so runs with different seeds share no key:
 * rows left unpaired are then paired by their config columns without the
 * seed (and without the stopping rules, the frame range and the per-run
 * settings), which the z-test compares as independent estimates. */
#ifndef OFDMSIM_RESULTS_COMPARE_H
#define OFDMSIM_RESULTS_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "results/results.h"

typedef struct compare_options {
  double alpha;            /* family-wise level (default 0.01) */
  double same_rel, same_abs; /* the same-draws tolerance (default 0.001, 2) */
  int require_same_draws;  /* a pair that is not the same draws differs */
} compare_options;

typedef enum compare_verdict {
  CMP_AGREE,
  CMP_DIFFER,
  CMP_SKIPPED, /* bits = 0 on either side: nothing to compare */
  CMP_ONLY_A,
  CMP_ONLY_B,
} compare_verdict;

/* How a pair's rows were matched. */
typedef enum compare_match { MATCH_KEY, MATCH_CONFIG } compare_match;

/* One side of a pair: one row. */
typedef struct compare_side {
  size_t row;
  uint64_t bits, errors, frames, first_frame, seed;
  int has_seed;
  double ber, lo, hi; /* ci95 as written */
  double var;         /* the BER's variance (results_ber_variance) */
  int coded;          /* a coded point: its transport blocks and those lost */
  uint64_t blocks, block_errors;
  uint64_t harq_errors;  /* TBs lost after HARQ (block_errors where the file has no HARQ columns) */
  uint64_t drops;        /* the TBs' independent units: frames, or drops (channel.drop_frames) */
  uint64_t block_sq, harq_sq; /* the units' squared counts of those lost (drop_*_sq) */
} compare_side;

typedef struct compare_pair {
  char key[24];      /* point_key, "#n" appended for the n-th row of a repeated key */
  char other_key[24];/* B's key where the match is MATCH_CONFIG */
  compare_match match;
  int has_a, has_b;
  compare_side a, b;
  int same_draws;    /* same key and frame range: the very same draws */
  double z, p;       /* the z-test (NAN when not compared) */
  long long diff;    /* e_b - e_a */
  int z_ok, draws_ok;
  const char *rule;  /* the rule that decided: "z-test", "same draws", "frame ranges";
                        "BLER z-test", "same draws (blocks)" where the BER passed
                        and a coded point's block errors did not */
  compare_verdict verdict;
} compare_pair;

typedef struct compare_result {
  compare_pair *pairs;
  size_t n_pairs;
  size_t n_compared, n_agree, n_differ, n_skipped, n_only_a, n_only_b;
  size_t n_same_draws, n_by_config;
  double alpha_each; /* alpha / n_compared */
} compare_result;

/* Pairs and tests the rows of a and b. 0, or 2 with "PATH:LINE: ..." in err
 * (a missing column: point_key, bits, bit_errors, frames, ci95_low,
 * ci95_high; a malformed cell; no point common to both files). */
int results_compare(const result_table *a, const result_table *b, const compare_options *o,
                    compare_result *out, char *err, size_t errlen);
void compare_result_free(compare_result *r);

/* Is the column called name part of a point's identity without its seed?
 * The link columns and every config column but the seed, the stopping
 * rules, the frame range, the per-run settings and the SNR list. */
int results_identity_column(const char *name);

/* A row's BER and its variance: batch means over frames, with per-frame
 * errors e_f and b = bits / frames bits a frame,
 *   var = (sum e_f^2 - errors^2 / frames) / (frames - 1) / frames / b^2,
 * never below the variance the written interval implies,
 * ((ci95_high - ci95_low) / (2 * 1.96))^2, which carries the conservative
 * rules for few frames and no errors (and is all there is without a
 * frame_errors_sq column). With channel.drop_frames = N > 1 the batches
 * are the drops (ceil(frames / N) of them) and e_f a drop's errors, as
 * frame_errors_sq then holds. 0, or 2 with the message. */
int results_ber_variance(const result_table *t, size_t row, double *ber, double *var, char *err,
                         size_t errlen);

#endif
