/* One combination of values -> a sim_point. */
#include "config/config_point.h"

#include <math.h>
#include <string.h>

#include "channel/estimate.h"
#include "channel/tdl.h"
#include "coding/tb_chain.h"
#include "coding/tbs.h"
#include "core/draws.h"
#include "config/config_format.h"
#include "config/config_schema.h"
#include "config/config_sweep.h"
#include "config/config_where.h"

const config_setting_t *point_value(const point_view *v, int k) {
  return v->set[k] ? v->set[k] : config_state_default(v->st, k);
}
static int64_t int_of(const point_view *v, int k) { return config_setting_get_int64(point_value(v, k)); }
static double number_of(const point_view *v, int k) { return config_setting_get_float(point_value(v, k)); }
static int choice_of(const point_view *v, int k) { return config_key_choice((config_key_id)k, point_value(v, k)); }

/* The setting a combination error is reported at: the first of the keys
 * (terminated by -1) that this point sets; NULL when all are defaults. */
static const config_setting_t *first_given(const point_view *v, const int *keys) {
  for (; *keys >= 0; keys++)
    if (v->set[*keys]) return v->set[*keys];
  return NULL;
}

#define KEYS(...) ((const int[]){__VA_ARGS__, -1})

static void sweep_point(const char *label, char *at, size_t n) {
  if (*label) snprintf(at, n, " (sweep point %s)", label);
  else at[0] = '\0';
}

/* One end's panel; columns by default fill the antennas given the rows. */
static void fill_panel(const point_view *v, int first, int antennas, link_panel *a) {
  a->rows = (int)int_of(v, first + (KEY_TX_ROWS - KEY_TX_ROWS));
  a->spacing_v = number_of(v, first + (KEY_TX_SPACING_V - KEY_TX_ROWS));
  a->spacing_h = number_of(v, first + (KEY_TX_SPACING_H - KEY_TX_ROWS));
  a->pol = (panel_pol)choice_of(v, first + (KEY_TX_POL - KEY_TX_ROWS));
  a->pattern = (panel_pattern)choice_of(v, first + (KEY_TX_PATTERN - KEY_TX_ROWS));
  a->bearing_deg = number_of(v, first + (KEY_TX_BEARING - KEY_TX_ROWS));
  a->downtilt_deg = number_of(v, first + (KEY_TX_DOWNTILT - KEY_TX_ROWS));
  const int per = a->rows * (a->pol == PANEL_POL_V ? 1 : 2);
  const int cols = first + (KEY_TX_COLUMNS - KEY_TX_ROWS);
  /* a count that does not divide is left to link_params_check to refuse */
  a->columns = v->set[cols] ? (int)int_of(v, cols) : antennas % per ? antennas / per + 1 : antennas / per;
}

static void fill_cdl(const point_view *v, link_params *p) {
  link_cdl *c = &p->cdl;
  fill_panel(v, KEY_TX_ROWS, p->tx, &c->tx);
  fill_panel(v, KEY_RX_ROWS, p->rx, &c->rx);
  c->asd = v->set[KEY_ASD_DEG] ? number_of(v, KEY_ASD_DEG) : 0.0;
  c->asa = v->set[KEY_ASA_DEG] ? number_of(v, KEY_ASA_DEG) : 0.0;
  c->zsd = v->set[KEY_ZSD_DEG] ? number_of(v, KEY_ZSD_DEG) : 0.0;
  c->zsa = v->set[KEY_ZSA_DEG] ? number_of(v, KEY_ZSA_DEG) : 0.0;
  c->travel_azimuth_deg = number_of(v, KEY_TRAVEL_AZIMUTH);
  c->travel_zenith_deg = number_of(v, KEY_TRAVEL_ZENITH);
}

