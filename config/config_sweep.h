/* The `sweep` list: entries { key = "dotted.key"; values = [...]; }, or
 * zipped entries { keys = ["a.b", "c.d"]; values = ([A1, C1], [A2, C2]); }
 * that set several keys together, whose cartesian product (first entry
 * outermost, a zipped entry one axis) gives the point combinations. Private
 * to config/. */
#ifndef OFDMSIM_CONFIG_SWEEP_H
#define OFDMSIM_CONFIG_SWEEP_H

#include <libconfig.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config_schema.h"

typedef struct sweep_entry {
  config_key_id key[KEY_COUNT];     /* the keys it sets, in the order given */
  int n_keys;                       /* 1 for `key`; 1 or more for `keys` */
  int zipped;                       /* given as `keys`: each value is a tuple, one value per key */
  const config_setting_t *values;   /* a non-empty array or list, each value (or tuple) valid */
  int count;
} sweep_entry;

typedef struct sweep_plan {
  const config_setting_t *setting;  /* the sweep list itself; NULL when absent */
  sweep_entry entry[KEY_COUNT];     /* a key is swept at most once */
  int n;
  uint64_t combos;                  /* product of the counts (1 without a sweep), saturating */
} sweep_plan;

/* Validates the sweep list (NULL: no sweep) completely: its shape, each key
 * (known, per point, not snr_db, once across all entries) and each value by
 * its key's rule. A range { from; to; step; } as the values of a numeric key
 * is expanded in the tree first (config/config_range.h). 0, or 2 with a one-line
 * message located in `file` (or a --set). */
int sweep_plan_build(config_setting_t *sweep, const char *file, sweep_plan *plan, char *err, size_t errlen);

/* Points the settings of combination `combo` (0 <= combo < combos) into
 * set[key] for every swept key; other entries of set are left alone. */
void sweep_plan_apply(const sweep_plan *plan, uint64_t combo, const config_setting_t **set);

/* "mimo.tx=4 modulation=16qam" for the swept values in set; "" without a sweep. */
void sweep_plan_label(const sweep_plan *plan, const config_setting_t *const *set, char *buf,
                      size_t n);

/* 1 when key k is swept. */
int sweep_plan_sweeps(const sweep_plan *plan, int k);
/* The entry that sweeps key k, or -1. */
int sweep_plan_entry_of(const sweep_plan *plan, int k);
/* Takes entry i out of the plan (the tree keeps it; the echo and the points
 * follow the plan). */
void sweep_plan_drop(sweep_plan *plan, int i);
/* Whether one zipped entry sets both keys a and b. */
int sweep_plan_zipped_together(const sweep_plan *plan, int a, int b);

#endif
