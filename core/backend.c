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

/* Zeroes what a batch of `frames` frames writes into out. */
static void clear_result(const backend *b, uint64_t frames, batch_result *out) {
  memset(&out->t, 0, sizeof out->t);
  out->inversions = 0;
  memset(out->errors, 0, sizeof(uint32_t) * frames * (size_t)b->p.tx);
  if (out->fallbacks) memset(out->fallbacks, 0, sizeof(uint32_t) * frames);
  if (out->gmi_loss) memset(out->gmi_loss, 0, sizeof(uint64_t) * frames * (size_t)b->p.tx);
  if (out->gmi_loss_s) memset(out->gmi_loss_s, 0, sizeof(uint64_t) * frames * GMI_GRID);
}

/* The soft outputs asked of a point without them. */
static int soft_misfit(backend *b, const batch_result *r) {
  if ((r->llr || r->bits || r->gmi_loss || r->gmi_loss_s) && b->p.llr == LLR_OFF)
    return backend_fail(b, "%s backend: soft outputs of a point with receiver.llr = \"off\"", b->ops->name);
  return 0;
}

int backend_run(backend *b, uint64_t first_frame, uint64_t frames, batch_result *out) {
  clear_result(b, frames, out);
  if (soft_misfit(b, out)) return -1;
  if (b->n_pending) return backend_fail(b, "%s backend: a batch run while %d are in flight", b->ops->name, b->n_pending);
  b->error[0] = '\0';
  const int rc = b->ops->run(b, first_frame, frames, out);
  if (rc == 0) b->last_frames = frames;
  return rc;
}

int backend_submit(backend *b, uint64_t first_frame, uint64_t frames, const batch_result *want) {
  if (soft_misfit(b, want)) return -1;
  if (want->llr || want->bits) return backend_fail(b, "%s backend: LLRs or bits asked of a submitted batch", b->ops->name);
  if (b->n_pending >= BACKEND_IN_FLIGHT)
    return backend_fail(b, "%s backend: a batch submitted while %d are in flight", b->ops->name, b->n_pending);
  b->error[0] = '\0';
  if (b->ops->submit && b->ops->submit(b, first_frame, frames, want)) return -1;
  b->pending[b->n_pending++] = (backend_pending){first_frame, frames, want->gmi_loss != NULL,
                                                 want->gmi_loss_s != NULL, want->coded != NULL};
  return 0;
}

int backend_collect(backend *b, batch_result *out) {
  if (!b->n_pending) return backend_fail(b, "%s backend: nothing submitted to collect", b->ops->name);
  const backend_pending q = b->pending[0];
  if (q.gmi_loss != (out->gmi_loss != NULL) || q.gmi_loss_s != (out->gmi_loss_s != NULL) ||
      q.coded != (out->coded != NULL) || out->llr || out->bits)
    return backend_fail(b, "%s backend: a batch collected into other outputs than it was submitted for", b->ops->name);
  b->n_pending--;
  memmove(b->pending, b->pending + 1, sizeof *b->pending * (size_t)b->n_pending);
  clear_result(b, q.frames, out);
  b->error[0] = '\0';
  const int rc = b->ops->collect ? b->ops->collect(b, out) : b->ops->run(b, q.first_frame, q.frames, out);
  if (rc == 0) b->last_frames = q.frames;
  return rc;
}

void backend_discard(backend *b) {
  if (b->n_pending && b->ops->discard) b->ops->discard(b);
  b->n_pending = 0;
}

int backend_fetch(backend *b, backend_buffer which, cf32 *dst, size_t count) {
  if (b->n_pending)
    return backend_fail(b, "%s backend: a fetch while %d batches are in flight", b->ops->name, b->n_pending);
  return b->ops->fetch(b, which, dst, count);
}

void backend_destroy(backend *b) {
  if (!b) return;
  backend_discard(b);
  b->ops->destroy(b);
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
