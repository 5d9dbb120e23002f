/* sim_config_load: defaults, every kind of --set, sweep order, labels, n0 for
 * each SNR definition, ranges and zipped sweep entries, the effective-config
 * echo re-reading to the same points, the JSON echo, and the JSON values of
 * any string. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <libconfig.h>

#include "config/config.h"
#include "config/config_json.h"
#include "config/config_schema.h"
#include "config/json_value.h"
#include "testutil.h"

static char dir[64];

static const char *write_file(const char *name, const char *text) {
  static char paths[16][128];
  static int next = 0;
  char *path = paths[next++ % 16];
  snprintf(path, sizeof paths[0], "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  fputs(text, f);
  fclose(f);
  return path;
}

/* Loads, reporting a failure as a failed check. */
static int load(sim_config *c, const char *path, const char *const *sets, int n) {
  char err[1024] = "";
  const int rc = sim_config_load(c, path, sets, n, err, sizeof err);
  CHECK(rc == 0, "load %s failed: %s", path, err);
  return rc;
}

static int close_to(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b)); }

static void test_defaults(void) {
  sim_config c;
  if (load(&c, write_file("empty.cfg", "# nothing: every key at its default\n"), NULL, 0)) return;
  CHECK(c.n_points == 3, "%zu points", c.n_points);
  CHECK(!strcmp(c.backend, "auto"), "backend %s", c.backend);
  CHECK(c.threads == 0 && c.batch_frames == 0 && c.gpu_memory_mb == 0, "run options");
  const double snr[3] = {0.0, 5.0, 10.0};
  for (size_t i = 0; i < c.n_points && i < 3; i++) {
    const sim_point *pt = &c.points[i];
    const link_params *p = &pt->p;
    CHECK(p->tx == 2 && p->rx == 2, "mimo %dx%d", p->tx, p->rx);
    CHECK(p->bps == 2, "bps %d", p->bps);
    CHECK(p->equalizer == EQ_MMSE, "equalizer %d", p->equalizer);
    CHECK(p->model == CH_RAYLEIGH && p->profile == PDP_EXP, "model %d profile %d", p->model, p->profile);
    CHECK(p->delay_spread == 4.0, "delay spread %g", p->delay_spread);
    CHECK(p->rho_tx == 0 && p->rho_rx == 0 && p->k_factor == 0 && p->csi_error_var == 0, "channel extras");
    CHECK(p->domain == DOMAIN_FREQUENCY, "domain %d", p->domain);
    CHECK(p->subcarriers == 1024 && p->symbols == 14 && p->cp_length == 128, "ofdm %d %d %d", p->subcarriers,
          p->symbols, p->cp_length);
    CHECK(p->snr_kind == SNR_EBNO && p->snr_db == snr[i], "snr %d %g", p->snr_kind, p->snr_db);
    CHECK(p->seed == 1 && c.points[i].index == i && p->stream_key == link_stream_key(p), "seed %llu id %zu",
          (unsigned long long)p->seed, c.points[i].index);
    CHECK(p->pdp.taps == 0, "rayleigh has no taps, got %d", p->pdp.taps);
    /* min_frames 0 (the default) is automatic: 10 frames, 100 under tdl. */
    CHECK(pt->target_errors == 1000 && pt->max_bits == 1e8 && pt->min_frames == 10, "stopping %llu %g %llu",
          (unsigned long long)pt->target_errors, pt->max_bits, (unsigned long long)pt->min_frames);
    CHECK(pt->label[0] == '\0', "label '%s'", pt->label);
  }
  sim_config_free(&c);
  sim_config_free(&c); /* twice is fine */
}

