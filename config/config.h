/* A run's configuration: a libconfig file plus --set overrides, validated in
 * full against one schema table and expanded into the flat list of sweep points
 * the backends simulate. Nothing runs before sim_config_load has accepted every
 * point, so a bad config never costs simulation time or leaves files behind. */
#ifndef OFDMSIM_CONFIG_H
#define OFDMSIM_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/names.h" /* the enumerations' names, which callers print */
#include "core/params.h"

/* Points one run may have: a bound that keeps a typo (a range with a tiny
 * step) from allocating and scheduling millions of points. */
#define SIM_MAX_POINTS 65536u

typedef struct sim_point {
  link_params p;               /* fully resolved, n0 from link_noise_variance() */
  size_t index;                /* the point's place in the flattened sweep */
  uint64_t target_errors;
  double max_bits;
  uint64_t min_frames;         /* target_errors stops the point only after this many frames */
  double target_precision;     /* stop at this relative half-width of the interval, 0 = off */
  double stop_below_ber;       /* skip the rest of a curve below this BER, 0 = off */
  uint64_t first_frame;        /* the point's frames are first_frame, first_frame + 1, ... */
  uint64_t target_block_errors; /* coded points: stop after this many TB errors (not target_errors) */
  uint64_t max_blocks;         /* coded points: ... or this many TBs, 0 = off */
  uint64_t max_frames;         /* frames max_bits allows (point_max_frames) */
  uint64_t point_key;          /* the point itself (config_columns.h): equal keys, equal point */
  char label[256];             /* the swept keys of this point, "mimo.tx=4 modulation=16qam", "" if none */
  /* channel.profile = "custom": the taps as the config gives them (p.pdp
   * holds them resolved), for the columns and the point key; 0 taps else */
  int custom_taps;
  double tap_delay_ns[TDL_MAX_TAPS], tap_power_db[TDL_MAX_TAPS];
  int tap_k_given;                /* channel.tap_k_db: 1 where given (its K per tap) */
  double tap_k_db[TDL_MAX_TAPS];
} sim_point;

typedef struct sim_config {
  char path[1024];             /* as given */
  char backend[16];            /* "auto" | "cpu" | "cuda" */
  int threads;                 /* 0 = all cores */
  uint64_t batch_frames;       /* 0 = backend chooses */
  uint64_t gpu_memory_mb;      /* 0 = free device memory */
  sim_point *points;           /* sweep entries (first outermost) x snr_db (innermost) */
  size_t n_points;             /* points[i].index == i, but in a shard (shard.h) */
  size_t sweep_points;         /* the whole sweep's (n_points but in a shard) */
  unsigned shard, shards;      /* this shard of how many (0/0: the whole sweep) */
  void *priv;                  /* the effective libconfig tree, for the echoes */
} sim_config;

/* Loads `path`, applies the "KEY=VALUE" overrides in order, validates every
 * key, every combination and every sweep point. 0 on success; 2 on any config
 * error, with one line "FILE:LINE: KEY: expected WHAT, got VALUE" (or
 * "--set KEY=VALUE: ..." for an override) in err and *c left empty. */
int sim_config_load(sim_config *c, const char *path, const char *const *overrides, int n_overrides,
                    char *err, size_t errlen);
/* Frames the point's max_bits allows: at least 1 (the loader sets
 * sim_point.max_frames from it; the engine's stopping rule reads that). */
uint64_t point_max_frames(const sim_point *pt);

/* Safe on a zeroed or failed config, and twice. */
void sim_config_free(sim_config *c);

/* The effective config (file, overrides, defaults), one `key = value;` line per
 * key, grouped, in libconfig syntax that re-reads to the same points; every line
 * starts with `prefix` (main uses "# "). */
void sim_config_print(const sim_config *c, FILE *f, const char *prefix);

/* What the run does that the echo alone does not tell (a --set that
 * replaced a sweep axis, a receiver key unused at some points, a point on
 * a slow path with its estimated time), one line each with `prefix`;
 * nothing when there is nothing to tell. */
void sim_config_print_notes(const sim_config *c, FILE *f, const char *prefix);

/* Every config key with its type, default, allowed values and meaning: the
 * key section of --help, generated from the schema table. */
void sim_config_print_keys(FILE *f);

#endif
