/* Tapped-delay-line (multipath) channels: power-delay profiles, the random
 * taps of a frame, and what the taps look like to each chain (tdl_grid.h). */
#ifndef OFDMSIM_TDL_H
#define OFDMSIM_TDL_H

#include <stddef.h>
#include <stdint.h>

#include "channel/tdl_fading.h"
#include "core/spatial.h"
#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Resolves a power-delay profile (delays in samples, real numbers).
 *  exp:        p_l proportional to exp(-l/ds), l = 0, 1, ... while p_l >= -30 dB
 *              of p_0 (RMS delay spread about 0.976 ds: the cut tail), on the
 *              sample grid in either delay mode. When that needs more than
 *              TDL_MAX_TAPS taps, consecutive samples are binned: taps every
 *              w = ceil(n/TDL_MAX_TAPS) samples, each with the power of its w
 *              samples.
 *  tdl-a..e:   3GPP TR 38.901 Tables 7.7.2-1..5 (normalised to RMS delay
 *              spread 1), delays scaled by ds; DELAYS_SAMPLE rounds them to
 *              whole samples. Taps at the same delay are merged (powers add).
 * The line of sight: k_factor is the whole channel's K, the specular power at
 * delay 0 over the NLOS power of all taps (0: none). NAN keeps tdl-d/e's own
 * LOS path (Table 7.7.2-4/5: K1 = 13.3 / 22 dB against their first Rayleigh
 * tap) and is refused on the other profiles.
 * Taps come sorted by delay (tap 0 at delay 0); los_power and the NLOS powers
 * sum to 1. max_delay: the largest delay allowed (subcarriers-1 for an OFDM
 * link). 0, or -1 with a message such as "profile tdl-a with delay spread 300
 * samples reaches 2898 samples, more than the 1023 allowed". */
int tdl_pdp_make(pdp_kind kind, double delay_spread, double k_factor, delay_grid grid, double max_delay,
                 tdl_pdp *out, char *err, size_t errlen);

/* The custom profile (channel.profile = "custom"): n taps given by the
 * config, delay[i] in samples (>= 0, any order; DELAYS_SAMPLE rounds them)
 * and power_db[i] in dB (finite), merged where delays meet, sorted, the
 * powers normalised as the tables' are: k_factor (finite, >= 0) puts the
 * line of sight on the first tap, which must then be at delay 0. Given in the
 * order of a table's taps with the table's delays, the result is bit for bit
 * tdl_pdp_make's. 0, or -1 with the reason in err. */
int tdl_pdp_custom(const double *delay, const double *power_db, int n, double k_factor, delay_grid grid,
                   double max_delay, tdl_pdp *out, char *err, size_t errlen);

/* The custom profile with a Rician K per tap (channel.tap_k_db): k_db[i]
 * (dB, in [-300, 300]) splits tap i's power 10^(power_db[i]/10) into a line
 * of sight of K/(K+1) (tap_los) and a Rayleigh part of 1/(K+1) (power), the
 * taps' total normalised to 1; no whole-channel K (los_power 0). Delays and
 * powers as tdl_pdp_custom, taps merged where delays meet (their LOS and
 * Rayleigh powers add). 0, or -1 with the reason in err. */
int tdl_pdp_custom_k(const double *delay, const double *power_db, const double *k_db, int n, delay_grid grid,
                     double max_delay, tdl_pdp *out, char *err, size_t errlen);

/* Whether the profile's table has a LOS path of its own (tdl-d, tdl-e). */
int tdl_pdp_has_los(pdp_kind kind);

/* RMS delay spread of a resolved profile, in samples, the LOS path counted. */
double tdl_pdp_rms_delay(const tdl_pdp *pdp);

/* Taps of `frame` for p->pdp: taps[(r*tx + t)*L + l] ~ CN(0, power[l]) from
 * RNG_TAPS (index q/2, q = (r*tx + t)*L + l; q even -> words 0,1, odd -> 2,3)
 * of the frame's drop (tdl_drop_frame: held over a drop), then spatial
 * correlation across the antenna pairs of each tap, then the LOS path on
 * the taps with one: + tdl_pdp_los_amp on every link (a broadside plane
 * wave, as the rayleigh model's; phase 0 on every tap). */
void tdl_draw_taps(const link_params *p, const chan_spatial *s, uint64_t frame, cf32 *taps);

/* Doppler (link_doppler_per_sample(p) > 0, channel/tdl_fading.h): the
 * sinusoids of every tap of `frame`, sos[q*TDL_SOS_TERMS + m] for
 * q = (r*tx + t)*L + l, from RNG_DOPPLER of the frame's drop, their phases
 * at the frame's start in the drop, then the LOS term (tdl_los_term). A cdl point's buffer holds the
 * frame's ray terms instead (cdl_draw_terms, channel/cdl_channel.h; the
 * same for tdl_draw_taps, whose taps are then the rays' sums at t = 0, and
 * tdl_symbol_taps). */
void tdl_draw_sos(const link_params *p, uint64_t frame, sos_term *sos);

/* The size of one frame's buffer of tdl_draw_sos, in sos_terms. */
size_t tdl_fade_terms(const link_params *p);

/* The taps the receiver sees on symbol `sym` of a frame whose sinusoids are
 * sos: each tap averaged over the symbol's FFT window (the ICI-free part),
 * mixed, the LOS added; taps[(r*tx + t)*L + l]. */
void tdl_symbol_taps(const link_params *p, const chan_spatial *s, const sos_term *sos, int sym, cf32 *taps);

/* The window factors of a frame's sinusoids (tdl_window_factors): they do
 * not depend on the symbol, so a caller that evaluates every symbol of a
 * frame computes them once a frame; win: tdl_fade_terms(p) floats. A cdl
 * point has none (pass NULL to tdl_symbol_taps_win). */
void tdl_frame_window(const link_params *p, const sos_term *sos, float *win);

/* tdl_symbol_taps with the frame's window factors from tdl_frame_window (or
 * NULL: computed as it goes): the same taps. */
void tdl_symbol_taps_win(const link_params *p, const chan_spatial *s, const sos_term *sos, const float *win, int sym,
                         cf32 *taps);

#ifdef __cplusplus
}
#endif
#endif
