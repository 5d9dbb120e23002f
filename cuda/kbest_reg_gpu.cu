/* K-best on the GPU with both lists in registers, one thread per RE, for the
 * sizes instantiated below at K = 16 (others take kbest_gpu.cu's lane groups
 * or detect_gpu.cu's thread kernel; OFDMSIM_GPU_JOINT picks between them for
 * measurements, joint_gpu.cuh).
 *
 * It is det_kbest (equalizer/detect.h) step for step, with the compile-time
 * sizes that keep every array in registers:
 *   - the sorted QR, b_i and the per-dimension squares by detect.h's helpers,
 *     so every metric has det_kbest's bits;
 *   - the survivors as K keys (det_key_ of the metric: the metric's bits, one
 *     NaN) and K paths, sorted; an empty slot holds kEmpty, above every key,
 *     so "the list is full and the child is not before its last entry" is
 *     the one test !(key < last key);
 *   - a child goes in by a compare-select network over the K slots that
 *     places it behind the entries of equal key: det_insert_'s place, so
 *     children taken in generation order give det_insert_'s list;
 *   - skipped, because det_kbest would insert none of them: a parent whose
 *     own key is not below the last key once the list is full (its children
 *     cost base + (sq_I + sq_Q) >= base, float addition being monotone, and
 *     NaN children have the largest key), and with it every later parent
 *     (the parents are sorted); a child not below the last key when its
 *     parent starts (the last key only falls).
 * The metric of an entry is read back from its key (__uint_as_float): the
 * same bits except for NaN payloads, which no metric or LLR depends on
 * (det_min_if_ never takes a NaN, a NaN base gives NaN children).
 * tests/cuda/test_gpu_kbest.cu checks lists, decisions and LLRs against
 * det_kbest bit for bit, ties and NaN included.
 *
 * Why registers and one thread: per child the work is an addition and a
 * compare; the selection is the insertion network (about 5 instructions a
 * slot) for the few children that beat the last entry, and the parent
 * pruning ends a layer after the first few parents at useful SNRs. The lane
 * groups of kbest_gpu.cu spend most of their time in shuffles, bisection
 * rounds and shared-memory rank counts instead. */
#include <stdint.h>

#include "core/backend.h"
#include "cuda/check.h"
#include "cuda/detect_gpu.cuh"
#include "cuda/gpu_internal.cuh"
#include "cuda/joint_gpu.cuh"
#include "equalizer/detect.h"

