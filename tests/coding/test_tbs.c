/* TB size, MCS tables and base graph choice against worked examples, each
 * computed by hand from the 38.214 5.1.3.2 formulas in the comments. */
#include <math.h>

#include "coding/tbs.h"
#include "testutil.h"

/* The spectral efficiency column Qm R of Tables 5.1.3.1-1/-2/-3, as printed
 * (4 decimals): checks every (Qm, R) pair through its product. */
static const double se_64qam[29] = {0.2344, 0.3066, 0.3770, 0.4902, 0.6016, 0.7402, 0.8770, 1.0273, 1.1758, 1.3262,
                                    1.3281, 1.4766, 1.6953, 1.9141, 2.1602, 2.4063, 2.5703, 2.5664, 2.7305, 3.0293,
                                    3.3223, 3.6094, 3.9023, 4.2129, 4.5234, 4.8164, 5.1152, 5.3320, 5.5547};
static const double se_256qam[28] = {0.2344, 0.3770, 0.6016, 0.8770, 1.1758, 1.4766, 1.6953, 1.9141, 2.1602, 2.4063,
                                     2.5703, 2.7305, 3.0293, 3.3223, 3.6094, 3.9023, 4.2129, 4.5234, 4.8164, 5.1152,
                                     5.3320, 5.5547, 5.8906, 6.2266, 6.5703, 6.9141, 7.1602, 7.4063};
static const double se_lowse[29] = {0.0586, 0.0781, 0.0977, 0.1250, 0.1523, 0.1934, 0.2344, 0.3066, 0.3770, 0.4902,
                                    0.6016, 0.7402, 0.8770, 1.0273, 1.1758, 1.3281, 1.4766, 1.6953, 1.9141, 2.1602,
                                    2.4063, 2.5664, 2.7305, 3.0293, 3.3223, 3.6094, 3.9023, 4.2129, 4.5234};

static void check_table(mcs_table t, const double *se, int n, const int *qm_bounds) {
  CHECK(mcs_max_index(t) == n - 1, "table %d: max index %d", t, mcs_max_index(t));
  mcs_entry m;
  int se_ok = 1, qm_ok = 1;
  for (int i = 0; i < n; i++) {
    if (mcs_lookup(t, i, &m) != 0) {
      se_ok = 0;
      continue;
    }
    se_ok &= fabs(m.qm * m.rate_x1024 / 1024.0 - se[i]) < 6e-5;
    /* Qm steps at the listed indices: 2 up to qm_bounds[0], 4, 6, then 8. */
    const int want = i <= qm_bounds[0] ? 2 : i <= qm_bounds[1] ? 4 : i <= qm_bounds[2] ? 6 : 8;
    qm_ok &= m.qm == want;
  }
  CHECK(se_ok, "table %d: Qm R differs from the printed efficiencies", t);
  CHECK(qm_ok, "table %d: modulation orders", t);
  CHECK(mcs_lookup(t, n, &m) == -1 && mcs_lookup(t, -1, &m) == -1, "table %d: out-of-range index accepted", t);
}

