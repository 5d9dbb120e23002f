/* Draws for runs of REs (draws_block.h). Each loop over lanes is plain C
 * that gcc vectorises at -O3; the per-lane arithmetic is the per-RE steps'
 * (core/re.h, core/draws.h), operation for operation, so the results are
 * the same bits. Work goes in tiles of BLOCK_LANES REs so that the words
 * stay in L1. Where the host has AVX-512 the symbol lookup and y = H x of
 * 2 and 4 streams are written out in intrinsics (equalizer/simd16.h), the
 * same values again. */
/* GCC tunes AVX-512 CPUs for 256-bit vectors; the item loops here go 512
 * bits wide (equalizer/simd16.h says why that changes no result). */
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("prefer-vector-width=512")
#endif
#include "cpu/draws_block.h"

#include <string.h>
#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "core/qam.h"
#include "equalizer/simd16.h"

#define BLOCK_LANES 256

/* Philox4x32-10 (Salmon et al., SC'11), Random123's constants: per round,
 * the products of words 0 and 2 with the multipliers give the next words
 * (high halves mixed with words 1 and 3 and the round key, low halves kept),
 * and the key is bumped by the Weyl constants. */
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

/* The reference lane loop: one counter at a time, in 32-bit words
 * (core/rng.h's rng_draw_run). */
void rng_block_gen(uint64_t key, uint32_t purpose, uint64_t frame, uint64_t index0, size_t n, uint32_t *w,
                   size_t ldw) {
  rng_draw_run(key, purpose, frame, index0, n, w, ldw);
}

#if defined(__AVX512F__)
/* Sixteen counters at a time, each in a 64-bit lane of one of two vectors:
 * _mm512_mul_epu32 multiplies the low 32 bits of each lane into the full
 * 64-bit product, so the round needs no shuffles. The lanes' high halves
 * carry junk that only ever moves up or out (a product reads low halves, a
 * right shift by 32 brings in the product's own high half, and the outputs
 * keep low halves). */
#define PHILOX_VEC 16
typedef __m512i lanes;
#define L_SET1(v) _mm512_set1_epi64((long long)(v))
#define L_MUL _mm512_mul_epu32
#define L_SRL32(v) _mm512_srli_epi64(v, 32)
#define L_XOR3(a, b, c) _mm512_ternarylogic_epi64(a, b, c, 0x96)
#define L_ADD _mm512_add_epi64
#define L_STEP _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7)
/* The low halves of two vectors of 64-bit lanes as sixteen words. */
static inline void store_low(uint32_t *dst, lanes lo, lanes hi) {
  const __m512i pick = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  _mm512_storeu_si512(dst, _mm512_permutex2var_epi32(lo, pick, hi)); /* one shuffle, one store */
}
#elif defined(__AVX2__)
/* The same with eight counters in two AVX2 vectors. */
#define PHILOX_VEC 8
typedef __m256i lanes;
#define L_SET1(v) _mm256_set1_epi64x((long long)(v))
#define L_MUL _mm256_mul_epu32
#define L_SRL32(v) _mm256_srli_epi64(v, 32)
#define L_XOR3(a, b, c) _mm256_xor_si256(_mm256_xor_si256(a, b), c)
#define L_ADD _mm256_add_epi64
#define L_STEP _mm256_setr_epi64x(0, 1, 2, 3)
static inline void store_low(uint32_t *dst, lanes lo, lanes hi) {
  const __m256i pick = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  const __m256i a = _mm256_permutevar8x32_epi32(lo, pick), b = _mm256_permutevar8x32_epi32(hi, pick);
  _mm256_storeu_si256((__m256i *)dst, _mm256_permute2x128_si256(a, b, 0x20));
}
#endif

#ifdef PHILOX_VEC
static inline void philox_lanes(lanes *x0, lanes *x1, lanes *x2, lanes *x3, uint32_t k0, uint32_t k1) {
  const lanes m0 = L_SET1(PHILOX_M0), m1 = L_SET1(PHILOX_M1);
  for (int r = 0; r < 10; r++) {
    const lanes a = L_SET1(k0), b = L_SET1(k1);
    for (int h = 0; h < 2; h++) {
      const lanes p0 = L_MUL(x0[h], m0), p1 = L_MUL(x2[h], m1);
      const lanes y0 = L_XOR3(L_SRL32(p1), x1[h], a), y2 = L_XOR3(L_SRL32(p0), x3[h], b);
      x1[h] = p1;
      x3[h] = p0;
      x0[h] = y0;
      x2[h] = y2;
    }
    k0 += PHILOX_W0;
    k1 += PHILOX_W1;
  }
}
#endif

