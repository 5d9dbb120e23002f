/* Checking the key names of a sweep entry. */
#include "config/config_sweep_keys.h"

#include <stdio.h>
#include <string.h>

#include "config/config_format.h"
#include "config/config_suggest.h"
#include "config/config_where.h"

/* Where key j of entry e (sweep[i]) was named, as messages quote it. */
static void key_place(const sweep_entry *e, int i, int j, char *buf, size_t n) {
  if (e->zipped) snprintf(buf, n, "sweep[%d].keys[%d]", i, j);
  else snprintf(buf, n, "sweep[%d]", i);
}

/* The entry and key that already sweep k, among the entries before `upto`
 * and the keys of entry `upto` read so far; 0 when none does. */
static int swept_before(const sweep_plan *plan, int upto, int k, char *where, size_t n) {
  for (int i = 0; i <= upto; i++)
    for (int j = 0; j < plan->entry[i].n_keys; j++) {
      if ((int)plan->entry[i].key[j] != k) continue;
      key_place(&plan->entry[i], i, j, where, n);
      return 1;
    }
  return 0;
}

/* One name ks, quoted as `at` ("sweep[1].key", "sweep[0].keys[2]"): its key
 * id, or -1 with the message in err. */
static int one_key(const config_setting_t *ks, const char *at, const sweep_plan *plan, const char *file,
                   char *err, size_t errlen) {
  char got[96], where[64];
  cfg_describe(ks, got, sizeof got);
  if (config_setting_type(ks) != CONFIG_TYPE_STRING) {
    cfg_fail_at(ks, file, err, errlen, "%s: expected a string naming a config key, got %s", at, got);
    return -1;
  }
  const char *name = config_setting_get_string(ks);
  const int k = config_key_find(name);
  if (k < 0) {
    const char *paths[KEY_COUNT];
    for (int j = 0; j < KEY_COUNT; j++) paths[j] = config_keys[j].path;
    const char *near = cfg_suggest(name, paths, KEY_COUNT);
    char shown[300];
    cfg_escape(name, shown, sizeof shown);
    if (near) cfg_fail_at(ks, file, err, errlen, "%s: unknown key '%s' (did you mean '%s'?)", at, shown, near);
    else cfg_fail_at(ks, file, err, errlen, "%s: unknown key '%s'", at, shown);
    return -1;
  }
  if (k == KEY_SNR_DB) {
    cfg_fail_at(ks, file, err, errlen,
                "%s: expected a key other than simulation.snr_db (its list is already the innermost sweep), got %s",
                at, got);
    return -1;
  }
  if (config_keys[k].per_run) {
    cfg_fail_at(ks, file, err, errlen, "%s: expected a key that can differ between points, got %s (one value per run)",
                at, got);
    return -1;
  }
  if (swept_before(plan, plan->n, k, where, sizeof where)) {
    cfg_fail_at(ks, file, err, errlen, "%s: expected each key swept once, got %s again (%s)", at, got, where);
    return -1;
  }
  return k;
}

int sweep_entry_keys(const config_setting_t *entry, int i, sweep_plan *plan, const char *file, char *err,
                     size_t errlen) {
  const config_setting_t *ks = config_setting_get_member(entry, "key"), *kl = config_setting_get_member(entry, "keys");
  sweep_entry *e = &plan->entry[plan->n];
  memset(e, 0, sizeof *e);
  char at[64], got[96], other[96];
  if (ks && kl) {
    cfg_describe(ks, got, sizeof got);
    cfg_describe(kl, other, sizeof other);
    return cfg_fail_at(kl, file, err, errlen,
                       "sweep[%d]: expected key (one key) or keys (several set together), got both: key = %s, "
                       "keys = %s",
                       i, got, other);
  }
  if (!kl) {
    if (!ks)
      return cfg_fail_at(entry, file, err, errlen,
                         "sweep[%d].key: expected a string naming a config key, got nothing", i);
    snprintf(at, sizeof at, "sweep[%d].key", i);
    const int k = one_key(ks, at, plan, file, err, errlen);
    if (k < 0) return 2;
    e->key[e->n_keys++] = (config_key_id)k;
    return 0;
  }
  e->zipped = 1;
  if (!(config_setting_is_array(kl) || config_setting_is_list(kl)) || config_setting_length(kl) == 0) {
    cfg_describe(kl, got, sizeof got);
    return cfg_fail_at(kl, file, err, errlen,
                       "sweep[%d].keys: expected a non-empty array of key names ([\"mimo.tx\", \"mimo.rx\"]), got %s",
                       i, got);
  }
  /* each key named once in all: more than KEY_COUNT names holds a repeat, caught before the array is full */
  for (int j = 0; j < config_setting_length(kl) && j < KEY_COUNT; j++) {
    snprintf(at, sizeof at, "sweep[%d].keys[%d]", i, j);
    const int k = one_key(config_setting_get_elem(kl, (unsigned)j), at, plan, file, err, errlen);
    if (k < 0) return 2;
    e->key[e->n_keys++] = (config_key_id)k;
  }
  return 0;
}

void sweep_entry_key_list(const sweep_entry *e, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int j = 0; j < e->n_keys && len < n; j++)
    len += (size_t)snprintf(buf + len, n - len, "%s%s", j ? ", " : "", config_keys[e->key[j]].path);
}
