/* NR PDSCH demodulation reference signals (TS 38.211 7.4.1.1), written once
 * for both backends (plain C, gcc and nvcc alike): where they sit in a frame
 * and what each stream sends there.
 *
 * A frame is one slot of PDSCH mapping type A over the whole band: its S
 * symbols (3..14) are the duration l_d, its K subcarriers (a whole number
 * of resource blocks, K % 12 == 0) the grid from common resource block 0.
 * NR numbers subcarriers from the bottom of the band; the simulator's RE k
 * sits at frequency k below K/2 and k - K from K/2 on (channel/tdl_grid.h),
 * so NR subcarrier k_nr is RE (k_nr + K/2) mod K, and every OCC pair lies
 * inside the band (never across its edge). K/2 being a multiple of 6, the
 * CDM groups repeat with the same period in both numberings.
 *
 * Stream t is antenna port 1000 + t (one port per layer, no precoding).
 * Port p~ = p - 1000 sends on its CDM group lambda (Tables 7.4.1.1.2-1 and
 * -2) at
 *   type 1: k_nr = 4n + 2k' + Delta, Delta = lambda,      n = 0 .. K/4 - 1
 *   type 2: k_nr = 6n +  k' + Delta, Delta = 2 lambda,    n = 0 .. K/6 - 1
 * k' = 0, 1, on symbols l = l_bar + l' (l' = 0, or 0 and 1 for double-symbol
 * DMRS) of every occasion l_bar of Tables 7.4.1.1.2-3 and -4, the value
 *   a = beta w_f(k') w_t(l') r_l(2n + k'),
 * w_f(1) = -1 for odd p~, w_t(1) = -1 for p~ >= 4 (type 1) or >= 6
 * (type 2), r_l the QPSK of the Gold sequence c with c_init of symbol l
 * (dmrs_c_init). The ports of one CDM group share its REs and are told
 * apart by the OCC; the REs of the first `nodata` CDM groups of a DMRS
 * symbol carry no data (38.214 5.1.6.2, "CDM groups without data"), the
 * others do. beta: sqrt of the number of CDM groups without data when
 * boosted (38.214 Table 4.1-1: 0, -3, -4.77 dB PDSCH to DMRS EPRE), else 1. */
#ifndef OFDMSIM_DMRS_H
#define OFDMSIM_DMRS_H

#include <stdint.h>

#include "core/cplx.h"
#include "core/popcount.h"

#define DMRS_MAX_OCCASIONS 4 /* Tables 7.4.1.1.2-3/-4: at most l0 + 3 */
#define DMRS_MAX_SYMBOLS 14  /* a slot */

typedef struct dmrs_grid {
  int type;            /* configuration type 1 or 2 */
  int len;             /* symbols per occasion: 1 single, 2 double */
  int occasions;       /* DMRS occasions l_bar in the frame */
  int occ[DMRS_MAX_OCCASIONS]; /* their first symbols */
  uint32_t sym_mask;   /* bit s: symbol s carries DMRS (dmrs_symbol_mask); the
                          per-RE tests read this word, never occ[]: an array
                          indexed at run time kept nvcc from holding the
                          per-RE context in registers (a copy of it in local
                          memory, stored for every RE, halved the fused 2x2
                          kernel's rate even without DMRS) */
  int nodata;          /* CDM groups without data: 1 .. groups */
  float beta;          /* the DMRS amplitude */
  int K;               /* subcarriers */
  int seq_words;       /* 32-bit words of c per DMRS symbol */
  const uint32_t *seq; /* c of DMRS symbol d = occasion * len + l' at
                          seq[d * seq_words + bit / 32]: the backend's copy
                          (host or device memory); NULL where no value is read */
} dmrs_grid;

/* CDM groups of a configuration type, and its ports (one or two symbols). */
OFDM_HD int dmrs_groups(int type) { return type == 1 ? 2 : 3; }
OFDM_HD int dmrs_max_ports(int type, int len) { return (type == 1 ? 4 : 6) * len; }
/* Port p~'s CDM group lambda and its offset Delta (Tables 7.4.1.1.2-1/-2). */
OFDM_HD int dmrs_port_group(int type, int p) { return type == 1 ? (p % 4) / 2 : (p % 6) / 2; }
OFDM_HD int dmrs_port_delta(int type, int p) { return type == 1 ? dmrs_port_group(1, p) : 2 * dmrs_port_group(2, p); }
/* w_f(k') and w_t(l') of port p~. */
OFDM_HD int dmrs_wf(int p, int kp) { return kp == 1 && (p & 1) ? -1 : 1; }
OFDM_HD int dmrs_wt(int type, int p, int lp) { return lp == 1 && p >= (type == 1 ? 4 : 6) ? -1 : 1; }
/* The period of the CDM groups in subcarriers, and the subcarriers of one
 * group in a period. */