static void test_overrides(void) {
  const char *path = write_file("base.cfg",
                                "simulation = { snr_db = 3.0; seed = 5000000000; };\n"
                                "mimo = { tx = 2; rx = 2; };\n"
                                "channel = { model = \"rayleigh\"; };\n");
  sim_config c;
  {
    const char *sets[] = {"mimo.tx=4", "mimo.rx=8", "modulation=16qam", "channel.model=tdl",
                          "ofdm.subcarriers=64", "simulation.snr_db=[0.0, 1.0]", "equalizer=\"zf\""};
    if (!load(&c, path, sets, 7)) {
      CHECK(c.n_points == 2, "a scalar replaced by a list: %zu points", c.n_points);
      const link_params *p = &c.points[0].p;
      CHECK(p->tx == 4 && p->rx == 8, "numbers: %dx%d", p->tx, p->rx);
      CHECK(p->bps == 4, "bare word 16qam: bps %d", p->bps);
      CHECK(p->model == CH_TDL && p->pdp.taps > 0, "bare word tdl: model %d taps %d", p->model, p->pdp.taps);
      CHECK(c.points[0].min_frames == 100, "automatic min_frames under tdl: %llu",
            (unsigned long long)c.points[0].min_frames);
      float power = 0;
      for (int l = 0; l < p->pdp.taps; l++) {
        power += p->pdp.power[l];
        CHECK(p->pdp.delay[l] >= 0 && p->pdp.delay[l] < p->subcarriers, "tap %d at %g", l, p->pdp.delay[l]);
      }
      CHECK(fabsf(power - 1.0f) < 1e-5f, "tdl powers sum to %g", power);
      CHECK(p->subcarriers == 64 && p->cp_length == 8, "new group ofdm: %d, cp %d", p->subcarriers, p->cp_length);
      CHECK(p->equalizer == EQ_ZF, "quoted string: %d", p->equalizer);
      CHECK(p->seed == 5000000000ull, "64-bit seed from the file: %llu", (unsigned long long)p->seed);
      CHECK(c.points[1].p.snr_db == 1.0, "snr %g", c.points[1].p.snr_db);
      sim_config_free(&c);
    }
  }
  {
    /* a name that reads as a number: the choice, not the float 38.901 */
    const char *sets[] = {"channel.model=cdl-c", "tx_array.pattern=38.901", "mimo.tx=2", "mimo.rx=1"};
    if (!load(&c, path, sets, 4)) {
      CHECK(c.points[0].p.cdl.tx.pattern == PANEL_38901, "tx_array.pattern=38.901: %d", (int)c.points[0].p.cdl.tx.pattern);
      sim_config_free(&c);
    }
  }
  {
    const char *sets[] = {"mimo={ tx = 3; rx = 5; }", "simulation.snr_db=7", "simulation.seed=6000000000",
                          "mimo.tx=1", "mimo.tx=4"};
    if (!load(&c, path, sets, 5)) {
      CHECK(c.n_points == 1, "a list replaced by a scalar: %zu points", c.n_points);
      CHECK(c.points[0].p.tx == 4 && c.points[0].p.rx == 5, "group replaced, then the last --set wins: %dx%d",
            c.points[0].p.tx, c.points[0].p.rx);
      CHECK(c.points[0].p.seed == 6000000000ull, "64-bit seed from --set: %llu",
            (unsigned long long)c.points[0].p.seed);
      sim_config_free(&c);
    }
  }
  {
    /* [0, 2.5] mixes integer and float: libconfig alone rejects it */
    const char *sets[] = {"simulation.snr_db=[0, 2.5, 5]"};
    if (!load(&c, write_file("mixed.cfg", "simulation = { snr_db = [-1, 0.5]; };\n"), sets, 0)) {
      CHECK(c.n_points == 2 && c.points[0].p.snr_db == -1 && c.points[1].p.snr_db == 0.5, "mixed array in file");
      sim_config_free(&c);
    }
    if (!load(&c, path, sets, 1)) {
      CHECK(c.n_points == 3 && c.points[1].p.snr_db == 2.5, "mixed array from --set");
      sim_config_free(&c);
    }
  }
  {
    /* @include is relative to the including file */
    write_file("inc_part.cfg", "mimo = { tx = 3; rx = 3; };\n");
    if (!load(&c, write_file("inc_main.cfg", "@include \"inc_part.cfg\"\nmodulation = \"bpsk\";\n"), NULL, 0)) {
      CHECK(c.points[0].p.tx == 3 && c.points[0].p.bps == 1, "include: tx %d bps %d", c.points[0].p.tx,
            c.points[0].p.bps);
      sim_config_free(&c);
    }
  }
  {
    const char *sets[] = {"channel.model=awgn", "ofdm.domain=time", "ofdm.cp_length=0"};
    if (!load(&c, path, sets, 3)) {
      const link_params *p = &c.points[0].p;
      CHECK(p->model == CH_AWGN && p->domain == DOMAIN_TIME && p->cp_length == 0, "awgn in time");
      CHECK(p->pdp.taps == 1 && p->pdp.delay[0] == 0 && p->pdp.power[0] == 1.0f, "awgn is one unit tap");
      sim_config_free(&c);
    }
  }
}

static void test_sweep(void) {
  const char *path = write_file("sweep.cfg",
                                "simulation = { snr_db = [0.0, 10.0]; };\n"
                                "mimo = { rx = 4; };\n"
                                "sweep = (\n"
                                "  { key = \"mimo.tx\"; values = [1, 2]; },\n"
                                "  { key = \"modulation\"; values = (\"qpsk\", \"16qam\", \"64qam\"); },\n"
                                "  { key = \"channel.rho_tx\"; values = [0.0, 0.5]; }\n"
                                ");\n");
  sim_config c;
  if (load(&c, path, NULL, 0)) return;
  CHECK(c.n_points == 2 * 3 * 2 * 2, "%zu points", c.n_points);
  static const int bps[3] = {2, 4, 6};
  static const char *const mod[3] = {"qpsk", "16qam", "64qam"};
  for (size_t i = 0; i < c.n_points; i++) {
    const sim_point *pt = &c.points[i];
    /* first entry outermost, snr_db innermost */
    const size_t snr = i % 2, rho = (i / 2) % 2, m = (i / 4) % 3, tx = i / 12;
    CHECK(pt->index == i, "id %zu at %zu", pt->index, i);
    CHECK(pt->p.tx == (int)tx + 1 && pt->p.bps == bps[m] && pt->p.rho_tx == 0.5 * (double)rho &&
              pt->p.snr_db == 10.0 * (double)snr && pt->p.rx == 4,
          "point %zu: tx %d bps %d rho %g snr %g", i, pt->p.tx, pt->p.bps, pt->p.rho_tx, pt->p.snr_db);
    char label[256];
    snprintf(label, sizeof label, "mimo.tx=%zu modulation=%s channel.rho_tx=%s", tx + 1, mod[m],
             rho ? "0.5" : "0.0");
    CHECK(!strcmp(pt->label, label), "label '%s', expected '%s'", pt->label, label);
  }
  sim_config_free(&c);

  /* a combination that only one sweep point gets wrong still stops the load */
  char err[1024];
  const char *bad = write_file("sweep_bad.cfg",
                               "mimo = { rx = 2; };\nequalizer = \"zf\";\n"
                               "sweep = ( { key = \"mimo.tx\"; values = [1, 2, 4]; } );\n");
  CHECK(sim_config_load(&c, bad, NULL, 0, err, sizeof err) == 2, "zf at tx = 4 > rx");
  CHECK(strstr(err, "sweep_bad.cfg:2: equalizer:") && strstr(err, "(sweep point mimo.tx=4)"), "%s", err);
  CHECK(c.points == NULL && c.n_points == 0 && c.priv == NULL, "a failed load leaves nothing");
  sim_config_free(&c);
}

