/* The library's API (api/ofdmsim.h) as a C program uses it: errors come back
 * as the command line's codes and messages and never end the process (a bad
 * key, a bad value, a missing file, an unknown backend); config text reads
 * as a file does; a run's typed results hold every point with its counts;
 * a progress callback that cancels keeps the finished points; and the link's
 * LLR signs give the very bit errors its batches count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/ofdmsim.h"
#include "testutil.h"

static const char *const small =
    "simulation = { backend = \"cpu\"; seed = 5; snr_db = [0.0, 5.0, 10.0]; target_errors = 200;\n"
    "               max_bits = 40000.0; threads = 1; };\n"
    "mimo = { tx = 2; rx = 2; };\nmodulation = \"qpsk\";\nequalizer = \"mmse\";\n"
    "channel = { model = \"rayleigh\"; };\nofdm = { subcarriers = 64; symbols = 2; };\n"
    "receiver = { llr = \"maxlog\"; };\n";

static long column(const ofdmsim_results *r, const char *name) {
  for (size_t c = 0; c < ofdmsim_results_columns(r); c++)
    if (!strcmp(ofdmsim_results_column_name(r, c), name)) return (long)c;
  return -1;
}

static void errors_are_codes(void) {
  ofdmsim_config *c = NULL;
  const char *bad_key[] = {"mimo.txx=2"};
  CHECK(ofdmsim_config_parse(&c, small, bad_key, 1) == OFDMSIM_ERR_CONFIG && c == NULL, "a bad key is a config error");
  CHECK(strstr(ofdmsim_last_error(), "--set mimo.txx=2") != NULL, "the message names the override: %s",
        ofdmsim_last_error());
  const char *bad_value[] = {"modulation=17qam"};
  CHECK(ofdmsim_config_parse(&c, small, bad_value, 1) == OFDMSIM_ERR_CONFIG, "a bad value is a config error");
  CHECK(strstr(ofdmsim_last_error(), "17qam") != NULL, "it names the value: %s", ofdmsim_last_error());
  CHECK(ofdmsim_config_load(&c, "/nonexistent/x.cfg", NULL, 0) == OFDMSIM_ERR_CONFIG, "a missing file");
  CHECK(strstr(ofdmsim_last_error(), "/nonexistent/x.cfg") != NULL, "it names the file: %s", ofdmsim_last_error());
  CHECK(ofdmsim_config_parse(&c, "mimo = { tx = 99; };\n", NULL, 0) == OFDMSIM_ERR_CONFIG, "out of range");
  CHECK(strncmp(ofdmsim_last_error(), "<text>:1:", 9) == 0, "text is named <text> with its line: %s",
        ofdmsim_last_error());
  ofdmsim_results *r = NULL;
  CHECK(ofdmsim_results_read(&r, "/nonexistent/r.csv") == OFDMSIM_ERR_CONFIG && !r, "a missing result file");
}

/* Stops after the first finished point. */
static int stop_after_one(void *ctx, const ofdmsim_progress *p) {
  int *calls = ctx;
  ++*calls;
  return p->points_done >= 1;
}