static void fill(const point_view *v, const char *label, sim_point *pt) {
  memset(pt, 0, sizeof *pt);
  link_params *p = &pt->p;
  p->tx = (int)int_of(v, KEY_TX);
  p->rx = (int)int_of(v, KEY_RX);
  p->bps = choice_of(v, KEY_MODULATION);
  p->equalizer = (eq_kind)choice_of(v, KEY_EQUALIZER);
  const int model = choice_of(v, KEY_MODEL);
  /* cdl-a..cdl-e: a tdl point whose profile is the CDL model */
  p->model = model >= CHANNEL_CHOICE_CDL ? CH_TDL : (channel_model)model;
  p->profile = model >= CHANNEL_CHOICE_CDL ? (pdp_kind)(PDP_CDL_A + model - CHANNEL_CHOICE_CDL)
                                           : (pdp_kind)choice_of(v, KEY_PROFILE);
  p->delays = (delay_grid)choice_of(v, KEY_DELAYS);
  p->fading = (fading_kind)choice_of(v, KEY_FADING);
  p->drop_frames = (int)int_of(v, KEY_DROP_FRAMES);
  p->rho_tx = number_of(v, KEY_RHO_TX);
  p->rho_rx = number_of(v, KEY_RHO_RX);
  /* tdl-d/e keep their table's line of sight unless k_factor says otherwise */
  p->k_factor = p->model == CH_TDL && tdl_pdp_has_los(p->profile) && !v->set[KEY_K_FACTOR]
                    ? NAN
                    : number_of(v, KEY_K_FACTOR);
  p->csi_error_var = number_of(v, KEY_CSI_ERROR_VAR);
  if (link_is_cdl(p)) fill_cdl(v, p);
  p->llr = (llr_kind)choice_of(v, KEY_LLR);
  p->gmi = (gmi_kind)choice_of(v, KEY_GMI);
  p->kbest_k = (int)int_of(v, KEY_KBEST_K);
  p->llr_clip = number_of(v, KEY_LLR_CLIP);
  p->domain = (ofdm_domain)choice_of(v, KEY_DOMAIN);
  p->subcarriers = (int)int_of(v, KEY_SUBCARRIERS);
  p->symbols = (int)int_of(v, KEY_SYMBOLS);
  p->cp_length = v->set[KEY_CP_LENGTH] ? (int)int_of(v, KEY_CP_LENGTH) : p->subcarriers / 8;
  p->subcarrier_spacing = number_of(v, KEY_SUBCARRIER_SPACING);
  /* physical units to samples: delay x sample rate, speed / c x carrier */
  p->delay_spread = v->set[KEY_DELAY_SPREAD_NS] ? number_of(v, KEY_DELAY_SPREAD_NS) * 1e-9 * link_sample_rate(p)
                                                : number_of(v, KEY_DELAY_SPREAD);
  p->doppler_hz = v->set[KEY_SPEED_KMH]
                      ? number_of(v, KEY_SPEED_KMH) / 3.6 / 299792458.0 * number_of(v, KEY_CARRIER_GHZ) * 1e9
                      : number_of(v, KEY_DOPPLER_HZ);
  p->pilot_spacing = (int)int_of(v, KEY_PILOT_SPACING);
  p->pilot_first = (int)int_of(v, KEY_PILOT_FIRST);
  p->pilot_every = (int)int_of(v, KEY_PILOT_EVERY);
  p->pilot_kind = (int)choice_of(v, KEY_PILOT_TYPE);
  p->dmrs_type = (int)int_of(v, KEY_DMRS_TYPE);
  p->dmrs_length = (int)int_of(v, KEY_DMRS_LENGTH);
  p->dmrs_add_pos = (int)int_of(v, KEY_DMRS_ADD_POS);
  p->dmrs_l0 = (int)int_of(v, KEY_DMRS_L0);
  p->dmrs_nodata = (int)int_of(v, KEY_DMRS_NODATA);
  p->dmrs_boost = (int)int_of(v, KEY_DMRS_BOOST);
  p->dmrs_nid = (int)int_of(v, KEY_DMRS_NID);
  p->time_interpolation = (int)choice_of(v, KEY_TIME_INTERPOLATION);
  p->estimation = (est_kind)choice_of(v, KEY_ESTIMATION);
  p->interpolation = (interp_kind)choice_of(v, KEY_INTERPOLATION);
  p->est_shrink = 1.0;
  p->snr_kind = (snr_def)choice_of(v, KEY_SNR_KIND);
  p->ebno_charged = (int)choice_of(v, KEY_EBNO_OVERHEAD);
  p->seed = (uint64_t)int_of(v, KEY_SEED);
  link_code *code = &p->code;
  code->type = (code_kind)choice_of(v, KEY_CODE_TYPE);
  code->rv = (int)int_of(v, KEY_CODE_RV);
  code->harq = (int)int_of(v, KEY_CODE_HARQ);
  code->decoder = (code_decoder)choice_of(v, KEY_CODE_DECODER);
  code->scale = number_of(v, KEY_CODE_SCALE);
  code->offset = number_of(v, KEY_CODE_OFFSET);
  code->max_iterations = (int)int_of(v, KEY_CODE_MAX_ITERATIONS);
  code->early_termination = (int)int_of(v, KEY_CODE_EARLY_TERMINATION);
  code->mcs_table = choice_of(v, KEY_CODE_MCS_TABLE);
  code->mcs = v->set[KEY_CODE_MCS] ? (int)int_of(v, KEY_CODE_MCS) : -1;
  code->rate = number_of(v, KEY_CODE_RATE);
  pt->target_errors = (uint64_t)int_of(v, KEY_TARGET_ERRORS);
  pt->max_bits = number_of(v, KEY_MAX_BITS);
  pt->min_frames = (uint64_t)int_of(v, KEY_MIN_FRAMES);
  pt->target_precision = number_of(v, KEY_TARGET_PRECISION);
  pt->stop_below_ber = number_of(v, KEY_STOP_BELOW_BER);
  pt->first_frame = (uint64_t)int_of(v, KEY_FIRST_FRAME);
  pt->target_block_errors = (uint64_t)int_of(v, KEY_TARGET_BLOCK_ERRORS);
  pt->max_blocks = (uint64_t)int_of(v, KEY_MAX_BLOCKS);
  /* Automatic: enough frames for the frames' spread to estimate the
   * interval, and under block fading enough channel realisations that
   * stopping on target_errors does not bias the BER. */
  if (pt->min_frames == 0)
    pt->min_frames = pt->p.model == CH_TDL || pt->p.fading != FADING_INDEPENDENT ? 100 : 10;
  snprintf(pt->label, sizeof pt->label, "%s", label);
}

