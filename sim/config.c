/* Loading a config: file, --set overrides, key-by-key validation against the
 * schema, the sweep, and every point resolved and checked as a combination
 * before anything runs. */
#include "sim/config.h"

#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/draws.h"
#include "channel/tdl.h"
#include "sim/config_schema.h"
#include "sim/config_state.h"
#include "sim/config_sweep.h"
#include "sim/config_tree.h"

#define MAX_RES_PER_FRAME (1u << 24)

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

/* Every name a config may use: the keys, their groups (spelt into groups),
 * and sweep. */
static size_t known_names(const char **names, char (*groups)[32]) {
  size_t n = 0;
  for (int k = 0; k < KEY_COUNT; k++) {
    names[n++] = config_keys[k].path;
    const char *dot = strchr(config_keys[k].path, '.');
    if (!dot) continue;
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
  char groups[KEY_COUNT][32];
  const char *near = cfg_suggest(path, names, known_names(names, groups));
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

const config_setting_t *config_state_default(const config_state *st, int k) {
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
  return v->set[k] ? v->set[k] : config_state_default(v->st, k);
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
  p->snr_kind = (snr_def)choice_of(v, KEY_SNR_KIND);
  p->seed = (uint64_t)int_of(v, KEY_SEED);
  pt->target_errors = (uint64_t)int_of(v, KEY_TARGET_ERRORS);
  pt->max_bits = number_of(v, KEY_MAX_BITS);
  pt->min_frames = (uint64_t)int_of(v, KEY_MIN_FRAMES);
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
    char got[96], limit[40];
    cfg_describe(value_of(v, KEY_MAX_BITS), got, sizeof got);
    snprintf(limit, sizeof limit, "%.4g", (double)RNG_MAX_FRAMES * bpf);
    return fail_at(first_given(v, KEY_MAX_BITS, -1), file, err, errlen,
                   "simulation.max_bits: expected a number below 2^%d frames x %.0f bits per frame = %s, got %s%s",
                   RNG_FRAME_BITS, bpf, limit, got, at);
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
