/* Simulated BER through the CPU backend against the closed forms of
 * sim/theory.c, inside a 99% interval. Bits of one RE err together (one RE
 * carries tx*bps bits), so the interval uses the clustered variance bound of
 * ber_consistent(): conservative, yet it still resolves a 0.5 dB SNR error. */
#include <math.h>
#include <stdio.h>

#include "linktest.h"
#include "results/stats.h"
#include "sim/theory.h"
#include "refmath.h"
#include "testutil.h"

static void check_point(const char *what, link_params p, uint64_t target) {
  /* Each case its own seed: cases sharing one noise realisation would all
   * lean the same way and hide or fake a bias. */
  uint64_t seed = 1469598103934665603ULL;
  for (const char *c = what; *c; c++) seed = (seed ^ (unsigned char)*c) * 1099511628211ULL;
  p.seed = seed;
  const char *kind = NULL;
  const double theory = theory_ber(&p, &kind);
  CHECK(!isnan(theory), "%s: no closed form", what);
  if (isnan(theory)) return;
  lt_counts c;
  /* scaled down under the sanitizers (testutil.h): the interval follows the count */
  const int rc = lt_simulate("cpu", &p, test_scaled(target, 500), 4e8, 0, &c);
  CHECK(rc == 0, "%s: simulation failed", what);
  if (rc) return;
  const double ber = (double)c.errors / (double)c.bits;
  const int ok = ber_consistent(c.errors, c.bits, theory, p.tx * p.bps, 0.99);
  printf("%-34s %-26s bits %10.3e errors %7llu ber %.4e theory %.4e ratio %.3f %s\n", what, kind,
         (double)c.bits, (unsigned long long)c.errors, ber, theory, ber / theory, ok ? "ok" : "OUT");
  CHECK(ok, "%s: ber %.5e outside the 99%% interval of theory %.5e (%llu errors)", what, ber, theory,
        (unsigned long long)c.errors);
}

int main(void) {
  const int bps[5] = {1, 2, 4, 6, 8};
  /* Eb/N0 (dB) giving BERs between 1e-2 and 1e-4 in AWGN. */
  const double awgn_db[5][2] = {{4, 7}, {4, 7}, {6, 10}, {10, 13}, {14, 17}};
  char name[96];
  for (int m = 0; m < 5; m++)
    for (int s = 0; s < 2; s++) {
      snprintf(name, sizeof name, "awgn 1x1 bps %d Eb/N0 %.0f", bps[m], awgn_db[m][s]);
      check_point(name, lt_params(1, 1, bps[m], EQ_ZF, CH_AWGN, awgn_db[m][s]), 20000);
    }
  /* MIMO AWGN; Rayleigh SISO, MRC and ZF over i.i.d. Rayleigh (diversity
   * rx - tx + 1); the last two at an SNR given as Es/N0 and as SNR. */
  static const struct {
    const char *name;
    int tx, rx, bps;
    eq_kind eq;
    channel_model model;
    double db;
    snr_def snr;
  } cases[] = {
      {"awgn 2x2 16qam zf Eb/N0 8", 2, 2, 4, EQ_ZF, CH_AWGN, 8, SNR_EBNO},
      {"awgn 4x4 64qam mmse Eb/N0 12", 4, 4, 6, EQ_MMSE, CH_AWGN, 12, SNR_EBNO},
      {"rayleigh siso bpsk Eb/N0 10", 1, 1, 1, EQ_ZF, CH_RAYLEIGH, 10, SNR_EBNO},
      {"rayleigh siso 16qam Eb/N0 15", 1, 1, 4, EQ_ZF, CH_RAYLEIGH, 15, SNR_EBNO},
      {"rayleigh siso 256qam Eb/N0 20", 1, 1, 8, EQ_MMSE, CH_RAYLEIGH, 20, SNR_EBNO},
      {"mrc 1x2 qpsk Eb/N0 6", 1, 2, 2, EQ_MMSE, CH_RAYLEIGH, 6, SNR_EBNO},
      {"mrc 1x4 qpsk Eb/N0 3", 1, 4, 2, EQ_ZF, CH_RAYLEIGH, 3, SNR_EBNO},
      {"zf 2x2 qpsk Eb/N0 10", 2, 2, 2, EQ_ZF, CH_RAYLEIGH, 10, SNR_EBNO},
      {"zf 2x2 64qam Eb/N0 20", 2, 2, 6, EQ_ZF, CH_RAYLEIGH, 20, SNR_EBNO},
      {"zf 2x4 16qam Eb/N0 8", 2, 4, 4, EQ_ZF, CH_RAYLEIGH, 8, SNR_EBNO},
      {"zf 4x4 qpsk Eb/N0 12", 4, 4, 2, EQ_ZF, CH_RAYLEIGH, 12, SNR_EBNO},
      {"zf 3x5 qpsk Eb/N0 6", 3, 5, 2, EQ_ZF, CH_RAYLEIGH, 6, SNR_EBNO},
      {"zf 2x2 qpsk Es/N0 12", 2, 2, 2, EQ_ZF, CH_RAYLEIGH, 12, SNR_ESNO},
      {"zf 4x6 16qam snr 15", 4, 6, 4, EQ_ZF, CH_RAYLEIGH, 15, SNR_SNR},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    link_params p = lt_params(cases[i].tx, cases[i].rx, cases[i].bps, cases[i].eq, cases[i].model,
                              cases[i].db);
    if (cases[i].snr != SNR_EBNO) { /* lt_params reads db as Eb/N0: n0 anew */
      p.snr_kind = cases[i].snr;
      lt_finish(&p);
    }
    check_point(cases[i].name, p, 20000);
  }
  return test_finish("test_link_ber");
}
