/* The one table of config keys: path, type, default, allowed values and
 * meaning. Validation, defaults, --help and the effective-config echo are all
 * driven from it, so a key's rule lives in exactly one place. Private to
 * config/. */
#ifndef OFDMSIM_CONFIG_SCHEMA_H
#define OFDMSIM_CONFIG_SCHEMA_H

#include <libconfig.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/names.h"

typedef enum config_key_id {
  KEY_BACKEND,
  KEY_SEED,
  KEY_SNR_DB,
  KEY_SNR_KIND,
  KEY_TARGET_ERRORS,
  KEY_MAX_BITS,
  KEY_MIN_FRAMES,
  KEY_TARGET_PRECISION,
  KEY_STOP_BELOW_BER,
  KEY_FIRST_FRAME,
  KEY_TARGET_BLOCK_ERRORS,
  KEY_MAX_BLOCKS,
  KEY_THREADS,
  KEY_BATCH_FRAMES,
  KEY_GPU_MEMORY_MB,
  KEY_TX,
  KEY_RX,
  KEY_MODULATION,
  KEY_EQUALIZER,
  KEY_MODEL,
  KEY_PROFILE,
  KEY_DELAY_SPREAD,
  KEY_RHO_TX,
  KEY_RHO_RX,
  KEY_K_FACTOR,
  KEY_CSI_ERROR_VAR,
  KEY_SUBCARRIERS,
  KEY_SYMBOLS,
  KEY_DOMAIN,
  KEY_CP_LENGTH,
  KEY_LLR,
  KEY_KBEST_K,
  KEY_LLR_CLIP,
  KEY_GMI,
  KEY_SUBCARRIER_SPACING,
  KEY_DELAY_SPREAD_NS,
  KEY_DELAYS,
  KEY_DOPPLER_HZ,
  KEY_SPEED_KMH,
  KEY_CARRIER_GHZ,
  KEY_PILOT_SPACING,
  KEY_PILOT_FIRST,
  KEY_PILOT_EVERY,
  KEY_ESTIMATION,
  KEY_INTERPOLATION,
  KEY_EBNO_OVERHEAD,
  KEY_CODE_TYPE,
  KEY_CODE_RATE,
  KEY_CODE_TBS,
  KEY_CODE_MCS,
  KEY_CODE_MCS_TABLE,
  KEY_CODE_RV,
  KEY_CODE_HARQ,
  KEY_CODE_DECODER,
  KEY_CODE_SCALE,
  KEY_CODE_OFFSET,
  KEY_CODE_MAX_ITERATIONS,
  KEY_CODE_EARLY_TERMINATION,
  KEY_FADING,
  KEY_DROP_FRAMES,
  /* cdl (channel.model = "cdl-a".."cdl-e"): angle scaling, direction of
   * travel, and the arrays at both ends; KEY_CDL_FIRST..KEY_CDL_LAST */
  KEY_ASD_DEG,
  KEY_ASA_DEG,
  KEY_ZSD_DEG,
  KEY_ZSA_DEG,
  KEY_TRAVEL_AZIMUTH,
  KEY_TRAVEL_ZENITH,
  KEY_TX_ROWS,
  KEY_TX_COLUMNS,
  KEY_TX_SPACING_V,
  KEY_TX_SPACING_H,
  KEY_TX_POL,
  KEY_TX_PATTERN,
  KEY_TX_BEARING,
  KEY_TX_DOWNTILT,
  KEY_RX_ROWS,
  KEY_RX_COLUMNS,
  KEY_RX_SPACING_V,
  KEY_RX_SPACING_H,
  KEY_RX_POL,
  KEY_RX_PATTERN,
  KEY_RX_BEARING,
  KEY_RX_DOWNTILT,
  KEY_PILOT_TYPE,
  KEY_DMRS_TYPE,
  KEY_DMRS_LENGTH,
  KEY_DMRS_ADD_POS,
  KEY_DMRS_L0,
  KEY_DMRS_NODATA,
  KEY_DMRS_BOOST,
  KEY_DMRS_NID,
  KEY_TIME_INTERPOLATION,
  /* channel.profile = "custom": its taps */
  KEY_TAP_DELAYS_NS,
  KEY_TAP_POWERS_DB,
  KEY_TAP_K_DB,
  KEY_COUNT
} config_key_id;

