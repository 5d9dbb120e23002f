#include "coded_point.h"

#include "coding/tbs.h"

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
