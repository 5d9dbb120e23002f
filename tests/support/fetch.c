#include "fetch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pilots.h"
#include "sim/backends.h"

int lt_fetch_errors(const link_params *p, uint64_t frames, int n, const backend_buffer *which, cf32 **out,
                    uint32_t *errors) {
  char err[512] = "";
  for (int i = 0; i < n; i++) out[i] = NULL;
  backend_options opt;
  memset(&opt, 0, sizeof opt);
  backend_options_set(&opt, "cpu", "staged", 1);
  opt.max_batch_frames = frames;
  backend *b = backends_create("cpu", p, &opt, err, sizeof err);
  if (!b) {
    fprintf(stderr, "lt_fetch: create: %s\n", err);
    return -1;
  }
  uint32_t *own = errors ? NULL : calloc(frames * (size_t)p->tx, sizeof *own);
  batch_result r;
  memset(&r, 0, sizeof r);
  r.errors = errors ? errors : own;
  int rc = !r.errors || b->ops->max_frames(b) < frames || backend_run(b, 0, frames, &r) ? -1 : 0;
  for (int i = 0; !rc && i < n; i++) {
    const size_t count = backend_buffer_elements(p, which[i], frames);
    out[i] = malloc(sizeof(cf32) * count);
    rc = !out[i] || backend_fetch(b, which[i], out[i], count) ? -1 : 0;
  }
  if (rc) {
    fprintf(stderr, "lt_fetch: run: %s\n", r.errors ? backend_error(b) : "no memory");
    for (int i = 0; i < n; i++) free(out[i]), out[i] = NULL;
  }
  free(own);
  backend_destroy(b);
  return rc;
}

int lt_fetch(const link_params *p, uint64_t frames, int n, const backend_buffer *which, cf32 **out) {
  return lt_fetch_errors(p, frames, n, which, out, NULL);
}

int lt_fetch_frames(const link_params *p, uint64_t frames, lt_frame_buffers *o, uint32_t *errors) {
  memset(o, 0, sizeof *o);
  const int ls = p->estimation == EST_LS;
  const backend_buffer which[4] = {BUF_X, BUF_H, BUF_Y, BUF_HHAT};
  cf32 *out[4];
  if (lt_fetch_errors(p, frames, ls ? 4 : 3, which, out, errors)) return -1;
  o->X = out[0];
  o->H = out[1];
  o->Y = out[2];
  o->Hhat = ls ? out[3] : NULL;
  return 0;
}

void lt_frame_buffers_free(lt_frame_buffers *o) {
  free(o->X);
  free(o->H);
  free(o->Hhat);
  free(o->Y);
  memset(o, 0, sizeof *o);
}

double lt_estimate_mse(const link_params *p, const lt_frame_buffers *o, uint64_t frames, double *se) {
  return lt_estimate_mse_frames(p, o, frames, se, NULL);
}

double lt_estimate_mse_frames(const link_params *p, const lt_frame_buffers *o, uint64_t frames, double *se,
                              double *per) {
  const uint64_t rf = link_res_per_frame(p);
  const size_t R = (size_t)(frames * rf), links = (size_t)p->tx * p->rx;
  const pilot_grid g = link_pilot_grid(p);
  double sum = 0, sum2 = 0;
  for (uint64_t f = 0; f < frames; f++) {
    double fs = 0;
    uint64_t fn = 0;
    for (uint64_t m = 0; m < rf; m++) {
      if (pilot_antenna(&g, m) >= 0) continue;
      for (size_t e = 0; e < links; e++) {
        const size_t at = e * R + f * rf + m;
        const double dr = o->Hhat[at].re - o->H[at].re, di = o->Hhat[at].im - o->H[at].im;
        fs += dr * dr + di * di, fn++;
      }
    }
    sum += fs / fn, sum2 += (fs / fn) * (fs / fn);
    if (per) per[f] = fs / fn;
  }
  const double mean = sum / frames;
  *se = sqrt((sum2 / frames - mean * mean) / (frames - 1));
  return mean;
}