#define KEY_CDL_FIRST KEY_ASD_DEG
#define KEY_CDL_LAST KEY_RX_DOWNTILT
/* The config's channel.model choices: channel_model's, and the CDL models,
 * which the point resolves to a tdl point with a CDL profile. */
#define CHANNEL_CHOICE_CDL 3 /* cdl-a; cdl-b .. cdl-e follow */
extern const name_table channel_choice_names;

typedef enum key_type {
  KT_INT,      /* a libconfig integer (int or int64) in [imin, imax] */
  KT_NUMBER,   /* an integer or a float within the bounds */
  KT_NUMBERS,  /* a number, or a non-empty array or list of numbers */
  KT_CHOICE,   /* one of the strings in choices */
  KT_VECTOR    /* a non-empty array or list of at most imax numbers within the bounds: ONE value
                  (a point's taps), never a sweep axis as snr_db's list is */
} key_type;

typedef struct config_key {
  const char *path;             /* dotted: "mimo.tx" */
  key_type type;
  const char *default_text;     /* libconfig syntax; NULL when computed */
  const char *default_note;     /* --help text of a computed default */
  int64_t imin, imax;           /* KT_INT; imax == INT64_MAX prints as ">= imin" */
  double lo, hi;                /* KT_NUMBER(S); +-INFINITY: unbounded */
  unsigned char lo_open, hi_open;
  const name_table *choices;    /* KT_CHOICE */
  unsigned char per_run;        /* one value for the whole run, so never swept */
  /* A key that only makes sense along with another one: given, it needs
   * `follows` to equal `only_with` (a choice name); with only_with NULL its
   * default is computed from `follows`. -1: independent. */
  int follows;
  const char *only_with;
  const char *help;
} config_key;

extern const config_key config_keys[KEY_COUNT];

/* The key with this dotted path, or -1. */
int config_key_find(const char *path);
/* 1 when text, a value as a results CSV holds it (a number, or a choice's
 * name unquoted), is the fixed default of the key with this dotted path; 0
 * otherwise, and for a computed default or an unknown key. */
int config_key_default_is(const char *path, const char *text);
/* 1 when path names a group of keys ("mimo"). */
int config_key_is_group(const char *path);
/* "unknown key 'PATH'", with the closest known name when one is close. */
void config_key_unknown(const char *path, char *msg, size_t n);
/* What a key accepts, as in "expected ...": "an integer in [1, 8]". */
void config_key_expected(config_key_id k, char *buf, size_t n);

/* 0 when s is a valid value of k. Otherwise -1 with "expected WHAT, got VALUE"
 * in msg and the offending setting (s itself or an element of it) in *bad. */
int config_key_check(config_key_id k, const config_setting_t *s, char *msg, size_t n,
                     const config_setting_t **bad);

/* A numeral that is an exact integer (1e6, 1.0e6) read as a float: 1 with
 * the integer in *v. Integer keys accept them (--set target_errors=1e6 as
 * max_bits=1e8 is accepted); beyond 2^53 a float is not exact, so not. */
int config_exact_integer(const config_setting_t *s, long long *v);
/* Turns a float setting of an integer key that passed config_key_check into
 * the integer setting it stands for, so that the echo, the JSON record and
 * every reader see an integer; anything else is left alone. */
void config_key_normalize(config_key_id k, config_setting_t *s);
/* A receiver option that acts only with one receiver (kbest_k and llr_clip
 * with equalizer = "kbest", interpolation with channel_estimation = "ls",
 * gmi with receiver.llr = "maxlog" or "exact"):
 * set in the base config of a sweep over receivers, it applies where it
 * acts and is unused elsewhere (config.c notes where), rather than refused. */
/* Whether key applies where its `follows` key has `value`: only_with is one
 * value or several joined by '|' ("tdl|rayleigh"); a key without it always
 * applies. */
int config_key_applies_with(const config_key *key, const char *value);
/* only_with as a message reads it: "tdl" or "rayleigh" (quotes included). */
void config_key_only_with_text(const config_key *key, char *out, size_t n);
int config_key_follows_receiver(config_key_id k);
/* The enum value of a KT_CHOICE setting that passed config_key_check. */
int config_key_choice(config_key_id k, const config_setting_t *s);

#endif
