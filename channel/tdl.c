/* The random taps of a tdl frame and their per-subcarrier response by FFT (tdl.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel/fft_plan.h"
#include "core/rng.h"
#include "channel/tdl.h"

void tdl_draw_taps(const link_params *p, const chan_spatial *s, uint64_t frame, cf32 *taps) {
  const int L = p->pdp.taps, links = p->rx * p->tx, total = links * L;
  const uint64_t key = rng_key(p->seed, p->stream_key);
  float amp[TDL_MAX_TAPS];
  for (int l = 0; l < L; l++) amp[l] = sqrtf(p->pdp.power[l]);
  for (int q = 0; q < total; q += 2) {
    const rng_words w = rng_draw(key, RNG_TAPS, frame, (uint64_t)(q / 2));
    taps[q] = cf_scale(rng_cnormal_of(w, 0), amp[q % L]);
    if (q + 1 < total) taps[q + 1] = cf_scale(rng_cnormal_of(w, 1), amp[(q + 1) % L]);
  }
  if (!s->correlated && !s->rician) return;
  cf32 h[LINK_MAX_RX * LINK_MAX_TX];
  for (int l = 0; l < L; l++) {
    for (int e = 0; e < links; e++) h[e] = taps[e * L + l];
    chan_spatial_mix(s, h, l == 0, amp[l]);
    for (int e = 0; e < links; e++) taps[e * L + l] = h[e];
  }
}

struct tdl_freq {
  int K;
  fftwf_complex *buf; /* the planning buffer, kept alive with the plan */
  fftwf_plan plan;
};

tdl_freq *tdl_freq_create(int subcarriers, char *err, size_t errlen) {
  if (subcarriers < 1 || subcarriers > (1 << 24)) {
    snprintf(err, errlen, "tdl_freq_create: %d subcarriers, need 1..%d", subcarriers, 1 << 24);
    return NULL;
  }
  tdl_freq *f = calloc(1, sizeof *f);
  if (!f) {
    snprintf(err, errlen, "tdl_freq_create: out of memory");
    return NULL;
  }
  f->K = subcarriers;
  f->buf = fftwf_malloc(sizeof(fftwf_complex) * (size_t)subcarriers);
  /* FFTW_UNALIGNED: the caller's rows may sit at any 8-byte offset, and one
   * plan for all of them keeps the result independent of where they sit. */
  if (f->buf) f->plan = fft_plan_1d(subcarriers, f->buf, FFTW_FORWARD, FFTW_UNALIGNED);
  if (!f->buf || !f->plan) {
    snprintf(err, errlen, "tdl_freq_create: FFTW could not plan a %d-point transform", subcarriers);
    tdl_freq_destroy(f);
    return NULL;
  }
  return f;
}

void tdl_freq_response(tdl_freq *f, const tdl_pdp *pdp, int links, const cf32 *taps, cf32 *Hk) {
  const int K = f->K, L = pdp->taps;
  for (int e = 0; e < links; e++) {
    cf32 *row = Hk + (size_t)e * K;
    memset(row, 0, sizeof *row * (size_t)K);
    /* Delays beyond K alias onto d mod K, exactly as in the DFT sum. */
    for (int l = 0; l < L; l++)
      row[pdp->delay[l] % K] = cf_add(row[pdp->delay[l] % K], taps[e * L + l]);
    fftwf_execute_dft(f->plan, (fftwf_complex *)row, (fftwf_complex *)row);
  }
}

void tdl_freq_destroy(tdl_freq *f) {
  if (!f) return;
  fft_plan_destroy(f->plan);
  fftwf_free(f->buf);
  free(f);
}