/* Keys that only make sense with another key's value. A key that a zipped
 * sweep entry sets together with the key it follows is left alone in the
 * rows where it does not apply: ("perfect", "linear") next to ("ls",
 * "lmmse") compares receivers in one run (the row states its pairing; the
 * value that does not apply enters neither the point nor its key). */
static int conditions_hold(const point_view *v, const char *at, const char *file, char *err, size_t errlen) {
  for (int k = 0; k < KEY_COUNT; k++) {
    const config_key *key = &config_keys[k];
    if (!key->only_with || !v->set[k]) continue;
    if (sweep_plan_zipped_together(&v->st->sweep, k, key->follows)) continue;
    /* a receiver option of the base config under a sweep of receivers
     * applies where it acts (config.c notes where it is unused) */
    if (config_key_follows_receiver((config_key_id)k) && v->set[k] == v->st->given[k] &&
        sweep_plan_sweeps(&v->st->sweep, key->follows))
      continue;
    const char *other = config_setting_get_string(point_value(v, key->follows));
    if (!config_key_applies_with(key, other)) {
      char allowed[128];
      config_key_only_with_text(key, allowed, sizeof allowed);
      return cfg_fail_at(v->set[k], file, err, errlen, "%s: expected only with %s = %s, got %s = \"%s\"%s",
                         key->path, config_keys[key->follows].path, allowed, config_keys[key->follows].path, other,
                         at);
    }
  }
  return 0;
}

