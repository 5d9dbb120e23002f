/* The effective config (file, overrides, defaults) written back out: libconfig
 * syntax for the run's header, JSON for the results sidecar. */
#include <string.h>

#include "sim/config.h"
#include "sim/config_schema.h"
#include "sim/config_state.h"
#include "sim/config_sweep.h"
#include "sim/config_tree.h"

/* The setting the echo shows for key k, or NULL to leave it out: keys that
 * follow a swept key, or whose condition does not hold, would change the
 * points if written down with their default. */
static const config_setting_t *effective(const config_state *st, int k) {
  if (st->given[k]) return st->given[k];
  const config_key *key = &config_keys[k];
  if (key->follows >= 0) {
    if (sweep_plan_sweeps(&st->sweep, key->follows)) return NULL;
    if (key->only_with) {
      const config_setting_t *f =
          st->given[key->follows] ? st->given[key->follows] : config_state_default(st, key->follows);
      if (strcmp(config_setting_get_string(f), key->only_with)) return NULL;
    }
  }
  if (k == KEY_CP_LENGTH) return config_lookup(&st->computed, "cp_length");
  return config_state_default(st, k);
}

/* Walks the keys in schema order, opening and closing groups. */
typedef struct echo_ops {
  void (*open_group)(cfg_out *o, const char *name, int first, const char *prefix);
  void (*close_group)(cfg_out *o, const char *prefix);
  void (*key)(cfg_out *o, const char *name, const config_setting_t *s, int first, int in_group,
              const char *prefix);
  void (*sweep)(cfg_out *o, const config_setting_t *s, int first, const char *prefix);
} echo_ops;

static void echo(const config_state *st, const echo_ops *ops, cfg_out *o, const char *prefix) {
  char group[32] = "";
  int first = 1, first_in_group = 1;
  for (int k = 0; k < KEY_COUNT; k++) {
    const config_setting_t *s = effective(st, k);
    if (!s) continue;
    const char *path = config_keys[k].path, *dot = strchr(path, '.');
    char g[32];
    snprintf(g, sizeof g, "%.*s", dot ? (int)(dot - path) : 0, path);
    if (strcmp(g, group)) {
      if (*group) ops->close_group(o, prefix);
      if (*g) {
        ops->open_group(o, g, first, prefix);
        first = 0;
        first_in_group = 1;
      }
      snprintf(group, sizeof group, "%s", g);
    }
    ops->key(o, dot ? dot + 1 : path, s, *g ? first_in_group : first, *g != 0, prefix);
    if (*g) first_in_group = 0;
    else first = 0;
  }
  if (*group) ops->close_group(o, prefix);
  if (st->sweep.n > 0) ops->sweep(o, st->sweep.setting, first, prefix);
}

static void cfg_open(cfg_out *o, const char *name, int first, const char *prefix) {
  (void)first;
  cfg_printf(o, "%s%s = {\n", prefix, name);
}
static void cfg_close(cfg_out *o, const char *prefix) { cfg_printf(o, "%s};\n", prefix); }
static void cfg_key(cfg_out *o, const char *name, const config_setting_t *s, int first, int in_group,
                    const char *prefix) {
  (void)first;
  cfg_printf(o, "%s%s%s = ", prefix, in_group ? "  " : "", name);
  cfg_write_value(o, s);
  cfg_printf(o, ";\n");
}
static void cfg_sweep(cfg_out *o, const config_setting_t *s, int first, const char *prefix) {
  (void)first;
  cfg_printf(o, "%ssweep = (\n", prefix);
  for (int i = 0; i < config_setting_length(s); i++) {
    const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
    cfg_printf(o, "%s  { key = ", prefix);
    cfg_write_value(o, config_setting_get_member(e, "key"));
    cfg_printf(o, "; values = ");
    cfg_write_value(o, config_setting_get_member(e, "values"));
    cfg_printf(o, "; }%s\n", i + 1 < config_setting_length(s) ? "," : "");
  }
  cfg_printf(o, "%s);\n", prefix);
}

static void json_open(cfg_out *o, const char *name, int first, const char *prefix) {
  (void)prefix;
  cfg_printf(o, "%s\n  ", first ? "" : ",");
  cfg_write_json_string(o, name);
  cfg_printf(o, ": {");
}
static void json_close(cfg_out *o, const char *prefix) {
  (void)prefix;
  cfg_printf(o, "\n  }");
}
static void json_key(cfg_out *o, const char *name, const config_setting_t *s, int first, int in_group,
                     const char *prefix) {
  (void)prefix;
  cfg_printf(o, "%s\n%s", first ? "" : ",", in_group ? "    " : "  ");
  cfg_write_json_string(o, name);
  cfg_printf(o, ": ");
  cfg_write_json(o, s);
}
static void json_sweep(cfg_out *o, const config_setting_t *s, int first, const char *prefix) {
  (void)prefix;
  cfg_printf(o, "%s\n  \"sweep\": [", first ? "" : ",");
  for (int i = 0; i < config_setting_length(s); i++) {
    const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
    cfg_printf(o, "%s\n    {\"key\": ", i ? "," : "");
    cfg_write_json(o, config_setting_get_member(e, "key"));
    cfg_printf(o, ", \"values\": ");
    cfg_write_json(o, config_setting_get_member(e, "values"));
    cfg_printf(o, "}");
  }
  cfg_printf(o, "\n  ]");
}

void sim_config_print(const sim_config *c, FILE *f, const char *prefix) {
  if (!c || !c->priv) return;
  static const echo_ops ops = {cfg_open, cfg_close, cfg_key, cfg_sweep};
  cfg_out o = cfg_out_file(f);
  echo(c->priv, &ops, &o, prefix ? prefix : "");
}

void sim_config_print_json(const sim_config *c, FILE *f) {
  if (!c || !c->priv) {
    fprintf(f, "{}\n");
    return;
  }
  static const echo_ops ops = {json_open, json_close, json_key, json_sweep};
  cfg_out o = cfg_out_file(f);
  cfg_printf(&o, "{");
  echo(c->priv, &ops, &o, "");
  cfg_printf(&o, "\n}");
}
