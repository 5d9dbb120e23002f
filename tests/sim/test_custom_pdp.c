/* channel.profile = "custom": the resolved profile against the taps the
 * config gives (delays in samples at the sample rate, powers normalised, the
 * line of sight on the first tap, the RMS delay spread computed here), whole
 * lists swept as one value each, and TR 38.901 TDL-A written out as custom
 * taps: the same profile bit for bit, and on the same draws the same CPU
 * counts as the table itself. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "linktest.h"
#include "testutil.h"

static char dir[64];

static int load(sim_config *c, const char *name, const char *text) {
  char path[160], err[1024] = "";
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(text, f);
  fclose(f);
  const int rc = sim_config_load(c, path, NULL, 0, err, sizeof err);
  CHECK(rc == 0, "%s loads: %s", name, err);
  return rc;
}

/* 1024 subcarriers x 30 kHz: 30.72 MHz, 0.03072 samples per ns */
#define HEAD                                                                                        \
  "simulation = { snr_db = 12.0; };\nmimo = { tx = 2; rx = 2; };\nmodulation = \"16qam\";\n"     \
  "ofdm = { subcarriers = 1024; symbols = 2; subcarrier_spacing = 30000.0; };\n"
#define FS 30.72e6

/* RMS delay spread of (delay, power) with the LOS power at delay 0, here
 * rather than through tdl_pdp_rms_delay. */
static double rms(const double *d, const double *w, int n, double los) {
  double m0 = los, m1 = 0.0, m2 = 0.0;
  for (int i = 0; i < n; i++) m0 += w[i], m1 += w[i] * d[i], m2 += w[i] * d[i] * d[i];
  return sqrt(m2 / m0 - (m1 / m0) * (m1 / m0));
}

static void test_resolved(void) {
  static const double ns[3] = {0.0, 30.0, 150.0}, db[3] = {0.0, -3.0, -10.0};
  for (int k = 0; k < 2; k++) {
    const double K = k ? 3.0 : 0.0;
    char text[1024];
    snprintf(text, sizeof text,
             HEAD "channel = { model = \"tdl\"; profile = \"custom\"; tap_delays_ns = [150.0, 0.0, 30.0];\n"
                  "  tap_powers_db = [-10.0, 0.0, -3.0]; %s };\n",
             k ? "k_factor = 3.0;" : "");
    sim_config c;
    if (load(&c, "custom.cfg", text)) return;
    const link_params *p = &c.points[0].p;
    const tdl_pdp *pdp = &p->pdp;
    double lin[3], sum = 0.0, d[3], w[3];
    for (int i = 0; i < 3; i++) sum += lin[i] = pow(10.0, db[i] / 10.0);
    for (int i = 0; i < 3; i++) d[i] = ns[i] * 1e-9 * FS, w[i] = lin[i] / sum / (K + 1.0);
    CHECK(pdp->taps == 3, "%d taps", pdp->taps);
    for (int i = 0; i < 3 && pdp->taps == 3; i++) {
      CHECK(fabs(pdp->delay[i] - d[i]) <= 1e-12, "tap %d at %.17g samples, expected %.17g (sorted)", i,
            pdp->delay[i], d[i]);
      CHECK(fabs(pdp->power[i] - w[i]) <= 1e-7, "tap %d power %.9g, expected %.9g", i, (double)pdp->power[i],
            w[i]);
    }
    CHECK(fabs(pdp->los_power - K / (K + 1.0)) <= 1e-7, "LOS power %g with K %g", (double)pdp->los_power, K);
    const double want = rms(d, w, 3, K / (K + 1.0));
    CHECK(fabs(p->delay_spread - want) <= 1e-6 * want, "RMS delay spread %.9g samples, computed here %.9g",
          p->delay_spread, want);
    sim_config_free(&c);
  }
  /* the sample grid rounds: 0.9216 -> 1, 4.608 -> 5 */
  sim_config c;
  if (load(&c, "sample.cfg",
           HEAD "channel = { model = \"tdl\"; profile = \"custom\"; delays = \"sample\";\n"
                "  tap_delays_ns = [0.0, 30.0, 150.0]; tap_powers_db = [0.0, -3.0, -10.0]; };\n"))
    return;
  const tdl_pdp *pdp = &c.points[0].p.pdp;
  CHECK(pdp->taps == 3 && pdp->delay[0] == 0.0 && pdp->delay[1] == 1.0 && pdp->delay[2] == 5.0,
        "rounded delays %g %g %g", pdp->delay[0], pdp->delay[1], pdp->delay[2]);
  sim_config_free(&c);
}