void rng_block(uint64_t key, uint32_t purpose, uint64_t frame, uint64_t index0, size_t n, uint32_t *w,
               size_t ldw) {
  size_t i = 0;
#ifdef PHILOX_VEC
  const uint64_t sub = rng_subsequence(purpose, frame);
  const lanes c2 = L_SET1((uint32_t)sub), c3 = L_SET1((uint32_t)(sub >> 32));
  const lanes step = L_STEP, half = L_SET1(PHILOX_VEC / 2);
  for (; i + PHILOX_VEC <= n; i += PHILOX_VEC) {
    lanes x0[2], x1[2], x2[2], x3[2];
    x0[0] = L_ADD(L_SET1(index0 + i), step);
    x0[1] = L_ADD(x0[0], half);
    for (int h = 0; h < 2; h++) {
      x1[h] = L_SRL32(x0[h]); /* the counter's high word; x0's low half is its low word */
      x2[h] = c2;
      x3[h] = c3;
    }
    philox_lanes(x0, x1, x2, x3, (uint32_t)key, (uint32_t)(key >> 32));
    store_low(w + i, x0[0], x0[1]);
    store_low(w + ldw + i, x1[0], x1[1]);
    store_low(w + 2 * ldw + i, x2[0], x2[1]);
    store_low(w + 3 * ldw + i, x3[0], x3[1]);
  }
#endif
  if (i < n) {
    rng_block_gen(key, purpose, frame, index0 + i, n - i, w + i, ldw);
  }
}

/* out[i] (+)= scale * rng_cnormal(a[i], b[i]): re_pair_draws' cf_scale then
 * cf_add, in the same order. */
static void normals(const uint32_t *restrict a, const uint32_t *restrict b, size_t n, float scale, int accumulate,
                    cf32 *restrict out) {
  if (accumulate) {
    for (size_t i = 0; i < n; i++) {
      const cf32 z = cf_scale(rng_cnormal(a[i], b[i]), scale);
      out[i] = cf_add(out[i], z);
    }
  } else {
    for (size_t i = 0; i < n; i++) out[i] = cf_scale(rng_cnormal(a[i], b[i]), scale);
  }
}

void block_pair_draws(const re_ctx *c, uint32_t purpose, uint64_t frame, uint64_t m0, size_t n, int count,
                      float scale, int accumulate, cf32 *out, size_t ld) {
  uint32_t w[4 * BLOCK_LANES];
  for (size_t j = 0; j < n; j += BLOCK_LANES) {
    const size_t len = n - j < BLOCK_LANES ? n - j : BLOCK_LANES;
    for (int e = 0; e < count; e += 2) {
      rng_block(c->key, purpose, frame, (uint64_t)(e / 2) * c->rf + m0 + j, len, w, BLOCK_LANES);
      normals(w, w + BLOCK_LANES, len, scale, accumulate, out + (size_t)e * ld + j);
      if (e + 1 < count)
        normals(w + 2 * BLOCK_LANES, w + 3 * BLOCK_LANES, len, scale, accumulate, out + (size_t)(e + 1) * ld + j);
    }
  }
}

/* Labels and symbols of one stream from its words: lab[i] = wk[i] & mask,
 * xt[i] = points[lab[i]]. */
static void labels_to_symbols(const uint32_t *restrict wk, size_t len, uint32_t mask, const cf32 *restrict points,
                              uint8_t *restrict lab, cf32 *restrict xt) {
  size_t i = 0;
#if C16_AVX512
  /* up to 32 points: the lookup as a two-table permute of their real and
   * imaginary parts (the same values, no gather) */
  if (mask < 32) {
    float pr[32], pi[32];
    for (uint32_t l = 0; l < 32; l++) {
      pr[l] = points[l & mask].re;
      pi[l] = points[l & mask].im;
    }
    const __m512 r0 = _mm512_loadu_ps(pr), r1 = _mm512_loadu_ps(pr + 16);
    const __m512 i0 = _mm512_loadu_ps(pi), i1 = _mm512_loadu_ps(pi + 16);
    const __m512i vm = _mm512_set1_epi32((int)mask);
    for (; i + 16 <= len; i += 16) {
      const __m512i l = _mm512_and_si512(_mm512_loadu_si512(wk + i), vm);
      _mm_storeu_si128((__m128i *)(lab + i), _mm512_cvtepi32_epi8(l));
      c16_store(xt + i, c16_make(_mm512_permutex2var_ps(r0, l, r1), _mm512_permutex2var_ps(i0, l, i1)));
    }
  }
#endif
  for (; i < len; i++) {
    lab[i] = (uint8_t)(wk[i] & mask);
    xt[i] = points[wk[i] & mask];
  }
}