OFDM_HD int dmrs_period(int type) { return type == 1 ? 2 : 6; }
OFDM_HD int dmrs_group_width(int type) { return type == 1 ? 1 : 2; }
/* OCC pairs n of a port on one DMRS symbol. */
OFDM_HD int dmrs_pairs(const dmrs_grid *g) { return g->type == 1 ? g->K / 4 : g->K / 6; }

/* The DMRS symbol (occasion * len + l') symbol s is, or -1: the DMRS
 * symbols before s, the occasions being in ascending order. */
OFDM_HD int dmrs_symbol_index(const dmrs_grid *g, int s) {
  if (s < 0 || s >= DMRS_MAX_SYMBOLS || !((g->sym_mask >> s) & 1u)) return -1;
  return (int)ofdm_popcount(g->sym_mask & ((1u << s) - 1u));
}
/* DMRS symbols before symbol s. */
OFDM_HD int dmrs_symbols_before(const dmrs_grid *g, int s) {
  if (s <= 0) return 0;
  return (int)ofdm_popcount(s >= DMRS_MAX_SYMBOLS ? g->sym_mask : g->sym_mask & ((1u << s) - 1u));
}
/* The CDM group of RE k (either numbering: the period divides K/2). */
OFDM_HD int dmrs_group_of(const dmrs_grid *g, int k) {
  return g->type == 1 ? k % 2 : (k % 6) / 2;
}
/* REs of a DMRS symbol without data: those of the first nodata groups. */
OFDM_HD int dmrs_res_per_symbol(const dmrs_grid *g) {
  return g->K / dmrs_period(g->type) * g->nodata * dmrs_group_width(g->type);
}
/* The non-data REs of a DMRS symbol below RE k. */
OFDM_HD int dmrs_res_before(const dmrs_grid *g, int k) {
  const int P = dmrs_period(g->type), nd = g->nodata * dmrs_group_width(g->type), r = k % P;
  return k / P * nd + (r < nd ? r : nd);
}
/* The NR subcarrier of RE k, and the RE of NR subcarrier k_nr. */
OFDM_HD int dmrs_nr_of_re(int K, int k) { return k >= K - K / 2 ? k - (K - K / 2) : k + K / 2; }
OFDM_HD int dmrs_re_of_nr(int K, int knr) { return knr < K / 2 ? knr + (K - K / 2) : knr - K / 2; }

/* What port p~ sends on NR subcarrier k_nr of DMRS symbol d (0 off its
 * CDM group). */
OFDM_HD cf32 dmrs_value(const dmrs_grid *g, int p, int d, int knr) {
  const int delta = dmrs_port_delta(g->type, p), lp = d % g->len;
  int n, kp;
  if (g->type == 1) {
    if ((knr & 1) != delta) return cf_make(0.0f, 0.0f);
    n = (knr - delta) / 4, kp = ((knr - delta) % 4) / 2;
  } else {
    const int r = knr % 6 - delta;
    if (r < 0 || r > 1) return cf_make(0.0f, 0.0f);
    n = knr / 6, kp = r;
  }
  const int m = 2 * n + kp; /* r(m) from c(2m), c(2m + 1) */
  const uint32_t *c = g->seq + (size_t)d * (size_t)g->seq_words;
  const int b0 = (int)(c[(2 * m) >> 5] >> ((2 * m) & 31)) & 1, b1 = (int)(c[(2 * m + 1) >> 5] >> ((2 * m + 1) & 31)) & 1;
  const float a = g->beta * 0.70710678118654752f * (float)(dmrs_wf(p, kp) * dmrs_wt(g->type, p, lp));
  return cf_make(b0 ? -a : a, b1 ? -a : a);
}

/* ---- host ---------------------------------------------------------------- */