/* Each physical quantity is given one way: two keys for it is an error. */
static int one_of_each(const point_view *v, const char *at, const char *file, char *err, size_t errlen) {
  static const int pairs[][2] = {{KEY_DELAY_SPREAD, KEY_DELAY_SPREAD_NS}, {KEY_DOPPLER_HZ, KEY_SPEED_KMH},
                                 {KEY_CODE_RATE, KEY_CODE_TBS}, {KEY_CODE_RATE, KEY_CODE_MCS},
                                 {KEY_CODE_TBS, KEY_CODE_MCS}};
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
    const int a = pairs[i][0], b = pairs[i][1];
    if (v->set[a] && v->set[b])
      return cfg_fail_at(v->set[b], file, err, errlen, "%s: expected either %s or %s, not both%s", config_keys[b].path,
                         config_keys[a].path, config_keys[b].path, at);
  }
  static const int pilot_keys[] = {KEY_PILOT_FIRST, KEY_PILOT_EVERY};
  for (size_t i = 0; i < sizeof pilot_keys / sizeof *pilot_keys; i++)
    if (v->set[pilot_keys[i]] && int_of(v, KEY_PILOT_SPACING) == 0)
      return cfg_fail_at(v->set[pilot_keys[i]], file, err, errlen,
                         "%s: expected only with pilots.spacing > 0 (it places the pilot symbols), got "
                         "pilots.spacing = 0%s",
                         config_keys[pilot_keys[i]].path, at);
  if (v->set[KEY_CARRIER_GHZ] && !v->set[KEY_SPEED_KMH])
    return cfg_fail_at(v->set[KEY_CARRIER_GHZ], file, err, errlen,
                       "%s: expected only with %s (it turns the speed into a Doppler shift)%s",
                       config_keys[KEY_CARRIER_GHZ].path, config_keys[KEY_SPEED_KMH].path, at);
  return 0;
}

/* awgn is H = I, square and without correlation or a line-of-sight part.
 * (The receiver's rules are link_params_check's, reported by point_check.) */
static int antennas_fit(const point_view *v, const link_params *p, const char *at, const char *file, char *err,
                        size_t errlen) {
  if (p->model != CH_AWGN) return 0;
  if (p->tx != p->rx)
    return cfg_fail_at(first_given(v, KEYS(KEY_MODEL)), file, err, errlen,
                       "channel.model: \"awgn\" (H = I) needs mimo.rx = mimo.tx, got tx = %d, rx = %d%s", p->tx,
                       p->rx, at);
  static const int no_awgn[] = {KEY_RHO_TX, KEY_RHO_RX, KEY_K_FACTOR};
  for (size_t i = 0; i < sizeof no_awgn / sizeof *no_awgn; i++) {
    const int k = no_awgn[i];
    if (number_of(v, k) == 0.0) continue;
    char got[96];
    cfg_describe(point_value(v, k), got, sizeof got);
    return cfg_fail_at(first_given(v, KEYS(k, KEY_MODEL)), file, err, errlen,
                       "%s: expected 0 with channel.model = \"awgn\" (H = I), got %s%s", config_keys[k].path, got,
                       at);
  }
  return 0;
}

/* The custom profile's taps from tap_delays_ns and tap_powers_db: both
 * given, of one length, with no delay spread (the taps are absolute); the
 * delays into samples at the sample rate. */
