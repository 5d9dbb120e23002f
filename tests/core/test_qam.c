/* Gray QAM mapper and hard demapper: round trips, energy, Gray adjacency,
 * decision regions, clamping, and the label convention other code relies on. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/qam.h"
#include "testutil.h"

static const int all_bps[] = {1, 2, 4, 6, 8};

static int popcount32(uint32_t x) {
  int n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}

static void test_scale(int bps) {
  const double m = (double)(1u << bps);
  const double want = bps == 1 ? 1.0 : sqrt(3.0 / (2.0 * (m - 1.0)));
  CHECK(fabs(qam_scale(bps) - want) < 1e-7 * want, "bps %d scale %.9g want %.9g", bps,
        qam_scale(bps), want);
  CHECK(fabs(qam_inv_scale(bps) * want - 1.0) < 1e-6, "bps %d inv scale %.9g", bps,
        qam_inv_scale(bps));
}

static void test_round_trip_and_energy(int bps) {
  const uint32_t m = 1u << bps;
  double energy = 0.0, sum_re = 0.0, sum_im = 0.0;
  int bad = 0;
  for (uint32_t lab = 0; lab < m; lab++) {
    const cf32 x = qam_map(bps, lab);
    energy += (double)x.re * x.re + (double)x.im * x.im;
    sum_re += x.re;
    sum_im += x.im;
    if (qam_demap(bps, x) != lab) bad++;
    /* Bits above the label's bps are ignored. */
    const cf32 y = qam_map(bps, lab | (0xffffffu << bps));
    if (y.re != x.re || y.im != x.im) bad++;
  }
  CHECK(bad == 0, "bps %d: %d round-trip / high-bit failures", bps, bad);
  CHECK(fabs(energy / m - 1.0) < 1e-6, "bps %d mean energy %.9f", bps, energy / m);
  CHECK(fabs(sum_re) < 1e-4 && fabs(sum_im) < 1e-4, "bps %d not zero mean: %g %g", bps,
        sum_re, sum_im);
  /* All points distinct: the round trip above already implies it, and the
   * points sit on the odd multiples of the scale. */
  const float s = qam_scale(bps);
  int off_grid = 0;
  for (uint32_t lab = 0; lab < m; lab++) {
    const cf32 x = qam_map(bps, lab);
    const double ur = x.re / s, ui = x.im / s;
    if (fabs(ur - 2.0 * floor(ur / 2.0) - 1.0) > 1e-4) off_grid++;
    if (bps > 1 && fabs(ui - 2.0 * floor(ui / 2.0) - 1.0) > 1e-4) off_grid++;
    if (bps == 1 && x.im != 0.0f) off_grid++;
  }
  CHECK(off_grid == 0, "bps %d: %d coordinates off the odd grid", bps, off_grid);
}

static void test_gray_adjacency(int bps) {
  const uint32_t m = 1u << bps;
  const float s = qam_scale(bps);
  int pairs = 0, bad = 0;
  for (uint32_t a = 0; a < m; a++) {
    for (uint32_t b = a + 1; b < m; b++) {
      const cf32 x = qam_map(bps, a), y = qam_map(bps, b);
      const float dre = fabsf(x.re - y.re), dim = fabsf(x.im - y.im);
      const int horizontal = fabsf(dre - 2.0f * s) < 1e-3f * s && dim < 1e-3f * s;
      const int vertical = fabsf(dim - 2.0f * s) < 1e-3f * s && dre < 1e-3f * s;
      if (horizontal || vertical) {
        pairs++;
        if (popcount32(a ^ b) != 1) bad++;
      }
    }
  }
  /* A square L x L grid has 2 L (L-1) neighbour pairs; BPSK has one. */
  const int levels = 1 << (bps / 2);
  const int want_pairs = bps == 1 ? 1 : 2 * levels * (levels - 1);
  CHECK(pairs == want_pairs, "bps %d: %d neighbour pairs, want %d", bps, pairs, want_pairs);
  CHECK(bad == 0, "bps %d: %d neighbours differ in more than one bit", bps, bad);
}

