/* The time-domain link on the GPU, channel/ofdm.c's ofdm_modem_frame for a
 * whole batch at once: per transmit antenna and symbol a unitary IFFT (batched
 * cuFFT) and a cyclic prefix, linear convolution of the frame's sample stream
 * (zeros before the frame) with the taps, RNG_TDNOISE noise, CP removal and a
 * unitary FFT (batched cuFFT). The CP is never stored: the convolution reads
 * the IFFT output through the CP's index map. Also the chunked cuFFT plan sets
 * the tdl response uses. */
#include <stdio.h>
#include <string.h>

#include "cuda/check.h"
#include "cuda/gpu_internal.cuh"

namespace {

constexpr int kBlock = 256;

/* x of the batch into the frame-major IFFT input, from the staged stack or
 * drawn here (labels and Gray mapping, the receiver redraws the labels). */
template <int NT>
__global__ void __launch_bounds__(kBlock)
    modem_prepare_kernel(gpu_link g, const cf32 *__restrict__ x_soa, cf32 *__restrict__ xt) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= g.R) return;
  const uint64_t f = i / g.rf, m = i - f * g.rf;
  cf32 x[NT];
  if (x_soa) {
    OFDM_UNROLL
    for (int t = 0; t < NT; t++) x[t] = gpu_load(x_soa + (size_t)t * g.R + i);
  } else {
    uint32_t lab[NT];
    re_labels(g.re, g.first_frame + f, m, NT, lab);
    re_symbols(g.re, m, NT, lab, x);
  }
  OFDM_UNROLL
  for (int t = 0; t < NT; t++) gpu_store(xt + (f * NT + t) * g.rf + m, x[t]);
}

/* Sample n of antenna t's transmitted stream in frame f: the IFFT output
 * behind the CP's index map, times the unitary scale (ofdm.c's transmit). */
__device__ __forceinline__ cf32 sent_sample(const gpu_link &g, const cf32 *xt_frame, int t,
                                            uint64_t n) {
  const uint64_t span = (uint64_t)g.K + g.cp;
  const uint64_t sym = n / span;
  const int j = (int)(n - sym * span);
  const int k = j < g.cp ? g.K - g.cp + j : j - g.cp;
  return cf_scale(gpu_load(xt_frame + (uint64_t)t * g.rf + sym * g.K + k), g.td_scale);
}

/* Doppler: the pair's rows of sample n, tap by tap as ofdm.c's
 * fading_channel: the taps of every antenna pair at n, each stream through
 * the tap's interpolator, z[r] += h_rt u_t. */
__device__ __forceinline__ void fading_sample(const gpu_link &g, const gpu_consts *c, const sos_term *sos,
                                              const cf32 *xt_frame, uint64_t n, int r0, cf32 *z) {
  cf32 h[LINK_MAX_RX * LINK_MAX_TX];
  for (int l = 0; l < g.L; l++) {
    tdl_fading_taps(g.fade, &c->spatial, sos, l, c->amp[l], (double)n, 0, h);
    for (int t = 0; t < g.tx; t++) {
      cf32 u = cf_make(0.0f, 0.0f);
      for (int i = 0; i < c->tap_count[l]; i++) {
        const uint64_t d = (uint64_t)(c->tap_first[l] + i);
        if (d <= n) u = cf_fma_real(u, c->tap_coef[l][i], sent_sample(g, xt_frame, t, n - d));
      }
      for (int r = r0; r < r0 + 2 && r < g.rx; r++) z[r - r0] = cf_fma(z[r - r0], h[r * g.tx + t], u);
    }
  }
}

/* One thread a (frame, receive pair, kept sample): the samples of receive
 * antennas 2p and 2p+1 share one noise draw (RNG_TDNOISE index p*N_f + n).
 * Kept sample k of a symbol is the window's sample (k + shift) mod K: the
 * rotation that takes the taps' bulk delay out (tdl_grid.h). */
