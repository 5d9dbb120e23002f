/* The SNR definitions and the one check of a point's parameters. */
#include "core/params.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "core/draws.h"
#include "core/names.h"
#include "core/qam.h"

double link_noise_variance(snr_def kind, double snr_db, int tx, int bps) {
  const double lin = pow(10.0, snr_db / 10.0);
  switch (kind) {
    case SNR_ESNO: return 1.0 / lin;                 /* Es/N0 per stream */
    case SNR_EBNO: return 1.0 / (lin * bps);         /* Es/N0 = Eb/N0 * bits per symbol */
    case SNR_SNR: return (double)tx / lin;           /* total received power tx per antenna */
  }
  return NAN;
}

/* FNV-1a over the canonical text of the fields, then mixed for avalanche.
 * Text, with doubles in %.17g, so the key follows values and not layouts. */
uint64_t link_stream_key(const link_params *p) {
  char text[1024];
  int n = snprintf(text, sizeof text, "tx=%d;rx=%d;bps=%d;model=%s;domain=%s;K=%d;S=%d;n0=%.17g",
                   p->tx, p->rx, p->bps, channel_model_name(p->model), ofdm_domain_name(p->domain),
                   p->subcarriers, p->symbols, p->n0);
  if (p->model != CH_AWGN && n > 0 && (size_t)n < sizeof text)
    n += snprintf(text + n, sizeof text - (size_t)n, ";rho_tx=%.17g;rho_rx=%.17g;k=%.17g", p->rho_tx,
                  p->rho_rx, p->k_factor);
  /* fading came later: named only where it is not the per-RE draw, so that
   * every earlier point keeps its key */
  if (p->model == CH_RAYLEIGH && p->fading != FADING_INDEPENDENT && n > 0 && (size_t)n < sizeof text)
    n += snprintf(text + n, sizeof text - (size_t)n, ";fading=%s", fading_kind_name(p->fading));
  if (p->model == CH_TDL && n > 0 && (size_t)n < sizeof text)
    n += snprintf(text + n, sizeof text - (size_t)n, ";profile=%s;ds=%.17g;delays=%s", pdp_kind_name(p->profile),
                  p->delay_spread, delay_grid_name(p->delays));
  /* custom taps came later: named by the resolved profile itself (its taps'
   * delays and powers), where the tables' names and delay spreads say it */
  if (p->model == CH_TDL && p->profile == PDP_CUSTOM && n > 0 && (size_t)n < sizeof text) {
    uint64_t h = 1469598103934665603ULL;
    char tap[80];
    for (int l = 0; l < p->pdp.taps && l < TDL_MAX_TAPS; l++) {
      snprintf(tap, sizeof tap, "%.17g/%.9g;", p->pdp.delay[l], (double)p->pdp.power[l]);
      for (const char *c = tap; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    }
    snprintf(tap, sizeof tap, "los=%.9g", (double)p->pdp.los_power);
    for (const char *c = tap; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    /* per-tap K came later: hashed only where a tap has one */
    for (int l = 0; l < p->pdp.taps && l < TDL_MAX_TAPS && tdl_pdp_has_tap_los(&p->pdp); l++) {
      snprintf(tap, sizeof tap, "tlos%d=%.9g;", l, (double)p->pdp.tap_los[l]);
      for (const char *c = tap; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    }
    n += snprintf(text + n, sizeof text - (size_t)n, ";pdp=%016llx", (unsigned long long)h);
  }
  /* Doppler: the shift per sample, and the symbol timing (the CP) it meets */
  if (link_doppler_per_sample(p) > 0.0 && n > 0 && (size_t)n < sizeof text)
    n += snprintf(text + n, sizeof text - (size_t)n, ";fd=%.17g;cp=%d", link_doppler_per_sample(p), p->cp_length);
  /* rayleigh's fading in time and its drops came later: named where they act */
  if (link_flat_doppler_per_sample(p) > 0.0 && n > 0 && (size_t)n < sizeof text)
    n += snprintf(text + n, sizeof text - (size_t)n, ";flat_fd=%.17g;cp=%d", link_flat_doppler_per_sample(p),
                  p->cp_length);
  if ((p->model == CH_RAYLEIGH || p->model == CH_TDL) && p->drop_frames > 1 && n > 0 && (size_t)n < sizeof text)
    n += snprintf(text + n, sizeof text - (size_t)n, ";drop=%d", p->drop_frames);
  if (p->domain == DOMAIN_TIME && link_doppler_per_sample(p) == 0.0 && n > 0 && (size_t)n < sizeof text)
    n += snprintf(text + n, sizeof text - (size_t)n, ";cp=%d", p->cp_length);
  /* a cdl point's arrays, angle scaling and direction of travel */
  if (link_is_cdl(p) && n > 0 && (size_t)n < sizeof text) {
    const link_panel *a[2] = {&p->cdl.tx, &p->cdl.rx};
    for (int i = 0; i < 2 && n > 0 && (size_t)n < sizeof text; i++)
      n += snprintf(text + n, sizeof text - (size_t)n, ";panel%d=%dx%d/%.17g/%.17g/%d/%d/%.17g/%.17g", i, a[i]->rows,
                    a[i]->columns, a[i]->spacing_v, a[i]->spacing_h, (int)a[i]->pol, (int)a[i]->pattern,
                    a[i]->bearing_deg, a[i]->downtilt_deg);
    if (n > 0 && (size_t)n < sizeof text)
      n += snprintf(text + n, sizeof text - (size_t)n, ";as=%.17g/%.17g/%.17g/%.17g;travel=%.17g/%.17g", p->cdl.asd,
                    p->cdl.asa, p->cdl.zsd, p->cdl.zsa, p->cdl.travel_azimuth_deg, p->cdl.travel_zenith_deg);
  }
  /* pilots replace data symbols (the receiver's estimation is left out) */
  if (p->pilot_spacing > 0 && n > 0 && (size_t)n < sizeof text)
    n += snprintf(text + n, sizeof text - (size_t)n, ";pilots=%d/%d/%d", p->pilot_spacing, p->pilot_first,
             p->pilot_every);
  /* DMRS came later: named where it is the pattern (with its resolved
   * groups without data and amplitude) */
  if (p->pilot_kind == PILOT_DMRS && n > 0 && (size_t)n < sizeof text) {
    const pilot_grid g = link_pilot_grid(p);
    n += snprintf(text + n, sizeof text - (size_t)n, ";dmrs=%d/%d/%d/%d/%d/%.9g/%d", p->dmrs_type, p->dmrs_length,
                  p->dmrs_add_pos, p->dmrs_l0, g.dm.nodata, (double)g.dm.beta, p->dmrs_nid);
  }
  /* the coded link sends a transport block's coded bits (its decoder is
   * the receiver's and stays out); uncoded points keep their keys */
  if (link_coded(p) && n > 0 && (size_t)n < sizeof text)
    snprintf(text + n, sizeof text - (size_t)n, ";ldpc=%d/%.17g/%d", p->code.tbs, p->code.rate, p->code.rv);
  uint64_t h = 1469598103934665603ULL;
  for (const char *c = text; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
  return rng_mix64(h);
}

static const char *const plain_names[LP_COUNT] = {
    [LP_TX] = "transmit antennas",    [LP_RX] = "receive antennas",
    [LP_BPS] = "bits per symbol",     [LP_SUBCARRIERS] = "subcarriers",
    [LP_SYMBOLS] = "symbols",         [LP_N0] = "noise variance",
    [LP_CSI_ERROR_VAR] = "CSI error variance", [LP_PDP] = "power-delay profile",
    [LP_MODEL] = "channel model",     [LP_DOMAIN] = "OFDM domain",
    [LP_CP_LENGTH] = "cyclic prefix", [LP_RHO_TX] = "spatial correlation rho_tx",
    [LP_RHO_RX] = "spatial correlation rho_rx", [LP_K_FACTOR] = "Rician k_factor",
    [LP_EQUALIZER] = "detector",      [LP_LLR] = "soft output",
    [LP_KBEST_K] = "K-best list size", [LP_LLR_CLIP] = "LLR clip",
    [LP_SUBCARRIER_SPACING] = "subcarrier spacing", [LP_DOPPLER] = "Doppler shift",
    [LP_PILOTS] = "pilot pattern", [LP_PILOT_FIRST] = "first pilot symbol",
    [LP_PILOT_EVERY] = "pilot symbol spacing", [LP_ESTIMATION] = "channel estimation",
    [LP_CODE] = "channel code", [LP_DROP] = "frames per drop",
    [LP_ARRAY_TX] = "transmit array", [LP_ARRAY_RX] = "receive array", [LP_DMRS] = "DMRS",
    [LP_TIME_INTERP] = "time interpolation", [LP_GMI] = "GMI sums"};

typedef struct verdict {
  const char *const *names;
  link_param *blame;
  char *err;
  size_t errlen;
} verdict;

static const char *name_of(const verdict *v, link_param lp) {
  return v->names && v->names[lp] ? v->names[lp] : plain_names[lp];
}

/* Blames lp with "NAME: message"; returns -1. */
static int fail(const verdict *v, link_param lp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(const verdict *v, link_param lp, const char *fmt, ...) {
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(v->err, v->errlen, "%s: %s", name_of(v, lp), msg);
  if (v->blame) *v->blame = lp;
  return -1;
}

static int int_in(const verdict *v, link_param lp, int x, int lo, int hi) {
  if (x >= lo && x <= hi) return 0;
  return fail(v, lp, "expected an integer in [%d, %d], got %d", lo, hi, x);
}

static int variance(const verdict *v, link_param lp, double x) {
  if (x >= 0.0 && isfinite(x)) return 0;
  return fail(v, lp, "expected a finite number >= 0, got %g", x);
}

/* |rho| = 1 makes the channel rank one; K is a linear power ratio. */
static int spatial_ok(const verdict *v, const link_params *p) {
  if (!(fabs(p->rho_tx) < 1.0))
    return fail(v, LP_RHO_TX, "expected a number strictly between -1 and 1, got %g", p->rho_tx);
  if (!(fabs(p->rho_rx) < 1.0))
    return fail(v, LP_RHO_RX, "expected a number strictly between -1 and 1, got %g", p->rho_rx);
  if (p->k_factor >= 0.0 && isfinite(p->k_factor)) return 0;
  /* NAN: tdl-d/e's own line of sight (channel/tdl.h) */
  if (isnan(p->k_factor) && p->model == CH_TDL &&
      (p->profile == PDP_TDL_D || p->profile == PDP_TDL_E || p->profile == PDP_CDL_D || p->profile == PDP_CDL_E))
    return 0;
  return fail(v, LP_K_FACTOR, "expected a finite number >= 0 (linear), got %g", p->k_factor);
}

static int pdp_ok(const verdict *v, const link_params *p) {
  const tdl_pdp *pdp = &p->pdp;
  if (pdp->taps < 1 || pdp->taps > TDL_MAX_TAPS)
    return fail(v, LP_PDP, "expected 1 to %d taps, got %d taps", TDL_MAX_TAPS, pdp->taps);
  for (int l = 0; l < pdp->taps; l++)
    if (!(pdp->delay[l] >= 0.0 && pdp->delay[l] < (double)p->subcarriers))
      return fail(v, LP_PDP, "expected tap delays in [0, %d) samples, got %g at tap %d", p->subcarriers,
                  pdp->delay[l], l);
  if (!(pdp->los_power >= 0.0f && pdp->los_power <= 1.0f))
    return fail(v, LP_PDP, "expected a LOS power in [0, 1], got %g", (double)pdp->los_power);
  for (int l = 0; l < pdp->taps; l++)
    if (!(pdp->tap_los[l] >= 0.0f && pdp->tap_los[l] <= 1.0f))
      return fail(v, LP_PDP, "expected tap %d's LOS power in [0, 1], got %g", l, (double)pdp->tap_los[l]);
  return 0;
}

/* The sample rate turns delays and Doppler shifts into samples; a Doppler
 * shift reaches at most a quarter of the subcarrier spacing (beyond, the
 * symbols decorrelate within themselves and the ICI model breaks down long
 * before). */
static int units_ok(const verdict *v, const link_params *p) {
  if (!(p->subcarrier_spacing > 0.0 && p->subcarrier_spacing <= 1e9))
    return fail(v, LP_SUBCARRIER_SPACING, "expected a number in (0, 1e9] Hz, got %g", p->subcarrier_spacing);
  if (!(p->doppler_hz >= 0.0 && p->doppler_hz <= 0.25 * p->subcarrier_spacing))
    return fail(v, LP_DOPPLER, "expected a number in [0, %g] Hz (a quarter of the subcarrier spacing), got %g",
                0.25 * p->subcarrier_spacing, p->doppler_hz);
  return 0;
}

static int frame_ok(const verdict *v, const link_params *p) {
  if (int_in(v, LP_SUBCARRIERS, p->subcarriers, 1, LINK_MAX_RES) || int_in(v, LP_SYMBOLS, p->symbols, 1, 1 << 16))
    return -1;
  if (link_res_per_frame(p) > LINK_MAX_RES)
    return fail(v, LP_SYMBOLS, "expected subcarriers * symbols <= %d REs per frame, got %d * %d = %llu", LINK_MAX_RES,
                p->subcarriers, p->symbols, (unsigned long long)link_res_per_frame(p));
  /* A backend holds at least one whole frame: its channels, Gram matrices and
   * inverses, received and equalised symbols. */
  const double bytes = (double)link_res_per_frame(p) * (double)link_re_bytes(p);
  if (bytes <= (double)LINK_MAX_FRAME_BYTES) return 0;
  return fail(v, LP_SYMBOLS,
              "expected a frame that fits in %.0f GiB of working memory, got %d * %d REs x %llu bytes per RE "
              "(tx = %d, rx = %d) = %.1f GiB",
              (double)LINK_MAX_FRAME_BYTES / 1073741824.0, p->subcarriers, p->symbols,
              (unsigned long long)link_re_bytes(p), p->tx, p->rx, bytes / 1073741824.0);
}

/* Block fading holds rayleigh's draws; the other models have their own
 * structure in time (awgn none, tdl its taps per frame). */
static int fading_ok(const verdict *v, const link_params *p) {
  if (p->fading < FADING_INDEPENDENT || p->fading > FADING_FLAT_BLOCK ||
      (p->fading != FADING_INDEPENDENT && p->model != CH_RAYLEIGH))
    return fail(v, LP_MODEL, "fading \"%s\" is for %s = \"%s\" (got \"%s\")", fading_kind_name(p->fading),
                name_of(v, LP_MODEL), channel_model_name(CH_RAYLEIGH), channel_model_name(p->model));
  /* Doppler needs a process in time: tdl's taps, or rayleigh held over the
   * symbols (block, flat_block); an RE drawn on its own has none */
  if (p->doppler_hz > 0.0 && p->model == CH_AWGN)
    return fail(v, LP_DOPPLER, "expected 0 with %s = \"%s\" (no fading), got %g Hz", name_of(v, LP_MODEL),
                channel_model_name(CH_AWGN), p->doppler_hz);
  if (p->doppler_hz > 0.0 && p->model == CH_RAYLEIGH && p->fading == FADING_INDEPENDENT)
    return fail(v, LP_DOPPLER,
                "fading in time needs %s = \"%s\" or \"%s\" on \"%s\" (independent draws per RE have no "
                "time correlation), got \"%s\"",
                "fading", fading_kind_name(FADING_BLOCK),
                fading_kind_name(FADING_FLAT_BLOCK), channel_model_name(CH_RAYLEIGH),
                fading_kind_name(FADING_INDEPENDENT));
  if (p->drop_frames < 0 || p->drop_frames > (1 << 20))
    return fail(v, LP_DROP, "expected 1 to %d frames, got %d", 1 << 20, p->drop_frames);
  if (p->drop_frames > 1 && p->model == CH_AWGN)
    return fail(v, LP_DROP, "expected 1 with %s = \"%s\" (no channel to hold), got %d", name_of(v, LP_MODEL),
                channel_model_name(CH_AWGN), p->drop_frames);
  if (p->drop_frames > 1 && p->model == CH_RAYLEIGH && p->fading == FADING_INDEPENDENT)
    return fail(v, LP_DROP,
                "a drop holds a channel over its frames: expected fading \"%s\" or \"%s\", got \"%s\"",
                fading_kind_name(FADING_BLOCK), fading_kind_name(FADING_FLAT_BLOCK),
                fading_kind_name(FADING_INDEPENDENT));
  return 0;
}

/* The time-domain modem needs a channel with a tap form, and a cyclic prefix
 * shorter than the symbol (checked in both domains, so that a config says the
 * same in either). */
static int modem_ok(const verdict *v, const link_params *p) {
  if (p->domain == DOMAIN_TIME && p->model != CH_TDL && p->model != CH_AWGN)
    return fail(v, LP_DOMAIN,
                "\"%s\" needs %s = \"%s\" or \"%s\" (i.i.d. Rayleigh per RE has no time-domain form), got \"%s\"",
                ofdm_domain_name(DOMAIN_TIME), name_of(v, LP_MODEL), channel_model_name(CH_TDL),
                channel_model_name(CH_AWGN), channel_model_name(p->model));
  if (p->cp_length >= 0 && p->cp_length < p->subcarriers) return 0;
  return fail(v, LP_CP_LENGTH, "expected an integer in [0, %d] (below %s = %d), got %d", p->subcarriers - 1,
              name_of(v, LP_SUBCARRIERS), p->subcarriers, p->cp_length);
}

/* The detector and its soft output, the one rule set (the config reports
 * these messages at its keys): zf inverts Hhat^H Hhat, singular with fewer
 * receive antennas than streams, and the tree searches run on the QR of H,
 * which needs as many rows; ml's M^tx candidates are bounded; the tree
 * searches' LLRs are max-log over their lists. */
static int receiver_ok(const verdict *v, const link_params *p) {
  if (p->equalizer < EQ_ZF || p->equalizer > EQ_ML)
    return fail(v, LP_EQUALIZER, "expected zf, mmse, mmse-sic, kbest or ml, got %d", (int)p->equalizer);
  if ((p->equalizer == EQ_ZF || link_detector_is_tree(p->equalizer)) && p->rx < p->tx)
    return fail(v, LP_EQUALIZER, "\"%s\" needs %s >= %s, got tx = %d, rx = %d", equalizer_name(p->equalizer),
                name_of(v, LP_RX), name_of(v, LP_TX), p->tx, p->rx);
  if (p->equalizer == EQ_ML && p->bps * p->tx > 16)
    return fail(v, LP_EQUALIZER,
                "\"ml\" enumerates M^tx candidates per RE, expected at most %d (2^16), got %s with tx = %d: 2^%d "
                "(use \"kbest\")",
                LINK_MAX_ML_CANDIDATES, modulation_name_of_bps(p->bps), p->tx, p->bps * p->tx);
  if (p->llr < LLR_OFF || p->llr > LLR_EXACT)
    return fail(v, LP_LLR, "expected off, maxlog or exact, got %d", (int)p->llr);
  if (p->gmi < GMI_SUP || p->gmi > GMI_NONE) return fail(v, LP_GMI, "expected sup, s1 or none, got %d", (int)p->gmi);
  if (link_detector_is_tree(p->equalizer) && p->llr == LLR_EXACT)
    return fail(v, LP_LLR,
                "expected \"off\" or \"maxlog\" with %s = \"%s\" (its LLRs are max-log over its candidates), got "
                "\"exact\"",
                name_of(v, LP_EQUALIZER), equalizer_name(p->equalizer));
  if (p->equalizer != EQ_KBEST) return 0;
  if (int_in(v, LP_KBEST_K, p->kbest_k, 1, LINK_MAX_KBEST)) return -1;
  if (p->llr_clip > 0.0 && p->llr_clip <= 64.0) return 0;
  return fail(v, LP_LLR_CLIP, "expected a number in (0, 64], got %g", p->llr_clip);
}

/* The pilot comb gives each antenna its own offset (spacing >= tx), its
 * symbols lie in the frame, some data is left, and an estimated channel
 * needs pilots and a channel they can follow. */
static int dmrs_ok(const verdict *v, const link_params *p);
static int pilots_ok(const verdict *v, const link_params *p) {
  if (p->pilot_kind == PILOT_DMRS && dmrs_ok(v, p)) return -1;
  if (p->pilot_kind != PILOT_DMRS && p->pilot_spacing != 0) {
    if (p->pilot_spacing > 0 && p->pilot_spacing < p->tx)
      return fail(v, LP_PILOTS, "expected a spacing of at least tx = %d (each antenna its own offset in the comb), got %d",
                  p->tx, p->pilot_spacing);
    if (int_in(v, LP_PILOTS, p->pilot_spacing, p->tx, p->subcarriers)) return -1;
    if (p->pilot_first < 0 || p->pilot_first >= p->symbols)
      return fail(v, LP_PILOT_FIRST, "expected a first pilot symbol in [0, %d], got %d", p->symbols - 1, p->pilot_first);
    if (p->pilot_every < 0 || p->pilot_every > p->symbols)
      return fail(v, LP_PILOT_EVERY, "expected a pilot symbol spacing in [0, %d], got %d", p->symbols, p->pilot_every);
    if (link_data_res_per_frame(p) == 0)
      return fail(v, LP_PILOTS, "expected data REs besides the pilots, got none (spacing %d = tx on every symbol)",
                  p->pilot_spacing);
  }
  if (p->estimation == EST_PERFECT) return 0;
  if (p->estimation != EST_LS) return fail(v, LP_ESTIMATION, "expected perfect or ls, got %d", (int)p->estimation);
  if (p->interpolation < INTERP_NEAREST || p->interpolation > INTERP_LMMSE2D)
    return fail(v, LP_ESTIMATION, "expected nearest, linear, lmmse or lmmse2d interpolation, got %d",
                (int)p->interpolation);
  if (p->pilot_spacing == 0 && p->pilot_kind != PILOT_DMRS)
    return fail(v, LP_ESTIMATION, "\"ls\" needs pilots (a pilot spacing above 0, or DMRS), got none");
  if (p->time_interpolation < 0 || p->time_interpolation > 1)
    return fail(v, LP_ESTIMATION, "expected linear or hold time interpolation, got %d", p->time_interpolation);
  if (p->interpolation == INTERP_LMMSE2D && p->time_interpolation != 0)
    return fail(v, LP_TIME_INTERP,
                "expected \"linear\" (the default) with interpolation = \"lmmse2d\", whose filter spans the "
                "pilot symbols itself, got \"hold\"");
  if (p->model == CH_RAYLEIGH && p->fading == FADING_INDEPENDENT)
    return fail(v, LP_ESTIMATION,
                "\"ls\" needs a channel pilots can follow (tdl, awgn or block-faded rayleigh), got \"rayleigh\" "
                "(independent on every RE: use csi_error_var)");
  if (link_flat_doppler_per_sample(p) > 0.0)
    return fail(v, LP_ESTIMATION,
                "\"ls\" has no error model for rayleigh fading in time yet, expected \"perfect\" (or "
                "doppler_hz = 0), got \"ls\" with %g Hz",
                p->doppler_hz);
  if (p->csi_error_var > 0.0)
    return fail(v, LP_ESTIMATION, "\"ls\" estimates the channel itself, expected csi_error_var = 0, got %g",
                p->csi_error_var);
  return 0;
}

/* NR DMRS (core/dmrs.h): a slot of whole resource blocks whose length has
 * the occasions asked for, at most the configuration's ports, and the CDM
 * groups without data between those the ports use and all. */
static int dmrs_ok(const verdict *v, const link_params *p) {
  if (p->pilot_kind != PILOT_DMRS) return fail(v, LP_DMRS, "expected pilots.type comb or dmrs, got %d", p->pilot_kind);
  if (p->pilot_spacing != 0)
    return fail(v, LP_DMRS, "pilots.spacing places the comb: expected 0 with pilots.type = \"dmrs\", got %d",
                p->pilot_spacing);
  if (p->dmrs_type != 1 && p->dmrs_type != 2)
    return fail(v, LP_DMRS, "dmrs.config_type: expected 1 or 2, got %d", p->dmrs_type);
  if (p->dmrs_length != 1 && p->dmrs_length != 2)
    return fail(v, LP_DMRS, "dmrs.length: expected 1 (single) or 2 (double symbol), got %d", p->dmrs_length);
  if (p->dmrs_l0 != 2 && p->dmrs_l0 != 3) return fail(v, LP_DMRS, "dmrs.l0: expected 2 or 3, got %d", p->dmrs_l0);
  if (p->dmrs_add_pos < 0 || p->dmrs_add_pos > (p->dmrs_length == 1 ? 3 : 1))
    return fail(v, LP_DMRS, "dmrs.additional_positions: expected 0..%d with %s-symbol DMRS, got %d",
                p->dmrs_length == 1 ? 3 : 1, p->dmrs_length == 1 ? "single" : "double", p->dmrs_add_pos);
  if (p->dmrs_add_pos == 3 && p->dmrs_l0 != 2)
    return fail(v, LP_DMRS, "dmrs.additional_positions = 3 is defined only with dmrs.l0 = 2 (38.211 7.4.1.1.2), got l0 = %d",
                p->dmrs_l0);
  if (p->symbols > DMRS_MAX_SYMBOLS || p->symbols < p->dmrs_l0 + p->dmrs_length)
    return fail(v, LP_DMRS,
                "a DMRS frame is one slot of mapping type A: expected ofdm.symbols in [%d, %d] (l0 = %d, length %d), "
                "got %d",
                p->dmrs_l0 + p->dmrs_length, DMRS_MAX_SYMBOLS, p->dmrs_l0, p->dmrs_length, p->symbols);
  if (p->subcarriers % 12)
    return fail(v, LP_DMRS, "DMRS needs whole resource blocks: expected ofdm.subcarriers a multiple of 12, got %d",
                p->subcarriers);
  const int ports = dmrs_max_ports(p->dmrs_type, p->dmrs_length);
  if (p->tx > ports)
    return fail(v, LP_DMRS,
                "one DMRS port a stream: configuration type %d with %s-symbol DMRS has %d ports, got mimo.tx = %d "
                "(dmrs.length = 2 or dmrs.config_type = 2 give more)",
                p->dmrs_type, p->dmrs_length == 1 ? "single" : "double", ports, p->tx);
  const pilot_grid g = link_pilot_grid(p);
  int used = 0;
  for (int t = 0; t < p->tx; t++)
    if (dmrs_port_group(p->dmrs_type, t) + 1 > used) used = dmrs_port_group(p->dmrs_type, t) + 1;
  if (p->dmrs_nodata != 0 && (p->dmrs_nodata < used || p->dmrs_nodata > dmrs_groups(p->dmrs_type)))
    return fail(v, LP_DMRS,
                "dmrs.cdm_groups_without_data: expected %d..%d (the %d streams' ports use %d CDM group%s of type %d's "
                "%d), got %d",
                used, dmrs_groups(p->dmrs_type), p->tx, used, used == 1 ? "" : "s", p->dmrs_type,
                dmrs_groups(p->dmrs_type), p->dmrs_nodata);
  if (g.dm.occasions == 0)
    return fail(v, LP_DMRS, "no DMRS position of 38.211 Table 7.4.1.1.2-%d for %d symbols with l0 = %d",
                p->dmrs_length == 1 ? 3 : 4, p->symbols, p->dmrs_l0);
  if (p->dmrs_nid < 0 || p->dmrs_nid > 65535)
    return fail(v, LP_DMRS, "dmrs.scrambling_id: expected 0..65535, got %d", p->dmrs_nid);
  return 0;
}

/* The coded link decodes the receiver's LLRs: it needs soft outputs; the
 * TB's own fit in the frame is the coding library's to judge (the config
 * checks it with coding/). */
static int code_ok(const verdict *v, const link_params *p) {
  const link_code *c = &p->code;
  if (c->type == CODE_NONE) return 0;
  if (c->type != CODE_LDPC) return fail(v, LP_CODE, "expected none or ldpc, got %d", (int)c->type);
  if (p->llr == LLR_OFF)
    return fail(v, LP_CODE,
                "\"ldpc\" decodes the receiver's LLRs: expected %s = \"maxlog\" or \"exact\", got \"off\"",
                name_of(v, LP_LLR));
  if (c->tbs < 1) return fail(v, LP_CODE, "expected a transport block of at least 1 bit, got %d", c->tbs);
  if (c->rv < 0 || c->rv > 3) return fail(v, LP_CODE, "expected a redundancy version in [0, 3], got %d", c->rv);
  if (c->harq < 0 || c->harq > LINK_HARQ_MAX)
    return fail(v, LP_CODE, "expected HARQ transmissions in [1, %d] (0: 1), got %d", LINK_HARQ_MAX, c->harq);
  if (c->harq > 1 && c->rv != 0)
    return fail(v, LP_CODE, "HARQ's transmissions take rv 0, 2, 3, 1: expected rv 0 with %d transmissions, got %d",
                c->harq, c->rv);
  if (c->decoder < CODE_DEC_NMS || c->decoder > CODE_DEC_NMS16)
    return fail(v, LP_CODE, "expected the decoder nms, oms, bp or nms16, got %d", (int)c->decoder);
  if (!(c->rate > 0.0 && c->rate < 1.0)) return fail(v, LP_CODE, "expected a code rate in (0, 1), got %g", c->rate);
  if (c->max_iterations < 1) return fail(v, LP_CODE, "expected at least 1 iteration, got %d", c->max_iterations);
  if (!(c->scale > 0.0) || !(c->offset >= 0.0))
    return fail(v, LP_CODE, "expected scale > 0 and offset >= 0, got %g and %g", c->scale, c->offset);
  return 0;
}

/* One end of a cdl link: a panel whose elements are the link's antennas. */
static int panel_ok(const verdict *v, link_param lp, const link_panel *a, int want, link_param count) {
  if (a->rows < 1 || a->columns < 1 || a->rows > LINK_MAX_RX || a->columns > LINK_MAX_RX)
    return fail(v, lp, "expected 1 to %d rows and columns, got %d x %d", LINK_MAX_RX, a->rows, a->columns);
  if (!(a->spacing_v > 0.0 && a->spacing_h > 0.0 && a->spacing_v < 1e6 && a->spacing_h < 1e6))
    return fail(v, lp, "expected element spacings > 0 wavelengths, got %g and %g", a->spacing_v, a->spacing_h);
  if ((int)a->pol < PANEL_POL_V || (int)a->pol > PANEL_POL_VH || (int)a->pattern < PANEL_ISOTROPIC ||
      (int)a->pattern > PANEL_38901)
    return fail(v, lp, "expected a polarisation v, x or vh and a pattern isotropic or 38.901");
  if (!(fabs(a->bearing_deg) <= 360.0 && fabs(a->downtilt_deg) <= 90.0))
    return fail(v, lp, "expected a bearing in [-360, 360] and a downtilt in [-90, 90] degrees, got %g and %g",
                a->bearing_deg, a->downtilt_deg);
  const int n = link_panel_elements(a);
  if (n != want)
    return fail(v, count, "expected %d, the elements of the %d x %d %s array (%s), got %d", n, a->rows, a->columns,
                a->pol == PANEL_POL_V ? "single-polarised" : "dual-polarised", name_of(v, lp), want);
  return 0;
}

/* A cdl point: arrays at both ends that match the antenna counts, the
 * correlation theirs alone, a K factor only where the model has a LOS path. */
static int cdl_ok(const verdict *v, const link_params *p) {
  if (!link_is_cdl(p)) return 0;
  if (panel_ok(v, LP_ARRAY_TX, &p->cdl.tx, p->tx, LP_TX) || panel_ok(v, LP_ARRAY_RX, &p->cdl.rx, p->rx, LP_RX))
    return -1;
  if (p->rho_tx != 0.0) return fail(v, LP_RHO_TX, "expected 0 with a cdl model (its arrays make the correlation), got %g", p->rho_tx);
  if (p->rho_rx != 0.0) return fail(v, LP_RHO_RX, "expected 0 with a cdl model (its arrays make the correlation), got %g", p->rho_rx);
  if (p->profile != PDP_CDL_D && p->profile != PDP_CDL_E && p->k_factor != 0.0)
    return fail(v, LP_K_FACTOR, "expected 0 on %s (no LOS path; cdl-d and cdl-e have one), got %g",
                pdp_kind_name(p->profile), p->k_factor);
  const double s[4] = {p->cdl.asd, p->cdl.asa, p->cdl.zsd, p->cdl.zsa};
  for (int i = 0; i < 4; i++)
    if (!(s[i] >= 0.0 && s[i] <= 180.0))
      return fail(v, LP_PDP, "expected angle spreads in [0, 180] degrees (0: the table's), got %g", s[i]);
  if (!(fabs(p->cdl.travel_azimuth_deg) <= 360.0 && p->cdl.travel_zenith_deg >= 0.0 && p->cdl.travel_zenith_deg <= 180.0))
    return fail(v, LP_DOPPLER, "expected a direction of travel with azimuth in [-360, 360] and zenith in [0, 180] "
                "degrees, got %g and %g", p->cdl.travel_azimuth_deg, p->cdl.travel_zenith_deg);
  return 0;
}

int link_params_diagnose(const link_params *p, const char *const *names, link_param *blame, char *err,
                         size_t errlen) {
  const verdict v = {names, blame, err, errlen};
  if (int_in(&v, LP_TX, p->tx, 1, LINK_MAX_TX) || int_in(&v, LP_RX, p->rx, 1, LINK_MAX_RX)) return -1;
  if (!qam_bps_valid(p->bps)) return fail(&v, LP_BPS, "expected 1, 2, 4, 6 or 8, got %d", p->bps);
  if (frame_ok(&v, p)) return -1;
  if (variance(&v, LP_N0, p->n0) || variance(&v, LP_CSI_ERROR_VAR, p->csi_error_var)) return -1;
  if (spatial_ok(&v, p)) return -1;
  if (units_ok(&v, p)) return -1;
  if (p->model == CH_TDL && pdp_ok(&v, p)) return -1;
  if (cdl_ok(&v, p)) return -1;
  if (receiver_ok(&v, p)) return -1;
  if (pilots_ok(&v, p)) return -1;
  if (fading_ok(&v, p)) return -1;
  if (code_ok(&v, p)) return -1;
  return modem_ok(&v, p);
}

int link_params_check(const link_params *p, char *err, size_t errlen) {
  return link_params_diagnose(p, NULL, NULL, err, errlen);
}
