/* The GPU layered min-sum LDPC decoder (plain C face: cuda/ldpc_gpu.h), and
 * its flooding sum-product (BP) kernel (ldpc_bp_kernel, below).
 *
 * One thread block per code block, one thread per lane (check r*Z + i of a
 * base-graph row r), Z rounded up to a warp. The block's a posteriori LLRs
 * live in shared memory for the whole decode (BG1 Z 384, every column: 104
 * KB, within Hopper's 227 KB opt-in); a row is one step: every lane reads its
 * row's deg LLRs, computes its messages, writes the LLRs back, and a barrier
 * makes them visible to the next row, as the CPU's layered schedule does.
 * Within a row the lanes touch disjoint LLRs (each entry a different column,
 * the lanes of an entry a permutation of it), so a row needs no barrier
 * inside. Two kernels share this scheme: the row kernel (a barrier after
 * every row) and the grouped one (the default; see ldpc_grouped_kernel);
 * a third, the pair kernel (nms16's default; see ldpc_pair_kernel),
 * runs the grouped one's schedule on two code blocks at once.
 *
 * Messages are compressed per row and lane (12 bytes instead of 4 deg):
 * v1 and v2, the message magnitudes for "min1" and "min2" already scaled (or
 * offset), and a word with the deg message sign bits (bits 0..18) and the
 * index of the first edge holding min1 (bits 24..28). The message to edge k
 * is v2 with sign bit k where k is that index, else v1: exactly the CPU's
 * value, since the CPU gives min2 where |q_k| == min1, and another edge
 * reaching min1 means min2 == min1. Only the lane's own thread reads and
 * writes its messages, so they need no barrier either.
 *
 * Why compressed: a row's messages are all +-v1 or +-v2, so 12 bytes a
 * lane rebuild the 4 deg bytes of full messages exactly. At BG1 Z 384
 * R 1/2 (rows 0..23, 210 edges) a block's messages take 24 * 384 * 12 =
 * 108 KiB (full ones: 210 * 384 * 4 = 315 KiB), read and written once an
 * iteration: 216 KiB of global-memory traffic an iteration a block, beside
 * the 69 KiB of LLRs read once per decode (tests/cuda/ldpc_gpu_speed.cu
 * prints both floors).
 *
 * The per-edge work is what the kernels spend most of their time on, so it
 * is kept short: a lane's LLR slot (lane + shift) mod Z is one VIADDMNMX
 * on a (shift, column byte offset) table entry fetched with one 64-bit
 * shared load (slot), the running minima are FMNMX (ops<>::lo and hi), and
 * the syndrome checks the lowest-degree rows first (decode_block).
 *
 * The q = app - m_old of a row's edges stay in registers between the two
 * passes (the edge loops unrolled to the largest degree, 19).
 *
 * The fixed-point decoder (nms16) is the same kernel on other types (the
 * ops<> traits below): int16 LLRs in shared memory, quantised as they are
 * loaded, int32 magnitudes in registers and in the compressed messages,
 * coding/ldpc_msg16.h's integer operations, so it equals the CPU's int16
 * kernels bit for bit as the float one equals the float kernels.
 *
 * GPU equals CPU: ldpc_msg.h's functions in the CPU's order (edges in row
 * order, min2 before min1, the sign product from ldpc_sign_start), rows in
 * order, the syndrome after every iteration; this file is compiled with
 * -fmad=false (CMakeLists.txt), though min-sum has no multiply feeding an
 * add. */
#include "cuda/ldpc_gpu.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/check.h"
#include "cuda/gpu.h"

extern "C" {
#include "coding/ldpc_graph.h"
}
#include "coding/ldpc_msg.h"
#include "coding/ldpc_msg16.h"
#include "coding/ldpc_msg16x2.h"

