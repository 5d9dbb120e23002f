/* Every config key's value at a point, and the point key (config_columns.h). */
#include "config/config_columns.h"

#include <string.h>

#include "core/draws.h"
#include "config/config_schema.h"

/* A custom profile's list as one CSV cell: the numbers apart by spaces
 * (a comma would split the cell), "" for no custom taps. */
static void list_text(const double *x, int count, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < count && len < n; i++) len += (size_t)snprintf(buf + len, n - len, "%s%.17g", i ? " " : "", x[i]);
}

/* The text of key k at pt; "" where the key does not apply. Numbers are
 * printed to round-trip (%.17g), so equal text means equal value. */
static void value_text(const sim_config *c, const sim_point *pt, config_key_id k, char *buf, size_t n) {
  const link_params *p = &pt->p;
  const int tdl = p->model == CH_TDL, cdl = link_is_cdl(p),
            custom = tdl && p->profile == PDP_CUSTOM;
  const link_panel *pn = k >= KEY_RX_ROWS ? &p->cdl.rx : &p->cdl.tx;
  const int dmrs = p->pilot_kind == PILOT_DMRS;
  buf[0] = '\0';
  switch (k) {
  case KEY_BACKEND: snprintf(buf, n, "%s", c->backend); break;
  case KEY_SEED: snprintf(buf, n, "%llu", (unsigned long long)p->seed); break;
  case KEY_SNR_DB: snprintf(buf, n, "%.17g", p->snr_db); break;
  case KEY_SNR_KIND: snprintf(buf, n, "%s", snr_kind_name(p->snr_kind)); break;
  case KEY_TARGET_ERRORS: snprintf(buf, n, "%llu", (unsigned long long)pt->target_errors); break;
  case KEY_MAX_BITS: snprintf(buf, n, "%.17g", pt->max_bits); break;
  case KEY_MIN_FRAMES: snprintf(buf, n, "%llu", (unsigned long long)pt->min_frames); break;
  case KEY_TARGET_PRECISION: snprintf(buf, n, "%.17g", pt->target_precision); break;
  case KEY_STOP_BELOW_BER: snprintf(buf, n, "%.17g", pt->stop_below_ber); break;
  case KEY_FIRST_FRAME: snprintf(buf, n, "%llu", (unsigned long long)pt->first_frame); break;
  case KEY_THREADS: snprintf(buf, n, "%d", c->threads); break;
  case KEY_BATCH_FRAMES: snprintf(buf, n, "%llu", (unsigned long long)c->batch_frames); break;
  case KEY_GPU_MEMORY_MB: snprintf(buf, n, "%llu", (unsigned long long)c->gpu_memory_mb); break;
  case KEY_TX: snprintf(buf, n, "%d", p->tx); break;
  case KEY_RX: snprintf(buf, n, "%d", p->rx); break;
  case KEY_MODULATION: snprintf(buf, n, "%s", modulation_name_of_bps(p->bps)); break;
  case KEY_EQUALIZER: snprintf(buf, n, "%s", equalizer_name(p->equalizer)); break;
  case KEY_MODEL: snprintf(buf, n, "%s", cdl ? pdp_kind_name(p->profile) : channel_model_name(p->model)); break;
  case KEY_PROFILE: if (tdl && !cdl) snprintf(buf, n, "%s", pdp_kind_name(p->profile)); break;
  case KEY_DELAY_SPREAD: if (tdl && !custom) snprintf(buf, n, "%.17g", p->delay_spread); break;
  case KEY_RHO_TX: snprintf(buf, n, "%.17g", p->rho_tx); break;
  case KEY_RHO_RX: snprintf(buf, n, "%.17g", p->rho_rx); break;
  case KEY_K_FACTOR: snprintf(buf, n, "%.17g", p->k_factor); break;
  case KEY_CSI_ERROR_VAR: snprintf(buf, n, "%.17g", p->csi_error_var); break;
  case KEY_SUBCARRIERS: snprintf(buf, n, "%d", p->subcarriers); break;
  case KEY_SYMBOLS: snprintf(buf, n, "%d", p->symbols); break;
  case KEY_DOMAIN: snprintf(buf, n, "%s", ofdm_domain_name(p->domain)); break;
  case KEY_CP_LENGTH: snprintf(buf, n, "%d", p->cp_length); break;
  case KEY_LLR: snprintf(buf, n, "%s", llr_kind_name(p->llr)); break;
  case KEY_KBEST_K: if (p->equalizer == EQ_KBEST) snprintf(buf, n, "%d", p->kbest_k); break;
  case KEY_LLR_CLIP: if (p->equalizer == EQ_KBEST) snprintf(buf, n, "%.17g", p->llr_clip); break;
  case KEY_GMI: if (p->llr != LLR_OFF) snprintf(buf, n, "%s", gmi_kind_name(p->gmi)); break;
  case KEY_SUBCARRIER_SPACING: snprintf(buf, n, "%.17g", p->subcarrier_spacing); break;
  case KEY_DELAY_SPREAD_NS: if (tdl && !custom) snprintf(buf, n, "%.17g", p->delay_spread / link_sample_rate(p) * 1e9); break;
  case KEY_DELAYS: if (tdl && !cdl) snprintf(buf, n, "%s", delay_grid_name(p->delays)); break;
  case KEY_DOPPLER_HZ: if (tdl || link_flat_doppler_per_sample(p) > 0.0) snprintf(buf, n, "%.17g", p->doppler_hz); break;
  case KEY_FADING: if (p->model == CH_RAYLEIGH) snprintf(buf, n, "%s", fading_kind_name(p->fading)); break;
  case KEY_DROP_FRAMES: if (p->model == CH_RAYLEIGH || p->model == CH_TDL) snprintf(buf, n, "%d", p->drop_frames > 1 ? p->drop_frames : 1); break;
  case KEY_PILOT_SPACING: snprintf(buf, n, "%d", p->pilot_spacing); break;
  case KEY_PILOT_FIRST: if (p->pilot_spacing) snprintf(buf, n, "%d", p->pilot_first); break;
  case KEY_PILOT_EVERY: if (p->pilot_spacing) snprintf(buf, n, "%d", p->pilot_every); break;
  case KEY_ESTIMATION: snprintf(buf, n, "%s", est_kind_name(p->estimation)); break;
  case KEY_PILOT_TYPE: snprintf(buf, n, "%s", value_to_name(&pilot_kind_names, p->pilot_kind)); break;
  case KEY_DMRS_TYPE: if (dmrs) snprintf(buf, n, "%d", p->dmrs_type); break;
  case KEY_DMRS_LENGTH: if (dmrs) snprintf(buf, n, "%d", p->dmrs_length); break;
  case KEY_DMRS_ADD_POS: if (dmrs) snprintf(buf, n, "%d", p->dmrs_add_pos); break;
  case KEY_DMRS_L0: if (dmrs) snprintf(buf, n, "%d", p->dmrs_l0); break;
  case KEY_DMRS_NODATA: if (dmrs) snprintf(buf, n, "%d", p->dmrs_nodata); break;
  case KEY_DMRS_BOOST: if (dmrs) snprintf(buf, n, "%d", p->dmrs_boost); break;
  case KEY_DMRS_NID: if (dmrs) snprintf(buf, n, "%d", p->dmrs_nid); break;
  case KEY_TIME_INTERPOLATION:
    if (p->estimation == EST_LS) snprintf(buf, n, "%s", value_to_name(&time_interp_names, p->time_interpolation));
    break;
  case KEY_EBNO_OVERHEAD:
    if (p->snr_kind == SNR_EBNO) snprintf(buf, n, "%s", p->ebno_charged ? "charged" : "excluded");
    break;
  case KEY_INTERPOLATION: if (p->estimation == EST_LS) snprintf(buf, n, "%s", interp_kind_name(p->interpolation)); break;
  case KEY_TARGET_BLOCK_ERRORS: if (link_coded(p)) snprintf(buf, n, "%llu", (unsigned long long)pt->target_block_errors); break;
  case KEY_MAX_BLOCKS: if (link_coded(p)) snprintf(buf, n, "%llu", (unsigned long long)pt->max_blocks); break;
  case KEY_CODE_TYPE: snprintf(buf, n, "%s", value_to_name(&code_kind_names, (int)p->code.type)); break;
  case KEY_CODE_RATE: if (link_coded(p)) snprintf(buf, n, "%.17g", p->code.rate); break;
  case KEY_CODE_TBS: if (link_coded(p)) snprintf(buf, n, "%d", p->code.tbs); break;
  case KEY_CODE_MCS: if (link_coded(p) && p->code.mcs >= 0) snprintf(buf, n, "%d", p->code.mcs); break;
  case KEY_CODE_MCS_TABLE:
    if (link_coded(p) && p->code.mcs >= 0) snprintf(buf, n, "%s", value_to_name(&mcs_table_names, p->code.mcs_table));
    break;
  case KEY_CODE_RV: if (link_coded(p)) snprintf(buf, n, "%d", p->code.rv); break;
  case KEY_CODE_HARQ: if (link_coded(p)) snprintf(buf, n, "%d", p->code.harq); break;
  case KEY_CODE_DECODER:
    if (link_coded(p)) snprintf(buf, n, "%s", value_to_name(&code_decoder_names, (int)p->code.decoder));
    break;
  case KEY_CODE_SCALE:
    if (link_coded(p) && (p->code.decoder == CODE_DEC_NMS || p->code.decoder == CODE_DEC_NMS16))
      snprintf(buf, n, "%.17g", p->code.scale);
    break;
  case KEY_CODE_OFFSET: if (link_coded(p) && p->code.decoder == CODE_DEC_OMS) snprintf(buf, n, "%.17g", p->code.offset); break;
  case KEY_CODE_MAX_ITERATIONS: if (link_coded(p)) snprintf(buf, n, "%d", p->code.max_iterations); break;
  case KEY_CODE_EARLY_TERMINATION: if (link_coded(p)) snprintf(buf, n, "%d", p->code.early_termination); break;
  case KEY_ASD_DEG: if (cdl) snprintf(buf, n, "%.17g", p->cdl.asd); break;
  case KEY_ASA_DEG: if (cdl) snprintf(buf, n, "%.17g", p->cdl.asa); break;
  case KEY_ZSD_DEG: if (cdl) snprintf(buf, n, "%.17g", p->cdl.zsd); break;
  case KEY_ZSA_DEG: if (cdl) snprintf(buf, n, "%.17g", p->cdl.zsa); break;
  case KEY_TRAVEL_AZIMUTH: if (cdl) snprintf(buf, n, "%.17g", p->cdl.travel_azimuth_deg); break;
  case KEY_TRAVEL_ZENITH: if (cdl) snprintf(buf, n, "%.17g", p->cdl.travel_zenith_deg); break;
  case KEY_TX_ROWS: case KEY_RX_ROWS: if (cdl) snprintf(buf, n, "%d", pn->rows); break;
  case KEY_TX_COLUMNS: case KEY_RX_COLUMNS: if (cdl) snprintf(buf, n, "%d", pn->columns); break;
  case KEY_TX_SPACING_V: case KEY_RX_SPACING_V: if (cdl) snprintf(buf, n, "%.17g", pn->spacing_v); break;
  case KEY_TX_SPACING_H: case KEY_RX_SPACING_H: if (cdl) snprintf(buf, n, "%.17g", pn->spacing_h); break;
  case KEY_TX_POL: case KEY_RX_POL: if (cdl) snprintf(buf, n, "%s", value_to_name(&panel_pol_names, (int)pn->pol)); break;
  case KEY_TX_PATTERN: case KEY_RX_PATTERN:
    if (cdl) snprintf(buf, n, "%s", value_to_name(&panel_pattern_names, (int)pn->pattern));
    break;
  case KEY_TX_BEARING: case KEY_RX_BEARING: if (cdl) snprintf(buf, n, "%.17g", pn->bearing_deg); break;
  case KEY_TX_DOWNTILT: case KEY_RX_DOWNTILT: if (cdl) snprintf(buf, n, "%.17g", pn->downtilt_deg); break;
  case KEY_TAP_DELAYS_NS: if (custom) list_text(pt->tap_delay_ns, pt->custom_taps, buf, n); break;
  case KEY_TAP_POWERS_DB: if (custom) list_text(pt->tap_power_db, pt->custom_taps, buf, n); break;
  case KEY_TAP_K_DB: if (custom && pt->tap_k_given) list_text(pt->tap_k_db, pt->custom_taps, buf, n); break;
  /* a speed is shown as the Doppler shift it makes (doppler_hz) */
  case KEY_SPEED_KMH:
  case KEY_CARRIER_GHZ:
  case KEY_COUNT: break;
  }
}

