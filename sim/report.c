#include "sim/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/config_tree.h"
#include "sim/stats.h"
#include "version.h"

static double ber_of(const point_result *r) {
  return r->bits ? (double)r->bit_errors / (double)r->bits : NAN;
}

/* Throughput figures of a point: simulated Mbit/s and inversions per second. */
static double mbit_per_s(const point_result *r) {
  return r->seconds > 0 ? (double)r->bits / r->seconds / 1e6 : 0.0;
}
static double inv_per_s(const point_result *r) {
  return r->t.invert > 0 ? (double)r->inversions / r->t.invert : 0.0;
}

static void iso_now(char *buf, size_t n) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void report_header(FILE *f, const sim_config *c, const char *backend, const char *command_line) {
  char host[256] = "unknown", date[32];
  gethostname(host, sizeof host - 1);
  iso_now(date, sizeof date);
  fprintf(f, "# ofdmsim %s  %s  host %s  backend %s\n", OFDMSIM_VERSION, date, host, backend);
  fprintf(f, "# command: %s\n", command_line);
  fprintf(f, "# effective config (%s):\n", c->path);
  sim_config_print(c, f, "#   ");
  fprintf(f, "# %zu point%s\n", c->n_points, c->n_points == 1 ? "" : "s");
}

void report_table_head(FILE *f) {
  fprintf(f, "%5s %3s %3s %-7s %-4s %-5s %7s %11s %9s %10s %23s %10s %9s %9s %-13s\n", "point", "tx",
          "rx", "mod", "eq", "snr", "snr_db", "bits", "errors", "ber", "ci95", "theory", "Mbit/s",
          "Minv/s", "stop");
}

void report_table_row(FILE *f, const sim_point *pt, const point_result *r) {
  double lo, hi;
  wilson_interval(r->bit_errors, r->bits, 0.95, &lo, &hi);
  char theory[16];
  if (isnan(r->theory)) snprintf(theory, sizeof theory, "-");
  else snprintf(theory, sizeof theory, "%.3e", r->theory);
  fprintf(f, "%5u %3d %3d %-7s %-4s %-5s %7.2f %11.4e %9llu %10.4e [%.3e, %.3e] %10s %9.2f %9.2f %-13s\n",
          pt->p.point_id, pt->p.tx, pt->p.rx, modulation_name_of_bps(pt->p.bps),
          equalizer_name(pt->p.equalizer), snr_kind_name(pt->p.snr_kind), pt->p.snr_db,
          (double)r->bits, (unsigned long long)r->bit_errors, ber_of(r), lo, hi, theory,
          mbit_per_s(r), inv_per_s(r) / 1e6, r->stop);
  if (pt->label[0]) fprintf(f, "      %s\n", pt->label);
}

static const char *csv_head =
    "point,tx,rx,modulation,equalizer,channel,domain,snr_kind,snr_db,n0,bits,bit_errors,ber,"
    "ci95_low,ci95_high,theory_ber,theory,stream_bit_errors,frames,stop,inversions,inv_per_s,"
    "mbit_per_s,seconds,backend,label\n";

static void csv_row(FILE *f, const sim_point *pt, const point_result *r) {
  const link_params *p = &pt->p;
  double lo, hi;
  wilson_interval(r->bit_errors, r->bits, 0.95, &lo, &hi);
  fprintf(f, "%u,%d,%d,%s,%s,%s,%s,%s,%.17g,%.17g,%llu,%llu,%.10g,%.10g,%.10g,", p->point_id, p->tx,
          p->rx, modulation_name_of_bps(p->bps), equalizer_name(p->equalizer), channel_model_name(p->model),
          ofdm_domain_name(p->domain), snr_kind_name(p->snr_kind), p->snr_db, p->n0,
          (unsigned long long)r->bits, (unsigned long long)r->bit_errors, r->bits ? ber_of(r) : 0.0,
          lo, hi);
  if (isnan(r->theory)) fputs(",,", f);
  else fprintf(f, "%.10g,%s,", r->theory, r->theory_kind);
  for (int t = 0; t < p->tx; t++) fprintf(f, "%s%llu", t ? ";" : "", (unsigned long long)r->stream_errors[t]);
  fprintf(f, ",%llu,%s,%llu,%.6g,%.6g,%.6g,%s,\"%s\"\n", (unsigned long long)r->frames, r->stop,
          (unsigned long long)r->inversions, inv_per_s(r), mbit_per_s(r), r->seconds,
          r->backend ? r->backend : "", pt->label);
}

