/* Scratch files and strings for the fuzz targets (fuzz.h). */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char paths[4][512];

/* Removes the scratch files when the fuzzer exits. */
static void remove_scratch(void) {
  for (int i = 0; i < 4; i++)
    if (paths[i][0]) unlink(paths[i]);
}

const char *fuzz_scratch_file(int slot, const uint8_t *data, size_t size) {
  if (slot < 0 || slot > 3) return NULL;
  if (!paths[slot][0]) {
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(paths[slot], sizeof paths[slot], "%s/ofdmsim-fuzz-%ld-%d-XXXXXX", dir, (long)getpid(), slot);
    const int fd = mkstemp(paths[slot]);
    if (fd < 0) {
      paths[slot][0] = '\0';
      return NULL;
    }
    close(fd);
    static int registered;
    if (!registered++) atexit(remove_scratch);
  }
  FILE *f = fopen(paths[slot], "wb");
  if (!f) return NULL;
  const int ok = fwrite(data, 1, size, f) == size;
  if (fclose(f) || !ok) return NULL;
  return paths[slot];
}

char *fuzz_string(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) return NULL;
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}
