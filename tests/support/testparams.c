#include "testparams.h"

#include "testutil.h"

link_params tp_point(int tx, int rx, int bps, channel_model model, int subcarriers, int symbols,
                     int cp_length) {
  /* The fields left out of the initialiser are zero. */
  const link_params p = {.tx = tx, .rx = rx, .bps = bps, .model = model,
                         .subcarriers = subcarriers, .symbols = symbols, .cp_length = cp_length,
                         .subcarrier_spacing = 30e3};
  return p;
}

chan_spatial tp_spatial(const link_params *p) {
  chan_spatial s;
  char err[256];
  CHECK(chan_spatial_init(p, &s, err, sizeof err) == 0, "chan_spatial_init: %s", err);
  return s;
}

void tp_dmrs(link_params *p, int type, int length, int add_pos) {
  p->pilot_kind = PILOT_DMRS;
  p->dmrs_type = type;
  p->dmrs_length = length;
  p->dmrs_add_pos = add_pos;
  p->dmrs_l0 = 2;
  p->dmrs_boost = 1;
}
