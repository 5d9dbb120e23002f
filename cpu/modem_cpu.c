/* The CPU backend's time-domain channel stage: each frame through the OFDM
 * modem of channel/ofdm.c (IFFT, CP, convolution with the frame's taps,
 * noise, CP removal, FFT; or, where the taps fit the CP, the CP-aligned
 * transform: the same y up to float rounding), frames in parallel. */
#include "cpu/cpu_internal.h"

int cpu_modem_stage(const link_params *p, cpu_state *s, uint64_t first_frame, uint64_t frames) {
  const uint64_t rf = link_res_per_frame(p);
  const size_t R = (size_t)(frames * rf);
  const int links = p->rx * p->tx;
  int rc = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(| : rc)
  for (long f = 0; f < (long)frames; f++) {
    /* The modem convolves with the very taps H was made of. */
    const size_t q = (size_t)f * links * p->pdp.taps;
    const cf32 *taps = p->model == CH_TDL ? s->taps + q : NULL;
    const sos_term *sos = s->sos ? s->sos + (size_t)f * tdl_fade_terms(p) : NULL;
    rc |= ofdm_modem_frame(s->modem, first_frame + (uint64_t)f, s->x + (size_t)f * rf, R, taps, sos,
                           s->re.noise_std, s->y + (size_t)f * rf, R);
  }
  return rc ? -1 : 0;
}
