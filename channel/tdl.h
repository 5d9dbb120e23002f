/* Tapped-delay-line (multipath) channels: power-delay profiles on the sample
 * grid, the random taps of a frame, and their per-subcarrier response. */
#ifndef OFDMSIM_TDL_H
#define OFDMSIM_TDL_H

#include <stddef.h>
#include <stdint.h>

#include "core/spatial.h"
#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Resolves a power-delay profile on the sample grid (delays in samples).
 *  exp:        p_l proportional to exp(-l/ds), l = 0, 1, ... while p_l >= -30 dB
 *              of p_0 (RMS delay spread about 0.976 ds: the cut tail). When that
 *              needs more than TDL_MAX_TAPS taps, consecutive samples are
 *              binned: taps every w = ceil(n/TDL_MAX_TAPS) samples, each with
 *              the power of its w samples.
 *  tdl-a/b/c:  3GPP TR 38.901 Tables 7.7.2-1/2/3 (normalised to RMS delay
 *              spread 1), delays scaled by ds and rounded to whole samples,
 *              taps on the same sample merged by adding powers.
 * Taps come sorted by delay (tap 0 at delay 0); powers sum to 1.
 * max_delay: the largest delay allowed (subcarriers-1 for an OFDM link).
 * 0, or -1 with a message such as "profile tdl-a with delay spread 300 samples
 * reaches 2898 samples, more than the 1023 allowed". */
int tdl_pdp_make(pdp_kind kind, double delay_spread, int max_delay, tdl_pdp *out, char *err,
                 size_t errlen);

/* RMS delay spread of a resolved profile, in samples. */
double tdl_pdp_rms_delay(const tdl_pdp *pdp);


/* Taps of `frame` for p->pdp: taps[(r*tx + t)*L + l] ~ CN(0, power[l]) from
 * RNG_TAPS (index q/2, q = (r*tx + t)*L + l; q even -> words 0,1, odd -> 2,3),
 * then spatial correlation across the antenna pairs of each tap and Rician
 * mixing on tap 0 only (every tap keeps its mean power power[l]). */
void tdl_draw_taps(const link_params *p, const chan_spatial *s, uint64_t frame, cf32 *taps);

/* Per-subcarrier response by FFT: Hk[link*K + k] = sum_l taps[link*L + l]
 * exp(-j 2 pi k delay[l] / K) for links = rx*tx. The plan is made once by
 * _create (FFTW_ESTIMATE: the same algorithm every run, so results repeat
 * bit for bit) and executed in place on the caller's Hk, so
 * tdl_freq_response may run concurrently from several threads. */
typedef struct tdl_freq tdl_freq;
tdl_freq *tdl_freq_create(int subcarriers, char *err, size_t errlen);
void tdl_freq_response(tdl_freq *f, const tdl_pdp *pdp, int links, const cf32 *taps, cf32 *Hk);
void tdl_freq_destroy(tdl_freq *f);

#ifdef __cplusplus
}
#endif
#endif