static void runs_and_results(void) {
  ofdmsim_config *c = NULL;
  CHECK(ofdmsim_config_parse(&c, small, NULL, 0) == OFDMSIM_OK && ofdmsim_config_points(c) == 3, "3 points");
  char *echo = ofdmsim_config_echo(c);
  CHECK(echo && strstr(echo, "modulation = \"qpsk\";"), "the echo holds the effective config");
  ofdmsim_free(echo);

  const ofdmsim_run_options quiet = {.quiet = 1, .library = 1};
  ofdmsim_results *r = NULL;
  CHECK(ofdmsim_run(c, &quiet, &r) == OFDMSIM_OK && r, "the run: %s", ofdmsim_last_error());
  CHECK(ofdmsim_results_rows(r) == 3, "a row per point");
  const long bits = column(r, "bits"), errors = column(r, "bit_errors"), ber = column(r, "ber"),
             key = column(r, "point_key"), mod = column(r, "modulation");
  CHECK(bits >= 0 && errors >= 0 && ber >= 0 && key >= 0 && mod >= 0, "the CSV's columns");
  CHECK(ofdmsim_results_column_type(r, (size_t)bits) == OFDMSIM_INT &&
            ofdmsim_results_column_type(r, (size_t)ber) == OFDMSIM_REAL &&
            ofdmsim_results_column_type(r, (size_t)key) == OFDMSIM_TEXT &&
            ofdmsim_results_column_type(r, (size_t)mod) == OFDMSIM_TEXT,
        "typed columns");
  int64_t n[3], e[3];
  double b[3];
  CHECK(!ofdmsim_results_ints(r, (size_t)bits, n) && !ofdmsim_results_ints(r, (size_t)errors, e) &&
            !ofdmsim_results_reals(r, (size_t)ber, b),
        "whole columns");
  CHECK(ofdmsim_results_reals(r, (size_t)bits, b) == OFDMSIM_ERR_CONFIG, "an int column is not read as reals");
  for (int i = 0; i < 3; i++)
    CHECK(n[i] > 0 && e[i] <= n[i] && fabs(b[i] - (double)e[i] / (double)n[i]) < 1e-9 * b[i] + 1e-12,
          "point %d: ber = errors / bits", i);
  CHECK(e[0] > e[1] && e[1] > e[2], "errors fall with the SNR");

  /* cancelled after the first point: that point kept, with the same counts */
  int calls = 0;
  const ofdmsim_run_options cancel = {.quiet = 1, .library = 1, .progress = stop_after_one, .progress_ctx = &calls};
  ofdmsim_results *part = NULL;
  CHECK(ofdmsim_run(c, &cancel, &part) == OFDMSIM_CANCELLED && part, "cancelled: %s", ofdmsim_last_error());
  CHECK(calls >= 1 && ofdmsim_results_rows(part) >= 1, "the finished point is kept");
  int64_t e0;
  ofdmsim_results_ints(part, (size_t)column(part, "bit_errors"), &e0);
  CHECK(e0 == e[0], "with its counts (%lld, %lld)", (long long)e0, (long long)e[0]);
  CHECK(strstr(ofdmsim_last_error(), "points kept") != NULL, "and says so: %s", ofdmsim_last_error());
  ofdmsim_results_free(part);

  /* a run after a cancelled one runs whole */
  ofdmsim_results *again = NULL;
  CHECK(ofdmsim_run(c, &quiet, &again) == OFDMSIM_OK && ofdmsim_results_rows(again) == 3, "a run after a cancel");
  ofdmsim_results_free(again);

  const ofdmsim_run_options cuda = {.quiet = 1, .library = 1, .backend = "nonesuch"};
  CHECK(ofdmsim_run(c, &cuda, NULL) == OFDMSIM_ERR_RUNTIME, "an unknown backend is a runtime error");
  CHECK(strstr(ofdmsim_last_error(), "simulation.backend = \"nonesuch\"") != NULL, "named: %s",
        ofdmsim_last_error());

  /* the link: point 1's first frames, whose LLR signs err exactly where the receiver does */
  ofdmsim_link *l = NULL;
  CHECK(ofdmsim_link_create(&l, c, 1, "cpu", 8, 0) == OFDMSIM_OK, "a link: %s", ofdmsim_last_error());
  ofdmsim_link_info info;
  ofdmsim_link_get_info(l, &info);
  CHECK(info.tx == 2 && info.bps == 2 && info.data_res_per_frame == 128 && info.soft && !info.device &&
            !strcmp(info.backend, "cpu"),
        "its shape");
  const size_t per = 8 * 128 * 2 * 2;
  float *llr = malloc(per * sizeof *llr);
  uint8_t *tbits = malloc(per);
  uint32_t counted[16];
  const ofdmsim_batch out = {.bits = tbits, .llr = llr, .bit_errors = counted};
  CHECK(ofdmsim_link_batch(l, 0, 8, &out) == OFDMSIM_OK, "a batch: %s", ofdmsim_last_error());
  uint64_t sign_errors = 0, receiver_errors = 0;
  for (size_t i = 0; i < per; i++) sign_errors += (llr[i] > 0) != tbits[i];
  for (int i = 0; i < 16; i++) receiver_errors += counted[i];
  CHECK(sign_errors == receiver_errors && receiver_errors > 0, "LLR signs %llu, receiver %llu",
        (unsigned long long)sign_errors, (unsigned long long)receiver_errors);
  CHECK(ofdmsim_link_batch(l, 0, 9, &out) == OFDMSIM_ERR_CONFIG, "no batch beyond max_frames");
  CHECK(ofdmsim_link_device_alloc(l, 64) == NULL && strstr(ofdmsim_last_error(), "host memory"),
        "a CPU link has no device memory: %s", ofdmsim_last_error());
  free(llr);
  free(tbits);
  ofdmsim_link_free(l);
  ofdmsim_results_free(r);
  ofdmsim_config_free(c);
}

int main(void) {
  errors_are_codes();
  runs_and_results();
  return test_finish("test_api");
}
