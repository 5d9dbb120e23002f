/* TBS determination and MCS tables. */
#include "coding/tbs.h"

#include <math.h>

static const int tbs_table[93] = {
    24,   32,   40,   48,   56,   64,   72,   80,   88,   96,   104,  112,  120,  128,  136,  144,
    152,  160,  168,  176,  184,  192,  208,  224,  240,  256,  272,  288,  304,  320,  336,  352,
    368,  384,  408,  432,  456,  480,  504,  528,  552,  576,  608,  640,  672,  704,  736,  768,
    808,  848,  888,  928,  984,  1032, 1064, 1128, 1160, 1192, 1224, 1256, 1288, 1320, 1352, 1416,
    1480, 1544, 1608, 1672, 1736, 1800, 1864, 1928, 2024, 2088, 2152, 2216, 2280, 2408, 2472, 2536,
    2600, 2664, 2728, 2792, 2856, 2976, 3104, 3240, 3368, 3496, 3624, 3752, 3824};

static const mcs_entry mcs_64qam[29] = {
    {2, 120}, {2, 157}, {2, 193}, {2, 251}, {2, 308}, {2, 379}, {2, 449}, {2, 526}, {2, 602}, {2, 679},
    {4, 340}, {4, 378}, {4, 434}, {4, 490}, {4, 553}, {4, 616}, {4, 658},
    {6, 438}, {6, 466}, {6, 517}, {6, 567}, {6, 616}, {6, 666}, {6, 719}, {6, 772}, {6, 822}, {6, 873},
    {6, 910}, {6, 948}};
static const mcs_entry mcs_256qam[28] = {
    {2, 120}, {2, 193}, {2, 308}, {2, 449}, {2, 602},
    {4, 378}, {4, 434}, {4, 490}, {4, 553}, {4, 616}, {4, 658},
    {6, 466}, {6, 517}, {6, 567}, {6, 616}, {6, 666}, {6, 719}, {6, 772}, {6, 822}, {6, 873},
    {8, 682.5}, {8, 711}, {8, 754}, {8, 797}, {8, 841}, {8, 885}, {8, 916.5}, {8, 948}};
static const mcs_entry mcs_64qam_lowse[29] = {
    {2, 30},  {2, 40},  {2, 50},  {2, 64},  {2, 78},  {2, 99},  {2, 120}, {2, 157}, {2, 193}, {2, 251},
    {2, 308}, {2, 379}, {2, 449}, {2, 526}, {2, 602},
    {4, 340}, {4, 378}, {4, 434}, {4, 490}, {4, 553}, {4, 616},
    {6, 438}, {6, 466}, {6, 517}, {6, 567}, {6, 616}, {6, 666}, {6, 719}, {6, 772}};

static const mcs_entry *const mcs_tables[MCS_TABLES] = {mcs_64qam, mcs_256qam, mcs_64qam_lowse};
static const int mcs_sizes[MCS_TABLES] = {29, 28, 29};

int mcs_max_index(mcs_table table) { return (unsigned)table < MCS_TABLES ? mcs_sizes[table] - 1 : -1; }

int mcs_lookup(mcs_table table, int index, mcs_entry *out) {
  if ((unsigned)table >= MCS_TABLES || index < 0 || index >= mcs_sizes[table]) return -1;
  *out = mcs_tables[table][index];
  return 0;
}

int tbs_table_size(void) { return 93; }
int tbs_table_entry(int i) { return tbs_table[i]; }

int tbs_n_re(int n_symb, int n_dmrs_per_prb, int n_oh_per_prb, int n_prb) {
  int per_prb = 12 * n_symb - n_dmrs_per_prb - n_oh_per_prb;
  if (per_prb > 156) per_prb = 156;
  if (per_prb < 0) per_prb = 0;
  return per_prb * n_prb;
}

/* floor(log2(x)) for x >= 1, exact (frexp splits off the binary exponent). */
static int floor_log2(double x) {
  int e;
  frexp(x, &e);
  return e - 1;
}

static int ceil_div(long a, long b) { return (int)((a + b - 1) / b); }

int tbs_from_re(int n_re, double rate, int qm, int layers) {
  if (n_re < 0 || !(rate > 0.0 && rate <= 1.0) || qm < 1 || layers < 1) return -1;
  /* Step 2. Products of integers and a dyadic rate (every table rate is
   * k/2048) are exact in double. */
  const double n_info = (double)n_re * rate * qm * layers;
  if (n_info <= 0.0) return 0;
  if (n_info <= 3824.0) {
    /* Step 3: keep the top bits of N_info (n = max(3, floor(log2 N_info) - 6)
     * low bits cleared), at least 24, then the smallest table size >= it. */
    int n = n_info < 1.0 ? 3 : floor_log2(n_info) - 6;
    if (n < 3) n = 3;
    const double step = ldexp(1.0, n);
    double q = step * floor(n_info / step);
    if (q < 24.0) q = 24.0;
    for (int i = 0; i < 93; i++)
      if (tbs_table[i] >= q) return tbs_table[i];
    return tbs_table[92];
  }
  /* Step 4: N'_info = max(3840, 2^n round((N_info - 24) / 2^n)) with
   * n = floor(log2(N_info - 24)) - 5 (round: halves up), then whole bytes per
   * code block: C blocks of at most 3816 (R <= 1/4) or 8424 bits of payload,
   * each a multiple of 8 bits after the 24-bit TB CRC. */
  const int n = floor_log2(n_info - 24.0) - 5;
  const double step = ldexp(1.0, n);
  double q = step * floor((n_info - 24.0) / step + 0.5);
  if (q < 3840.0) q = 3840.0;
  const long with_crc = (long)q + 24;
  int c = 1;
  if (rate <= 0.25)
    c = ceil_div(with_crc, 3816);
  else if (q > 8424.0)
    c = ceil_div(with_crc, 8424);
  return 8 * c * ceil_div(with_crc, 8L * c) - 24;
}

int ldpc_select_base_graph(int tbs, double rate) {
  if (tbs <= 292 || (tbs <= 3824 && rate <= 0.67) || rate <= 0.25) return 2;
  return 1;
}
