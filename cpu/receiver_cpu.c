/* The CPU backend's receiver: Gram matrices, inversion and equalisation over
 * the batch's stacks (equalizer/), then hard decisions counted per frame and
 * stream with the per-RE step of core/re.h (data REs only: pilots carry no
 * information). */
/* GCC tunes AVX-512 CPUs for 256-bit vectors; the item loops here go 512
 * bits wide (equalizer/simd16.h says why that changes no result). */
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("prefer-vector-width=512")
#endif
#include "core/clock.h"
#include "cpu/cpu_internal.h"
#include "equalizer/equalizer.h"
#include "equalizer/fallback.h"

/* Runs body(i0, n) over the batch in chunks of CPU_CHUNK REs, static schedule. */
#define CPU_FOR_CHUNKS(R, body)                                                   \
  do {                                                                            \
    const long chunks_ = (long)(((R) + CPU_CHUNK - 1) / CPU_CHUNK);               \
    _Pragma("omp parallel for schedule(static)")                                  \
    for (long k_ = 0; k_ < chunks_; k_++) {                                       \
      const size_t i0 = (size_t)k_ * CPU_CHUNK;                                   \
      const size_t n = (R) - i0 < CPU_CHUNK ? (R) - i0 : CPU_CHUNK;               \
      body;                                                                       \
    }                                                                             \
  } while (0)

void cpu_receiver_stage(const link_params *p, cpu_state *s, size_t R, stage_times *t) {
  const int tx = p->tx, rx = p->rx;
  const float diag = link_mmse_diagonal(p);
  const double t0 = clock_seconds();
  CPU_FOR_CHUNKS(R, eq_gram(rx, tx, s->Hhat + i0, R, s->y + i0, R, diag, s->G + i0, R, s->z + i0, R, n));
  const double t1 = clock_seconds();
  CPU_FOR_CHUNKS(R, eq_invert(tx, s->G + i0, R, s->Ginv + i0, R, n));
  const double t2 = clock_seconds();
  CPU_FOR_CHUNKS(R, eq_apply(tx, s->Ginv + i0, R, s->z + i0, R, diag, s->xhat + i0, R, n));
  const double t3 = clock_seconds();
  t->gram = t1 - t0;
  t->invert = t2 - t1;
  t->equalize = t3 - t2;
}

/* REs whose float inverse came out flagged (all NaN) are equalised again in
 * double (equalizer/fallback.h) and counted per frame, so no decision is ever
 * taken from NaN; with soft outputs the inverse's diagonal is written back
 * from double too (the demapper's variances). Timed as part of the
 * equalisation. */
void cpu_repair_flagged(const link_params *p, cpu_state *s, uint64_t frames, uint32_t *fallbacks,
                        stage_times *t) {
  const double t0 = clock_seconds();
  const uint64_t rf = link_res_per_frame(p);
  const size_t R = (size_t)(frames * rf);
  const int tx = p->tx, rx = p->rx;
  const float diag = link_mmse_diagonal(p);
  const int soft = p->llr != LLR_OFF;
#pragma omp parallel for schedule(dynamic, 16)
  for (long f = 0; f < (long)frames; f++) {
    uint32_t solved = 0;
    for (size_t i = (size_t)f * rf; i < (size_t)(f + 1) * rf; i++) {
      if (!eq_flagged(s->xhat[i])) continue;
      cf32 h[LINK_MAX_RX * LINK_MAX_TX], y[LINK_MAX_RX], x[LINK_MAX_TX];
      float gd[LINK_MAX_TX];
      for (int e = 0; e < rx * tx; e++) h[e] = s->Hhat[(size_t)e * R + i];
      for (int r = 0; r < rx; r++) y[r] = s->y[(size_t)r * R + i];
      solved += (uint32_t)eq_solve_double(rx, tx, h, y, diag, x, soft ? gd : NULL);
      for (int k = 0; k < tx; k++) s->xhat[(size_t)k * R + i] = x[k];
      if (soft)
        for (int k = 0; k < tx; k++) s->Ginv[(size_t)(k * tx + k) * R + i] = cf_make(gd[k], 0.0f);
    }
    if (fallbacks) fallbacks[f] = solved;
  }
  t->equalize += clock_seconds() - t0;
}

/* Set bits of a label difference (at most 8 bits), in shifts and masks that
 * vectorise on any SIMD width. */
static inline uint32_t popcount8(uint32_t x) {
  x = x - ((x >> 1) & 0x55u);
  x = (x & 0x33u) + ((x >> 2) & 0x33u);
  return (x + (x >> 4)) & 0x0fu;
}

/* Bit errors of n data REs (no pilot among them): qam_demap with its bps
 * hoisted out of the loop, so that it vectorises. */
static uint32_t data_bit_errors(int bps, size_t n, const cf32 *xh, const uint8_t *lab) {
  uint32_t e = 0;
  if (bps == 1) {
    for (size_t i = 0; i < n; i++) e += (uint32_t)(xh[i].re >= 0.0f) ^ lab[i];
    return e;
  }
  const int half = bps >> 1;
  const float h = 0.5f * qam_inv_scale(bps);
  for (size_t i = 0; i < n; i++) e += popcount8(qam_demap_square(xh[i], half, 1 << half, h) ^ lab[i]);
  return e;
}

uint32_t cpu_chunk_bit_errors(const link_params *p, const pilot_grid *pilots, uint64_t m0, size_t n, const cf32 *xh,
                              const uint8_t *lab) {
  if (!pilot_any(pilots)) return data_bit_errors(p->bps, n, xh, lab);
  /* runs of one symbol: a symbol without pilots all at once, a pilot
   * symbol RE by RE */
  const uint64_t K = (uint64_t)pilots->K;
  uint32_t e = 0;
  for (size_t i = 0; i < n;) {
    const uint64_t m = m0 + i, k = m % K;
    const size_t run = K - k < n - i ? (size_t)(K - k) : n - i;
    if (!pilot_on_symbol(pilots, (int)(m / K))) {
      e += data_bit_errors(p->bps, run, xh + i, lab + i);
    } else {
      for (size_t j = i; j < i + run; j++)
        if (pilot_antenna(pilots, m0 + j) < 0) e += re_bit_errors(p->bps, xh[j], lab[j]);
    }
    i += run;
  }
  return e;
}

void cpu_count_errors(const link_params *p, const cpu_state *s, uint64_t frames, uint32_t *errors) {
  const uint64_t rf = link_res_per_frame(p);
  const size_t R = (size_t)(frames * rf);
  const int tx = p->tx;
  const uint64_t chunks_per_frame = (rf + CPU_CHUNK - 1) / CPU_CHUNK;
  const long items = (long)(frames * chunks_per_frame);
#pragma omp parallel for schedule(dynamic, 4)
  for (long it = 0; it < items; it++) {
    const frame_chunk c = cpu_chunk_of(it, rf, chunks_per_frame);
    for (int t = 0; t < tx; t++) {
      const uint32_t e = cpu_chunk_bit_errors(p, &s->re.pilots, c.m0, c.n, s->xhat + (size_t)t * R + c.o,
                                              s->labels + (size_t)t * R + c.o);
#pragma omp atomic
      errors[c.f * (uint64_t)tx + (uint64_t)t] += e;
    }
  }
}
