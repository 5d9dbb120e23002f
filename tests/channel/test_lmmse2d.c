/* lmmse2d's tables (channel/estimate_2d.c) against an independent numpy
 * reference (tests/channel/lmmse2d_ref.py): the windows, the 2-D Wiener
 * weights of every RE and the error variance the receiver is told, on a
 * comb (2 antennas, pilots every 4th subcarrier on symbols 1, 4, 7, 10 and
 * 13: two time windows of 4) over four taps at continuous delays, with a
 * Doppler of 3% of the subcarrier spacing, with and without a LOS part, and
 * without Doppler (the filter then averages the pilot symbols). The
 * reference builds the full covariance (no separability) from the taps and
 * the windowed Jakes correlation it integrates itself. Skipped (77) where
 * no python3 with numpy runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "channel/estimate.h"
#include "testparams.h"
#include "testutil.h"

static link_params point(double los, double fd_share) {
  link_params p = tp_point(2, 2, 2, CH_TDL, 64, 14, 8);
  static const double delay[4] = {0.0, 1.3, 3.7, 6.2}, rel[4] = {1.0, 0.6, 0.3, 0.1};
  p.pdp.taps = 4;
  for (int l = 0; l < 4; l++) {
    p.pdp.delay[l] = delay[l];
    p.pdp.power[l] = (float)((1.0 - los) * rel[l] / 2.0);
  }
  p.pdp.los_power = (float)los;
  p.delays = DELAYS_CONTINUOUS;
  p.doppler_hz = fd_share * p.subcarrier_spacing;
  p.pilot_spacing = 4;
  p.pilot_first = 1;
  p.pilot_every = 3;
  p.estimation = EST_LS;
  p.interpolation = INTERP_LMMSE2D;
  p.n0 = 0.02;
  return p;
}

/* The first python3 with numpy: $OFDMSIM_PYTHON, python3, /usr/bin/python3
 * (as python/tests/run.sh looks); NULL when none has it. */
static const char *python_with_numpy(void) {
  static const char *cands[] = {NULL, "python3", "/usr/bin/python3"};
  cands[0] = getenv("OFDMSIM_PYTHON");
  for (int i = 0; i < 3; i++) {
    char cmd[512];
    if (!cands[i] || !*cands[i]) continue;
    snprintf(cmd, sizeof cmd, "'%s' -c 'import numpy' >/dev/null 2>&1", cands[i]);
    if (system(cmd) == 0) return cands[i];
  }
  return NULL;
}
static const char *py;

static void check_case(double los, double fd_share) {
  link_params p = point(los, fd_share);
  char err[256];
  CHECK(link_params_check(&p, err, sizeof err) == 0, "point: %s", err);
  est_plan e;
  const int made = est_plan_make(&p, &e, err, sizeof err);
  CHECK(made == 0, "est_plan_make: %s", err);
  if (made) return;
  CHECK(e.tt == 4 && e.taps == EST_LMMSE_TAPS && e.shrink == 1.0, "tt %d, taps %d, shrink %g", e.tt, e.taps,
        e.shrink);
  char path[] = "/tmp/ofdmsim_lmmse2d_XXXXXX";
  const int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  CHECK(f != NULL, "a temporary file");
  if (!f) {
    est_plan_free(&e);
    return;
  }
  const int K = p.subcarriers, S = p.symbols, N = e.taps * e.tt;
  fprintf(f, "K %d\nS %d\nP %d\ntx %d\ncp %d\nT %d\nTt %d\n", K, S, p.pilot_spacing, p.tx, p.cp_length, e.taps, e.tt);
  fprintf(f, "doppler_hz %.17g\nscs %.17g\nn0 %.17g\nlos %.9g\nerror_var %.17g\n", p.doppler_hz,
          p.subcarrier_spacing, p.n0, (double)p.pdp.los_power, e.error_var);
  fprintf(f, "delay");
  for (int l = 0; l < p.pdp.taps; l++) fprintf(f, " %.17g", p.pdp.delay[l]);
  fprintf(f, "\npower");
  for (int l = 0; l < p.pdp.taps; l++) fprintf(f, " %.9g", (double)p.pdp.power[l]);
  fprintf(f, "\npilot_symbols");
  for (int j = 0; j < e.pilot_syms; j++) fprintf(f, " %d", pilot_symbol_at(&e.pg, j));
  fprintf(f, "\nfirst");
  for (int i = 0; i < p.tx * K; i++) fprintf(f, " %d", e.first[i]);
  fprintf(f, "\nsym_lo");
  for (int s = 0; s < S; s++) fprintf(f, " %d", e.sym_lo[s]);
  fprintf(f, "\nw");
  for (size_t i = 0; i < (size_t)p.tx * S * K * N; i++) fprintf(f, " %.9g %.9g", (double)e.w[i].re, (double)e.w[i].im);
  fprintf(f, "\n");
  fclose(f);
  const char *src = getenv("OFDMSIM_SOURCE_DIR");
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "'%s' '%s/tests/channel/lmmse2d_ref.py' '%s'", py, src ? src : ".", path);
  printf("LOS %.2f, f_d %.0f Hz: told %.6e; ", los, p.doppler_hz, e.error_var);
  fflush(stdout);
  CHECK(system(cmd) == 0, "LOS %.2f, f_d %g Hz: the plan differs from the numpy reference", los, p.doppler_hz);
  unlink(path);
  est_plan_free(&e);
}

int main(void) {
  py = python_with_numpy();
  if (!py) {
    printf("test_lmmse2d: skipped (no python3 with numpy)\n");
    return TEST_SKIP;
  }
  check_case(0.0, 0.03);
  check_case(0.5, 0.03);
  check_case(0.0, 0.0);
  return test_finish("test_lmmse2d");
}
