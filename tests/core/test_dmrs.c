/* NR PDSCH DMRS (core/dmrs.h) against 38.211 written out by hand here: the
 * occasions of Tables 7.4.1.1.2-3 and -4, the port parameters of Tables
 * 7.4.1.1.2-1 and -2, every RE of every configuration against the mapping
 * formula of 7.4.1.1.2 enumerated in NR numbering, the data REs and their
 * indices, the Gold sequence against 5.2.1's recursions run literally on
 * arrays, and the OCC's orthogonality over each CDM block. */
#include <stdlib.h>
#include <string.h>

#include "core/params.h"
#include "testutil.h"

#define L0 100 /* stands for l0 in the tables */

/* Table 7.4.1.1.2-3, PDSCH mapping type A, single-symbol DMRS: l_bar for
 * l_d = 3..14 and dmrs-AdditionalPosition 0..3 (l1 = 11), -1 ends a list. */
static const int single_table[12][4][5] = {
    /* 3 */ {{L0, -1}, {L0, -1}, {L0, -1}, {L0, -1}},
    /* 4 */ {{L0, -1}, {L0, -1}, {L0, -1}, {L0, -1}},
    /* 5 */ {{L0, -1}, {L0, -1}, {L0, -1}, {L0, -1}},
    /* 6 */ {{L0, -1}, {L0, -1}, {L0, -1}, {L0, -1}},
    /* 7 */ {{L0, -1}, {L0, -1}, {L0, -1}, {L0, -1}},
    /* 8 */ {{L0, -1}, {L0, 7, -1}, {L0, 7, -1}, {L0, 7, -1}},
    /* 9 */ {{L0, -1}, {L0, 7, -1}, {L0, 7, -1}, {L0, 7, -1}},
    /* 10 */ {{L0, -1}, {L0, 9, -1}, {L0, 6, 9, -1}, {L0, 6, 9, -1}},
    /* 11 */ {{L0, -1}, {L0, 9, -1}, {L0, 6, 9, -1}, {L0, 6, 9, -1}},
    /* 12 */ {{L0, -1}, {L0, 9, -1}, {L0, 6, 9, -1}, {L0, 5, 8, 11, -1}},
    /* 13 */ {{L0, -1}, {L0, 11, -1}, {L0, 7, 11, -1}, {L0, 5, 8, 11, -1}},
    /* 14 */ {{L0, -1}, {L0, 11, -1}, {L0, 7, 11, -1}, {L0, 5, 8, 11, -1}},
};
/* Table 7.4.1.1.2-4, type A, double-symbol DMRS: l_d = 4..14, positions 0..1. */
static const int double_table[11][2][3] = {
    /* 4 */ {{L0, -1}, {L0, -1}},     /* 5 */ {{L0, -1}, {L0, -1}},     /* 6 */ {{L0, -1}, {L0, -1}},
    /* 7 */ {{L0, -1}, {L0, -1}},     /* 8 */ {{L0, -1}, {L0, -1}},     /* 9 */ {{L0, -1}, {L0, -1}},
    /* 10 */ {{L0, -1}, {L0, 8, -1}}, /* 11 */ {{L0, -1}, {L0, 8, -1}}, /* 12 */ {{L0, -1}, {L0, 8, -1}},
    /* 13 */ {{L0, -1}, {L0, 10, -1}}, /* 14 */ {{L0, -1}, {L0, 10, -1}},
};

static void test_positions(void) {
  int bad = 0, checked = 0;
  for (int len = 1; len <= 2; len++)
    for (int l0 = 2; l0 <= 3; l0++)
      for (int add = 0; add <= 3; add++)
        for (int ld = 1; ld <= 15; ld++) {
          int occ[DMRS_MAX_OCCASIONS] = {0}, want[5], nw = 0;
          const int n = dmrs_occasions(ld, l0, add, len, occ);
          const int defined = ld >= (len == 1 ? 3 : 4) && ld <= 14 && add <= (len == 1 ? 3 : 1) &&
                              !(add == 3 && l0 == 3) && l0 + len <= ld;
          if (defined) {
            const int *row = len == 1 ? single_table[ld - 3][add] : double_table[ld - 4][add];
            for (; row[nw] != -1; nw++) want[nw] = row[nw] == L0 ? l0 : row[nw];
          }
          checked++;
          int same = n == nw;
          for (int i = 0; same && i < n; i++) same = occ[i] == want[i];
          if (!same) {
            bad++;
            fprintf(stderr, "len %d l0 %d add %d l_d %d: %d occasions (first %d), want %d\n", len, l0, add, ld, n,
                    n ? occ[0] : -1, nw);
          }
        }
  CHECK(bad == 0, "%d of %d position cases differ from Tables 7.4.1.1.2-3/-4", bad, checked);
}

