/* The CRCs against a plain bit-serial polynomial division written here from
 * the generator polynomials of 38.212 5.1 (as lists of exponents), and their
 * detection of every single-bit error and every burst up to L bits. */
#include <stdio.h>
#include <string.h>

#include "coding/crc.h"
#include "testutil.h"

/* The exponents of each g(D) below D^L, as 38.212 writes them. */
static const int exps_24a[] = {23, 18, 17, 14, 11, 10, 7, 6, 5, 4, 3, 1, 0, -1};
static const int exps_24b[] = {23, 6, 5, 1, 0, -1};
static const int exps_24c[] = {23, 21, 20, 17, 15, 13, 12, 8, 4, 2, 1, 0, -1};
static const int exps_16[] = {12, 5, 0, -1};
static const int exps_11[] = {10, 9, 5, 0, -1};
static const int exps_6[] = {5, 0, -1};
static const int *const exps[CRC_KINDS] = {exps_24a, exps_24b, exps_24c, exps_16, exps_11, exps_6};
static const int lens[CRC_KINDS] = {24, 24, 24, 16, 11, 6};

/* Long division of a(D) D^L by g(D), one coefficient at a time, on an array
 * of coefficients (no words): returns the L remainder bits, p_0 first. */
static void reference_parity(int kind, const uint8_t *a, int n, uint8_t *p) {
  const int l = lens[kind];
  uint8_t g[25] = {0}; /* g[i]: coefficient of D^(l-i); g[0] = 1 */
  g[0] = 1;
  for (const int *e = exps[kind]; *e >= 0; e++) g[l - *e] = 1;
  static uint8_t work[4096 + 32];
  memcpy(work, a, (size_t)n);
  memset(work + n, 0, (size_t)l);
  for (int i = 0; i < n; i++)
    if (work[i])
      for (int j = 0; j <= l; j++) work[i + j] ^= g[j];
  memcpy(p, work + n, (size_t)l);
}

int main(void) {
  test_rng_seed(24);
  static uint8_t msg[4096 + 32];
  for (int kind = 0; kind < CRC_KINDS; kind++) {
    const int l = lens[kind];
    CHECK(crc_length((crc_kind)kind) == l, "kind %d length", kind);
    /* a(D) = 1: the remainder of D^L is g(D) - D^L, the polynomial itself. */
    uint8_t one = 1;
    CHECK(crc_remainder((crc_kind)kind, &one, 1) == crc_polynomial((crc_kind)kind), "kind %d: D^L mod g", kind);
    /* Random messages of many lengths (whole bytes and not). */
    int agree = 1, self_check = 1;
    for (int trial = 0; trial < 60; trial++) {
      const int n = trial < 20 ? trial + 1 : (int)(test_rng_u64() % 4000) + 1;
      for (int i = 0; i < n; i++) msg[i] = (uint8_t)(test_rng_u64() & 1);
      uint8_t ref[24];
      reference_parity(kind, msg, n, ref);
      crc_attach((crc_kind)kind, msg, (size_t)n);
      agree &= memcmp(ref, msg + n, (size_t)l) == 0;
      self_check &= crc_check((crc_kind)kind, msg, (size_t)(n + l));
    }
    CHECK(agree, "kind %d: parity differs from the bit-serial division", kind);
    CHECK(self_check, "kind %d: message plus parity does not check", kind);

    /* Every single-bit error and every burst of length 2..L (first and last
     * bit of the burst flipped, random inside) on a random 500-bit message. */
    const int n = 500;
    for (int i = 0; i < n; i++) msg[i] = (uint8_t)(test_rng_u64() & 1);
    crc_attach((crc_kind)kind, msg, (size_t)n);
    int missed = 0;
    for (int pos = 0; pos < n + l; pos++) {
      msg[pos] ^= 1;
      missed += crc_check((crc_kind)kind, msg, (size_t)(n + l));
      msg[pos] ^= 1;
    }
    CHECK(missed == 0, "kind %d: %d single-bit errors pass the check", kind, missed);
    missed = 0;
    for (int len = 2; len <= l; len++)
      for (int pos = 0; pos + len <= n + l; pos++) {
        uint8_t pattern[24];
        pattern[0] = pattern[len - 1] = 1;
        for (int j = 1; j < len - 1; j++) pattern[j] = (uint8_t)(test_rng_u64() & 1);
        for (int j = 0; j < len; j++) msg[pos + j] ^= pattern[j];
        missed += crc_check((crc_kind)kind, msg, (size_t)(n + l));
        for (int j = 0; j < len; j++) msg[pos + j] ^= pattern[j];
      }
    CHECK(missed == 0, "kind %d: %d bursts of at most %d bits pass the check", kind, missed, l);
    /* A burst one longer than L equal to g(D) itself (shifted) is the
     * classic undetectable error: the check must pass it, showing the
     * detection above is not vacuous. */
    uint8_t g[25] = {1};
    for (const int *e = exps[kind]; *e >= 0; e++) g[l - *e] = 1;
    for (int j = 0; j <= l; j++) msg[100 + j] ^= g[j];
    CHECK(crc_check((crc_kind)kind, msg, (size_t)(n + l)), "kind %d: an error equal to g(D) is caught", kind);
  }
  /* The pieces form the device's warp-parallel CRC adds (crc_core.h): a
   * message cut into 32 pieces of any lengths (empty ones too), each
   * piece's register from zero shifted by the bits after it, XORed, is the
   * whole message's register, for every kind and lengths around the cuts. */
  int pieces_ok = 1;
  for (int kind = 0; kind < CRC_KINDS; kind++)
    for (int n = 0; n <= 4096; n += n < 70 ? 1 : 397) {
      for (int i = 0; i < n; i++) msg[i] = (uint8_t)(test_rng_u64() & 1);
      const int l = crc_kind_length(kind);
      const uint32_t g = crc_register_polynomial(kind);
      const int len = (n + 31) / 32;
      uint32_t reg = 0;
      for (int lane = 0; lane < 32; lane++) {
        const int lo = lane * len < n ? lane * len : n, hi = lo + len < n ? lo + len : n;
        uint32_t part = 0;
        for (int i = lo; i < hi; i++) part = crc_register_bit(part, msg[i], g);
        reg ^= crc_register_shift(part, (uint64_t)(n - hi), g, l);
      }
      if ((reg >> (32 - l)) != crc_remainder((crc_kind)kind, msg, (size_t)n)) {
        pieces_ok = 0;
        fprintf(stderr, "kind %d, %d bits: the pieces' sum differs\n", kind, n);
      }
    }
  CHECK(pieces_ok, "a CRC from shifted pieces differs from the whole message's");
  /* D^m mod g against m zero bits into the register */
  int pow_ok = 1;
  for (int kind = 0; kind < CRC_KINDS; kind++) {
    const int l = crc_kind_length(kind);
    const uint32_t g = crc_register_polynomial(kind);
    uint32_t reg = 1u << (32 - l);
    for (int m = 0; m < 3000; m++) {
      pow_ok &= crc_register_dpow((uint64_t)m, g, l) == reg;
      reg = crc_register_bit(reg, 0, g);
    }
  }
  CHECK(pow_ok, "D^m mod g(D) differs from m shifts of the register");
  return test_finish("test_crc");
}
