/* The time-domain link on the GPU, channel/ofdm.c's ofdm_modem_frame for a
 * whole batch at once: per transmit antenna and symbol a unitary IFFT (batched
 * cuFFT) and a cyclic prefix, linear convolution of the frame's sample stream
 * (zeros before the frame) with the taps, RNG_TDNOISE noise, CP removal and a
 * unitary FFT (batched cuFFT). The CP is never stored: the convolution reads
 * the IFFT output through the CP's index map. Also the chunked cuFFT plan sets
 * the tdl response uses.
 *
 * The CP-aligned transform path. Where the taps are fixed over the frame and
 * the last one's delay D is at most the CP, every kept sample's convolution
 * reads only its own symbol's span, CP included, and the CP makes that span
 * periodic: the window's convolution is circular, and after the receiver's
 * FFT it is exactly the product of the taps' response and the symbol
 * (circular convolution theorem; the window rotation and both unitary scales
 * included, that response is the receiver's perfect CSI Hk, tdl_grid.h). So
 * the receiver's FFT of (convolution + noise) equals Hk x + FFT(noise), and
 * the GPU computes it that way: the noise kernel below draws the same
 * RNG_TDNOISE words into the FFT input, the FFT transforms them, and the fused
 * kernels add Hk x (YSRC_NOISE). Equal up to float rounding to the
 * sample-by-sample path (overlap-save with the CP as the overlap), without the
 * IFFT, the convolution and the symbols' round trip through memory. Taps that
 * reach past the CP (inter-symbol interference) or fade within the frame take
 * the sample-by-sample path, and so does the staged mode (the CPU's stages). */
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

/* Doppler: one thread a (frame, segment, tap), the cubics of every antenna
 * pair of that tap on that segment (channel/tap_poly.h), as ofdm.c's
 * fading_channel makes them. */
__global__ void __launch_bounds__(kBlock)
    modem_poly_kernel(gpu_link g, const gpu_consts *__restrict__ c, const sos_term *__restrict__ sos,
                      cf32 *__restrict__ poly) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.frames * g.poly_segs * (uint64_t)g.L) return;
  const int l = (int)(j % (uint64_t)g.L);
  const uint64_t fs = j / (uint64_t)g.L, f = fs / g.poly_segs, seg = fs - f * g.poly_segs;
  const double tc = tap_poly_centre(seg, g.poly_len);
  cf32 *out = poly + j * (uint64_t)g.links * TAP_POLY_COEFS;
  const sos_term *terms = sos + f * g.fade_terms;
  if (g.cdl) cdl_poly_taps((const float *)terms, g.L, g.links, l, tc, out);
  else tdl_poly_taps(g.fade, &c->spatial, terms, l, c->amp[l], tc, out);
}

/* Doppler: the pair's rows of sample n, tap by tap as ofdm.c's
 * fading_channel: the taps of rows r0, r0+1 at n from their cubics on n's
 * segment, each stream through the tap's interpolator, z[r] += h_rt u_t. */
