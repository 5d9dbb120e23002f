/* The spatial-correlation factors and Rician amplitudes of a point (spatial.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/spatial.h"

/* Lower Cholesky factor of R[i][j] = rho^|i-j| in closed form: the AR(1)
 * recursion x_0 = w_0, x_i = rho x_{i-1} + sqrt(1-rho^2) w_i has exactly this
 * covariance, so L(i,0) = rho^i and L(i,j) = rho^(i-j) sqrt(1-rho^2), j >= 1.
 * No pivots to lose precision as rho approaches 1. */
static void exp_corr_cholesky(double rho, int n, int stride, float *L) {
  const double c = sqrt(1.0 - rho * rho);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      double v = 0.0;
      if (j <= i) v = pow(rho, i - j) * (j == 0 ? 1.0 : c);
      L[i * stride + j] = (float)v;
    }
  }
}

int chan_spatial_init(const link_params *p, chan_spatial *s, char *err, size_t errlen) {
  if (!p || !s) {
    snprintf(err, errlen, "chan_spatial_init: NULL argument");
    return -1;
  }
  if (link_params_check(p, err, errlen)) return -1;
  memset(s, 0, sizeof *s);
  s->tx = p->tx;
  s->rx = p->rx;
  s->correlated = p->rho_tx != 0.0 || p->rho_rx != 0.0;
  /* tdl carries its line of sight in the profile (tdl_pdp.los_power) */
  s->rician = p->model != CH_TDL && p->k_factor > 0.0;
  s->los_amp = s->rician ? (float)sqrt(p->k_factor / (p->k_factor + 1.0)) : 0.0f;
  s->nlos_amp = s->rician ? (float)sqrt(1.0 / (p->k_factor + 1.0)) : 1.0f;
  exp_corr_cholesky(p->rho_tx, p->tx, LINK_MAX_TX, s->lt);
  exp_corr_cholesky(p->rho_rx, p->rx, LINK_MAX_RX, s->lr);
  return 0;
}
