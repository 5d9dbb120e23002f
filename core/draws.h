/* Random streams: counter-based Philox4x32-10, one stream a point, keyed by
 * the seed and the point's stream key. Every draw is named by (point,
 * purpose, frame, index) so that results never depend on the backend, the
 * thread count, the batch size, or the sweep, order, shard or subset a point
 * runs in.
 *
 *   key     = rng_key(seed, stream key), as { lo32, hi32 }
 *   counter = { lo32(index), hi32(index), lo32(sub), hi32(sub) }
 *   sub     = transmission << 48 | purpose << 40 | frame      (frame < 2^40)
 *
 * The transmission is the coded link's HARQ transmission (0 .. 3): its
 * retransmission t of frame f draws channel and noise as "frame"
 * rng_harq_frame(f, t) = f + t 2^40, whose bits above the 40 land in the
 * counter's bits 48 and up, so every transmission has streams of its own and
 * transmission 0 is the frame's draws as they always were.
 *
 * The stream key (link_stream_key in core/params.h) is a 64-bit hash of the
 * point's own transmitter, channel and SNR parameters; receiver-side ones
 * (equalizer, CSI error) and the stopping rules stay out of it, so receivers
 * are compared on identical draws and a point's counts are its own. Philox is
 * a keyed bijection: distinct keys give independent streams.
 *
 * This is exactly the counter cuRAND's curand_init(key, sub, 4*index, &s)
 * followed by curand4(&s) evaluates, so the GPU's cuRAND Philox and the CPU's
 * Random123 Philox give bitwise-equal words.  The conversions to uniforms and
 * normals below are shared by both backends; the uniforms are bitwise equal,
 * the normals agree to a few 1e-6 (each side evaluates the logarithm and the
 * sine its own fast way, see rng_cnormal).
 *
 * Index layout of each purpose, per frame; R_f = symbols*subcarriers REs,
 * m = symbol*subcarriers + subcarrier the frame-local RE:
 *   RNG_BITS     index = b*R_f + m, word w -> label of stream 4b+w (low bps bits)
 *   RNG_CHANNEL  index = (e/2)*R_f + m, e = r*tx + t: words (0,1) -> element
 *                2*(e/2), words (2,3) -> element 2*(e/2)+1  (rayleigh)
 *   RNG_NOISE    index = (r/2)*R_f + m, same pairing over receive antennas r
 *   RNG_CSI      as RNG_CHANNEL, the estimation error E
 *   RNG_TAPS     index = q/2, q = (r*tx + t)*L + l, pairing as above (tdl)
 *   RNG_TDNOISE  index = (r/2)*N_f + n, n the time sample of the frame,
 *                N_f = symbols*(subcarriers + cp)
 *   RNG_DOPPLER  index = q*6 + j, q = (r*tx + t)*L + l (tdl with Doppler):
 *                word w of draw j is uniform u[4j + w]; u[0] turns the
 *                arrival angles, u[1..20] are the sinusoids' phases
 *                (channel/tdl_fading.h)
 *   RNG_TB_BITS  index = i/128 (coded link): bit i of the frame's transport
 *                block is bit (i mod 32) of word (i/32) mod 4
 *   RNG_FADING   frame = the drop, index = (b*links + e)*6 + j (rayleigh with
 *                Doppler): the sum of sinusoids of link e of process b
 *                (core/flat_fading.h)
 *   RNG_CDL      index = n*35 + j, n the cluster (cdl): draws 0..14 the
 *                random couplings of its rays, 15 + m the four initial
 *                phases of ray m (channel/cdl_channel.h)
 * With drops (channel.drop_frames = N > 1) RNG_TAPS, RNG_DOPPLER and RNG_CDL
 * take as frame the frame's drop, f / N within its HARQ transmission
 * (tdl_drop_frame, channel/tdl_fading.h), as RNG_FADING and rayleigh's
 * RNG_CHANNEL do (core/flat_fading.h).
 */
#ifndef OFDMSIM_DRAWS_H
#define OFDMSIM_DRAWS_H

#include <math.h>

#include "core/cplx.h"
#ifndef __CUDA_ARCH__
#include "core/rng_math.h"
#endif

enum rng_purpose {
  RNG_BITS = 0,
  RNG_CHANNEL = 1,
  RNG_NOISE = 2,
  RNG_CSI = 3,
  RNG_TAPS = 4,
  RNG_TDNOISE = 5,
  RNG_DOPPLER = 6,
  RNG_TB_BITS = 7,
  RNG_FADING = 8,
  RNG_CDL = 9
};