__device__ __forceinline__ void fading_sample(const gpu_link &g, const gpu_consts *c, const cf32 *poly_frame,
                                              const cf32 *xt_frame, uint64_t n, int r0, cf32 *z) {
  const uint64_t seg = n / (uint64_t)g.poly_len;
  const float tau = tap_poly_tau(n, g.poly_len);
  const cf32 *ps = poly_frame + seg * (uint64_t)g.L * g.links * TAP_POLY_COEFS;
  for (int l = 0; l < g.L; l++) {
    const cf32 *pl = ps + (uint64_t)l * g.links * TAP_POLY_COEFS;
    for (int t = 0; t < g.tx; t++) {
      cf32 u = cf_make(0.0f, 0.0f);
      for (int i = 0; i < c->tap_count[l]; i++) {
        const uint64_t d = (uint64_t)(c->tap_first[l] + i);
        if (d <= n) u = cf_fma_real(u, c->tap_coef[l][i], sent_sample(g, xt_frame, t, n - d));
      }
      for (int r = r0; r < r0 + 2 && r < g.rx; r++) {
        const cf32 *pe = pl + (uint64_t)(r * g.tx + t) * TAP_POLY_COEFS;
        cf32 cc[TAP_POLY_COEFS];
        OFDM_UNROLL
        for (int k = 0; k < TAP_POLY_COEFS; k++) cc[k] = gpu_load(pe + k);
        z[r - r0] = cf_fma_exact(z[r - r0], tap_poly_eval(cc, tau), u);
      }
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
    fading_sample(g, c, t.poly + f * g.poly_segs * g.L * g.links * TAP_POLY_COEFS, xt_frame, n, 2 * p, z);
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

/* The convolution of modem_channel_kernel for fixed discrete taps, tiled
 * through shared memory (the common case: tdl without Doppler). A block takes
 * kConvBlock * S consecutive window positions w of one symbol of one frame,
 * thread x the positions w0 + x + s * kConvBlock (s < S: a warp's
 * shared-memory reads stay consecutive), for every receive antenna. It stages
 * once what all its outputs read:
 *   xs[t][q]  the transmitted samples n = nbase + w0 - D + q of each stream
 *             (the CP's index map and the unitary scale applied, zeros
 *             outside the frame), D the last tap's delay;
 *   hs[(t*T + i)*NR + r]  the frame's discrete taps h_rt[i], the NR rows of a
 *             tap together (one 16-byte broadcast read serves two rows);
 *   ds[i]     the delays.
 * Each output then sums h_rt[i] x_t[n - d_i] over t, within it over i, in
 * ofdm.c's order: the values of the untiled kernel (a staged zero adds an
 * exact zero where that one skips the term), and the same noise words.
 * Per tap and stream a thread reads S samples and NR/2 tap pairs for S*NR
 * complex multiply-adds, so S grows as NR shrinks (registers: 2 S NR floats). */
constexpr int kConvBlock = 128;

template <int NR>
struct conv_shape {
  static constexpr int S = NR <= 4 ? 4 : NR <= 8 ? 2 : 1; /* samples a thread */
  static constexpr int tile = kConvBlock * S;
};

/* Window sample w of symbol sym (sample n of frame f) at the receive
 * antennas, z[r] for r < N: each antenna pair's noise drawn (one draw a
 * pair), added, scaled and stored at the RE whose FFT input the sample is.
 * Both the CP-aligned convolution and the tiled fading kernel end so. */
template <int N>
__device__ __forceinline__ void td_store_sample(const gpu_link &g, uint32_t f, uint32_t sym, int w, uint64_t n,
                                                const cf32 *z, cf32 *yt) {
  int k = w - g.td_shift; /* the RE whose FFT input this window sample is */
  if (k < 0) k += g.K;
  const uint64_t m = (uint64_t)sym * g.K + (uint64_t)k;
  OFDM_UNROLL
  for (int p = 0; p < N / 2 + (N & 1); p++) {
    if (2 * p >= g.rx) break;
    rng_words wn = {{0u, 0u, 0u, 0u}};
    if (g.noise_std > 0.0f) wn = re_draw(g.re, RNG_TDNOISE, g.first_frame + f, (uint64_t)p * g.nf + n);
    OFDM_UNROLL
    for (int b = 0; b < 2; b++) {
      const int r = 2 * p + b;
      if (r >= N || r >= g.rx) break;
      cf32 v = z[r];
      if (g.noise_std > 0.0f) v = cf_add(v, cf_scale(rng_cnormal_of(wn, b), g.noise_std));
      gpu_store(yt + ((uint64_t)f * g.rx + r) * g.rf + m, cf_scale(v, g.td_scale));
    }
  }
}

/* Byte offsets of the shared arrays; the taps start on 16 bytes. */
struct conv_smem {
  size_t h, d, total;
};
__host__ __device__ inline conv_smem conv_shared_layout(const gpu_link &g, int nr, int tile) {
  conv_smem l;
  const size_t xs = sizeof(cf32) * (size_t)g.tx * (size_t)(tile + g.td_max_delay);
  l.h = (xs + 15) / 16 * 16;
  l.d = l.h + sizeof(cf32) * (size_t)g.tx * g.td_taps * nr;
  l.total = l.d + sizeof(int) * (size_t)g.td_taps;
  return l;
}

template <int NR>
__global__ void __launch_bounds__(kConvBlock)
    modem_conv_tiled_kernel(gpu_link g, const cf32 *__restrict__ xt, gpu_tdl t, cf32 *__restrict__ yt) {
  constexpr int S = conv_shape<NR>::S, kTile = conv_shape<NR>::tile;
  extern __shared__ __align__(16) unsigned char conv_smem_bytes[];
  const int T = g.td_taps, D = g.td_max_delay, width = kTile + D;
  const conv_smem L = conv_shared_layout(g, NR, kTile);
  cf32 *xs = reinterpret_cast<cf32 *>(conv_smem_bytes);
  cf32 *hs = reinterpret_cast<cf32 *>(conv_smem_bytes + L.h);
  int *ds = reinterpret_cast<int *>(conv_smem_bytes + L.d);

  /* block -> (frame, symbol, tile); 32-bit: R_f <= 2^24 */
  const uint32_t tiles = ((uint32_t)g.K + kTile - 1) / kTile;
  const uint32_t fs = blockIdx.x / tiles, tile = blockIdx.x - fs * tiles;
  const uint32_t f = fs / (uint32_t)g.S, sym = fs - f * (uint32_t)g.S;
  const int w0 = (int)(tile * kTile);
  const uint32_t span = (uint32_t)g.K + (uint32_t)g.cp;
  const int64_t nbase = (int64_t)sym * span + g.cp;
  const cf32 *xt_frame = xt + (uint64_t)f * g.tx * g.rf;

  for (int q = threadIdx.x; q < g.tx * width; q += blockDim.x) {
    const int tt = q / width, j = q - tt * width;
    const int64_t n = nbase + w0 - D + j;
    /* (before the frame: silence; past its end: only outputs past the last
     * symbol's window would read it, and none is kept) */
    xs[q] = n < 0 || n >= (int64_t)g.nf ? cf_make(0.0f, 0.0f) : sent_sample(g, xt_frame, tt, (uint64_t)n);
  }
  const cf32 *hf = t.dtaps + (uint64_t)f * g.links * T;
  for (int q = threadIdx.x; q < g.tx * T * NR; q += blockDim.x) {
    const int r = q % NR, ti = q / NR, tt = ti / T, i = ti - tt * T;
    hs[q] = r < g.rx ? gpu_load(hf + ((size_t)r * g.tx + tt) * T + i) : cf_make(0.0f, 0.0f);
  }
  for (int i = threadIdx.x; i < T; i += blockDim.x) ds[i] = __ldg(t.td_delay + i);
  __syncthreads();

  cf32 z[S][NR];
  OFDM_UNROLL
  for (int s = 0; s < S; s++)
    OFDM_UNROLL
    for (int r = 0; r < NR; r++) z[s][r] = cf_make(0.0f, 0.0f);
  for (int tt = 0; tt < g.tx; tt++) {
    const cf32 *xrow = xs + (size_t)tt * width + D + threadIdx.x;
    const cf32 *hrow = hs + (size_t)tt * T * NR;
    for (int i = 0; i < T; i++) {
      const int d = ds[i];
      cf32 xv[S];
      OFDM_UNROLL
      for (int s = 0; s < S; s++) xv[s] = xrow[s * kConvBlock - d];
      cf32 h[NR];
      if (NR == 1) {
        h[0] = hrow[i];
      } else { /* NR is a power of two: whole pairs */
        const float4 *h4 = reinterpret_cast<const float4 *>(hrow + i * NR);
        OFDM_UNROLL
        for (int r = 0; r + 1 < NR; r += 2) {
          const float4 v = h4[r / 2];
          h[r] = cf_make(v.x, v.y);
          h[r + 1] = cf_make(v.z, v.w);
        }
      }
      OFDM_UNROLL
      for (int r = 0; r < NR; r++)
        OFDM_UNROLL
        for (int s = 0; s < S; s++) z[s][r] = cf_fma(z[s][r], h[r], xv[s]);
    }
  }

  OFDM_UNROLL
  for (int s = 0; s < S; s++) {
    const int w = w0 + (int)threadIdx.x + s * kConvBlock;
    if (w >= g.K) break;
    td_store_sample<NR>(g, f, sym, w, (uint64_t)(nbase + w), z[s], yt);
  }
}

template <int NR>
int launch_conv_tiled(const gpu_link &g, const cf32 *xt, const gpu_tdl &t, cf32 *yt, cudaStream_t s) {
  constexpr int kTile = conv_shape<NR>::tile;
  const size_t bytes = conv_shared_layout(g, NR, kTile).total;
  if (bytes > 48 * 1024) /* beyond the default: opt in (per kernel and device) */
    CUDA_TRY(cudaFuncSetAttribute(modem_conv_tiled_kernel<NR>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  const uint64_t tiles = ((uint64_t)g.K + kTile - 1) / kTile;
  const uint64_t blocks = g.frames * (uint64_t)g.S * tiles;
  modem_conv_tiled_kernel<NR><<<(unsigned)blocks, kConvBlock, bytes, s>>>(g, xt, t, yt);
  CUDA_TRY_LAUNCH("modem_conv_tiled_kernel");
  return 0;
}

/* Shared bytes the tiled convolution of NR rows needs. */
size_t conv_shared_bytes(const gpu_link &g, int nr) {
  const int tile = nr <= 1 ? conv_shape<1>::tile : nr <= 2 ? conv_shape<2>::tile : nr <= 4 ? conv_shape<4>::tile
                 : nr <= 8 ? conv_shape<8>::tile : conv_shape<16>::tile;
  return conv_shared_layout(g, nr, tile).total;
}

/* Doppler, tiled (the common case): the sample-by-sample fading convolution
 * of modem_channel_kernel with one block a (frame, symbol, tile of
 * kFadeBlock * S window positions) and S consecutive window positions a
 * thread, every receive antenna in the thread.
 *
 * Why S samples a thread: the interpolators' terms (2 * TDL_INTERP_HALF a
 * tap and stream) are almost all of the work, and one sample a thread read
 * one staged sample from shared memory a term, two FFMA: the kernel ran at
 * its shared-memory throughput (the fourteenth session's profile). With S
 * consecutive samples the terms slide over one register window: G terms of
 * S samples take S + G - 1 staged values, of which only G are new a group.
 * And a tap's cubic coefficients, read once a thread, serve its S samples.
 *
 * The staging: the block stages once, with the CP's index map and the
 * unitary scale applied (zeros before the frame), the transmitted samples
 * all its outputs read, xs(t, q) = s_t(nbase + w0 - reach + q), reach the
 * farthest interpolator term (g.fade_reach). Position q is kept in phase
 * q mod S, at (q mod S) * P + q / S: then a warp's lanes, S positions
 * apart, read consecutive words (no bank conflict).
 *
 * Per sample the operations are modem_channel_kernel's in its order (tap by
 * tap, streams inside, each interpolator's terms in order, the rows last)
 * and fading_sample's values (a staged zero adds an exact zero where that
 * one skips the term), with the same noise words: the same values.
 * N (a power of two, at least rx and tx) sizes the register arrays. */
constexpr int kFadeBlock = 128;
constexpr int kFadeGroup = 8; /* interpolator terms a register window step (S divides it) */

/* Samples a thread for N rows: S * N accumulators in registers. */
constexpr int fade_samples(int n) { return n <= 4 ? 4 : n == 8 ? 2 : 1; }

size_t fade_shared_bytes(const gpu_link &g, int S) {
  const size_t width = (size_t)kFadeBlock * S + (size_t)g.fade_reach, P = (width + S - 1) / S;
  return sizeof(cf32) * (size_t)g.tx * (size_t)S * P;
}

/* The S samples' rows, z[s][r] += sum over taps and streams; kOneSeg: every
 * lane's S samples lie on one segment of the cubics (a warp-uniform choice:
 * the coefficients read once for them all). */
template <int N, int S, bool kOneSeg>
__device__ __forceinline__ void fade_rows(const gpu_link &g, const gpu_consts *__restrict__ c, const cf32 *xs,
                                          int P, int base0, const cf32 *ps, const int64_t *soff,
                                          const float *tau, cf32 (*z)[N]) {
  constexpr int G = kFadeGroup, WIN = S + G - 1;
  for (int l = 0; l < g.L; l++) {
    const cf32 *pl = ps + (uint64_t)l * g.links * TAP_POLY_COEFS;
    const int count = c->tap_count[l], base = base0 - c->tap_first[l];
    const float *coef = c->tap_coef[l];
    for (int t = 0; t < g.tx; t++) {
      const cf32 *xt_s = xs + (size_t)t * S * P;
      /* u[s] = sum_i coef[i] x(base + s - i), i in order */
      cf32 u[S];
      OFDM_UNROLL
      for (int s = 0; s < S; s++) u[s] = cf_make(0.0f, 0.0f);
      /* win[m] = x(base - i0 - (G - 1) + m): term i0 + k of sample s is win[s - k + G - 1] */
      cf32 win[WIN];
      int i0 = 0;
      if (count >= G) {
        /* win[m < G] of the group at i0 is x(q - i0): with S dividing G, the
         * same phase as the first group's, G / S words lower a group */
        const cf32 *wp[G];
        OFDM_UNROLL
        for (int m = 0; m < WIN; m++) {
          const int q = base - (G - 1) + m;
          const cf32 *at = xt_s + ((unsigned)q % S) * P + (unsigned)q / S;
          if (m < G) wp[m] = at;
          win[m] = *at;
        }
        int back = 0;
        for (;;) {
          OFDM_UNROLL
          for (int k = 0; k < G; k++) {
            const float ci = coef[i0 + k];
            OFDM_UNROLL
            for (int s = 0; s < S; s++) u[s] = cf_fma_real(u[s], ci, win[s - k + G - 1]);
          }
          i0 += G;
          if (i0 + G > count) break;
          /* slide by G: the S - 1 lowest values stay (at the top), G new below */
          OFDM_UNROLL
          for (int m = WIN - 1; m >= G; m--) win[m] = win[m - G];
          back += G / S;
          OFDM_UNROLL
          for (int m = 0; m < G; m++) win[m] = wp[m][-back];
        }
      }
      for (int i = i0; i < count; i++) { /* the terms past the last whole group */
        const float ci = coef[i];
        OFDM_UNROLL
        for (int s = 0; s < S; s++) {
          const int q = base + s - i;
          u[s] = cf_fma_real(u[s], ci, xt_s[((unsigned)q % S) * P + (unsigned)q / S]);
        }
      }
      OFDM_UNROLL
      for (int r = 0; r < N; r++) {
        if (r >= g.rx) break;
        const cf32 *pe = pl + (uint64_t)(r * g.tx + t) * TAP_POLY_COEFS;
        cf32 cc[TAP_POLY_COEFS];
        OFDM_UNROLL
        for (int k = 0; k < TAP_POLY_COEFS; k++) cc[k] = gpu_load(pe + k);
        OFDM_UNROLL
        for (int s = 0; s < S; s++) {
          if (kOneSeg || soff[s] == 0) {
            z[s][r] = cf_fma_exact(z[s][r], tap_poly_eval(cc, tau[s]), u[s]);
          } else { /* a sample past a segment's end: its own cubics */
            cf32 cs[TAP_POLY_COEFS];
            OFDM_UNROLL
            for (int k = 0; k < TAP_POLY_COEFS; k++) cs[k] = gpu_load(pe + soff[s] + k);
            z[s][r] = cf_fma_exact(z[s][r], tap_poly_eval(cs, tau[s]), u[s]);
          }
        }
      }
    }
  }
}

template <int N, int S>
__global__ void __launch_bounds__(kFadeBlock)
    modem_fade_tiled_kernel(gpu_link g, const gpu_consts *__restrict__ c, const cf32 *__restrict__ xt,
                            const cf32 *__restrict__ poly, cf32 *__restrict__ yt) {
  extern __shared__ __align__(16) unsigned char fade_smem_bytes[];
  cf32 *xs = reinterpret_cast<cf32 *>(fade_smem_bytes);
  constexpr int kTile = kFadeBlock * S;
  const int D = g.fade_reach, width = kTile + D, P = (width + S - 1) / S;
  /* block -> (frame, symbol, tile); 32-bit: R_f <= 2^24 */
  const uint32_t tiles = ((uint32_t)g.K + kTile - 1) / kTile;
  const uint32_t fs = blockIdx.x / tiles, tile = blockIdx.x - fs * tiles;
  const uint32_t f = fs / (uint32_t)g.S, sym = fs - f * (uint32_t)g.S;
  const int w0 = (int)(tile * kTile);
  const int64_t nbase = (int64_t)sym * ((int64_t)g.K + g.cp) + g.cp;
  const cf32 *xt_frame = xt + (uint64_t)f * g.tx * g.rf;
  for (int q = threadIdx.x; q < g.tx * width; q += blockDim.x) {
    const int tt = q / width, j = q - tt * width;
    const int64_t n = nbase + w0 - D + j;
    xs[(size_t)tt * S * P + (size_t)(j % S) * P + j / S] =
        n < 0 || n >= (int64_t)g.nf ? cf_make(0.0f, 0.0f) : sent_sample(g, xt_frame, tt, (uint64_t)n);
  }
  __syncthreads();
  /* The thread's samples; those past the window's end (not kept) take its
   * last sample's segment and offset, so that no read leaves the cubics. */
  const int wt = w0 + S * (int)threadIdx.x;
  uint64_t seg[S];
  float tau[S];
  OFDM_UNROLL
  for (int s = 0; s < S; s++) {
    const uint64_t n = (uint64_t)(nbase + (wt + s < g.K ? wt + s : g.K - 1));
    seg[s] = n / (uint64_t)g.poly_len;
    tau[s] = tap_poly_tau(n, g.poly_len);
  }
  const uint64_t per_seg = (uint64_t)g.L * g.links * TAP_POLY_COEFS;
  const cf32 *ps = poly + (f * g.poly_segs + seg[0]) * per_seg;
  int64_t soff[S];
  bool one = true;
  OFDM_UNROLL
  for (int s = 0; s < S; s++) {
    soff[s] = (int64_t)(seg[s] - seg[0]) * (int64_t)per_seg;
    one = one && soff[s] == 0;
  }
  cf32 z[S][N];
  OFDM_UNROLL
  for (int s = 0; s < S; s++)
    OFDM_UNROLL
    for (int r = 0; r < N; r++) z[s][r] = cf_make(0.0f, 0.0f);
  /* staged position of sample wt: D + S * threadIdx.x (every thread of the block reaches here) */
  const int base0 = D + S * (int)threadIdx.x;
  if (__all_sync(0xffffffffu, one)) fade_rows<N, S, true>(g, c, xs, P, base0, ps, soff, tau, z);
  else fade_rows<N, S, false>(g, c, xs, P, base0, ps, soff, tau, z);
  OFDM_UNROLL
  for (int s = 0; s < S; s++) {
    const int w = wt + s;
    if (w >= g.K) break;
    td_store_sample<N>(g, f, sym, w, (uint64_t)(nbase + w), z[s], yt);
  }
}

template <int N>
int launch_fade_tiled(const gpu_link &g, const gpu_consts *c, const cf32 *xt, const gpu_tdl &t, cf32 *yt,
                      cudaStream_t s) {
  constexpr int S = fade_samples(N);
  const size_t bytes = fade_shared_bytes(g, S);
  if (bytes > 48 * 1024) /* beyond the default: opt in (per kernel and device) */
    CUDA_TRY(cudaFuncSetAttribute(modem_fade_tiled_kernel<N, S>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  const uint64_t tiles = ((uint64_t)g.K + kFadeBlock * S - 1) / (kFadeBlock * S);
  const uint64_t blocks = g.frames * (uint64_t)g.S * tiles;
  modem_fade_tiled_kernel<N, S><<<(unsigned)blocks, kFadeBlock, bytes, s>>>(g, c, xt, t.poly, yt);
  CUDA_TRY_LAUNCH("modem_fade_tiled_kernel");
  return 0;
}

/* One thread a (frame, receive pair, kept window sample w): the noise that
 * modem_channel_kernel adds to its convolution at that sample, with the same
 * words and the same scaling, written where that kernel writes (the RE the
 * window rotation puts w at). */
__global__ void __launch_bounds__(kBlock) modem_noise_kernel(gpu_link g, cf32 *__restrict__ yt) {
  const uint32_t pairs = ((uint32_t)g.rx + 1) / 2;
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.frames * (uint64_t)pairs * g.rf) return;
  const uint64_t w_all = j % g.rf, fp = j / g.rf; /* w_all = sym * K + w */
  const uint64_t f = fp / pairs;
  const int p = (int)(fp - f * pairs);
  const uint64_t sym = w_all / g.K, w = w_all - sym * g.K;
  const uint64_t n = sym * ((uint64_t)g.K + g.cp) + g.cp + w;
  int64_t k = (int64_t)w - g.td_shift; /* the RE whose FFT input this window sample is */
  if (k < 0) k += g.K;
  const uint64_t m = sym * g.K + (uint64_t)k;
  rng_words wn = {{0u, 0u, 0u, 0u}};
  if (g.noise_std > 0.0f) wn = re_draw(g.re, RNG_TDNOISE, g.first_frame + f, (uint64_t)p * g.nf + n);
  for (int b = 0; b < 2; b++) {
    const int r = 2 * p + b;
    if (r >= g.rx) break;
    const cf32 v = g.noise_std > 0.0f ? cf_scale(rng_cnormal_of(wn, b), g.noise_std) : cf_make(0.0f, 0.0f);
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
  /* Fixed discrete taps: the tiled convolution, where its shared memory fits
   * (all but extreme delay spreads; the untiled kernel computes the same). */
  if (g.model == CH_TDL && !g.fading && g.td_taps > 0) {
    const int nr = g.rx <= 1 ? 1 : g.rx <= 2 ? 2 : g.rx <= 4 ? 4 : g.rx <= 8 ? 8 : 16;
    if (conv_shared_bytes(g, nr) <= (size_t)g.smem_optin) {
      switch (nr) {
        case 1: return launch_conv_tiled<1>(g, xt, t, yt, s);
        case 2: return launch_conv_tiled<2>(g, xt, t, yt, s);
        case 4: return launch_conv_tiled<4>(g, xt, t, yt, s);
        case 8: return launch_conv_tiled<8>(g, xt, t, yt, s);
        default: return launch_conv_tiled<16>(g, xt, t, yt, s);
      }
    }
  }
  if (g.model == CH_TDL && g.fading) { /* the taps' cubics first (same stream: done before the samples) */
    const uint64_t n = g.frames * g.poly_segs * (uint64_t)g.L;
    modem_poly_kernel<<<gpu_blocks(n, kBlock), kBlock, 0, s>>>(g, c, t.sos, t.poly);
    CUDA_TRY_LAUNCH("modem_poly_kernel");
    /* then the samples, tiled where the staged stream fits in shared memory */
    const int most = g.rx > g.tx ? g.rx : g.tx; /* the kernel's register arrays: N >= rx, tx */
    const int nr = most <= 1 ? 1 : most <= 2 ? 2 : most <= 4 ? 4 : most <= 8 ? 8 : 16;
    if (g.model == CH_TDL && g.fade_reach >= 0 && fade_shared_bytes(g, fade_samples(nr)) <= (size_t)g.smem_optin) {
      switch (nr) {
        case 1: return launch_fade_tiled<1>(g, c, xt, t, yt, s);
        case 2: return launch_fade_tiled<2>(g, c, xt, t, yt, s);
        case 4: return launch_fade_tiled<4>(g, c, xt, t, yt, s);
        case 8: return launch_fade_tiled<8>(g, c, xt, t, yt, s);
        default: return launch_fade_tiled<16>(g, c, xt, t, yt, s);
      }
    }
  }
  const uint64_t work = g.frames * (uint64_t)((g.rx + 1) / 2) * g.rf;
  modem_channel_kernel<<<gpu_blocks(work, kBlock), kBlock, 0, s>>>(g, c, xt, t, yt);
  CUDA_TRY_LAUNCH("modem_channel_kernel");
  return 0;
}

int gpu_td_transform_applies(const gpu_link &g) {
  return g.model == CH_TDL && !g.fading && g.td_taps > 0 && g.td_max_delay <= g.cp;
}

int gpu_launch_modem_noise(const gpu_link &g, cf32 *yt, cudaStream_t s) {
  const uint64_t work = g.frames * (uint64_t)((g.rx + 1) / 2) * g.rf;
  modem_noise_kernel<<<gpu_blocks(work, kBlock), kBlock, 0, s>>>(g, yt);
  CUDA_TRY_LAUNCH("modem_noise_kernel");
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
