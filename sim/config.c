/* Loading a config: file, --set overrides, key-by-key validation against the
 * schema, the sweep, and every point resolved and checked as a combination
 * before anything runs. Also the effective-config echoes. */
#include "sim/config.h"

#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "channel/draws.h"
#include "channel/tdl.h"
#include "sim/config_schema.h"
#include "sim/config_sweep.h"
#include "sim/config_tree.h"

#define MAX_RES_PER_FRAME (1u << 24)

typedef struct config_state {
  config_t tree;        /* the file with the overrides applied */
  config_t defaults;    /* k<id> = <default of key id> */
  config_t computed;    /* cp_length of the base config, for the echo */
  char **origins;       /* the override texts, hooks of the settings they made */
  int n_origins;
  const config_setting_t *given[KEY_COUNT]; /* the base config's settings, NULL: default */
  sweep_plan sweep;
} config_state;

static void state_free(config_state *st) {
  if (!st) return;
  config_destroy(&st->tree);
  config_destroy(&st->defaults);
  config_destroy(&st->computed);
  for (int i = 0; i < st->n_origins; i++) free(st->origins[i]);
  free(st->origins);
  free(st);
}

/* "WHERE: message" with WHERE the setting's place. */
static int fail_at(const config_setting_t *s, const char *file, char *err, size_t errlen,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int fail_at(const config_setting_t *s, const char *file, char *err, size_t errlen,
                   const char *fmt, ...) {
  char where[1100], msg[1024];
  if (s) cfg_where(s, file, where, sizeof where);
  else snprintf(where, sizeof where, "%s", file);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(err, errlen, "%s: %s", where, msg);
  return 2;
}

/* ---- overrides ---------------------------------------------------------------- */

static int known_path(const char *path) {
  return config_key_find(path) >= 0 || config_key_is_group(path) || !strcmp(path, "sweep");
}

/* Every name a config may use: keys, their groups, sweep. */
static size_t known_names(const char **names) {
  size_t n = 0;
  for (int k = 0; k < KEY_COUNT; k++) {
    names[n++] = config_keys[k].path;
    const char *dot = strchr(config_keys[k].path, '.');
    if (!dot) continue;
    static char groups[KEY_COUNT][32];
    snprintf(groups[k], sizeof groups[k], "%.*s", (int)(dot - config_keys[k].path), config_keys[k].path);
    int seen = 0;
    for (size_t j = 0; j < n; j++) seen |= !strcmp(names[j], groups[k]);
    if (!seen) names[n++] = groups[k];
  }
  names[n++] = "sweep";
  return n;
}

static void unknown_key_message(const char *path, char *msg, size_t n) {
  const char *names[2 * KEY_COUNT + 1];
  const char *near = cfg_suggest(path, names, known_names(names));
  if (near) snprintf(msg, n, "unknown key '%s' (did you mean '%s'?)", path, near);
  else snprintf(msg, n, "unknown key '%s'", path);
}

/* "channel.model": the dotted path of a setting in its tree. */
static void setting_path(const config_setting_t *s, char *buf, size_t n) {
  const char *names[16];
  int depth = 0;
  for (; s && !config_setting_is_root(s) && depth < 16; s = config_setting_parent(s))
    names[depth++] = config_setting_name(s) ? config_setting_name(s) : "?";
  size_t len = 0;
  buf[0] = '\0';
  while (depth-- > 0 && len < n) len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "." : "", names[depth]);
}