namespace {

/* The decoders the kernels are specialised for. */
enum { kNms = 0, kOms = 1, kNms16 = 2 };

/* The arithmetic of one decoder, spelled once for the kernel below: T the
 * type of an a posteriori LLR in shared memory, M that of a magnitude (the
 * running minima, v1 and v2), the float ones coding/ldpc_msg.h's and the
 * fixed-point one coding/ldpc_msg16.h's, each exactly what the CPU kernels
 * compute. A word of the compressed messages holds an M's bits. */
struct scale_args {
  float alpha, beta;
  int32_t k;              /* ldpc16_scale_k(alpha) */
};

template <int ALG>
struct ops {
  typedef float T;
  typedef float M;
  static __device__ __forceinline__ T load(float llr) { return llr; }
  static __device__ __forceinline__ T sub(T a, M m) { return a - m; }
  static __device__ __forceinline__ T add(T q, M m) { return q + m; }
  static __device__ __forceinline__ M mag(T x) { return fabsf(x); }
  static __device__ __forceinline__ uint32_t sbit(T x) { return ldpc_sign_bit(x); }
  static __device__ __forceinline__ M with_sign(M m, uint32_t s) { return ldpc_with_sign(m, s); }
  static __device__ __forceinline__ M init() { return LDPC_MAG_INIT; }
  /* coding/ldpc_msg.h's a < b ? a : b and a > b ? a : b, as one FMNMX each
   * instead of a compare and a select: the same value for every magnitude
   * the kernel meets (a = |q| may be NaN, for which both give b; b, a
   * running minimum or min1, is never NaN, and no magnitude is -0). */
  static __device__ __forceinline__ M lo(M a, M b) { return fminf(a, b); }
  static __device__ __forceinline__ M hi(M a, M b) { return fmaxf(a, b); }
  /* alpha m, or max(m - beta, 0), as ldpc_ms_message_scaled / _offset */
  static __device__ __forceinline__ M scaled(M m, const scale_args &c) {
    if (ALG == kOms) {
      const float v = m - c.beta;
      return v > 0.0f ? v : 0.0f;
    }
    return c.alpha * m;
  }
  static __device__ __forceinline__ uint8_t hard(T x) { return ldpc_hard_bit(x); }
  static __device__ __forceinline__ int nonzero(float llr) { return llr != 0.0f; }
  static __device__ __forceinline__ uint32_t word(M m) { return __float_as_uint(m); }
  static __device__ __forceinline__ M from_word(uint32_t w) { return __uint_as_float(w); }
};

template <>
struct ops<kNms16> {
  typedef int16_t T;
  typedef int32_t M;
  static __device__ __forceinline__ T load(float llr) { return ldpc16_quantise(llr); }
  static __device__ __forceinline__ T sub(T a, M m) { return ldpc16_sat((int32_t)a - m); }
  static __device__ __forceinline__ T add(T q, M m) { return ldpc16_sat((int32_t)q + m); }
  static __device__ __forceinline__ M mag(T x) { return ldpc16_mag(x); }
  static __device__ __forceinline__ uint32_t sbit(T x) { return x < 0 ? 0x80000000u : 0u; }
  static __device__ __forceinline__ M with_sign(M m, uint32_t s) { return s ? -m : m; }
  static __device__ __forceinline__ M init() { return LDPC16_MAG_MAX; }
  static __device__ __forceinline__ M lo(M a, M b) { return a < b ? a : b; }
  static __device__ __forceinline__ M hi(M a, M b) { return a > b ? a : b; }
  static __device__ __forceinline__ M scaled(M m, const scale_args &c) { return ldpc16_scale(m, c.k); }
  static __device__ __forceinline__ uint8_t hard(T x) { return ldpc16_hard_bit(x); }
  static __device__ __forceinline__ int nonzero(float llr) { return llr != 0.0f; }
  static __device__ __forceinline__ uint32_t word(M m) { return (uint32_t)m; }
  static __device__ __forceinline__ M from_word(uint32_t w) { return (int32_t)w; }
};

/* The message word: sign bits of the edges in bits 0..18, min1's edge from
 * bit 24. */
constexpr int kIdxShift = 24;
static_assert(LDPC_ROW_DEGREE_MAX <= kIdxShift, "sign bits overlap the index");

/* Table words: per entry two (a uint2, one 64-bit shared load): the shift,
 * and the byte offset of the entry's column in the shared LLRs (col Z
 * times the LLR's bytes); then the row starts (rows + 1); then the rows in
 * the order the syndrome checks them (rows words; see decode_block); then
 * one descriptor a row for the decoding loop (rows words, below). The
 * entries come first, so that they stay 8-byte aligned. */
constexpr int kTabWords = 2 * 316 + LDPC_ROWS_MAX + 1 + 2 * LDPC_ROWS_MAX;

/* A row's descriptor: its first entry, its degree, and whether the grouped
 * kernel needs a barrier after it (ldpc_gpu_decoder.sync_after's bit), in
 * one word: the row loop reads one shared word a row instead of two row
 * starts and a 64-bit shift of the mask. */
constexpr int kDescDegShift = 16;
constexpr uint32_t kDescSync = 0x80000000u;
static_assert(2 * 316 < (1 << kDescDegShift), "entry index overlaps the degree");

struct kargs {
  const float *llr;
  uint8_t *bits;
  ldpc_decode_result *res;
  uint32_t *gmsg;        /* global messages, or NULL: in shared memory */
  const uint32_t *tab;
  scale_args scale;
  int z, zp, nb, info_cols, rows, nnz;
  int scols;             /* columns held in shared memory */
  int rows_max;          /* scols - info_cols: the most rows a block can use */
  int max_iterations;
  int full_iterations;   /* ldpc_decoder_config's: no early termination */
  int nblocks;           /* code blocks in the launch (the pair kernel's last pair may have one) */
};

/* The byte offset in the shared LLRs of the one that lane `lane` reads for
 * an entry (column c, shift s): LLR c Z + (lane + s) mod Z. */
template <typename T>
__device__ __forceinline__ int slot(uint2 entry, int lane, int z) {
  /* (lane + s) mod Z for lane + s < 2Z: the unsigned t - Z wraps past t
   * when t < Z, so the minimum is the remainder either way; one VIADDMNMX
   * instead of a compare, a select and a subtraction. */
  const unsigned t = (unsigned)lane + entry.x;
  return (int)entry.y + (int)(min(t - (unsigned)z, t) * sizeof(T));
}

/* The shared LLR at byte offset off. */
template <typename T>
__device__ __forceinline__ T &llr_at(T *app, int off) {
  return *reinterpret_cast<T *>(reinterpret_cast<char *>(app) + off);
}

/* Edge k's message from a compressed row (v1, v2, word w, index idx). */
template <int ALG>
__device__ __forceinline__ typename ops<ALG>::M message(typename ops<ALG>::M v1, typename ops<ALG>::M v2,
                                                        uint32_t w, int idx, int k) {
  return ops<ALG>::with_sign(k == idx ? v2 : v1, ((w >> k) & 1u) << 31);
}

/* A message word of the lane's own, in global memory (GMSG) or in shared
 * memory. The kernels are specialised on the place so that these are LDG /
 * STG or LDS / STS: one pointer for both places made them generic LD / ST.
 * (Plain weak accesses, as before: __ldcg / __stcg would make them
 * STRONG.GPU.) */
template <bool GMSG>
__device__ __forceinline__ uint32_t msg_load(const uint32_t *p) {
  if (GMSG) __builtin_assume(__isGlobal(p));
  return *p;
}

template <bool GMSG>
__device__ __forceinline__ void msg_store(uint32_t *p, uint32_t w) {
  if (GMSG) __builtin_assume(__isGlobal(p));
  *p = w;
}

/* The (v1, v2) pair of a row and lane, one 64-bit access. */
template <bool GMSG>
__device__ __forceinline__ uint2 pair_load(const uint2 *p) {
  if (GMSG) __builtin_assume(__isGlobal(p));
  return *p;
}

template <bool GMSG>
__device__ __forceinline__ void pair_store(uint2 *p, uint2 v) {
  if (GMSG) __builtin_assume(__isGlobal(p));
  *p = v;
}

/* The bytes of the LLRs in shared memory, rounded up to 16 (the words after
 * them stay aligned): 4 an LLR, 2 for nms16. */
__host__ __device__ inline size_t app_bytes(int scols, int z, int elem) {
  return ((size_t)elem * scols * z + 15) / 16 * 16;
}

size_t shared_bytes(int scols, int z, int zp, int rows_max, int msg_shared, int elem) {
  return app_bytes(scols, z, elem) + (msg_shared ? sizeof(uint32_t) * 3 * (size_t)rows_max * zp : 0) +
         sizeof(uint32_t) * (kTabWords + 1);
}

/* One row (layer) of the layered min-sum, for one lane: the old messages
 * (o1, o2, ow) of row r out of the LLRs, the new ones back in, the row's
 * compressed messages to mp (v1, v2) and mw (the word). N edges are unrolled; PRED: the row's degree
 * deg is only known at run time, edges k >= deg are predicated away (the
 * row kernel: N is the largest degree); without PRED the degree is N (the
 * grouped kernel's rows, specialised per degree). Up to kCacheDeg edges,
 * each edge's shared-memory slot is computed once, in the first pass, and
 * kept in a register for the second; the denser rows (BG1's first four,
 * degree 19) recompute it, since caching it there too took the grouped
 * kernel past 56 registers, the most that lets three 384-thread blocks share
 * an SM (79 without the cap, two blocks; 48 bytes of spills with it). The
 * loops are fully unrolled so that q[] and at[] are registers (indexed by
 * constants), not local memory. */
constexpr int kCacheDeg = 12;

template <int ALG, bool GMSG, int N, bool PRED>
__device__ __forceinline__ void layer_row(typename ops<ALG>::T *app, const uint2 *ent, int deg, int lane, int z,
                                          typename ops<ALG>::M o1, typename ops<ALG>::M o2, uint32_t ow,
                                          const scale_args &sc, uint2 *mp, uint32_t *mw) {
  typedef ops<ALG> O;
  typedef typename O::T T;
  typedef typename O::M M;
  constexpr bool cache = N <= kCacheDeg;
  const int oidx = (int)(ow >> kIdxShift);
  M m1 = O::init(), m2 = O::init();
  uint32_t sg = ldpc_sign_start(PRED ? deg : N);
  int idx = 0;
  T q[N];
  int at[cache ? N : 1];
#pragma unroll
  for (int k = 0; k < N; k++) {
    if (!PRED || k < deg) {
      const int sk = slot<T>(ent[k], lane, z);
      if (cache) at[k] = sk;
      const T x = O::sub(llr_at(app, sk), message<ALG>(o1, o2, ow, oidx, k));
      const M mag = O::mag(x);
      q[k] = x;
      idx = mag < m1 ? k : idx; /* where the min1 update takes a new minimum */
      /* coding/ldpc_msg.h's (and ldpc_msg16.h's) min2 = min(max(a, min1),
       * min2) before min1 = min(a, min1), in either type */
      m2 = O::lo(O::hi(mag, m1), m2);
      m1 = O::lo(mag, m1);
      sg ^= O::sbit(x);
    }
  }
  const M v1 = O::scaled(m1, sc), v2 = O::scaled(m2, sc);
  uint32_t nw = (uint32_t)idx << kIdxShift;
#pragma unroll
  for (int k = 0; k < N; k++) {
    if (!PRED || k < deg) {
      const T x = q[k];
      const uint32_t s = sg ^ O::sbit(x);
      nw |= (s >> 31) << k;
      llr_at(app, cache ? at[k] : slot<T>(ent[k], lane, z)) = O::add(x, O::with_sign(k == idx ? v2 : v1, s));
    }
  }
  pair_store<GMSG>(mp, make_uint2(O::word(v1), O::word(v2)));
  msg_store<GMSG>(mw, nw);
}

/* A block's start, shared by the layered kernels and BP: the table into
 * shared memory; the LLRs into app (as O::load converts them); rows_used,
 * the rows this block decodes, from the last column past the core with a
 * nonzero LLR (the CPU's rows_to_decode: j only grows, so a thread's last
 * hit is its largest); and the syndrome's row order, the host's list (every
 * row, lowest degree first) less the rows not decoded, compacted in place by
 * one thread. Every thread of the block calls it: its barriers publish each
 * step before the next. Returns rows_used. */
template <typename O>
__device__ __forceinline__ int block_start(const kargs &a, uint32_t *tab, typename O::T *app) {
  const int z = a.z, lane = threadIdx.x, nthreads = blockDim.x;
  int *s_last = reinterpret_cast<int *>(tab + kTabWords);
  const int ntab = 3 * a.rows + 1 + 2 * a.nnz;
  for (int j = lane; j < ntab; j += nthreads) tab[j] = a.tab[j];
  if (lane == 0) *s_last = -1;
  __syncthreads();

  const float *llr = a.llr + (size_t)blockIdx.x * a.nb * z;
  const int n_app = a.scols * z, scan_from = (a.info_cols + 4) * z;
  int last = -1;
  for (int j = lane; j < n_app; j += nthreads) {
    const float v = llr[j];
    app[j] = O::load(v);
    if (j >= scan_from && v != 0.0f) last = j;
  }
  if (last >= 0) atomicMax(s_last, last / z);
  __syncthreads();
  const int rows_used = *s_last < 0 ? 4 : *s_last - a.info_cols + 1;

  uint32_t *check_order = tab + 2 * a.nnz + a.rows + 1;
  if (lane == 0) {
    int n = 0;
    for (int i = 0; i < a.rows; i++)
      if ((int)check_order[i] < rows_used) check_order[n++] = check_order[i];
  }
  __syncthreads();
  return rows_used;
}

/* One code block per thread block, one lane per row of the lifted layer
 * (Z lanes). GROUPED selects the grouped kernel's two changes, which only
 * remove work and keep the row kernel's schedule and arithmetic bit for bit:
 *  - a row's degree selects a specialised layer_row (3 .. 19; the row kernel
 *    unrolls every row to 19 edges and predicates the rest away);
 *  - no barrier between consecutive rows that share no column (the row descriptors' kDescSync,
 *    from the host): the second row reads and writes no LLR the first one
 *    touches, so without the barrier every lane still reads exactly the
 *    values the row kernel's lanes read (BG1 rows 16-17, 20-21, 22-23, ...
 *    and every pair past row 23; BG2 likewise). */
template <int ALG, bool GROUPED, bool GMSG>
__device__ __forceinline__ void decode_block(const kargs &a) {
  typedef ops<ALG> O;
  typedef typename O::T T;
  typedef typename O::M M;
  extern __shared__ float4 smem_words[];
  const int z = a.z, zp = a.zp, lane = threadIdx.x, nthreads = blockDim.x;
  const int blk = blockIdx.x;
  const bool active = lane < z;
  const size_t msg_words = 3 * (size_t)a.rows_max * zp;
  T *app = reinterpret_cast<T *>(smem_words);
  uint32_t *after_app =
      reinterpret_cast<uint32_t *>(reinterpret_cast<char *>(smem_words) + app_bytes(a.scols, z, (int)sizeof(T)));
  /* GMSG: the launch passes a.gmsg (the host picks the kernel with it) */
  uint32_t *msg = GMSG ? a.gmsg + (size_t)blk * msg_words : after_app;
  uint32_t *tab = GMSG ? after_app : after_app + msg_words;
  const int rows_used = block_start<O>(a, tab, app);

  const uint2 *ent = reinterpret_cast<const uint2 *>(tab);
  const uint32_t *row_start = tab + 2 * a.nnz;
  const uint32_t *check_order = tab + 2 * a.nnz + a.rows + 1;
  const uint32_t *row_desc = check_order + a.rows;
  int it = 0, ok = 0;
  while (it < a.max_iterations && !(ok && !a.full_iterations)) {
    /* A row's old messages are loaded one row ahead (they are the lane's
     * own, so no barrier orders them), hiding the latency of global memory.
     * The first iteration's are +0, as the CPU's zeroed array: v1 = v2 = +0
     * and no sign bits. */
    M p1 = O::from_word(0), p2 = O::from_word(0);
    uint32_t pw = 0;
    /* Row r's messages of this lane: running pointers, one add a row each
     * instead of a 64-bit r * 3 zp product; a row is 3 zp words, the (v1, v2)
     * pairs of its lanes (2 zp words: one 64-bit access a lane) and then
     * their words (zp). 3 zp is even (zp is a multiple of 32), so every pair
     * stays 8-byte aligned. */
    const int row_words = 3 * zp, row_pairs = row_words / 2;
    uint2 *mp = reinterpret_cast<uint2 *>(msg) + lane;
    uint32_t *mw = msg + 2 * zp + lane;
    if (it > 0 && active) {
      const uint2 p = pair_load<GMSG>(mp);
      p1 = O::from_word(p.x);
      p2 = O::from_word(p.y);
      pw = msg_load<GMSG>(mw);
    }
    for (int r = 0; r < rows_used; r++, mp += row_pairs, mw += row_words) {
      if (active) {
        const uint32_t desc = row_desc[r];
        const int e0 = (int)(desc & 0xffffu), deg = (int)((desc & ~kDescSync) >> kDescDegShift);
        const M o1 = p1, o2 = p2;
        const uint32_t ow = pw;
        if (it > 0 && r + 1 < rows_used) {
          const uint2 p = pair_load<GMSG>(mp + row_pairs);
          p1 = O::from_word(p.x);
          p2 = O::from_word(p.y);
          pw = msg_load<GMSG>(mw + row_words);
        }
        const uint2 *re = ent + e0;
        if (!GROUPED) {
          layer_row<ALG, GMSG, LDPC_ROW_DEGREE_MAX, true>(app, re, deg, lane, z, o1, o2, ow, a.scale, mp, mw);
        } else {
#define LDPC_ROW_CASE(D) \
  case D: layer_row<ALG, GMSG, D, false>(app, re, D, lane, z, o1, o2, ow, a.scale, mp, mw); break;
          switch (deg) {
            LDPC_ROW_CASE(3) LDPC_ROW_CASE(4) LDPC_ROW_CASE(5) LDPC_ROW_CASE(6) LDPC_ROW_CASE(7) LDPC_ROW_CASE(8)
            LDPC_ROW_CASE(9) LDPC_ROW_CASE(10) LDPC_ROW_CASE(11) LDPC_ROW_CASE(12) LDPC_ROW_CASE(13)
            LDPC_ROW_CASE(14) LDPC_ROW_CASE(15) LDPC_ROW_CASE(16) LDPC_ROW_CASE(17) LDPC_ROW_CASE(18)
            LDPC_ROW_CASE(19)
            default: break; /* never: ldpc_gpu_create refuses other degrees */
          }
#undef LDPC_ROW_CASE
        }
      }
      /* rows_used and the descriptors are the same for every thread of the
       * block (inactive lanes read the descriptor too, for this test). */
      if (!GROUPED || r + 1 == rows_used || (row_desc[r] & kDescSync)) __syncthreads();
    }
    it++;
    /* The syndrome of the hard decisions over the decoded rows; the reduction
     * is also the barrier before the next iteration writes the LLRs. */
    int bad = 0;
    if (active) {
      /* Any unsatisfied row fails the block, so the order of the rows is
       * free: lowest degree first, since before convergence each lane stops
       * at its first odd row (about half the rows are odd), and a warp at
       * its last lane's, after a few cheap rows instead of BG1's four
       * degree-19 ones. */
      for (int i = 0; i < rows_used && !bad; i++) {
        const int r = (int)check_order[i];
        uint32_t par = 0;
        for (int e = (int)row_start[r]; e < (int)row_start[r + 1]; e++)
          par ^= O::hard(llr_at(app, slot<T>(ent[e], lane, z)));
        bad = (int)par;
      }
    }
    ok = !__syncthreads_or(bad);
  }

  const int k_sys = a.info_cols * z;
  uint8_t *out = a.bits + (size_t)blk * k_sys;
  for (int j = lane; j < k_sys; j += nthreads) out[j] = O::hard(app[j]);
  if (lane == 0) {
    a.res[blk].iterations = it;
    a.res[blk].syndrome_ok = ok;
    a.res[blk].rows_used = rows_used;
  }
}

/* The row kernel: every row unrolled to the largest degree, a barrier after
 * every row. */
template <int ALG, bool GMSG>
__global__ void __launch_bounds__(LDPC_Z_MAX) ldpc_layered_kernel(const kargs a) {
  decode_block<ALG, false, GMSG>(a);
}

/* The grouped kernel (the default): three blocks an SM (see layer_row). */
template <int ALG, bool GMSG>
__global__ void __launch_bounds__(LDPC_Z_MAX, 3) ldpc_grouped_kernel(const kargs a) {
  decode_block<ALG, true, GMSG>(a);
}

/* The pair kernel (LDPC_GPU_KERNEL_PAIR, nms16 only): the grouped kernel's
 * schedule on two code blocks A and B per thread block, their LLRs one
 * 32-bit word a slot (A low, B high: coding/ldpc_msg16x2.h), so one table
 * entry, one slot and one shared load and store serve both blocks and the
 * per-edge arithmetic is 16x2 SIMD. The messages live in global memory: a
 * row's are 5 zp words, the (v1, v2) pairs of its lanes (2 zp words: one
 * 64-bit access a lane) and three flag words of zp each, of which a row of
 * degree deg reads and writes the first ceil(deg / 8).
 *
 * Each block stops where the CPU does: the syndrome is kept per half (over
 * the half's own rows), and a block that meets it (or reaches the cap) has
 * its decisions and results written at that iteration; its half then keeps
 * running with its partner, never read again, which costs nothing per edge
 * (a select per edge to freeze it would) and stays exact (the bound of
 * coding/ldpc_msg16.h holds at any iteration). The pair decodes the larger
 * of its blocks' row counts; a row past a block's own rows has that block's
 * erased (zero) parity bit, so it sends zero messages to every other bit of
 * the block and changes only that parity bit's value, which is neither
 * decided nor checked (coding/ldpc_decode.h; tests/coding/test_ldpc16_pair.c
 * checks every decoded value). The launch's last pair may have no B: its
 * half decodes zeros and is never written. */
constexpr int kPairRowWords = 5;

/* One row of the pair for one lane: layer_row's two passes on 16x2 pairs,
 * N edges (the row's degree), the old messages (o, ow0..2) in, the new ones
 * out to mp (v1, v2) and mw (flag words, zp apart). */
template <int N>
__device__ __forceinline__ void pair_row(uint32_t *app, const uint2 *ent, int lane, int z, int zp, uint2 o,
                                         uint32_t ow0, uint32_t ow1, uint32_t ow2, int32_t sk, uint2 *mp,
                                         uint32_t *mw) {
  constexpr bool cache = N <= kCacheDeg;
  ldpc16x2_acc acc = ldpc16x2_acc_start(N);
  uint32_t q[N];
  int at[cache ? N : 1];
#pragma unroll
  for (int k = 0; k < N; k++) {
    const int sl = slot<uint32_t>(ent[k], lane, z);
    if (cache) at[k] = sl;
    const uint32_t ow = k < 8 ? ow0 : k < 16 ? ow1 : ow2;
    q[k] = ldpc16x2_q(llr_at(app, sl), o.x, o.y, ow << (k & 7));
    ldpc16x2_take(&acc, q[k], k);
  }
  const uint32_t v1 = ldpc16x2_v1(&acc, sk), v2 = ldpc16x2_v2(&acc, sk);
  const uint32_t sgn = ldpc16x2_row_sign(&acc);
  const uint32_t s1 = ldpc16x2_signed(v1, sgn), s2 = ldpc16x2_signed(v2, sgn);
  const uint32_t h0 = ldpc16x2_hot(&acc, 0), h1 = N > 8 ? ldpc16x2_hot(&acc, 1) : 0u,
                 h2 = N > 16 ? ldpc16x2_hot(&acc, 2) : 0u;
  uint32_t w0 = h0, w1 = h1, w2 = h2;
#pragma unroll
  for (int k = 0; k < N; k++) {
    const uint32_t h = k < 8 ? h0 : k < 16 ? h1 : h2;
    uint32_t &w = k < 8 ? w0 : k < 16 ? w1 : w2;
    llr_at(app, cache ? at[k] : slot<uint32_t>(ent[k], lane, z)) =
        ldpc16x2_give(q[k], s1, s2, h << (k & 7), k & 7, &w);
  }
  pair_store<true>(mp, make_uint2(v1, v2));
  msg_store<true>(mw, ldpc16x2_word_signs(w0, sgn, N < 8 ? N : 8));
  if (N > 8) msg_store<true>(mw + zp, ldpc16x2_word_signs(w1, sgn, N < 16 ? N - 8 : 8));
  if (N > 16) msg_store<true>(mw + 2 * zp, ldpc16x2_word_signs(w2, sgn, N - 16));
}

/* Block cb's decisions (half h of the pairs) and results. */
__device__ __forceinline__ void pair_finish(const kargs &a, const uint32_t *app, int cb, int h, int it, int ok,
                                            int rows_used) {
  const int k_sys = a.info_cols * a.z;
  uint8_t *out = a.bits + (size_t)cb * k_sys;
  for (int j = threadIdx.x; j < k_sys; j += blockDim.x)
    out[j] = h ? ldpc16x2_hard_hi(app[j]) : ldpc16x2_hard_lo(app[j]);
  if (threadIdx.x == 0) {
    a.res[cb].iterations = it;
    a.res[cb].syndrome_ok = ok;
    a.res[cb].rows_used = rows_used;
  }
}

/* Three thread blocks an SM, as the grouped kernel: 56 registers, with no
 * spills (ptxas -v) and 0.7% more instructions than at two (79 registers);
 * six code blocks an SM where their LLRs fit (BG1 Z 384 R 1/2, 46
 * columns: 72 KiB a thread block with the table). */
__global__ void __launch_bounds__(LDPC_Z_MAX, 3) ldpc_pair_kernel(const kargs a) {
  extern __shared__ float4 smem_words[];
  const int z = a.z, zp = a.zp, lane = threadIdx.x, nthreads = blockDim.x;
  const int blk = blockIdx.x, cb = 2 * blk;
  const bool has_b = cb + 1 < a.nblocks;
  const bool active = lane < z;
  const size_t msg_words = kPairRowWords * (size_t)a.rows_max * zp;
  uint32_t *app = reinterpret_cast<uint32_t *>(smem_words);
  uint32_t *tab =
      reinterpret_cast<uint32_t *>(reinterpret_cast<char *>(smem_words) + app_bytes(a.scols, z, (int)sizeof(uint32_t)));
  uint32_t *msg = a.gmsg + (size_t)blk * msg_words;
  int *s_last = reinterpret_cast<int *>(tab + kTabWords); /* A's and B's */

  const int ntab = 3 * a.rows + 1 + 2 * a.nnz;
  for (int j = lane; j < ntab; j += nthreads) tab[j] = a.tab[j];
  if (lane < 2) s_last[lane] = -1;
  __syncthreads();

  /* Both blocks' LLRs into the pairs, and each one's last column past the
   * core with a nonzero LLR (decode_block's rows_used, per block). */
  const float *la = a.llr + (size_t)cb * a.nb * z;
  const float *lb = has_b ? la + (size_t)a.nb * z : la; /* read only with has_b */
  const int n_app = a.scols * z, scan_from = (a.info_cols + 4) * z;
  int last_a = -1, last_b = -1;
  for (int j = lane; j < n_app; j += nthreads) {
    const float va = la[j], vb = has_b ? lb[j] : 0.0f;
    app[j] = ldpc16x2_quantise(va, vb);
    if (j >= scan_from && va != 0.0f) last_a = j;
    if (j >= scan_from && vb != 0.0f) last_b = j;
  }
  if (last_a >= 0) atomicMax(&s_last[0], last_a / z);
  if (last_b >= 0) atomicMax(&s_last[1], last_b / z);
  __syncthreads();
  const int rows_a = s_last[0] < 0 ? 4 : s_last[0] - a.info_cols + 1;
  const int rows_b = s_last[1] < 0 ? 4 : s_last[1] - a.info_cols + 1;
  const int rows_used = has_b && rows_b > rows_a ? rows_b : rows_a;

  const uint2 *ent = reinterpret_cast<const uint2 *>(tab);
  const uint32_t *row_start = tab + 2 * a.nnz;
  uint32_t *check_order = tab + 2 * a.nnz + a.rows + 1;
  const uint32_t *row_desc = check_order + a.rows;
  if (lane == 0) {
    int n = 0;
    for (int i = 0; i < a.rows; i++)
      if ((int)check_order[i] < rows_used) check_order[n++] = check_order[i];
  }
  __syncthreads();
  /* done: bit 15 once A has stopped, bit 31 once B has (a missing B: from
   * the start) */
  uint32_t done = has_b ? 0u : 0x80000000u;
  int it = 0;
  const int row_words = kPairRowWords * zp, row_pairs = row_words / 2;
  while (done != LDPC16X2_SIGNS) {
    uint2 p = make_uint2(0u, 0u);
    uint32_t f0 = 0, f1 = 0, f2 = 0;
    uint2 *mp = reinterpret_cast<uint2 *>(msg) + lane;
    uint32_t *mw = msg + 2 * zp + lane;
    if (it > 0 && active) {
      const int deg0 = (int)((row_desc[0] & ~kDescSync) >> kDescDegShift);
      p = pair_load<true>(mp);
      f0 = msg_load<true>(mw);
      if (deg0 > 8) f1 = msg_load<true>(mw + zp);
      if (deg0 > 16) f2 = msg_load<true>(mw + 2 * zp);
    }
    for (int r = 0; r < rows_used; r++, mp += row_pairs, mw += row_words) {
      if (active) {
        const uint32_t desc = row_desc[r];
        const int e0 = (int)(desc & 0xffffu), deg = (int)((desc & ~kDescSync) >> kDescDegShift);
        const uint2 o = p;
        const uint32_t o0 = f0, o1 = f1, o2 = f2;
        if (it > 0 && r + 1 < rows_used) {
          const int degn = (int)((row_desc[r + 1] & ~kDescSync) >> kDescDegShift);
          p = pair_load<true>(mp + row_pairs);
          f0 = msg_load<true>(mw + row_words);
          if (degn > 8) f1 = msg_load<true>(mw + row_words + zp);
          if (degn > 16) f2 = msg_load<true>(mw + row_words + 2 * zp);
        }
        const uint2 *re = ent + e0;
#define LDPC_PAIR_CASE(D) \
  case D: pair_row<D>(app, re, lane, z, zp, o, o0, o1, o2, a.scale.k, mp, mw); break;
        switch (deg) {
          LDPC_PAIR_CASE(3) LDPC_PAIR_CASE(4) LDPC_PAIR_CASE(5) LDPC_PAIR_CASE(6) LDPC_PAIR_CASE(7)
          LDPC_PAIR_CASE(8) LDPC_PAIR_CASE(9) LDPC_PAIR_CASE(10) LDPC_PAIR_CASE(11) LDPC_PAIR_CASE(12)
          LDPC_PAIR_CASE(13) LDPC_PAIR_CASE(14) LDPC_PAIR_CASE(15) LDPC_PAIR_CASE(16) LDPC_PAIR_CASE(17)
          LDPC_PAIR_CASE(18) LDPC_PAIR_CASE(19)
          default: break; /* never: ldpc_gpu_create refuses other degrees */
        }
#undef LDPC_PAIR_CASE
      }
      if (r + 1 == rows_used || (row_desc[r] & kDescSync)) __syncthreads();
    }
    it++;
    /* Each running half's syndrome over its own rows (lowest degree first,
     * as decode_block's), until both running halves have an unmet row. */
    const uint32_t want = ~done & LDPC16X2_SIGNS;
    uint32_t unmet = 0;
    if (active) {
      for (int i = 0; i < rows_used && (unmet & want) != want; i++) {
        const int r = (int)check_order[i];
        const uint32_t own = (r < rows_a ? 0x8000u : 0u) | (r < rows_b ? 0x80000000u : 0u);
        if (!(own & want & ~unmet)) continue;
        uint32_t x = 0;
        const int e1 = (int)row_start[r + 1];
        for (int e = (int)row_start[r]; e < e1; e++) x ^= llr_at(app, slot<uint32_t>(ent[e], lane, z));
        unmet |= ldpc16x2_unmet(x, e1 - (int)row_start[r]) & own;
      }
    }
    const int bad_a = __syncthreads_or((int)(unmet & 0x8000u)), bad_b = __syncthreads_or((int)(unmet >> 31));
    bool stopped = false;
    if (!(done & 0x8000u) && ((!bad_a && !a.full_iterations) || it == a.max_iterations)) {
      pair_finish(a, app, cb, 0, it, !bad_a, rows_a);
      done |= 0x8000u;
      stopped = true;
    }
    if (!(done & 0x80000000u) && ((!bad_b && !a.full_iterations) || it == a.max_iterations)) {
      pair_finish(a, app, cb + 1, 1, it, !bad_b, rows_b);
      done |= 0x80000000u;
      stopped = true;
    }
    /* the decisions were read before the next iteration writes the LLRs */
    if (stopped && done != LDPC16X2_SIGNS) __syncthreads();
  }
}

/* Flooding sum-product (LDPC_FLOODING_BP): coding/ldpc_decode.c's
 * row_sum_product, flood_collect and syndrome_zero, one code block per
 * thread block, one thread per lane, the a posteriori LLRs in shared memory
 * (as the min-sum kernels keep them) and the full float messages in global
 * memory (a.gmsg as floats: edge e's lane i at e zp + i, a block's
 * row_start[rows_max] zp apart): 4 bytes an edge and lane, too many for
 * shared memory at large Z, and no compression rebuilds sum-product
 * messages. An iteration:
 *  - every decoded row's new messages from the app of the previous
 *    iteration, which this pass only reads, so the rows need no barrier:
 *    per lane q = app - m_old, ph = ldpc_phi(|q|), the sum of ph in edge
 *    order from +0, the sign product from ldpc_sign_start, then
 *    m = ldpc_bp_message, exactly as row_sum_product computes each lane
 *    (the first iteration's m_old is +0, the CPU's zeroed array);
 *  - app = the input, then every decoded row's messages added in row order
 *    (flood_collect's): the rows' lanes add to disjoint LLRs within a row
 *    (a row's columns differ, an entry's lanes are a permutation), and a
 *    barrier separates rows that share a column (the row descriptors'
 *    kDescSync), so each LLR takes its additions in the CPU's order;
 *  - the syndrome over the decoded rows, as the min-sum kernels check it.
 * The file is compiled with -fmad=false, so ldpc_phi's products and sums
 * round as gcc's do (it never contracts them in C11 mode). */
__global__ void __launch_bounds__(LDPC_Z_MAX) ldpc_bp_kernel(const kargs a) {
  extern __shared__ float4 smem_words[];
  const int z = a.z, zp = a.zp, lane = threadIdx.x, nthreads = blockDim.x;
  const int blk = blockIdx.x;
  const bool active = lane < z;
  float *app = reinterpret_cast<float *>(smem_words);
  uint32_t *tab =
      reinterpret_cast<uint32_t *>(reinterpret_cast<char *>(smem_words) + app_bytes(a.scols, z, (int)sizeof(float)));
  const int rows_used = block_start<ops<kNms> >(a, tab, app);
  /* the input again each iteration (flood_collect starts from it) */
  const float *llr = a.llr + (size_t)blk * a.nb * z;
  const int n_app = a.scols * z;

  const uint2 *ent = reinterpret_cast<const uint2 *>(tab);
  const uint32_t *row_start = tab + 2 * a.nnz;
  const uint32_t *check_order = tab + 2 * a.nnz + a.rows + 1;
  const uint32_t *row_desc = check_order + a.rows;
  float *msg = reinterpret_cast<float *>(a.gmsg) + (size_t)blk * row_start[a.rows_max] * zp + lane;

  int it = 0, ok = 0;
  while (it < a.max_iterations && !(ok && !a.full_iterations)) {
    if (active) {
      for (int r = 0; r < rows_used; r++) {
        const uint32_t desc = row_desc[r];
        const int e0 = (int)(desc & 0xffffu), deg = (int)((desc & ~kDescSync) >> kDescDegShift);
        float q[LDPC_ROW_DEGREE_MAX], ph[LDPC_ROW_DEGREE_MAX];
        float sum = 0.0f;
        uint32_t sg = ldpc_sign_start(deg);
#pragma unroll
        for (int k = 0; k < LDPC_ROW_DEGREE_MAX; k++) {
          if (k < deg) {
            const float m = it > 0 ? msg[(size_t)(e0 + k) * zp] : 0.0f;
            q[k] = llr_at(app, slot<float>(ent[e0 + k], lane, z)) - m;
            ph[k] = ldpc_phi(fabsf(q[k]));
            sum += ph[k];
            sg ^= ldpc_sign_bit(q[k]);
          }
        }
#pragma unroll
        for (int k = 0; k < LDPC_ROW_DEGREE_MAX; k++)
          if (k < deg) msg[(size_t)(e0 + k) * zp] = ldpc_bp_message(q[k], ph[k], sum, sg);
      }
    }
    /* every lane has read the old app before it is rebuilt */
    __syncthreads();
    for (int j = lane; j < n_app; j += nthreads) app[j] = llr[j];
    __syncthreads();
    for (int r = 0; r < rows_used; r++) {
      if (active) {
        const uint32_t desc = row_desc[r];
        const int e0 = (int)(desc & 0xffffu), deg = (int)((desc & ~kDescSync) >> kDescDegShift);
        for (int k = 0; k < deg; k++) {
          float &x = llr_at(app, slot<float>(ent[e0 + k], lane, z));
          x = x + msg[(size_t)(e0 + k) * zp];
        }
      }
      if (r + 1 == rows_used || (row_desc[r] & kDescSync)) __syncthreads();
    }
    it++;
    int bad = 0;
    if (active) {
      for (int i = 0; i < rows_used && !bad; i++) {
        const int r = (int)check_order[i];
        uint32_t par = 0;
        for (int e = (int)row_start[r]; e < (int)row_start[r + 1]; e++)
          par ^= ldpc_hard_bit(llr_at(app, slot<float>(ent[e], lane, z)));
        bad = (int)par;
      }
    }
    ok = !__syncthreads_or(bad);
  }

  const int k_sys = a.info_cols * z;
  uint8_t *out = a.bits + (size_t)blk * k_sys;
  for (int j = lane; j < k_sys; j += nthreads) out[j] = ldpc_hard_bit(app[j]);
  if (lane == 0) {
    a.res[blk].iterations = it;
    a.res[blk].syndrome_ok = ok;
    a.res[blk].rows_used = rows_used;
  }
}

/* One decode launch of arithmetic ALG on the chosen kernel, specialised for
 * the messages' place (a.gmsg set: global memory). */
template <int ALG>
int launch_decoder(bool grouped, int nblocks, int zp, size_t smem, cudaStream_t s, const kargs &a) {
  const bool gmsg = a.gmsg != NULL;
  if (grouped && gmsg)
    ldpc_grouped_kernel<ALG, true><<<nblocks, zp, smem, s>>>(a);
  else if (grouped)
    ldpc_grouped_kernel<ALG, false><<<nblocks, zp, smem, s>>>(a);
  else if (gmsg)
    ldpc_layered_kernel<ALG, true><<<nblocks, zp, smem, s>>>(a);
  else
    ldpc_layered_kernel<ALG, false><<<nblocks, zp, smem, s>>>(a);
  CUDA_TRY_LAUNCH(ALG == kOms     ? "ldpc kernel<offset>"
                  : ALG == kNms16 ? "ldpc kernel<nms16>"
                                  : "ldpc kernel<normalised>");
  return 0;
}

}  // namespace