__global__ void __launch_bounds__(kBlock)
    modem_channel_kernel(gpu_link g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ xt, gpu_tdl t,
                         cf32 *__restrict__ yt) {
  const int pairs = (g.rx + 1) / 2;
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.frames * (uint64_t)pairs * g.rf) return;
  const uint64_t m = j % g.rf, fp = j / g.rf;
  const uint64_t f = fp / pairs;
  const int p = (int)(fp - f * pairs);
  const uint64_t sym = m / g.K, k = (m - sym * g.K + (uint64_t)g.td_shift) % g.K;
  const uint64_t n = sym * ((uint64_t)g.K + g.cp) + g.cp + k; /* CP removal */
  const cf32 *xt_frame = xt + f * (uint64_t)g.tx * g.rf;
  rng_words w = {{0u, 0u, 0u, 0u}};
  if (g.noise_std > 0.0f) w = re_draw(g.re, RNG_TDNOISE, g.first_frame + f, (uint64_t)p * g.nf + n);
  cf32 z[2] = {cf_make(0.0f, 0.0f), cf_make(0.0f, 0.0f)};
  if (g.model == CH_AWGN) {
    for (int r = 2 * p; r < 2 * p + 2 && r < g.rx; r++)
      if (r < g.tx) z[r - 2 * p] = sent_sample(g, xt_frame, r, n);
  } else if (g.fading) {
    fading_sample(g, c, t.sos + f * (uint64_t)g.links * g.L * TDL_SOS_TERMS, xt_frame, n, 2 * p, z);
  } else {
    /* ofdm.c's order: the sum over streams, within each over the discrete taps. */
    for (int r = 2 * p; r < 2 * p + 2 && r < g.rx; r++) {
      const cf32 *h = t.dtaps + (f * g.links + (uint64_t)r * g.tx) * g.td_taps;
      for (int tt = 0; tt < g.tx; tt++)
        for (int i = 0; i < g.td_taps; i++) {
          const uint64_t d = (uint64_t)__ldg(t.td_delay + i);
          if (d <= n) z[r - 2 * p] = cf_fma(z[r - 2 * p], h[tt * g.td_taps + i], sent_sample(g, xt_frame, tt, n - d));
        }
    }
  }
  for (int r = 2 * p; r < 2 * p + 2 && r < g.rx; r++) {
    cf32 v = z[r - 2 * p];
    if (g.noise_std > 0.0f) v = cf_add(v, cf_scale(rng_cnormal_of(w, r & 1), g.noise_std));
    /* The FFT's unitary scale, applied before it (the transform is linear). */
    gpu_store(yt + (f * g.rx + r) * g.rf + m, cf_scale(v, g.td_scale));
  }
}

__global__ void __launch_bounds__(kBlock)
    frame_to_soa_kernel(gpu_link g, int A, const cf32 *__restrict__ fm, cf32 *__restrict__ soa) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.R * (uint64_t)A) return;
  const uint64_t a = j / g.R, i = j - a * g.R;
  const uint64_t f = i / g.rf, m = i - f * g.rf;
  gpu_store(soa + j, gpu_load(fm + (f * A + a) * g.rf + m));
}

int fft_bad_argument(int line, const char *why) {
  gpu_report_failure(__FILE__, line, "gpu_fft_set", "invalid argument", why, 0);
  return -1;
}

}  // namespace

int gpu_launch_modem_prepare(const gpu_link &g, const cf32 *x_soa, cf32 *xt, cudaStream_t s) {
  const unsigned blocks = gpu_blocks(g.R, kBlock);
  switch (g.tx) {
    case 1: modem_prepare_kernel<1><<<blocks, kBlock, 0, s>>>(g, x_soa, xt); break;
    case 2: modem_prepare_kernel<2><<<blocks, kBlock, 0, s>>>(g, x_soa, xt); break;
    case 3: modem_prepare_kernel<3><<<blocks, kBlock, 0, s>>>(g, x_soa, xt); break;
    case 4: modem_prepare_kernel<4><<<blocks, kBlock, 0, s>>>(g, x_soa, xt); break;
    case 5: modem_prepare_kernel<5><<<blocks, kBlock, 0, s>>>(g, x_soa, xt); break;
    case 6: modem_prepare_kernel<6><<<blocks, kBlock, 0, s>>>(g, x_soa, xt); break;
    case 7: modem_prepare_kernel<7><<<blocks, kBlock, 0, s>>>(g, x_soa, xt); break;
    default: modem_prepare_kernel<8><<<blocks, kBlock, 0, s>>>(g, x_soa, xt); break;
  }
  CUDA_TRY_LAUNCH("modem_prepare_kernel");
  return 0;
}