static int custom_taps(const point_view *v, sim_point *pt, const char *at, const char *file, char *err,
                       size_t errlen) {
  link_params *p = &pt->p;
  const config_setting_t *d = v->set[KEY_TAP_DELAYS_NS], *w = v->set[KEY_TAP_POWERS_DB];
  static const int spreads[] = {KEY_DELAY_SPREAD, KEY_DELAY_SPREAD_NS};
  for (size_t i = 0; i < sizeof spreads / sizeof *spreads; i++)
    if (v->set[spreads[i]])
      return cfg_fail_at(v->set[spreads[i]], file, err, errlen,
                         "%s: expected none with channel.profile = \"custom\" (its taps' delays are absolute), "
                         "got one%s", config_keys[spreads[i]].path, at);
  if (!d || !w)
    return cfg_fail_at(first_given(v, KEYS(KEY_TAP_DELAYS_NS, KEY_TAP_POWERS_DB, KEY_PROFILE)), file, err, errlen,
                       "channel.profile: \"custom\" expected channel.tap_delays_ns and channel.tap_powers_db, got "
                       "%s%s", d ? "no tap_powers_db" : w ? "no tap_delays_ns" : "neither", at);
  const int n = config_setting_length(d);
  if (config_setting_length(w) != n)
    return cfg_fail_at(w, file, err, errlen,
                       "channel.tap_powers_db: expected one power per tap of channel.tap_delays_ns (%d), got %d%s", n,
                       config_setting_length(w), at);
  double delay[TDL_MAX_TAPS];
  const double fs = link_sample_rate(p);
  pt->custom_taps = n;
  for (int i = 0; i < n; i++) {
    pt->tap_delay_ns[i] = config_setting_get_float(config_setting_get_elem(d, (unsigned)i));
    pt->tap_power_db[i] = config_setting_get_float(config_setting_get_elem(w, (unsigned)i));
    delay[i] = pt->tap_delay_ns[i] * 1e-9 * fs;
  }
  /* a K per tap (optional): as many as the taps, not beside a whole
   * channel's K */
  const config_setting_t *kd = v->set[KEY_TAP_K_DB];
  pt->tap_k_given = kd != NULL;
  if (kd && config_setting_length(kd) != n)
    return cfg_fail_at(kd, file, err, errlen,
                       "channel.tap_k_db: expected one K per tap of channel.tap_delays_ns (%d), got %d%s", n,
                       config_setting_length(kd), at);
  if (kd && p->k_factor != 0.0)
    return cfg_fail_at(first_given(v, KEYS(KEY_K_FACTOR, KEY_TAP_K_DB)), file, err, errlen,
                       "channel.k_factor: expected 0 with channel.tap_k_db (each tap has its own K), got %g%s",
                       p->k_factor, at);
  for (int i = 0; kd && i < n; i++)
    pt->tap_k_db[i] = config_setting_get_float(config_setting_get_elem(kd, (unsigned)i));
  /* the RMS delay spread the taps make: the report's channel line */
  char why[512];
  if (kd ? !tdl_pdp_custom_k(delay, pt->tap_power_db, pt->tap_k_db, n, p->delays, p->subcarriers - 1, &p->pdp, why,
                             sizeof why)
         : !tdl_pdp_custom(delay, pt->tap_power_db, n, p->k_factor, p->delays, p->subcarriers - 1, &p->pdp, why,
                           sizeof why)) {
    p->delay_spread = tdl_pdp_rms_delay(&p->pdp);
    return 0;
  }
  return cfg_fail_at(first_given(v, KEYS(KEY_TAP_DELAYS_NS, KEY_K_FACTOR, KEY_SUBCARRIERS, KEY_SUBCARRIER_SPACING)),
                     file, err, errlen, "channel.tap_delays_ns: %s%s", why, at);
}

/* The taps on the sample grid: the profile for tdl, one unit tap for awgn
 * (the time-domain modem needs one), none for rayleigh. */
static int resolve_taps(const point_view *v, sim_point *pt, const char *at, const char *file, char *err,
                        size_t errlen) {
  link_params *p = &pt->p;
  if (p->model == CH_AWGN) {
    p->pdp.taps = 1;
    p->pdp.delay[0] = 0;
    p->pdp.power[0] = 1.0f;
  }
  if (p->model == CH_TDL && p->profile == PDP_CUSTOM) return custom_taps(v, pt, at, file, err, errlen);
  char why[512];
  if (p->model != CH_TDL || !tdl_pdp_make(p->profile, p->delay_spread, p->k_factor, p->delays, p->subcarriers - 1,
                                          &p->pdp, why, sizeof why))
    return 0;
  const int ns = v->set[KEY_DELAY_SPREAD_NS] != NULL;
  return cfg_fail_at(first_given(v, KEYS(ns ? KEY_DELAY_SPREAD_NS : KEY_DELAY_SPREAD, KEY_PROFILE, KEY_SUBCARRIERS,
                                         KEY_SUBCARRIER_SPACING, KEY_MODEL)),
                     file, err, errlen, "%s: %s%s", config_keys[ns ? KEY_DELAY_SPREAD_NS : KEY_DELAY_SPREAD].path, why,
                     at);
}