struct ldpc_gpu_decoder {
  ldpc_code code;
  ldpc_decoder_config cfg;
  ldpc_gpu_msg_place place;
  int zp;
  size_t smem_max;        /* the device's opt-in shared memory per block */
  uint32_t *tab;          /* device: kTabWords */
  uint32_t *tab_pair;     /* device: the same with 4-byte LLRs (the pair kernel's), nms16 only */
  uint32_t *scratch;      /* device: global messages */
  size_t scratch_bytes;
  ldpc_gpu_kernel kernel;
  unsigned long long sync_after; /* bit r: row r+1 shares a column with a row since the last barrier */
};

extern "C" {

/* The bytes of one LLR in shared memory. */
static int llr_bytes(const ldpc_decoder_config *cfg) {
  return cfg->algorithm == LDPC_LAYERED_NMS16 ? (int)sizeof(int16_t) : (int)sizeof(float);
}

static int set_kernel_attributes(const void *kernel, size_t smem_max) {
  CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_max));
  /* As much of the L1/shared split as shared memory as the kernels can use:
   * the LLRs of several blocks per SM. */
  CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                (int)cudaSharedmemCarveoutMaxShared));
  return 0;
}

static int set_attributes(size_t smem_max) {
  const void *kernels[12] = {
      (const void *)ldpc_layered_kernel<kNms, false>,   (const void *)ldpc_layered_kernel<kOms, false>,
      (const void *)ldpc_layered_kernel<kNms16, false>, (const void *)ldpc_grouped_kernel<kNms, false>,
      (const void *)ldpc_grouped_kernel<kOms, false>,   (const void *)ldpc_grouped_kernel<kNms16, false>,
      (const void *)ldpc_layered_kernel<kNms, true>,    (const void *)ldpc_layered_kernel<kOms, true>,
      (const void *)ldpc_layered_kernel<kNms16, true>,  (const void *)ldpc_grouped_kernel<kNms, true>,
      (const void *)ldpc_grouped_kernel<kOms, true>,    (const void *)ldpc_grouped_kernel<kNms16, true>};
  for (int k = 0; k < 12; k++)
    if (set_kernel_attributes(kernels[k], smem_max) != 0) return -1;
  if (set_kernel_attributes((const void *)ldpc_bp_kernel, smem_max) != 0) return -1;
  return set_kernel_attributes((const void *)ldpc_pair_kernel, smem_max);
}

