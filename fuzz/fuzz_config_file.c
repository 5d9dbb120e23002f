/* Fuzz target: a whole config file through sim_config_load (the libconfig
 * fix-ups, the reader, the schema checks, the sweep and the points). */
#include <stdlib.h>

#include "fuzz.h"
#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_scratch_file(0, data, size);
  if (!path) return 0;
  sim_config c;
  char err[1024];
  if (sim_config_load(&c, path, NULL, 0, err, sizeof err) == 0) sim_config_free(&c);
  return 0;
}
