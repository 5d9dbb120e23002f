/* One sweep point, fully resolved: everything a backend needs to simulate it.
 * Plain C types and formulas, compiled by gcc and nvcc alike. */
#ifndef OFDMSIM_PARAMS_H
#define OFDMSIM_PARAMS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cplx.h"
#include "core/pilots.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LINK_MAX_TX 8
#define LINK_MAX_RX 16
#define TDL_MAX_TAPS 64
#define LINK_MAX_RES (1 << 24) /* subcarriers * symbols of one frame */

/* The detector: linear (zf, mmse: one stream at a time from x_hat), or
 * joint (mmse-sic, kbest, ml: equalizer/detect.h). */
typedef enum { EQ_ZF = 0, EQ_MMSE = 1, EQ_MMSE_SIC = 2, EQ_KBEST = 3, EQ_ML = 4 } eq_kind;
/* Soft outputs: none (hard decisions only), max-log or exact LLRs
 * (equalizer/soft.h); with LLRs the point's GMI is estimated too. */
typedef enum { LLR_OFF = 0, LLR_MAXLOG = 1, LLR_EXACT = 2 } llr_kind;
/* Which GMI sums a point with LLRs carries (receiver.gmi): sup, the s = 1
 * loss per stream and the loss at every scaling of the GMI grid
 * (core/gmi_grid.h), whose supremum over s the report gives; s1, the s = 1
 * loss alone (one logarithm a bit instead of the grid's 23); none, no GMI
 * sums (the LLRs still feed the export and the decoder). */
typedef enum { GMI_SUP = 0, GMI_S1 = 1, GMI_NONE = 2 } gmi_kind;
/* The largest K of kbest, and the largest M^tx ml enumerates. */
#define LINK_MAX_KBEST 256
#define LINK_MAX_ML_CANDIDATES 65536
typedef enum { CH_AWGN = 0, CH_RAYLEIGH = 1, CH_TDL = 2 } channel_model;
/* The tdl profiles, and the CDL models of TR 38.901 7.7.1 (channel.model =
 * "cdl-a".."cdl-e"): a cdl point is a tdl point whose taps are its clusters,
 * each a sum of rays through the arrays at both ends (channel/cdl_channel.h),
 * so every chain of the taps (response, time domain, estimation) is shared. */
typedef enum {
  PDP_EXP = 0, PDP_TDL_A = 1, PDP_TDL_B = 2, PDP_TDL_C = 3, PDP_TDL_D = 4, PDP_TDL_E = 5,
  PDP_CDL_A = 6, PDP_CDL_B = 7, PDP_CDL_C = 8, PDP_CDL_D = 9, PDP_CDL_E = 10,
  PDP_CUSTOM = 11 /* a tdl profile of taps the config gives (tdl_pdp_custom) */
} pdp_kind;
static inline int pdp_is_cdl(pdp_kind k) { return k >= PDP_CDL_A && k <= PDP_CDL_E; }

/* An antenna panel of TR 38.901 7.3 at one end of a cdl link: rows x columns
 * positions in the panel's y-z plane (spacing in wavelengths), one element
 * (slant 0: vertical) or two (dual: +45/-45, or 0/90) at each; the Table
 * 7.3-1 element pattern or an isotropic one; turned by a bearing (about z)
 * and a downtilt (about y). Element k of a dual panel is polarisation k % 2
 * at position k / 2; positions run along a row first. */
typedef enum { PANEL_POL_V = 0, PANEL_POL_X = 1, PANEL_POL_VH = 2 } panel_pol;
typedef enum { PANEL_ISOTROPIC = 0, PANEL_38901 = 1 } panel_pattern;
typedef struct link_panel {
  int rows, columns;
  double spacing_v, spacing_h; /* wavelengths, between rows / between columns */
  panel_pol pol;
  panel_pattern pattern;
  double bearing_deg, downtilt_deg;
} link_panel;
static inline int link_panel_elements(const link_panel *a) {
  return a->rows * a->columns * (a->pol == PANEL_POL_V ? 1 : 2);
}
/* A cdl point's geometry: the transmitter is the base station (the tables'
 * departure angles), the receiver the terminal (arrival angles), which
 * moves towards (travel_zenith, travel_azimuth) at the point's Doppler
 * (doppler_hz = speed / wavelength). Angle spreads > 0 scale the table's
 * angles to those rms spreads (7.7.5.1); 0 keeps the table's. */
