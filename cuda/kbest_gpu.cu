/* K-best on the GPU with a group of kGroup = 16 lanes per RE, for the sizes
 * instantiated below (others run detect_gpu.cu's one-thread-per-RE kernel,
 * which gives the same lists).  A block of kBlock threads takes kBlock REs of
 * one frame in three phases:
 *   1. one thread per RE: the sorted QR (det_sqrd, compile-time sizes, in
 *      registers), R, Q^H y and the permutation into shared memory;
 *   2. each group of 16 lanes searches 16 REs one after the other: per layer
 *      every lane expands its share of the n x M children (lane l takes the
 *      parents l, l + 16, ..., so a parent's interference is computed once)
 *      into registers, and the group selects the K first in K-best's order
 *      (equalizer/detect.h: the key of the metric, then the generation index
 *      g = p*M + c) by a threshold on the 64-bit key (key << GB | g), found by
 *      bisection with group-wide counts (shuffles), then the at most
 *      max(2K, 32) children below the threshold are compacted into shared
 *      memory and placed by a rank count.  The keys are distinct, so the
 *      selection is exact and the list is det_kbest's, entry for entry;
 *      then the max-log LLRs from the final list (one lane per layer and bit);
 *   3. one thread per RE: decisions, errors, GMI losses and the LLR export,
 *      as detect_gpu.cu's joint kernel does them.
 * Every metric is computed by detect.h's helpers in det_kbest's order, so
 * the lists equal the CPU's bit for bit on the same inputs
 * (tests/cuda/test_gpu_kbest.cu checks it). */
#include <stdint.h>

#include "core/backend.h"
#include "cuda/check.h"
#include "cuda/detect_gpu.cuh"
#include "cuda/gpu_internal.cuh"
#include "cuda/joint_gpu.cuh"
#include "equalizer/detect.h"

