/* Expanding { from; to; step; } ranges into arrays. */
#include "config/config_range.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/config_format.h"
#include "config/config_suggest.h"
#include "config/config_where.h"

enum { FROM, TO, STEP, N_MEMBERS };
static const char *const members[N_MEMBERS] = {"from", "to", "step"};

/* A range read whole: integers (KT_INT keys) or doubles. */
typedef struct range {
  int integer;
  long long i[N_MEMBERS];
  double x[N_MEMBERS];
  uint64_t count;
} range;

static int is_integer(const config_setting_t *m) {
  long long v;
  return config_setting_type(m) == CONFIG_TYPE_INT || config_setting_type(m) == CONFIG_TYPE_INT64 ||
         config_exact_integer(m, &v);
}

/* Every member of s is from, to or step, each there once, a number (an
 * integer for an integer key) and step is not zero. */
static int read_members(const config_setting_t *s, config_key_id k, const char *what, const char *file, range *r,
                        char *err, size_t errlen) {
  for (int m = 0; m < config_setting_length(s); m++) {
    const config_setting_t *e = config_setting_get_elem(s, (unsigned)m);
    const char *name = config_setting_name(e);
    if (!strcmp(name, "from") || !strcmp(name, "to") || !strcmp(name, "step")) continue;
    /* whole paths: a swap of two letters (stpe) is too much for a four-letter name alone */
    char given[160], known[N_MEMBERS][160];
    const char *paths[N_MEMBERS];
    snprintf(given, sizeof given, "%s.%s", what, name);
    for (int j = 0; j < N_MEMBERS; j++) {
      snprintf(known[j], sizeof known[j], "%s.%s", what, members[j]);
      paths[j] = known[j];
    }
    const char *near = cfg_suggest(given, paths, N_MEMBERS);
    if (near) return cfg_fail_at(e, file, err, errlen, "unknown key '%s' (did you mean '%s'?)", given, near);
    return cfg_fail_at(e, file, err, errlen, "unknown key '%s.%s' (a range has from, to and step)", what, name);
  }
  const char *kind = r->integer ? "an integer" : "a number";
  for (int m = 0; m < N_MEMBERS; m++) {
    const config_setting_t *e = config_setting_get_member(s, members[m]);
    char got[96];
    if (!e)
      return cfg_fail_at(s, file, err, errlen, "%s.%s: expected %s (a range has from, to and step), got nothing",
                         what, members[m], kind);
    cfg_describe(e, got, sizeof got);
    const int ok = r->integer ? is_integer(e) : config_setting_is_number(e) && isfinite(config_setting_get_float(e));
    if (!ok && r->integer)
      return cfg_fail_at(e, file, err, errlen, "%s.%s: expected an integer (%s takes integers), got %s", what,
                         members[m], config_keys[k].path, got);
    if (!ok) return cfg_fail_at(e, file, err, errlen, "%s.%s: expected a number, got %s", what, members[m], got);
    r->i[m] = r->integer ? config_setting_get_int64(e) : 0;
    r->x[m] = config_setting_get_float(e);
    if (m == STEP && (r->integer ? r->i[m] == 0 : r->x[m] == 0.0))
      return cfg_fail_at(e, file, err, errlen, "%s.step: expected a non-zero %s, got %s", what,
                         r->integer ? "integer" : "number", got);
  }
  return 0;
}

/* How many values the range has; more than SIM_MAX_POINTS saturates at
 * SIM_MAX_POINTS + 1, so that huge spans neither overflow nor allocate. */
static uint64_t count_values(const range *r) {
  const uint64_t cap = (uint64_t)SIM_MAX_POINTS + 1;
  if (r->integer) {
    const long long from = r->i[FROM], to = r->i[TO], step = r->i[STEP];
    if (step > 0 ? to < from : to > from) return 0;
    /* unsigned differences: exact for any two int64 values */
    const uint64_t span = step > 0 ? (uint64_t)to - (uint64_t)from : (uint64_t)from - (uint64_t)to;
    const uint64_t mag = step > 0 ? (uint64_t)step : 0 - (uint64_t)step;
    return span / mag >= cap - 1 ? cap : span / mag + 1;
  }
  /* from + i*step within to + 1e-9|step| <=> i <= (to - from)/step + 1e-9, for either sign of step */
  const double q = (r->x[TO] - r->x[FROM]) / r->x[STEP] + 1e-9;
  if (!(q >= 0)) return 0;
  return q >= (double)(cap - 1) ? cap : (uint64_t)floor(q) + 1;
}

/* Digits after the point of the shortest decimal that reads back as x; -1
 * beyond 15 or for magnitudes where every digit is before the point. */
static int decimals(double x) {
  if (fabs(x) >= 1e15) return -1;
  char buf[64];
  for (int p = 0; p <= 15; p++) {
    snprintf(buf, sizeof buf, "%.*f", p, x);
    if (strtod(buf, NULL) == x) return p;
  }
  return -1;
}