/* Whole lists as the values of one sweep entry: one profile per point. */
static void test_swept(void) {
  sim_config c;
  if (load(&c, "swept.cfg",
           HEAD "channel = { model = \"tdl\"; profile = \"custom\"; tap_powers_db = [0.0, -3.0]; };\n"
                "sweep = ( { key = \"channel.tap_delays_ns\"; values = ([0.0, 30.0], [0.0, 60.0]); } );\n"))
    return;
  CHECK(c.n_points == 2, "%zu points", c.n_points);
  if (c.n_points == 2) {
    const sim_point *a = &c.points[0], *b = &c.points[1];
    CHECK(fabs(a->p.pdp.delay[1] - 30e-9 * FS) <= 1e-12 && fabs(b->p.pdp.delay[1] - 60e-9 * FS) <= 1e-12,
          "second taps at %g and %g samples", a->p.pdp.delay[1], b->p.pdp.delay[1]);
    CHECK(a->point_key != b->point_key && a->p.stream_key != b->p.stream_key, "two profiles, two points");
    CHECK(a->custom_taps == 2 && a->tap_delay_ns[1] == 30.0 && b->tap_delay_ns[1] == 60.0, "the given taps kept");
    /* the echo reads back to the same points */
    char path[160];
    snprintf(path, sizeof path, "%s/echo.cfg", dir);
    FILE *f = fopen(path, "w");
    if (f) {
      sim_config_print(&c, f, "");
      fclose(f);
      sim_config e;
      char err[1024] = "";
      const int rc = sim_config_load(&e, path, NULL, 0, err, sizeof err);
      CHECK(rc == 0, "the echo loads: %s", err);
      if (!rc) {
        CHECK(e.n_points == 2 && e.points[0].point_key == a->point_key && e.points[1].point_key == b->point_key &&
                  e.points[1].p.stream_key == b->p.stream_key,
              "the echo's points are the config's");
        sim_config_free(&e);
      }
    }
  }
  sim_config_free(&c);
}

/* TR 38.901 Table 7.7.2-1 (TDL-A), written out here: normalised delays and
 * powers in dB in the table's order. */
static const double tdl_a_delay[23] = {0.0000, 0.3819, 0.4025, 0.5868, 0.4610, 0.5375, 0.6708, 0.5750,
                                       0.7618, 1.5375, 1.8978, 2.2242, 2.1718, 2.4942, 2.5119, 3.0582,
                                       4.0810, 4.4579, 4.5695, 4.7966, 5.0066, 5.3043, 9.6586};
static const double tdl_a_db[23] = {-13.4, 0.0,   -2.2,  -4.0,  -6.0,  -8.2,  -9.9,  -10.5,
                                    -7.5,  -15.9, -6.6,  -16.7, -12.4, -15.2, -10.8, -11.3,
                                    -12.7, -16.2, -18.3, -18.9, -16.6, -19.9, -29.7};

static int same_pdp(const tdl_pdp *a, const tdl_pdp *b) {
  if (a->taps != b->taps || a->los_power != b->los_power) return 0;
  for (int l = 0; l < a->taps; l++)
    if (a->delay[l] != b->delay[l] || a->power[l] != b->power[l]) return 0;
  return 1;
}

static void test_as_tdl_a(const char *domain) {
  const double ds = 8.0; /* samples */
  char text[8192], list[2][1024];
  size_t at[2] = {0, 0};
  for (int i = 0; i < 23; i++) {
    at[0] += (size_t)snprintf(list[0] + at[0], sizeof list[0] - at[0], "%s%.17g", i ? ", " : "",
                              tdl_a_delay[i] * ds / FS * 1e9);
    at[1] += (size_t)snprintf(list[1] + at[1], sizeof list[1] - at[1], "%s%.17g", i ? ", " : "", tdl_a_db[i]);
  }
  /* HEAD with the domain in its ofdm group */
  char fixed[4096];
  snprintf(fixed, sizeof fixed,
           "simulation = { snr_db = 12.0; };\nmimo = { tx = 2; rx = 2; };\nmodulation = \"16qam\";\n"
           "ofdm = { subcarriers = 1024; symbols = 2; subcarrier_spacing = 30000.0; domain = \"%s\"; };\n",
           domain);
  snprintf(text, sizeof text,
           "%schannel = { model = \"tdl\"; profile = \"tdl-a\"; delay_spread = %g; delays = \"sample\"; "
           "k_factor = 0.5; };\n",
           fixed, ds);
  sim_config table, custom;
  if (load(&table, "table.cfg", text)) return;
  snprintf(text, sizeof text,
           "%schannel = { model = \"tdl\"; profile = \"custom\"; delays = \"sample\"; k_factor = 0.5;\n"
           "  tap_delays_ns = [%s];\n  tap_powers_db = [%s]; };\n",
           fixed, list[0], list[1]);
  if (load(&custom, "as_tdl_a.cfg", text)) {
    sim_config_free(&table);
    return;
  }
  link_params a = table.points[0].p, b = custom.points[0].p;
  CHECK(same_pdp(&a.pdp, &b.pdp), "%s: TDL-A as custom taps resolves to the table's profile bit for bit", domain);
  CHECK(a.stream_key != b.stream_key, "the profiles' names keep their draws apart");
  /* the same draws: the table's stream key on the custom point */
  b.stream_key = a.stream_key;
  lt_counts ca, cb;
  const int ra = lt_simulate("cpu", &a, 300, 4e5, 0, &ca), rb = lt_simulate("cpu", &b, 300, 4e5, 0, &cb);
  CHECK(ra == 0 && rb == 0, "both simulate");
  CHECK(ca.errors > 0 && ca.bits == cb.bits && ca.errors == cb.errors && ca.frames == cb.frames &&
            ca.sum_sq == cb.sum_sq,
        "%s: identical counts: %llu/%llu bits in %llu frames against %llu/%llu in %llu", domain,
        (unsigned long long)ca.errors, (unsigned long long)ca.bits, (unsigned long long)ca.frames,
        (unsigned long long)cb.errors, (unsigned long long)cb.bits, (unsigned long long)cb.frames);
  sim_config_free(&table);
  sim_config_free(&custom);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/ofdmsim-pdp-XXXXXX");
  if (!mkdtemp(dir)) return 1;
  test_resolved();
  test_swept();
  test_as_tdl_a("frequency");
  test_as_tdl_a("time");
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  return test_finish("test_custom_pdp");
}