/* Bit r set: a barrier after row r, because row r+1 shares a column with
 * row r or with a row after the last barrier before it. */
static unsigned long long row_barriers(const ldpc_base_graph *g) {
  static_assert(LDPC_ROWS_MAX <= 64, "one mask bit a row");
  unsigned long long mask = 0, since = 0; /* since: columns touched after the last barrier */
  for (int r = 0; r < g->rows; r++) {
    unsigned long long cols = 0;
    for (int e = g->row_start[r]; e < g->row_start[r + 1]; e++) cols |= 1ull << g->col[e];
    if (r > 0 && (cols & since)) {
      mask |= 1ull << (r - 1);
      since = 0;
    }
    since |= cols;
  }
  return mask | 1ull << (g->rows - 1);
}

ldpc_gpu_decoder *ldpc_gpu_create(int bg, int z, const ldpc_decoder_config *cfg, ldpc_gpu_msg_place place,
                                  char *err, size_t err_len) {
  ldpc_code code;
  if (ldpc_code_init(&code, bg, z) != 0) {
    snprintf(err, err_len, "ldpc gpu decoder: no code for base graph %d and lifting size %d", bg, z);
    return NULL;
  }
  if (!cfg || cfg->max_iterations < 1 ||
      (cfg->algorithm != LDPC_LAYERED_NMS && cfg->algorithm != LDPC_LAYERED_OMS &&
       cfg->algorithm != LDPC_LAYERED_NMS16 && cfg->algorithm != LDPC_FLOODING_BP) ||
      !(cfg->alpha > 0.0f) ||
      !(cfg->beta >= 0.0f) || (unsigned)place > LDPC_GPU_MSG_GLOBAL) {
    snprintf(err, err_len,
             "ldpc gpu decoder: bad configuration (nms, oms, nms16 or bp; max_iterations >= 1, alpha > 0, "
             "beta >= 0, a message placement)");
    return NULL;
  }
  int dev = 0, optin = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess) {
    snprintf(err, err_len, "ldpc gpu decoder: no usable CUDA device");
    return NULL;
  }
  const int zp = (z + 31) / 32 * 32;
  const ldpc_base_graph *g = code.g;
  if (shared_bytes(g->info_cols + 4, z, zp, 4, 0, llr_bytes(cfg)) > (size_t)optin) {
    snprintf(err, err_len, "ldpc gpu decoder: a Z %d block needs more shared memory than the device's %d bytes", z,
             optin);
    return NULL;
  }
  ldpc_gpu_decoder *d = (ldpc_gpu_decoder *)calloc(1, sizeof *d);
  if (!d) {
    snprintf(err, err_len, "ldpc gpu decoder: out of memory");
    return NULL;
  }
  d->code = code;
  d->cfg = *cfg;
  d->place = place;
  d->zp = zp;
  d->smem_max = (size_t)optin;
  d->kernel = LDPC_GPU_KERNEL_GROUPED;
  d->sync_after = row_barriers(g);
  uint32_t host_tab[kTabWords];
  for (int e = 0; e < g->nnz; e++) {
    host_tab[2 * e] = (uint32_t)code.shift[e];
    host_tab[2 * e + 1] = (uint32_t)(g->col[e] * z * llr_bytes(cfg));
  }
  for (int r = 0; r <= g->rows; r++) host_tab[2 * g->nnz + r] = g->row_start[r];
  /* the syndrome's row order: by degree, lowest first (stable) */
  uint32_t *order = host_tab + 2 * g->nnz + g->rows + 1;
  int n_order = 0;
  for (int deg = 1; deg <= LDPC_ROW_DEGREE_MAX; deg++)
    for (int r = 0; r < g->rows; r++)
      if (g->row_start[r + 1] - g->row_start[r] == deg) order[n_order++] = (uint32_t)r;
  uint32_t *desc = order + g->rows;
  for (int r = 0; r < g->rows; r++)
    desc[r] = (uint32_t)g->row_start[r] |
              (uint32_t)(g->row_start[r + 1] - g->row_start[r]) << kDescDegShift |
              (((d->sync_after >> r) & 1ull) ? kDescSync : 0u);
  const size_t tab_bytes = sizeof(uint32_t) * (size_t)(3 * g->rows + 1 + 2 * g->nnz);
  int pair_ok = 0;
  if (cfg->algorithm == LDPC_LAYERED_NMS16) {
    /* the pair kernel's table: its LLR slots are 4 bytes (two blocks) */
    for (int e = 0; e < g->nnz; e++) host_tab[2 * e + 1] = (uint32_t)(g->col[e] * z * (int)sizeof(uint32_t));
    pair_ok = cudaMalloc(&d->tab_pair, tab_bytes) == cudaSuccess &&
              cudaMemcpy(d->tab_pair, host_tab, tab_bytes, cudaMemcpyHostToDevice) == cudaSuccess;
    for (int e = 0; e < g->nnz; e++) host_tab[2 * e + 1] = (uint32_t)(g->col[e] * z * llr_bytes(cfg));
  }
  if ((cfg->algorithm == LDPC_LAYERED_NMS16 && !pair_ok) || cudaMalloc(&d->tab, tab_bytes) != cudaSuccess ||
      cudaMemcpy(d->tab, host_tab, tab_bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
      set_attributes(d->smem_max) != 0) {
    snprintf(err, err_len, "ldpc gpu decoder: %s", gpu_last_error()[0] ? gpu_last_error() : "CUDA failure");
    ldpc_gpu_destroy(d);
    return NULL;
  }
  /* nms16 with its messages in global memory takes the pair kernel: on the
   * H200 it decodes BG1 Z 384 R 1/2 at 10.05 Gbit/s (10 iterations) against
   * the grouped kernel's 5.67, and BG2 Z 56 R 1/3 at 6.30 against 3.77
   * (BENCHMARKS.md, twelfth session; tests/cuda/ldpc_gpu_speed.cu). */
  if (cfg->algorithm == LDPC_LAYERED_NMS16 && place != LDPC_GPU_MSG_SHARED) d->kernel = LDPC_GPU_KERNEL_PAIR;
  return d;
}

