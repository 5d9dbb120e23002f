/* Fuzz target: --set overrides (one per line of the input, at most 16) on a
 * small valid config. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "config/config.h"

static const char base[] =
    "simulation = { snr_db = [0.0, 10.0]; max_bits = 1.0e4; };\n"
    "mimo = { tx = 2; rx = 2; };\n"
    "ofdm = { subcarriers = 64; symbols = 2; };\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *path;
  if (!path) path = fuzz_scratch_file(1, (const uint8_t *)base, sizeof base - 1);
  char *text = fuzz_string(data, size);
  if (!path || !text) {
    free(text);
    return 0;
  }
  const char *sets[16];
  int n = 0;
  for (char *save = NULL, *line = strtok_r(text, "\n", &save); line && n < 16; line = strtok_r(NULL, "\n", &save))
    sets[n++] = line;
  sim_config c;
  char err[1024];
  if (sim_config_load(&c, path, sets, n, err, sizeof err) == 0) sim_config_free(&c);
  free(text);
  return 0;
}