static int apply_override(config_state *st, const char *text, const char *file, char *err,
                          size_t errlen) {
  const char *eq = strchr(text, '=');
  if (!eq || eq == text) {
    snprintf(err, errlen, "--set %s: expected KEY=VALUE, got '%s'", text, text);
    return 2;
  }
  char key[256];
  if ((size_t)(eq - text) >= sizeof key) {
    snprintf(err, errlen, "--set %s: unknown key '%.40s...'", text, text);
    return 2;
  }
  memcpy(key, text, (size_t)(eq - text));
  key[eq - text] = '\0';
  if (!known_path(key)) {
    char msg[512];
    unknown_key_message(key, msg, sizeof msg);
    snprintf(err, errlen, "--set %s: %s", text, msg);
    return 2;
  }
  char *origin = strdup(text);
  char **grown = realloc(st->origins, sizeof *grown * (size_t)(st->n_origins + 1));
  if (!origin || !grown) {
    free(origin);
    if (grown) st->origins = grown;
    snprintf(err, errlen, "--set %s: out of memory", text);
    return 2;
  }
  st->origins = grown;
  st->origins[st->n_origins++] = origin;

  config_t scratch;
  config_init(&scratch);
  char why[300];
  const config_setting_t *value = cfg_parse_value(&scratch, eq + 1, why, sizeof why), *blocker = NULL;
  int rc = 0;
  if (!value) {
    snprintf(err, errlen, "--set %s: %s: syntax error: %s", text, key, why);
    rc = 2;
  } else if (cfg_set_path(&st->tree, key, value, origin, &blocker)) {
    char got[96];
    if (blocker) {
      char where[256];
      setting_path(blocker, where, sizeof where);
      cfg_describe(blocker, got, sizeof got);
      rc = fail_at(blocker, file, err, errlen, "%s: expected a group of settings, got %s", where, got);
    } else {
      snprintf(err, errlen, "--set %s: cannot set %s", text, key);
      rc = 2;
    }
  }
  config_destroy(&scratch);
  return rc;
}

/* ---- validation of the tree, key by key ----------------------------------------- */

static int check_group(config_state *st, const config_setting_t *g, const char *prefix,
                       const char *file, char *err, size_t errlen) {
  for (int i = 0; i < config_setting_length(g); i++) {
    const config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
    char path[256], msg[700], got[96];
    snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", config_setting_name(m));
    if (!strcmp(path, "sweep")) continue; /* the sweep plan checks it whole */
    const int k = config_key_find(path);
    if (k >= 0) {
      const config_setting_t *bad;
      if (config_key_check((config_key_id)k, m, msg, sizeof msg, &bad))
        return fail_at(bad, file, err, errlen, "%s", msg);
      st->given[k] = m;
    } else if (config_key_is_group(path)) {
      if (!config_setting_is_group(m)) {
        cfg_describe(m, got, sizeof got);
        return fail_at(m, file, err, errlen, "%s: expected a group of settings, got %s", path, got);
      }
      if (check_group(st, m, path, file, err, errlen)) return 2;
    } else {
      unknown_key_message(path, msg, sizeof msg);
      return fail_at(m, file, err, errlen, "%s", msg);
    }
  }
  return 0;
}

static int build_defaults(config_t *d) {
  char text[4096];
  size_t len = 0;
  for (int k = 0; k < KEY_COUNT; k++)
    if (config_keys[k].default_text)
      len += (size_t)snprintf(text + len, sizeof text - len, "k%d = %s;\n", k, config_keys[k].default_text);
  return len < sizeof text && config_read_string(d, text) ? 0 : -1;
}

static const config_setting_t *default_of(const config_state *st, int k) {
  char name[16];
  snprintf(name, sizeof name, "k%d", k);
  return config_lookup(&st->defaults, name);
}

/* ---- one combination of values -> link parameters ------------------------------- */

typedef struct point_view {
  const config_state *st;
  const config_setting_t *const *set; /* the settings of this point; NULL: default */
} point_view;

static const config_setting_t *value_of(const point_view *v, int k) {
  return v->set[k] ? v->set[k] : default_of(v->st, k);
}
static int64_t int_of(const point_view *v, int k) { return config_key_int(value_of(v, k)); }
static double number_of(const point_view *v, int k) { return config_key_number(value_of(v, k)); }
static int choice_of(const point_view *v, int k) { return config_key_choice((config_key_id)k, value_of(v, k)); }