void ldpc_gpu_destroy(ldpc_gpu_decoder *d) {
  if (!d) return;
  cudaFree(d->tab);
  cudaFree(d->tab_pair);
  cudaFree(d->scratch);
  free(d);
}

/* The columns a launch keeps in shared memory: all of them for cols <= 0 or
 * past Nb, never fewer than the core's (rows 0..3 are always decoded). */
static int shared_cols(const ldpc_gpu_decoder *d, int cols) {
  const ldpc_base_graph *g = d->code.g;
  if (cols <= 0 || cols > g->cols) return g->cols;
  return cols < g->info_cols + 4 ? g->info_cols + 4 : cols;
}

/* The pair kernel's shared memory: two blocks' LLRs (4 bytes a slot), the
 * table and two words (its s_last), rounded to 16. */
static size_t pair_shared_bytes(int scols, int z, int zp, int rows_max) {
  return shared_bytes(scols, z, zp, rows_max, 0, (int)sizeof(uint32_t)) + 16;
}

int ldpc_gpu_placement(const ldpc_gpu_decoder *d, int cols) {
  const int scols = shared_cols(d, cols), rows_max = scols - d->code.g->info_cols;
  const int z = d->code.z;
  const int elem = llr_bytes(&d->cfg);
  if (d->kernel == LDPC_GPU_KERNEL_PAIR)
    return pair_shared_bytes(scols, z, d->zp, rows_max) <= d->smem_max ? LDPC_GPU_MSG_GLOBAL : -1;
  const int fits_global = shared_bytes(scols, z, d->zp, rows_max, 0, elem) <= d->smem_max;
  /* flooding BP: its messages are always in global memory */
  if (d->cfg.algorithm == LDPC_FLOODING_BP) return fits_global ? LDPC_GPU_MSG_GLOBAL : -1;
  const int fits_shared = shared_bytes(scols, z, d->zp, rows_max, 1, elem) <= d->smem_max;
  switch (d->place) {
    case LDPC_GPU_MSG_SHARED: return fits_shared ? LDPC_GPU_MSG_SHARED : -1;
    case LDPC_GPU_MSG_GLOBAL: return fits_global ? LDPC_GPU_MSG_GLOBAL : -1;
    default: return fits_global ? LDPC_GPU_MSG_GLOBAL : -1;
  }
}

