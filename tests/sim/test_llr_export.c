/* The LLR export (sim/llr_export.h): the file's layout, field by field, and
 * its content: the exported bits are the transmitted ones and, for max-log
 * LLRs, the bits the LLR signs decide disagree with them exactly as often
 * as the backend's hard decisions do on the same frames (max-log signs are
 * the hard decisions); exact LLRs agree in sign with max-log ones but near a
 * boundary; and a point without soft outputs is refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/backends.h"
#include "config/config.h"
#include "sim/llr_export.h"
#include "testutil.h"

static uint64_t u64_at(const uint8_t *b) {
  uint64_t v = 0;
  for (int k = 7; k >= 0; k--) v = v << 8 | b[k];
  return v;
}
static uint32_t u32_at(const uint8_t *b) { return (uint32_t)(b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24); }

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  rewind(f);
  uint8_t *d = malloc(*n ? *n : 1);
  if (d && fread(d, 1, *n, f) != *n) {
    free(d);
    d = NULL;
  }
  fclose(f);
  return d;
}

/* The backend's hard bit errors of frames [first, first + frames) of point pt. */
static uint64_t hard_errors(const sim_point *pt, uint64_t first, uint64_t frames) {
  char err[256];
  backend_options o = {0};
  backend *b = backends_create("cpu", &pt->p, &o, err, sizeof err);
  if (!b) return UINT64_MAX;
  uint32_t *e = calloc(frames * (size_t)(pt->p.tx + 1), sizeof *e);
  uint64_t *l = calloc(frames * (size_t)pt->p.tx, sizeof *l);
  batch_result r = {.errors = e, .fallbacks = e + frames * (size_t)pt->p.tx, .gmi_loss = l};
  uint64_t sum = UINT64_MAX;
  if (!backend_run(b, first, frames, &r)) {
    sum = 0;
    for (uint64_t k = 0; k < frames * (uint64_t)pt->p.tx; k++) sum += e[k];
  }
  free(e);
  free(l);
  backend_destroy(b);
  return sum;
}

/* Reads the export of c back and checks it; returns the LLRs of record 0. */
static float *check_file(const sim_config *c, const char *path, uint64_t frames, size_t *n_first) {
  size_t n;
  uint8_t *d = slurp(path, &n);
  CHECK(d != NULL, "the export file reads back");
  if (!d) return NULL;
  CHECK(n >= 16 && !memcmp(d, "OFDMLLR\0", 8) && u32_at(d + 8) == 1 && u32_at(d + 12) == c->n_points,
        "file header: magic, version 1, %zu records", c->n_points);
  size_t at = 16;
  float *first = NULL;
  for (size_t i = 0; i < c->n_points && at + 64 <= n; i++) {
    const sim_point *pt = &c->points[i];
    const uint8_t *h = d + at;
    const uint64_t rf = (uint64_t)pt->p.subcarriers * (uint64_t)pt->p.symbols;
    double snr, n0;
    memcpy(&snr, h + 40, 8);
    memcpy(&n0, h + 48, 8);
    CHECK(u64_at(h) == pt->point_key && u32_at(h + 8) == pt->index && u32_at(h + 12) == (uint32_t)pt->p.tx &&
              u32_at(h + 16) == (uint32_t)pt->p.bps && u32_at(h + 20) == rf && u64_at(h + 24) == pt->first_frame &&
              u64_at(h + 32) == frames && snr == pt->p.snr_db && n0 == pt->p.n0 &&
              u32_at(h + 56) == (uint32_t)pt->p.llr && u32_at(h + 60) == (uint32_t)pt->p.equalizer,
          "record %zu: header fields", i);
    const size_t count = frames * rf * (size_t)pt->p.tx * (size_t)pt->p.bps;
    at += 64;
    CHECK(at + 5 * count <= n, "record %zu: %zu LLRs and bits fit", i, count);
    if (at + 5 * count > n) break;
    const float *llr = (const float *)(d + at);
    const uint8_t *bits = d + at + 4 * count;
    uint64_t sign_errors = 0, not_bits = 0;
    for (size_t k = 0; k < count; k++) {
      not_bits += bits[k] > 1;
      sign_errors += (llr[k] > 0.0f) != (bits[k] == 1);
    }
    CHECK(not_bits == 0, "record %zu: bits are 0 or 1", i);
    if (pt->p.llr == LLR_MAXLOG) {
      const uint64_t hard = hard_errors(pt, pt->first_frame, frames);
      /* a max-log LLR of exactly 0 (a tie on a boundary) decides 0 by its sign here, the hard decision
       * by qam_demap's rounding: none occur in these draws */
      CHECK(sign_errors == hard, "record %zu: LLR signs err on %llu bits, the hard decisions on %llu", i,
            (unsigned long long)sign_errors, (unsigned long long)hard);
    }
    if (i == 0) {
      first = malloc(sizeof *first * count);
      if (first) memcpy(first, llr, sizeof *first * count);
      *n_first = count;
    }
    at += 5 * count;
  }
  CHECK(at == n, "the file ends after the last record (%zu of %zu bytes)", at, n);
  free(d);
  return first;
}

