/* Closed-form bit error rates, in double precision and independent of the
 * simulator's code paths, for the CSV's theory column and the tests.
 *
 * Es/N0 below is per stream: unit-energy symbols, E|h|^2 = 1, so a link's
 * Es/N0 is 1/p->n0 (n0 already follows the configured snr_kind). */
#ifndef OFDMSIM_THEORY_H
#define OFDMSIM_THEORY_H

#include "core/params.h"

/* Bit error rate of the link, or NAN where no closed form applies. *what (may
 * be NULL) gets a short static description for the CSV: "awgn exact",
 * "rayleigh mrc L=2 exact", "zf iid rayleigh L=1 exact", or "" with NAN.
 *   awgn (tx == rx, H = I), either equalizer         -> AWGN
 *   rayleigh, tx == 1, either equalizer               -> MRC over L = rx
 *   rayleigh, tx > 1, zf, rx >= tx                    -> Gamma(L = rx-tx+1)
 *   rayleigh mmse with tx > 1, tdl, spatial correlation, Rician K > 0,
 *   CSI error, an invalid bps/tx/rx or n0             -> NAN
 * The OFDM domain does not matter: i.i.d. per-RE fading and unit-power AWGN
 * look the same per subcarrier either way. */
double theory_ber(const link_params *p, const char **what);

/* Exact BER of Gray BPSK (Q(sqrt(2 Es/N0))) or Gray square QAM (Cho & Yoon,
 * IEEE Trans. Commun. 50(7), 2002) at the given linear Es/N0.
 * NAN for an unsupported bps or a negative / NaN esn0. */
double theory_ber_awgn(int bps, double esn0);

/* theory_ber_awgn averaged exactly over a post-detection SNR that is
 * Gamma(shape L, scale mean_esn0) distributed, i.e. the sum of L independent
 * exponential branches of mean mean_esn0 each: MRC over L Rayleigh branches,
 * or ZF over i.i.d. Rayleigh with L = rx - tx + 1. NAN for invalid input. */
double theory_ber_gamma(int bps, double mean_esn0, int L);

/* The AWGN BER as sum_i w[i] * erfc(sqrt(c2[i] * esn0)): the form that makes
 * fading averages exact term by term. Fills up to max_terms entries and
 * returns the number of terms (at most 15, for 256-QAM), 0 for a bad bps. */
int theory_erfc_terms(int bps, double *w, double *c2, int max_terms);

#endif