int ldpc_gpu_decode(ldpc_gpu_decoder *d, const float *llr, int nblocks, int cols, uint8_t *bits,
                    ldpc_decode_result *res, void *stream) {
  if (!d || nblocks < 0 || (nblocks > 0 && (!llr || !bits || !res))) {
    gpu_report_failure(__FILE__, __LINE__, "ldpc_gpu_decode", "bad arguments", "null pointer or nblocks < 0", 0);
    return -1;
  }
  if (nblocks == 0) return 0;
  const ldpc_base_graph *g = d->code.g;
  const int z = d->code.z, zp = d->zp;
  const int scols = shared_cols(d, cols), rows_max = scols - g->info_cols;
  const int place = ldpc_gpu_placement(d, cols);
  if (place < 0) {
    gpu_report_failure(__FILE__, __LINE__, "ldpc_gpu_decode", "too large",
                       "the block does not fit shared memory with this message placement", 0);
    return -1;
  }
  kargs a;
  a.llr = llr;
  a.bits = bits;
  a.res = res;
  a.gmsg = NULL;
  a.tab = d->tab;
  a.scale.alpha = d->cfg.alpha;
  a.scale.beta = d->cfg.beta;
  a.scale.k = ldpc16_scale_k(d->cfg.alpha);
  a.z = z;
  a.zp = zp;
  a.nb = g->cols;
  a.info_cols = g->info_cols;
  a.rows = g->rows;
  a.nnz = g->nnz;
  a.scols = scols;
  a.rows_max = rows_max;
  a.max_iterations = d->cfg.max_iterations;
  a.full_iterations = d->cfg.full_iterations;
  a.nblocks = nblocks;
  const bool pair = d->kernel == LDPC_GPU_KERNEL_PAIR;
  if (pair) a.tab = d->tab_pair;
  const bool bp = d->cfg.algorithm == LDPC_FLOODING_BP;
  if (place == LDPC_GPU_MSG_GLOBAL) {
    /* BP: a float per edge of the rows a block may decode, and lane */
    const size_t need = pair ? sizeof(uint32_t) * kPairRowWords * (size_t)rows_max * zp * (size_t)((nblocks + 1) / 2)
                        : bp ? sizeof(float) * (size_t)g->row_start[rows_max] * zp * (size_t)nblocks
                             : sizeof(uint32_t) * 3 * (size_t)rows_max * zp * (size_t)nblocks;
    if (need > d->scratch_bytes) {
      /* cudaFree waits for the launches still using the old buffer. */
      CUDA_TRY(cudaFree(d->scratch));
      d->scratch = NULL;
      d->scratch_bytes = 0;
      CUDA_TRY(cudaMalloc(&d->scratch, need));
      d->scratch_bytes = need;
    }
    a.gmsg = d->scratch;
  }
  const size_t smem = shared_bytes(scols, z, zp, rows_max, place == LDPC_GPU_MSG_SHARED, llr_bytes(&d->cfg));
  cudaStream_t s = (cudaStream_t)stream;
  if (bp) {
    ldpc_bp_kernel<<<nblocks, zp, smem, s>>>(a);
    CUDA_TRY_LAUNCH("ldpc kernel<bp>");
    return 0;
  }
  if (pair) {
    ldpc_pair_kernel<<<(nblocks + 1) / 2, zp, pair_shared_bytes(scols, z, zp, rows_max), s>>>(a);
    CUDA_TRY_LAUNCH("ldpc pair kernel<nms16>");
    return 0;
  }
  const bool grouped = d->kernel == LDPC_GPU_KERNEL_GROUPED;
  switch (d->cfg.algorithm) {
    case LDPC_LAYERED_OMS:
      if (launch_decoder<kOms>(grouped, nblocks, zp, smem, s, a)) return -1;
      break;
    case LDPC_LAYERED_NMS16:
      if (launch_decoder<kNms16>(grouped, nblocks, zp, smem, s, a)) return -1;
      break;
    default:
      if (launch_decoder<kNms>(grouped, nblocks, zp, smem, s, a)) return -1;
      break;
  }
  return 0;
}

int ldpc_gpu_set_kernel(ldpc_gpu_decoder *d, ldpc_gpu_kernel kernel) {
  if (!d || (kernel != LDPC_GPU_KERNEL_GROUPED && kernel != LDPC_GPU_KERNEL_ROW && kernel != LDPC_GPU_KERNEL_PAIR))
    return -1;
  if (kernel == LDPC_GPU_KERNEL_PAIR && (d->cfg.algorithm != LDPC_LAYERED_NMS16 || d->place == LDPC_GPU_MSG_SHARED))
    return -1;
  d->kernel = kernel;
  return 0;
}

int ldpc_gpu_cols_for(const ratematch_block *p) {
  const int z = p->zc, nb = p->bg == 1 ? 68 : 52;
  const long fillers = p->filler_end > p->filler_begin ? p->filler_end - p->filler_begin : 0;
  const long reach = (long)p->k0 + p->e + fillers;
  const long end = reach < p->ncb ? reach : p->ncb; /* buffer positions [0, end) */
  const long cols = (2L * z + end + z - 1) / z;
  return cols < nb ? (int)cols : nb;
}

}  // extern "C"
