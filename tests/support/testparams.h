/* The one place tests build a link point by hand, at every layer: the CPU
 * channel tests use it directly, and linktest.h's lt_params (the sim-layer
 * tests' frequency-domain point) starts from it. Needs core/ only. */
#ifndef OFDMSIM_TESTPARAMS_H
#define OFDMSIM_TESTPARAMS_H

#include "core/params.h"
#include "core/spatial.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A point of tx x rx antennas, bps bits per symbol and channel `model`, on
 * frames of `subcarriers` x `symbols` OFDM symbols with a cyclic prefix of
 * `cp_length` samples. Every other field is zero, which each test then
 * overrides as it needs: ZF, profile PDP_EXP with no delay spread and an
 * empty pdp, no correlation, Rician part or CSI error, the frequency domain,
 * Eb/N0 at 0 dB with n0 = 0 (noiseless), seed 0 and point 0. */
link_params tp_point(int tx, int rx, int bps, channel_model model, int subcarriers, int symbols,
                     int cp_length);

/* NR DMRS pilots on p (core/dmrs.h): configuration `type` (1 or 2),
 * `length` symbols (1 or 2), dmrs-AdditionalPosition `add_pos`, the first
 * DMRS symbol 2, boosted by sqrt(nodata); the data on the CDM groups the
 * ports leave (nodata 0) and scrambling identity 0 unless the test sets
 * them after. */
void tp_dmrs(link_params *p, int type, int length, int add_pos);

/* p's spatial mixing (chan_spatial_init), a failed CHECK when it has none. */
chan_spatial tp_spatial(const link_params *p);

#ifdef __cplusplus
}
#endif
#endif
