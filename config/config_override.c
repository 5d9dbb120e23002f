/* Applying one --set override. */
#include "config/config_override.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_format.h"
#include "config/config_path.h"
#include "config/config_read.h"
#include "config/config_schema.h"
#include "config/config_source.h"
#include "config/config_where.h"

/* The one setting, named v, of scratch; NULL when there is another. */
static const config_setting_t *single_v(config_t *scratch) {
  const config_setting_t *root = config_root_setting(scratch);
  if (config_setting_length(root) != 1) return NULL;
  const config_setting_t *v = config_setting_get_elem(root, 0);
  return strcmp(config_setting_name(v), "v") ? NULL : v;
}

/* Parses "v = text" into scratch. */
static const config_setting_t *read_v(config_t *scratch, const char *text, char *why, size_t whylen) {
  char *src = malloc(strlen(text) + 8);
  if (!src) return NULL;
  /* the newline keeps a trailing # comment from swallowing the ';' */
  sprintf(src, "v = %s\n;", text);
  const int ok = cfg_parse_string(scratch, src);
  free(src);
  if (!ok) cfg_syntax_text(scratch, why, whylen);
  else if (!single_v(scratch)) snprintf(why, whylen, "more than one value");
  return ok ? single_v(scratch) : NULL;
}

/* One value in libconfig syntax, parsed into scratch (config_init'ed). A text
 * that is not one valid value is a string (a bare word), unless it starts
 * like an array, list, group or quoted string: then NULL with libconfig's
 * complaint in why. For a key whose values are names (word: a KT_CHOICE
 * key) an unquoted text is always the bare word, so that a name that reads
 * as a number (tx_array.pattern=38.901) is the name. */
static const config_setting_t *parse_value(config_t *scratch, const char *text, int word, char *why,
                                           size_t whylen) {
  const char *first = text + strspn(text, " \t");
  const int structured = *first && strchr("[({\"", *first);
  int bad_line = 0;
  char bad[64];
  snprintf(why, whylen, "out of memory");
  char *fixed = word && !structured ? NULL : cfg_fix_source(text, &bad_line, bad, sizeof bad);
  if (!fixed && bad_line) snprintf(why, whylen, "integer %s does not fit in 64 bits", bad);
  if (fixed) {
    const config_setting_t *v = read_v(scratch, fixed, why, whylen);
    free(fixed);
    if (v) return v;
    config_destroy(scratch);
    config_init(scratch);
  }
  if (structured || (!fixed && !bad_line && !word)) return NULL;
  /* not one libconfig value: a bare word, so a string */
  const size_t cap = 4 * strlen(text) + 3; /* each byte at most \xHH, and the quotes */
  char *quoted = malloc(cap);
  if (!quoted) return NULL;
  cfg_out o = cfg_out_buffer(quoted, cap);
  cfg_write_string(&o, text);
  const config_setting_t *v = read_v(scratch, quoted, why, whylen);
  free(quoted);
  return v;
}

/* Keeps the override text alive as long as st: settings point at it. */
static char *remember(config_state *st, const char *text) {
  char *origin = strdup(text);
  char **grown = realloc(st->origins, sizeof *grown * (size_t)(st->n_origins + 1));
  if (grown) st->origins = grown;
  if (!origin || !grown) {
    free(origin);
    return NULL;
  }
  st->origins[st->n_origins++] = origin;
  return origin;
}

int config_apply_override(config_state *st, const char *text, const char *file, char *err,
                          size_t errlen) {
  const char *eq = strchr(text, '=');
  char shown[600]; /* the override as messages quote it: one line, whatever it holds */
  cfg_escape(text, shown, sizeof shown);
  if (!eq || eq == text) {
    snprintf(err, errlen, "--set %s: expected KEY=VALUE, got '%s'", shown, shown);
    return 2;
  }
  char key[256], msg[512];
  if ((size_t)(eq - text) >= sizeof key) {
    char start[41], start_shown[200];
    snprintf(start, sizeof start, "%s", text);
    snprintf(err, errlen, "--set %s: unknown key '%s...'", shown, cfg_escape(start, start_shown, sizeof start_shown));
    return 2;
  }
  memcpy(key, text, (size_t)(eq - text));
  key[eq - text] = '\0';
  if (config_key_find(key) < 0 && !config_key_is_group(key) && strcmp(key, "sweep")) {
    config_key_unknown(key, msg, sizeof msg);
    snprintf(err, errlen, "--set %s: %s", shown, msg);
    return 2;
  }
  char *origin = remember(st, text);
  if (!origin) {
    snprintf(err, errlen, "--set %s: out of memory", shown);
    return 2;
  }
  config_t scratch;
  config_init(&scratch);
  char why[300];
  const int k = config_key_find(key), word = k >= 0 && config_keys[k].type == KT_CHOICE;
  const config_setting_t *value = parse_value(&scratch, eq + 1, word, why, sizeof why), *blocker = NULL;
  int rc = 0;
  if (!value) {
    snprintf(err, errlen, "--set %s: %s: syntax error: %s", shown, key, why);
    rc = 2;
  } else if (cfg_set_path(&st->tree, key, value, origin, &blocker)) {
    char where[256], got[96];
    if (blocker) {
      cfg_setting_path(blocker, where, sizeof where);
      cfg_describe(blocker, got, sizeof got);
      rc = cfg_fail_at(blocker, file, err, errlen, "%s: expected a group of settings, got %s", where, got);
    } else {
      snprintf(err, errlen, "--set %s: cannot set %s", shown, key);
      rc = 2;
    }
  }
  config_destroy(&scratch);
  return rc;
}