int gpu_launch_modem_channel(const gpu_link &g, const gpu_consts *c, const cf32 *xt, const gpu_tdl &t, cf32 *yt,
                             cudaStream_t s) {
  const uint64_t work = g.frames * (uint64_t)((g.rx + 1) / 2) * g.rf;
  modem_channel_kernel<<<gpu_blocks(work, kBlock), kBlock, 0, s>>>(g, c, xt, t, yt);
  CUDA_TRY_LAUNCH("modem_channel_kernel");
  return 0;
}

int gpu_launch_frame_to_soa(const gpu_link &g, int A, const cf32 *fm, cf32 *soa, cudaStream_t s) {
  frame_to_soa_kernel<<<gpu_blocks(g.R * (uint64_t)A, kBlock), kBlock, 0, s>>>(g, A, fm, soa);
  CUDA_TRY_LAUNCH("frame_to_soa_kernel");
  return 0;
}

/* ---- batched transforms over whole frames -------------------------------- */

int gpu_fft_set_create(gpu_fft_set *f, int K, int per_frame, int direction, uint64_t max_frames,
                       size_t *work_bytes) {
  memset(f, 0, sizeof *f);
  f->K = K;
  f->per_frame = per_frame;
  f->direction = direction;
  *work_bytes = 0;
  if (K < 1 || per_frame < 1 || max_frames < 1)
    return fft_bad_argument(__LINE__, "empty transform set");
  while (f->levels < 40 && (1ull << f->levels) <= max_frames) f->levels++;
  long long n = K;
  for (int j = 0; j < f->levels; j++) {
    const long long batch = (long long)per_frame << j;
    size_t work = 0;
    CUFFT_TRY(cufftCreate(&f->plan[j]));
    f->made[j] = 1;
    /* The backend owns one work area for every plan (they run one after
     * another on its stream), so no plan allocates its own. */
    CUFFT_TRY(cufftSetAutoAllocation(f->plan[j], 0));
    CUFFT_TRY(cufftMakePlanMany64(f->plan[j], 1, &n, NULL, 1, n, NULL, 1, n, CUFFT_C2C, batch,
                                  &work));
    if (work > *work_bytes) *work_bytes = work;
  }
  return 0;
}

int gpu_fft_set_attach(gpu_fft_set *f, void *work, cudaStream_t s) {
  for (int j = 0; j < f->levels; j++) {
    CUFFT_TRY(cufftSetWorkArea(f->plan[j], work));
    CUFFT_TRY(cufftSetStream(f->plan[j], s));
  }
  return 0;
}

int gpu_fft_set_exec(gpu_fft_set *f, cf32 *d, uint64_t frames) {
  if (frames >> f->levels) return fft_bad_argument(__LINE__, "more frames than planned for");
  uint64_t done = 0;
  for (int j = f->levels - 1; j >= 0; j--) {
    if (!((frames >> j) & 1)) continue;
    cufftComplex *p = reinterpret_cast<cufftComplex *>(d + done * f->per_frame * f->K);
    CUFFT_TRY(cufftExecC2C(f->plan[j], p, p, f->direction));
    done += 1ull << j;
  }
  return 0;
}

void gpu_fft_set_destroy(gpu_fft_set *f) {
  for (int j = 0; j < 40; j++)
    if (f->made[j]) cufftDestroy(f->plan[j]);
  memset(f, 0, sizeof *f);
}