static void test_n0(void) {
  static const char *const kinds[3] = {"ebno", "esno", "snr"};
  for (int k = 0; k < 3; k++) {
    char set_kind[64];
    snprintf(set_kind, sizeof set_kind, "simulation.snr_kind=%s", kinds[k]);
    const char *sets[] = {set_kind, "mimo.tx=2", "mimo.rx=2", "modulation=16qam",
                          "simulation.snr_db=[-3.0, 0.0, 5.0, 12.5]"};
    sim_config c;
    if (load(&c, write_file("n0.cfg", ""), sets, 5)) continue;
    for (size_t i = 0; i < c.n_points; i++) {
      const link_params *p = &c.points[i].p;
      const double lin = pow(10.0, p->snr_db / 10.0);
      /* The SNR definitions (README): esno N0 = 10^(-snr/10); ebno Es/N0 = Eb/N0 * bps; snr N0 = Nt 10^(-snr/10) */
      const double want = k == 0 ? 1.0 / (lin * 4) : k == 1 ? 1.0 / lin : 2.0 / lin;
      CHECK((int)p->snr_kind == k, "kind %d", p->snr_kind);
      CHECK(close_to(p->n0, want), "%s at %g dB: n0 %.17g, expected %.17g", kinds[k], p->snr_db, p->n0, want);
    }
    sim_config_free(&c);
  }
}

/* ebno_overhead = "charged" (Sionna's convention): N0 grows by every RE of
 * the frame with its share of CP over the data REs. 256 subcarriers, CP 32,
 * 14 symbols, 2 antennas' pilots every 4th subcarrier on symbols 2 and 9:
 * 14 x 288 / (14 x 256 - 2 x 128) = 4032 / 3328. Points with and without
 * the charge have different keys; with no pilots, only the CP is charged. */
static void test_ebno_overhead(void) {
  const char *base[] = {"mimo.tx=2", "mimo.rx=2", "ofdm.subcarriers=256", "ofdm.cp_length=32", "pilots.spacing=4",
                        "pilots.first_symbol=2", "pilots.symbol_spacing=7", "simulation.snr_db=[3.0]",
                        "simulation.ebno_overhead=\"charged\""};
  sim_config plain, charged, no_pilots;
  if (load(&plain, write_file("ovh.cfg", ""), base, 8)) return;
  if (!load(&charged, write_file("ovh.cfg", ""), base, 9)) {
    const double want = plain.points[0].p.n0 * 4032.0 / 3328.0;
    CHECK(close_to(charged.points[0].p.n0, want), "charged n0 %.17g, expected %.17g", charged.points[0].p.n0, want);
    CHECK(charged.points[0].point_key != plain.points[0].point_key, "the charge leaves the point key alone");
    sim_config_free(&charged);
  }
  const char *cp_only[] = {"ofdm.subcarriers=256", "ofdm.cp_length=32", "simulation.snr_db=[3.0]",
                           "simulation.ebno_overhead=\"charged\""};
  if (!load(&no_pilots, write_file("ovh.cfg", ""), cp_only, 4)) {
    const double want = plain.points[0].p.n0 * 288.0 / 256.0;
    CHECK(close_to(no_pilots.points[0].p.n0, want), "CP only: n0 %.17g, expected %.17g", no_pilots.points[0].p.n0,
          want);
    sim_config_free(&no_pilots);
  }
  sim_config_free(&plain);
}

static int same_point(const sim_point *a, const sim_point *b) {
  const link_params *p = &a->p, *q = &b->p;
  int same = p->tx == q->tx && p->rx == q->rx && p->bps == q->bps && p->equalizer == q->equalizer &&
             p->model == q->model && p->profile == q->profile && p->delay_spread == q->delay_spread &&
             p->rho_tx == q->rho_tx && p->rho_rx == q->rho_rx && p->k_factor == q->k_factor &&
             p->csi_error_var == q->csi_error_var && p->domain == q->domain && p->subcarriers == q->subcarriers &&
             p->symbols == q->symbols && p->cp_length == q->cp_length && p->snr_kind == q->snr_kind &&
             p->snr_db == q->snr_db && p->n0 == q->n0 && p->seed == q->seed && p->stream_key == q->stream_key &&
             p->pdp.taps == q->pdp.taps && a->target_errors == b->target_errors && a->max_bits == b->max_bits &&
             a->min_frames == b->min_frames &&
             !strcmp(a->label, b->label);
  for (int l = 0; same && l < p->pdp.taps; l++)
    same = p->pdp.delay[l] == q->pdp.delay[l] && p->pdp.power[l] == q->pdp.power[l];
  return same;
}

