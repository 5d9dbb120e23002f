/* Validation and expansion of the sweep list. */
#include "sim/config_sweep.h"

#include <string.h>

#include "sim/config_format.h"
#include "sim/config_suggest.h"
#include "sim/config_where.h"

#define SWEEP_SHAPE "{ key = \"KEY\"; values = [V1, V2, ...]; }"

/* The key member of one entry: a known, per-point key other than snr_db,
 * not swept by an earlier entry. Its id, or -1 with the message in err. */
static int entry_key(const config_setting_t *ks, const config_setting_t *entry, int i,
                     const sweep_plan *plan, const char *file, char *err, size_t errlen) {
  char got[96];
  if (!ks) {
    cfg_fail_at(entry, file, err, errlen, "sweep[%d].key: expected a string naming a config key, got nothing", i);
    return -1;
  }
  cfg_describe(ks, got, sizeof got);
  if (config_setting_type(ks) != CONFIG_TYPE_STRING) {
    cfg_fail_at(ks, file, err, errlen, "sweep[%d].key: expected a string naming a config key, got %s", i, got);
    return -1;
  }
  const char *name = config_setting_get_string(ks);
  const int k = config_key_find(name);
  if (k < 0) {
    const char *paths[KEY_COUNT];
    for (int j = 0; j < KEY_COUNT; j++) paths[j] = config_keys[j].path;
    const char *near = cfg_suggest(name, paths, KEY_COUNT);
    if (near)
      cfg_fail_at(ks, file, err, errlen, "sweep[%d].key: unknown key '%s' (did you mean '%s'?)", i, name, near);
    else
      cfg_fail_at(ks, file, err, errlen, "sweep[%d].key: unknown key '%s'", i, name);
    return -1;
  }
  if (k == KEY_SNR_DB) {
    cfg_fail_at(ks, file, err, errlen,
                "sweep[%d].key: expected a key other than simulation.snr_db (its list is already the "
                "innermost sweep), got %s",
                i, got);
    return -1;
  }
  if (config_keys[k].per_run) {
    cfg_fail_at(ks, file, err, errlen,
                "sweep[%d].key: expected a key that can differ between points, got %s (one value per run)",
                i, got);
    return -1;
  }
  for (int j = 0; j < plan->n; j++) {
    if ((int)plan->entry[j].key != k) continue;
    cfg_fail_at(ks, file, err, errlen, "sweep[%d].key: expected each key swept once, got %s again (sweep[%d])",
                i, got, j);
    return -1;
  }
  return k;
}

static int entry_values(const config_setting_t *vs, const config_setting_t *entry, int i, int k,
                        const char *file, char *err, size_t errlen) {
  char got[96];
  if (!vs || !(config_setting_is_array(vs) || config_setting_is_list(vs)) ||
      config_setting_length(vs) == 0) {
    if (vs) cfg_describe(vs, got, sizeof got);
    else snprintf(got, sizeof got, "nothing");
    return cfg_fail_at(vs ? vs : entry, file, err, errlen,
                       "sweep[%d].values: expected a non-empty array or list of %s values, got %s", i,
                       config_keys[k].path, got);
  }
  for (int j = 0; j < config_setting_length(vs); j++) {
    const config_setting_t *v = config_setting_get_elem(vs, (unsigned)j), *bad;
    char why[400];
    if (config_key_check((config_key_id)k, v, why, sizeof why, &bad) == 0) continue;
    return cfg_fail_at(bad, file, err, errlen, "%s (sweep[%d].values[%d])", why, i, j);
  }
  return 0;
}

int sweep_plan_build(const config_setting_t *sweep, const char *file, sweep_plan *plan, char *err,
                     size_t errlen) {
  memset(plan, 0, sizeof *plan);
  plan->combos = 1;
  plan->setting = sweep;
  if (!sweep) return 0;
  char got[96];
  if (!config_setting_is_list(sweep) && !config_setting_is_array(sweep)) {
    cfg_describe(sweep, got, sizeof got);
    return cfg_fail_at(sweep, file, err, errlen, "sweep: expected a list of groups (" SWEEP_SHAPE ", ...), got %s",
                       got);
  }
  for (int i = 0; i < config_setting_length(sweep); i++) {
    const config_setting_t *entry = config_setting_get_elem(sweep, (unsigned)i);
    if (!config_setting_is_group(entry)) {
      cfg_describe(entry, got, sizeof got);
      return cfg_fail_at(entry, file, err, errlen, "sweep[%d]: expected a group " SWEEP_SHAPE ", got %s", i, got);
    }
    for (int m = 0; m < config_setting_length(entry); m++) {
      const config_setting_t *member = config_setting_get_elem(entry, (unsigned)m);
      const char *name = config_setting_name(member);
      if (!strcmp(name, "key") || !strcmp(name, "values")) continue;
      static const char *const members[] = {"key", "values"};
      const char *near = cfg_suggest(name, members, 2);
      if (near)
        return cfg_fail_at(member, file, err, errlen, "unknown key 'sweep[%d].%s' (did you mean 'sweep[%d].%s'?)",
                           i, name, i, near);
      return cfg_fail_at(member, file, err, errlen, "unknown key 'sweep[%d].%s' (an entry has key and values)", i,
                         name);
    }
    const int k = entry_key(config_setting_get_member(entry, "key"), entry, i, plan, file, err, errlen);
    if (k < 0) return 2;
    const config_setting_t *values = config_setting_get_member(entry, "values");
    if (entry_values(values, entry, i, k, file, err, errlen)) return 2;
    sweep_entry *e = &plan->entry[plan->n++];
    e->key = (config_key_id)k;
    e->values = values;
    e->count = config_setting_length(values);
    plan->combos = plan->combos > UINT64_MAX / (uint64_t)e->count ? UINT64_MAX
                                                                    : plan->combos * (uint64_t)e->count;
  }
  return 0;
}

void sweep_plan_apply(const sweep_plan *plan, uint64_t combo, const config_setting_t **set) {
  for (int i = plan->n - 1; i >= 0; i--) {
    const sweep_entry *e = &plan->entry[i];
    set[e->key] = config_setting_get_elem(e->values, (unsigned)(combo % (uint64_t)e->count));
    combo /= (uint64_t)e->count;
  }
}

void sweep_plan_label(const sweep_plan *plan, const config_setting_t *const *set, char *buf,
                      size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < plan->n && len < n; i++) {
    const config_setting_t *v = set[plan->entry[i].key];
    char text[96];
    if (config_setting_type(v) == CONFIG_TYPE_STRING) snprintf(text, sizeof text, "%s", config_setting_get_string(v));
    else cfg_describe(v, text, sizeof text);
    len += (size_t)snprintf(buf + len, n - len, "%s%s=%s", i ? " " : "", config_keys[plan->entry[i].key].path,
                            text);
  }
  if (len >= n && n > 4) strcpy(buf + n - 4, "...");
}

int sweep_plan_sweeps(const sweep_plan *plan, int k) {
  for (int i = 0; i < plan->n; i++)
    if ((int)plan->entry[i].key == k) return 1;
  return 0;
}
