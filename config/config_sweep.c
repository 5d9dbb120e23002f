/* Validation and expansion of the sweep list. */
#include "config/config_sweep.h"

#include <string.h>

#include "config/config_format.h"
#include "config/config_range.h"
#include "config/config_suggest.h"
#include "config/config_sweep_keys.h"
#include "config/config_where.h"

#define SWEEP_SHAPE "{ key = \"KEY\"; values = [V1, V2, ...]; }"

/* The values of a one-key entry: a non-empty list, or a range for a numeric
 * key (expanded in place, so *vs may change), each value valid for key k. */
static int entry_values(config_setting_t **vs, const config_setting_t *entry, int i, config_key_id k,
                        const char *file, char *err, size_t errlen) {
  char got[96], what[32];
  snprintf(what, sizeof what, "sweep[%d].values", i);
  if (*vs && config_setting_is_group(*vs) && (config_keys[k].type == KT_INT || config_keys[k].type == KT_NUMBER) &&
      cfg_range_expand(*vs, k, what, file, vs, err, errlen))
    return 2;
  if (!*vs || !(config_setting_is_array(*vs) || config_setting_is_list(*vs)) || config_setting_length(*vs) == 0) {
    if (*vs) cfg_describe(*vs, got, sizeof got);
    else snprintf(got, sizeof got, "nothing");
    return cfg_fail_at(*vs ? *vs : entry, file, err, errlen,
                       "%s: expected a non-empty array or list of %s values, got %s", what, config_keys[k].path, got);
  }
  for (int j = 0; j < config_setting_length(*vs); j++) {
    config_setting_t *v = config_setting_get_elem(*vs, (unsigned)j);
    const config_setting_t *bad;
    char why[400];
    if (config_key_check(k, v, why, sizeof why, &bad) == 0) {
      config_key_normalize(k, v);
      continue;
    }
    return cfg_fail_at(bad, file, err, errlen, "%s (%s[%d])", why, what, j);
  }
  return 0;
}

/* The values of a zipped entry: a non-empty list of tuples, each with one
 * value per key, in the keys' order, each valid for its key. */
static int tuple_values(const config_setting_t *vs, const config_setting_t *entry, int i, const sweep_entry *e,
                        const char *file, char *err, size_t errlen) {
  char got[96], keys[200];
  sweep_entry_key_list(e, keys, sizeof keys);
  if (!vs || !(config_setting_is_array(vs) || config_setting_is_list(vs)) || config_setting_length(vs) == 0) {
    if (vs) cfg_describe(vs, got, sizeof got);
    else snprintf(got, sizeof got, "nothing");
    return cfg_fail_at(vs ? vs : entry, file, err, errlen,
                       "sweep[%d].values: expected a non-empty list of tuples, one value per key (%s) in each: "
                       "([V1, V2], ...), got %s",
                       i, keys, got);
  }
  for (int j = 0; j < config_setting_length(vs); j++) {
    const config_setting_t *t = config_setting_get_elem(vs, (unsigned)j);
    if (!(config_setting_is_array(t) || config_setting_is_list(t)) || config_setting_length(t) != e->n_keys) {
      cfg_describe(t, got, sizeof got);
      return cfg_fail_at(t, file, err, errlen, "sweep[%d].values[%d]: expected a tuple of %d value%s (%s), got %s", i,
                         j, e->n_keys, e->n_keys > 1 ? "s" : "", keys, got);
    }
    for (int m = 0; m < e->n_keys; m++) {
      config_setting_t *v = config_setting_get_elem(t, (unsigned)m);
      const config_setting_t *bad;
      char why[400];
      if (config_key_check(e->key[m], v, why, sizeof why, &bad) == 0) {
        config_key_normalize(e->key[m], v);
        continue;
      }
      return cfg_fail_at(bad, file, err, errlen, "%s (sweep[%d].values[%d][%d])", why, i, j, m);
    }
  }
  return 0;
}

