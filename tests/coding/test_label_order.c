/* The coded bits' place in a QAM symbol against TS 38.211 7.3.1.2, written
 * out here from its formulas: for every bit pattern b0 .. b(q-1) of QPSK,
 * 16-, 64- and 256-QAM, qam_map(tb_symbol_label(b)) is the 38.211 point of
 * the complemented bits (ofdmsim's polarity: label bit 1 is the positive
 * level; a relabelling that changes no rate). Also: tb_llr_index is the
 * inverse walk (coded bit i's LLR sits where its label bit does). */
#include <math.h>
#include <stdint.h>

#include "coding/label_order.h"
#include "core/qam.h"
#include "testutil.h"

/* One dimension of 38.211's square QAM from its bits c[0] (the sign) ..
 * c[n-1], n = q/2: (1-2c0)(2^(n-1) - (1-2c1)(2^(n-2) - ... (2 - (1-2c(n-1))))),
 * built from the inside out. */
static double axis(const int *c, int n) {
  double v = 1.0;
  for (int m = 1; m < n; m++) v = (double)(1 << m) - (1 - 2 * c[n - m]) * v;
  return (1 - 2 * c[0]) * v;
}

int main(void) {
  const int qs[] = {2, 4, 6, 8};
  const double norm[] = {2.0, 10.0, 42.0, 170.0};
  for (int qi = 0; qi < 4; qi++) {
    const int q = qs[qi], n = q / 2;
    int bad = 0;
    for (uint32_t pattern = 0; pattern < (1u << q); pattern++) {
      uint8_t b[8];
      int ci[4], cq[4];
      for (int k = 0; k < q; k++) b[k] = (uint8_t)((pattern >> k) & 1u);
      /* 38.211: even bits on I, odd on Q, in significance order; complemented */
      for (int m = 0; m < n; m++) {
        ci[m] = 1 - b[2 * m];
        cq[m] = 1 - b[2 * m + 1];
      }
      const double s = 1.0 / sqrt(norm[qi]);
      const double re = axis(ci, n) * s, im = axis(cq, n) * s;
      const cf32 x = qam_map(q, tb_symbol_label(b, q));
      if (fabs(x.re - re) > 1e-6 || fabs(x.im - im) > 1e-6) {
        if (bad++ < 4)
          CHECK(0, "qm %d bits %#x: ofdmsim (%g, %g), 38.211 of the complement (%g, %g)", q, pattern, x.re, x.im,
                re, im);
      }
      /* the LLR walk: label bit tb_label_bit(k) of symbol 3 is index 3q + it */
      for (int k = 0; k < q; k++)
        if (tb_llr_index((size_t)(3 * q + k), q) != (size_t)(3 * q + tb_label_bit(k, q))) bad++;
    }
    CHECK(bad == 0, "qm %d: %d of %d patterns off 38.211", q, bad, 1 << q);
    /* the map is a permutation of the label bits */
    uint32_t seen = 0;
    for (int k = 0; k < q; k++) seen |= 1u << tb_label_bit(k, q);
    CHECK(seen == (1u << q) - 1u, "qm %d: label bits hit %#x", q, seen);
  }
  CHECK(tb_label_bit(0, 1) == 0, "BPSK is the identity");
  return test_finish("test_label_order");
}