typedef struct link_cdl {
  link_panel tx, rx;
  double asd, asa, zsd, zsa;               /* degrees; 0: the table's */
  double travel_azimuth_deg, travel_zenith_deg;
} link_cdl;
/* Where tdl delays sit: where the profile puts them (continuous), or rounded
 * to whole samples with the taps that meet merged (sample, the older model). */
typedef enum { DELAYS_CONTINUOUS = 0, DELAYS_SAMPLE = 1 } delay_grid;
/* How a rayleigh channel holds its draws (core/re.h, re_channel_index):
 * independently on every RE, one draw per subcarrier held over the frame's
 * symbols (block), or one for the whole frame (flat_block). */
typedef enum { FADING_INDEPENDENT = 0, FADING_BLOCK = 1, FADING_FLAT_BLOCK = 2 } fading_kind;
typedef enum { DOMAIN_FREQUENCY = 0, DOMAIN_TIME = 1 } ofdm_domain;
typedef enum { SNR_EBNO = 0, SNR_ESNO = 1, SNR_SNR = 2 } snr_def;
/* The receiver's channel: the true one (perfect), or estimated from the
 * pilots (ls: least squares at the pilots, then interpolated; channel/
 * estimate.h). Frequency interpolation: nearest pilot, linear between
 * pilots, or LMMSE over the nearest pilots with the profile's correlation;
 * lmmse2d: the 2-D Wiener filter over the pilots in time and frequency
 * (time interpolation then has no separate step). */
typedef enum { EST_PERFECT = 0, EST_LS = 1 } est_kind;
typedef enum { INTERP_NEAREST = 0, INTERP_LINEAR = 1, INTERP_LMMSE = 2, INTERP_LMMSE2D = 3 } interp_kind;

/* Channel coding of the data (the coded link): none (today's uncoded link:
 * uniform labels), or 5G NR LDPC (coding/): one transport block per frame
 * over every stream of the frame's data REs. The config resolves the TB
 * size (code.rate, code.tbs or code.mcs) into tbs and rate; the decoder
 * fields are the receiver's and stay out of the stream key. */
typedef enum { CODE_NONE = 0, CODE_LDPC = 1 } code_kind;
/* nms16: normalised min-sum in int16 fixed point (coding/ldpc_msg16.h). */
typedef enum { CODE_DEC_NMS = 0, CODE_DEC_OMS = 1, CODE_DEC_BP = 2, CODE_DEC_NMS16 = 3 } code_decoder;
typedef struct link_code {
  code_kind type;
  int tbs;                 /* the transport block's information bits A */
  double rate;             /* the target code rate R: base graph choice (38.212 7.2.2) */
  int rv;                  /* redundancy version 0..3 (of every transmission
                              when harq is 1) */
  int harq;                /* HARQ transmissions at most, 1..4: a TB the
                              receiver's CRC refuses is sent again with the
                              next rv of 0, 2, 3, 1 on fresh channel and noise
                              draws, its LLRs added in the circular buffer */
  code_decoder decoder;
  double scale;            /* normalised min-sum scale */
  double offset;           /* offset min-sum offset */
  int max_iterations;
  int early_termination;   /* 1: stop a block's decoding on a zero syndrome */
  int mcs, mcs_table;      /* where tbs and rate came from an MCS (38.214
                              table 5.1.3.1-1 or -2: 0, 1); mcs -1: none */
} link_code;

/* A multipath power-delay profile: tap l arrives delay[l] samples late (a
 * real number: continuous delays), its Rayleigh (NLOS) part of mean power
 * power[l]; tap 0 (delay 0) also carries a specular line-of-sight part of
 * power los_power (0: none: the whole channel's K, or tdl-d/e's own), and
 * tap l one of power tap_los[l] (a custom profile's per-tap K; 0: none).
 * los_power, tap_los and the powers sum to 1. */
