/* The string index (str_index.h). */
#include "results/str_index.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h ^ (h >> 29);
}

int str_index_init(str_index *x, size_t n) {
  *x = (str_index){0};
  size_t slots = 16;
  while (slots < 2 * n + 16) slots *= 2; /* at most half full: short probes */
  x->n_slots = slots;
  x->keys = calloc(slots, sizeof *x->keys);
  x->head = malloc(slots * sizeof *x->head);
  x->tail = malloc(slots * sizeof *x->tail);
  x->cap_entries = n + 16;
  x->value = malloc(x->cap_entries * sizeof *x->value);
  x->next = malloc(x->cap_entries * sizeof *x->next);
  if (!x->keys || !x->head || !x->tail || !x->value || !x->next) {
    str_index_free(x);
    return -1;
  }
  return 0;
}

void str_index_free(str_index *x) {
  free(x->keys);
  free(x->head);
  free(x->tail);
  free(x->value);
  free(x->next);
  *x = (str_index){0};
}

/* The slot of key: its own, or the free one where it would go. */
static size_t slot_of(const str_index *x, const char *key) {
  size_t i = (size_t)hash(key) & (x->n_slots - 1);
  while (x->keys[i] && strcmp(x->keys[i], key)) i = (i + 1) & (x->n_slots - 1);
  return i;
}

static int grow(str_index *x) {
  str_index bigger;
  if (str_index_init(&bigger, x->n_slots)) return -1;
  for (size_t i = 0; i < x->n_slots; i++) {
    if (!x->keys[i]) continue;
    const size_t j = slot_of(&bigger, x->keys[i]);
    bigger.keys[j] = x->keys[i];
    bigger.head[j] = x->head[i];
    bigger.tail[j] = x->tail[i];
  }
  free(x->keys);
  free(x->head);
  free(x->tail);
  x->keys = bigger.keys, x->head = bigger.head, x->tail = bigger.tail, x->n_slots = bigger.n_slots;
  free(bigger.value);
  free(bigger.next);
  return 0;
}

int str_index_add(str_index *x, const char *key, size_t value, size_t *first) {
  if (2 * (x->n_keys + 1) > x->n_slots && grow(x)) return -1;
  if (x->n_entries == x->cap_entries) {
    const size_t cap = 2 * x->cap_entries;
    size_t *v = realloc(x->value, cap * sizeof *v);
    if (!v) return -1;
    x->value = v;
    size_t *nx = realloc(x->next, cap * sizeof *nx);
    if (!nx) return -1;
    x->next = nx;
    x->cap_entries = cap;
  }
  const size_t e = x->n_entries++;
  x->value[e] = value;
  x->next[e] = SIZE_MAX;
  const size_t i = slot_of(x, key);
  if (!x->keys[i]) {
    x->keys[i] = key;
    x->head[i] = x->tail[i] = e;
    x->n_keys++;
  } else {
    x->next[x->tail[i]] = e;
    x->tail[i] = e;
  }
  if (first) *first = x->value[x->head[i]];
  return 0;
}

size_t str_index_find(const str_index *x, const char *key) {
  if (!x->n_slots) return SIZE_MAX;
  const size_t i = slot_of(x, key);
  return x->keys[i] ? x->head[i] : SIZE_MAX;
}