/* The setting a combination error is reported at: the first of the keys
 * (terminated by -1) that this point sets; NULL when all are defaults. */
static const config_setting_t *first_given(const point_view *v, ...) {
  va_list ap;
  va_start(ap, v);
  const config_setting_t *s = NULL;
  for (int k = va_arg(ap, int); k >= 0 && !s; k = va_arg(ap, int)) s = v->set[k];
  va_end(ap);
  return s;
}

static int resolve_point(const point_view *v, const char *label, const char *file, sim_point *pt,
                         char *err, size_t errlen) {
  char at[300] = "";
  if (*label) snprintf(at, sizeof at, " (sweep point %s)", label);
  memset(pt, 0, sizeof *pt);
  link_params *p = &pt->p;
  p->tx = (int)int_of(v, KEY_TX);
  p->rx = (int)int_of(v, KEY_RX);
  p->bps = choice_of(v, KEY_MODULATION);
  p->equalizer = (eq_kind)choice_of(v, KEY_EQUALIZER);
  p->model = (channel_model)choice_of(v, KEY_MODEL);
  p->profile = (pdp_kind)choice_of(v, KEY_PROFILE);
  p->delay_spread = number_of(v, KEY_DELAY_SPREAD);
  p->rho_tx = number_of(v, KEY_RHO_TX);
  p->rho_rx = number_of(v, KEY_RHO_RX);
  p->k_factor = number_of(v, KEY_K_FACTOR);
  p->csi_error_var = number_of(v, KEY_CSI_ERROR_VAR);
  p->domain = (ofdm_domain)choice_of(v, KEY_DOMAIN);
  p->subcarriers = (int)int_of(v, KEY_SUBCARRIERS);
  p->symbols = (int)int_of(v, KEY_SYMBOLS);
  p->cp_length = v->set[KEY_CP_LENGTH] ? (int)int_of(v, KEY_CP_LENGTH) : p->subcarriers / 8;
  p->snr_kind = (snr_kind)choice_of(v, KEY_SNR_KIND);
  p->seed = (uint64_t)int_of(v, KEY_SEED);
  pt->target_errors = (uint64_t)int_of(v, KEY_TARGET_ERRORS);
  pt->max_bits = number_of(v, KEY_MAX_BITS);
  snprintf(pt->label, sizeof pt->label, "%s", label);

  /* keys that only make sense with another key's value */
  for (int k = 0; k < KEY_COUNT; k++) {
    const config_key *key = &config_keys[k];
    if (!key->only_with || !v->set[k]) continue;
    const char *other = config_setting_get_string(value_of(v, key->follows));
    if (strcmp(other, key->only_with))
      return fail_at(v->set[k], file, err, errlen, "%s: expected only with %s = \"%s\", got %s = \"%s\"%s",
                     key->path, config_keys[key->follows].path, key->only_with,
                     config_keys[key->follows].path, other, at);
  }
  if (p->equalizer == EQ_ZF && p->rx < p->tx)
    return fail_at(first_given(v, KEY_EQUALIZER, -1), file, err, errlen,
                   "equalizer: \"zf\" needs mimo.rx >= mimo.tx, got tx = %d, rx = %d%s", p->tx, p->rx, at);
  if (p->model == CH_AWGN) {
    if (p->tx != p->rx)
      return fail_at(first_given(v, KEY_MODEL, -1), file, err, errlen,
                     "channel.model: \"awgn\" (H = I) needs mimo.rx = mimo.tx, got tx = %d, rx = %d%s",
                     p->tx, p->rx, at);
    static const int no_awgn[] = {KEY_RHO_TX, KEY_RHO_RX, KEY_K_FACTOR};
    for (size_t i = 0; i < sizeof no_awgn / sizeof *no_awgn; i++) {
      const int k = no_awgn[i];
      if (number_of(v, k) == 0.0) continue;
      char got[96];
      cfg_describe(value_of(v, k), got, sizeof got);
      return fail_at(first_given(v, k, KEY_MODEL, -1), file, err, errlen,
                     "%s: expected 0 with channel.model = \"awgn\" (H = I), got %s%s", config_keys[k].path,
                     got, at);
    }
  }
  if (p->domain == DOMAIN_TIME && p->model == CH_RAYLEIGH)
    return fail_at(first_given(v, KEY_DOMAIN, KEY_MODEL, -1), file, err, errlen,
                   "ofdm.domain: \"time\" needs channel.model = \"tdl\" or \"awgn\" (i.i.d. Rayleigh per RE "
                   "has no time-domain form), got \"rayleigh\"%s",
                   at);
  if (p->cp_length >= p->subcarriers)
    return fail_at(first_given(v, KEY_CP_LENGTH, KEY_SUBCARRIERS, -1), file, err, errlen,
                   "ofdm.cp_length: expected an integer in [0, %d] (below ofdm.subcarriers = %d), got %d%s",
                   p->subcarriers - 1, p->subcarriers, p->cp_length, at);
  if (link_res_per_frame(p) > MAX_RES_PER_FRAME)
    return fail_at(first_given(v, KEY_SYMBOLS, KEY_SUBCARRIERS, -1), file, err, errlen,
                   "ofdm.symbols: expected subcarriers * symbols <= %u REs per frame, got %d * %d = %llu%s",
                   MAX_RES_PER_FRAME, p->subcarriers, p->symbols,
                   (unsigned long long)link_res_per_frame(p), at);
  if (p->model == CH_TDL) {
    char why[512];
    if (tdl_pdp_make(p->profile, p->delay_spread, p->subcarriers - 1, &p->pdp, why, sizeof why))
      return fail_at(first_given(v, KEY_DELAY_SPREAD, KEY_PROFILE, KEY_SUBCARRIERS, KEY_MODEL, -1), file,
                     err, errlen, "channel.delay_spread: %s%s", why, at);
  } else if (p->model == CH_AWGN) {
    p->pdp.taps = 1; /* H = I: one tap of unit power, for the time-domain modem */
    p->pdp.delay[0] = 0;
    p->pdp.power[0] = 1.0f;
  }
  const double bpf = (double)link_bits_per_frame(p);
  if (pt->max_bits / bpf >= (double)RNG_MAX_FRAMES) {
    char got[96];
    cfg_describe(value_of(v, KEY_MAX_BITS), got, sizeof got);
    return fail_at(first_given(v, KEY_MAX_BITS, -1), file, err, errlen,
                   "simulation.max_bits: expected fewer than 2^%d frames of %.0f bits, got %s (%.3g frames)%s",
                   RNG_FRAME_BITS, bpf, got, pt->max_bits / bpf, at);
  }
  return 0;
}