/* Room for a cell: a custom profile's TDL_MAX_TAPS numbers in %.17g. */
#define COLUMN_TEXT_MAX (TDL_MAX_TAPS * 26)

/* Keys outside the point key: the per-run settings (schema's per_run), the
 * stopping rules and the frame range. */
static int shapes_result(config_key_id k) {
  switch (k) {
  case KEY_TARGET_ERRORS:
  case KEY_MAX_BITS:
  case KEY_MIN_FRAMES:
  case KEY_TARGET_PRECISION:
  case KEY_STOP_BELOW_BER:
  case KEY_FIRST_FRAME:
  case KEY_TARGET_BLOCK_ERRORS:
  case KEY_MAX_BLOCKS: return 0;
  default: return !config_keys[k].per_run;
  }
}

void config_columns_head(FILE *f) {
  for (int k = 0; k < KEY_COUNT; k++) fprintf(f, ",%s", config_keys[k].path);
}

void config_columns_row(FILE *f, const sim_config *c, const sim_point *pt) {
  char v[COLUMN_TEXT_MAX];
  for (int k = 0; k < KEY_COUNT; k++) {
    value_text(c, pt, (config_key_id)k, v, sizeof v);
    /* A real-valued key's whole number gets ".0" (snr_db 10 -> 10.0), so
     * that the column never reads back as integers in pandas. Here only,
     * not in value_text: the point key hashes the text as it always was. */
    const key_type t = config_keys[k].type;
    const size_t len = strlen(v);
    if ((t == KT_NUMBER || t == KT_NUMBERS) && len && strspn(v, "-0123456789") == len && len + 3 <= sizeof v)
      memcpy(v + len, ".0", 3);
    fprintf(f, ",%s", v);
  }
}

