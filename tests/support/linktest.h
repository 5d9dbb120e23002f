/* Helpers shared by the system tests: build a point and simulate it through a
 * backend the way the driver does (frame-exact stopping). */
#ifndef OFDMSIM_LINKTEST_H
#define OFDMSIM_LINKTEST_H

#include <stdint.h>

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A frequency-domain point with defaults (testparams.h's tp_point, then the
 * equalizer, SNR, seed and a flat one-tap pdp); the caller adjusts fields
 * after it. */
link_params lt_params(int tx, int rx, int bps, eq_kind eq, channel_model model, double ebno_db);
/* Recomputes n0 and resolves the tdl profile after fields were changed; 0 or -1. */
int lt_finish(link_params *p);
/* lt_finish, then the point's checks (link_params_check) and its channel
 * estimation resolved (est_resolve: the pilots' error and shrink), as a run
 * does for a point with estimation; 0, or -1 with the reason printed. */
int lt_finish_estimated(link_params *p);

typedef struct lt_counts {
  uint64_t bits, errors, frames;
  uint64_t fallbacks; /* REs equalised in double (float Gram flagged singular) */
  double sum_sq;      /* sum over frames of (bit errors of the frame)^2 */
  /* with soft outputs (p.llr != off): GMI losses in bits, per stream and in
   * all, and the sum over frames of the squared loss of a frame per RE */
  double gmi_loss[LINK_MAX_TX], gmi_loss_total, gmi_loss_sq;
  /* with lt_simulate_gmi, at the GMI grid's scalings (core/gmi_grid.h): the
   * loss in bits over all streams, and the frames' sums of squared loss per
   * data RE (as results/chunks.h's tally) */
  double gmi_loss_s[GMI_GRID], gmi_loss_s_sq[GMI_GRID];
} lt_counts;

/* The GMI of the counts, bits per RE in all streams, and its 95% t interval
 * over frames (lo/hi may be NULL). */
double lt_gmi(const link_params *p, const lt_counts *c, double *lo, double *hi);

/* Runs frames from 0 until `target` errors or `max_bits` bits; batches of at
 * most `batch` frames (0: the backend's limit). Returns 0 or -1. */
int lt_simulate(const char *backend_name_, const link_params *p, uint64_t target, double max_bits,
                uint64_t batch, lt_counts *out);
/* As lt_simulate, with the driver's min_frames rule: `target` errors stop
 * the point only once it has at least min_frames frames. */
int lt_simulate_min(const char *backend_name_, const link_params *p, uint64_t target,
                    uint64_t min_frames, double max_bits, uint64_t batch, lt_counts *out);
/* As lt_simulate_min, the losses at the GMI grid's scalings summed too. */
int lt_simulate_gmi(const char *backend_name_, const link_params *p, uint64_t target,
                    uint64_t min_frames, double max_bits, lt_counts *out);

/* The BER of frames [0, frames) of p on the CPU backend, and in *se its
 * standard error, the frames being the independent units. */
double lt_ber(const link_params *p, uint64_t frames, double *se);

/* The preamble of a test that needs the CUDA backend: returns 1, having
 * printed "<test>: skipped: <why>", when this build or machine has no usable
 * CUDA backend (main then returns TEST_SKIP, which ctest reports as skipped
 * rather than failed), or 0 when the test can run. */
int lt_cuda_missing(const char *test);

#ifdef __cplusplus
}
#endif
#endif
