/* The header's channel lines: how long each distinct multipath channel of
 * the run is in samples, next to the cyclic prefix it has to fit in. */
#include <stdio.h>
#include <string.h>

#include "channel/tdl_grid.h"
#include "core/names.h"
#include "results/report.h"

/* Whether point i's channel was already described (same profile, delays,
 * grid and CP as an earlier point's; custom taps: the same delays). */
static int seen_before(const sim_config *c, size_t i) {
  const link_params *p = &c->points[i].p;
  for (size_t j = 0; j < i; j++) {
    const link_params *q = &c->points[j].p;
    if (q->model == CH_TDL && q->profile == p->profile && q->delay_spread == p->delay_spread &&
        q->delays == p->delays && q->domain == p->domain && q->subcarriers == p->subcarriers &&
        q->cp_length == p->cp_length && q->subcarrier_spacing == p->subcarrier_spacing &&
        (p->profile != PDP_CUSTOM || !memcmp(q->pdp.delay, p->pdp.delay, sizeof p->pdp.delay)))
      return 1;
  }
  return 0;
}

#define REPORT_MAX_CHANNEL_LINES 8

void report_channels(FILE *f, const sim_config *c) {
  int lines = 0;
  for (size_t i = 0; i < c->n_points; i++) {
    const link_params *p = &c->points[i].p;
    if (p->model != CH_TDL || seen_before(c, i)) continue;
    if (++lines > REPORT_MAX_CHANNEL_LINES) {
      fprintf(f, "# channel: ... (more channels than shown)\n");
      return;
    }
    const double fs = link_sample_rate(p);
    const double last = p->pdp.delay[p->pdp.taps - 1];
    fprintf(f, "# channel: %s, delay spread %.4g samples (%.4g ns at %.6g MHz), last tap at %.4g samples", pdp_kind_name(p->profile),
            p->delay_spread, p->delay_spread / fs * 1e9, fs / 1e6, last);
    if (p->domain == DOMAIN_TIME) {
      tdl_grid g;
      char err[256];
      if (!tdl_grid_make(p, &g, err, sizeof err)) {
        /* the discrete channel, with the interpolator's reach and the
         * window rotation, is what the CP must cover */
        const int span = g.td_taps > 0 ? g.td_delay[g.td_taps - 1] + 1 : 1;
        fprintf(f, "; discrete channel %d samples, CP %d%s", span, p->cp_length,
                span - 1 > p->cp_length ? " (shorter: inter-symbol interference)" : "");
        tdl_grid_free(&g);
      }
    } else {
      fprintf(f, "; CP %d (the frequency domain has no inter-symbol interference)", p->cp_length);
    }
    fputc('\n', f);
  }
}