uint64_t config_point_key(const sim_config *c, const sim_point *pt) {
  /* FNV-1a over "path=value;" of the keys that shape the result, then mixed. */
  uint64_t h = 1469598103934665603ULL;
  char v[COLUMN_TEXT_MAX];
  for (int k = 0; k < KEY_COUNT; k++) {
    if (!shapes_result((config_key_id)k)) continue;
    value_text(c, pt, (config_key_id)k, v, sizeof v);
    /* the receiver keys came later: left out where they do nothing, so that
     * the points of earlier runs keep their keys (and journals) */
    if ((k == KEY_LLR && pt->p.llr == LLR_OFF) || ((k == KEY_KBEST_K || k == KEY_LLR_CLIP) && !v[0])) continue;
    /* receiver.gmi came later still: sup, what every earlier point summed,
     * keeps their keys; s1 and none sum less, so they are other points */
    if (k == KEY_GMI && (pt->p.llr == LLR_OFF || pt->p.gmi == GMI_SUP)) continue;
    /* the physical units came later too: what they shape shows in the
     * samples they turn into (delay_spread, the Doppler shift with the
     * spacing), so they count only where they act beyond that */
    if (k == KEY_DELAY_SPREAD_NS || k == KEY_SPEED_KMH || k == KEY_CARRIER_GHZ) continue;
    if ((k == KEY_SUBCARRIER_SPACING || k == KEY_DOPPLER_HZ) && link_doppler_per_sample(&pt->p) == 0.0 &&
        link_flat_doppler_per_sample(&pt->p) == 0.0)
      continue;
    /* pilots and estimation came later still: they count where they act */
    if ((k == KEY_PILOT_SPACING || k == KEY_PILOT_FIRST || k == KEY_PILOT_EVERY) && !pt->p.pilot_spacing) continue;
    if ((k == KEY_ESTIMATION || k == KEY_INTERPOLATION) && pt->p.estimation == EST_PERFECT) continue;
    /* DMRS and the time interpolation came after them: where they act */
    if (k >= KEY_PILOT_TYPE && k <= KEY_DMRS_NID && pt->p.pilot_kind != PILOT_DMRS) continue;
    if (k == KEY_TIME_INTERPOLATION && (pt->p.estimation == EST_PERFECT || pt->p.time_interpolation == 0)) continue;
    if (k == KEY_EBNO_OVERHEAD && !pt->p.ebno_charged) continue;
    /* the code came last: uncoded points keep their keys */
    if (k >= KEY_CODE_TYPE && k <= KEY_CODE_EARLY_TERMINATION && !link_coded(&pt->p)) continue;
    /* HARQ came after the code: a point without it keeps its key */
    if (k == KEY_CODE_HARQ && pt->p.code.harq <= 1) continue;
    /* and fading after them: where it is not the per-RE draw */
    if (k == KEY_FADING && pt->p.fading == FADING_INDEPENDENT) continue;
    /* and drops: where they hold more than one frame */
    if (k == KEY_DROP_FRAMES && pt->p.drop_frames <= 1) continue;
    /* the cdl keys came later: they count on cdl points alone */
    if (k >= KEY_CDL_FIRST && k <= KEY_CDL_LAST && !link_is_cdl(&pt->p)) continue;
    /* and custom taps last: where the profile is custom */
    if ((k == KEY_TAP_DELAYS_NS || k == KEY_TAP_POWERS_DB || k == KEY_TAP_K_DB) && !v[0]) continue;
    for (const char *s = config_keys[k].path; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    h = (h ^ '=') * 1099511628211ULL;
    for (const char *s = v; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    h = (h ^ ';') * 1099511628211ULL;
  }
  return rng_mix64(h);
}
