/* The layered min-sum row kernels of the one-block decoder
 * (coding/ldpc_decode.h), in two versions with one contract: plain C
 * (coding/ldpc_rows_gen.c, any host, the reference) and AVX2
 * (coding/ldpc_rows_avx2.c), chosen at run time from what the CPU has.
 *
 * The Z checks of a base-graph row are independent, so they run as vector
 * lanes, LDPC_ROW_LANES at a time (a chunk). For lanes i0 .. i0+LANES-1 of a
 * row, entry (r, c) with shift s reads bits c*Z + ((i + s) mod Z): one run
 * of the column, which wraps past Z in at most one chunk of the entry.
 *
 * Layout:
 *   app: column c at app + c*zs, its Z LLRs followed by a MIRROR, a copy of
 *        its first LDPC_ROW_LANES LLRs (zs >= Z + LANES, a multiple of 16
 *        floats, so each column starts on a cache line), so a full chunk
 *        that wraps reads one run (the part past Z from the mirror). The
 *        mirrors equal their heads at the start of every row: the driver
 *        loads them so, and a kernel that writes a wrapped chunk to a
 *        mirror copies it back at the end of its row (the plain C kernel
 *        neither reads nor writes them).
 *   msg: a row's messages lie chunk by chunk, and within a chunk entry by
 *        entry, LANES floats each (Z rounded up to zp, a multiple of LANES):
 *        the message of entry e (row r, k-th of the row's deg) to lane i at
 *        msg + row_start[r]*zp + ((i / LANES) deg + k) LANES + i mod LANES,
 *        so a chunk reads and writes one contiguous run of deg*LANES floats.
 *
 * Layered: for each edge q = app - m_old, then the new messages from q and
 * app = q + m_new, visible to the next row at once. Within a row every entry
 * is a different column and the lanes of an entry a permutation of that
 * column's bits, so chunks touch disjoint LLRs. On the first iteration
 * (`first`) every old message is zero: the kernels take q = app (app - 0 is
 * app, bit for bit, -0 included) and read no message, so the driver need
 * not clear them. */
#ifndef OFDMSIM_CODING_LDPC_ROWS_H
#define OFDMSIM_CODING_LDPC_ROWS_H

#include <stdint.h>
#include <string.h>

#include "coding/ldpc_graph.h"

#define LDPC_ROW_LANES 32

typedef struct ldpc_rows_state {
  const ldpc_code *code;
  float *app;          /* columns of zs floats, with mirrors (above) */
  float *msg;          /* nnz * zp */
  int zs, zp;
  float alpha, beta;
  int offset;          /* 1: offset min-sum (beta), 0: normalised (alpha) */
} ldpc_rows_state;

/* buf[j] = col[(i0 + j + s) mod Z] for the n = min(LANES, Z - i0) lanes
 * below Z, 0 past them: at most two runs, up to the end of the column and on
 * from its start (the heads only: no mirror is read); and the inverse,
 * ..._scatter, for the lanes below Z. One pair for each element type: float
 * (ldpc_rows_gather) and int16 (ldpc_rows_gather16, the fixed-point
 * decoder's, coding/ldpc_msg16.h). */
#define LDPC_ROWS_GATHER_SCATTER(suffix, type)                                                                \
  static inline void ldpc_rows_gather##suffix(const type *col, int s, int z, int i0, type *buf) {            \
    int start = i0 + s;                                                                                       \
    if (start >= z) start -= z;                                                                               \
    const int n = z - i0 < LDPC_ROW_LANES ? z - i0 : LDPC_ROW_LANES, n1 = z - start < n ? z - start : n;     \
    memcpy(buf, col + start, sizeof(type) * n1);                                                              \
    memcpy(buf + n1, col, sizeof(type) * (n - n1));                                                           \
    memset(buf + n, 0, sizeof(type) * (LDPC_ROW_LANES - n));                                                  \
  }                                                                                                           \
  static inline void ldpc_rows_scatter##suffix(type *col, int s, int z, int i0, const type *buf) {           \
    int start = i0 + s;                                                                                       \
    if (start >= z) start -= z;                                                                               \
    const int n = z - i0 < LDPC_ROW_LANES ? z - i0 : LDPC_ROW_LANES, n1 = z - start < n ? z - start : n;     \
    memcpy(col + start, buf, sizeof(type) * n1);                                                              \
    memcpy(col, buf + n1, sizeof(type) * (n - n1));                                                           \
  }