/* v rounded to `places` decimals (none when places < 0), without a -0.0. */
static double on_grid(double v, int places) {
  if (places >= 0 && fabs(v) < 1e15) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*f", places, v);
    v = strtod(buf, NULL);
  }
  return v == 0 ? 0.0 : v;
}

/* Where the range was written: its file and line, or its --set (the hook). */
typedef struct origin {
  unsigned line;
  const char *file;
  void *hook;
} origin;

/* A setting made in place of the range answers for it in messages. */
static config_setting_t *placed(config_setting_t *made, const origin *o) {
  if (!made) return NULL;
  made->line = o->line;
  made->file = o->file;
  config_setting_set_hook(made, o->hook);
  return made;
}

/* The array of r's values, added to parent as `name`. */
static config_setting_t *write_values(config_setting_t *parent, const char *name, const range *r,
                                      const origin *o) {
  config_setting_t *a = placed(config_setting_add(parent, name, CONFIG_TYPE_ARRAY), o);
  if (!a) return NULL;
  const long long last = (long long)((uint64_t)r->i[FROM] + (r->count - 1) * (uint64_t)r->i[STEP]);
  const int wide = r->integer && (r->i[FROM] < INT32_MIN || r->i[FROM] > INT32_MAX || last < INT32_MIN ||
                                  last > INT32_MAX); /* an array holds one type */
  const int places = decimals(r->x[FROM]) < 0 || decimals(r->x[STEP]) < 0
                         ? -1
                         : (int)fmax(decimals(r->x[FROM]), decimals(r->x[STEP]));
  const int type = !r->integer ? CONFIG_TYPE_FLOAT : wide ? CONFIG_TYPE_INT64 : CONFIG_TYPE_INT;
  for (uint64_t i = 0; i < r->count; i++) {
    config_setting_t *e = placed(config_setting_add(a, NULL, type), o);
    if (!e) return NULL;
    /* from + i*step, never a running sum: the i-th value carries no error of the ones before */
    const long long iv = (long long)((uint64_t)r->i[FROM] + i * (uint64_t)r->i[STEP]);
    if (type == CONFIG_TYPE_FLOAT) config_setting_set_float(e, on_grid(r->x[FROM] + (double)i * r->x[STEP], places));
    else if (type == CONFIG_TYPE_INT64) config_setting_set_int64(e, iv);
    else config_setting_set_int(e, (int)iv);
  }
  return a;
}

int cfg_range_expand(config_setting_t *s, config_key_id k, const char *what, const char *file,
                     config_setting_t **out, char *err, size_t errlen) {
  range r = {.integer = config_keys[k].type == KT_INT};
  if (read_members(s, k, what, file, &r, err, errlen)) return 2;
  r.count = count_values(&r);
  char got[160];
  cfg_describe(s, got, sizeof got);
  if (r.count == 0)
    return cfg_fail_at(s, file, err, errlen,
                       "%s: expected a range with at least one value (step %s 0 needs to %s from), got %s", what,
                       r.x[STEP] > 0 ? ">" : "<", r.x[STEP] > 0 ? ">=" : "<=", got);
  if (r.count > SIM_MAX_POINTS) {
    const double n = floor((r.x[TO] - r.x[FROM]) / r.x[STEP] + 1e-9) + 1;
    char many[40];
    snprintf(many, sizeof many, n < 1e12 ? "%.0f" : "%.3g", n);
    return cfg_fail_at(s, file, err, errlen, "%s: expected a range of at most %u values, got %s values: %s", what,
                       SIM_MAX_POINTS, many, got);
  }
  /* s is about to be freed: keep what the new settings take from it */
  config_setting_t *parent = config_setting_parent(s);
  char name[128];
  snprintf(name, sizeof name, "%s", config_setting_name(s));
  const origin o = {config_setting_source_line(s), config_setting_source_file(s), config_setting_get_hook(s)};
  if (config_setting_remove_elem(parent, (unsigned)config_setting_index(s)) != CONFIG_TRUE ||
      !(*out = write_values(parent, name, &r, &o)))
    return cfg_fail_at(NULL, file, err, errlen, "%s: cannot expand the range: out of memory", what);
  return 0;
}

int cfg_expand_list_ranges(config_t *tree, const char *file, char *err, size_t errlen) {
  for (int k = 0; k < KEY_COUNT; k++) {
    if (config_keys[k].type != KT_NUMBERS) continue;
    config_setting_t *s = config_lookup(tree, config_keys[k].path), *list;
    if (s && config_setting_is_group(s) &&
        cfg_range_expand(s, (config_key_id)k, config_keys[k].path, file, &list, err, errlen))
      return 2;
  }
  return 0;
}
