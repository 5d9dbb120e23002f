/* Editing and naming settings by dotted path. */
#include "config/config_path.h"

#include <stdio.h>
#include <string.h>

#include "config/config_source.h"

static config_setting_t *copy_into(config_setting_t *parent, const char *name,
                                   const config_setting_t *src, void *hook) {
  config_setting_t *d = config_setting_add(parent, name, config_setting_type(src));
  if (!d) return NULL;
  config_setting_set_hook(d, hook);
  switch (config_setting_type(src)) {
    case CONFIG_TYPE_INT: config_setting_set_int(d, config_setting_get_int(src)); break;
    case CONFIG_TYPE_INT64: config_setting_set_int64(d, config_setting_get_int64(src)); break;
    case CONFIG_TYPE_FLOAT: config_setting_set_float(d, config_setting_get_float(src)); break;
    case CONFIG_TYPE_BOOL: config_setting_set_bool(d, config_setting_get_bool(src)); break;
    case CONFIG_TYPE_STRING: config_setting_set_string(d, config_setting_get_string(src)); break;
    default: /* aggregates */
      for (int i = 0; i < config_setting_length(src); i++) {
        const config_setting_t *e = config_setting_get_elem(src, (unsigned)i);
        if (!copy_into(d, config_setting_name(e), e, hook)) return NULL;
      }
  }
  return d;
}

int cfg_set_path(config_t *c, const char *path, const config_setting_t *value, void *hook,
                 const config_setting_t **blocker) {
  *blocker = NULL;
  config_setting_t *g = config_root_setting(c);
  char comp[256];
  const char *p = path;
  for (;;) {
    const size_t len = strcspn(p, ".");
    if (len == 0 || len >= sizeof comp) return -1;
    memcpy(comp, p, len);
    comp[len] = '\0';
    if (!cfg_valid_name(comp)) return -1;
    if (p[len] == '\0') break;
    config_setting_t *m = config_setting_get_member(g, comp);
    if (!m) {
      m = config_setting_add(g, comp, CONFIG_TYPE_GROUP);
      if (!m) return -1;
      config_setting_set_hook(m, hook);
    } else if (!config_setting_is_group(m)) {
      *blocker = m;
      return -1;
    }
    g = m;
    p += len + 1;
  }
  if (config_setting_get_member(g, comp)) config_setting_remove(g, comp);
  return copy_into(g, comp, value, hook) ? 0 : -1;
}

void cfg_setting_path(const config_setting_t *s, char *buf, size_t n) {
  const char *names[16];
  int depth = 0;
  for (; s && !config_setting_is_root(s) && depth < 16; s = config_setting_parent(s))
    names[depth++] = config_setting_name(s) ? config_setting_name(s) : "?";
  size_t len = 0;
  buf[0] = '\0';
  while (depth-- > 0 && len < n) len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "." : "", names[depth]);
}
