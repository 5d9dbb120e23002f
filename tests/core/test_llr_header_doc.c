/* The LLR export's header holds the LLR kind and the equalizer as integer
 * codes (sim/llr_export.h); README.md's numpy reader names them in two
 * lists, LLR_KINDS and EQUALIZERS, indexed by the code. This checks those
 * lists against the enumerations the export writes, so that the README
 * cannot drift from the codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "core/params.h"
#include "testutil.h"

static char *read_readme(void) {
  const char *src = getenv("OFDMSIM_SOURCE_DIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/README.md", src ? src : ".");
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char text[1 << 20];
  const size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  return text;
}

/* The quoted names of the Python list `NAME = [...]`, in order. */
static int list_of(const char *text, const char *name, char names[][16], int max) {
  char head[64];
  snprintf(head, sizeof head, "\n%s = [", name);
  const char *p = strstr(text, head);
  if (!p) return -1;
  p += strlen(head);
  int n = 0;
  while (*p && *p != ']' && n < max) {
    const char *q = strchr(p, '"');
    if (!q || q > strchr(p, ']')) break;
    const char *e = strchr(q + 1, '"');
    if (!e) break;
    snprintf(names[n++], 16, "%.*s", (int)(e - q - 1), q + 1);
    p = e + 1;
  }
  return n;
}

int main(void) {
  const char *text = read_readme();
  CHECK(text != NULL, "README.md readable (OFDMSIM_SOURCE_DIR)");
  if (!text) return test_finish("test_llr_header_doc");
  char names[8][16];
  int n = list_of(text, "LLR_KINDS", names, 8);
  CHECK(n == 3, "README names the 3 LLR kinds (got %d)", n);
  for (int i = 0; i < n; i++)
    CHECK(!strcmp(names[i], llr_kind_name((llr_kind)i)), "LLR_KINDS[%d] = %s, the export writes %s", i, names[i],
          llr_kind_name((llr_kind)i));
  n = list_of(text, "EQUALIZERS", names, 8);
  CHECK(n == 5, "README names the 5 equalizers (got %d)", n);
  for (int i = 0; i < n; i++)
    CHECK(!strcmp(names[i], equalizer_name((eq_kind)i)), "EQUALIZERS[%d] = %s, the export writes %s", i, names[i],
          equalizer_name((eq_kind)i));
  CHECK(strstr(text, "ln P(b = 1) / P(b = 0)") != NULL, "README says the LLRs' sign");
  return test_finish("test_llr_header_doc");
}
