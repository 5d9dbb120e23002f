/* The GMI grid's losses of many bits at once (soft_block.h): soft_grid_bit_
 * of equalizer/soft.h with the bits in the lanes. */
/* GCC tunes AVX-512 CPUs for 256-bit vectors; eight doubles a vector here. */
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("prefer-vector-width=512")
#endif
#include "equalizer/soft_block.h"

#include <math.h>

#include "equalizer/soft.h"

/* Bits a step, one a lane: the loops over them have a constant trip count
 * and no dependence, so they vectorise whatever the width. */
#define LANES 8
/* Bits summed in double before the sums go to uint64: below 2^34 quanta a
 * bit (soft.h), 2^12 of them stay below 2^53, exact. */
#define FLUSH_BITS 4096

#if defined(__GNUC__) && !defined(__clang__)
#define LANE_LOOP _Pragma("GCC ivdep")
#else
#define LANE_LOOP
#endif

/* One step of LANES bits (lanes past `live` carry llr 0 and are not added):
 * soft_grid_bit_'s operations, in its order, on each lane. */
static void grid_step(const float *llr, const uint8_t *bit, int live, double acc[GMI_GRID][LANES]) {
  const double per_nat = 1.4426950408889634074 * (double)(1u << SOFT_LOSS_SHIFT);
  double a[LANES], wrong[LANES], s_even[LANES], s_odd[LANES], u_even[LANES], u_odd[LANES], on[LANES];
  LANE_LOOP
  for (int j = 0; j < LANES; j++) {
    const float l = soft_llr_clip_(j < live ? llr[j] : 0.0f);
    const double m = (j < live ? bit[j] & 1u : 0u) ? (double)l : -(double)l;
    a[j] = fabs(m);
    wrong[j] = m < 0.0 ? 1.0 : 0.0;
    on[j] = j < live ? 1.0 : 0.0;
    s_even[j] = 0.00390625;
    s_odd[j] = 0.00390625 * 1.4142135623730951;
    u_even[j] = soft_exp_small_(mul_rn_d(s_even[j], a[j]));
    u_odd[j] = soft_exp_small_(mul_rn_d(s_odd[j], a[j]));
  }
  for (int k = 0; k < GMI_GRID; k++) {
    const int odd = (k - GMI_GRID_S1) & 1;
    double *s = odd ? s_odd : s_even, *u = odd ? u_odd : u_even;
    const double keep = k == GMI_GRID_S1 ? 0.0 : 1.0;
    LANE_LOOP
    for (int j = 0; j < LANES; j++) {
      const double y = mul_rn_d(s[j], a[j]);
      const double uk = mul_rn_d(u[j], y < SOFT_GRID_TAIL ? 1.0 : 0.0);
      const double nats = mul_rn_d(wrong[j], y) + soft_log1p_unit_(uk);
      const double q = (mul_rn_d(nats, per_nat) + 6755399441055744.0) - 6755399441055744.0;
      acc[k][j] += mul_rn_d(mul_rn_d(q, keep), on[j]);
    }
    if (k + 2 >= GMI_GRID) continue; /* no square past the last */
    LANE_LOOP
    for (int j = 0; j < LANES; j++) {
      u[j] = mul_rn_d(u[j], u[j]);
      s[j] = s[j] * 2.0;
    }
  }
}

static void flush(double acc[GMI_GRID][LANES], uint64_t *grid) {
  for (int k = 0; k < GMI_GRID; k++) {
    int64_t sum = 0;
    for (int j = 0; j < LANES; j++) {
      sum += (int64_t)acc[k][j]; /* < 2^53: exact */
      acc[k][j] = 0.0;
    }
    grid[k] += (uint64_t)sum;
  }
}

void soft_grid_losses(size_t n, const float *llr, const uint8_t *bit, uint64_t *grid) {
  double acc[GMI_GRID][LANES] = {{0.0}};
  size_t since = 0;
  for (size_t i = 0; i < n; i += LANES) {
    const int live = n - i < LANES ? (int)(n - i) : LANES;
    grid_step(llr + i, bit + i, live, acc);
    since += LANES;
    if (since >= FLUSH_BITS) {
      flush(acc, grid);
      since = 0;
    }
  }
  flush(acc, grid);
}

/* soft_loss_q with its clip as selects (soft_llr_clip_), so the loop
 * vectorises. */
void soft_losses_q(size_t n, const float *llr, const uint8_t *bit, uint32_t *q) {
  LANE_LOOP
  for (size_t i = 0; i < n; i++) q[i] = soft_loss_q_clipped_(soft_llr_clip_(llr[i]), bit[i] & 1u);
}