typedef struct tdl_pdp {
  int taps;
  double delay[TDL_MAX_TAPS];
  float power[TDL_MAX_TAPS];
  float los_power;
  float tap_los[TDL_MAX_TAPS];
} tdl_pdp;

/* The amplitude of tap l's line of sight: sqrt(los_power) on tap 0 (exactly
 * that when tap_los[0] is 0), sqrt(tap_los[l]) elsewhere. */
static inline float tdl_pdp_los_amp(const tdl_pdp *pdp, int l) {
  return sqrtf(l == 0 ? pdp->los_power + pdp->tap_los[0] : pdp->tap_los[l]);
}

/* Whether any tap has a line of sight of its own (tap_los). */
static inline int tdl_pdp_has_tap_los(const tdl_pdp *pdp) {
  for (int l = 0; l < pdp->taps && l < TDL_MAX_TAPS; l++)
    if (pdp->tap_los[l] > 0.0f) return 1;
  return 0;
}

typedef struct link_params {
  int tx, rx;              /* streams Nt, receive antennas Nr */
  int bps;                 /* bits per symbol: 1 (BPSK), 2, 4, 6, 8 */
  eq_kind equalizer;
  channel_model model;
  pdp_kind profile;        /* tdl only */
  double delay_spread;     /* tdl: RMS delay spread in samples */
  delay_grid delays;       /* tdl: continuous delays or rounded to samples */
  tdl_pdp pdp;             /* tdl: the resolved profile (tdl_pdp_make); cdl:
                              the clusters' delays and powers (cdl_pdp_make) */
  link_cdl cdl;            /* cdl: arrays, angle scaling, direction of travel */
  fading_kind fading;      /* rayleigh: per RE, per subcarrier or per frame */
  double rho_tx, rho_rx;   /* exponential spatial correlation (Kronecker) */
  double k_factor;         /* Rician K, linear (0: none). rayleigh: of every
                              element; tdl: of the whole channel (LOS power
                              over all NLOS power), NAN on tdl-d/e: the table's */
  double subcarrier_spacing; /* Hz: sample rate = subcarriers x spacing */
  double doppler_hz;       /* tdl, rayleigh (block fading): maximum Doppler shift,
                              Hz (0: fixed per frame) */
  int drop_frames;         /* rayleigh, tdl, cdl: frames per drop, over which
                              block draws and taps hold and Doppler fading runs
                              on (core/flat_fading.h, channel/tdl_fading.h);
                              1 (or 0): every frame its own */
  double csi_error_var;    /* the equalizer sees H + E, E ~ CN(0, var) */
  int pilot_spacing;       /* comb spacing P in subcarriers (core/pilots.h); 0: no pilots */
  int pilot_first;         /* the first pilot symbol */
  int pilot_every;         /* symbols between pilot symbols; 0: one pilot symbol */
  int pilot_kind;          /* pilot_kind: the comb above, or NR DMRS (core/dmrs.h) */
  int dmrs_type;           /* dmrs: configuration type 1 or 2 */
  int dmrs_length;         /* dmrs: 1 single, 2 double symbol */
  int dmrs_add_pos;        /* dmrs: dmrs-AdditionalPosition 0..3 */
  int dmrs_l0;             /* dmrs: the first DMRS symbol, 2 or 3 */
  int dmrs_nodata;         /* dmrs: CDM groups without data; 0: those the ports use */
  int dmrs_boost;          /* dmrs: 1 scales the DMRS by sqrt(nodata) (38.214 Table 4.1-1) */
  int dmrs_nid;            /* dmrs: the scrambling identity N_ID of c_init */
  int time_interpolation;  /* ls: between pilot symbols, 0 linear, 1 hold (the nearest) */
  est_kind estimation;     /* perfect CSI, or estimated from the pilots */
  interp_kind interpolation; /* ls: frequency interpolation */
  double est_error_var;    /* ls: the error variance per link of the receiver's
                              channel, averaged over the data REs, and the */
  double est_shrink;       /* factor its LS estimate is scaled by (both set by
                              est_resolve, channel/estimate.h) */
  int ebno_charged;        /* snr_kind ebno: 1 charges the pilots and the CP to
                              the data bits (link_ebno_overhead) */
  llr_kind llr;            /* soft outputs and GMI */
  gmi_kind gmi;            /* with LLRs: the GMI sums computed (0: sup, all) */
  link_code code;          /* channel coding (code.type none: uncoded) */
  int kbest_k;             /* kbest: survivors kept per layer */
  double llr_clip;         /* kbest/ml: |LLR| of a bit with no counter-hypothesis */
  ofdm_domain domain;
  int subcarriers, symbols, cp_length;
  snr_def snr_kind;
  double snr_db;
  double n0;               /* noise variance per receive antenna and RE */
  uint64_t seed;
  uint64_t stream_key;     /* names the point's random streams: link_stream_key(),
                              set once every other field is (core/draws.h) */
} link_params;

