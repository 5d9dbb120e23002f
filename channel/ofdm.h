/* The time-domain link of one frame: OFDM modulation with a cyclic prefix,
 * linear convolution with the frame's multipath taps, noise, CP removal and
 * demodulation, all per antenna. */
#ifndef OFDMSIM_OFDM_H
#define OFDMSIM_OFDM_H

#include <stddef.h>
#include <stdint.h>

#include "channel/tdl_fading.h"
#include "channel/tdl_grid.h"
#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ofdm_modem ofdm_modem;

/* Takes tx, rx, subcarriers, symbols, cp_length (0..subcarriers), model (tdl
 * or awgn: rayleigh is i.i.d. per RE and has no time-domain form), seed and
 * stream_key from p, and for tdl the point's time-domain tables (borrowed:
 * grid must outlive the modem); makes the FFTW plans once. NULL with a
 * message on error. */
ofdm_modem *ofdm_modem_create(const link_params *p, const tdl_grid *grid, char *err, size_t errlen);

/* The CP-aligned transform, which a point's frames take where the tdl taps
 * are fixed over the frame (no Doppler) and the last discrete tap's delay
 * is at most the CP. Then every kept sample's convolution reads only its
 * own symbol's span, CP included, which the CP makes periodic: the window's
 * convolution is circular, and after the receiver's FFT it is exactly the
 * product of the discrete taps' response (with the window rotation and both
 * unitary scales: the receiver's perfect CSI, tdl_grid.h) and the symbol.
 * So y = H x + FFT(noise), computed that way: the noise of the very draws
 * the convolution would add, transformed alone, without the IFFT and the
 * convolution. Equal up to float rounding to the sample-by-sample link; the
 * GPU's fused mode computes the same (cuda/ofdm_gpu.cu).
 *
 * 1: every frame convolves sample by sample, even where the transform
 * applies (the per-sample reference; the backends' td_direct option);
 * 0: the transform where it applies (the default). */
void ofdm_modem_set_direct(ofdm_modem *m, int direct);

/* 1 when m's frames take the transform. */
int ofdm_modem_transform(const ofdm_modem *m);

/* One frame. x: frequency-domain symbols [tx] (stride ldx) of the frame's
 * symbols*subcarriers REs, RE m = symbol*K + k. Per tx antenna and symbol:
 * unitary IFFT (1/sqrt(K)) and a cyclic prefix of cp_length; the frame's whole
 * stream of N_f = symbols*(K+cp) samples (zeros before it) convolved linearly
 * with the discrete taps of taps[(r*tx + t)*L + l] (tdl_discrete_taps; awgn:
 * taps is ignored and may be NULL, y_r = x_r for r < tx), plus noise_std * w,
 * w ~ CN(0,1) from RNG_TDNOISE (index (r/2)*N_f + n), CP removal, the window
 * rotation by the grid's td_shift and a unitary FFT -> y [rx]. With Doppler
 * the taps fade per sample instead: sos holds the frame's sinusoids
 * (tdl_draw_sos; taps is then unused and may be NULL), each tap is the cubic
 * of its segment (channel/tap_poly.h), and each goes through its own
 * interpolator (tdl_grid's tap_first/count/coef).
 * (stride ldy). Where the transform applies (ofdm_modem_transform) y is
 * computed by it instead: the same y up to float rounding.
 * The caller passes noise_std = sqrt(n0). Safe to call
 * concurrently (scratch is per call). 0, or -1 on a bad argument or when
 * scratch memory cannot be had. */
int ofdm_modem_frame(ofdm_modem *m, uint64_t frame, const cf32 *x, size_t ldx, const cf32 *taps,
                     const sos_term *sos, float noise_std, cf32 *y, size_t ldy);

/* ofdm_modem_frame with the taps' response the caller already made: Hk
 * [links][K] (rows of K), tdl_response of the same taps on the modem's
 * grid, which the transform would otherwise compute again; NULL: computed
 * here. Unread on the convolution's path. */
int ofdm_modem_frame_hk(ofdm_modem *m, uint64_t frame, const cf32 *x, size_t ldx, const cf32 *taps,
                        const cf32 *Hk, const sos_term *sos, float noise_std, cf32 *y, size_t ldy);

void ofdm_modem_destroy(ofdm_modem *m);

#ifdef __cplusplus
}
#endif
#endif