/* Every member of the entry is key, keys or values. */
static int entry_members(const config_setting_t *entry, int i, const char *file, char *err, size_t errlen) {
  static const char *const members[] = {"key", "keys", "values"};
  for (int m = 0; m < config_setting_length(entry); m++) {
    const config_setting_t *member = config_setting_get_elem(entry, (unsigned)m);
    const char *name = config_setting_name(member);
    if (!strcmp(name, "key") || !strcmp(name, "keys") || !strcmp(name, "values")) continue;
    const char *near = cfg_suggest(name, members, 3);
    if (near)
      return cfg_fail_at(member, file, err, errlen, "unknown key 'sweep[%d].%s' (did you mean 'sweep[%d].%s'?)", i,
                         name, i, near);
    return cfg_fail_at(member, file, err, errlen,
                       "unknown key 'sweep[%d].%s' (an entry has key or keys, and values)", i, name);
  }
  return 0;
}

int sweep_plan_build(config_setting_t *sweep, const char *file, sweep_plan *plan, char *err, size_t errlen) {
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
    config_setting_t *entry = config_setting_get_elem(sweep, (unsigned)i);
    if (!config_setting_is_group(entry)) {
      cfg_describe(entry, got, sizeof got);
      return cfg_fail_at(entry, file, err, errlen, "sweep[%d]: expected a group " SWEEP_SHAPE ", got %s", i, got);
    }
    if (entry_members(entry, i, file, err, errlen) || sweep_entry_keys(entry, i, plan, file, err, errlen)) return 2;
    sweep_entry *e = &plan->entry[plan->n];
    config_setting_t *values = config_setting_get_member(entry, "values");
    if (e->zipped ? tuple_values(values, entry, i, e, file, err, errlen)
                  : entry_values(&values, entry, i, e->key[0], file, err, errlen))
      return 2;
    plan->n++;
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
    const config_setting_t *v = config_setting_get_elem(e->values, (unsigned)(combo % (uint64_t)e->count));
    for (int j = 0; j < e->n_keys; j++) set[e->key[j]] = e->zipped ? config_setting_get_elem(v, (unsigned)j) : v;
    combo /= (uint64_t)e->count;
  }
}

void sweep_plan_label(const sweep_plan *plan, const config_setting_t *const *set, char *buf,
                      size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < plan->n; i++)
    for (int j = 0; j < plan->entry[i].n_keys && len < n; j++) {
      const config_key_id k = plan->entry[i].key[j];
      const config_setting_t *v = set[k];
      char text[96];
      if (config_setting_type(v) == CONFIG_TYPE_STRING) snprintf(text, sizeof text, "%s", config_setting_get_string(v));
      else cfg_describe(v, text, sizeof text);
      len += (size_t)snprintf(buf + len, n - len, "%s%s=%s", len ? " " : "", config_keys[k].path, text);
    }
  if (len >= n && n > 4) strcpy(buf + n - 4, "...");
}

int sweep_plan_sweeps(const sweep_plan *plan, int k) {
  for (int i = 0; i < plan->n; i++)
    for (int j = 0; j < plan->entry[i].n_keys; j++)
      if ((int)plan->entry[i].key[j] == k) return 1;
  return 0;
}

int sweep_plan_entry_of(const sweep_plan *plan, int k) {
  for (int i = 0; i < plan->n; i++)
    for (int j = 0; j < plan->entry[i].n_keys; j++)
      if ((int)plan->entry[i].key[j] == k) return i;
  return -1;
}

void sweep_plan_drop(sweep_plan *plan, int i) {
  memmove(&plan->entry[i], &plan->entry[i + 1], sizeof *plan->entry * (size_t)(plan->n - i - 1));
  plan->n--;
  plan->combos = 1;
  for (int j = 0; j < plan->n; j++)
    plan->combos = plan->combos > UINT64_MAX / (uint64_t)plan->entry[j].count
                       ? UINT64_MAX
                       : plan->combos * (uint64_t)plan->entry[j].count;
}

int sweep_plan_zipped_together(const sweep_plan *plan, int a, int b) {
  for (int i = 0; i < plan->n; i++) {
    int has_a = 0, has_b = 0;
    for (int j = 0; j < plan->entry[i].n_keys; j++) {
      has_a |= (int)plan->entry[i].key[j] == a;
      has_b |= (int)plan->entry[i].key[j] == b;
    }
    if (has_a && has_b) return 1;
  }
  return 0;
}