/* ---- load --------------------------------------------------------------------------- */

static size_t snr_count(const config_setting_t *s) {
  return config_setting_is_aggregate(s) ? (size_t)config_setting_length(s) : 1;
}
static double snr_at(const config_setting_t *s, size_t i) {
  return config_setting_is_aggregate(s) ? cfg_number(config_setting_get_elem(s, (unsigned)i)) : cfg_number(s);
}

static int load(config_state *st, sim_config *c, const char *path, const char *const *overrides,
                int n_overrides, char *err, size_t errlen) {
  if (cfg_read_file(&st->tree, path, err, errlen)) return 2;
  for (int i = 0; i < n_overrides; i++)
    if (apply_override(st, overrides[i], path, err, errlen)) return 2;
  if (build_defaults(&st->defaults)) {
    snprintf(err, errlen, "%s: internal error: the schema's defaults do not parse", path);
    return 2;
  }
  if (check_group(st, config_root_setting(&st->tree), "", path, err, errlen)) return 2;
  if (sweep_plan_build(config_lookup(&st->tree, "sweep"), path, &st->sweep, err, errlen)) return 2;

  const point_view base = {st, st->given};
  snprintf(c->backend, sizeof c->backend, "%s", config_setting_get_string(value_of(&base, KEY_BACKEND)));
  c->threads = (int)int_of(&base, KEY_THREADS);
  c->batch_frames = (uint64_t)int_of(&base, KEY_BATCH_FRAMES);
  c->gpu_memory_mb = (uint64_t)int_of(&base, KEY_GPU_MEMORY_MB);
  config_setting_t *cp = config_setting_add(config_root_setting(&st->computed), "cp_length", CONFIG_TYPE_INT);
  if (cp) config_setting_set_int(cp, (int)int_of(&base, KEY_SUBCARRIERS) / 8);

  const config_setting_t *snr = value_of(&base, KEY_SNR_DB);
  const size_t n_snr = snr_count(snr);
  const uint64_t combos = st->sweep.combos;
  if (combos > RNG_MAX_POINTS / n_snr) {
    const int by_sweep = combos > 1;
    const config_setting_t *at = by_sweep ? st->sweep.setting : st->given[KEY_SNR_DB];
    char total[64];
    if (combos > UINT64_MAX / n_snr) snprintf(total, sizeof total, "more than 2^64");
    else snprintf(total, sizeof total, "%llu", (unsigned long long)(combos * n_snr));
    return fail_at(at, path, err, errlen,
                   "%s: expected at most %u points in all, got %s (%llu sweep combinations x %zu snr_db values)",
                   by_sweep ? "sweep" : "simulation.snr_db", RNG_MAX_POINTS, total,
                   (unsigned long long)combos, n_snr);
  }
  c->n_points = (size_t)combos * n_snr;
  c->points = calloc(c->n_points, sizeof *c->points);
  if (!c->points) {
    snprintf(err, errlen, "%s: cannot hold %zu points: out of memory", path, c->n_points);
    return 2;
  }
  const config_setting_t *set[KEY_COUNT];
  const point_view view = {st, set};
  size_t id = 0;
  for (uint64_t combo = 0; combo < combos; combo++) {
    memcpy(set, st->given, sizeof set);
    sweep_plan_apply(&st->sweep, combo, set);
    char label[sizeof c->points->label];
    sweep_plan_label(&st->sweep, set, label, sizeof label);
    sim_point proto;
    if (resolve_point(&view, label, path, &proto, err, errlen)) return 2;
    for (size_t j = 0; j < n_snr; j++, id++) {
      sim_point *pt = &c->points[id];
      *pt = proto;
      pt->p.snr_db = snr_at(snr, j);
      pt->p.n0 = link_noise_variance(pt->p.snr_kind, pt->p.snr_db, pt->p.tx, pt->p.bps);
      pt->p.point_id = (uint32_t)id;
    }
  }
  return 0;
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
  if (load(st, c, path, overrides, n_overrides, err, errlen)) {
    state_free(st);
    free(c->points);
    memset(c, 0, sizeof *c);
    return 2;
  }
  c->priv = st;
  return 0;
}

void sim_config_free(sim_config *c) {
  if (!c) return;
  state_free(c->priv);
  free(c->points);
  memset(c, 0, sizeof *c);
}

/* ---- the effective config ------------------------------------------------------------ */

/* The setting the echo shows for key k, or NULL to leave it out: keys that
 * follow a swept key, or whose condition does not hold, would change the
 * points if written down with their default. */
static const config_setting_t *effective(const config_state *st, int k) {
  if (st->given[k]) return st->given[k];
  const config_key *key = &config_keys[k];
  if (key->follows >= 0) {
    if (sweep_plan_sweeps(&st->sweep, key->follows)) return NULL;
    if (key->only_with) {
      const config_setting_t *f = st->given[key->follows] ? st->given[key->follows] : default_of(st, key->follows);
      if (strcmp(config_setting_get_string(f), key->only_with)) return NULL;
    }
  }
  if (k == KEY_CP_LENGTH) return config_lookup(&st->computed, "cp_length");
  return default_of(st, k);
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
  cfg_printf(&o, "\n}\n");
}
