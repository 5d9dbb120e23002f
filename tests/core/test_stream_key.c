/* Which parameters enter a point's stream key (core/params.h): those that
 * shape what is transmitted and received do; the receiver's (equalizer, CSI
 * error), the seed (mixed in separately by rng_key) and parameters that do
 * not act on the point (delay spread of a non-tdl channel, cyclic prefix in
 * the frequency domain) do not. */
#include <string.h>

#include "core/draws.h"
#include "core/params.h"
#include "testparams.h"
#include "testutil.h"

static link_params base(void) {
  link_params p = tp_point(2, 4, 4, CH_RAYLEIGH, 64, 14, 16);
  p.n0 = 0.05;
  p.snr_db = 10.0;
  p.seed = 3;
  return p;
}

int main(void) {
  link_params a = base(), b = base();
  CHECK(link_stream_key(&a) == link_stream_key(&b), "a pure function of the parameters");

  /* Left out: the receiver, the seed, and what does not act on the point. */
  b = base(); b.equalizer = EQ_MMSE;
  CHECK(link_stream_key(&a) == link_stream_key(&b), "equalizer must not enter");
  b = base(); b.csi_error_var = 0.1;
  CHECK(link_stream_key(&a) == link_stream_key(&b), "csi_error_var must not enter");
  b = base(); b.seed = 4;
  CHECK(link_stream_key(&a) == link_stream_key(&b), "the seed enters through rng_key, not here");
  CHECK(rng_key(a.seed, link_stream_key(&a)) != rng_key(b.seed, link_stream_key(&b)),
        "but the Philox key follows the seed");
  b = base(); b.delay_spread = 7.0; b.profile = PDP_TDL_C;
  CHECK(link_stream_key(&a) == link_stream_key(&b), "tdl parameters of a rayleigh point must not enter");
  b = base(); b.cp_length = 4;
  CHECK(link_stream_key(&a) == link_stream_key(&b), "the cyclic prefix in the frequency domain must not enter");

  /* Entered: everything that shapes the signal, the channel or the noise. */
  static const char *const what[] = {"tx", "rx", "bps", "model", "domain", "subcarriers", "symbols",
                                     "n0", "rho_tx", "rho_rx", "k_factor"};
  link_params v[11];
  for (int i = 0; i < 11; i++) v[i] = base();
  v[0].tx = 1, v[1].rx = 2, v[2].bps = 2, v[3].model = CH_TDL, v[4].domain = DOMAIN_TIME;
  v[5].subcarriers = 128, v[6].symbols = 7, v[7].n0 = 0.0500001, v[8].rho_tx = 0.5, v[9].rho_rx = 0.5;
  v[10].k_factor = 1.0;
  for (int i = 0; i < 11; i++)
    CHECK(link_stream_key(&v[i]) != link_stream_key(&a), "%s must enter the key", what[i]);
  /* ... and, where they act, the tdl profile, its spread and the time-domain CP. */
  link_params t = base(), u;
  t.model = CH_TDL;
  u = t; u.profile = PDP_TDL_A;
  CHECK(link_stream_key(&u) != link_stream_key(&t), "the profile of a tdl point enters");
  u = t; u.delay_spread = 3.0;
  CHECK(link_stream_key(&u) != link_stream_key(&t), "the delay spread of a tdl point enters");
  t.domain = DOMAIN_TIME;
  u = t; u.cp_length = 8;
  CHECK(link_stream_key(&u) != link_stream_key(&t), "the cyclic prefix in the time domain enters");
  return test_finish("test_stream_key");
}
