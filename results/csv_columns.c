/* The results CSV's fixed columns (csv_columns.h). */
#include "results/csv_columns.h"

#include <string.h>

static const char *const names[COL_COUNT] = {
#define RESULT_COLUMN_NAME(id, name) name,
    RESULT_COLUMNS(RESULT_COLUMN_NAME)
#undef RESULT_COLUMN_NAME
};

const char *result_column_name(result_column c) { return c >= 0 && c < COL_COUNT ? names[c] : "?"; }

void result_columns_head(FILE *f) {
  for (int c = 0; c < COL_COUNT; c++) fprintf(f, "%s%s", c ? "," : "", names[c]);
}

void csv_real_text(char *buf, size_t n, int digits, double v) {
  const int len = snprintf(buf, n, "%.*g", digits, v);
  if (len < 0 || (size_t)len + 3 > n) return;
  /* only digits and a sign: an integer to a reader; nan and inf stay words */
  if (strspn(buf, "-0123456789") == (size_t)len) memcpy(buf + len, ".0", 3);
}

void csv_real(FILE *f, int digits, double v) {
  char buf[64];
  csv_real_text(buf, sizeof buf, digits, v);
  fputs(buf, f);
}
