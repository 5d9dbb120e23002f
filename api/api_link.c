/* The link through the library (ofdmsim.h): one point's backend, batch by
 * batch, its outputs into the caller's buffers. The frames are the point's
 * own counter-based frames, so a batch at offset 0 holds the frames the run
 * counted first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "sim/backends.h"

ofdmsim_status ofdmsim_link_create(ofdmsim_link **out, const ofdmsim_config *cfg, size_t point, const char *backend,
                                   uint64_t max_frames, int flags) {
  if (!out || !cfg) return api_fail(OFDMSIM_ERR_CONFIG, "ofdmsim_link_create: no config");
  *out = NULL;
  const sim_config *c = &cfg->c;
  if (point >= c->n_points)
    return api_fail(OFDMSIM_ERR_CONFIG, "point %zu: expected a point of the sweep (0 to %zu), got %zu", point,
                    c->n_points ? c->n_points - 1 : 0, point);
  const char *asked = backend ? backend : c->backend;
  char err[1024] = "";
  const char *name = backends_resolve(asked, err, sizeof err);
  if (!name) return api_fail(OFDMSIM_ERR_RUNTIME, "simulation.backend = \"%s\": %s", asked, err);
  ofdmsim_link *l = calloc(1, sizeof *l);
  if (!l) return api_fail(OFDMSIM_ERR_RUNTIME, "out of memory");
  l->pt = c->points[point];
  l->flags = flags;
  snprintf(l->backend, sizeof l->backend, "%s", name);
  backend_options bo = {0};
  bo.max_batch_frames = max_frames;
  backend_options_set(&bo, "cpu", "threads", c->threads);
  backend_options_set(&bo, "cuda", "memory_mb", (int64_t)c->gpu_memory_mb);
  if (flags & OFDMSIM_LINK_CHANNELS) { /* only the staged path keeps the buffers */
    backend_options_set(&bo, "cpu", "staged", 1);
    backend_options_set(&bo, "cuda", "staged", 1);
  }
  l->b = backends_create(name, &l->pt.p, &bo, err, sizeof err);
  if (!l->b) {
    free(l);
    return api_fail(OFDMSIM_ERR_RUNTIME, "point %zu: %s", point, err);
  }
  l->cap = l->b->ops->max_frames(l->b);
  if (max_frames && max_frames < l->cap) l->cap = max_frames;
  const size_t tx = (size_t)l->pt.p.tx;
  l->errors = malloc(sizeof *l->errors * (size_t)l->cap * (tx + 1));
  l->loss = malloc(sizeof *l->loss * (size_t)l->cap * tx);
  if (!l->errors || !l->loss) {
    const unsigned long long cap = l->cap;
    ofdmsim_link_free(l);
    return api_fail(OFDMSIM_ERR_RUNTIME, "point %zu: out of memory for batches of %llu frames", point, cap);
  }
  *out = l;
  return OFDMSIM_OK;
}

void ofdmsim_link_free(ofdmsim_link *l) {
  if (!l) return;
  backend_destroy(l->b);
  free(l->errors);
  free(l->loss);
  free(l);
}

void ofdmsim_link_get_info(const ofdmsim_link *l, ofdmsim_link_info *info) {
  memset(info, 0, sizeof *info);
  if (!l) return;
  const link_params *p = &l->pt.p;
  info->tx = p->tx;
  info->rx = p->rx;
  info->bps = p->bps;
  info->symbols = p->symbols;
  info->subcarriers = p->subcarriers;
  info->res_per_frame = (uint64_t)p->symbols * (uint64_t)p->subcarriers;
  info->data_res_per_frame = link_data_res_per_frame(p);
  info->first_frame = l->pt.first_frame;
  info->max_frames = l->cap;
  info->point_key = l->pt.point_key;
  info->snr_db = p->snr_db;
  info->n0 = p->n0;
  info->soft = p->llr != LLR_OFF;
  info->device = backends_on_device(l->backend);
  snprintf(info->backend, sizeof info->backend, "%s", l->backend);
}

/* One of the kept buffers of the last batch into dst. */
static ofdmsim_status fetch(ofdmsim_link *l, backend_buffer which, float *dst, uint64_t frames, const char *what) {
  if (!(l->flags & OFDMSIM_LINK_CHANNELS))
    return api_fail(OFDMSIM_ERR_CONFIG, "%s: the link keeps them only when created with OFDMSIM_LINK_CHANNELS", what);
  const size_t n = backend_buffer_elements(&l->pt.p, which, frames);
  if (backend_fetch(l->b, which, (cf32 *)dst, n))
    return api_fail(OFDMSIM_ERR_RUNTIME, "%s: %s", what, backend_error(l->b));
  return OFDMSIM_OK;
}

ofdmsim_status ofdmsim_link_batch(ofdmsim_link *l, uint64_t frame_offset, uint64_t frames, const ofdmsim_batch *out) {
  if (!l || !out) return api_fail(OFDMSIM_ERR_CONFIG, "ofdmsim_link_batch: no link or no outputs");
  if (frames == 0 || frames > l->cap)
    return api_fail(OFDMSIM_ERR_CONFIG, "a batch of %llu frames: expected 1 to %llu (the link's max_frames)",
                    (unsigned long long)frames, (unsigned long long)l->cap);
  const link_params *p = &l->pt.p;
  if ((out->llr || out->bits) && p->llr == LLR_OFF)
    return api_fail(OFDMSIM_ERR_CONFIG,
                    "point %zu has receiver.llr = \"off\" (no soft outputs); set receiver.llr = \"maxlog\" or "
                    "\"exact\"",
                    l->pt.index);
  const size_t tx = (size_t)p->tx;
  batch_result br = {.errors = l->errors, .fallbacks = l->errors + (size_t)l->cap * tx,
                     .gmi_loss = p->llr != LLR_OFF ? l->loss : NULL, .llr = out->llr, .bits = out->bits};
  if (backend_run(l->b, l->pt.first_frame + frame_offset, frames, &br))
    return api_fail(OFDMSIM_ERR_RUNTIME, "point %zu: the %s backend failed: %s", l->pt.index, l->backend,
                    backend_error(l->b));
  if (out->bit_errors) memcpy(out->bit_errors, l->errors, sizeof *l->errors * (size_t)frames * tx);
  ofdmsim_status rc = OFDMSIM_OK;
  if (out->channels) rc = fetch(l, BUF_H, out->channels, frames, "channels");
  if (!rc && out->symbols) rc = fetch(l, BUF_XHAT, out->symbols, frames, "symbols");
  return rc;
}

void *ofdmsim_link_device_alloc(ofdmsim_link *l, size_t bytes) {
  if (!l) return api_fail(OFDMSIM_ERR_CONFIG, "ofdmsim_link_device_alloc: no link"), NULL;
  char why[512] = "";
  void *p = backends_device_alloc(l->backend, bytes, why, sizeof why);
  if (!p) api_fail(OFDMSIM_ERR_RUNTIME, "%s", why);
  return p;
}

void ofdmsim_link_device_free(ofdmsim_link *l, void *p) {
  if (l && p) backends_device_free(l->backend, p);
}