int main(void) {
  check_table(MCS_TABLE_64QAM, se_64qam, 29, (const int[]){9, 16, 28});
  check_table(MCS_TABLE_256QAM, se_256qam, 28, (const int[]){4, 10, 19});
  check_table(MCS_TABLE_64QAM_LOWSE, se_lowse, 29, (const int[]){14, 20, 28});

  /* Table 5.1.3.2-1: 93 sizes, ascending, from 24 to 3824, all multiples of 8. */
  int tab_ok = tbs_table_size() == 93 && tbs_table_entry(0) == 24 && tbs_table_entry(92) == 3824;
  for (int i = 0; i < 93; i++) tab_ok &= tbs_table_entry(i) % 8 == 0 && (i == 0 || tbs_table_entry(i) > tbs_table_entry(i - 1));
  CHECK(tab_ok, "TBS table shape");

  /* N_RE: 12 symbols, 12 DMRS REs a PRB: N'_RE = 144 - 12 = 132, 10 PRBs. */
  CHECK(tbs_n_re(12, 12, 0, 10) == 1320, "N_RE %d", tbs_n_re(12, 12, 0, 10));
  /* 14 symbols, nothing else: 168 per PRB, capped at 156. */
  CHECK(tbs_n_re(14, 0, 0, 273) == 42588, "N_RE cap %d", tbs_n_re(14, 0, 0, 273));
  mcs_entry m;

  /* (1) N_RE 1320, 64QAM MCS 9 (Qm 2, R 679/1024), 1 layer:
   * N_info = 1320 * 679/1024 * 2 = 1750.55; n = max(3, floor(log2) - 6) = 4;
   * N'_info = 16 floor(1750.55/16) = 16 * 109 = 1744; the table's next: 1800. */
  mcs_lookup(MCS_TABLE_64QAM, 9, &m);
  CHECK(tbs_from_re(1320, m.rate_x1024 / 1024, m.qm, 1) == 1800, "example 1: %d", tbs_from_re(1320, m.rate_x1024 / 1024, m.qm, 1));
  /* (2) N_RE 14400, 256QAM MCS 27 (Qm 8, R 948/1024), 2 layers:
   * N_info = 14400 * 948/1024 * 16 = 213300; N_info - 24 = 213276,
   * n = floor(log2 213276) - 5 = 17 - 5 = 12; round(213276/4096) = 52,
   * N'_info = 212992; R > 1/4 and > 8424: C = ceil(213016/8424) = 26,
   * TBS = 8 * 26 * ceil(213016/208) - 24 = 208 * 1025 - 24 = 213176. */
  mcs_lookup(MCS_TABLE_256QAM, 27, &m);
  CHECK(tbs_from_re(14400, m.rate_x1024 / 1024, m.qm, 2) == 213176, "example 2: %d", tbs_from_re(14400, m.rate_x1024 / 1024, m.qm, 2));
  /* (3) The R <= 1/4 branch: N_RE 42588, low-SE MCS 0 (Qm 2, R 30/1024),
   * 4 layers: N_info = 42588 * 30/1024 * 8 = 9981.5625; minus 24: 9957.56,
   * n = 13 - 5 = 8, round(9957.56/256) = round(38.90) = 39, N'_info = 9984;
   * C = ceil(10008/3816) = 3, TBS = 24 ceil(10008/24) - 24 = 9984. */
  mcs_lookup(MCS_TABLE_64QAM_LOWSE, 0, &m);
  CHECK(tbs_from_re(42588, m.rate_x1024 / 1024, m.qm, 4) == 9984, "example 3: %d", tbs_from_re(42588, m.rate_x1024 / 1024, m.qm, 4));
  /* (4) One block above 3824: N_RE 1320, 64QAM MCS 20 (Qm 6, R 567/1024):
   * N_info = 4385.39; minus 24: 4361.39, n = 12 - 5 = 7,
   * round(4361.39/128) = 34, N'_info = 4352 (> 3840); TBS = 8 ceil(4376/8) - 24 = 4352. */
  mcs_lookup(MCS_TABLE_64QAM, 20, &m);
  CHECK(tbs_from_re(1320, m.rate_x1024 / 1024, m.qm, 1) == 4352, "example 4: %d", tbs_from_re(1320, m.rate_x1024 / 1024, m.qm, 1));
  /* (5) Tiny: N_RE 12, Qm 2, R 120/1024: N_info = 2.81, n = 3,
   * 8 floor(2.81/8) = 0, raised to 24: TBS 24. */
  CHECK(tbs_from_re(12, 120.0 / 1024, 2, 1) == 24, "example 5: %d", tbs_from_re(12, 120.0 / 1024, 2, 1));
  /* (6) A plain rate: N_RE 1000, R 1/2, Qm 4: N_info = 2000, n = 10 - 6 = 4,
   * N'_info = 16 * 125 = 2000; the table's next: 2024. */
  CHECK(tbs_from_re(1000, 0.5, 4, 1) == 2024, "example 6: %d", tbs_from_re(1000, 0.5, 4, 1));
  /* (7) A round half up: N_info - 24 an odd multiple of 2^(n-1). N_RE 4160,
   * R 1/2, Qm 2: N_info = 4160, minus 24: 4136, n = 12 - 5 = 7,
   * 4136/128 = 32.3125 -> 32: N'_info = 4096; TBS = 8 ceil(4120/8) - 24 = 4096.
   * And N_info = 4184 (N_RE 4184): 4160/128 = 32.5 -> 33: N'_info = 4224,
   * TBS = 8 ceil(4248/8) - 24 = 4224. */
  CHECK(tbs_from_re(4160, 0.5, 2, 1) == 4096, "example 7a: %d", tbs_from_re(4160, 0.5, 2, 1));
  CHECK(tbs_from_re(4184, 0.5, 2, 1) == 4224, "example 7b: %d", tbs_from_re(4184, 0.5, 2, 1));
  CHECK(tbs_from_re(0, 0.5, 2, 1) == 0 && tbs_from_re(100, 0.0, 2, 1) == -1 && tbs_from_re(100, 1.5, 2, 1) == -1,
        "degenerate inputs");

  /* Base graph: BG2 for A <= 292, or A <= 3824 with R <= 0.67, or R <= 0.25. */
  CHECK(ldpc_select_base_graph(292, 0.9) == 2 && ldpc_select_base_graph(293, 0.9) == 1, "A = 292 boundary");
  CHECK(ldpc_select_base_graph(3824, 0.67) == 2 && ldpc_select_base_graph(3824, 0.68) == 1, "R = 0.67 boundary");
  CHECK(ldpc_select_base_graph(3825, 0.5) == 1, "A = 3825 at R 1/2");
  CHECK(ldpc_select_base_graph(100000, 0.25) == 2 && ldpc_select_base_graph(100000, 0.26) == 1, "R = 0.25 boundary");
  return test_finish("test_tbs");
}
