/* The SNR definitions and the one check of a point's parameters. */
#include "core/params.h"

#include <math.h>
#include <stdio.h>

#include "core/qam.h"

double link_noise_variance(snr_def kind, double snr_db, int tx, int bps) {
  const double lin = pow(10.0, snr_db / 10.0);
  switch (kind) {
    case SNR_ESNO: return 1.0 / lin;                 /* Es/N0 per stream */
    case SNR_EBNO: return 1.0 / (lin * bps);         /* Es/N0 = Eb/N0 * bits per symbol */
    case SNR_SNR: return (double)tx / lin;           /* total received power tx per antenna */
  }
  return NAN;
}

int link_params_check(const link_params *p, char *err, size_t errlen) {
  if (p->tx < 1 || p->tx > LINK_MAX_TX || p->rx < 1 || p->rx > LINK_MAX_RX) {
    snprintf(err, errlen, "antennas %d x %d outside 1..%d transmit, 1..%d receive",
             p->tx, p->rx, LINK_MAX_TX, LINK_MAX_RX);
    return -1;
  }
  if (!qam_bps_valid(p->bps)) {
    snprintf(err, errlen, "%d bits per symbol (need 1, 2, 4, 6 or 8)", p->bps);
    return -1;
  }
  if (p->subcarriers < 1 || p->subcarriers > (1 << 24) || p->symbols < 1 ||
      p->symbols > (1 << 16)) {
    snprintf(err, errlen, "%d subcarriers x %d symbols, need 1..%d x 1..%d",
             p->subcarriers, p->symbols, 1 << 24, 1 << 16);
    return -1;
  }
  if (!(p->n0 >= 0.0) || !isfinite(p->n0) || !(p->csi_error_var >= 0.0) ||
      !isfinite(p->csi_error_var)) {
    snprintf(err, errlen, "noise variance %g and CSI error variance %g must be "
             "finite and >= 0", p->n0, p->csi_error_var);
    return -1;
  }
  if (p->model == CH_TDL) {
    if (p->pdp.taps < 1 || p->pdp.taps > TDL_MAX_TAPS) {
      snprintf(err, errlen, "profile with %d taps, need 1..%d", p->pdp.taps,
               TDL_MAX_TAPS);
      return -1;
    }
    for (int l = 0; l < p->pdp.taps; l++) {
      if (p->pdp.delay[l] < 0) {
        snprintf(err, errlen, "tap %d has negative delay %d", l, p->pdp.delay[l]);
        return -1;
      }
    }
  }
  if (p->domain == DOMAIN_TIME) {
    if (p->model != CH_TDL && p->model != CH_AWGN) {
      snprintf(err, errlen, "the time-domain link needs channel model tdl or awgn "
               "(rayleigh is i.i.d. per resource element and has no time-domain form)");
      return -1;
    }
    if (p->cp_length < 0 || p->cp_length > p->subcarriers) {
      snprintf(err, errlen, "cyclic prefix %d outside 0..%d (the subcarriers)",
               p->cp_length, p->subcarriers);
      return -1;
    }
  }
  return 0;
}