/* Tables 7.4.1.1.2-1 (type 1, p~ 0..7) and -2 (type 2, p~ 0..11): lambda,
 * Delta, w_f(0), w_f(1), w_t(0), w_t(1). */
static const int type1_ports[8][6] = {
    {0, 0, 1, 1, 1, 1}, {0, 0, 1, -1, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 1, 1, -1, 1, 1},
    {0, 0, 1, 1, 1, -1}, {0, 0, 1, -1, 1, -1}, {1, 1, 1, 1, 1, -1}, {1, 1, 1, -1, 1, -1},
};
static const int type2_ports[12][6] = {
    {0, 0, 1, 1, 1, 1}, {0, 0, 1, -1, 1, 1}, {1, 2, 1, 1, 1, 1}, {1, 2, 1, -1, 1, 1},
    {2, 4, 1, 1, 1, 1}, {2, 4, 1, -1, 1, 1}, {0, 0, 1, 1, 1, -1}, {0, 0, 1, -1, 1, -1},
    {1, 2, 1, 1, 1, -1}, {1, 2, 1, -1, 1, -1}, {2, 4, 1, 1, 1, -1}, {2, 4, 1, -1, 1, -1},
};
static const int *port_row(int type, int p) { return type == 1 ? type1_ports[p] : type2_ports[p]; }

static void test_ports(void) {
  int bad = 0;
  for (int type = 1; type <= 2; type++)
    for (int p = 0; p < dmrs_max_ports(type, 2); p++) {
      const int *r = port_row(type, p);
      bad += dmrs_port_group(type, p) != r[0] || dmrs_port_delta(type, p) != r[1] || dmrs_wf(p, 0) != r[2] ||
             dmrs_wf(p, 1) != r[3] || dmrs_wt(type, p, 0) != r[4] || dmrs_wt(type, p, 1) != r[5];
    }
  CHECK(bad == 0, "%d ports differ from Tables 7.4.1.1.2-1/-2", bad);
  CHECK(dmrs_max_ports(1, 1) == 4 && dmrs_max_ports(1, 2) == 8 && dmrs_max_ports(2, 1) == 6 &&
            dmrs_max_ports(2, 2) == 12,
        "ports per configuration");
}

/* 5.2.1 literally: arrays x1, x2 of N + 1600 + 31 bits. */
static void gold_literal(uint32_t c_init, int N, uint8_t *c) {
  const int M = N + 1600 + 31;
  uint8_t *x1 = calloc((size_t)M, 1), *x2 = calloc((size_t)M, 1);
  x1[0] = 1;
  for (int i = 0; i < 31; i++) x2[i] = (uint8_t)((c_init >> i) & 1u);
  for (int n = 0; n + 31 < M; n++) {
    x1[n + 31] = (uint8_t)((x1[n + 3] + x1[n]) % 2);
    x2[n + 31] = (uint8_t)((x2[n + 3] + x2[n + 2] + x2[n + 1] + x2[n]) % 2);
  }
  for (int n = 0; n < N; n++) c[n] = (uint8_t)((x1[n + 1600] + x2[n + 1600]) % 2);
  free(x1);
  free(x2);
}

static void test_gold(void) {
  const uint32_t inits[] = {0u, 1u, 393216u, 0x7fffffffu, 12345678u, dmrs_c_init(1007, 0, 11)};
  enum { N = 700 };
  uint8_t want[N];
  uint32_t got[(N + 31) / 32 + 1];
  int bad = 0;
  for (size_t i = 0; i < sizeof inits / sizeof *inits; i++) {
    gold_literal(inits[i], N, want);
    dmrs_gold(inits[i], N, got);
    for (int n = 0; n < N; n++) bad += (int)((got[n >> 5] >> (n & 31)) & 1u) != want[n];
  }
  CHECK(bad == 0, "%d Gold bits differ from 38.211 5.2.1 run on arrays", bad);
  /* c_init of 7.4.1.1.1 with n_SCID = 0: (2^17 (14 n_s + l + 1)(2 N_ID + 1) + 2 N_ID) mod 2^31 */
  CHECK(dmrs_c_init(0, 0, 2) == 393216u, "c_init(0, 0, 2) = %u", dmrs_c_init(0, 0, 2));
  CHECK(dmrs_c_init(1, 0, 2) == (131072u * 3u * 3u + 2u), "c_init(1, 0, 2) = %u", dmrs_c_init(1, 0, 2));
  const uint64_t big = ((uint64_t)131072 * 12 * 2015 + 2014) % 2147483648u;
  CHECK(dmrs_c_init(1007, 0, 11) == (uint32_t)big, "c_init(1007, 0, 11) = %u, want %llu", dmrs_c_init(1007, 0, 11),
        (unsigned long long)big);
  /* the first bits of c_init = 1 by hand-free check: c(0..3) against the literal run */
  gold_literal(1u, 4, want);
  dmrs_gold(1u, 4, got);
  CHECK((got[0] & 15u) == (uint32_t)(want[0] | want[1] << 1 | want[2] << 2 | want[3] << 3), "c_init 1 first bits");
}

