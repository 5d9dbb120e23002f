/* grow_array (grow_array.h). */
#include "config/grow_array.h"

#include <stdlib.h>

void *grow_array(void *items, size_t *cap, size_t need, size_t size, size_t first) {
  if (need <= *cap) return items;
  size_t n = *cap ? *cap : first;
  while (n < need) n *= 2;
  void *grown = realloc(items, n * size);
  if (grown) *cap = n;
  return grown;
}