LDPC_ROWS_GATHER_SCATTER(, float)
LDPC_ROWS_GATHER_SCATTER(16, int16_t)

/* For an entry of shift s, how many of its column's bits the AVX2 kernels
 * write to the mirror instead of the head (Z >= LANES, every chunk read in
 * place: the full ones and the last, partial one): lane L = Z - s is the
 * first to read past Z (none when s = 0); its chunk j wraps unless L starts
 * it, and writes the chunk's lanes from L on, up to LANES or Z, to the
 * mirror. After the row, the head takes them back (0: none). */
static inline int ldpc_rows_mirror_lanes(int z, int s) {
  const int first_past = z - s, j = first_past / LDPC_ROW_LANES;
  const int chunk_end = (j + 1) * LDPC_ROW_LANES < z ? (j + 1) * LDPC_ROW_LANES : z;
  return s && first_past % LDPC_ROW_LANES && z >= LDPC_ROW_LANES ? chunk_end - first_past : 0;
}

/* The AVX2 row kernels' cursors over a row's deg entries, from edge e0, for
 * either element type T (float or int16_t: the state's app and zs):
 * cols[k] the entry's column, at[k] where its lanes start (the shift),
 * ends[k] the column's end, wrap[k] the lanes of the one full chunk that
 * wraps into the mirror (ldpc_rows_mirror_lanes). */
#define LDPC_ROW_CURSORS(T, s, code, e0, deg, z)                                                  \
  T *cols[LDPC_ROW_DEGREE_MAX], *at[LDPC_ROW_DEGREE_MAX], *ends[LDPC_ROW_DEGREE_MAX];             \
  int shifts[LDPC_ROW_DEGREE_MAX], wrap[LDPC_ROW_DEGREE_MAX];                                       \
  for (int k = 0; k < (deg); k++) {                                                                 \
    cols[k] = (s)->app + (size_t)(code)->g->col[(e0) + k] * (s)->zs;                                \
    shifts[k] = (code)->shift[(e0) + k];                                                            \
    at[k] = cols[k] + shifts[k];                                                                    \
    ends[k] = cols[k] + (z);                                                                        \
    wrap[k] = ldpc_rows_mirror_lanes((z), shifts[k]);                                               \
  }

/* One layered min-sum row r; first: the decoder's first iteration. */
typedef void (*ldpc_rows_layer_fn)(const ldpc_rows_state *s, int r, int first);

/* The fixed-point decoder's rows (LDPC_LAYERED_NMS16, coding/ldpc_msg16.h):
 * the same layout in int16 elements (zs a multiple of 32, 64 bytes; the
 * mirrors as above), normalised min-sum with scale k/2^15. */
typedef struct ldpc_rows16_state {
  const ldpc_code *code;
  int16_t *app;
  int16_t *msg;
  int zs, zp;
  int32_t scale_k;     /* ldpc16_scale_k(alpha) */
} ldpc_rows16_state;

typedef void (*ldpc_rows16_layer_fn)(const ldpc_rows16_state *s, int r, int first);

void ldpc_rows_layer_gen(const ldpc_rows_state *s, int r, int first);
void ldpc_rows16_layer_gen(const ldpc_rows16_state *s, int r, int first);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LDPC_ROWS_HAVE_AVX2_KERNEL 1
void ldpc_rows_layer_avx2(const ldpc_rows_state *s, int r, int first);
void ldpc_rows16_layer_avx2(const ldpc_rows16_state *s, int r, int first);
#endif

#endif