/* The coded link's transport block: its size from code.tbs, code.mcs (rate
 * and modulation from the 38.214 table) or code.rate (5.1.3.2 from the
 * frame's data REs, tx layers and the modulation), then the whole chain's
 * plan over the frame's coded bits, which refuses a TB that does not fit. */
static int resolve_code(const point_view *v, link_params *p, const char *at, const char *file, char *err,
                        size_t errlen) {
  link_code *c = &p->code;
  if (c->type == CODE_NONE) {
    memset(c, 0, sizeof *c);
    c->mcs = -1;
    return 0;
  }
  const long data_res = (long)link_data_res_per_frame(p), g = data_res * p->tx * p->bps;
  if (data_res < 1) return 0; /* point_check says why */
  /* HARQ's transmissions take the rv sequence 0, 2, 3, 1: an rv of one's
   * own would be ambiguous (the first transmission's? every one's?) */
  if (c->harq > 1 && v->set[KEY_CODE_RV])
    return cfg_fail_at(v->set[KEY_CODE_RV], file, err, errlen,
                       "code.rv: expected no code.rv with code.harq_transmissions = %d (its transmissions take rv "
                       "0, 2, 3, 1 in turn), got code.rv = %d%s", c->harq, c->rv, at);
  if (c->mcs >= 0) {
    const mcs_table t = c->mcs_table ? MCS_TABLE_256QAM : MCS_TABLE_64QAM;
    mcs_entry e;
    if (c->mcs > mcs_max_index(t) || mcs_lookup(t, c->mcs, &e) || e.rate_x1024 <= 0)
      return cfg_fail_at(v->set[KEY_CODE_MCS], file, err, errlen,
                         "code.mcs: expected an index in [0, %d] of the %s MCS table, got %d%s", mcs_max_index(t),
                         t == MCS_TABLE_256QAM ? "256qam" : "64qam", c->mcs, at);
    if (e.qm != p->bps)
      return cfg_fail_at(first_given(v, KEYS(KEY_MODULATION, KEY_CODE_MCS)), file, err, errlen,
                         "modulation: expected %s (code.mcs %d of the %s table), got %s%s",
                         modulation_name_of_bps(e.qm), c->mcs, t == MCS_TABLE_256QAM ? "256qam" : "64qam",
                         modulation_name_of_bps(p->bps), at);
    c->rate = e.rate_x1024 / 1024.0;
  }
  const int tbs_key = v->set[KEY_CODE_TBS] ? KEY_CODE_TBS : c->mcs >= 0 ? KEY_CODE_MCS : KEY_CODE_RATE;
  if (v->set[KEY_CODE_TBS]) {
    c->tbs = (int)int_of(v, KEY_CODE_TBS);
    /* the rate the base graph is chosen by: the TB's over the frame */
    c->rate = (double)c->tbs / (double)g;
    if (c->rate >= 1.0) c->rate = 0.999;
  } else {
    if (data_res > INT32_MAX / 8)
      return cfg_fail_at(first_given(v, KEYS(KEY_SUBCARRIERS, KEY_SYMBOLS)), file, err, errlen,
                         "code.type: a frame of %ld data REs is too large for one transport block%s", data_res, at);
    c->tbs = tbs_from_re((int)data_res, c->rate, p->bps, p->tx);
  }
  char why[400];
  tb_plan plan;
  if (c->tbs < 1) snprintf(why, sizeof why, "no transport block fits %ld data REs at rate %g", data_res, c->rate);
  if (c->tbs < 1 || tb_plan_make(c->tbs, c->rate, p->bps, p->tx, g, c->rv, &plan, why, sizeof why))
    return cfg_fail_at(first_given(v, KEYS(tbs_key, KEY_CODE_TYPE)), file, err, errlen,
                       "%s: %s (frame: %ld data REs x %d layers x %d bits = %ld coded bits)%s",
                       config_keys[tbs_key].path, why, data_res, p->tx, p->bps, g, at);
  tb_plan_free(&plan);
  return 0;
}