namespace {

constexpr int kGroup = 16;                     /* lanes per RE */
constexpr int kGroups = kBlock / kGroup;       /* groups per block */
constexpr int kResPerGroup = kBlock / kGroups; /* REs each group searches */
constexpr int kMaxK = 64;                      /* the largest K any instance takes */
constexpr uint32_t kNoRe = 0xffffffffu;        /* perm of a pilot RE or one past the frame */
constexpr uint32_t kInvalidKey = 0xffffffffu;  /* a slot without a child: above every key */

constexpr int log2_ceil(int v) { return v <= 1 ? 0 : 1 + log2_ceil((v + 1) / 2); }

/* The compile-time sizes of an instance. */
template <int NT, int BPS>
struct kb_sizes {
  static constexpr int M = 1 << BPS;
  static constexpr int CPL = M > 16 ? M : 16;                     /* child slots per lane */
  static constexpr int QN = CPL / M;                              /* parents per lane */
  static constexpr int KMAX = kGroup * QN < kMaxK ? kGroup * QN : kMaxK;
  static constexpr int CAND = 2 * KMAX > 32 ? 2 * KMAX : 32;      /* compaction buffer */
  static constexpr int GB = log2_ceil(kGroup * CPL);              /* bits of g */
  static constexpr int HQ = BPS >> 1, HI = BPS - HQ, LI = 1 << HI, LQ = 1 << HQ;
  static constexpr int LMAX = LI > LQ ? LI : LQ;
  static_assert(NT * 8 <= 32, "paths are 32-bit: 8 bits a layer");
};

template <int NT, int BPS>
struct kb_smem {
  using S = kb_sizes<NT, BPS>;
  cf32 r[kBlock][NT * NT];
  cf32 zq[kBlock][NT];
  uint32_t perm[kBlock]; /* layer i's stream in bits 8i..8i+7; kNoRe: nothing to detect */
  uint32_t dec[kBlock];  /* stream t's decision in bits 8t..8t+7 */
  float llr[kBlock][NT * BPS];
  float pm[kGroups][2][S::KMAX];
  uint32_t path[kGroups][2][S::KMAX];
  unsigned long long cand[kGroups][S::CAND];
};

/* Group-wide reductions over the 16 lanes of mask (xor offsets below 16 stay
 * inside the half-warp). */
__device__ __forceinline__ int group_sum(unsigned mask, int v) {
#pragma unroll
  for (int o = 1; o < kGroup; o <<= 1) v += __shfl_xor_sync(mask, v, o);
  return v;
}
__device__ __forceinline__ unsigned long long group_min(unsigned mask, unsigned long long v) {
#pragma unroll
  for (int o = 1; o < kGroup; o <<= 1) {
    const unsigned long long w = __shfl_xor_sync(mask, v, o);
    v = w < v ? w : v;
  }
  return v;
}
__device__ __forceinline__ unsigned long long group_max(unsigned mask, unsigned long long v) {
#pragma unroll
  for (int o = 1; o < kGroup; o <<= 1) {
    const unsigned long long w = __shfl_xor_sync(mask, v, o);
    v = w > v ? w : v;
  }
  return v;
}

/* How many of the group's slots have a key <= t. */
template <int CPL>
__device__ __forceinline__ int count_le(unsigned mask, const unsigned long long *key, unsigned long long t) {
  int c = 0;
#pragma unroll
  for (int j = 0; j < CPL; j++) c += key[j] <= t;
  return group_sum(mask, c);
}

/* Phase 2 for RE e: the search by the group (lane, mask), leaving the
 * decisions in sm.dec[e] and, when soft, the LLRs in sm.llr[e]. */
template <int NT, int BPS>
__device__ __forceinline__ void group_search(kb_smem<NT, BPS> &sm, int grp, int lane, unsigned mask, int e, int K,
                                             int soft, float n0, float clip) {
  using S = kb_sizes<NT, BPS>;
  cf32 r[NT * NT], zq[NT];
#pragma unroll
  for (int x = 0; x < NT * NT; x++) r[x] = sm.r[e][x];
#pragma unroll
  for (int x = 0; x < NT; x++) zq[x] = sm.zq[e][x];
  const float sc = qam_scale(BPS);
  const int cap = 2 * K > 32 ? 2 * K : 32;
  if (lane == 0) {
    sm.pm[grp][0][0] = 0.0f;
    sm.path[grp][0][0] = 0u;
  }
  __syncwarp(mask);
  int n = 1;
#pragma unroll
  for (int ii = 0; ii < NT; ii++) {
    const int i = NT - 1 - ii, cur = ii & 1, nxt = cur ^ 1;
    const float rii = r[i * NT + i].re;
    /* this lane's children: slot q*M + c is child c of parent lane + 16 q,
     * generation index g = (lane + 16 q) M + c; key << GB | g */
    unsigned long long key[S::CPL];
#pragma unroll
    for (int q = 0; q < S::QN; q++) {
      const int p = lane + kGroup * q;
      const uint32_t g0 = (uint32_t)p * (uint32_t)S::M;
      if (p < n) {
        const float base = sm.pm[grp][cur][p];
        const cf32 b = det_kbest_b_(NT, i, S::HQ, S::LI, S::LQ, sc, r, zq, sm.path[grp][cur][p]);
        float sqi[S::LMAX], sqq[S::LMAX];
        det_kbest_sq_(b, rii, S::LI, S::LQ, S::LMAX, sc, sqi, sqq);
#pragma unroll
        for (int c = 0; c < S::M; c++) {
          const uint32_t k = det_key_(base + (sqi[c >> S::HQ] + sqq[c & (S::LQ - 1)]));
          key[q * S::M + c] = ((unsigned long long)k << S::GB) | (g0 + (uint32_t)c);
        }
      } else {
#pragma unroll
        for (int c = 0; c < S::M; c++)
          key[q * S::M + c] = ((unsigned long long)kInvalidKey << S::GB) | (g0 + (uint32_t)c);
      }
    }
    const int N = n * S::M;
    /* the threshold t: at least min(N, K) and at most cap keys <= t */
    unsigned long long t = ((unsigned long long)DET_KEY_NAN << S::GB) | ((1ull << S::GB) - 1ull);
    if (N > K) {
      unsigned long long lmin = key[0], lmax = 0ull;
#pragma unroll
      for (int j = 0; j < S::CPL; j++) {
        lmin = key[j] < lmin ? key[j] : lmin;
        const int valid = (key[j] >> S::GB) != kInvalidKey;
        lmax = valid && key[j] > lmax ? key[j] : lmax;
      }
      /* invariant: fewer than K keys < lo, at least K keys <= hi.  hi starts
       * at the largest of the lanes' minima where at least K lanes hold
       * children (each minimum is a key <= it), else at the largest key. */
      unsigned long long lo = group_min(mask, lmin);
      const int lanes = n < kGroup ? n : kGroup;
      unsigned long long hi = group_max(mask, lanes >= K ? (lane < n ? lmin : 0ull) : lmax);
      int c_hi = count_le<S::CPL>(mask, key, hi);
      while (c_hi > cap) { /* distinct keys: ends at latest when lo == hi (c_hi == K) */
        const unsigned long long mid = lo + ((hi - lo) >> 1);
        const int c = count_le<S::CPL>(mask, key, mid);
        if (c >= K) {
          hi = mid;
          c_hi = c;
        } else {
          lo = mid + 1ull;
        }
      }
      t = hi;
    }
    /* compaction of the keys <= t into sm.cand (any order) */
    int cl = 0;
#pragma unroll
    for (int j = 0; j < S::CPL; j++) cl += key[j] <= t;
    int incl = cl;
#pragma unroll
    for (int o = 1; o < kGroup; o <<= 1) {
      const int v = __shfl_up_sync(mask, incl, o, kGroup);
      incl += lane >= o ? v : 0;
    }
    const int cnt = __shfl_sync(mask, incl, kGroup - 1, kGroup);
    int pos = incl - cl;
#pragma unroll
    for (int j = 0; j < S::CPL; j++)
      if (key[j] <= t) sm.cand[grp][pos++] = key[j];
    __syncwarp(mask);
    /* rank count: a candidate's place is the number of smaller keys; the
     * first K places are the next list */
    for (int a = lane; a < cnt; a += kGroup) {
      const unsigned long long ka = sm.cand[grp][a];
      int rank = 0;
      for (int b = 0; b < cnt; b++) rank += sm.cand[grp][b] < ka;
      if (rank < K) {
        const uint32_t gg = (uint32_t)(ka & ((1ull << S::GB) - 1ull));
        const uint32_t p = gg >> BPS, c = gg & (uint32_t)(S::M - 1);
        sm.pm[grp][nxt][rank] = __uint_as_float((uint32_t)(ka >> S::GB));
        sm.path[grp][nxt][rank] = sm.path[grp][cur][p] | (c << (8 * i));
      }
    }
    n = N < K ? N : K;
    __syncwarp(mask);
  }
  /* the outputs from the final list, as det_kbest's det_output_ */
  const int fin = NT & 1;
  const uint32_t best = sm.path[grp][fin][0], pk = sm.perm[e];
  if (soft) {
    for (int pi = lane; pi < NT * BPS; pi += kGroup) {
      const int i = pi / BPS, k = pi - i * BPS;
      float a0 = INFINITY, a1 = INFINITY;
      for (int x = 0; x < n; x++) {
        const float v = sm.pm[grp][fin][x];
        const int one = (int)((sm.path[grp][fin][x] >> (8 * i + k)) & 1u);
        a1 = det_min_if_(one, v, a1);
        a0 = det_min_if_(!one, v, a0);
      }
      const int t = (int)((pk >> (8 * i)) & 0xffu);
      sm.llr[e][t * BPS + k] = det_llr_(a0, a1, (int)((best >> (8 * i + k)) & 1u), n0, clip);
    }
  }
  if (lane == 0) {
    uint32_t d = 0u;
#pragma unroll
    for (int i = 0; i < NT; i++) d |= ((best >> (8 * i)) & 0xffu) << (8 * ((pk >> (8 * i)) & 0xffu));
    sm.dec[e] = d;
  }
  __syncwarp(mask); /* the lists are the next RE's */
}

template <int NT, int NR, int BPS>
__global__ void __launch_bounds__(kBlock) kbest_kernel(gpu_link g, gpu_stacks st, gpu_detect_out out) {
  __shared__ kb_smem<NT, BPS> sm;
  __shared__ uint32_t block_err[NT];
  __shared__ unsigned long long block_loss[NT], block_grid[GMI_GRID];
  static_assert(sizeof(kb_smem<NT, BPS>) + GMI_GRID * 8 + NT * 12 <= 48 * 1024, "static shared memory");
  uint64_t f, m;
  gpu_frame_position(g, &f, &m);
  const int tid = threadIdx.x;
  if (tid < NT) {
    block_err[tid] = 0;
    block_loss[tid] = 0;
  }
  if (tid < GMI_GRID) block_grid[tid] = 0;
  const uint64_t i = f * g.rf + m;
  const int active = m < g.rf && pilot_antenna(&g.re.pilots, m) < 0;
  /* 1. the sorted QR, one thread per RE */
  if (active) {
    cf32 h[NR * NT], yv[NR];
#pragma unroll
    for (int x = 0; x < NR * NT; x++) h[x] = gpu_load(st.Hhat + (size_t)x * g.R + i);
#pragma unroll
    for (int x = 0; x < NR; x++) yv[x] = gpu_load(st.y + (size_t)x * g.R + i);
    cf32 r[MAT_MAX_N * MAT_MAX_N], zq[MAT_MAX_N];
    int perm[MAT_MAX_N];
    (void)det_sqrd(NR, NT, h, yv, perm, r, zq);
    uint32_t pk = 0u;
#pragma unroll
    for (int x = 0; x < NT; x++) {
      sm.zq[tid][x] = zq[x];
      pk |= (uint32_t)perm[x] << (8 * x);
    }
#pragma unroll
    for (int x = 0; x < NT * NT; x++) sm.r[tid][x] = r[x];
    sm.perm[tid] = pk;
  } else {
    sm.perm[tid] = kNoRe;
  }
  __syncthreads();
  /* 2. the searches, a group per RE */
  const int soft = g.llr != LLR_OFF;
  {
    const int grp = tid / kGroup, lane = tid % kGroup;
    const unsigned mask = 0xffffu << (tid & 16);
    for (int it = 0; it < kResPerGroup; it++) {
      const int e = grp * kResPerGroup + it;
      if (sm.perm[e] == kNoRe) continue; /* the same for the whole group */
      group_search<NT, BPS>(sm, grp, lane, mask, e, g.kbest_k, soft, g.n0r, g.llr_clip);
    }
  }
  __syncthreads();
  /* 3. decisions, errors and soft outputs, one thread per RE */
  if (m < g.rf && !active) {
    joint_re_outputs(g, st, out, f, m, NT, NULL, NULL, block_err, block_loss, block_grid);
  } else if (active) {
    uint32_t dec[NT];
#pragma unroll
    for (int t = 0; t < NT; t++) dec[t] = (sm.dec[tid] >> (8 * t)) & 0xffu;
    joint_re_outputs(g, st, out, f, m, NT, dec, soft ? sm.llr[tid] : NULL, block_err, block_loss, block_grid);
  }
  __syncthreads();
  joint_block_flush(out, f, NT, block_err, block_loss, block_grid);
}

template <int NT, int NR, int BPS>
int launch(const gpu_link &g, const gpu_stacks &st, const gpu_detect_out &out, cudaStream_t s) {
  if (g.kbest_k < 1 || g.kbest_k > kb_sizes<NT, BPS>::KMAX) return 1;
  const uint64_t blocks = g.frames * ((g.rf + kBlock - 1) / kBlock);
  kbest_kernel<NT, NR, BPS><<<(unsigned)blocks, kBlock, 0, s>>>(g, st, out);
  CUDA_TRY_LAUNCH("kbest_kernel");
  return 0;
}

}  // namespace

