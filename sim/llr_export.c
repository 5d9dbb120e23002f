/* The LLR export file (llr_export.h). */
#include "sim/llr_export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/atomic_file.h"
#include "sim/backends.h"
#include "results/chunks.h"

/* Export batches hold at most about this many bytes of LLRs and bits. */
#define EXPORT_BATCH_BYTES (64u << 20)

int llr_export_check(const sim_config *c, char *err, size_t errlen) {
  for (size_t i = 0; i < c->n_points; i++)
    if (c->points[i].p.llr == LLR_OFF) {
      snprintf(err, errlen,
               "--llr-out: point %zu has receiver.llr = \"off\" (no soft outputs to export); set receiver.llr = "
               "\"maxlog\" or \"exact\"",
               c->points[i].index);
      return -1;
    }
  return 0;
}

/* Little-endian fields, whatever the host. */
static void put_u32(uint8_t *b, uint32_t v) {
  for (int k = 0; k < 4; k++) b[k] = (uint8_t)(v >> (8 * k));
}
static void put_u64(uint8_t *b, uint64_t v) {
  for (int k = 0; k < 8; k++) b[k] = (uint8_t)(v >> (8 * k));
}
static void put_f64(uint8_t *b, double v) {
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  put_u64(b, u);
}

static int write_all(FILE *f, const void *p, size_t n) { return fwrite(p, 1, n, f) == n ? 0 : -1; }

/* The LLRs as little-endian binary32 (a copy on a big-endian host). */
static int write_floats(FILE *f, const float *v, size_t n) {
  const uint16_t probe = 1;
  uint8_t first;
  memcpy(&first, &probe, 1);
  if (first) return write_all(f, v, sizeof *v * n);
  for (size_t i = 0; i < n; i++) {
    uint32_t u;
    uint8_t b[4];
    memcpy(&u, &v[i], 4);
    put_u32(b, u);
    if (write_all(f, b, 4)) return -1;
  }
  return 0;
}

/* One point's record: its header, then its LLRs and bits batch by batch
 * (the LLRs of all its frames first: the bits follow from a second pass
 * over the same counter-based frames, so memory stays one batch). */
static int export_point(FILE *f, const sim_point *pt, const char *name, int threads, uint64_t frames,
                        char *err, size_t errlen) {
  const link_params *p = &pt->p;
  const uint64_t rf = link_data_res_per_frame(p); /* pilots are not exported */
  const size_t per_frame = (size_t)rf * (size_t)p->tx * (size_t)p->bps;
  uint64_t batch = EXPORT_BATCH_BYTES / (per_frame * 5);
  if (batch < 1) batch = 1;
  if (batch > frames) batch = frames;
  backend_options bo = {0};
  bo.max_batch_frames = batch;
  backend_options_set(&bo, "cpu", "threads", threads);
  char why[512];
  backend *b = backends_create(name, p, &bo, why, sizeof why);
  if (!b) return snprintf(err, errlen, "point %zu: %s", pt->index, why), -1;
  if (b->ops->max_frames(b) < batch) batch = b->ops->max_frames(b);
  float *llr = malloc(sizeof *llr * per_frame * batch);
  uint8_t *bits = malloc(per_frame * batch);
  uint32_t *errors = malloc(sizeof *errors * (size_t)batch * ((size_t)p->tx + 1));
  uint64_t *loss = malloc(sizeof *loss * (size_t)batch * (size_t)p->tx);
  int rc = -1;
  if (!llr || !bits || !errors || !loss) {
    snprintf(err, errlen, "point %zu: out of memory for the LLR export", pt->index);
    goto done;
  }
  uint8_t h[64] = {0};
  put_u64(h, pt->point_key);
  put_u32(h + 8, (uint32_t)pt->index);
  put_u32(h + 12, (uint32_t)p->tx);
  put_u32(h + 16, (uint32_t)p->bps);
  put_u32(h + 20, (uint32_t)rf);
  put_u64(h + 24, pt->first_frame);
  put_u64(h + 32, frames);
  put_f64(h + 40, p->snr_db);
  put_f64(h + 48, p->n0);
  put_u32(h + 56, (uint32_t)p->llr);
  put_u32(h + 60, (uint32_t)p->equalizer);
  if (write_all(f, h, sizeof h)) goto io;
  for (int pass = 0; pass < 2; pass++)
    for (uint64_t done = 0; done < frames;) {
      const uint64_t n = frames - done < batch ? frames - done : batch;
      batch_result br = {.errors = errors, .fallbacks = errors + batch * (uint64_t)p->tx, .gmi_loss = loss};
      if (pass == 0) br.llr = llr;
      else br.bits = bits;
      if (backend_run(b, pt->first_frame + done, n, &br)) {
        snprintf(err, errlen, "point %zu: the %s backend failed: %s", pt->index, backend_name(b), backend_error(b));
        goto done;
      }
      if (pass == 0 ? write_floats(f, llr, per_frame * n) : write_all(f, bits, per_frame * n)) goto io;
      done += n;
    }
  rc = 0;
  goto done;
io:
  snprintf(err, errlen, "cannot write: %s", strerror(errno ? errno : EIO));
done:
  free(llr);
  free(bits);
  free(errors);
  free(loss);
  backend_destroy(b);
  return rc;
}

int llr_export_write(const sim_config *c, const char *backend, int threads, const char *path, uint64_t frames,
                     char *err, size_t errlen) {
  results_file w;
  if (results_file_open(&w, path)) return snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno)), -1;
  uint8_t h[16] = {0};
  memcpy(h, LLR_EXPORT_MAGIC, sizeof LLR_EXPORT_MAGIC);
  put_u32(h + 8, LLR_EXPORT_VERSION);
  put_u32(h + 12, (uint32_t)c->n_points);
  char why[600] = "";
  int rc = write_all(w.f, h, sizeof h) ? (snprintf(why, sizeof why, "cannot write: %s", strerror(errno)), -1) : 0;
  for (size_t i = 0; !rc && i < c->n_points; i++) {
    const sim_point *pt = &c->points[i];
    const uint64_t most = point_max_frames(pt);
    rc = export_point(w.f, pt, backend, threads, frames < most ? frames : most, why, sizeof why);
  }
  if (!rc && !results_file_commit(&w)) return 0;
  if (!rc) snprintf(why, sizeof why, "cannot write: %s", strerror(errno));
  results_file_abort(&w);
  snprintf(err, errlen, "%s: %s", path, why);
  return -1;
}
