/* The random streams: Philox4x32-10 against Random123's known answers, the
 * counter packing of draws.h, and the statistics of the conversions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cplx.h"
#include "core/rng.h"
#include "philox_ref.h"
#include "testutil.h"

/* Random123 tests/kat_vectors, the three "philox4x32 10" lines (counter[4],
 * key[2] -> output[4]); the package ships no test data, the file is upstream
 * at github.com/DEShawResearch/random123. */
static void test_known_answers(void) {
  static const struct {
    uint32_t ctr[4], key[2], out[4];
  } kat[3] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
      {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
       {0xffffffffu, 0xffffffffu},
       {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
      {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
       {0xa4093822u, 0x299f31d0u},
       {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
  };
  for (int v = 0; v < 3; v++) {
    const rng_words w = philox4x32_10(kat[v].ctr, kat[v].key);
    for (int i = 0; i < 4; i++)
      CHECK(w.w[i] == kat[v].out[i], "vector %d word %d: %08x, expected %08x", v, i, w.w[i],
            kat[v].out[i]);
  }
}

/* sub = (frame >> 40) << 48 | purpose << 40 | frame mod 2^40, counter =
 * {index, sub}, key = rng_key(seed, stream key). The bits of the frame
 * above 40 (HARQ's transmissions, rng_harq_frame) go above the purpose:
 * never into it, and never onto another frame's draws. */
static void test_packing(void) {
  CHECK(rng_subsequence(5, 7) == 0x0000050000000007ull, "%llx", (unsigned long long)rng_subsequence(5, 7));
  CHECK(rng_subsequence(0xff, 0xffffffffffull) == 0x0000ffffffffffffull, "all ones");
  CHECK(rng_subsequence(2, (1ull << 40) + 9) == 0x0001020000000009ull,
        "frame 2^40 + 9 above the purpose: %llx", (unsigned long long)rng_subsequence(2, (1ull << 40) + 9));
  CHECK(rng_subsequence(2, (1ull << 40) + 9) != rng_subsequence(2, 9),
        "a HARQ transmission's frame on its first transmission's draws");
  CHECK(rng_subsequence(2, rng_harq_frame(9, 3)) != rng_subsequence(5, rng_harq_frame(9, 1)) &&
            (rng_subsequence(2, rng_harq_frame(9, 3)) >> 40 & 0xffu) == 2u,
        "the transmission leaks into the purpose");
  CHECK(rng_subsequence(0x1ff, 0) == rng_subsequence(0xff, 0), "purpose is 8 bits");

  const uint64_t seed = 0x0123456789abcdefull, index = 0xfedcba9876543210ull, stream = 42;
  const uint64_t sub = rng_subsequence(RNG_TAPS, 123456789ull), k = rng_key(seed, stream);
  const uint32_t ctr[4] = {(uint32_t)index, (uint32_t)(index >> 32), (uint32_t)sub,
                           (uint32_t)(sub >> 32)};
  const uint32_t key[2] = {(uint32_t)k, (uint32_t)(k >> 32)};
  const rng_words a = rng_draw(rng_key(seed, stream), RNG_TAPS, 123456789ull, index);
  const rng_words b = philox4x32_10(ctr, key);
  CHECK(memcmp(&a, &b, sizeof a) == 0, "rng_draw is philox of the documented counter and key");
  /* The key: a published value of splitmix64's finaliser pins rng_mix64, and
   * a change of seed or stream key changes it. */
  CHECK(rng_mix64(0) == 0, "mix64(0) = %llx", (unsigned long long)rng_mix64(0));
  CHECK(rng_mix64(0x9e3779b97f4a7c15ull) == 0xe220a8397b1dcdafull, "mix64 = %llx",
        (unsigned long long)rng_mix64(0x9e3779b97f4a7c15ull));
  CHECK(rng_key(seed, stream) != rng_key(seed + 1, stream) &&
            rng_key(seed, stream) != rng_key(seed, stream + 1),
        "the key follows the seed and the stream key");
}

static void test_uniform(void) {
  CHECK(rng_u01(0) > 0.0f, "u01(0) = %g must be > 0", rng_u01(0));
  CHECK(rng_u01(0xffffffffu) == 1.0f, "u01(max) = %.9g must be 1", rng_u01(0xffffffffu));
  const int N = 1000000;
  double sum = 0.0, sum2 = 0.0;
  float lo = 2.0f, hi = -1.0f;
  for (int i = 0; i < N / 4; i++) {
    const rng_words w = rng_draw(7, RNG_BITS, 0, (uint64_t)i);
    for (int j = 0; j < 4; j++) {
      const float u = rng_u01(w.w[j]);
      sum += u;
      sum2 += (double)u * u;
      if (u < lo) lo = u;
      if (u > hi) hi = u;
    }
  }
  const double mean = sum / N, var = sum2 / N - mean * mean;
  CHECK(lo > 0.0f && hi <= 1.0f, "range [%g, %g] outside (0, 1]", lo, hi);
  CHECK(fabs(mean - 0.5) < 5.0 * sqrt(1.0 / 12.0 / N), "mean %.6f", mean);
  /* var of u^2 terms: the sample variance has sd about sqrt(1/180/N). */
  CHECK(fabs(var - 1.0 / 12.0) < 5.0 * sqrt(1.0 / 180.0 / N), "variance %.6f", var);
}

static void test_cnormal(void) {
  const int N = 1000000;
  double sre = 0, sim = 0, sre2 = 0, sim2 = 0, sabs2 = 0, sabs4 = 0, sz2re = 0, sz2im = 0;
  long tail = 0;
  for (int i = 0; i < N / 2; i++) {
    const rng_words w = rng_draw(rng_key(11, 3), RNG_NOISE, 5, (uint64_t)i);
    for (int j = 0; j < 2; j++) {
      const cf32 z = rng_cnormal_of(w, j);
      const double a2 = (double)z.re * z.re + (double)z.im * z.im;
      sre += z.re;
      sim += z.im;
      sre2 += (double)z.re * z.re;
      sim2 += (double)z.im * z.im;
      sabs2 += a2;
      sabs4 += a2 * a2;
      sz2re += (double)z.re * z.re - (double)z.im * z.im;
      sz2im += 2.0 * z.re * z.im;
      tail += a2 > 4.0;
    }
  }
  /* Standard deviations of the estimates for z ~ CN(0,1): re, im ~ N(0, 1/2);
   * |z|^2 ~ Exp(1) (sd 1); re^2 - im^2 and 2 re im have variance 1. */
  const double sd_half = sqrt(0.5 / N), sd_one = sqrt(1.0 / N);
  CHECK(fabs(sre / N) < 5 * sd_half, "mean re %.6f", sre / N);
  CHECK(fabs(sim / N) < 5 * sd_half, "mean im %.6f", sim / N);
  CHECK(fabs(sabs2 / N - 1.0) < 5 * sd_one, "E|z|^2 = %.6f", sabs2 / N);
  CHECK(fabs(sre2 / N - 0.5) < 5 * sqrt(0.5 / N), "E re^2 = %.6f", sre2 / N);
  CHECK(fabs(sim2 / N - 0.5) < 5 * sqrt(0.5 / N), "E im^2 = %.6f", sim2 / N);
  CHECK(fabs(sz2re / N) < 5 * sd_one && fabs(sz2im / N) < 5 * sd_one, "E z^2 = %.6f%+.6fj",
        sz2re / N, sz2im / N);
  /* Exp(1): E|z|^4 = 2 (var of |z|^4 is 24 - 4 = 20), P(|z|^2 > 4) = e^-4. */
  CHECK(fabs(sabs4 / N - 2.0) < 5 * sqrt(20.0 / N), "E|z|^4 = %.5f", sabs4 / N);
  const double pt = exp(-4.0);
  CHECK(fabs((double)tail / N - pt) < 5 * sqrt(pt * (1 - pt) / N), "P(|z|^2 > 4) = %.6f vs %.6f",
        (double)tail / N, pt);
}

typedef struct word_key {
  uint32_t w[4];
} word_key;

static int cmp_words(const void *a, const void *b) {
  return memcmp(a, b, sizeof(word_key));
}

/* Every (seed, stream key, purpose, frame, index) names its own 128-bit output. */
static void test_distinct(void) {
  const int purposes = 6, frames = 8, indices = 1000, points = 2, seeds = 2;
  const size_t total = (size_t)purposes * frames * indices * points * seeds;
  word_key *all = malloc(total * sizeof *all);
  size_t k = 0;
  for (int s = 0; s < seeds; s++)
    for (int pt = 0; pt < points; pt++)
      for (int pu = 0; pu < purposes; pu++)
        for (int f = 0; f < frames; f++)
          for (int i = 0; i < indices; i++) {
            const rng_words w = rng_draw(rng_key(1 + (uint64_t)s * 0x100000000ull, (uint64_t)pt),
                                         (uint32_t)pu, (uint64_t)f, (uint64_t)i);
            memcpy(all[k++].w, w.w, sizeof all->w);
          }
  qsort(all, total, sizeof *all, cmp_words);
  size_t dup = 0;
  for (size_t i = 1; i < total; i++) dup += memcmp(&all[i - 1], &all[i], sizeof *all) == 0;
  CHECK(dup == 0, "%zu repeated outputs among %zu draws", dup, total);
  free(all);
  /* The same name gives the same words. */
  const rng_words a = rng_draw(5, RNG_CSI, 9, 77), b = rng_draw(5, RNG_CSI, 9, 77);
  CHECK(memcmp(&a, &b, sizeof a) == 0, "rng_draw is a pure function");
}

/* sincos_turns on the host (core/cplx.h: the Doppler sinusoids' sine and
 * cosine of 2 pi x) against double sin and cos, over every multiple of
 * 2^-24 turns in [-1/2, 1/2] (the range the callers reduce to): within one
 * ulp of 1 absolutely (measured 9.0e-8), and within two ulp relatively where
 * the value is above 1e-3 (measured 1.3e-7; sinf of the float product 2 pi
 * x, the earlier host form, was 2e-4 off relatively near the zeros). */
static void test_sincos_turns(void) {
  const double two_pi = 6.283185307179586477;
  double worst_abs = 0.0, worst_rel = 0.0;
  for (long i = -(1L << 23); i <= (1L << 23); i++) {
    const float x = (float)i / (float)(1L << 24);
    float s, c;
    sincos_turns(x, &s, &c);
    const double ts = sin(two_pi * (double)x), tc = cos(two_pi * (double)x);
    worst_abs = fmax(worst_abs, fmax(fabs(s - ts), fabs(c - tc)));
    if (fabs(ts) > 1e-3) worst_rel = fmax(worst_rel, fabs(s - ts) / fabs(ts));
    if (fabs(tc) > 1e-3) worst_rel = fmax(worst_rel, fabs(c - tc) / fabs(tc));
  }
  CHECK(worst_abs <= 0x1p-23 && worst_rel <= 0x1p-22, "sincos_turns: %.3g off absolutely, %.3g relatively",
        worst_abs, worst_rel);
  float s, c;
  sincos_turns(0.0f, &s, &c);
  CHECK(s == 0.0f && c == 1.0f, "sincos_turns(0) = (%g, %g)", s, c);
  sincos_turns(0.25f, &s, &c);
  CHECK(s == 1.0f && fabsf(c) == 0.0f, "sincos_turns(1/4) = (%g, %g)", s, c);
}

int main(void) {
  test_sincos_turns();
  test_known_answers();
  test_packing();
  test_uniform();
  test_cnormal();
  test_distinct();
  return test_finish("test_channel_rng");
}