/* Writes with `emit` into path.tmp and renames it over path. */
static int write_atomically(const char *path, void (*emit)(FILE *, const void *), const void *ctx) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) return -1;
  emit(f, ctx);
  int bad = ferror(f);
  if (fflush(f) || fsync(fileno(f))) bad = 1;
  if (fclose(f)) bad = 1;
  if (bad || rename(tmp, path)) {
    const int e = errno;
    unlink(tmp);
    errno = e;
    return -1;
  }
  return 0;
}

typedef struct emit_ctx {
  const sim_config *c;
  const point_result *r;
  size_t n;
  const char *command_line;
} emit_ctx;

static void emit_csv(FILE *f, const void *p) {
  const emit_ctx *e = p;
  fputs(csv_head, f);
  for (size_t i = 0; i < e->n; i++) csv_row(f, &e->c->points[i], &e->r[i]);
}

int report_write_csv(const char *path, const sim_config *c, const point_result *r, size_t n) {
  emit_ctx e = {c, r, n, NULL};
  return write_atomically(path, emit_csv, &e);
}

void report_sidecar_path(const char *csv_path, char *out, size_t outlen) {
  const size_t len = strlen(csv_path);
  if (len > 4 && !strcmp(csv_path + len - 4, ".csv"))
    snprintf(out, outlen, "%.*s.json", (int)(len - 4), csv_path);
  else
    snprintf(out, outlen, "%s.json", csv_path);
}

static void json_string(FILE *f, const char *s) {
  cfg_out o = cfg_out_file(f);
  cfg_write_json_string(&o, s);
}

static void json_number(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, "%.10g", v);
  else fputs("null", f);
}

static void emit_json(FILE *f, const void *p) {
  const emit_ctx *e = p;
  char host[256] = "unknown", date[32];
  gethostname(host, sizeof host - 1);
  iso_now(date, sizeof date);
  fprintf(f, "{\n  \"program\": \"ofdmsim\",\n  \"version\": \"%s\",\n  \"date\": \"%s\",\n  \"host\": ",
          OFDMSIM_VERSION, date);
  json_string(f, host);
  fputs(",\n  \"command\": ", f);
  json_string(f, e->command_line ? e->command_line : "");
  fputs(",\n  \"config_file\": ", f);
  json_string(f, e->c->path);
  fputs(",\n  \"config\": ", f);
  sim_config_print_json(e->c, f);
  fputs(",\n  \"points\": [", f);
  for (size_t i = 0; i < e->n; i++) {
    const point_result *r = &e->r[i];
    const sim_point *pt = &e->c->points[i];
    double lo, hi;
    wilson_interval(r->bit_errors, r->bits, 0.95, &lo, &hi);
    fprintf(f, "%s\n    {\"point\": %u, \"label\": ", i ? "," : "", pt->p.point_id);
    json_string(f, pt->label);
    fprintf(f, ", \"backend\": ");
    json_string(f, r->backend ? r->backend : "");
    fprintf(f, ", \"seed\": %llu, \"snr_db\": %.17g, \"n0\": %.17g, \"bits\": %llu, \"bit_errors\": %llu, \"ber\": ",
            (unsigned long long)pt->p.seed, pt->p.snr_db, pt->p.n0, (unsigned long long)r->bits,
            (unsigned long long)r->bit_errors);
    json_number(f, ber_of(r));
    fputs(", \"ci95\": [", f);
    json_number(f, lo);
    fputs(", ", f);
    json_number(f, hi);
    fputs("], \"theory_ber\": ", f);
    json_number(f, r->theory);
    fprintf(f, ", \"frames\": %llu, \"stop\": \"%s\", \"inversions\": %llu, \"seconds\": %.6g",
            (unsigned long long)r->frames, r->stop, (unsigned long long)r->inversions, r->seconds);
    fprintf(f, ", \"stage_seconds\": {\"draw\": %.6g, \"channel\": %.6g, \"gram\": %.6g, \"invert\": %.6g, \"equalize\": %.6g, \"demap\": %.6g}}",
            r->t.draw, r->t.channel, r->t.gram, r->t.invert, r->t.equalize, r->t.demap);
  }
  fputs("\n  ]\n}\n", f);
}

int report_write_json(const char *path, const sim_config *c, const point_result *r, size_t n,
                      const char *command_line) {
  emit_ctx e = {c, r, n, command_line};
  return write_atomically(path, emit_json, &e);
}