/* Whether a batch of this point sums each stream's s = 1 GMI loss
 * (batch_result.gmi_loss), and the losses at the GMI grid's scalings
 * (gmi_loss_s): with LLRs, as receiver.gmi says. */
static inline int link_gmi_loss(const link_params *p) { return p->llr != LLR_OFF && p->gmi != GMI_NONE; }
static inline int link_gmi_grid(const link_params *p) { return p->llr != LLR_OFF && p->gmi == GMI_SUP; }

/* A cdl point (a tdl point whose profile is a CDL model). */
static inline int link_is_cdl(const link_params *p) { return p->model == CH_TDL && pdp_is_cdl(p->profile); }

/* REs of one frame, pilots included. */
static inline uint64_t link_res_per_frame(const link_params *p) {
  return (uint64_t)p->symbols * (uint64_t)p->subcarriers;
}
/* The frame's pilot pattern. */
static inline pilot_grid link_pilot_grid(const link_params *p) {
  pilot_grid g;
  g.spacing = p->pilot_spacing;
  g.first = p->pilot_first;
  g.every = p->pilot_every;
  g.K = p->subcarriers;
  g.S = p->symbols;
  g.tx = p->tx;
  g.kind = p->pilot_kind;
  dmrs_grid d = {0};
  if (p->pilot_kind == PILOT_DMRS) {
    d.type = p->dmrs_type;
    d.len = p->dmrs_length;
    d.K = p->subcarriers;
    d.occasions = dmrs_occasions(p->symbols, p->dmrs_l0, p->dmrs_add_pos, p->dmrs_length, d.occ);
    d.sym_mask = dmrs_symbol_mask(d.occ, d.occasions, d.len);
    d.nodata = p->dmrs_nodata;
    for (int t = 0; t < p->tx && !p->dmrs_nodata; t++)
      if (dmrs_port_group(d.type, t) + 1 > d.nodata) d.nodata = dmrs_port_group(d.type, t) + 1;
    d.beta = p->dmrs_boost ? (float)sqrt((double)d.nodata) : 1.0f;
    d.seq_words = dmrs_seq_words(p->subcarriers);
  }
  g.dm = d;
  return g;
}
/* REs of one frame that carry data: the bits' and the GMI's REs. */
static inline uint64_t link_data_res_per_frame(const link_params *p) {
  const pilot_grid g = link_pilot_grid(p);
  return pilot_data_res(&g);
}
/* Samples per second of the OFDM grid. */
static inline double link_sample_rate(const link_params *p) {
  return (double)p->subcarriers * p->subcarrier_spacing;
}

/* The maximum Doppler shift in cycles per sample (0: no time variation). */
static inline double link_doppler_per_sample(const link_params *p) {
  return p->model == CH_TDL && p->doppler_hz > 0.0 ? p->doppler_hz / link_sample_rate(p) : 0.0;
}