static link_params dmrs_params(int type, int len, int add, int l0, int nodata, int tx, int S, int K) {
  link_params p;
  memset(&p, 0, sizeof p);
  p.tx = tx, p.rx = 1, p.subcarriers = K, p.symbols = S;
  p.pilot_kind = PILOT_DMRS, p.dmrs_type = type, p.dmrs_length = len, p.dmrs_add_pos = add, p.dmrs_l0 = l0;
  p.dmrs_nodata = nodata, p.dmrs_boost = 1, p.dmrs_nid = 17;
  return p;
}

/* Every RE of one configuration: the ports that send there, their values,
 * the data REs and their indices, against 7.4.1.1.2's formula. */
static int check_config(int type, int len, int add, int l0, int nodata, int tx, int S, int K) {
  const link_params p = dmrs_params(type, len, add, l0, nodata, tx, S, K);
  pilot_grid g = link_pilot_grid(&p);
  const int W = dmrs_seq_words(K), nsym = g.dm.occasions * len;
  uint32_t *seq = calloc((size_t)nsym * (size_t)W, sizeof *seq);
  dmrs_fill_sequence(&g.dm, p.dmrs_nid, seq);
  g.dm.seq = seq;
  /* want[s][k_nr][t]: the port's value by the formula; dmrs_sym[s] */
  cf32 *want = calloc((size_t)S * (size_t)K * (size_t)tx, sizeof *want);
  int dsym[DMRS_MAX_SYMBOLS], ngroups = 0, bad = 0;
  for (int s = 0; s < S; s++) dsym[s] = -1;
  for (int t = 0; t < tx; t++)
    if (port_row(type, t)[0] + 1 > ngroups) ngroups = port_row(type, t)[0] + 1;
  const int nd = nodata ? nodata : ngroups;
  const float beta = sqrtf((float)nd);
  int occ[DMRS_MAX_OCCASIONS];
  const int no = dmrs_occasions(S, l0, add, len, occ);
  for (int j = 0; j < no; j++)
    for (int lp = 0; lp < len; lp++) {
      const int l = occ[j] + lp, d = j * len + lp;
      dsym[l] = d;
      uint8_t c[4096];
      gold_literal(dmrs_c_init(p.dmrs_nid, 0, l), K + 2, c);
      for (int t = 0; t < tx; t++) {
        const int *r = port_row(type, t);
        for (int n = 0; n < (type == 1 ? K / 4 : K / 6); n++)
          for (int kp = 0; kp < 2; kp++) {
            const int knr = type == 1 ? 4 * n + 2 * kp + r[1] : 6 * n + kp + r[1], m = 2 * n + kp;
            const float a = beta * (float)(r[2 + kp] * r[4 + lp]) / sqrtf(2.0f);
            want[((size_t)l * K + knr) * tx + t] = cf_make(a * (1 - 2 * c[2 * m]), a * (1 - 2 * c[2 * m + 1]));
          }
      }
    }
  uint64_t data = 0;
  for (int s = 0; s < S; s++)
    for (int knr = 0; knr < K; knr++) {
      const int k = dmrs_re_of_nr(K, knr);
      const uint64_t m = (uint64_t)s * K + k;
      /* an RE is a pilot RE when it is a DMRS symbol's RE of a group without data */
      const int group = type == 1 ? knr % 2 : (knr % 6) / 2;
      const int is_pilot = dsym[s] >= 0 && group < nd;
      bad += (pilot_antenna(&g, m) >= 0) != is_pilot;
      for (int t = 0; t < tx && is_pilot; t++) {
        const cf32 v = pilot_stream_value(&g, m, pilot_antenna(&g, m), t), w = want[((size_t)s * K + knr) * tx + t];
        bad += fabsf(v.re - w.re) > 1e-6f || fabsf(v.im - w.im) > 1e-6f;
      }
      /* a DMRS of a used port lies only on pilot REs */
      for (int t = 0; t < tx && !is_pilot; t++) bad += want[((size_t)s * K + knr) * tx + t].re != 0.0f;
    }
  /* data REs numbered in frame (RE) order */
  for (uint64_t m = 0; m < (uint64_t)S * K; m++)
    if (pilot_antenna(&g, m) < 0) bad += pilot_data_index(&g, m) != data++;
  bad += pilot_data_res(&g) != data;
  /* the DMRS symbols' numbering both ways, and the count before a symbol */
  for (int s = 0, before = 0; s < S; before += dsym[s] >= 0, s++) {
    bad += dmrs_symbol_index(&g.dm, s) != dsym[s] || dmrs_symbols_before(&g.dm, s) != before;
    if (dsym[s] >= 0) bad += dmrs_symbol_at(&g.dm, dsym[s]) != s;
  }
  bad += (uint64_t)S * K - data != (uint64_t)nsym * (uint64_t)(K / (type == 1 ? 2 : 6) * nd * (type == 1 ? 1 : 2));
  if (bad)
    fprintf(stderr, "type %d len %d add %d l0 %d nodata %d tx %d S %d K %d: %d differences\n", type, len, add, l0, nodata,
            tx, S, K, bad);
  free(want);
  free(seq);
  return bad != 0;
}

