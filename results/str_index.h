/* A map from strings to row numbers (open addressing, FNV-1a): what merge and
 * compare match rows by, so that matching n rows costs O(n), not O(n^2)
 * (2 x 100,000 rows used to take minutes). Keys are borrowed, not copied:
 * they must outlive the index. Each key maps to the list of the values added
 * under it, in the order they were added. */
#ifndef OFDMSIM_STR_INDEX_H
#define OFDMSIM_STR_INDEX_H

#include <stddef.h>

typedef struct str_index {
  const char **keys; /* slot -> key, NULL when free */
  size_t *head;      /* slot -> first value's entry */
  size_t *tail;      /* slot -> last value's entry */
  size_t *value;     /* entry -> value */
  size_t *next;      /* entry -> the next entry of its key, or SIZE_MAX */
  size_t n_slots, n_keys, n_entries, cap_entries;
} str_index;

/* An index for about n keys: 0, or -1 out of memory. */
int str_index_init(str_index *x, size_t n);
void str_index_free(str_index *x);
/* Adds value under key: 0, or -1 out of memory. *first (when not NULL) is
 * set to the first value of that key (value itself for a new key). */
int str_index_add(str_index *x, const char *key, size_t value, size_t *first);
/* The first entry of key, or SIZE_MAX; walk with str_index_next and read
 * with str_index_value. */
size_t str_index_find(const str_index *x, const char *key);
static inline size_t str_index_next(const str_index *x, size_t entry) { return x->next[entry]; }
static inline size_t str_index_value(const str_index *x, size_t entry) { return x->value[entry]; }

#endif