/* max_bits must stop a point before the random streams run out of frames. */
static int frames_fit(const point_view *v, const sim_point *pt, const char *at, const char *file, char *err,
                      size_t errlen) {
  const double bpf = (double)link_bits_per_frame(&pt->p);
  if (bpf == 0.0) return 0; /* pilots on every RE: point_check says so */
  if (pt->max_bits / bpf < (double)(RNG_MAX_FRAMES - pt->first_frame)) return 0;
  char got[96], limit[40], frames[96];
  cfg_describe(point_value(v, KEY_MAX_BITS), got, sizeof got);
  snprintf(limit, sizeof limit, "%.4g", (double)(RNG_MAX_FRAMES - pt->first_frame) * bpf);
  if (pt->first_frame)
    snprintf(frames, sizeof frames, "(2^%d - simulation.first_frame %llu)", RNG_FRAME_BITS,
             (unsigned long long)pt->first_frame);
  else
    snprintf(frames, sizeof frames, "2^%d", RNG_FRAME_BITS);
  return cfg_fail_at(first_given(v, KEYS(KEY_MAX_BITS, KEY_FIRST_FRAME)), file, err, errlen,
                     "simulation.max_bits: expected a number below %s frames x %.0f bits per frame = %s, got %s%s",
                     frames, bpf, limit, got, at);
}

/* With drops a run's frames start at a drop's first frame: its chunks, its
 * journal and the parts of a merge then hold whole drops, the units of the
 * intervals (results/chunks.h). */
static int drops_aligned(const point_view *v, const sim_point *pt, const char *at, const char *file, char *err,
                         size_t errlen) {
  const uint64_t n = link_drop_frames(&pt->p);
  if (pt->first_frame % n == 0) return 0;
  return cfg_fail_at(first_given(v, KEYS(KEY_FIRST_FRAME, KEY_DROP_FRAMES)), file, err, errlen,
                     "simulation.first_frame: expected a multiple of channel.drop_frames = %llu (a drop's first "
                     "frame: a drop is the intervals' unit and is never split between runs), got %llu%s",
                     (unsigned long long)n, (unsigned long long)pt->first_frame, at);
}

int point_resolve(const point_view *v, const char *label, const char *file, sim_point *pt, char *err,
                  size_t errlen) {
  char at[300];
  sweep_point(label, at, sizeof at);
  fill(v, label, pt);
  if (conditions_hold(v, at, file, err, errlen) || one_of_each(v, at, file, err, errlen) ||
      antennas_fit(v, &pt->p, at, file, err, errlen) || resolve_taps(v, pt, at, file, err, errlen) || resolve_code(v, &pt->p, at, file, err, errlen) ||
      frames_fit(v, pt, at, file, err, errlen) || drops_aligned(v, pt, at, file, err, errlen))
    return 2;
  return 0;
}

/* Where link_params_check's verdict on a parameter is reported: the first of
 * `at` that the point sets; the parameter is called by the first key's name
 * where it is one (n0 and the profile have no key of their own). */
