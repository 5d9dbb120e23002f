/* Loading a config: file, --set overrides, key-by-key validation against the
 * schema, the sweep, and every point resolved and checked as a combination
 * before anything runs. */
#include "config/config.h"

#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/draws.h"
#include "config/config_format.h"
#include "config/config_override.h"
#include "config/config_columns.h"
#include "config/config_point.h"
#include "config/config_range.h"
#include "config/config_read.h"
#include "config/config_schema.h"
#include "config/config_state.h"
#include "config/config_sweep.h"
#include "config/config_sweep_keys.h"
#include "config/config_where.h"

static void state_free(config_state *st) {
  if (!st) return;
  config_destroy(&st->tree);
  config_destroy(&st->defaults);
  config_destroy(&st->computed);
  for (int i = 0; i < st->n_origins; i++) free(st->origins[i]);
  free(st->origins);
  free(st);
}

/* Every setting of the tree is a known key with a valid value, or a group of
 * them; the sweep is checked whole by its plan. */
static int check_group(config_state *st, config_setting_t *g, const char *prefix,
                       const char *file, char *err, size_t errlen) {
  for (int i = 0; i < config_setting_length(g); i++) {
    config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
    char path[256], msg[700], got[96];
    snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", config_setting_name(m));
    if (!strcmp(path, "sweep")) continue; /* the sweep plan checks it whole */
    const int k = config_key_find(path);
    if (k >= 0) {
      const config_setting_t *bad;
      if (config_key_check((config_key_id)k, m, msg, sizeof msg, &bad))
        return cfg_fail_at(bad, file, err, errlen, "%s", msg);
      config_key_normalize((config_key_id)k, m);
      st->given[k] = m;
    } else if (config_key_is_group(path)) {
      if (!config_setting_is_group(m)) {
        cfg_describe(m, got, sizeof got);
        return cfg_fail_at(m, file, err, errlen, "%s: expected a group of settings, got %s", path, got);
      }
      if (check_group(st, m, path, file, err, errlen)) return 2;
    } else {
      config_key_unknown(path, msg, sizeof msg);
      return cfg_fail_at(m, file, err, errlen, "%s", msg);
    }
  }
  return 0;
}

static size_t snr_count(const config_setting_t *s) {
  return config_setting_is_aggregate(s) ? (size_t)config_setting_length(s) : 1;
}
static double snr_at(const config_setting_t *s, size_t i) {
  return config_setting_get_float(config_setting_is_aggregate(s) ? config_setting_get_elem(s, (unsigned)i) : s);
}

/* The per-run keys, and the cp_length default the echo shows. */
static void run_options(config_state *st, sim_config *c) {
  const point_view base = {st, st->given};
  snprintf(c->backend, sizeof c->backend, "%s", config_setting_get_string(point_value(&base, KEY_BACKEND)));
  c->threads = config_setting_get_int(point_value(&base, KEY_THREADS));
  c->batch_frames = (uint64_t)config_setting_get_int64(point_value(&base, KEY_BATCH_FRAMES));
  c->gpu_memory_mb = (uint64_t)config_setting_get_int64(point_value(&base, KEY_GPU_MEMORY_MB));
  config_setting_t *cp = config_setting_add(config_root_setting(&st->computed), "cp_length", CONFIG_TYPE_INT);
  if (cp) config_setting_set_int(cp, config_setting_get_int(point_value(&base, KEY_SUBCARRIERS)) / 8);
}

uint64_t point_max_frames(const sim_point *pt) {
  const double bpf = (double)link_bits_per_frame(&pt->p);
  const double f = ceil(pt->max_bits / bpf);
  const uint64_t frames = f < 1 ? 1 : (uint64_t)f;
  /* one transport block a frame */
  if (link_coded(&pt->p) && pt->max_blocks && pt->max_blocks < frames) return pt->max_blocks;
  return frames;
}

/* Every point id must fit the random streams' point field. */
static int count_points(const config_state *st, size_t n_snr, const char *path, size_t *n, char *err,
                        size_t errlen) {
  const uint64_t combos = st->sweep.combos;
  if (combos <= SIM_MAX_POINTS / n_snr) {
    *n = (size_t)combos * n_snr;
    return 0;
  }
  const int by_sweep = combos > 1;
  char total[64];
  if (combos > UINT64_MAX / n_snr) snprintf(total, sizeof total, "more than 2^64");
  else snprintf(total, sizeof total, "%llu", (unsigned long long)(combos * n_snr));
  return cfg_fail_at(by_sweep ? st->sweep.setting : st->given[KEY_SNR_DB], path, err, errlen,
                     "%s: expected at most %u points in all, got %s (%llu sweep combinations x %zu snr_db values)",
                     by_sweep ? "sweep" : "simulation.snr_db", SIM_MAX_POINTS, total, (unsigned long long)combos,
                     n_snr);
}

