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
 * from its start (the heads only: no mirror is read). */
static inline void ldpc_rows_gather(const float *col, int s, int z, int i0, float *buf) {
  int start = i0 + s;
  if (start >= z) start -= z;
  const int n = z - i0 < LDPC_ROW_LANES ? z - i0 : LDPC_ROW_LANES, n1 = z - start < n ? z - start : n;
  memcpy(buf, col + start, sizeof(float) * n1);
  memcpy(buf + n1, col, sizeof(float) * (n - n1));
  memset(buf + n, 0, sizeof(float) * (LDPC_ROW_LANES - n));
}

/* The inverse for the lanes below Z. */
static inline void ldpc_rows_scatter(float *col, int s, int z, int i0, const float *buf) {
  int start = i0 + s;
  if (start >= z) start -= z;
  const int n = z - i0 < LDPC_ROW_LANES ? z - i0 : LDPC_ROW_LANES, n1 = z - start < n ? z - start : n;
  memcpy(col + start, buf, sizeof(float) * n1);
  memcpy(col, buf + n1, sizeof(float) * (n - n1));
}

/* One layered min-sum row r; first: the decoder's first iteration. */
typedef void (*ldpc_rows_layer_fn)(const ldpc_rows_state *s, int r, int first);

void ldpc_rows_layer_gen(const ldpc_rows_state *s, int r, int first);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LDPC_ROWS_HAVE_AVX2_KERNEL 1
void ldpc_rows_layer_avx2(const ldpc_rows_state *s, int r, int first);
#endif

#endif
