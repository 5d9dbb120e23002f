/* Transport block size (TS 38.214 5.1.3.2), the PDSCH MCS tables (5.1.3.1)
 * and the LDPC base graph choice (TS 38.212 7.2.2 / 6.2.2). */
#ifndef OFDMSIM_CODING_TBS_H
#define OFDMSIM_CODING_TBS_H

typedef enum mcs_table { MCS_TABLE_64QAM, MCS_TABLE_256QAM, MCS_TABLE_64QAM_LOWSE, MCS_TABLES } mcs_table;

typedef struct mcs_entry {
  int qm;              /* modulation order: 2, 4, 6 or 8 */
  double rate_x1024;   /* target code rate R times 1024 (682.5 and 916.5 occur) */
} mcs_entry;

/* Tables 5.1.3.1-1 (64QAM, MCS 0..28), 5.1.3.1-2 (256QAM, 0..27) and
 * 5.1.3.1-3 (64QAM low spectral efficiency, 0..28); the reserved indices
 * (retransmissions only) carry no rate. 0, or -1 for an index past the table. */
int mcs_lookup(mcs_table table, int index, mcs_entry *out);
/* The highest non-reserved index of a table (28 or 27). */
int mcs_max_index(mcs_table table);

/* REs of one PRB for data (N'_RE = 12 N_symb - N_DMRS - N_oh), capped at 156
 * and times the PRBs: N_RE of 5.1.3.2 step 1. */
int tbs_n_re(int n_symb, int n_dmrs_per_prb, int n_oh_per_prb, int n_prb);

/* The TBS of 5.1.3.2 steps 2-4 for N_RE REs, target rate R, Qm and v layers:
 * N_info = N_RE R Qm v, quantised and looked up (N_info <= 3824) or rounded
 * to whole code blocks and bytes. 0 when N_info is 0; -1 on bad input. */
int tbs_from_re(int n_re, double rate, int qm, int layers);

/* The TBS table 5.1.3.2-1 (93 sizes from 24 to 3824). */
int tbs_table_size(void);
int tbs_table_entry(int i);

/* Base graph 2 when A <= 292, or A <= 3824 and R <= 0.67, or R <= 0.25;
 * otherwise 1 (A the TBS, R the target rate). */
int ldpc_select_base_graph(int tbs, double rate);

#endif
