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
  b->impl = impl;
  return b;
}

int backend_run(backend *b, uint64_t first_frame, uint64_t frames, batch_result *out) {
  memset(&out->t, 0, sizeof out->t);
  out->inversions = 0;
  memset(out->errors, 0, sizeof(uint32_t) * frames * (size_t)b->p.tx);
  if (out->fallbacks) memset(out->fallbacks, 0, sizeof(uint32_t) * frames);
  if (out->gmi_loss) memset(out->gmi_loss, 0, sizeof(uint64_t) * frames * (size_t)b->p.tx);
  if (out->gmi_loss_s) memset(out->gmi_loss_s, 0, sizeof(uint64_t) * frames * GMI_GRID);
  if ((out->llr || out->bits || out->gmi_loss || out->gmi_loss_s) && b->p.llr == LLR_OFF)
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

int backend_options_set(backend_options *o, const char *backend, const char *option, int64_t value) {
  if (o->count < 0 || o->count >= BACKEND_MAX_SETTINGS) return -1;
  o->set[o->count++] = (backend_setting){backend, option, value};
  return 0;
}

int backend_options_read(const backend_options *o, const char *backend, const backend_option_spec *specs,
                         int nspecs, void *dst, char *err, size_t errlen) {
  if (o->count < 0 || o->count > BACKEND_MAX_SETTINGS) {
    snprintf(err, errlen, "%s backend: %d option settings, expected 0 to %d", backend, o->count,
             BACKEND_MAX_SETTINGS);
    return -1;
  }
  for (int i = 0; i < o->count; i++) {
    const backend_setting *s = &o->set[i];
    if (!s->backend || strcmp(s->backend, backend)) continue;
    int k = 0;
    while (k < nspecs && strcmp(specs[k].option, s->option ? s->option : "")) k++;
    if (k == nspecs) {
      char known[256] = "";
      for (int j = 0, used = 0; j < nspecs && used >= 0 && (size_t)used < sizeof known; j++)
        used += snprintf(known + used, sizeof known - (size_t)used, "%s%s", j ? ", " : "", specs[j].option);
      snprintf(err, errlen, "%s backend: no option '%s' (it has %s)", backend, s->option ? s->option : "(null)",
               known);
      return -1;
    }
    const backend_option_spec *sp = &specs[k];
    if (s->value < sp->min || s->value > sp->max) {
      snprintf(err, errlen, "%s backend: option '%s': expected %lld to %lld, got %lld", backend, sp->option,
               (long long)sp->min, (long long)sp->max, (long long)s->value);
      return -1;
    }
    char *field = (char *)dst + sp->offset;
    if (sp->type == BACKEND_OPT_U64) {
      const uint64_t v = (uint64_t)s->value;
      memcpy(field, &v, sizeof v);
    } else {
      const int v = (int)s->value;
      memcpy(field, &v, sizeof v);
    }
  }
  return 0;
}
