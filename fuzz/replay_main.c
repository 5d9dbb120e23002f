/* A fuzz target without libFuzzer: runs LLVMFuzzerTestOneInput once per file
 * named on the command line (a folder stands for its files). ctest replays
 * the seed corpus through it, so every build checks that the targets build
 * and that no seed crashes; scripts/fuzz.sh does the real fuzzing. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    return 1;
  }
  size_t cap = 1 << 16, n = 0;
  unsigned char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      unsigned char *grown = realloc(buf, cap *= 2);
      if (!grown) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = grown;
    }
  }
  fclose(f);
  if (!buf) return 1;
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int bad = 0, files = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      DIR *d = opendir(argv[i]);
      for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
        bad |= run_file(path);
        files++;
      }
      if (d) closedir(d);
    } else {
      bad |= run_file(argv[i]);
      files++;
    }
  }
  printf("replayed %d inputs\n", files);
  return bad || files == 0;
}
