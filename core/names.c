/* The name tables of the link enumerations. */
#include "core/names.h"

#include <string.h>

/* A table from two arrays that must have the same length. */
#define NAME_TABLE(table, names_, values_)                                                   \
  _Static_assert(sizeof names_ / sizeof *names_ == sizeof values_ / sizeof *values_, #table); \
  const name_table table = {(int)(sizeof names_ / sizeof *names_), names_, values_}

static const char *const eq_n[] = {"zf", "mmse", "mmse-sic", "kbest", "ml"};
static const int eq_v[] = {EQ_ZF, EQ_MMSE, EQ_MMSE_SIC, EQ_KBEST, EQ_ML};
NAME_TABLE(equalizer_names, eq_n, eq_v);

static const char *const model_n[] = {"awgn", "rayleigh", "tdl"};
static const int model_v[] = {CH_AWGN, CH_RAYLEIGH, CH_TDL};
NAME_TABLE(channel_model_names, model_n, model_v);

static const char *const pdp_n[] = {"exp", "tdl-a", "tdl-b", "tdl-c", "tdl-d", "tdl-e"};
static const int pdp_v[] = {PDP_EXP, PDP_TDL_A, PDP_TDL_B, PDP_TDL_C, PDP_TDL_D, PDP_TDL_E};
NAME_TABLE(pdp_kind_names, pdp_n, pdp_v);

static const char *const delays_n[] = {"continuous", "sample"};
static const int delays_v[] = {DELAYS_CONTINUOUS, DELAYS_SAMPLE};
NAME_TABLE(delay_grid_names, delays_n, delays_v);

static const char *const domain_n[] = {"frequency", "time"};
static const int domain_v[] = {DOMAIN_FREQUENCY, DOMAIN_TIME};
NAME_TABLE(ofdm_domain_names, domain_n, domain_v);

static const char *const snr_n[] = {"ebno", "esno", "snr"};
static const int snr_v[] = {SNR_EBNO, SNR_ESNO, SNR_SNR};
NAME_TABLE(snr_kind_names, snr_n, snr_v);

static const char *const llr_n[] = {"off", "maxlog", "exact"};
static const int llr_v[] = {LLR_OFF, LLR_MAXLOG, LLR_EXACT};
NAME_TABLE(llr_kind_names, llr_n, llr_v);

static const char *const est_n[] = {"perfect", "ls"};
static const int est_v[] = {EST_PERFECT, EST_LS};
NAME_TABLE(est_kind_names, est_n, est_v);

static const char *const interp_n[] = {"nearest", "linear", "lmmse"};
static const int interp_v[] = {INTERP_NEAREST, INTERP_LINEAR, INTERP_LMMSE};
NAME_TABLE(interp_kind_names, interp_n, interp_v);

static const char *const overhead_n[] = {"excluded", "charged"};
static const int overhead_v[] = {0, 1};
NAME_TABLE(ebno_overhead_names, overhead_n, overhead_v);

static const char *const mod_n[] = {"bpsk", "qpsk", "16qam", "64qam", "256qam"};
static const int mod_v[] = {1, 2, 4, 6, 8};
NAME_TABLE(modulation_names, mod_n, mod_v);

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
const char *ofdm_domain_name(ofdm_domain d) { return or_unknown(&ofdm_domain_names, (int)d); }
const char *snr_kind_name(snr_def k) { return or_unknown(&snr_kind_names, (int)k); }
const char *llr_kind_name(llr_kind k) { return or_unknown(&llr_kind_names, (int)k); }
const char *est_kind_name(est_kind k) { return or_unknown(&est_kind_names, (int)k); }
const char *interp_kind_name(interp_kind k) { return or_unknown(&interp_kind_names, (int)k); }