static const struct {
  int named;
  int at[8];
} link_keys[LP_COUNT] = {
    [LP_TX] = {1, {KEY_TX, KEY_TX_COLUMNS, KEY_TX_ROWS, KEY_TX_POL, -1}},
    [LP_RX] = {1, {KEY_RX, KEY_RX_COLUMNS, KEY_RX_ROWS, KEY_RX_POL, -1}},
    [LP_BPS] = {0, {KEY_MODULATION, -1}},
    [LP_SUBCARRIERS] = {1, {KEY_SUBCARRIERS, -1}},
    [LP_SYMBOLS] = {1, {KEY_SYMBOLS, KEY_SUBCARRIERS, -1}},
    [LP_N0] = {0, {KEY_SNR_DB, KEY_SNR_KIND, -1}},
    [LP_CSI_ERROR_VAR] = {1, {KEY_CSI_ERROR_VAR, -1}},
    [LP_PDP] = {0, {KEY_DELAY_SPREAD, KEY_PROFILE, KEY_MODEL, -1}},
    [LP_MODEL] = {1, {KEY_MODEL, KEY_FADING, -1}},
    [LP_DROP] = {1, {KEY_DROP_FRAMES, KEY_FADING, KEY_DOPPLER_HZ, -1}},
    [LP_DOMAIN] = {1, {KEY_DOMAIN, KEY_MODEL, -1}},
    [LP_CP_LENGTH] = {1, {KEY_CP_LENGTH, KEY_SUBCARRIERS, -1}},
    [LP_EQUALIZER] = {1, {KEY_EQUALIZER, -1}},
    [LP_LLR] = {1, {KEY_LLR, KEY_EQUALIZER, -1}},
    [LP_KBEST_K] = {1, {KEY_KBEST_K, KEY_EQUALIZER, -1}},
    [LP_LLR_CLIP] = {1, {KEY_LLR_CLIP, KEY_EQUALIZER, -1}},
    [LP_RHO_TX] = {1, {KEY_RHO_TX, -1}},
    [LP_RHO_RX] = {1, {KEY_RHO_RX, -1}},
    [LP_K_FACTOR] = {1, {KEY_K_FACTOR, KEY_PROFILE, -1}},
    [LP_SUBCARRIER_SPACING] = {1, {KEY_SUBCARRIER_SPACING, -1}},
    [LP_DOPPLER] = {1, {KEY_DOPPLER_HZ, KEY_SPEED_KMH, KEY_SUBCARRIER_SPACING, -1}},
    [LP_PILOTS] = {1, {KEY_PILOT_SPACING, KEY_PILOT_FIRST, KEY_PILOT_EVERY, KEY_TX, -1}},
    [LP_PILOT_FIRST] = {1, {KEY_PILOT_FIRST, KEY_SYMBOLS, -1}},
    [LP_PILOT_EVERY] = {1, {KEY_PILOT_EVERY, KEY_SYMBOLS, -1}},
    [LP_ESTIMATION] = {1, {KEY_ESTIMATION, KEY_PILOT_SPACING, KEY_PILOT_TYPE, KEY_MODEL, KEY_CSI_ERROR_VAR, -1}},
    [LP_CODE] = {1, {KEY_CODE_TYPE, KEY_LLR, KEY_EQUALIZER, -1}},
    [LP_ARRAY_TX] = {0, {KEY_TX_ROWS, KEY_TX_COLUMNS, KEY_TX_POL, KEY_MODEL, -1}},
    [LP_ARRAY_RX] = {0, {KEY_RX_ROWS, KEY_RX_COLUMNS, KEY_RX_POL, KEY_MODEL, -1}},
    [LP_DMRS] = {0, {KEY_DMRS_TYPE, KEY_DMRS_LENGTH, KEY_DMRS_ADD_POS, KEY_DMRS_L0, KEY_DMRS_NODATA, KEY_PILOT_TYPE,
                     -1}},
    [LP_TIME_INTERP] = {1, {KEY_TIME_INTERPOLATION, KEY_INTERPOLATION, -1}},
    [LP_GMI] = {1, {KEY_GMI, KEY_LLR, -1}},
};

int point_check(const point_view *v, sim_point *pt, const char *file, char *err, size_t errlen) {
  const char *names[LP_COUNT];
  for (int i = 0; i < LP_COUNT; i++) names[i] = link_keys[i].named ? config_keys[link_keys[i].at[0]].path : NULL;
  link_param blame;
  char why[512], at[300];
  if (!link_params_diagnose(&pt->p, names, &blame, why, sizeof why)) {
    if (!est_resolve(&pt->p, why, sizeof why)) return 0;
    blame = LP_ESTIMATION;
  }
  sweep_point(pt->label, at, sizeof at);
  return cfg_fail_at(first_given(v, link_keys[blame].at), file, err, errlen, "%s%s", why, at);
}