static int load(sim_config *c, const char *dir, const char *name, const char *text) {
  char path[512], err[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(text, f);
  fclose(f);
  const int rc = sim_config_load(c, path, NULL, 0, err, sizeof err);
  CHECK(rc == 0, "config loads: %s", err);
  return rc;
}

int main(void) {
  char dir[] = "/tmp/ofdmsim-llr-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  const char *body =
      "simulation = { snr_db = [4.0, 8.0]; first_frame = 5; };\n"
      "mimo = { tx = 2; rx = 2; };\nmodulation = \"16qam\";\nofdm = { subcarriers = 48; symbols = 2; };\n"
      "sweep = ( { key = \"equalizer\"; values = [\"mmse\", \"mmse-sic\", \"kbest\", \"ml\"]; } );\n";
  char text[1024], out[600], err[1024];
  snprintf(text, sizeof text, "%sreceiver = { llr = \"maxlog\"; };\n", body);
  sim_config c;
  if (load(&c, dir, "maxlog.cfg", text)) return test_finish("test_llr_export");
  snprintf(out, sizeof out, "%s/maxlog.llr", dir);
  CHECK(llr_export_check(&c, err, sizeof err) == 0, "soft points pass the check");
  CHECK(llr_export_write(&c, "cpu", 0, out, 3, err, sizeof err) == 0, "export: %s", err);
  size_t n_max = 0, n_ex = 0;
  float *maxlog = check_file(&c, out, 3, &n_max);
  sim_config_free(&c);

  /* exact LLRs of the same mmse point: the same signs but near a boundary */
  snprintf(text, sizeof text, "%sreceiver = { llr = \"exact\"; };\n",
           "simulation = { snr_db = [4.0, 8.0]; first_frame = 5; };\n"
           "mimo = { tx = 2; rx = 2; };\nmodulation = \"16qam\";\nofdm = { subcarriers = 48; symbols = 2; };\n");
  if (!load(&c, dir, "exact.cfg", text)) {
    snprintf(out, sizeof out, "%s/exact.llr", dir);
    CHECK(llr_export_write(&c, "cpu", 0, out, 3, err, sizeof err) == 0, "export: %s", err);
    float *exact = check_file(&c, out, 3, &n_ex);
    size_t differ = 0;
    for (size_t k = 0; exact && maxlog && k < n_ex && k < n_max; k++)
      differ += (exact[k] > 0.0f) != (maxlog[k] > 0.0f) && fabsf(maxlog[k]) > 2.0f;
    CHECK(exact && maxlog && n_ex == n_max && differ == 0,
          "exact and max-log LLR signs differ away from a boundary on %zu bits", differ);
    free(exact);
    sim_config_free(&c);
  }
  free(maxlog);

  /* hard-only points are refused before anything is written */
  if (!load(&c, dir, "hard.cfg", body)) {
    CHECK(llr_export_check(&c, err, sizeof err) == -1 && strstr(err, "receiver.llr = \"off\""),
          "a point without LLRs is refused: %s", err);
    sim_config_free(&c);
  }
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  return test_finish("test_llr_export");
}
