/* Base graph lookup, the lifting sizes of Table 5.3.2-1 and lifted codes. */
#include "coding/ldpc_graph.h"

#include <stddef.h>

/* Table 5.3.2-1: set iLS holds Z = a * 2^j for every j with Z <= 384. */
static const int set_base[LDPC_NUM_SETS] = {2, 3, 5, 7, 9, 11, 13, 15};

const ldpc_base_graph *ldpc_base_graph_get(int bg) {
  return bg == 1 ? &ldpc_bg1 : bg == 2 ? &ldpc_bg2 : NULL;
}

int ldpc_lifting_set(int z) {
  if (z < 2 || z > LDPC_Z_MAX) return -1;
  /* Strip the power of two; what is left must be one of the odd bases a
   * (a = 2 is the pure powers of two, whose odd part is 1). */
  int odd = z;
  while (odd % 2 == 0) odd /= 2;
  if (odd == 1) return 0;
  for (int s = 1; s < LDPC_NUM_SETS; s++)
    if (set_base[s] == odd) return s;
  return -1;
}

void ldpc_lifting_sizes(int *z) {
  int n = 0;
  for (int v = 2; v <= LDPC_Z_MAX; v++)
    if (ldpc_lifting_set(v) >= 0) z[n++] = v;
}

int ldpc_lifting_at_least(int need) {
  for (int v = need < 2 ? 2 : need; v <= LDPC_Z_MAX; v++)
    if (ldpc_lifting_set(v) >= 0) return v;
  return -1;
}

int ldpc_code_init(ldpc_code *code, int bg, int z) {
  const ldpc_base_graph *g = ldpc_base_graph_get(bg);
  const int set = ldpc_lifting_set(z);
  if (!g || set < 0) return -1;
  code->g = g;
  code->z = z;
  code->set = set;
  for (int e = 0; e < g->nnz; e++) code->shift[e] = (uint16_t)(g->shift[e][set] % z);
  return 0;
}
