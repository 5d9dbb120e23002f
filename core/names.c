/* The name tables of the link enumerations. */
#include "core/names.h"

#include <string.h>

/* A table from its names and their values, two parenthesised lists that
 * must have the same length. */
#define LIST(...) __VA_ARGS__
#define NAME_TABLE(table, names_, values_)                                                     \
  static const char *const table##_n[] = {LIST names_};                                       \
  static const int table##_v[] = {LIST values_};                                              \
  _Static_assert(sizeof table##_n / sizeof *table##_n == sizeof table##_v / sizeof *table##_v, \
                 #table);                                                                      \
  const name_table table = {(int)(sizeof table##_n / sizeof *table##_n), table##_n, table##_v}

NAME_TABLE(equalizer_names, ("zf", "mmse", "mmse-sic", "kbest", "ml"), (EQ_ZF, EQ_MMSE, EQ_MMSE_SIC, EQ_KBEST, EQ_ML));
NAME_TABLE(channel_model_names, ("awgn", "rayleigh", "tdl"), (CH_AWGN, CH_RAYLEIGH, CH_TDL));
NAME_TABLE(pdp_kind_names, ("exp", "tdl-a", "tdl-b", "tdl-c", "tdl-d", "tdl-e", "cdl-a", "cdl-b", "cdl-c", "cdl-d", "cdl-e", "custom"),
           (PDP_EXP, PDP_TDL_A, PDP_TDL_B, PDP_TDL_C, PDP_TDL_D, PDP_TDL_E, PDP_CDL_A, PDP_CDL_B, PDP_CDL_C,
            PDP_CDL_D, PDP_CDL_E, PDP_CUSTOM));
NAME_TABLE(tdl_profile_names, ("exp", "tdl-a", "tdl-b", "tdl-c", "tdl-d", "tdl-e", "custom"),
           (PDP_EXP, PDP_TDL_A, PDP_TDL_B, PDP_TDL_C, PDP_TDL_D, PDP_TDL_E, PDP_CUSTOM));
NAME_TABLE(panel_pol_names, ("v", "x", "vh"), (PANEL_POL_V, PANEL_POL_X, PANEL_POL_VH));
NAME_TABLE(panel_pattern_names, ("isotropic", "38.901"), (PANEL_ISOTROPIC, PANEL_38901));
NAME_TABLE(delay_grid_names, ("continuous", "sample"), (DELAYS_CONTINUOUS, DELAYS_SAMPLE));
NAME_TABLE(ofdm_domain_names, ("frequency", "time"), (DOMAIN_FREQUENCY, DOMAIN_TIME));
NAME_TABLE(snr_kind_names, ("ebno", "esno", "snr"), (SNR_EBNO, SNR_ESNO, SNR_SNR));
NAME_TABLE(llr_kind_names, ("off", "maxlog", "exact"), (LLR_OFF, LLR_MAXLOG, LLR_EXACT));
NAME_TABLE(gmi_kind_names, ("sup", "s1", "none"), (GMI_SUP, GMI_S1, GMI_NONE));
NAME_TABLE(est_kind_names, ("perfect", "ls"), (EST_PERFECT, EST_LS));
NAME_TABLE(pilot_kind_names, ("comb", "dmrs"), (PILOT_COMB, PILOT_DMRS));
NAME_TABLE(time_interp_names, ("linear", "hold"), (0, 1));
NAME_TABLE(interp_kind_names, ("nearest", "linear", "lmmse", "lmmse2d"),
           (INTERP_NEAREST, INTERP_LINEAR, INTERP_LMMSE, INTERP_LMMSE2D));
NAME_TABLE(fading_kind_names, ("independent", "block", "flat_block"),
           (FADING_INDEPENDENT, FADING_BLOCK, FADING_FLAT_BLOCK));
NAME_TABLE(ebno_overhead_names, ("excluded", "charged"), (0, 1));
NAME_TABLE(code_kind_names, ("none", "ldpc"), (CODE_NONE, CODE_LDPC));
NAME_TABLE(code_decoder_names, ("nms", "oms", "bp", "nms16"),
           (CODE_DEC_NMS, CODE_DEC_OMS, CODE_DEC_BP, CODE_DEC_NMS16));
NAME_TABLE(mcs_table_names, ("64qam", "256qam"), (0, 1));
NAME_TABLE(modulation_names, ("bpsk", "qpsk", "16qam", "64qam", "256qam"), (1, 2, 4, 6, 8));

int name_to_value(const name_table *t, const char *name) {
  for (int i = 0; i < t->count; i++)
    if (!strcmp(t->names[i], name)) return t->values[i];
  return -1;
}

const char *value_to_name(const name_table *t, int value) {
  for (int i = 0; i < t->count; i++)
    if (t->values[i] == value) return t->names[i];
  return NULL;
}

static const char *or_unknown(const name_table *t, int value) {
  const char *name = value_to_name(t, value);
  return name ? name : "unknown";
}

const char *modulation_name_of_bps(int bps) { return or_unknown(&modulation_names, bps); }
const char *equalizer_name(eq_kind e) { return or_unknown(&equalizer_names, (int)e); }
const char *channel_model_name(channel_model m) { return or_unknown(&channel_model_names, (int)m); }
const char *pdp_kind_name(pdp_kind k) { return or_unknown(&pdp_kind_names, (int)k); }
const char *delay_grid_name(delay_grid g) { return or_unknown(&delay_grid_names, (int)g); }
const char *fading_kind_name(fading_kind k) { return or_unknown(&fading_kind_names, (int)k); }
const char *ofdm_domain_name(ofdm_domain d) { return or_unknown(&ofdm_domain_names, (int)d); }
const char *snr_kind_name(snr_def k) { return or_unknown(&snr_kind_names, (int)k); }
const char *llr_kind_name(llr_kind k) { return or_unknown(&llr_kind_names, (int)k); }
const char *gmi_kind_name(gmi_kind k) { return or_unknown(&gmi_kind_names, (int)k); }
const char *est_kind_name(est_kind k) { return or_unknown(&est_kind_names, (int)k); }
const char *interp_kind_name(interp_kind k) { return or_unknown(&interp_kind_names, (int)k); }
