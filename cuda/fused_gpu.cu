/* The fused link: one thread per RE from its draws (or the modem's output) to
 * its bit-error counts, everything in registers and nothing stored on the way
 * but the per-frame, per-stream counters. The per-RE formulas are those of
 * core/re.h, shared with the staged kernels and the CPU, and the algebra is
 * equalizer/smallmat.h. */
#include <stdio.h>

#include "cuda/check.h"
#include "cuda/gpu_internal.cuh"
#include "equalizer/fallback.h"

namespace {

constexpr int kBlock = 256;

/* One RE from its draws to its error counts. An RE whose float inverse is
 * flagged singular is not decided here: it goes on the repair list (batch
 * index f*R_f + m) for repair_kernel, so that this kernel, which runs for
 * every RE, carries none of the double-precision path's registers. */
template <int NT, int NR>
__global__ void __launch_bounds__(kBlock)
    fused_kernel(gpu_link g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ Hk,
                 const cf32 *__restrict__ yt, uint32_t *__restrict__ errors,
                 uint32_t *__restrict__ repair) {
  uint64_t f, m;
  gpu_frame_position(g, &f, &m);
  uint32_t err[NT] = {}; /* zero for threads past the frame's end */
  if (m < g.rf) {
    uint32_t lab[NT];
    cf32 h[NR * NT], yv[NR];
    gpu_re_front<NT, NR>(g, c, Hk, yt, f, m, lab, h, yv);
    cf32 gm[NT * NT], zv[NT], gi[NT * NT], xv[NT];
    mat_gram(NR, NT, h, g.diag, gm);
    mat_herm_mulvec(NR, NT, h, yv, zv);
    mat_inv_herm(NT, gm, gi);
    mat_equalize(NT, gi, zv, g.diag, xv);
    if (eq_flagged(xv[0])) {
      repair[1 + atomicAdd(&repair[0], 1u)] = (uint32_t)(f * g.rf + m);
    } else {
      OFDM_UNROLL
      for (int t = 0; t < NT; t++) err[t] = re_bit_errors(g.bps, xv[t], lab[t]);
    }
  }
  gpu_count_errors<NT>(err, errors + f * NT);
}

/* The listed REs again, equalised in double (equalizer/fallback.h), their
 * errors added to their frame's counters and counted as fallbacks. */
template <int NT, int NR>
__global__ void __launch_bounds__(kBlock)
    repair_kernel(gpu_link g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ Hk,
                  const cf32 *__restrict__ yt, const uint32_t *__restrict__ repair, uint32_t n,
                  uint32_t *__restrict__ errors, uint32_t *__restrict__ fallbacks) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const uint64_t i = repair[1 + k], f = i / g.rf, m = i - f * g.rf;
  uint32_t lab[NT];
  cf32 h[NR * NT], yv[NR], xv[NT];
  gpu_re_front<NT, NR>(g, c, Hk, yt, f, m, lab, h, yv);
  eq_solve_double(NR, NT, h, yv, g.diag, xv, NULL);
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) {
    const uint32_t e = re_bit_errors(g.bps, xv[t], lab[t]);
    if (e) atomicAdd(&errors[f * NT + t], e);
  }
  atomicAdd(&fallbacks[f], 1u);
}

template <int NT, int NR>
struct Fused {
  static int launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                    uint32_t *errors, uint32_t *repair, cudaStream_t s) {
    const int block = gpu_frame_block(g.rf);
    const uint64_t blocks = g.frames * ((g.rf + block - 1) / block);
    fused_kernel<NT, NR><<<(unsigned)blocks, block, 0, s>>>(g, c, Hk, yt, errors, repair);
    CUDA_TRY_LAUNCH("fused_kernel");
    return 0;
  }
};

template <int NT, int NR>
struct Repair {
  static int launch(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                    const uint32_t *repair, uint32_t n, uint32_t *errors, uint32_t *fallbacks,
                    cudaStream_t s) {
    repair_kernel<NT, NR><<<gpu_blocks(n, kBlock), kBlock, 0, s>>>(g, c, Hk, yt, repair, n, errors,
                                                                   fallbacks);
    CUDA_TRY_LAUNCH("repair_kernel");
    return 0;
  }
};

}  // namespace

int gpu_launch_fused(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                     uint32_t *errors, uint32_t *repair, cudaStream_t s) {
  return gpu_dispatch<Fused>(g.tx, g.rx, g, c, Hk, yt, errors, repair, s);
}

int gpu_launch_repair(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                      const uint32_t *repair, uint32_t n, uint32_t *errors, uint32_t *fallbacks,
                      cudaStream_t s) {
  if (n == 0) return 0;
  return gpu_dispatch<Repair>(g.tx, g.rx, g, c, Hk, yt, repair, n, errors, fallbacks, s);
}

