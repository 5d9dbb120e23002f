/* The results CSV's fixed columns (csv_columns.h). */
#include "results/csv_columns.h"

static const char *const names[COL_COUNT] = {
#define RESULT_COLUMN_NAME(id, name) name,
    RESULT_COLUMNS(RESULT_COLUMN_NAME)
#undef RESULT_COLUMN_NAME
};

const char *result_column_name(result_column c) { return c >= 0 && c < COL_COUNT ? names[c] : "?"; }

void result_columns_head(FILE *f) {
  for (int c = 0; c < COL_COUNT; c++) fprintf(f, "%s%s", c ? "," : "", names[c]);
}
