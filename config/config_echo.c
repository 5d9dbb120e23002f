/* The effective config in libconfig syntax, for the header of a run: it
 * re-reads to the same points. */
#include "config/config_echo.h"

#include <string.h>

#include "config/config.h"
#include "config/config_format.h"
#include "config/config_schema.h"
#include "config/config_sweep.h"

/* The setting the echo shows for key k, or NULL to leave it out. */
static const config_setting_t *effective(const config_state *st, int k) {
  if (st->given[k]) return st->given[k];
  const config_key *key = &config_keys[k];
  if (key->follows >= 0) {
    if (sweep_plan_sweeps(&st->sweep, key->follows)) return NULL;
    if (key->only_with) {
      const config_setting_t *f =
          st->given[key->follows] ? st->given[key->follows] : config_state_default(st, key->follows);
      if (!config_key_applies_with(key, config_setting_get_string(f))) return NULL;
    }
  }
  if (k == KEY_CP_LENGTH) return config_lookup(&st->computed, "cp_length");
  /* a quantity given in the other unit shows only as given (echoing the
   * default of its twin too would say it twice); the carrier only with a speed */
  if ((k == KEY_DELAY_SPREAD && st->given[KEY_DELAY_SPREAD_NS]) || (k == KEY_DOPPLER_HZ && st->given[KEY_SPEED_KMH]) ||
      (k == KEY_CARRIER_GHZ && !st->given[KEY_SPEED_KMH]))
    return NULL;
  /* the custom profile refuses a delay spread, even the default echoed:
   * where it may be custom, the default shows only as given */
  if (k == KEY_DELAY_SPREAD && (sweep_plan_sweeps(&st->sweep, KEY_PROFILE) ||
                                (st->given[KEY_PROFILE] &&
                                 !strcmp(config_setting_get_string(st->given[KEY_PROFILE]), "custom"))))
    return NULL;
  /* where the pilots sit shows only as given: with no pilots it is refused */
  if (k == KEY_PILOT_FIRST || k == KEY_PILOT_EVERY) return NULL;
  return config_state_default(st, k);
}

static void group_of(int k, char *group, size_t n) {
  const char *path = config_keys[k].path, *dot = strchr(path, '.');
  snprintf(group, n, "%.*s", dot ? (int)(dot - path) : 0, path);
}

/* Group by group in the order the groups first appear in the table (a key
 * added later to an earlier group joins it), each group's keys in table order. */
void config_echo_each(const config_state *st, config_echo_fn fn, void *ctx) {
  for (int g = 0; g < KEY_COUNT; g++) {
    char group[32], seen[32];
    group_of(g, group, sizeof group);
    int first = 1;
    for (int j = 0; j < g && first; j++) {
      group_of(j, seen, sizeof seen);
      first = strcmp(seen, group) != 0;
    }
    if (!first) continue;
    for (int k = g; k < KEY_COUNT; k++) {
      group_of(k, seen, sizeof seen);
      if (strcmp(seen, group)) continue;
      const config_setting_t *s = effective(st, k);
      if (!s) continue;
      const char *dot = strchr(config_keys[k].path, '.');
      fn(ctx, group, dot ? dot + 1 : config_keys[k].path, s);
    }
  }
}

typedef struct printer {
  cfg_out o;
  const char *prefix;
  char group[32]; /* the group open now, "" for none */
} printer;

static void close_group(printer *pr) {
  if (*pr->group) cfg_printf(&pr->o, "%s};\n", pr->prefix);
  pr->group[0] = '\0';
}

static void print_key(void *ctx, const char *group, const char *name, const config_setting_t *s) {
  printer *pr = ctx;
  if (strcmp(group, pr->group)) {
    close_group(pr);
    if (*group) cfg_printf(&pr->o, "%s%s = {\n", pr->prefix, group);
    snprintf(pr->group, sizeof pr->group, "%s", group);
  }
  cfg_printf(&pr->o, "%s%s%s = ", pr->prefix, *group ? "  " : "", name);
  cfg_write_value(&pr->o, s);
  cfg_printf(&pr->o, ";\n");
}

void sim_config_print(const sim_config *c, FILE *f, const char *prefix) {
  if (!c || !c->priv) return;
  const config_state *st = c->priv;
  printer pr = {cfg_out_file(f), prefix ? prefix : "", ""};
  config_echo_each(st, print_key, &pr);
  close_group(&pr);
  if (st->sweep.n == 0) return;
  cfg_printf(&pr.o, "%ssweep = (\n", pr.prefix);
  for (int i = 0; i < st->sweep.n; i++) {
    const sweep_entry *e = &st->sweep.entry[i];
    cfg_printf(&pr.o, "%s  { %s = %s", pr.prefix, e->zipped ? "keys" : "key", e->zipped ? "[" : "");
    for (int j = 0; j < e->n_keys; j++) {
      if (j) cfg_printf(&pr.o, ", ");
      cfg_write_string(&pr.o, config_keys[e->key[j]].path);
    }
    cfg_printf(&pr.o, "%s; values = ", e->zipped ? "]" : "");
    cfg_write_value(&pr.o, e->values);
    cfg_printf(&pr.o, "; }%s\n", i + 1 < st->sweep.n ? "," : "");
  }
  cfg_printf(&pr.o, "%s);\n", pr.prefix);
}