void block_symbols(const re_ctx *c, uint64_t frame, uint64_t m0, size_t n, uint8_t *labels, cf32 *x, size_t ld) {
  uint32_t w[4 * BLOCK_LANES];
  const uint32_t mask = (1u << c->bps) - 1u;
  cf32 points[256]; /* qam_map of every label (8 bits at most), looked up per lane */
  for (uint32_t l = 0; l <= mask; l++) points[l] = qam_map(c->bps, l);
  for (size_t j = 0; j < n; j += BLOCK_LANES) {
    const size_t len = n - j < BLOCK_LANES ? n - j : BLOCK_LANES;
    for (int b = 0; b < (c->tx + 3) / 4; b++) {
      rng_block(c->key, RNG_BITS, frame, (uint64_t)b * c->rf + m0 + j, len, w, BLOCK_LANES);
      for (int k = 0; k < 4 && 4 * b + k < c->tx; k++) {
        const int t = 4 * b + k;
        labels_to_symbols(w + (size_t)k * BLOCK_LANES, len, mask, points, labels + (size_t)t * ld + j,
                          x + (size_t)t * ld + j);
      }
    }
  }
  /* pilot REs send their antenna's pilot instead (their labels are drawn
   * all the same, and never counted); symbols without pilots are passed
   * over a run at a time */
  if (!pilot_any(&c->pilots)) return;
  const uint64_t K = (uint64_t)c->pilots.K;
  for (size_t j = 0; j < n;) {
    const uint64_t m = m0 + j;
    const size_t run = K - m % K < n - j ? (size_t)(K - m % K) : n - j;
    if (pilot_on_symbol(&c->pilots, (int)(m / K)))
      for (size_t i = j; i < j + run; i++) {
        const int a = pilot_antenna(&c->pilots, m0 + i);
        if (a >= 0)
          for (int t = 0; t < c->tx; t++) x[(size_t)t * ld + i] = pilot_stream_value(&c->pilots, m0 + i, a, t);
      }
    j += run;
  }
}

void block_channel(const re_ctx *c, const chan_spatial *s, uint64_t frame, uint64_t m0, size_t n, cf32 *H,
                   size_t ld) {
  if (c->model == CH_AWGN) {
    for (int e = 0; e < c->links; e++) {
      const cf32 v = cf_make(e / c->tx == e % c->tx ? 1.0f : 0.0f, 0.0f);
      for (size_t i = 0; i < n; i++) H[(size_t)e * ld + i] = v;
    }
    return;
  }
  if (c->fd.nu > 0.0) { /* Doppler: the fading process at each RE's symbol, mixed there */
    cf32 h[LINK_MAX_RX * LINK_MAX_TX];
    for (size_t i = 0; i < n; i++) {
      flat_fading_channel(c->key, c->fd, s, frame, m0 + i, c->links, h);
      for (int e = 0; e < c->links; e++) H[(size_t)e * ld + i] = h[e];
    }
    return;
  }
  if (c->fading == FADING_INDEPENDENT) {
    block_pair_draws(c, RNG_CHANNEL, frame, m0, n, c->links, 1.0f, 0, H, ld);
  } else {
    /* re_channel_index: runs of consecutive draws, a symbol's subcarriers
     * (block) or one draw spread over every RE (flat_block) */
    for (size_t i = 0; i < n;) {
      const uint64_t at = re_channel_index(*c, m0 + i), K = (uint64_t)c->pilots.K;
      const size_t run = c->fading == FADING_BLOCK ? (size_t)(K - at) < n - i ? (size_t)(K - at) : n - i : 1;
      block_pair_draws(c, RNG_CHANNEL, re_channel_frame(*c, frame), at, run, c->links, 1.0f, 0, H + i, ld);
      if (c->fading == FADING_FLAT_BLOCK) {
        for (int e = 0; e < c->links; e++)
          for (size_t j = 1; j < n; j++) H[(size_t)e * ld + j] = H[(size_t)e * ld];
        break;
      }
      i += run;
    }
  }
  if (!c->spatial) return;
  cf32 h[LINK_MAX_RX * LINK_MAX_TX];
  for (size_t i = 0; i < n; i++) {
    for (int e = 0; e < c->links; e++) h[e] = H[(size_t)e * ld + i];
    chan_spatial_mix(s, h, 1, 1.0f);
    for (int e = 0; e < c->links; e++) H[(size_t)e * ld + i] = h[e];
  }
}

