/* The run's decisions that its clock would otherwise make hard to test:
 * which points are flagged as slow before the run (slow_paths.h), and how
 * the progress shows (sweep_progress_mode: the live line on a terminal, a
 * line a minute in a log, --progress's period, nothing with -q). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/slow_paths.h"
#include "sim/sweep_run.h"
#include "testparams.h"
#include "testutil.h"

static void test_slow_paths(void) {
  const char *what;
  link_params p = tp_point(4, 4, 4, CH_RAYLEIGH, 1024, 14, 128);
  p.equalizer = EQ_MMSE;
  CHECK(slow_path_rate(&p, &what) == 0.0 && !what, "4x4 16-QAM mmse is not slow");
  p.equalizer = EQ_ML;
  double rate = slow_path_rate(&p, &what);
  CHECK(what && strstr(what, "ml") && rate > 1e4 && rate < 3e5, "4x4 16-QAM ml: slow, some 0.1 Mbit/s (%g, %s)",
        rate, what ? what : "-");
  p = tp_point(2, 2, 2, CH_RAYLEIGH, 1024, 14, 128);
  p.equalizer = EQ_ML;
  CHECK(slow_path_rate(&p, &what) == 0.0 && !what, "2x2 QPSK ml (16 candidates) is not slow");

  /* Time-domain Doppler: 8x16 BPSK over 64 taps is slow (some 0.4 Mbit/s);
   * TDL-C-like, 2x2 QPSK over 24 taps, is not (measured 4.5 Mbit/s on one
   * core, BENCHMARKS.md), nor in the frequency domain */
  p = tp_point(8, 16, 1, CH_TDL, 1024, 14, 128);
  p.equalizer = EQ_MMSE;
  p.pdp.taps = 64;
  p.doppler_hz = 389.0;
  p.domain = DOMAIN_TIME;
  rate = slow_path_rate(&p, &what);
  CHECK(what && strstr(what, "Doppler") && rate > 1e5 && rate < 1e6, "8x16 BPSK time-domain Doppler: slow (%g)",
        rate);
  p = tp_point(2, 2, 2, CH_TDL, 1024, 14, 128);
  p.equalizer = EQ_MMSE;
  p.pdp.taps = 24;
  p.doppler_hz = 389.0;
  p.domain = DOMAIN_TIME;
  CHECK(slow_path_rate(&p, &what) == 0.0 && !what, "2x2 QPSK TDL-C time-domain Doppler is not slow");
  p.domain = DOMAIN_FREQUENCY;
  CHECK(slow_path_rate(&p, &what) == 0.0, "frequency-domain Doppler is not slow");
  p.domain = DOMAIN_TIME;
  p.doppler_hz = 0.0;
  CHECK(slow_path_rate(&p, &what) == 0.0, "the time domain without Doppler is not slow");

  /* the note: one line per path, none on the GPU */
  sim_point pts[3];
  memset(pts, 0, sizeof pts);
  pts[0].p = tp_point(4, 4, 4, CH_RAYLEIGH, 64, 1, 8);
  pts[0].p.equalizer = EQ_ML;
  pts[0].max_bits = 1e6;
  pts[1] = pts[0];
  pts[2].p = tp_point(2, 2, 2, CH_RAYLEIGH, 64, 1, 8);
  pts[2].max_bits = 1e6;
  sim_config c;
  memset(&c, 0, sizeof c);
  c.points = pts;
  c.n_points = 3;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  slow_paths_note(&c, "cpu", 2, f, "# note: ");
  slow_paths_note(&c, "cuda", 2, f, "# gpu: ");
  fclose(f);
  CHECK(strstr(text, "# note: 2 points on a slow path, exhaustive ml detection: about ") &&
            strstr(text, "with 2 threads if they run to simulation.max_bits"),
        "the note: %s", text);
  CHECK(!strstr(text, "# gpu:"), "no note for the GPU: %s", text);
  free(text);
}

static void test_progress_mode(void) {
  CHECK(sweep_progress_mode(0, 0, 1, 0) == -1, "a terminal: the live line");
  CHECK(sweep_progress_mode(0, 0, 0, 0) == 60.0, "not a terminal: a line a minute");
  CHECK(sweep_progress_mode(0, 0, 0, 1) == -1, "OFDMSIM_PROGRESS: the live line");
  CHECK(sweep_progress_mode(0, 5, 0, 0) == 5.0 && sweep_progress_mode(0, 5, 1, 0) == 5.0,
        "--progress 5: a line every 5 s, on a terminal too");
  CHECK(sweep_progress_mode(1, 0, 1, 0) == -2 && sweep_progress_mode(1, 0, 0, 0) == -2, "-q: nothing");
}

int main(void) {
  test_slow_paths();
  test_progress_mode();
  return test_finish("test_slow_paths");
}
