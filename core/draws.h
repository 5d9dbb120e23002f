/* Random streams: counter-based Philox4x32-10, one stream a point, keyed by
 * the seed and the point's stream key. Every draw is named by (point,
 * purpose, frame, index) so that results never depend on the backend, the
 * thread count, the batch size, or the sweep, order, shard or subset a point
 * runs in.
 *
 *   key     = rng_key(seed, stream key), as { lo32, hi32 }
 *   counter = { lo32(index), hi32(index), lo32(sub), hi32(sub) }
 *   sub     = purpose << 40 | frame      (frame < 2^40)
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
 * normals below are shared by both backends (normals agree to a few 1e-6:
 * the host's logarithm and sine differ from the device's in the last ulps).
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
  RNG_DOPPLER = 6
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
  return ((uint64_t)(purpose & 0xffu) << 40) | (frame & (RNG_MAX_FRAMES - 1));
}

/* Uniform in (0, 1], the same expression as cuRAND's curand_uniform: x*2^-32 is
 * exact in float, so host and device round identically. */
OFDM_HD float rng_u01(uint32_t x) {
  return (float)x * 2.3283064365386963e-10f + 1.1641532182693481e-10f;
}

/* Box-Muller: two uniforms -> one CN(0,1) sample (unit total variance).
 * The device uses CUDA's logf and sincospif, the host core/rng_math.h's
 * functions (vectorisable, and the same bits in scalar and vector loops). */
OFDM_HD cf32 rng_cnormal(uint32_t a, uint32_t b) {
  const float u1 = rng_u01(a), u2 = rng_u01(b);
  float s, c;
#ifdef __CUDA_ARCH__
  const float r = sqrtf(-logf(u1)); /* sqrt(-2 ln u1) / sqrt(2) */
  sincospif(2.0f * u2, &s, &c);
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
