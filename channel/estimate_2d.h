/* lmmse2d's tables (channel/estimate.h): the 2-D Wiener filter over the
 * pilots in time and frequency, and its error; private to channel/. */
#ifndef OFDMSIM_ESTIMATE_2D_H
#define OFDMSIM_ESTIMATE_2D_H

#include "channel/estimate.h"
#include "channel/tdl_grid.h"

/* Fills e->first, e->w ([tx][S][K][tt][taps]), e->sym_lo (each symbol's
 * window of pilot symbols), e->sym_w (1), e->shrink (1) and e->error_var
 * for p (g: its response tables, NULL but for tdl), with n0v[t] the noise
 * on antenna t's pilot estimates. 0, or -1 when a filter is singular. */
int est_2d_weights(const link_params *p, const tdl_grid *g, est_plan *e, const double *n0v);

#endif
