/* The shell every backend shares: parameter check, allocation, the batch
 * bookkeeping around its run, and the buffer-size rule of fetch. */
#include "core/backend.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t backend_buffer_elements(const link_params *p, backend_buffer which, uint64_t frames) {
  const size_t R = (size_t)(frames * link_res_per_frame(p)), tx = (size_t)p->tx, rx = (size_t)p->rx;
  switch (which) {
    case BUF_X: return tx * R;
    case BUF_H: return rx * tx * R;
    case BUF_Y: return rx * R;
    case BUF_XHAT: return tx * R;
    case BUF_GINV: return tx * tx * R;
    case BUF_HHAT: return rx * tx * R;
  }
  return 0;
}

backend *backend_alloc(const struct backend_ops *ops, const link_params *p,
                                 const backend_options *opt, size_t impl_size, char *err,
                                 size_t errlen) {
  char why[256];
  if (!p || !opt) {
    snprintf(err, errlen, "%s backend: no parameters or options", ops->name);
    return NULL;
  }
  if (link_params_check(p, why, sizeof why)) {
    snprintf(err, errlen, "%s backend: %s", ops->name, why);
    return NULL;
  }
  backend *b = calloc(1, sizeof *b);
  void *impl = calloc(1, impl_size);
  if (!b || !impl) {
    free(b);
    free(impl);
    snprintf(err, errlen, "%s backend: out of host memory", ops->name);
    return NULL;
  }
  b->ops = ops;
  b->p = *p;
  b->opt = *opt;
  b->impl = impl;
  return b;
}

int backend_run(backend *b, uint64_t first_frame, uint64_t frames, batch_result *out) {
  memset(&out->t, 0, sizeof out->t);
  out->inversions = 0;
  memset(out->errors, 0, sizeof(uint32_t) * frames * (size_t)b->p.tx);
  if (out->fallbacks) memset(out->fallbacks, 0, sizeof(uint32_t) * frames);
  if (out->gmi_loss) memset(out->gmi_loss, 0, sizeof(uint64_t) * frames * (size_t)b->p.tx);
  if ((out->llr || out->bits || out->gmi_loss) && b->p.llr == LLR_OFF)
    return backend_fail(b, "%s backend: soft outputs of a point with receiver.llr = \"off\"", b->ops->name);
  b->error[0] = '\0';
  const int rc = b->ops->run(b, first_frame, frames, out);
  if (rc == 0) b->last_frames = frames;
  return rc;
}

int backend_fetch(backend *b, backend_buffer which, cf32 *dst, size_t count) {
  return b->ops->fetch(b, which, dst, count);
}

void backend_destroy(backend *b) {
  if (b) b->ops->destroy(b);
}

const char *backend_name(const backend *b) { return b->ops->name; }

const char *backend_error(const backend *b) { return b->error[0] ? b->error : "no reason given"; }

int backend_fail(backend *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->error, sizeof b->error, fmt, ap);
  va_end(ap);
  return -1;
}
