/* The LDPC codes of TS 38.212 5.3.2: the two base graphs, the 51 lifting sizes
 * in their 8 sets (Table 5.3.2-1) and the lifted code of one (graph, Z).
 *
 * A base graph is a rows x cols array whose nonzero entries carry a shift
 * value V for each lifting set. Lifting by Z replaces entry (r, c) by the
 * Z x Z identity shifted right by s = V mod Z, so check r*Z + i involves bit
 * c*Z + ((i + s) mod Z), and every other entry by a Z x Z zero block. Bit k of
 * a codeword is c_k of 38.212, k = column*Z + lane.
 *
 * Column layout (both graphs): systematic columns first (22 in BG1, 10 in
 * BG2), then 4 core parity columns, solved from rows 0-3, then one extension
 * parity column per remaining row, on that row's diagonal. */
#ifndef OFDMSIM_CODING_LDPC_GRAPH_H
#define OFDMSIM_CODING_LDPC_GRAPH_H

#include <stdint.h>

#define LDPC_Z_MAX 384
#define LDPC_NUM_Z 51
#define LDPC_NUM_SETS 8
#define LDPC_COLS_MAX 68
#define LDPC_ROWS_MAX 46
#define LDPC_ROW_DEGREE_MAX 19

typedef struct ldpc_base_graph {
  int id;                       /* 1 or 2 */
  int rows, cols;               /* 46 x 68 (BG1), 42 x 52 (BG2) */
  int info_cols;                /* 22 (BG1), 10 (BG2) */
  int nnz;                      /* 316 (BG1), 197 (BG2) */
  const uint16_t *row_start;    /* rows + 1: entries of row r are row_start[r] .. row_start[r+1]-1 */
  const uint8_t *col;           /* column of each entry, ascending within a row */
  const uint16_t (*shift)[8];   /* V of each entry for lifting sets 0..7 */
} ldpc_base_graph;

extern const ldpc_base_graph ldpc_bg1, ldpc_bg2;

/* The graph for bg = 1 or 2; NULL otherwise. */
const ldpc_base_graph *ldpc_base_graph_get(int bg);

/* The 51 lifting sizes, ascending, into z[LDPC_NUM_Z]. */
void ldpc_lifting_sizes(int *z);
/* The set index iLS (0..7) whose a*2^j equals z; -1 when z is no lifting size. */
int ldpc_lifting_set(int z);
/* The smallest lifting size >= need; -1 when need > 384. */
int ldpc_lifting_at_least(int need);

/* One lifted code: a base graph, Z, and every entry's shift V mod Z. */
typedef struct ldpc_code {
  const ldpc_base_graph *g;
  int z, set;
  uint16_t shift[316];          /* per base-graph entry, in [0, Z) */
} ldpc_code;

/* Fills *code for graph bg (1, 2) and lifting size z; 0, or -1 when z is no
 * lifting size or bg no graph. */
int ldpc_code_init(ldpc_code *code, int bg, int z);

/* Codeword length before puncturing, Nb*Z (68Z or 52Z), and the bits the
 * encoder hands to rate matching, N = (Nb - 2)*Z (66Z or 50Z). */
static inline int ldpc_codeword_bits(const ldpc_code *c) { return c->g->cols * c->z; }
static inline int ldpc_n(const ldpc_code *c) { return (c->g->cols - 2) * c->z; }
/* The systematic length K = 22Z or 10Z. */
static inline int ldpc_k(const ldpc_code *c) { return c->g->info_cols * c->z; }

#endif
