/* The names of the link enumerations as config files, messages and reports
 * spell them: one table per enumeration, read both ways. */
#ifndef OFDMSIM_NAMES_H
#define OFDMSIM_NAMES_H

#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* names[i] spells values[i]; every value is >= 0. */
typedef struct name_table {
  int count;
  const char *const *names;
  const int *values;
} name_table;

extern const name_table equalizer_names;     /* eq_kind: zf, mmse, mmse-sic, kbest, ml */
extern const name_table llr_kind_names;      /* llr_kind: off, maxlog, exact */
extern const name_table gmi_kind_names;      /* gmi_kind: sup, s1, none */
extern const name_table channel_model_names; /* channel_model: awgn, rayleigh, tdl */
extern const name_table pdp_kind_names;      /* pdp_kind: exp, tdl-a .. tdl-e, cdl-a .. cdl-e, custom */
extern const name_table tdl_profile_names;   /* channel.profile: exp, tdl-a .. tdl-e, custom */
extern const name_table panel_pol_names;     /* panel_pol: v, x (+-45), vh (0/90) */
extern const name_table panel_pattern_names; /* panel_pattern: isotropic, 38.901 */
extern const name_table delay_grid_names;    /* delay_grid: continuous, sample */
extern const name_table ofdm_domain_names;   /* ofdm_domain: frequency, time */
extern const name_table snr_kind_names;      /* snr_def: ebno, esno, snr */
extern const name_table est_kind_names;      /* est_kind: perfect, ls */
extern const name_table ebno_overhead_names; /* link_params.ebno_charged: excluded, charged */
extern const name_table pilot_kind_names;    /* pilot_kind: comb, dmrs */
extern const name_table time_interp_names;   /* link_params.time_interpolation: linear, hold */
extern const name_table interp_kind_names;   /* interp_kind: nearest, linear, lmmse, lmmse2d */
extern const name_table fading_kind_names;   /* fading_kind: independent, block, flat_block */
extern const name_table code_kind_names;     /* code_kind: none, ldpc */
extern const name_table code_decoder_names;  /* code_decoder: nms, oms, bp */
extern const name_table mcs_table_names;     /* code.mcs_table: 64qam, 256qam (coding/tbs.h's order) */
extern const name_table modulation_names;    /* bits per symbol 1, 2, 4, 6, 8: bpsk ... 256qam */

/* The value `name` spells; -1 when the table has no such name. */
int name_to_value(const name_table *t, const char *name);
/* The name of `value`; NULL when the table has none. */
const char *value_to_name(const name_table *t, int value);

/* The same, "unknown" for a value outside the enumeration. */
const char *modulation_name_of_bps(int bps);
const char *equalizer_name(eq_kind e);
const char *llr_kind_name(llr_kind k);
const char *gmi_kind_name(gmi_kind k);
const char *channel_model_name(channel_model m);
const char *pdp_kind_name(pdp_kind k);
const char *delay_grid_name(delay_grid g);
const char *ofdm_domain_name(ofdm_domain d);
const char *snr_kind_name(snr_def k);
const char *est_kind_name(est_kind k);
const char *interp_kind_name(interp_kind k);
const char *fading_kind_name(fading_kind k);

#ifdef __cplusplus
}
#endif
#endif