/* The DMRS occasions of a type A slot of l_d symbols (Table 7.4.1.1.2-3 for
 * single, -4 for double symbols) with the first at l0 (2 or 3) and
 * dmrs-AdditionalPosition add (0..3; l1 = 11, no LTE CRS): the count, or 0
 * when the table has no entry (l_d too short, add above what the length
 * allows, add 3 with l0 = 3). */
static inline int dmrs_occasions(int ld, int l0, int add, int len, int *occ) {
  if (ld < (len == 1 ? 3 : 4) || ld > DMRS_MAX_SYMBOLS || add < 0 || add > (len == 1 ? 3 : 1) ||
      (l0 != 2 && l0 != 3) || (add == 3 && l0 != 2) || l0 + len > ld)
    return 0;
  int n = 0;
  occ[n++] = l0;
  if (len == 1) {
    if (add == 0 || ld < 8) return n;
    if (ld <= 9) {
      occ[n++] = 7;
    } else if (add == 1) {
      occ[n++] = ld <= 12 ? 9 : 11;
    } else if (add == 2 || ld <= 11) {
      if (ld <= 12) occ[n++] = 6, occ[n++] = 9;
      else occ[n++] = 7, occ[n++] = 11;
    } else {
      occ[n++] = 5, occ[n++] = 8, occ[n++] = 11;
    }
  } else if (add == 1 && ld >= 10) {
    occ[n++] = ld <= 12 ? 8 : 10;
  }
  return n;
}

/* The symbols of n occasions of len symbols from occ[] as a bit mask. */
static inline uint32_t dmrs_symbol_mask(const int *occ, int n, int len) {
  uint32_t m = 0;
  for (int j = 0; j < n; j++)
    for (int l = 0; l < len; l++) m |= 1u << (occ[j] + l);
  return m;
}

/* c_init of DMRS symbol l of slot ns (38.211 7.4.1.1.1, n_SCID = 0, 14
 * symbols a slot): (2^17 (14 ns + l + 1)(2 N_ID + 1) + 2 N_ID) mod 2^31. */
static inline uint32_t dmrs_c_init(int nid, int ns, int l) {
  const uint64_t a = (uint64_t)(14 * ns + l + 1) * (uint64_t)(2 * nid + 1);
  return (uint32_t)(((a << 17) + 2u * (uint64_t)nid) & 0x7fffffffu);
}

/* The length-31 Gold sequence of 38.211 5.2.1: c(n) = x1(n + 1600) +
 * x2(n + 1600) mod 2, x1 from 1, 0, ..., 0 with x1(n+31) = x1(n+3) + x1(n),
 * x2 from c_init's bits with x2(n+31) = x2(n+3) + x2(n+2) + x2(n+1) + x2(n).
 * Bits 0 .. nbits - 1 into out (bit n at word n / 32, bit n % 32). Each
 * register holds x(n) .. x(n+30) in bits 0 .. 30. */
static inline void dmrs_gold(uint32_t c_init, int nbits, uint32_t *out) {
  uint32_t x1 = 1u, x2 = c_init & 0x7fffffffu;
  for (int i = 0; i < (nbits + 31) / 32; i++) out[i] = 0;
  for (int n = 0; n < 1600 + nbits; n++) {
    if (n >= 1600) out[(n - 1600) >> 5] |= ((x1 ^ x2) & 1u) << ((n - 1600) & 31);
    const uint32_t f1 = (x1 ^ (x1 >> 3)) & 1u, f2 = (x2 ^ (x2 >> 1) ^ (x2 >> 2) ^ (x2 >> 3)) & 1u;
    x1 = (x1 >> 1) | (f1 << 30);
    x2 = (x2 >> 1) | (f2 << 30);
  }
}

/* Words of c a DMRS symbol of K subcarriers needs (type 1 reads r up to
 * K/2, type 2 up to K/3: c up to 2 r). */
static inline int dmrs_seq_words(int K) { return (K + 31) / 32 + 1; }

/* c of every DMRS symbol of g (occasions, len, K set) into seq
 * [occasions * len][dmrs_seq_words(K)], slot 0 and scrambling id nid. */
static inline void dmrs_fill_sequence(const dmrs_grid *g, int nid, uint32_t *seq) {
  const int w = dmrs_seq_words(g->K);
  for (int j = 0; j < g->occasions; j++)
    for (int l = 0; l < g->len; l++)
      dmrs_gold(dmrs_c_init(nid, 0, g->occ[j] + l), 32 * w, seq + (size_t)(j * g->len + l) * (size_t)w);
}

#endif