static void test_res(void) {
  int bad = 0, cases = 0;
  for (int type = 1; type <= 2; type++)
    for (int len = 1; len <= 2; len++)
      for (int add = 0; add <= (len == 1 ? 3 : 1); add++)
        for (int l0 = 2; l0 <= 3; l0++) {
          if (add == 3 && l0 == 3) continue;
          for (int tx = 1; tx <= dmrs_max_ports(type, len) && tx <= LINK_MAX_TX; tx++) {
            int used = 0;
            for (int t = 0; t < tx; t++)
              if (port_row(type, t)[0] + 1 > used) used = port_row(type, t)[0] + 1;
            for (int nd = 0; nd <= dmrs_groups(type); nd++) {
              if (nd && nd < used) continue;
              for (int S = 12; S <= 14; S++, cases++) bad += check_config(type, len, add, l0, nd, tx, S, 48 + 12 * (tx & 1));
            }
          }
        }
  CHECK(bad == 0, "%d of %d configurations place or value DMRS REs unlike 38.211 7.4.1.1.2", bad, cases);
}

/* The ports of a CDM group are orthogonal over each OCC block (2 subcarriers
 * by len symbols): sum conj(a_t) a_p = L beta^2 for p = t, 0 otherwise. */
static void test_occ(void) {
  int bad = 0;
  for (int type = 1; type <= 2; type++)
    for (int len = 1; len <= 2; len++) {
      const int tx = dmrs_max_ports(type, len) < LINK_MAX_TX ? dmrs_max_ports(type, len) : LINK_MAX_TX, K = 24;
      const link_params p = dmrs_params(type, len, 0, 2, 0, tx, 14, K);
      pilot_grid g = link_pilot_grid(&p);
      uint32_t seq[2 * 8];
      dmrs_fill_sequence(&g.dm, 5, seq);
      g.dm.seq = seq;
      const float b2 = g.dm.beta * g.dm.beta;
      for (int t = 0; t < tx; t++)
        for (int q = 0; q < tx; q++) {
          if (dmrs_port_group(type, t) != dmrs_port_group(type, q)) continue;
          const int delta = dmrs_port_delta(type, t);
          for (int n = 0; n < (type == 1 ? K / 4 : K / 6); n++) {
            double re = 0, im = 0;
            for (int lp = 0; lp < len; lp++)
              for (int kp = 0; kp < 2; kp++) {
                const int knr = type == 1 ? 4 * n + 2 * kp + delta : 6 * n + kp + delta;
                const cf32 a = dmrs_value(&g.dm, t, lp, knr), b = dmrs_value(&g.dm, q, lp, knr);
                re += (double)a.re * b.re + (double)a.im * b.im;
                im += (double)a.re * b.im - (double)a.im * b.re;
              }
            const double want = t == q ? 2.0 * len * b2 : 0.0;
            bad += fabs(re - want) > 1e-5 || fabs(im) > 1e-5;
          }
        }
    }
  CHECK(bad == 0, "%d OCC blocks not orthogonal", bad);
}

int main(void) {
  test_positions();
  test_ports();
  test_gold();
  test_res();
  test_occ();
  return test_finish("test_dmrs");
}