namespace {

constexpr uint32_t kEmpty = 0xffffffffu; /* an empty slot: above every key (<= DET_KEY_NAN) */

/* Inserts (kv, pv) into the sorted list (key, path) of K slots behind the
 * entries of equal key; the last entry drops out. Slot j takes slot j-1's
 * entry where kv < key[j-1], the new one where key[j-1] <= kv < key[j]. */
template <int K>
__device__ __forceinline__ void reg_insert(uint32_t *key, uint32_t *path, uint32_t kv, uint32_t pv) {
#pragma unroll
  for (int j = K - 1; j >= 0; j--) {
    const bool here = kv < key[j];
    const bool shift = j > 0 && kv < key[j > 0 ? j - 1 : 0];
    key[j] = shift ? key[j > 0 ? j - 1 : 0] : here ? kv : key[j];
    path[j] = shift ? path[j > 0 ? j - 1 : 0] : here ? pv : path[j];
  }
}

/* det_kbest at compile-time sizes with the lists in registers: decisions in
 * lab, max-log LLRs in llr (NULL: none). */
template <int NT, int NR, int BPS, int K>
__device__ __forceinline__ void kbest_reg(const cf32 *h, const cf32 *y, float n0, float clip, uint32_t *lab,
                                          float *llr) {
  constexpr int M = 1 << BPS, HQ = BPS >> 1, HI = BPS - HQ, LI = 1 << HI, LQ = 1 << HQ;
  constexpr int LMAX = LI > LQ ? LI : LQ;
  static_assert(NT * 8 <= 32, "paths are 32-bit: 8 bits a layer");
  static_assert(K >= 1 && K <= LINK_MAX_KBEST, "K");
  cf32 r[MAT_MAX_N * MAT_MAX_N], zq[MAT_MAX_N];
  int perm[MAT_MAX_N];
  (void)det_sqrd(NR, NT, h, y, perm, r, zq);
  const float sc = qam_scale(BPS);

  uint32_t ck[K], cp[K]; /* the parents: keys and paths, sorted */
#pragma unroll
  for (int j = 0; j < K; j++) {
    ck[j] = kEmpty;
    cp[j] = 0u;
  }
  ck[0] = det_key_(0.0f); /* the root: metric 0, nothing decided */
  int n = 1;
#pragma unroll
  for (int ii = 0; ii < NT; ii++) {
    const int i = NT - 1 - ii;
    const float rii = r[i * NT + i].re;
    uint32_t nk[K], np[K]; /* the children kept */
#pragma unroll
    for (int j = 0; j < K; j++) {
      nk[j] = kEmpty;
      np[j] = 0u;
    }
    for (int p = 0; p < n; p++) {
      const uint32_t pk = ck[0], pp = cp[0];
#pragma unroll
      for (int j = 0; j + 1 < K; j++) { /* the next parent to the front */
        ck[j] = ck[j + 1];
        cp[j] = cp[j + 1];
      }
      ck[K - 1] = kEmpty;
      if (!(pk < nk[K - 1])) break; /* this parent and every later one: nothing enters */
      const float base = __uint_as_float(pk);
      const cf32 b = det_kbest_b_(NT, i, HQ, LI, LQ, sc, r, zq, pp);
      float sqi[LMAX], sqq[LMAX];
      det_kbest_sq_(b, rii, LI, LQ, LMAX, sc, sqi, sqq);
      uint32_t kc[M];
      uint32_t want = 0u; /* the children below the last key now */
#pragma unroll
      for (int c = 0; c < M; c++) {
        kc[c] = det_key_(base + (sqi[c >> HQ] + sqq[c & (LQ - 1)]));
        want |= (uint32_t)(kc[c] < nk[K - 1]) << c;
      }
      while (want) { /* in generation order */
        const int c = __ffs(want) - 1;
        want &= want - 1u;
        uint32_t kv = 0u;
#pragma unroll
        for (int x = 0; x < M; x++) kv = x == c ? kc[x] : kv;
        if (kv < nk[K - 1]) reg_insert<K>(nk, np, kv, pp | ((uint32_t)c << (8 * i)));
      }
    }
    n = n * M < K ? n * M : K;
#pragma unroll
    for (int j = 0; j < K; j++) {
      ck[j] = nk[j];
      cp[j] = np[j];
    }
  }

  /* max-log over the final list, per layer and bit, as det_kbest */
  float m0[MAT_MAX_N * DET_MAX_BPS], m1[MAT_MAX_N * DET_MAX_BPS];
#pragma unroll
  for (int e = 0; e < MAT_MAX_N * DET_MAX_BPS; e++) m0[e] = m1[e] = INFINITY;
  if (llr) {
#pragma unroll
    for (int e = 0; e < K; e++) {
      if (e >= n) break;
      const float v = __uint_as_float(ck[e]);
#pragma unroll
      for (int i = 0; i < NT; i++) {
        const uint32_t lb = (cp[e] >> (8 * i)) & 0xffu;
#pragma unroll
        for (int k = 0; k < BPS; k++) {
          const int one = (int)((lb >> k) & 1u);
          m1[i * DET_MAX_BPS + k] = det_min_if_(one, v, m1[i * DET_MAX_BPS + k]);
          m0[i * DET_MAX_BPS + k] = det_min_if_(!one, v, m0[i * DET_MAX_BPS + k]);
        }
      }
    }
  }
  uint32_t bl[MAT_MAX_N];
#pragma unroll
  for (int i = 0; i < NT; i++) bl[i] = (cp[0] >> (8 * i)) & 0xffu;
  det_output_(NT, BPS, DET_MAX_BPS, perm, bl, m0, m1, n0, clip, lab, llr);
}

template <int NT, int NR, int BPS, int K>
__global__ void __launch_bounds__(kBlock) kbest_reg_kernel(gpu_link g, gpu_stacks st, gpu_detect_out out) {
  __shared__ uint32_t block_err[NT];
  __shared__ unsigned long long block_loss[NT], block_grid[GMI_GRID];
  uint64_t f, m;
  gpu_frame_position(g, &f, &m);
  if (threadIdx.x < NT) {
    block_err[threadIdx.x] = 0;
    block_loss[threadIdx.x] = 0;
  }
  if (threadIdx.x < GMI_GRID) block_grid[threadIdx.x] = 0;
  __syncthreads();
  const int soft = g.llr != LLR_OFF;
  if (m < g.rf && pilot_antenna(&g.re.pilots, m) >= 0) {
    joint_re_outputs(g, st, out, f, m, NT, NULL, NULL, block_err, block_loss, block_grid);
  } else if (m < g.rf) {
    const uint64_t i = f * g.rf + m;
    cf32 h[NR * NT], yv[NR];
#pragma unroll
    for (int e = 0; e < NR * NT; e++) h[e] = gpu_load(st.Hhat + (size_t)e * g.R + i);
#pragma unroll
    for (int e = 0; e < NR; e++) yv[e] = gpu_load(st.y + (size_t)e * g.R + i);
    uint32_t dec[NT];
    float llr[NT * BPS];
    kbest_reg<NT, NR, BPS, K>(h, yv, g.n0r, g.llr_clip, dec, soft ? llr : NULL);
    joint_re_outputs(g, st, out, f, m, NT, dec, soft ? llr : NULL, block_err, block_loss, block_grid);
  }
  __syncthreads();
  joint_block_flush(out, f, NT, block_err, block_loss, block_grid);
}

}  // namespace

/* The instances: the issue's K-best cases (2x2 and 4x4, QPSK and 16-QAM)
 * at K = 16, the K of Sionna's comparison. */
#define OFDMSIM_KBEST_REG_SHAPES(X) X(2, 2, 2, 16) X(2, 2, 4, 16) X(4, 4, 2, 16) X(4, 4, 4, 16)

int gpu_kbest_reg_covers(int tx, int rx, int bps, int k) {
#define OFDMSIM_KR_COVERS(nt, nr, b, kk) \
  if (tx == nt && rx == nr && bps == b && k == kk) return 1;
  OFDMSIM_KBEST_REG_SHAPES(OFDMSIM_KR_COVERS)
#undef OFDMSIM_KR_COVERS
  return 0;
}

int gpu_launch_kbest_reg(const gpu_link &g, const gpu_stacks &st, const gpu_detect_out &out, cudaStream_t s) {
  const uint64_t blocks = g.frames * ((g.rf + kBlock - 1) / kBlock);
#define OFDMSIM_KR_LAUNCH(nt, nr, b, kk)                                          \
  if (g.tx == nt && g.rx == nr && g.bps == b && g.kbest_k == kk) {                \
    kbest_reg_kernel<nt, nr, b, kk><<<(unsigned)blocks, kBlock, 0, s>>>(g, st, out); \
    CUDA_TRY_LAUNCH("kbest_reg_kernel");                                          \
    return 0;                                                                     \
  }
  OFDMSIM_KBEST_REG_SHAPES(OFDMSIM_KR_LAUNCH)
#undef OFDMSIM_KR_LAUNCH
  return 1;
}
