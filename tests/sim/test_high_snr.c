/* BER at high SNR against the exact theory, where float Gram matrices of ZF
 * (and of MMSE with a vanishing N0) are often too ill-conditioned to invert:
 * those REs must be equalised again in double precision, never decided from
 * the NaN a flagged inverse leaves. Before that fallback, 4x4 ZF at 50 dB
 * reported 2.7 times the theory and 8x8 ZF at 40 dB 1.28 times.
 *
 * On the CPU backend always; on the CUDA backend too when a GPU is usable
 * (the device machine). Every case must also have gone through the fallback
 * at least once, so the test exercises it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "linktest.h"
#include "refmath.h"
#include "sim/backends.h"
#include "sim/theory.h"
#include "testutil.h"

static void check_case(const char *backend, int n, eq_kind eq, double ebno_db, uint64_t target) {
  link_params p = lt_params(n, n, 2, eq, CH_RAYLEIGH, ebno_db);
  p.subcarriers = 256;
  p.symbols = 14;
  p.seed = 1000003u * (uint64_t)n + (uint64_t)ebno_db + (eq == EQ_MMSE ? 77u : 0u);
  /* MMSE has no closed form for tx > 1. With a finite constellation it beats
   * ZF by a wide margin even at high SNR (0.38x at 4x4, 0.14x at 8x8 here),
   * so ZF's exact BER is an upper bound for it: a floor from wrongly decided
   * REs would push it above. */
  link_params zf = p;
  zf.equalizer = EQ_ZF;
  const char *kind = NULL;
  const double theory = theory_ber(&zf, &kind);
  lt_counts c;
  /* scaled down under the sanitizers (testutil.h): the interval follows the
   * count, and the fallback must still have been taken */
  const int rc = lt_simulate(backend, &p, test_scaled(target, 20), (double)test_scaled(eq == EQ_MMSE ? 150000000 : 2000000000, 1), 0, &c);
  CHECK(rc == 0, "%s %dx%d: simulation failed", backend, n, n);
  if (rc) return;
  const double ber = (double)c.errors / (double)c.bits;
  const int consistent = ber_consistent(c.errors, c.bits, theory, p.tx * p.bps, 0.99);
  const int ok = eq == EQ_ZF ? consistent : (ber <= theory || consistent);
  printf("%-5s %dx%d qpsk %-4s Eb/N0 %2.0f dB: bits %9.3e errors %5llu ber %.3e theory %.3e ratio %.3f "
         "fallback REs %llu %s\n",
         backend, n, n, eq == EQ_ZF ? "zf" : "mmse", ebno_db, (double)c.bits,
         (unsigned long long)c.errors, ber, theory, ber / theory, (unsigned long long)c.fallbacks,
         ok ? "ok" : "OUT");
  CHECK(ok, "%s %dx%d %s %.0f dB: ber %.4e outside the 99%% interval of (zf: at, mmse: at or below) %.4e", backend, n, n,
        eq == EQ_ZF ? "zf" : "mmse", ebno_db, ber, theory);
  CHECK(c.fallbacks > 0, "%s %dx%d %.0f dB: no RE needed the double fallback, so it went untested",
        backend, n, n, ebno_db);
}

static void run_backend(const char *backend) {
  static const struct {
    int n;
    eq_kind eq;
    double db;
    uint64_t target;
  } cases[] = {
      {2, EQ_ZF, 40, 300}, {2, EQ_ZF, 50, 150}, {4, EQ_ZF, 40, 300},   {4, EQ_ZF, 50, 150},
      {8, EQ_ZF, 40, 300}, {8, EQ_ZF, 50, 150}, {4, EQ_MMSE, 50, 100}, {8, EQ_MMSE, 50, 100},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    check_case(backend, cases[i].n, cases[i].eq, cases[i].db, cases[i].target);
}

int main(void) {
  run_backend("cpu");
  char why[256];
  if (backends_usable("cuda", why, sizeof why))
    run_backend("cuda");
  else
    printf("cuda: not run (%s)\n", why);
  return test_finish("test_high_snr");
}