/* The sweep combinations (first entry outermost) times the snr_db values
 * (innermost), each point resolved and checked. */
static int expand(const config_state *st, sim_config *c, const config_setting_t *snr, size_t n_snr,
                  const char *path, char *err, size_t errlen) {
  const config_setting_t *set[KEY_COUNT];
  const point_view view = {st, set};
  size_t id = 0;
  for (uint64_t combo = 0; combo < st->sweep.combos; combo++) {
    memcpy(set, st->given, sizeof set);
    sweep_plan_apply(&st->sweep, combo, set);
    char label[sizeof c->points->label];
    sweep_plan_label(&st->sweep, set, label, sizeof label);
    sim_point proto;
    if (point_resolve(&view, label, path, &proto, err, errlen)) return 2;
    for (size_t j = 0; j < n_snr; j++, id++) {
      sim_point *pt = &c->points[id];
      *pt = proto;
      pt->p.snr_db = snr_at(snr, j);
      pt->p.n0 = link_noise_variance(pt->p.snr_kind, pt->p.snr_db, pt->p.tx, pt->p.bps);
      if (link_data_res_per_frame(&pt->p) > 0) pt->p.n0 *= link_ebno_overhead(&pt->p);
      pt->index = id;
      pt->p.stream_key = link_stream_key(&pt->p);
      if (point_check(&view, pt, path, err, errlen)) return 2;
      pt->point_key = config_point_key(c, pt);
      pt->max_frames = point_max_frames(pt);
    }
  }
  return 0;
}

