/* A shard's share of the points (shard.h). */
#include "sim/shard.h"

#include <stdlib.h>
#include <string.h>

/* A group of consecutive points dealt together, by its key. */
typedef struct group {
  uint64_t key;
  size_t first, count;
} group;

static int by_key(const void *a, const void *b) {
  const group *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->first < y->first ? -1 : x->first > y->first;
}

static int by_first(const void *a, const void *b) {
  const group *x = a, *y = b;
  return x->first < y->first ? -1 : x->first > y->first;
}

int sim_config_shard(sim_config *c, unsigned i, unsigned n) {
  group *g = malloc((c->n_points ? c->n_points : 1) * sizeof *g);
  if (!g) return -1;
  size_t groups = 0;
  for (size_t p = 0; p < c->n_points; p++) {
    const sim_point *pt = &c->points[p];
    const int same_curve = p > 0 && pt->stop_below_ber > 0.0 && !strcmp(pt->label, c->points[p - 1].label);
    if (same_curve) {
      g[groups - 1].count++;
    } else {
      g[groups++] = (group){pt->point_key, p, 1};
    }
  }
  qsort(g, groups, sizeof *g, by_key);
  size_t kept = 0;
  for (size_t r = 0; r < groups; r++)
    if (r % n == i - 1) g[kept++] = g[r];
  qsort(g, kept, sizeof *g, by_first);
  size_t to = 0;
  for (size_t k = 0; k < kept; k++)
    for (size_t p = g[k].first; p < g[k].first + g[k].count; p++) c->points[to++] = c->points[p];
  c->sweep_points = c->n_points;
  c->n_points = to;
  c->shard = i;
  c->shards = n;
  free(g);
  return 0;
}