/* The same for the channels drawn per RE (rayleigh, core/flat_fading.h). */
static inline double link_flat_doppler_per_sample(const link_params *p) {
  return p->model == CH_RAYLEIGH && p->doppler_hz > 0.0 ? p->doppler_hz / link_sample_rate(p) : 0.0;
}

/* The working set of one RE, bytes: true and estimated channels (rx x tx
 * each), Gram matrix and inverse (tx x tx each), received (rx), sent and
 * equalised symbols (tx each), complex floats, and the error counts. */
static inline uint64_t link_re_bytes(const link_params *p) {
  const uint64_t t = (uint64_t)p->tx, r = (uint64_t)p->rx;
  return 8u * (2u * r * t + 2u * t * t + r + 2u * t) + 4u * t;
}
/* The most working memory one frame may need (link_re_bytes x REs). */
#define LINK_MAX_FRAME_BYTES (4ULL << 30)

static inline uint64_t link_bits_per_frame(const link_params *p) {
  return link_data_res_per_frame(p) * (uint64_t)p->tx * (uint64_t)p->bps;
}

/* The coded link: 1 when the frame carries an LDPC transport block. */
/* Frames per drop as the statistics see them (channel.drop_frames where a
 * model takes drops, else 1): frames f = dN .. dN + N - 1 share one drop's
 * draws and fade on across it, so the drop, not the frame, is the unit of
 * independent counts for every interval (results/chunks.h). */
static inline uint64_t link_drop_frames(const link_params *p) {
  return (p->model == CH_RAYLEIGH || p->model == CH_TDL) && p->drop_frames > 1 ? (uint64_t)p->drop_frames : 1u;
}
static inline int link_coded(const link_params *p) { return p->code.type == CODE_LDPC; }

/* HARQ: the most transmissions of a TB, and a point's (harq 0 reads as 1:
 * a link_params made before HARQ came). */
#define LINK_HARQ_MAX 4
static inline int link_harq(const link_params *p) {
  return link_coded(p) && p->code.harq > 1 ? p->code.harq : 1;
}
/* Air time of one frame, seconds: symbols x (subcarriers + cp) samples at
 * the sample rate (the cyclic prefix is the frame's time in the frequency
 * domain too, so throughputs of both domains compare). */
static inline double link_frame_seconds(const link_params *p) {
  return (double)p->symbols * (double)(p->subcarriers + p->cp_length) / link_sample_rate(p);
}

/* The receiver with imperfect CSI (csi_error_var = v > 0) sees Hhat = H + E,
 * E ~ CN(0, v) per link, and uses the LMMSE estimate of H from it, Hbar =
 * Hhat / (1 + v) (links of zero mean and unit power), whose error H - Hbar
 * has variance v / (1 + v) per link and is uncorrelated with Hbar. Treating
 * that error's share of y, (H - Hbar) x, as noise, every detector works with
 * Hbar and the noise variance N0 + tx v / (1 + v) (unit-energy streams): the
 * standard LMMSE receiver with channel-estimation error. v = 0: N0. A
 * channel estimated from pilots (estimation = ls) is treated the same way
 * with its own error variance, est_error_var. */
static inline double link_receiver_n0(const link_params *p) {
  const double v = p->csi_error_var;
  const double est = p->estimation == EST_LS ? (double)p->tx * p->est_error_var : 0.0;
  return p->n0 + (v > 0.0 ? (double)p->tx * v / (1.0 + v) : 0.0) + est;
}

/* The detector facts, each decided here once (backends, the parameter check
 * and the theory read them; nothing else compares eq_kind values).
 *
 * Linear (zf, mmse): x_hat = (G + d I)^-1 Hhat^H y with the Gram matrix
 * G = Hhat^H Hhat, one stream decided at a time; the other detectors are
 * joint (equalizer/detect.h) and need no G. */
static inline int link_detector_is_linear(eq_kind e) { return e == EQ_ZF || e == EQ_MMSE; }
/* The receivers the fused paths of both backends run (cpu/fused_cpu.c,
 * cuda/fused_gpu.cu): zf and mmse, and mmse-sic with hard decisions (its
 * soft outputs, kbest and ml run staged). */