/* The instances: 2x2 and 4x4 in BPSK to 64-QAM, K up to kb_sizes::KMAX
 * (64 for BPSK and QPSK, 16 for 16- and 64-QAM). */
#define OFDMSIM_KBEST_GPU_SHAPES(X) \
  X(2, 2, 1) X(2, 2, 2) X(2, 2, 4) X(2, 2, 6) X(4, 4, 1) X(4, 4, 2) X(4, 4, 4) X(4, 4, 6)

int gpu_kbest_group_covers(int tx, int rx, int bps, int k) {
#define OFDMSIM_KB_COVERS(nt, nr, b) \
  if (tx == nt && rx == nr && bps == b) return k >= 1 && k <= kb_sizes<nt, b>::KMAX;
  OFDMSIM_KBEST_GPU_SHAPES(OFDMSIM_KB_COVERS)
#undef OFDMSIM_KB_COVERS
  return 0;
}

int gpu_launch_kbest_group(const gpu_link &g, const gpu_stacks &st, const gpu_detect_out &out, cudaStream_t s) {
#define OFDMSIM_KB_LAUNCH(nt, nr, b) \
  if (g.tx == nt && g.rx == nr && g.bps == b) return launch<nt, nr, b>(g, st, out, s);
  OFDMSIM_KBEST_GPU_SHAPES(OFDMSIM_KB_LAUNCH)
#undef OFDMSIM_KB_LAUNCH
  return 1;
}
