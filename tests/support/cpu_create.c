#include "cpu_create.h"

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
