/* Settings as Jansson values. Jansson refuses a NULL value, so a failed
 * allocation anywhere below shows as a failed set and the whole is dropped. */
#include "config/config_json.h"

#include "config/config_echo.h"
#include "config/config_schema.h"
#include "config/json_value.h"

/* Groups become objects, arrays and lists become arrays. */
static json_t *setting_json(const config_setting_t *s) {
  switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT: return json_integer(config_setting_get_int(s));
    case CONFIG_TYPE_INT64: return json_integer(config_setting_get_int64(s));
    case CONFIG_TYPE_FLOAT: return sim_json_real(config_setting_get_float(s));
    case CONFIG_TYPE_BOOL: return json_boolean(config_setting_get_bool(s));
    case CONFIG_TYPE_STRING: return sim_json_string(config_setting_get_string(s));
    default: break;
  }
  const int group = config_setting_is_group(s);
  json_t *j = group ? json_object() : json_array();
  for (int i = 0; j && i < config_setting_length(s); i++) {
    const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
    if (group ? json_object_set_new(j, config_setting_name(e), setting_json(e))
              : json_array_append_new(j, setting_json(e))) {
      json_decref(j);
      return NULL;
    }
  }
  return j;
}

typedef struct builder {
  json_t *root;
  int failed;
} builder;

static void add_key(void *ctx, const char *group, const char *name, const config_setting_t *s) {
  builder *b = ctx;
  json_t *into = b->root;
  if (*group && !(into = json_object_get(b->root, group))) {
    into = json_object();
    if (json_object_set_new(b->root, group, into)) {
      b->failed = 1;
      return;
    }
  }
  b->failed |= json_object_set_new(into, name, setting_json(s)) != 0;
}

/* An entry as it was written: "key" and its values, or "keys" and the tuples. */
static json_t *entry_json(const sweep_entry *e) {
  if (!e->zipped)
    return json_pack("{s:s, s:o}", "key", config_keys[e->key[0]].path, "values", setting_json(e->values));
  json_t *keys = json_array();
  for (int j = 0; keys && j < e->n_keys; j++)
    if (json_array_append_new(keys, json_string(config_keys[e->key[j]].path))) {
      json_decref(keys);
      return NULL;
    }
  return json_pack("{s:o, s:o}", "keys", keys, "values", setting_json(e->values));
}

static json_t *sweep_json(const sweep_plan *plan) {
  json_t *sweep = json_array();
  for (int i = 0; sweep && i < plan->n; i++) {
    json_t *entry = entry_json(&plan->entry[i]);
    if (json_array_append_new(sweep, entry)) {
      json_decref(sweep);
      return NULL;
    }
  }
  return sweep;
}

json_t *sim_config_json(const sim_config *c) {
  builder b = {json_object(), 0};
  if (!b.root || !c || !c->priv) return b.root;
  const config_state *st = c->priv;
  config_echo_each(st, add_key, &b);
  if (st->sweep.n > 0) b.failed |= json_object_set_new(b.root, "sweep", sweep_json(&st->sweep)) != 0;
  if (b.failed) {
    json_decref(b.root);
    return NULL;
  }
  return b.root;
}
