/* Fuzz target: the journal reader (what --resume trusts): every line through
 * journal_parse and the whole input as a journal file through
 * journal_resume and journal_chunks, with a format round trip of each
 * parsed record. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "results/journal.h"

static void lines(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  if (!text) return;
  for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    journal_record r, again;
    char why[200], buf[4096];
    if (journal_parse(line, &r, why, sizeof why)) continue;
    /* what parses formats back to a line that parses to the same record */
    const int n = journal_format(&r, buf, sizeof buf);
    if (n <= 0) abort();
    buf[n - 1] = '\0';
    if (journal_parse(buf, &again, why, sizeof why) || again.n.bits != r.n.bits ||
        again.n.bit_errors != r.n.bit_errors || again.work_key != r.work_key || again.chunk != r.chunk)
      abort();
  }
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lines(data, size);
  const char *path = fuzz_scratch_file(3, data, size);
  if (!path) return 0;
  char err[1024];
  journal *j = journal_resume(path, err, sizeof err);
  if (!j) return 0;
  /* every point the journal holds, as --resume would ask for it */
  for (size_t i = 0; i < journal_count(j); i++) {
    const journal_record *recs;
    size_t decided;
    journal_chunks(j, journal_record_at(j, i)->work_key, &recs, &decided, err, sizeof err);
  }
  journal_close(j);
  return 0;
}