static inline int link_fused_receiver(const link_params *p) {
  return link_detector_is_linear(p->equalizer) || (p->equalizer == EQ_MMSE_SIC && p->llr == LLR_OFF);
}
/* The tree searches (kbest, ml) run on the QR of H, which needs rx >= tx;
 * they invert no matrix, and their LLRs are max-log over their candidate
 * lists. */
static inline int link_detector_is_tree(eq_kind e) { return e == EQ_KBEST || e == EQ_ML; }
/* The regularisation d on the Gram diagonal of a linear receiver: the
 * receiver's noise variance for mmse (link_receiver_n0), 0 for zf. Float, as
 * every receiver adds it in float. */
static inline float link_mmse_diagonal(const link_params *p) {
  return p->equalizer == EQ_MMSE ? (float)link_receiver_n0(p) : 0.0f;
}
/* Matrices a detector inverts per RE (batch_result.inversions): one Gram
 * inverse for zf and mmse, one a cancellation stage for mmse-sic, none for
 * the tree searches. */
static inline uint64_t link_inversions_per_re(const link_params *p) {
  if (link_detector_is_linear(p->equalizer)) return 1;
  return p->equalizer == EQ_MMSE_SIC ? (uint64_t)p->tx : 0;
}

/* What Eb/N0 charges to a data bit beyond its own energy (1, or with
 * ebno_charged, Sionna's convention): every RE of the frame, pilots
 * included, and the cyclic prefix's share of each symbol, over the data REs,
 * S (K + CP) / D. The noise variance for a given Eb/N0 grows by as much. */
static inline double link_ebno_overhead(const link_params *p) {
  if (p->snr_kind != SNR_EBNO || !p->ebno_charged) return 1.0;
  return (double)p->symbols * (double)(p->subcarriers + p->cp_length) / (double)link_data_res_per_frame(p);
}

/* N0 from the SNR definitions (unit-energy symbols, E|h|^2 = 1; README). */
double link_noise_variance(snr_def kind, double snr_db, int tx, int bps);

/* The point's stream key: a 64-bit hash of the parameters that shape what is
 * transmitted and received (antennas, modulation, channel model and its
 * parameters, OFDM grid, the cyclic prefix in the time domain, N0). The
 * receiver's side (equalizer, CSI error) is left out so receivers compare on
 * identical draws; fields that do not act on a point (the delay spread of a
 * non-tdl channel, the cyclic prefix in the frequency domain) are left out
 * too, so that they cannot change its draws. */
uint64_t link_stream_key(const link_params *p);

/* 0 when every field of p is in range and the combination can be simulated;
 * else -1 with "PARAMETER: expected ..., got ..." in err. The one check of a
 * point's parameters: the config loader and every backend's create run it. */
int link_params_check(const link_params *p, char *err, size_t errlen);

/* The parameters link_params_check can find at fault. */
typedef enum link_param {
  LP_TX, LP_RX, LP_BPS, LP_SUBCARRIERS, LP_SYMBOLS, LP_N0, LP_CSI_ERROR_VAR, LP_PDP, LP_MODEL,
  LP_DOMAIN, LP_CP_LENGTH, LP_RHO_TX, LP_RHO_RX, LP_K_FACTOR, LP_EQUALIZER, LP_LLR, LP_KBEST_K,
  LP_LLR_CLIP, LP_SUBCARRIER_SPACING, LP_DOPPLER, LP_PILOTS, LP_PILOT_FIRST, LP_PILOT_EVERY, LP_ESTIMATION, LP_CODE, LP_DROP,
  LP_ARRAY_TX, LP_ARRAY_RX, LP_DMRS, LP_TIME_INTERP, LP_GMI, LP_COUNT
} link_param;

/* link_params_check for a caller that spells the parameters its own way (the
 * config loader names them by config key): messages call parameter i
 * names[i] (plain words such as "cyclic prefix" where names or names[i] is
 * NULL), and *blame is set to the parameter at fault. */
int link_params_diagnose(const link_params *p, const char *const *names, link_param *blame, char *err,
                         size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
