/* The CPU backend's time domain by the CP-aligned transform (channel/ofdm.h)
 * against the sample-by-sample convolution (the backend option td_direct),
 * whole links through the receiver:
 *  - where the taps fit the CP (tdl, no Doppler) the backend says it took
 *    the transform ("CP-aligned transform") and with td_direct = 1 the
 *    convolution; AWGN, Doppler and taps past the CP always convolve;
 *  - the two paths make the same y up to float rounding, so every frame's
 *    bit errors agree within 0.1% + 2, the tolerance the GPU's transform is
 *    held to against the CPU (test_gpu_vs_cpu), on points with thousands of
 *    errors a frame; a transform that dropped the noise, rotated the window
 *    wrongly or used the continuous response instead of the discrete taps'
 *    would move them by far more;
 *  - fused and staged take the same path and give the same counts bit for
 *    bit (both call the modem's frame). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel/tdl.h"
#include "cpu/backend_cpu.h"
#include "testparams.h"
#include "testutil.h"

enum { FRAMES = 12 };

static backend *create(const link_params *p, int staged, int direct) {
  backend_options opt;
  memset(&opt, 0, sizeof opt);
  backend_options_set(&opt, "cpu", "staged", staged);
  backend_options_set(&opt, "cpu", "td_direct", direct);
  opt.max_batch_frames = 4;
  char err[512];
  backend *b = backend_cpu_create(p, &opt, err, sizeof err);
  CHECK(b != NULL, "create: %s", err);
  return b;
}

/* Frames [0, FRAMES) of p: errors[f * tx + t]; *path the backend's
 * td_path. 0, or -1 after a failed CHECK. */
static int run(const link_params *p, int staged, int direct, uint32_t *errors, const char **path) {
  backend *b = create(p, staged, direct);
  if (!b) return -1;
  *path = b->td_path;
  uint32_t fallbacks[FRAMES];
  int rc = 0;
  for (uint64_t f = 0; f < FRAMES && !rc; f += 4) {
    batch_result r;
    memset(&r, 0, sizeof r);
    r.errors = errors + f * (uint64_t)p->tx;
    r.fallbacks = fallbacks + f;
    rc = backend_run(b, f, 4, &r);
    CHECK(rc == 0, "run: %s", backend_error(b));
  }
  backend_destroy(b);
  return rc;
}

static int close_counts(uint64_t a, uint64_t b) {
  const double d = a > b ? (double)(a - b) : (double)(b - a);
  return d <= 0.001 * (double)b + 2.0;
}

/* One point: its path with and without td_direct, and the counts. */
static void check_point(const char *what, channel_model model, int K, int cp, double ds, delay_grid dg, double fd_hz,
                        int want_transform) {
  link_params p = tp_point(4, 4, 4, model, K, 14, cp);
  p.equalizer = EQ_MMSE;
  p.domain = DOMAIN_TIME;
  p.snr_kind = SNR_EBNO;
  p.snr_db = 8.0;
  p.n0 = link_noise_variance(p.snr_kind, p.snr_db, p.tx, p.bps);
  p.doppler_hz = fd_hz;
  p.seed = 29;
  if (model == CH_TDL) {
    char err[256];
    p.profile = PDP_TDL_A;
    p.delay_spread = ds;
    p.delays = dg;
    CHECK(tdl_pdp_make(p.profile, ds, 0.0, dg, K - 1, &p.pdp, err, sizeof err) == 0, "tdl_pdp_make: %s", err);
  }
  p.stream_key = link_stream_key(&p);
  uint32_t e_tr[FRAMES * 4], e_dir[FRAMES * 4], e_staged[FRAMES * 4];
  const char *path_tr = NULL, *path_dir = NULL, *path_staged = NULL;
  if (run(&p, 0, 0, e_tr, &path_tr) || run(&p, 0, 1, e_dir, &path_dir) || run(&p, 1, 0, e_staged, &path_staged))
    return;
  const char *want = want_transform ? "CP-aligned transform" : "sample by sample";
  CHECK(path_tr && !strcmp(path_tr, want), "%s: took '%s', expected '%s'", what, path_tr ? path_tr : "(none)", want);
  CHECK(path_staged && !strcmp(path_staged, want), "%s: staged took '%s', expected '%s'", what,
        path_staged ? path_staged : "(none)", want);
  CHECK(path_dir && !strcmp(path_dir, "sample by sample"), "%s: td_direct took '%s'", what,
        path_dir ? path_dir : "(none)");
  CHECK(!memcmp(e_tr, e_staged, sizeof e_tr), "%s: fused and staged counts differ", what);
  uint64_t tot_tr = 0, tot_dir = 0;
  int frames_ok = 1, identical = 1;
  for (int f = 0; f < FRAMES; f++) {
    uint64_t a = 0, b = 0;
    for (int t = 0; t < 4; t++) {
      a += e_tr[f * 4 + t];
      b += e_dir[f * 4 + t];
    }
    tot_tr += a;
    tot_dir += b;
    frames_ok &= close_counts(a, b);
    identical &= a == b;
  }
  printf("%-40s %-22s errors %llu, convolved %llu\n", what, path_tr ? path_tr : "-", (unsigned long long)tot_tr,
         (unsigned long long)tot_dir);
  if (want_transform)
    CHECK(tot_dir > 1000 * FRAMES, "%s: %llu errors, too few for the comparison to mean anything", what,
          (unsigned long long)tot_dir);
  CHECK(frames_ok, "%s: per-frame errors of the two paths differ by more than 0.1%% + 2", what);
  if (!want_transform) CHECK(identical, "%s: the same path gave different counts", what);
}

int main(void) {
  /* 100 ns at 256 x 30 kHz: the discrete taps reach about 40 samples */
  const double ds = 100e-9 * 256 * 30e3;
  check_point("tdl-a continuous, cp 64", CH_TDL, 256, 64, ds, DELAYS_CONTINUOUS, 0.0, 1);
  check_point("tdl-a sample grid, cp 18", CH_TDL, 256, 18, 1.5, DELAYS_SAMPLE, 0.0, 1);
  /* taps past the CP: inter-symbol interference, the convolution only */
  check_point("tdl-a continuous, cp 18", CH_TDL, 256, 18, ds, DELAYS_CONTINUOUS, 0.0, 0);
  /* taps that fade within the frame */
  check_point("tdl-a continuous, cp 64, 500 Hz", CH_TDL, 256, 64, ds, DELAYS_CONTINUOUS, 500.0, 0);
  check_point("awgn", CH_AWGN, 256, 18, 0.0, DELAYS_CONTINUOUS, 0.0, 0);
  return test_finish("test_td_transform");
}
