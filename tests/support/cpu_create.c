#include "cpu_create.h"

#include <stdlib.h>
#include <string.h>

#include "cpu/backend_cpu.h"
#include "testutil.h"

backend *tc_cpu_create(const link_params *p, int staged, int threads, uint64_t batch) {
  backend_options opt;
  memset(&opt, 0, sizeof opt);
  backend_options_set(&opt, "cpu", "staged", staged);
  backend_options_set(&opt, "cpu", "threads", threads);
  opt.max_batch_frames = batch;
  char err[512];
  backend *b = backend_cpu_create(p, &opt, err, sizeof err);
  if (!b) CHECK(0, "create: %s", err);
  return b;
}

int tc_run_coded(const link_params *p, int threads, uint64_t batch, uint64_t frames, frame_coded *coded, float *llr,
                 uint8_t *bits) {
  backend *b = tc_cpu_create(p, 0, threads, batch);
  if (!b) return -1;
  if (batch == 0 || batch > b->ops->max_frames(b)) batch = b->ops->max_frames(b);
  const size_t g = (size_t)link_bits_per_frame(p);
  /* a batch's uncoded counts: asked for by backend_run, not looked at here */
  uint32_t *errors = malloc(sizeof *errors * batch * LINK_MAX_TX), *fallbacks = malloc(sizeof *fallbacks * batch);
  uint64_t *loss = malloc(sizeof *loss * batch * LINK_MAX_TX);
  int rc = errors && fallbacks && loss ? 0 : -1;
  CHECK(rc == 0, "no memory");
  for (uint64_t f = 0; f < frames && rc == 0; f += batch) {
    const uint64_t n = frames - f < batch ? frames - f : batch;
    batch_result out = {.errors = errors, .fallbacks = fallbacks, .gmi_loss = loss, .coded = coded + f,
                        .llr = llr ? llr + f * g : NULL, .bits = bits ? bits + f * g : NULL};
    rc = backend_run(b, f, n, &out);
    CHECK(rc == 0, "run: %s", backend_error(b));
  }
  free(errors);
  free(fallbacks);
  free(loss);
  backend_destroy(b);
  return rc;
}
