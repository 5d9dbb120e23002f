/* What a point's multipath taps look like to each chain, worked out once per
 * point in double precision and shared by both backends:
 *
 *  Frequency domain: tap l at delay tau_l (samples, continuous) adds
 *    h_l exp(-j 2 pi kc tau_l / K) on subcarrier k, kc = k for k < K/2 and
 *    k - K above (the subcarrier's frequency in the band -fs/2 .. fs/2; for
 *    whole-sample delays the two are the same number).
 *
 *  Time domain: the modem convolves with discrete taps on the sample grid.
 *    A tap off the grid is spread over the 2W = 32 samples around its delay
 *    by a Hann-windowed sinc, c(x) = sinc(x) (1 + cos(pi x / W)) / 2 at the
 *    offsets x = d - tau, |x| < W (band-limited interpolation, truncated).
 *    Over the central 90% of the band that response is within about -38 dB
 *    of the exact exp(-j 2 pi kc tau / K); it rolls off towards the band edge
 *    (a finite interpolator cannot follow the phase up to fs/2). A tap on the
 *    grid (and every tap with delays = "sample") stays one discrete tap.
 *    Interpolation reaches W - 1 samples before a tap's delay: the discrete
 *    taps are delayed by `shift` samples so that none is negative, and the
 *    receiver rotates its FFT window by the same shift, which takes that bulk
 *    delay out of the response exactly (it costs `shift` samples of the CP).
 *    The receiver's channel (its perfect CSI) is the response of the discrete
 *    taps the modem applied, resp below. */
#ifndef OFDMSIM_TDL_GRID_H
#define OFDMSIM_TDL_GRID_H

#include <stddef.h>

#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TDL_INTERP_HALF 16 /* W: windowed-sinc half-width, samples */

typedef struct tdl_grid {
  int K, L;
  cf32 *resp;     /* [L][K]: tap l's response on subcarrier k, as the chain sees it */
  int td_taps;    /* time domain: the modem's discrete taps */
  int *td_delay;  /* [td_taps]: their delays in samples, ascending, >= 0 */
  float *td_coef; /* [td_taps][L]: discrete tap j = sum_l td_coef[j*L + l] h_l */
  int td_shift;   /* samples the receiver's FFT window is rotated by */
  /* The same per tap, for taps that fade within the frame: tap l reaches
   * samples tap_first[l] .. + tap_count[l] - 1 (shift included, >= 0) with
   * the coefficients tap_coef[l][i]. */
  int tap_first[TDL_MAX_TAPS], tap_count[TDL_MAX_TAPS];
  float tap_coef[TDL_MAX_TAPS][2 * TDL_INTERP_HALF];
} tdl_grid;

/* The tables of p's tdl channel in p's domain. 0, or -1 with a message (no
 * memory, or not a tdl point); *g is zeroed first and owns its arrays. */
int tdl_grid_make(const link_params *p, tdl_grid *g, char *err, size_t errlen);
void tdl_grid_free(tdl_grid *g);

/* Per-subcarrier response of one frame's taps: Hk[e*ldh + j] = sum_l
 * taps[e*L + l] resp[l][k0 + j] for links e and subcarriers k0 .. k0+n-1
 * (the sum in tap order, cf_fma_exact, as the GPU's). */
void tdl_response(const tdl_grid *g, int links, const cf32 *taps, int k0, int n, cf32 *Hk, size_t ldh);

/* The modem's discrete taps of one frame: d[e*td_taps + j] = sum_l
 * td_coef[j][l] taps[e*L + l] (tap order, real-by-complex fmaf). */
void tdl_discrete_taps(const tdl_grid *g, int links, const cf32 *taps, cf32 *d);

#ifdef __cplusplus
}
#endif
#endif
