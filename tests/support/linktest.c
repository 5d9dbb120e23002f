#include "linktest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel/estimate.h"
#include "channel/tdl.h"
#include "sim/backends.h"
#include "results/stats.h"
#include "testparams.h"
#include "testutil.h"

link_params lt_params(int tx, int rx, int bps, eq_kind eq, channel_model model, double ebno_db) {
  /* 64 subcarriers x 4 symbols, CP 16; tp_point leaves the zero defaults
   * that stand here: profile PDP_EXP, the frequency domain, SNR as Eb/N0,
   * point 0. */
  link_params p = tp_point(tx, rx, bps, model, 64, 4, 16);
  p.equalizer = eq;
  p.delay_spread = 2.0; /* what a tdl point gets when the caller sets no other */
  p.snr_db = ebno_db;
  p.seed = 12345;
  p.pdp = (tdl_pdp){.taps = 1, .power = {1.0f}}; /* flat: one tap at delay 0 */
  p.n0 = link_noise_variance(p.snr_kind, p.snr_db, p.tx, p.bps);
  p.stream_key = link_stream_key(&p);
  return p;
}

int lt_finish(link_params *p) {
  p->n0 = link_noise_variance(p->snr_kind, p->snr_db, p->tx, p->bps);
  if (p->model == CH_TDL) {
    char err[256];
    if (tdl_pdp_make(p->profile, p->delay_spread, p->k_factor, p->delays, p->subcarriers - 1, &p->pdp, err, sizeof err)) {
      fprintf(stderr, "lt_finish: %s\n", err);
      return -1;
    }
  }
  p->stream_key = link_stream_key(p);
  return 0;
}

int lt_finish_estimated(link_params *p) {
  char err[256];
  if (lt_finish(p)) return -1;
  if (link_params_check(p, err, sizeof err) || est_resolve(p, err, sizeof err)) {
    fprintf(stderr, "point: %s\n", err);
    return -1;
  }
  return 0;
}

int lt_simulate(const char *backend_name_, const link_params *p, uint64_t target, double max_bits,
                uint64_t batch, lt_counts *out) {
  return lt_simulate_min(backend_name_, p, target, 1, max_bits, batch, out);
}

static int simulate(const char *backend_name_, const link_params *p, uint64_t target, uint64_t min_frames,
                    double max_bits, uint64_t batch, int grid, lt_counts *out);

int lt_simulate_min(const char *backend_name_, const link_params *p, uint64_t target,
                    uint64_t min_frames, double max_bits, uint64_t batch, lt_counts *out) {
  return simulate(backend_name_, p, target, min_frames, max_bits, batch, 0, out);
}

int lt_simulate_gmi(const char *backend_name_, const link_params *p, uint64_t target,
                    uint64_t min_frames, double max_bits, lt_counts *out) {
  return simulate(backend_name_, p, target, min_frames, max_bits, 0, 1, out);
}

static int simulate(const char *backend_name_, const link_params *p, uint64_t target, uint64_t min_frames,
                    double max_bits, uint64_t batch, int grid, lt_counts *out) {
  char err[512];
  backend_options opt;
  memset(&opt, 0, sizeof opt);
  opt.max_batch_frames = batch;
  backend *b = backends_create(backend_name_, p, &opt, err, sizeof err);
  if (!b) {
    fprintf(stderr, "lt_simulate: %s\n", err);
    return -1;
  }
  memset(out, 0, sizeof *out);
  const uint64_t cap = b->ops->max_frames(b), bpf = link_bits_per_frame(p);
  uint32_t *e = malloc(sizeof(uint32_t) * cap * ((size_t)p->tx + 1));
  uint64_t *loss = p->llr != LLR_OFF ? malloc(sizeof(uint64_t) * cap * (size_t)p->tx) : NULL;
  uint64_t *loss_s = p->llr != LLR_OFF && grid ? malloc(sizeof(uint64_t) * cap * GMI_GRID) : NULL;
  batch_result r = {.errors = e, .fallbacks = e + cap * (size_t)p->tx, .gmi_loss = loss, .gmi_loss_s = loss_s};
  const double rf = (double)link_res_per_frame(p);
  const double df = (double)link_data_res_per_frame(p); /* the grid's, per data RE as the tally's */
  int rc = 0, done = 0;
  uint64_t next = 1;
  while (!done) {
    const uint64_t n = next < cap ? next : cap;
    if (backend_run(b, out->frames, n, &r)) {
      rc = -1;
      break;
    }
    for (uint64_t f = 0; f < n && !done; f++) {
      uint64_t frame_errors = 0;
      for (int t = 0; t < p->tx; t++) frame_errors += e[f * (uint64_t)p->tx + (uint64_t)t];
      out->errors += frame_errors;
      out->sum_sq += (double)frame_errors * (double)frame_errors;
      out->fallbacks += r.fallbacks[f];
      if (loss) {
        double frame_loss = 0.0;
        for (int t = 0; t < p->tx; t++) {
          const double l = ldexp((double)loss[f * (uint64_t)p->tx + (uint64_t)t], -GMI_LOSS_SHIFT);
          out->gmi_loss[t] += l;
          frame_loss += l;
        }
        out->gmi_loss_total += frame_loss;
        out->gmi_loss_sq += (frame_loss / rf) * (frame_loss / rf);
      }
      for (int k = 0; loss_s && k < GMI_GRID; k++) {
        const double l = ldexp((double)loss_s[f * GMI_GRID + (uint64_t)k], -GMI_LOSS_SHIFT);
        out->gmi_loss_s[k] += l;
        out->gmi_loss_s_sq[k] += (l / df) * (l / df);
      }
      out->bits += bpf;
      out->frames++;
      done = (out->errors >= target && out->frames >= min_frames) || (double)out->bits >= max_bits;
    }
    if (next < cap) next *= 2;
  }
  free(e);
  free(loss);
  free(loss_s);
  backend_destroy(b);
  return rc;
}

double lt_gmi(const link_params *p, const lt_counts *c, double *lo, double *hi) {
  const double rf = (double)link_res_per_frame(p), n = (double)c->frames, full = (double)p->tx * p->bps;
  const double mean = c->gmi_loss_total / rf / n; /* loss per RE, per frame */
  const double var = n > 1 ? fmax(0.0, (c->gmi_loss_sq - n * mean * mean) / (n - 1.0)) : NAN;
  const double half = t_quantile(0.975, n - 1.0) * sqrt(var / n);
  if (lo) *lo = full - mean - half;
  if (hi) *hi = full - mean + half;
  return full - mean;
}

double lt_ber(const link_params *p, uint64_t frames, double *se) {
  lt_counts c;
  CHECK(lt_simulate("cpu", p, UINT64_MAX, (double)frames * link_bits_per_frame(p), 0, &c) == 0, "simulate");
  const double bpf = (double)link_bits_per_frame(p), mean = (double)c.errors / c.bits;
  const double var = (c.sum_sq / (bpf * bpf) - c.frames * mean * mean) / (c.frames - 1);
  *se = sqrt(var / c.frames);
  return mean;
}

int lt_cuda_missing(const char *test) {
  char why[256] = "";
  if (backends_usable("cuda", why, sizeof why)) return 0;
  printf("%s: skipped: %s\n", test, why);
  return 1;
}