/* Prints c's effective config with `prefix`, strips the prefix, reloads. */
static void check_echo(const sim_config *c, const char *name, const char *prefix) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  sim_config_print(c, f, prefix);
  fclose(f);
  /* every line carries the prefix; without it, plain libconfig reads it */
  f = fopen(path, "r");
  char text[1 << 16], line[4096];
  size_t len = 0;
  int prefixed = 1;
  while (fgets(line, sizeof line, f)) {
    prefixed &= !strncmp(line, prefix, strlen(prefix));
    len += (size_t)snprintf(text + len, sizeof text - len, "%s", line + strlen(prefix));
  }
  fclose(f);
  CHECK(prefixed, "%s: a line without the prefix '%s'", name, prefix);
  config_t plain;
  config_init(&plain);
  CHECK(config_read_string(&plain, text), "%s: libconfig cannot read the echo: %s at line %d:\n%s", name,
        config_error_text(&plain), config_error_line(&plain), text);
  long long seed = -1; /* plain libconfig too must see the 64-bit seed whole */
  CHECK(config_lookup_int64(&plain, "simulation.seed", &seed) && (uint64_t)seed == c->points[0].p.seed,
        "%s: plain libconfig reads seed %lld", name, seed);
  config_destroy(&plain);
  sim_config again;
  if (load(&again, write_file(name, text), NULL, 0)) return;
  CHECK(again.n_points == c->n_points, "%s: %zu points, then %zu", name, c->n_points, again.n_points);
  for (size_t i = 0; i < again.n_points && i < c->n_points; i++)
    CHECK(same_point(&c->points[i], &again.points[i]), "%s: point %zu differs after the echo:\n%s", name, i, text);
  CHECK(!strcmp(again.backend, c->backend) && again.threads == c->threads &&
            again.batch_frames == c->batch_frames && again.gpu_memory_mb == c->gpu_memory_mb,
        "%s: run options differ", name);
  sim_config_free(&again);
}

/* The JSON form: the groups nested in schema order, and every value reads back
 * exactly from the text as the sidecar dumps it. */
static void check_json(const sim_config *c) {
  json_t *json = sim_config_json(c);
  char *text = json ? json_dumps(json, SIM_JSON_FLAGS) : NULL;
  json_error_t jerr;
  json_t *back = text ? json_loads(text, 0, &jerr) : NULL;
  CHECK(back && json_equal(json, back), "the JSON does not read back: %s\n%s", back ? "" : jerr.text, text);
  static const char *const order[] = {"simulation", "mimo", "modulation", "equalizer", "channel", "ofdm",
                                      "receiver", "pilots", "code", "sweep"};
  const size_t groups = sizeof order / sizeof *order;
  size_t i = 0;
  int in_order = json_object_size(back) == groups;
  const char *name;
  json_t *value;
  json_object_foreach(back, name, value) in_order &= i < groups && !strcmp(name, order[i++]);
  CHECK(in_order, "JSON groups out of order:\n%s", text);
  json_int_t rx = 0, seed = 0;
  double snr[3] = {0};
  const char *profile = "", *key = "";
  json_t *values = NULL, *want = json_pack("[if]", 0, 0.25);
  CHECK(!json_unpack_ex(back, &jerr, 0, "{s:{s:I}, s:{s:I, s:[fff!]}, s:{s:s}, s:[{}, {s:s, s:o}!]}", "mimo", "rx",
                        &rx, "simulation", "seed", &seed, "snr_db", &snr[0], &snr[1], &snr[2], "channel", "profile",
                        &profile, "sweep", "key", &key, "values", &values),
        "JSON shape: %s\n%s", jerr.text, text);
  CHECK(rx == 3 && seed == 9000000000 && !strcmp(profile, "tdl-c"), "JSON values:\n%s", text);
  CHECK(snr[0] == -2.5 && snr[1] == 0.1 && snr[2] == 7.0, "snr_db %.17g %.17g %.17g after the round trip", snr[0],
        snr[1], snr[2]);
  CHECK(!strcmp(key, "channel.rho_rx") && json_equal(values, want), "JSON sweep:\n%s", text);
  json_decref(want);
  json_decref(back);
  free(text);
  json_decref(json);
  json = sim_config_json(NULL);
  CHECK(json && json_object_size(json) == 0, "a config not loaded is an empty object");
  json_decref(json);
}

/* Jansson takes only valid UTF-8; the sidecar's strings (a file name, say)
 * may be anything, and non-finite numbers are null. */