#if C16_AVX512
/* y = H x without the noise for NT = tx streams, sixteen REs a vector with
 * the symbols and the row's sum in registers (equalizer/simd16.h):
 * cf_fma_exact's fmaf chain in stream order, so the same bits as the loop in
 * block_apply. Returns the REs done (a multiple of 16). */
#define APPLY_X16(NAME, NT)                                                                                \
  static size_t NAME(int rx, size_t n, const cf32 *H, size_t ldh, const cf32 *x, size_t ldx, cf32 *y,      \
                     size_t ldy) {                                                                         \
    size_t i = 0;                                                                                          \
    for (; i + 16 <= n; i += 16) {                                                                         \
      c16 xv[NT];                                                                                          \
      for (int t = 0; t < NT; t++) xv[t] = c16_load(x + (size_t)t * ldx + i);                              \
      for (int r = 0; r < rx; r++) {                                                                       \
        c16 acc = c16_zero();                                                                              \
        for (int t = 0; t < NT; t++) {                                                                     \
          const c16 h = c16_load(H + (size_t)(r * NT + t) * ldh + i);                                      \
          acc = c16_fma_exact(acc, h, xv[t]);                                                              \
        }                                                                                                  \
        c16_store(y + (size_t)r * ldy + i, acc);                                                           \
      }                                                                                                    \
    }                                                                                                      \
    return i;                                                                                              \
  }
APPLY_X16(apply_x16_2, 2)
APPLY_X16(apply_x16_4, 4)
#endif

void block_apply(const re_ctx *c, uint64_t frame, uint64_t m0, size_t n, const cf32 *H, size_t ldh, const cf32 *x,
                 size_t ldx, cf32 *y, size_t ldy) {
  size_t i0 = 0;
#if C16_AVX512
  if (c->tx == 2) i0 = apply_x16_2(c->rx, n, H, ldh, x, ldx, y, ldy);
  if (c->tx == 4) i0 = apply_x16_4(c->rx, n, H, ldh, x, ldx, y, ldy);
#endif
  for (int r = 0; r < c->rx; r++) {
    cf32 *restrict yr = y + (size_t)r * ldy;
    for (size_t i = i0; i < n; i++) yr[i] = cf_make(0.0f, 0.0f);
    /* the fmaf chain of re_apply, stream by stream */
    for (int t = 0; t < c->tx; t++) {
      const cf32 *restrict h = H + (size_t)(r * c->tx + t) * ldh, *restrict xt = x + (size_t)t * ldx;
      for (size_t i = i0; i < n; i++) yr[i] = cf_fma_exact(yr[i], h[i], xt[i]);
    }
  }
  if (c->noise_std > 0.0f) block_pair_draws(c, RNG_NOISE, frame, m0, n, c->rx, c->noise_std, 1, y, ldy);
}

void block_csi(const re_ctx *c, uint64_t frame, uint64_t m0, size_t n, const cf32 *H, size_t ldh, cf32 *Hhat,
               size_t ldhh) {
  if (Hhat != H)
    for (int e = 0; e < c->links; e++) memcpy(Hhat + (size_t)e * ldhh, H + (size_t)e * ldh, sizeof(cf32) * n);
  if (c->csi_std <= 0.0f) return;
  block_pair_draws(c, RNG_CSI, frame, m0, n, c->links, c->csi_std, 1, Hhat, ldhh);
  for (int e = 0; e < c->links; e++)
    for (size_t i = 0; i < n; i++) Hhat[(size_t)e * ldhh + i] = cf_scale(Hhat[(size_t)e * ldhh + i], c->csi_shrink);
}
