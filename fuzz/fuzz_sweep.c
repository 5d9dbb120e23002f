/* Fuzz target: the entries of a sweep (key/values, keys/zipped values,
 * ranges) expanded over a small valid config: the input is what stands
 * between "sweep = (" and ");". */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "config/config.h"

static const char head[] =
    "simulation = { snr_db = [0.0, 10.0]; max_bits = 1.0e4; };\n"
    "ofdm = { subcarriers = 64; symbols = 2; };\n"
    "sweep = (";
static const char tail[] = ");\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const size_t n = sizeof head - 1 + size + sizeof tail - 1;
  uint8_t *text = malloc(n);
  if (!text) return 0;
  memcpy(text, head, sizeof head - 1);
  memcpy(text + sizeof head - 1, data, size);
  memcpy(text + sizeof head - 1 + size, tail, sizeof tail - 1);
  const char *path = fuzz_scratch_file(2, text, n);
  free(text);
  if (!path) return 0;
  sim_config c;
  char err[1024];
  if (sim_config_load(&c, path, NULL, 0, err, sizeof err) == 0) sim_config_free(&c);
  return 0;
}
