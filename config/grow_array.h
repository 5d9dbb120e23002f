/* The growing array every reader and builder above uses: capacity doubled
 * from a first size until it holds what is needed. Private to no one: config/,
 * results/ and app/ share it. */
#ifndef OFDMSIM_CONFIG_GROW_ARRAY_H
#define OFDMSIM_CONFIG_GROW_ARRAY_H

#include <stddef.h>

/* items (an array of *cap elements of `size` bytes, NULL when *cap is 0)
 * made to hold at least `need` elements: unchanged when it does already, else
 * reallocated to `first` (when *cap is 0) or *cap doubled until it does, and
 * *cap updated. The array to use from now on, or NULL when out of memory
 * (items and *cap are then left as they were). */
void *grow_array(void *items, size_t *cap, size_t need, size_t size, size_t first);

#endif
