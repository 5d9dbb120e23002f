/* The fused path's frequency interpolation of several rows at once
 * (fused_freq_interpolate_lanes, cpu/fused_cpu.h; its AVX2 lanes where the
 * host has them) against the one-row sums (fused_freq_interpolate), bit for
 * bit, lane by lane: random weights and pilots (real and imaginary parts of
 * both signs and many magnitudes, so that any change in the order of the
 * products or the roundings shows), windows of 1, 2, 3 and 16 taps, 1 to
 * 1024 + 3 subcarriers (the four-subcarrier blocks and the rest), every
 * number of used lanes, the unused lanes left untouched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/fused_cpu.h"
#include "testutil.h"

enum { L = FUSED_LANES, KMAX = 1027, TMAX = 16, NMAX = KMAX + TMAX };

static uint64_t state = 0x9e3779b97f4a7c15ULL;
static float draw(void) { /* a float of either sign over 2^-8 .. 2^8 */
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  const double u = (double)(state >> 11) / 9007199254740992.0;
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  const double m = ldexp(1.0 + u, (int)(state >> 60) - 8);
  return (float)((state >> 59) & 1 ? -m : m);
}

int main(void) {
  static cf32 w[KMAX * TMAX], v[L][NMAX], one[KMAX], out[L][KMAX];
  static float pv[2 * L * NMAX];
  static int first[KMAX];
  const int taps_of[] = {1, 2, 3, 16}, K_of[] = {1, 3, 4, 5, 64, 1021, 1024, 1027};
  long compared = 0, nonzero = 0;
  for (size_t a = 0; a < sizeof taps_of / sizeof taps_of[0]; a++)
    for (size_t b = 0; b < sizeof K_of / sizeof K_of[0]; b++)
      for (int used = 1; used <= L; used++) {
        const int taps = taps_of[a], K = K_of[b], np = K; /* np + taps pilots a row */
        for (int k = 0; k < K * taps; k++) w[k] = cf_make(draw(), draw());
        for (int k = 0; k < K; k++) first[k] = (int)((unsigned)(state >> 33) % (unsigned)(np + 1)), (void)draw();
        for (int l = 0; l < L; l++)
          for (int n = 0; n < np + taps; n++) {
            v[l][n] = cf_make(draw(), draw());
            pv[(size_t)n * 2 * L + (size_t)l] = v[l][n].re;
            pv[((size_t)n * 2 + 1) * L + (size_t)l] = v[l][n].im;
          }
        cf32 *dst[L];
        for (int l = 0; l < L; l++) {
          /* the lanes in use spread over the L, the rest NULL */
          dst[l] = (l * used) % L < used ? out[l] : NULL;
          for (int k = 0; k < K; k++) out[l][k] = cf_make(12345.0f, -12345.0f);
        }
        fused_freq_interpolate_lanes(first, w, taps, (size_t)K, pv, dst);
        for (int l = 0; l < L; l++) {
          if (!dst[l]) {
            int kept = 1;
            for (int k = 0; k < K; k++) kept &= out[l][k].re == 12345.0f && out[l][k].im == -12345.0f;
            CHECK(kept, "taps %d, K %d: unused lane %d was written", taps, K, l);
            continue;
          }
          fused_freq_interpolate(first, w, taps, (size_t)K, v[l], one);
          int k = 0;
          while (k < K && !memcmp(&one[k], &out[l][k], sizeof(cf32))) k++;
          CHECK(k == K, "taps %d, K %d, lane %d of %d: subcarrier %d is (%a, %a), the one-row sum (%a, %a)", taps, K,
                l, used, k, k < K ? out[l][k].re : 0.0f, k < K ? out[l][k].im : 0.0f, k < K ? one[k].re : 0.0f,
                k < K ? one[k].im : 0.0f);
          compared += K;
          for (k = 0; k < K; k++) nonzero += one[k].re != 0.0f && one[k].im != 0.0f;
        }
      }
  CHECK(compared > 100000 && nonzero > compared / 2, "compared %ld subcarriers, %ld nonzero", compared, nonzero);
  return test_finish("test_fused_interp");
}