static void test_decision_regions(int bps) {
  const uint32_t m = 1u << bps;
  const float s = qam_scale(bps);
  /* Offsets strictly inside the decision square of half-width s. */
  static const float frac[] = {0.0f, 0.3f, -0.3f, 0.95f, -0.95f, 0.999f, -0.999f};
  const int nf = (int)(sizeof frac / sizeof frac[0]);
  int bad = 0, crossed_bad = 0;
  for (uint32_t lab = 0; lab < m; lab++) {
    const cf32 x = qam_map(bps, lab);
    for (int i = 0; i < nf; i++) {
      for (int j = 0; j < nf; j++) {
        const cf32 z = cf_make(x.re + frac[i] * s, x.im + frac[j] * s);
        if (qam_demap(bps, z) != lab) bad++;
      }
    }
    /* Any direction: the disc of radius s fits inside the decision square. */
    for (int a = 0; a < 24; a++) {
      const float th = 6.2831853f * (float)a / 24.0f;
      const cf32 z = cf_make(x.re + 0.99f * s * cosf(th), x.im + 0.99f * s * sinf(th));
      if (qam_demap(bps, z) != lab) bad++;
    }
    /* A step of 1.01 s to the right lands on the right-hand neighbour, found
     * by searching the map, or stays on an edge point that has none. */
    const cf32 right = cf_make(x.re + 1.01f * s, x.im);
    uint32_t want = lab;
    for (uint32_t o = 0; o < m; o++) {
      const cf32 y = qam_map(bps, o);
      if (fabsf(y.re - (x.re + 2.0f * s)) < 1e-3f * s && fabsf(y.im - x.im) < 1e-3f * s) want = o;
    }
    if (qam_demap(bps, right) != want) crossed_bad++;
  }
  CHECK(bad == 0, "bps %d: %d offsets inside the region demapped elsewhere", bps, bad);
  CHECK(crossed_bad == 0, "bps %d: %d steps across a boundary missed the neighbour", bps,
        crossed_bad);
}

/* Far outside the grid the decision clamps to the outermost level, per
 * dimension: the corner labels, or the edge point with the same other level. */
static void test_clamping(int bps) {
  const uint32_t m = 1u << bps;
  int bad = 0;
  for (uint32_t lab = 0; lab < m; lab++) {
    const cf32 x = qam_map(bps, lab);
    const float far = 1e6f;
    /* Push each coordinate outwards along its own sign. */
    const cf32 z = cf_make(x.re * far, bps == 1 ? 0.0f : x.im * far);
    const uint32_t got = qam_demap(bps, z);
    const cf32 g = qam_map(bps, got);
    const float top = bps == 1 ? 1.0f : (float)((1 << (bps / 2)) - 1) * qam_scale(bps);
    if (fabsf(fabsf(g.re) - top) > 1e-6f || (g.re > 0) != (x.re > 0)) bad++;
    if (bps > 1 && (fabsf(fabsf(g.im) - top) > 1e-6f || (g.im > 0) != (x.im > 0))) bad++;
    /* Only the real part pushed out: the imaginary decision is unchanged. */
    const uint32_t edge = qam_demap(bps, cf_make(x.re * far, x.im));
    const cf32 e = qam_map(bps, edge);
    if (e.im != x.im || fabsf(fabsf(e.re) - top) > 1e-6f) bad++;
  }
  CHECK(bad == 0, "bps %d: %d far-out points not clamped to the edge", bps, bad);
  /* Infinities clamp too; a NaN gives some valid label instead of UB. */
  const uint32_t inf_lab = qam_demap(bps, cf_make(INFINITY, -INFINITY));
  const cf32 pi = qam_map(bps, inf_lab);
  CHECK(pi.re > 0 && (bps == 1 || pi.im < 0), "bps %d: infinity -> (%g, %g)", bps, pi.re,
        pi.im);
  CHECK(qam_demap(bps, cf_make(NAN, NAN)) < m, "bps %d: NaN gave an out-of-range label", bps);
}

/* The label convention: high half I, low half Q, Gray per dimension, level 0
 * the most negative amplitude. */