#define RNG_FRAME_BITS 40
#define RNG_MAX_FRAMES (1ULL << RNG_FRAME_BITS)

/* splitmix64's finaliser: a bijection of 64-bit words with full avalanche. */
OFDM_HD uint64_t rng_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* The Philox key of a point: the seed and the stream key mixed so that any
 * change of either gives an unrelated key (and, for one stream key, distinct
 * seeds give distinct keys: rng_mix64 is a bijection). */
OFDM_HD uint64_t rng_key(uint64_t seed, uint64_t stream_key) {
  return rng_mix64(seed ^ rng_mix64(stream_key + 0x9e3779b97f4a7c15ULL));
}

typedef struct rng_words {
  uint32_t w[4];
} rng_words;

OFDM_HD uint64_t rng_subsequence(uint32_t purpose, uint64_t frame) {
  return ((frame >> RNG_FRAME_BITS) << 48) | ((uint64_t)(purpose & 0xffu) << 40) | (frame & (RNG_MAX_FRAMES - 1));
}

/* The frame number whose draws are HARQ transmission t (0 .. 255) of frame
 * `frame` (< 2^40): t = 0 is the frame itself. */
OFDM_HD uint64_t rng_harq_frame(uint64_t frame, int t) { return frame + ((uint64_t)t << RNG_FRAME_BITS); }

/* Uniform in (0, 1], the same expression as cuRAND's curand_uniform: x*2^-32 is
 * exact in float, so host and device round identically. */
OFDM_HD float rng_u01(uint32_t x) {
  return (float)x * 2.3283064365386963e-10f + 1.1641532182693481e-10f;
}

#ifdef __CUDA_ARCH__
/* The device's Box-Muller pieces, from the special-function unit (MUFU)
 * rather than CUDA's correctly rounded logf/sincospif, which cost about as
 * much as the Philox words themselves (`ofdmsim bench` reports both floors):
 *
 *   -ln u   __logf (lg2.approx) except within 1/32 of 1, where its absolute
 *           error (~4e-7) would be large next to -ln u itself: there the
 *           series -ln(1 - v) = v + v^2/2 + ... + v^5/5 (v = 1 - u, exact for
 *           u >= 1/2), cut where the next term is below 5e-9 of the sum;
 *   sqrt    sqrt.approx (relative error ~2^-23);
 *   sin/cos __sincosf of 2 pi t with t the turn reduced to [-1/2, 1/2], where
 *           its absolute error is at most 2^-21.4.
 *
 * So a normal is within ~3e-6 of the exact transform of its words (the host's
 * core/rng_math.h gives ~4e-7); tests/cuda/test_gpu_normals.cu measures that,
 * the moments and the tail probabilities on 2^30 normals. */
__device__ __forceinline__ float rng_neg_log_dev(float u) {
  const float v = 1.0f - u;
  const float series = v * (1.0f + v * (0.5f + v * (0.33333334f + v * (0.25f + v * 0.2f))));
  return v < 0.03125f ? series : -__logf(u);
}
__device__ __forceinline__ float rng_sqrt_dev(float x) {
  float r;
  asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
#endif

/* Box-Muller: two uniforms -> one CN(0,1) sample (unit total variance),
 * r = sqrt(-ln u1) = sqrt(-2 ln u1) / sqrt(2) at angle 2 pi u2. The device
 * uses the pieces above, the host core/rng_math.h's functions (vectorisable,
 * and the same bits in scalar and vector loops). */
OFDM_HD cf32 rng_cnormal(uint32_t a, uint32_t b) {
  const float u1 = rng_u01(a), u2 = rng_u01(b);
  float s, c;
#ifdef __CUDA_ARCH__
  const float r = rng_sqrt_dev(rng_neg_log_dev(u1));
  __sincosf(6.2831855f * (u2 - rintf(u2)), &s, &c);
#else
  const float r = sqrtf(-rng_logf(u1));
  rng_sincos_turns(u2, &s, &c);
#endif
  return cf_make(r * c, r * s);
}

/* The complex normal number `which` (0 or 1) of one Philox output. */
OFDM_HD cf32 rng_cnormal_of(rng_words w, int which) {
  return which ? rng_cnormal(w.w[2], w.w[3]) : rng_cnormal(w.w[0], w.w[1]);
}

#endif