/* Appends a line to the notes of the header. */
static void note(config_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(config_state *st, const char *fmt, ...) {
  const size_t len = strlen(st->notes);
  if (len + 1 >= sizeof st->notes) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(st->notes + len, sizeof st->notes - len, fmt, ap);
  va_end(ap);
}

/* A --set of a key the sweep sweeps gives it the one value: the sweep
 * entry goes (it would otherwise win over the --set without a word), and the
 * header says so. A key zipped with others cannot leave its entry alone:
 * refused. The tree's setting at a swept key's path carries the text of the
 * --set that wrote it last as its hook (config_override.c); one the file
 * wrote has none, and a file that sets and sweeps a key sweeps it. */
static int overrides_replace_sweep(config_state *st, char *err, size_t errlen) {
  for (int i = 0; i < st->sweep.n;) {
    const sweep_entry *e = &st->sweep.entry[i];
    const config_setting_t *by = NULL;
    int j = 0;
    for (; j < e->n_keys && !by; j++) {
      const config_setting_t *s = config_lookup(&st->tree, config_keys[e->key[j]].path);
      if (s && config_setting_get_hook(s)) by = s;
    }
    if (!by) {
      i++;
      continue;
    }
    char shown[600], was[200], keys[200];
    cfg_escape(config_setting_get_hook(by), shown, sizeof shown);
    if (e->zipped && e->n_keys > 1) {
      sweep_entry_key_list(e, keys, sizeof keys);
      snprintf(err, errlen,
               "--set %s: %s is swept together with other keys (sweep[%d], keys %s): expected a --set of the "
               "whole sweep (--set 'sweep=(...)') rather than of one of its keys",
               shown, config_keys[e->key[j - 1]].path, i, keys);
      return 2;
    }
    cfg_out o = cfg_out_buffer(was, sizeof was);
    cfg_write_value(&o, e->values);
    note(st, "--set %s replaces the sweep over %s (%s%s)\n", shown, config_keys[e->key[0]].path, was,
         o.cut ? "..." : "");
    sweep_plan_drop(&st->sweep, i);
  }
  return 0;
}

/* Whether name is one of the items of the ", "-separated list. */
static int listed(const char *list, const char *name) {
  const size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)); p++)
    if ((p == list || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0')) return 1;
  return 0;
}

/* The value a receiver option's receiver key has at pt. */
static const char *receiver_at(const sim_point *pt, int follows) {
  return follows == KEY_EQUALIZER ? equalizer_name(pt->p.equalizer)
         : follows == KEY_LLR     ? llr_kind_name(pt->p.llr)
                                  : est_kind_name(pt->p.estimation);
}

/* A receiver option of the base config under a sweep of receivers
 * (config_key_follows_receiver): refused when it acts at no point (it would
 * do nothing at all, as without a sweep), noted in the header where it is
 * unused. */
static int receiver_options_used(config_state *st, const sim_config *c, const char *path, char *err,
                                 size_t errlen) {
  for (int k = 0; k < KEY_COUNT; k++) {
    const config_key *key = &config_keys[k];
    if (!st->given[k] || !config_key_follows_receiver((config_key_id)k) ||
        !sweep_plan_sweeps(&st->sweep, key->follows) || sweep_plan_zipped_together(&st->sweep, k, key->follows))
      continue;
    size_t used = 0;
    char unused[200] = "";
    for (size_t i = 0; i < c->n_points; i++) {
      const char *r = receiver_at(&c->points[i], key->follows);
      if (config_key_applies_with(key, r)) {
        used++;
      } else if (!listed(unused, r)) {
        const size_t len = strlen(unused);
        snprintf(unused + len, sizeof unused - len, "%s%s", len ? ", " : "", r);
      }
    }
    char got[96];
    cfg_describe(st->given[k], got, sizeof got);
    if (!used)
      return cfg_fail_at(st->given[k], path, err, errlen,
                         "%s: expected only with %s = \"%s\", got %s = %s at every point of the sweep", key->path,
                         config_keys[key->follows].path, key->only_with, config_keys[key->follows].path, unused);
    if (used < c->n_points)
      note(st, "%s = %s acts only with %s = \"%s\": unused at %zu of %zu points (%s)\n", key->path, got,
           config_keys[key->follows].path, key->only_with, c->n_points - used, c->n_points, unused);
  }
  return 0;
}

static int load(config_state *st, sim_config *c, const char *path, const char *const *overrides,
                int n_overrides, char *err, size_t errlen) {
  if (cfg_read_file(&st->tree, path, err, errlen)) return 2;
  for (int i = 0; i < n_overrides; i++)
    if (config_apply_override(st, overrides[i], path, err, errlen)) return 2;
  if (config_state_build_defaults(&st->defaults)) {
    snprintf(err, errlen, "%s: internal error: the schema's defaults do not parse", path);
    return 2;
  }
  /* a range is checked like the list it stands for, so it becomes that list first */
  if (cfg_expand_list_ranges(&st->tree, path, err, errlen)) return 2;
  if (check_group(st, config_root_setting(&st->tree), "", path, err, errlen)) return 2;
  if (sweep_plan_build(config_lookup(&st->tree, "sweep"), path, &st->sweep, err, errlen)) return 2;
  if (overrides_replace_sweep(st, err, errlen)) return 2;
  run_options(st, c);
  const point_view base = {st, st->given};
  const config_setting_t *snr = point_value(&base, KEY_SNR_DB);
  const size_t n_snr = snr_count(snr);
  if (count_points(st, n_snr, path, &c->n_points, err, errlen)) return 2;
  c->points = calloc(c->n_points, sizeof *c->points);
  if (!c->points) {
    snprintf(err, errlen, "%s: cannot hold %zu points: out of memory", path, c->n_points);
    return 2;
  }
  if (expand(st, c, snr, n_snr, path, err, errlen)) return 2;
  return receiver_options_used(st, c, path, err, errlen);
}

int sim_config_load(sim_config *c, const char *path, const char *const *overrides, int n_overrides,
                    char *err, size_t errlen) {
  memset(c, 0, sizeof *c);
  if (strlen(path) >= sizeof c->path) {
    snprintf(err, errlen, "%.60s...: cannot read: File name too long", path);
    return 2;
  }
  snprintf(c->path, sizeof c->path, "%s", path);
  config_state *st = calloc(1, sizeof *st);
  if (!st) {
    snprintf(err, errlen, "%s: cannot read: out of memory", path);
    return 2;
  }
  config_init(&st->tree);
  config_init(&st->defaults);
  config_init(&st->computed);
  /* integers read as floats where a number is wanted (snr_db = [0, 10]) */
  config_set_auto_convert(&st->tree, 1);
  config_set_auto_convert(&st->defaults, 1);
  if (load(st, c, path, overrides, n_overrides, err, errlen)) {
    state_free(st);
    free(c->points);
    memset(c, 0, sizeof *c);
    return 2;
  }
  c->priv = st;
  return 0;
}

void sim_config_print_notes(const sim_config *c, FILE *f, const char *prefix) {
  if (!c || !c->priv) return;
  const config_state *st = c->priv;
  for (const char *line = st->notes; *line;) {
    const size_t len = strcspn(line, "\n");
    fprintf(f, "%s%.*s\n", prefix, (int)len, line);
    line += len + (line[len] == '\n');
  }
}

void sim_config_free(sim_config *c) {
  if (!c) return;
  state_free(c->priv);
  free(c->points);
  memset(c, 0, sizeof *c);
}