static void test_convention(void) {
  const float s4 = qam_scale(4);
  /* 16-QAM: I label 0b10 is Gray for index 3 -> +3s; Q label 0b00 -> -3s. */
  cf32 x = qam_map(4, 0x8u);
  CHECK(fabsf(x.re - 3 * s4) < 1e-6f && fabsf(x.im + 3 * s4) < 1e-6f, "16qam 0x8 -> (%g, %g)",
        x.re, x.im);
  x = qam_map(4, 0x0u);
  CHECK(fabsf(x.re + 3 * s4) < 1e-6f && fabsf(x.im + 3 * s4) < 1e-6f, "16qam 0x0 -> (%g, %g)",
        x.re, x.im);
  /* Q label 0b01 -> index 1 -> -s; I label 0b11 -> index 2 -> +s. */
  x = qam_map(4, 0xdu);
  CHECK(fabsf(x.re - s4) < 1e-6f && fabsf(x.im + s4) < 1e-6f, "16qam 0xd -> (%g, %g)", x.re,
        x.im);
  /* QPSK: bit 1 is I, bit 0 is Q, 1 -> positive. */
  x = qam_map(2, 0x2u);
  CHECK(x.re > 0 && x.im < 0, "qpsk 0x2 -> (%g, %g)", x.re, x.im);
  /* BPSK: 0 -> -1, 1 -> +1, only the real axis. */
  x = qam_map(1, 1u);
  CHECK(x.re == 1.0f && x.im == 0.0f, "bpsk 1 -> (%g, %g)", x.re, x.im);
  x = qam_map(1, 0u);
  CHECK(x.re == -1.0f && x.im == 0.0f, "bpsk 0 -> (%g, %g)", x.re, x.im);
  /* BPSK ignores the imaginary part entirely. */
  CHECK(qam_demap(1, cf_make(0.2f, -50.0f)) == 1u, "bpsk imag affected the decision");
  CHECK(qam_demap(1, cf_make(-0.2f, 50.0f)) == 0u, "bpsk imag affected the decision");
  CHECK(qam_demap(1, cf_make(-1e-30f, 1e30f)) == 0u, "bpsk sign decision");
  /* Gray helpers are inverses over every 4-bit label. */
  int bad = 0;
  for (uint32_t i = 0; i < 16; i++) {
    if (qam_gray_decode(qam_gray_encode(i)) != i) bad++;
    if (i > 0 && popcount32(qam_gray_encode(i) ^ qam_gray_encode(i - 1)) != 1) bad++;
  }
  CHECK(bad == 0, "gray encode/decode: %d failures", bad);
  /* Unsupported sizes are refused, not mapped to garbage. */
  CHECK(!qam_bps_valid(3) && !qam_bps_valid(0) && !qam_bps_valid(10) && qam_bps_valid(6),
        "qam_bps_valid");
  CHECK(qam_scale(3) == 0.0f && qam_demap(3, cf_make(1, 1)) == 0u, "bps 3 handling");
}

/* qam_map_q / qam_demap_q (the per-link constants, with their own QPSK and
 * 16-QAM bodies) give exactly qam_map / qam_demap: every label, high bits
 * set too, and amplitudes on a fine grid, at each decision boundary and one
 * float step either side, signed zeros, tiny, huge, infinite and NaN. */
static void test_consts_forms(int bps) {
  const qam_consts q = qam_consts_of(bps);
  int bad = 0;
  for (uint32_t lab = 0; lab < (1u << bps); lab++)
    for (uint32_t high = 0; high < 2; high++) {
      const uint32_t l = lab | (high ? 0xff00u << bps : 0u);
      const cf32 a = qam_map(bps, l), b = qam_map_q(&q, l);
      if (memcmp(&a, &b, sizeof a)) bad++;
    }
  float v[4096];
  int n = 0;
  const int levels = bps == 1 ? 2 : 1 << (bps / 2);
  const float h = 0.5f * qam_inv_scale(bps), top = (float)(levels - 1);
  for (int k = 0; k < levels - 1; k++) { /* boundary k | k+1: v h + top/2 = k + 1/2 */
    const float edge = ((float)k + 0.5f - 0.5f * top) / h;
    v[n++] = edge;
    v[n++] = nextafterf(edge, INFINITY);
    v[n++] = nextafterf(edge, -INFINITY);
    v[n++] = -edge;
  }
  const float specials[] = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-7f, -1e-7f, 1e30f, -1e30f, INFINITY, -INFINITY, NAN};
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) v[n++] = specials[i];
  for (int i = 0; n < 4096; i++) v[n++] = -2.0f * top / (2.0f * h) + (float)i * 1e-3f; /* the grid */
  for (int i = 0; i < n; i += 7)
    for (int j = 0; j < n; j += 13) {
      const cf32 z = cf_make(v[i], v[j]);
      if (qam_demap(bps, z) != qam_demap_q(&q, z)) bad++;
    }
  for (int i = 0; i < n; i++) { /* every value on both axes against the boundaries and specials */
    const cf32 z0 = cf_make(v[i], v[i % 44]), z1 = cf_make(v[i % 44], v[i]);
    if (qam_demap(bps, z0) != qam_demap_q(&q, z0) || qam_demap(bps, z1) != qam_demap_q(&q, z1)) bad++;
  }
  CHECK(bad == 0, "bps %d: %d differences between the _q forms and qam_map/qam_demap", bps, bad);
}

int main(void) {
  for (size_t i = 0; i < sizeof all_bps / sizeof all_bps[0]; i++) {
    const int bps = all_bps[i];
    test_scale(bps);
    test_round_trip_and_energy(bps);
    test_gray_adjacency(bps);
    test_decision_regions(bps);
    test_clamping(bps);
    test_consts_forms(bps);
  }
  test_convention();
  return test_finish("test_qam");
}
