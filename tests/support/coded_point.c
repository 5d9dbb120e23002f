#include "coded_point.h"

#include "coding/tbs.h"
#include "testparams.h"

void tp_ldpc(link_params *p, double rate, code_decoder decoder) {
  p->code.type = CODE_LDPC;
  p->code.rate = rate;
  p->code.tbs = tbs_from_re((int)link_data_res_per_frame(p), rate, p->bps, p->tx);
  p->code.decoder = decoder;
  p->code.scale = 0.75;
  p->code.offset = 0.5;
  p->code.max_iterations = 10;
  p->code.early_termination = 1;
  p->code.mcs = -1;
  p->stream_key = link_stream_key(p);
}

link_params tp_coded_point(const tp_coded_spec *s, double esno, uint64_t seed) {
  link_params p = tp_point(s->tx, s->tx, s->bps, CH_AWGN, s->K, s->S, s->K / 8);
  p.pdp.taps = 1;
  p.pdp.power[0] = 1.0f;
  p.equalizer = s->eq;
  p.kbest_k = 8;
  p.llr_clip = 20.0;
  p.llr = LLR_MAXLOG;
  p.snr_kind = SNR_ESNO;
  p.snr_db = esno;
  p.n0 = link_noise_variance(p.snr_kind, p.snr_db, p.tx, p.bps);
  p.subcarrier_spacing = 30e3;
  p.seed = seed;
  if (s->pilots == 2) {
    tp_dmrs(&p, 1, 1, 1);
  } else if (s->pilots) {
    p.pilot_spacing = s->tx + 2;
    p.pilot_first = 0;
    p.pilot_every = 0;
  }
  tp_ldpc(&p, s->rate, s->dec);
  return p;
}