static void test_json_values(void) {
  static const struct {
    const char *in, *out;
  } cases[] = {
      {"plain", "plain"},
      {"\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x93\xa1", "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x93\xa1"},
      {"r\xe9sultats.cfg", "r\xef\xbf\xbdsultats.cfg"},               /* Latin-1 */
      {"cut \xe2\x82", "cut \xef\xbf\xbd\xef\xbf\xbd"},                /* a sequence cut short */
      {"\xc0\xaf overlong", "\xef\xbf\xbd\xef\xbf\xbd overlong"},      /* '/' spelt in two bytes */
      {"\xed\xa0\x80 surrogate", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd surrogate"},
      {"\xf4\x90\x80\x80 beyond", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd beyond"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    json_t *j = sim_json_string(cases[i].in);
    CHECK(j && !strcmp(json_string_value(j), cases[i].out), "case %zu: '%s'", i, j ? json_string_value(j) : "NULL");
    json_decref(j);
  }
  json_t *n = sim_json_real(NAN), *inf = sim_json_real(-INFINITY), *x = sim_json_real(0.1);
  CHECK(json_is_null(n) && json_is_null(inf) && json_real_value(x) == 0.1, "reals");
  char *text = json_dumps(x, SIM_JSON_FLAGS | JSON_ENCODE_ANY);
  CHECK(text && strtod(text, NULL) == 0.1, "0.1 dumps as %s", text ? text : "NULL");
  free(text);
  json_decref(n), json_decref(inf), json_decref(x);
}

static void test_echo(void) {
  sim_config c;
  const char *path = write_file("echo.cfg",
                                "simulation = { seed = 123456789012; snr_db = [-2.5, 0.1, 7.0]; snr_kind = \"esno\";\n"
                                "               target_errors = 77; max_bits = 3.3e9; backend = \"cpu\"; threads = 3;\n"
                                "               batch_frames = 5; gpu_memory_mb = 1024; };\n"
                                "channel = { model = \"tdl\"; profile = \"tdl-c\"; delay_spread = 2.25;\n"
                                "            rho_tx = 0.3; k_factor = 1.5; csi_error_var = 0.01; };\n"
                                "ofdm = { subcarriers = 128; symbols = 3; domain = \"time\"; };\n"
                                "sweep = ( { key = \"equalizer\"; values = [\"zf\", \"mmse\"]; },\n"
                                "          { key = \"channel.rho_rx\"; values = (0, 0.25); } );\n");
  const char *sets[] = {"mimo.rx=3", "simulation.seed=9000000000"};
  if (!load(&c, path, sets, 2)) {
    CHECK(c.n_points == 2 * 2 * 3, "%zu points", c.n_points);
    CHECK(c.points[0].p.cp_length == 16 && c.points[0].p.seed == 9000000000ull, "cp %d", c.points[0].p.cp_length);
    char *echo = NULL;
    size_t echo_len = 0;
    FILE *ef = open_memstream(&echo, &echo_len);
    sim_config_print(&c, ef, "# ");
    fclose(ef);
    /* every key shows, the computed default cp_length too, as one line each
     * (but the K-best, LS and Eb/N0 options: no point of this sweep uses
     * kbest, ls, ebno, ldpc or dmrs pilots, the channel is tdl, not rayleigh,
     * no point has LLRs for receiver.gmi to act on, and without pilots there
     * are no pilot symbols to place) */
    for (int k = 0; k < KEY_COUNT; k++) {
      if (config_keys[k].only_with &&
          (!strcmp(config_keys[k].only_with, "kbest") || !strcmp(config_keys[k].only_with, "ls") ||
           !strcmp(config_keys[k].only_with, "ebno") || !strcmp(config_keys[k].only_with, "ldpc") ||
           !strcmp(config_keys[k].only_with, "rayleigh") || !strcmp(config_keys[k].only_with, "dmrs") ||
           !strcmp(config_keys[k].only_with, "maxlog|exact")))
        continue;
      if (k == KEY_PILOT_FIRST || k == KEY_PILOT_EVERY) continue;
      /* the cdl keys: the channel is tdl, not a CDL model */
      if (k >= KEY_CDL_FIRST && k <= KEY_CDL_LAST) continue;
      /* the custom profile's taps: the profile is tdl-c */
      if (k == KEY_TAP_DELAYS_NS || k == KEY_TAP_POWERS_DB || k == KEY_TAP_K_DB) continue;
      /* the other units of a quantity given here in samples (and the carrier of a speed) */
      if (k == KEY_DELAY_SPREAD_NS || k == KEY_SPEED_KMH || k == KEY_CARRIER_GHZ) continue;
      char line[96];
      const char *dot = strrchr(config_keys[k].path, '.');
      snprintf(line, sizeof line, "%s%s = ", dot ? "#   " : "# ", dot ? dot + 1 : config_keys[k].path);
      CHECK(strstr(echo, line), "the echo lacks '%s':\n%s", line, echo);
    }
    CHECK(strstr(echo, "#   cp_length = 16;\n") && strstr(echo, "#   profile = \"tdl-c\";\n"), "%s", echo);
    free(echo);
    check_echo(&c, "echo_plain.cfg", "");
    check_echo(&c, "echo_hash.cfg", "# ");

    check_json(&c);
    sim_config_free(&c);
  }

  /* keys that follow a swept or unmet key stay out of the echo */
  const char *sets2[] = {"sweep=({ key = \"ofdm.subcarriers\"; values = [64, 256]; })"};
  if (!load(&c, write_file("echo2.cfg", ""), sets2, 1)) {
    CHECK(c.points[0].p.cp_length == 8 && c.points[3].p.cp_length == 32, "cp per point %d %d",
          c.points[0].p.cp_length, c.points[3].p.cp_length);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    sim_config_print(&c, f, "");
    fclose(f);
    CHECK(!strstr(text, "cp_length") && !strstr(text, "profile") && !strstr(text, "delay_spread"),
          "defaults that depend on others are left out:\n%s", text);
    free(text);
    check_echo(&c, "echo_cp.cfg", "# ");
    sim_config_free(&c);
  }
}

/* The effective config as the header prints it, malloc'ed. */
static char *echo_of(const sim_config *c) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  sim_config_print(c, f, "");
  fclose(f);
  return text;
}

/* Loads text as `name` with the overrides; 1 when its snr_db values are want[0..n). */
static int snr_points_are(const char *name, const char *text, const char *const *sets, int n_sets,
                          const double *want, size_t n) {
  sim_config c;
  if (load(&c, write_file(name, text), sets, n_sets)) return 0;
  int same = c.n_points == n;
  for (size_t i = 0; same && i < n; i++) same = c.points[i].p.snr_db == want[i];
  CHECK(same, "%s: %zu points, first %g", name, c.n_points, c.n_points ? c.points[0].p.snr_db : NAN);
  sim_config_free(&c);
  return same;
}

/* { from; to; step; } where a list of numbers goes: the values, exact
 * decimals, the end included, either direction, integers for integer keys. */
static void test_ranges(void) {
  double even[16];
  for (int i = 0; i < 16; i++) even[i] = 2.0 * i;
  snr_points_are("range_file.cfg", "simulation = { snr_db = { from = 0.0; to = 30.0; step = 2.0; }; };\n", NULL, 0,
                 even, 16);
  const char *set_range[] = {"simulation.snr_db={from=0.0;to=30.0;step=2.0;}"};
  snr_points_are("range_set.cfg", "simulation = { snr_db = [1.0]; };\n", set_range, 1, even, 16);
  static const double tenths[] = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
  snr_points_are("range_tenths.cfg", "simulation = { snr_db = { from = 0; to = 1; step = 0.1; }; };\n", NULL, 0,
                 tenths, 11);
  static const double down[] = {10.0, 7.5, 5.0, 2.5, 0.0, -2.5, -5.0};
  snr_points_are("range_down.cfg", "simulation = { snr_db = { step = -2.5; from = 10.0; to = -5.0; }; };\n", NULL, 0,
                 down, 7);
  static const double short_of_end[] = {0.0, 2.0, 4.0}, one[] = {3.0}, near_end[] = {1.1, 1.4, 1.7, 2.0};
  snr_points_are("range_off_grid.cfg", "simulation = { snr_db = { from = 0.0; to = 5.0; step = 2.0; }; };\n", NULL,
                 0, short_of_end, 3);
  snr_points_are("range_one.cfg", "simulation = { snr_db = { from = 3.0; to = 3.0; step = 1.0; }; };\n", NULL, 0,
                 one, 1);
  /* 1.1 + 3 x 0.3 is 1.9999999999999998 in doubles: the end is still in, as 2.0 */
  snr_points_are("range_near_end.cfg", "simulation = { snr_db = { from = 1.1; to = 2.0; step = 0.3; }; };\n", NULL,
                 0, near_end, 4);

  sim_config c;
  const char *ints = "mimo = { rx = 8; };\n"
                     "sweep = ( { key = \"mimo.tx\"; values = { from = 8; to = 1; step = -3; }; },\n"
                     "          { key = \"channel.rho_tx\"; values = { from = 0; to = 0.2; step = 0.1; }; },\n"
                     "          { key = \"simulation.target_errors\";\n"
                     "            values = { from = 5000000000; to = 5000000001; step = 1; }; } );\n";
  if (!load(&c, write_file("range_sweep.cfg", ints), NULL, 0)) {
    CHECK(c.n_points == 3 * 3 * 2 * 3, "%zu points", c.n_points);
    static const int tx[3] = {8, 5, 2};
    static const double rhos[3] = {0.0, 0.1, 0.2};
    for (size_t i = 0; i < c.n_points; i++) {
      const link_params *p = &c.points[i].p;
      const size_t target = (i / 3) % 2, rho = (i / 6) % 3, t = i / 18;
      CHECK(p->tx == tx[t] && p->rho_tx == rhos[rho] && c.points[i].target_errors == 5000000000ull + target,
            "point %zu: tx %d rho %.17g target %llu", i, p->tx, p->rho_tx,
            (unsigned long long)c.points[i].target_errors);
    }
    CHECK(!strcmp(c.points[0].label, "mimo.tx=8 channel.rho_tx=0.0 simulation.target_errors=5000000000"), "label '%s'",
          c.points[0].label);
    /* the echo shows the values, integers as integers, so that it re-reads to the same points */
    char *text = echo_of(&c);
    CHECK(strstr(text, "{ key = \"mimo.tx\"; values = [8, 5, 2]; }") &&
              strstr(text, "values = [0.0, 0.1, 0.2]") && strstr(text, "values = [5000000000L, 5000000001L]") &&
              strstr(text, "snr_db = [0.0, 5.0, 10.0];") && !strstr(text, "from"),
          "echo of ranges:\n%s", text);
    free(text);
    check_echo(&c, "range_echo.cfg", "# ");
    sim_config_free(&c);
  }
  const char *sets[] = {"simulation.snr_db={ from = -1.5; to = 1.5; step = 1.5; }",
                        "sweep=({ key = \"mimo.rx\"; values = { from = 2; to = 4; step = 2; }; })"};
  if (!load(&c, write_file("range_set_echo.cfg", ""), sets, 2)) {
    CHECK(c.n_points == 6 && c.points[1].p.snr_db == 0.0 && c.points[5].p.rx == 4 && c.points[5].p.snr_db == 1.5,
          "ranges from --set: %zu points", c.n_points);
    check_echo(&c, "range_set_echo_out.cfg", "");
    json_t *json = sim_config_json(&c);
    json_t *want = json_pack("{s:[fff], s:[{s:s, s:[ii]}]}", "snr_db", -1.5, 0.0, 1.5, "sweep", "key", "mimo.rx",
                             "values", 2, 4);
    json_t *got = json_pack("{s:O, s:O}", "snr_db", json_object_get(json_object_get(json, "simulation"), "snr_db"),
                            "sweep", json_object_get(json, "sweep"));
    CHECK(json_equal(want, got), "the JSON holds the expanded lists");
    json_decref(got), json_decref(want), json_decref(json);
    sim_config_free(&c);
  }

  /* errors say where, which member and what was wrong */
  static const struct {
    const char *text, *want;
  } bad[] = {
      {"simulation = { snr_db = { from = 0.0; to = 30.0; step = 0.0; }; };",
       ":1: simulation.snr_db.step: expected a non-zero number, got 0.0"},
      {"simulation = {\n snr_db = { from = 0.0; to = 30.0; }; };",
       ":2: simulation.snr_db.step: expected a number (a range has from, to and step), got nothing"},
      {"simulation = { snr_db = { from = 10.0; to = 0.0; step = 1.0; }; };",
       ":1: simulation.snr_db: expected a range with at least one value (step > 0 needs to >= from), got "
       "{ from = 10.0; to = 0.0; step = 1.0; }"},
      {"sweep = ( { key = \"mimo.tx\"; values = { from = 1; to = 4; step = 1.5; }; } );",
       ":1: sweep[0].values.step: expected an integer (mimo.tx takes integers), got 1.5"},
      {"sweep = ( { key = \"mimo.tx\";\n values = { from = 1; to = 9; step = 1; }; } );",
       ":2: mimo.tx: expected an integer in [1, 8], got 9 (sweep[0].values[8])"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char err[1024];
    const char *path = write_file("range_bad.cfg", bad[i].text);
    CHECK(sim_config_load(&c, path, NULL, 0, err, sizeof err) == 2, "bad range %zu loads", i);
    CHECK(strstr(err, path) == err && !strcmp(err + strlen(path), bad[i].want), "bad range %zu: '%s'", i, err);
  }
  char err[1024];
  const char *tiny[] = {"simulation.snr_db={from=0.0;to=30.0;step=1e-4;}"};
  CHECK(sim_config_load(&c, write_file("ok.cfg", ""), tiny, 1, err, sizeof err) == 2, "300001 values load");
  CHECK(!strcmp(err, "--set simulation.snr_db={from=0.0;to=30.0;step=1e-4;}: simulation.snr_db: expected a range "
                     "of at most 65536 values, got 300001 values: { from = 0.0; to = 30.0; step = 0.0001; }"),
        "'%s'", err);
}

/* keys = [...] sets several keys together: one axis, tuples in the keys' order. */
static void test_zipped(void) {
  const char *path = write_file("zipped.cfg",
                                "simulation = { snr_db = [0.0, 10.0]; };\n"
                                "equalizer = \"zf\";\n"
                                "sweep = ( { key = \"modulation\"; values = [\"qpsk\", \"16qam\"]; },\n"
                                "          { keys = [\"mimo.tx\", \"mimo.rx\"]; values = ([2, 2], [4, 4], [2, 4]); },\n"
                                "          { keys = [\"channel.rho_rx\"]; values = ([0.5]); } );\n");
  sim_config c;
  if (!load(&c, path, NULL, 0)) {
    /* zf with a cartesian tx x rx would have rx < tx at tx = 4, rx = 2; the tuples never do */
    CHECK(c.n_points == 2 * 3 * 1 * 2, "%zu points", c.n_points);
    static const int tx[3] = {2, 4, 2}, rx[3] = {2, 4, 4};
    static const char *const mod[2] = {"qpsk", "16qam"};
    for (size_t i = 0; i < c.n_points; i++) {
      const link_params *p = &c.points[i].p;
      const size_t snr = i % 2, t = (i / 2) % 3, m = i / 6;
      CHECK(p->tx == tx[t] && p->rx == rx[t] && p->bps == (m ? 4 : 2) && p->snr_db == 10.0 * (double)snr &&
                p->rho_rx == 0.5 && p->equalizer == EQ_ZF,
            "point %zu: %dx%d bps %d snr %g", i, p->tx, p->rx, p->bps, p->snr_db);
      char label[256];
      snprintf(label, sizeof label, "modulation=%s mimo.tx=%d mimo.rx=%d channel.rho_rx=0.5", mod[m], tx[t], rx[t]);
      CHECK(!strcmp(c.points[i].label, label), "label '%s', expected '%s'", c.points[i].label, label);
    }
    char *text = echo_of(&c);
    CHECK(strstr(text, "{ keys = [\"mimo.tx\", \"mimo.rx\"]; values = ([2, 2], [4, 4], [2, 4]); }"), "echo:\n%s",
          text);
    free(text);
    check_echo(&c, "zipped_echo.cfg", "# ");
    json_t *json = sim_config_json(&c);
    json_t *want = json_pack("{s:[ss], s:[[ii],[ii],[ii]]}", "keys", "mimo.tx", "mimo.rx", "values", 2, 2, 4, 4, 2, 4);
    CHECK(json_equal(json_array_get(json_object_get(json, "sweep"), 1), want), "JSON of a zipped entry");
    json_decref(want), json_decref(json);
    sim_config_free(&c);
  }
  /* tuples of mixed kinds, written as arrays, from --set */
  const char *sets[] = {"sweep=({ keys = [\"equalizer\", \"mimo.rx\"]; values = [[\"zf\", 2], [\"mmse\", 1]]; })"};
  if (!load(&c, write_file("zipped_set.cfg", "simulation = { snr_db = 5.0; };\n"), sets, 1)) {
    CHECK(c.n_points == 2 && c.points[0].p.equalizer == EQ_ZF && c.points[0].p.rx == 2 &&
              c.points[1].p.equalizer == EQ_MMSE && c.points[1].p.rx == 1,
          "mixed tuples: %zu points", c.n_points);
    CHECK(!strcmp(c.points[1].label, "equalizer=mmse mimo.rx=1"), "label '%s'", c.points[1].label);
    check_echo(&c, "zipped_set_echo.cfg", "");
    sim_config_free(&c);
  }
  /* a combination the tuples do make is still refused, at its value */
  char err[1024];
  const char *bad = write_file("zipped_bad.cfg", "equalizer = \"zf\";\n"
                                                 "sweep = ( { keys = [\"mimo.tx\", \"mimo.rx\"];\n"
                                                 "            values = ([2, 2],\n [4, 2]); } );\n");
  CHECK(sim_config_load(&c, bad, NULL, 0, err, sizeof err) == 2, "zf at 4x2 loads");
  CHECK(strstr(err, "zipped_bad.cfg:1: equalizer: \"zf\" needs mimo.rx >= mimo.tx, got tx = 4, rx = 2 "
                    "(sweep point mimo.tx=4 mimo.rx=2)"),
        "'%s'", err);
  const char *twice = write_file("zipped_twice.cfg",
                                 "sweep = ( { keys = [\"mimo.tx\", \"mimo.rx\"]; values = ([1, 1]); },\n"
                                 "          { key = \"mimo.rx\"; values = [2]; } );\n");
  CHECK(sim_config_load(&c, twice, NULL, 0, err, sizeof err) == 2, "a key in two entries loads");
  CHECK(strstr(err, "zipped_twice.cfg:2: sweep[1].key: expected each key swept once, got \"mimo.rx\" again "
                    "(sweep[0].keys[1])"),
        "'%s'", err);
  CHECK(c.points == NULL && c.priv == NULL, "nothing left behind");
}

static void test_errors_via_api(void) {
  sim_config c;
  char err[1024];
  const char *path = write_file("err.cfg", "mimo = { tx = 9; };\n");
  CHECK(sim_config_load(&c, path, NULL, 0, err, sizeof err) == 2, "tx = 9 loads");
  char want[256];
  snprintf(want, sizeof want, "%s:1: mimo.tx: expected an integer in [1, 8], got 9", path);
  CHECK(!strcmp(err, want), "'%s'", err);
  const char *sets[] = {"mimo.tx=9"};
  CHECK(sim_config_load(&c, write_file("ok.cfg", ""), sets, 1, err, sizeof err) == 2, "--set tx = 9 loads");
  CHECK(!strcmp(err, "--set mimo.tx=9: mimo.tx: expected an integer in [1, 8], got 9"), "'%s'", err);
  const char *unknown[] = {"channel.modle=tdl"};
  CHECK(sim_config_load(&c, write_file("ok.cfg", ""), unknown, 1, err, sizeof err) == 2, "unknown --set key");
  CHECK(!strcmp(err, "--set channel.modle=tdl: unknown key 'channel.modle' (did you mean 'channel.model'?)"),
        "'%s'", err);
  const char *through[] = {"mimo.tx.deeper=1"};
  CHECK(sim_config_load(&c, write_file("ok.cfg", ""), through, 1, err, sizeof err) == 2, "a key below a key");
  CHECK(strstr(err, "--set mimo.tx.deeper=1: unknown key 'mimo.tx.deeper'") == err, "'%s'", err);
  const char *via_scalar[] = {"mimo.tx=2"};
  CHECK(sim_config_load(&c, write_file("scalar.cfg", "mimo = 2;\n"), via_scalar, 1, err, sizeof err) == 2,
        "--set through a scalar");
  CHECK(strstr(err, "scalar.cfg:1: mimo: expected a group of settings, got 2"), "'%s'", err);
  CHECK(sim_config_load(&c, "/nonexistent/x.cfg", NULL, 0, err, sizeof err) == 2, "missing file");
  CHECK(!strcmp(err, "/nonexistent/x.cfg: cannot read: No such file or directory"), "'%s'", err);
  CHECK(c.points == NULL && c.priv == NULL && c.n_points == 0, "nothing left behind");
  sim_config_free(&c);
}

static void test_names(void) {
  static const int bps[] = {1, 2, 4, 6, 8};
  static const char *const names[] = {"bpsk", "qpsk", "16qam", "64qam", "256qam"};
  for (int i = 0; i < 5; i++)
    CHECK(!strcmp(modulation_name_of_bps(bps[i]), names[i]), "bps %d: %s", bps[i], modulation_name_of_bps(bps[i]));
  CHECK(!strcmp(modulation_name_of_bps(3), "unknown"), "bps 3");
  CHECK(!strcmp(equalizer_name(EQ_ZF), "zf") && !strcmp(equalizer_name(EQ_MMSE), "mmse"), "equalizers");
  CHECK(!strcmp(channel_model_name(CH_TDL), "tdl") && !strcmp(pdp_kind_name(PDP_TDL_B), "tdl-b"), "channels");
  CHECK(!strcmp(ofdm_domain_name(DOMAIN_TIME), "time") && !strcmp(snr_kind_name(SNR_SNR), "snr"), "domain, snr");
}

/* config_key_default_is: a results CSV's cell against the schema's default,
 * numbers by value, choices by name; computed defaults and unknown keys are
 * never "the default". */
static void test_default_is(void) {
  CHECK(config_key_default_is("ofdm.subcarrier_spacing", "30000"), "30000 is 30000.0");
  CHECK(config_key_default_is("ofdm.subcarrier_spacing", "3e4"), "3e4 is 30000.0");
  CHECK(!config_key_default_is("ofdm.subcarrier_spacing", "15000"), "15000 is not");
  CHECK(!config_key_default_is("ofdm.subcarrier_spacing", "30000x"), "30000x is no number");
  CHECK(config_key_default_is("receiver.llr", "off"), "llr off");
  CHECK(!config_key_default_is("receiver.llr", "of"), "a prefix of the default is not it");
  CHECK(!config_key_default_is("receiver.llr", "offf"), "nor a longer name");
  CHECK(!config_key_default_is("receiver.llr", "maxlog"), "llr maxlog");
  CHECK(config_key_default_is("pilots.spacing", "0") && !config_key_default_is("pilots.spacing", "4"), "spacing");
  CHECK(!config_key_default_is("receiver.llr", ""), "an empty cell");
  CHECK(!config_key_default_is("no.such_key", "0"), "an unknown key");
  for (int k = 0; k < KEY_COUNT; k++)
    if (!config_keys[k].default_text)
      CHECK(!config_key_default_is(config_keys[k].path, "0"), "%s: a computed default", config_keys[k].path);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/test_config_load.XXXXXX");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_defaults();
  test_overrides();
  test_sweep();
  test_n0();
  test_ebno_overhead();
  test_echo();
  test_ranges();
  test_zipped();
  test_errors_via_api();
  test_names();
  test_default_is();
  test_json_values();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return test_finish("test_config_load");
}
