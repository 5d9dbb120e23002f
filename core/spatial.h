/* Per-element channel formulas shared by the CPU code and the CUDA kernels
 * (included by .c and .cu files: plain C, no VLAs, no restrict).
 *
 * Spatial structure (rayleigh and tdl alike): exponential correlation
 * R[i][j] = rho^|i-j| at each side, Kronecker model H = Lr Hw Lt^T with
 * L L^T = R (real lower Cholesky factors). rayleigh then mixes in a line of
 * sight per element, H = sqrt(K/(K+1)) Hlos + sqrt(1/(K+1)) H with Hlos = all
 * ones (broadside plane wave), which keeps every element's mean power; tdl
 * puts its LOS path on tap 0 instead (the profile's los_power, tdl_add_los). */
#ifndef OFDMSIM_SPATIAL_H
#define OFDMSIM_SPATIAL_H

#include <math.h>

#include "core/cplx.h"
#include "core/params.h"

/* Plain arrays and no pointers: copied to the GPU by value (about 1.3 KB). */
typedef struct chan_spatial {
  int tx, rx;
  int correlated; /* 0 when both factors are the identity: mixing skips the products */
  int rician;     /* K > 0 */
  float los_amp;  /* sqrt(K/(K+1)) */
  float nlos_amp; /* sqrt(1/(K+1)) */
  /* Lower Cholesky factors, row-major with fixed row strides LINK_MAX_TX and
   * LINK_MAX_RX: lt[i*LINK_MAX_TX + j] is Lt(i,j). */
  float lt[LINK_MAX_TX * LINK_MAX_TX];
  float lr[LINK_MAX_RX * LINK_MAX_RX];
} chan_spatial;

#ifdef __cplusplus
extern "C" {
#endif
/* Checks tx, rx, rho_tx, rho_rx (|rho| < 1) and k_factor (>= 0) of p and fills
 * the Cholesky factors and Rician amplitudes. 0, or -1 with a message. */
int chan_spatial_init(const link_params *p, chan_spatial *s, char *err, size_t errlen);
#ifdef __cplusplus
}
#endif

/* v <- L v for a real lower-triangular n x n factor L (row stride ld) and a
 * complex vector v of n entries spaced `stride` apart: entry t mixes entries
 * j <= t, so walking t from the last down reads only entries not yet
 * overwritten. */
OFDM_HD void chan_lower_mix(const float *l, int ld, int n, cf32 *v, int stride) {
  for (int t = n - 1; t >= 0; t--) {
    cf32 acc = cf_make(0.0f, 0.0f);
    for (int j = 0; j <= t; j++) {
      const float w = l[t * ld + j];
      acc = cf_make(acc.re + w * v[j * stride].re, acc.im + w * v[j * stride].im);
    }
    v[t * stride] = acc;
  }
}

/* Turns one matrix of i.i.d. draws into the channel, in place.
 * h: rx*tx elements, element (r,t) at h[r*tx + t], each CN(0, amp^2) on entry.
 * los: whether this matrix carries the line of sight (every rayleigh RE; tap 0
 * of a tdl channel); its LOS term has amplitude amp so the element power stays
 * amp^2. The products walk the triangular factors from the last row/column
 * down, so every output only reads inputs that are not yet overwritten. */
OFDM_HD void chan_spatial_mix(const chan_spatial *s, cf32 *h, int los, float amp) {
  const int tx = s->tx, rx = s->rx;
  if (s->correlated) {
    /* h <- h Lt^T: each row (stride 1) mixed by Lt */
    for (int i = 0; i < rx; i++) chan_lower_mix(s->lt, LINK_MAX_TX, tx, h + i * tx, 1);
    /* h <- Lr h: each column (stride tx) mixed by Lr */
    for (int t = 0; t < tx; t++) chan_lower_mix(s->lr, LINK_MAX_RX, rx, h + t, tx);
  }
  if (los && s->rician) {
    const float mean = s->los_amp * amp;
    for (int e = 0; e < rx * tx; e++)
      h[e] = cf_make(mean + s->nlos_amp * h[e].re, s->nlos_amp * h[e].im);
  }
}

/* The LOS path of a tdl link on top of its tap 0: the specular term of
 * amplitude los (sqrt of the profile's los_power), phase 0 on every link. */
OFDM_HD cf32 tdl_add_los(cf32 h, float los) { return cf_make(h.re + los, h.im); }

#endif
