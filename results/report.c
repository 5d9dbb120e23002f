/* The report: header and table on stdout, the CSV and the JSON sidecar written atomically (report.h). */
#include "results/report.h"

#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/atomic_file.h"
#include "results/csv_columns.h"
#include "results/gmi_sup.h"
#include "results/json_doc.h"
#include "config/config_columns.h"
#include "config/config_json.h"
#include "config/json_value.h"
#include "results/stats.h"
#include "version.h"

static double ber_of(const point_result *r) {
  return r->n.bits ? (double)r->n.bit_errors / (double)r->n.bits : NAN;
}

/* Throughput figures of a point: simulated Mbit/s and inversions per second. */
static double mbit_per_s(const point_result *r) {
  return r->n.seconds > 0 ? (double)r->n.bits / r->n.seconds / 1e6 : 0.0;
}
static double inv_per_s(const point_result *r) {
  return r->n.t.invert > 0 ? (double)r->n.inversions / r->n.t.invert : 0.0;
}

void report_header(FILE *f, const sim_config *c, const char *backend, const char *command_line) {
  char host[256] = "unknown", date[32];
  gethostname(host, sizeof host - 1);
  json_doc_iso_now(date, sizeof date);
  fprintf(f, "# ofdmsim %s  %s  host %s  backend %s\n", OFDMSIM_VERSION, date, host, backend);
  fprintf(f, "# command: %s\n", command_line);
  fprintf(f, "# effective config (%s):\n", c->path);
  sim_config_print(c, f, "#   ");
  if (c->shards)
    fprintf(f, "# shard %u/%u: %zu of the sweep's %zu points\n", c->shard, c->shards, c->n_points, c->sweep_points);
  else
    fprintf(f, "# %zu point%s\n", c->n_points, c->n_points == 1 ? "" : "s");
  report_channels(f, c);
}

void report_table_head(FILE *f) {
  fprintf(f, "%5s %3s %3s %-7s %-8s %-5s %7s %11s %9s %10s %23s %10s %9s %9s %-13s\n", "point", "tx",
          "rx", "mod", "eq", "snr", "snr_db", "bits", "errors", "ber", "ci95", "theory", "Mbit/s",
          "Minv/s", "stop");
}

void report_table_row(FILE *f, const sim_point *pt, const point_result *r) {
  double lo, hi;
  tally_interval(pt, &r->n, 0.95, &lo, &hi);
  char theory[16];
  if (isnan(r->theory)) snprintf(theory, sizeof theory, "-");
  else snprintf(theory, sizeof theory, "%.3e", r->theory);
  /* a skipped point has no BER and no interval: dashes, not nan */
  char ber[16], interval[32];
  if (r->n.bits) {
    snprintf(ber, sizeof ber, "%.4e", ber_of(r));
    snprintf(interval, sizeof interval, "[%.3e, %.3e]", lo, hi);
  } else {
    snprintf(ber, sizeof ber, "-");
    snprintf(interval, sizeof interval, "-");
  }
  fprintf(f, "%5zu %3d %3d %-7s %-8s %-5s %7.2f %11.4e %9llu %10s %23s %10s %9.2f %9.2f %-13s\n",
          pt->index, pt->p.tx, pt->p.rx, modulation_name_of_bps(pt->p.bps),
          equalizer_name(pt->p.equalizer), snr_kind_name(pt->p.snr_kind), pt->p.snr_db,
          (double)r->n.bits, (unsigned long long)r->n.bit_errors, ber, interval, theory,
          mbit_per_s(r), inv_per_s(r) / 1e6, r->stop);
  if (pt->label[0]) fprintf(f, "      %s\n", pt->label);
  if (link_gmi_loss(&pt->p) && r->n.frames) {
    gmi_sup g;
    tally_gmi_sup(pt, &r->n, 0.95, &g);
    fprintf(f, "      GMI %.4f bit/RE", g.gmi);
    if (!isnan(g.lo)) fprintf(f, " [%.4f, %.4f]", g.lo, g.hi);
    if (link_gmi_grid(&pt->p))
      fprintf(f, " at LLR scaling s = %.3g%s (%s LLRs); at s = 1 %.4f, per stream", g.s,
              g.edge ? " (the grid's end: a lower bound)" : "", llr_kind_name(pt->p.llr), tally_gmi(pt, &r->n, -1));
    else
      fprintf(f, " at s = 1 (%s LLRs; receiver.gmi = s1: no supremum over s), per stream", llr_kind_name(pt->p.llr));
    for (int t = 0; t < pt->p.tx; t++) fprintf(f, " %.4f", tally_gmi(pt, &r->n, t));
    fputc('\n', f);
  }
  const tally_coded *c = &r->n.coded;
  if (link_coded(&pt->p) && c->blocks) {
    double blo, bhi;
    tally_bler_interval(pt, &r->n, 0.95, &blo, &bhi);
    fprintf(f,
            "      BLER %.4e [%.3e, %.3e] (%llu/%llu TBs of %d bits), CBLER %.3e, coded BER %.3e, %.2f "
            "iterations, %.4f bit/RE, %.2f Mbit/s of air time\n",
            (double)c->block_errors / (double)c->blocks, blo, bhi, (unsigned long long)c->block_errors,
            (unsigned long long)c->blocks, pt->p.code.tbs, (double)c->cb_errors / (double)c->cbs,
            (double)c->info_errors / (double)c->info_bits, (double)c->iterations / (double)c->cbs,
            tally_throughput_per_re(pt, &r->n), tally_throughput_bps(pt, &r->n) / 1e6);
    if (link_harq(&pt->p) > 1) {
      double rlo, rhi;
      tally_residual_bler_interval(pt, &r->n, 0.95, &rlo, &rhi);
      fprintf(f,
              "      HARQ (up to %d transmissions): residual BLER %.4e [%.3e, %.3e] (%llu TBs lost), %.3f "
              "transmissions a TB, %.4f bit/RE, %.2f Mbit/s of air time\n",
              link_harq(&pt->p), (double)c->harq_errors / (double)c->blocks, rlo, rhi,
              (unsigned long long)c->harq_errors, (double)c->transmissions / (double)c->blocks,
              tally_harq_throughput_per_re(pt, &r->n), tally_harq_throughput_bps(pt, &r->n) / 1e6);
    }
  }
}

/* The GMI columns of the CSV: the supremum over the LLR scaling and its
 * interval, per stream (at s = 1) and the sums a merge adds up; empty
 * without soft outputs or with receiver.gmi = none. With receiver.gmi = s1
 * gmi and its interval are the GMI at s = 1 (gmi_s1's value), and gmi_s,
 * gmi_loss_s and frame_gmi_loss_s_sq are empty: no supremum was taken. */
/* The GMI supremum of a point with GMI sums and frames (1); 0 with the
 * empty fields written instead (`empty`). */
static int gmi_sup_or_empty(FILE *f, const sim_point *pt, const point_result *r, const char *empty, gmi_sup *g) {
  if (!link_gmi_loss(&pt->p) || !r->n.frames) return fputs(empty, f), 0;
  tally_gmi_sup(pt, &r->n, 0.95, g);
  return 1;
}

static void csv_gmi(FILE *f, const sim_point *pt, const point_result *r) {
  const link_params *p = &pt->p;
  gmi_sup g;
  if (!gmi_sup_or_empty(f, pt, r, ",,,,,,", &g)) return;
  fputc(',', f);
  csv_real(f, 10, g.gmi);
  fputc(',', f);
  if (!isnan(g.lo)) csv_real(f, 10, g.lo), fputc(',', f), csv_real(f, 10, g.hi);
  else fputc(',', f);
  fputc(',', f);
  for (int t = 0; t < p->tx; t++) fputs(t ? ";" : "", f), csv_real(f, 10, tally_gmi(pt, &r->n, t));
  fputc(',', f);
  for (int t = 0; t < p->tx; t++) fputs(t ? ";" : "", f), csv_real(f, 17, r->n.gmi_loss[t]);
  fputc(',', f);
  csv_real(f, 17, r->n.gmi_loss_sq);
}

/* The GMI columns after the coded link's: the optimal s, the GMI at s = 1
 * and the grid's sums; empty without soft outputs. */
static void csv_gmi_grid(FILE *f, const sim_point *pt, const point_result *r) {
  gmi_sup g;
  if (!gmi_sup_or_empty(f, pt, r, ",,,,", &g)) return;
  fputc(',', f);
  if (!isnan(g.s)) csv_real(f, 10, g.s);
  fputc(',', f);
  csv_real(f, 10, tally_gmi(pt, &r->n, -1));
  fputc(',', f);
  if (!link_gmi_grid(&pt->p)) return (void)fputc(',', f); /* s1: no grid sums */
  for (int k = 0; k < GMI_GRID; k++) fputs(k ? ";" : "", f), csv_real(f, 17, r->n.gmi_loss_s[k]);
  fputc(',', f);
  for (int k = 0; k < GMI_GRID; k++) fputs(k ? ";" : "", f), csv_real(f, 17, r->n.gmi_loss_s_sq[k]);
}

/* The coded link's columns (csv_columns.h, blocks .. frame_info_errors_sq):
 * the counts a merge adds up, and the rates with the BLER's interval; empty
 * for an uncoded point. */
static void csv_coded(FILE *f, const sim_point *pt, const point_result *r) {
  const tally_coded *c = &r->n.coded;
  if (!link_coded(&pt->p) || !r->n.frames) {
    fputs(",,,,,,,,,,,,,,,,,,,", f);
    return;
  }
  double lo, hi;
  tally_bler_interval(pt, &r->n, 0.95, &lo, &hi);
  fprintf(f, ",%llu,%llu,", (unsigned long long)c->blocks, (unsigned long long)c->block_errors);
  csv_real(f, 10, (double)c->block_errors / (double)c->blocks);
  fputc(',', f);
  csv_real(f, 10, lo);
  fputc(',', f);
  csv_real(f, 10, hi);
  fprintf(f, ",%llu,%llu,", (unsigned long long)c->cbs, (unsigned long long)c->cb_errors);
  csv_real(f, 10, (double)c->cb_errors / (double)c->cbs);
  fprintf(f, ",%llu,%llu,", (unsigned long long)c->info_bits, (unsigned long long)c->info_errors);
  csv_real(f, 10, (double)c->info_errors / (double)c->info_bits);
  fprintf(f, ",%llu,", (unsigned long long)c->iterations);
  csv_real(f, 6, (double)c->iterations / (double)c->cbs);
  fputc(',', f);
  /* throughput = (1 - BLER) x TBS / REs a frame: its interval from the BLER's */
  const double per_re = tally_throughput_per_re(pt, &r->n);
  const double full = (double)pt->p.code.tbs / (double)link_res_per_frame(&pt->p);
  csv_real(f, 10, per_re);
  fputc(',', f);
  csv_real(f, 10, (1.0 - hi) * full);
  fputc(',', f);
  csv_real(f, 10, (1.0 - lo) * full);
  fputc(',', f);
  csv_real(f, 10, tally_throughput_bps(pt, &r->n));
  fputc(',', f);
  csv_real(f, 17, c->cb_sq);
  fputc(',', f);
  csv_real(f, 17, c->info_sq);
}

/* HARQ's columns (harq_errors .. delivered_transmissions), after the GMI
 * grid's: written for every coded point (without HARQ a TB is sent once:
 * the residual BLER is the BLER), empty for an uncoded one; then the sums
 * over the units (frames, or drops) of their TBs lost, lost after HARQ and
 * delivered after HARQ, squared (drop_block_errors_sq .. drop_delivered_sq:
 * without drops the counts themselves). */
static void csv_harq(FILE *f, const sim_point *pt, const point_result *r) {
  const tally_coded *c = &r->n.coded;
  if (!link_coded(&pt->p) || !r->n.frames) {
    fputs(",,,,,,,,,,,,,,,,,", f); /* 17 columns */
    return;
  }
  double lo, hi;
  tally_residual_bler_interval(pt, &r->n, 0.95, &lo, &hi);
  fprintf(f, ",%llu,", (unsigned long long)c->harq_errors);
  csv_real(f, 10, (double)c->harq_errors / (double)c->blocks);
  fputc(',', f);
  csv_real(f, 10, lo);
  fputc(',', f);
  csv_real(f, 10, hi);
  fprintf(f, ",%llu,", (unsigned long long)c->transmissions);
  tally_transmissions_interval(pt, &r->n, 0.95, &lo, &hi);
  csv_real(f, 10, (double)c->transmissions / (double)c->blocks);
  fputc(',', f);
  csv_real(f, 10, lo);
  fputc(',', f);
  csv_real(f, 10, hi);
  fputc(',', f);
  tally_harq_throughput_interval(pt, &r->n, 0.95, &lo, &hi);
  csv_real(f, 10, tally_harq_throughput_per_re(pt, &r->n));
  fputc(',', f);
  csv_real(f, 10, lo);
  fputc(',', f);
  csv_real(f, 10, hi);
  fputc(',', f);
  csv_real(f, 10, tally_harq_throughput_bps(pt, &r->n));
  fprintf(f, ",%llu,%llu", (unsigned long long)c->transmissions_sq, (unsigned long long)c->delivered_transmissions);
  fprintf(f, ",%llu,%llu,%llu", (unsigned long long)c->block_sq, (unsigned long long)c->harq_sq,
          (unsigned long long)c->delivered_sq);
}

/* Real-valued cells through csv_real (never read back as integers);
 * counts as integers. */
static void csv_row(FILE *f, const sim_config *c, const sim_point *pt, const point_result *r) {
  const link_params *p = &pt->p;
  double lo, hi;
  tally_interval(pt, &r->n, 0.95, &lo, &hi);
  /* a cdl point is a tdl point whose profile names the CDL model */
  fprintf(f, "%zu,%d,%d,%s,%s,%s,", pt->index, p->tx, p->rx,
          link_is_cdl(p) ? pdp_kind_name(p->profile) : channel_model_name(p->model),
          ofdm_domain_name(p->domain), snr_kind_name(p->snr_kind));
  csv_real(f, 17, p->snr_db);
  fputc(',', f);
  csv_real(f, 17, p->n0);
  fprintf(f, ",%llu,%llu,", (unsigned long long)r->n.bits, (unsigned long long)r->n.bit_errors);
  csv_real(f, 10, r->n.bits ? ber_of(r) : 0.0);
  fputc(',', f);
  csv_real(f, 10, lo);
  fputc(',', f);
  csv_real(f, 10, hi);
  fputc(',', f);
  if (isnan(r->theory)) fputs(",,", f);
  else csv_real(f, 10, r->theory), fprintf(f, ",%s,", r->theory_kind);
  for (int t = 0; t < p->tx; t++) fprintf(f, "%s%llu", t ? ";" : "", (unsigned long long)r->n.stream_errors[t]);
  fprintf(f, ",%llu,%s,%llu,", (unsigned long long)r->n.frames, r->stop, (unsigned long long)r->n.inversions);
  csv_real(f, 6, inv_per_s(r));
  fputc(',', f);
  csv_real(f, 6, mbit_per_s(r));
  fputc(',', f);
  csv_real(f, 6, r->n.seconds);
  fprintf(f, ",%s,\"%s\",%llu,%016llx,", r->backend, pt->label, (unsigned long long)r->n.fallbacks,
          (unsigned long long)pt->p.stream_key);
  csv_real(f, 17, r->n.sum_sq);
  fprintf(f, ",%llu,%016llx", (unsigned long long)tally_units(pt, &r->n), (unsigned long long)pt->point_key);
  csv_gmi(f, pt, r);
  csv_coded(f, pt, r);
  csv_gmi_grid(f, pt, r);
  csv_harq(f, pt, r);
  config_columns_row(f, c, pt);
  fputc('\n', f);
}

/* Writes with `emit` (0, or -1 with errno set) through an atomic file. */
static int write_atomically(const char *path, int (*emit)(FILE *, const void *), const void *ctx) {
  results_file w;
  if (results_file_open(&w, path)) return -1;
  if (emit(w.f, ctx) || ferror(w.f)) {
    const int e = errno ? errno : EIO;
    results_file_abort(&w);
    errno = e;
    return -1;
  }
  return results_file_commit(&w);
}

typedef struct emit_ctx {
  const sim_config *c;
  const point_result *r;
  size_t n;
  const char *command_line;
  const run_options *o;
  const char *started;
  unsigned long saves;
} emit_ctx;

static int emit_csv(FILE *f, const void *p) {
  const emit_ctx *e = p;
  result_columns_head(f);
  config_columns_head(f);
  fputc('\n', f);
  for (size_t i = 0; i < e->n; i++) csv_row(f, e->c, &e->c->points[i], &e->r[i]);
  return 0;
}

int report_write_csv(const char *path, const sim_config *c, const point_result *r, size_t n) {
  emit_ctx e = {c, r, n, NULL, NULL, NULL, 0};
  return write_atomically(path, emit_csv, &e);
}

/* path with its ".csv" (if any) replaced by ext. */
static void beside(const char *csv_path, const char *ext, char *out, size_t outlen) {
  const size_t len = strlen(csv_path);
  if (len > 4 && !strcmp(csv_path + len - 4, ".csv"))
    snprintf(out, outlen, "%.*s%s", (int)(len - 4), csv_path, ext);
  else
    snprintf(out, outlen, "%s%s", csv_path, ext);
}

void report_sidecar_path(const char *csv_path, char *out, size_t outlen) {
  beside(csv_path, ".json", out, outlen);
}

void report_journal_path(const char *csv_path, char *out, size_t outlen) {
  beside(csv_path, ".journal", out, outlen);
}

/* Temporary files of `path` that a killed run left: the mkstemp names of
 * write_atomically (suffix ".tmp") and of the folder probe before a run
 * (REPORT_PROBE_SUFFIX, where the file system has no unnamed files). */
static void remove_temps_of(const char *path, const char *suffix) {
  char pattern[4200];
  if (snprintf(pattern, sizeof pattern, "%s%s??????", path, suffix) >= (int)sizeof pattern) return;
  glob_t g;
  if (glob(pattern, GLOB_NOSORT | GLOB_NOESCAPE, NULL, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; i++) unlink(g.gl_pathv[i]);
  globfree(&g);
}

void report_remove_stale_temps(const char *csv_path) {
  char json[4096];
  report_sidecar_path(csv_path, json, sizeof json);
  remove_temps_of(csv_path, ".tmp");
  remove_temps_of(csv_path, REPORT_PROBE_SUFFIX);
  remove_temps_of(json, ".tmp");
}

/* The sidecar's objects. Jansson's pack takes 'o' values as they come, so a
 * NULL (out of memory) fails the whole pack. */
static json_t *stages_json(const stage_times *t) {
  return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}",
                   "draw", sim_json_real(t->draw),
                   "channel", sim_json_real(t->channel),
                   "gram", sim_json_real(t->gram),
                   "invert", sim_json_real(t->invert),
                   "equalize", sim_json_real(t->equalize),
                   "demap", sim_json_real(t->demap));
}

/* The GMI grid (core/gmi_grid.h): its scalings and the point's sums there. */
static json_t *gmi_grid_json(const tally *n) {
  json_t *s = json_array(), *loss = json_array(), *sq = json_array();
  for (int k = 0; s && loss && sq && k < GMI_GRID; k++)
    if (json_array_append_new(s, sim_json_real(gmi_grid_s(k))) ||
        json_array_append_new(loss, sim_json_real(n->gmi_loss_s[k])) ||
        json_array_append_new(sq, sim_json_real(n->gmi_loss_s_sq[k]))) {
      json_decref(s);
      json_decref(loss);
      json_decref(sq);
      return NULL;
    }
  return json_pack("{s:o, s:o, s:o}", "s", s, "loss", loss, "frame_loss_sq", sq);
}

/* The point's GMI (null without soft outputs or with receiver.gmi = none):
 * the supremum over the LLR scaling (total, ci95, s), the GMI at s = 1
 * (total_s1, streams and their sums), and the grid's sums; with
 * receiver.gmi = s1, total and ci95 at s = 1, s and grid null. */
static json_t *gmi_json(const sim_point *pt, const point_result *r) {
  const link_params *p = &pt->p;
  if (!link_gmi_loss(p) || !r->n.frames) return json_null();
  gmi_sup g;
  tally_gmi_sup(pt, &r->n, 0.95, &g);
  json_t *streams = json_array(), *loss = json_array();
  for (int t = 0; streams && loss && t < p->tx; t++)
    if (json_array_append_new(streams, sim_json_real(tally_gmi(pt, &r->n, t))) ||
        json_array_append_new(loss, sim_json_real(r->n.gmi_loss[t]))) {
      json_decref(streams);
      json_decref(loss);
      return NULL;
    }
  json_t *grid = link_gmi_grid(p) ? gmi_grid_json(&r->n) : json_null();
  if (!grid) {
    json_decref(streams);
    json_decref(loss);
    return NULL;
  }
  return json_pack("{s:o, s:[oo], s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:s}", "total", sim_json_real(g.gmi), "ci95",
                   sim_json_real(g.lo), sim_json_real(g.hi), "s", sim_json_real(g.s), "s_at_grid_end", g.edge,
                   "total_s1", sim_json_real(tally_gmi(pt, &r->n, -1)), "streams", streams, "stream_loss", loss,
                   "frame_loss_sq", sim_json_real(r->n.gmi_loss_sq), "grid", grid, "llr", llr_kind_name(p->llr));
}

/* HARQ's counts and rates of a coded point. */
static json_t *harq_json(const sim_point *pt, const point_result *r) {
  const tally_coded *c = &r->n.coded;
  double rlo, rhi, tlo, thi, hlo, hhi;
  tally_residual_bler_interval(pt, &r->n, 0.95, &rlo, &rhi);
  tally_transmissions_interval(pt, &r->n, 0.95, &tlo, &thi);
  tally_harq_throughput_interval(pt, &r->n, 0.95, &hlo, &hhi);
  return json_pack("{s:i, s:I, s:o, s:[oo], s:I, s:o, s:[oo], s:o, s:[oo], s:o, s:I, s:I}", "max_transmissions",
                   link_harq(&pt->p), "harq_errors", (json_int_t)c->harq_errors, "residual_bler",
                   sim_json_real((double)c->harq_errors / (double)c->blocks), "residual_bler_ci95",
                   sim_json_real(rlo), sim_json_real(rhi), "transmissions", (json_int_t)c->transmissions,
                   "mean_transmissions", sim_json_real((double)c->transmissions / (double)c->blocks),
                   "mean_transmissions_ci95", sim_json_real(tlo), sim_json_real(thi), "throughput",
                   sim_json_real(tally_harq_throughput_per_re(pt, &r->n)), "throughput_ci95", sim_json_real(hlo),
                   sim_json_real(hhi), "throughput_bps", sim_json_real(tally_harq_throughput_bps(pt, &r->n)),
                   "frame_transmissions_sq", (json_int_t)c->transmissions_sq, "delivered_transmissions",
                   (json_int_t)c->delivered_transmissions);
}

/* The point's coded-link counts and rates (null when uncoded). */
static json_t *coded_json(const sim_point *pt, const point_result *r) {
  const tally_coded *c = &r->n.coded;
  if (!link_coded(&pt->p) || !c->blocks) return json_null();
  double lo, hi;
  tally_bler_interval(pt, &r->n, 0.95, &lo, &hi);
  return json_pack("{s:I, s:I, s:o, s:[oo], s:I, s:I, s:o, s:I, s:I, s:o, s:I, s:o, s:o, s:o, s:o, s:I, s:o}",
                   "blocks", (json_int_t)c->blocks, "block_errors", (json_int_t)c->block_errors, "bler",
                   sim_json_real((double)c->block_errors / (double)c->blocks), "bler_ci95", sim_json_real(lo),
                   sim_json_real(hi), "code_blocks", (json_int_t)c->cbs, "cb_errors", (json_int_t)c->cb_errors,
                   "cbler", sim_json_real((double)c->cb_errors / (double)c->cbs), "info_bits",
                   (json_int_t)c->info_bits, "info_bit_errors", (json_int_t)c->info_errors, "coded_ber",
                   sim_json_real((double)c->info_errors / (double)c->info_bits), "iterations",
                   (json_int_t)c->iterations, "mean_iterations",
                   sim_json_real((double)c->iterations / (double)c->cbs), "throughput",
                   sim_json_real(tally_throughput_per_re(pt, &r->n)), "throughput_bps",
                   sim_json_real(tally_throughput_bps(pt, &r->n)), "frame_cb_errors_sq", sim_json_real(c->cb_sq),
                   "tbs", (json_int_t)pt->p.code.tbs, "harq", harq_json(pt, r));
}

static json_t *point_json(const sim_point *pt, const point_result *r) {
  double lo, hi;
  tally_interval(pt, &r->n, 0.95, &lo, &hi);
  char key[17];
  snprintf(key, sizeof key, "%016llx", (unsigned long long)pt->p.stream_key);
  char pkey[17];
  snprintf(pkey, sizeof pkey, "%016llx", (unsigned long long)pt->point_key);
  return json_pack("{s:I, s:s, s:o, s:o, s:I, s:s, s:o, s:o, s:I, s:I, s:I, s:o, s:[oo], s:o, s:I, s:I, s:I, s:o, s:o, s:I, s:o, s:o, s:o, s:o}",
                   "point", (json_int_t)pt->index,
                   "point_key", pkey,
                   "label", sim_json_string(pt->label),
                   "backend", sim_json_string(r->backend),
                   "seed", (json_int_t)pt->p.seed,
                   "stream_key", key,
                   "snr_db", sim_json_real(pt->p.snr_db),
                   "n0", sim_json_real(pt->p.n0),
                   "first_frame", (json_int_t)pt->first_frame,
                   "bits", (json_int_t)r->n.bits,
                   "bit_errors", (json_int_t)r->n.bit_errors,
                   "ber", sim_json_real(ber_of(r)),
                   "ci95", sim_json_real(lo), sim_json_real(hi),
                   "theory_ber", sim_json_real(r->theory),
                   "frames", (json_int_t)r->n.frames,
                   "fallbacks", (json_int_t)r->n.fallbacks,
                   "units", (json_int_t)tally_units(pt, &r->n),
                   "frame_errors_sq", sim_json_real(r->n.sum_sq),
                   "stop", sim_json_string(r->stop),
                   "inversions", (json_int_t)r->n.inversions,
                   "seconds", sim_json_real(r->n.seconds),
                   "stage_seconds", stages_json(&r->n.t),
                   "gmi", gmi_json(pt, r),
                   "coded", coded_json(pt, r));
}

static json_t *run_json(const emit_ctx *e) {
  json_t *points = json_array();
  for (size_t i = 0; points && i < e->n; i++) {
    if (json_array_append_new(points, point_json(&e->c->points[i], &e->r[i]))) {
      json_decref(points);
      points = NULL;
    }
  }
  const run_options *o = e->o;
  json_t *ranks = json_array();
  for (int k = 0; ranks && o && o->rank_stats && k < o->ranks; k++) {
    const rank_stat *r = &o->rank_stats[k];
    json_t *one = json_pack("{s:i, s:o, s:o, s:o, s:I, s:I, s:I, s:o, s:o}", "rank", k, "host", sim_json_string(r->host),
                            "backend", sim_json_string(r->backend), "device", sim_json_string(r->device),
                            "units", (json_int_t)r->units, "frames", (json_int_t)r->frames, "bits",
                            (json_int_t)r->bits, "seconds", sim_json_real(r->seconds), "mbit_per_s",
                            sim_json_real(r->seconds > 0 ? (double)r->bits / r->seconds / 1e6 : 0.0));
    if (one && (json_object_update_new(one, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:I}", "startup_s",
                                                     sim_json_real(r->startup), "setup_s", sim_json_real(r->setup),
                                                     "idle_s", sim_json_real(r->idle), "tail_s",
                                                     sim_json_real(r->tail), "wall_s", sim_json_real(r->wall),
                                                     "coordinator_s", sim_json_real(r->coordinator), "messages",
                                                     (json_int_t)r->messages)) ||
               json_object_update_new(one, json_pack("{s:o, s:o, s:o}", "startup_mpi_s", sim_json_real(r->to_mpi),
                                                     "startup_gpu_s", sim_json_real(r->to_gpu), "startup_ready_s",
                                                     sim_json_real(r->to_ready))))) {
      json_decref(one);
      one = NULL;
    }
    if (json_array_append_new(ranks, one)) {
      json_decref(ranks);
      ranks = NULL;
    }
  }
  char shard[32] = "";
  if (e->c->shards) snprintf(shard, sizeof shard, "%u/%u", e->c->shard, e->c->shards);
  json_t *doc = json_doc_new("run", o ? o->command_line : NULL, e->started);
  json_t *run = json_pack("{s:o, s:o, s:i, s:i, s:o, s:o, s:o, s:I, s:o, s:o}",
                          "backend", sim_json_string(o && o->backend ? o->backend : ""),
                          "device", sim_json_string(o && o->device ? o->device : ""),
                          "threads", o ? o->threads : 0,
                          "ranks", o && o->ranks > 0 ? o->ranks : 1,
                          "rank_stats", ranks,
                          "shard", shard[0] ? json_string(shard) : json_null(),
                          "config_file", sim_json_string(e->c->path),
                          "saves", (json_int_t)e->saves,
                          "config", sim_config_json(e->c),
                          "points", points);
  if (!doc || !run || json_object_update(doc, run)) {
    json_decref(doc);
    doc = NULL;
  }
  json_decref(run);
  return doc;
}

static int emit_json(FILE *f, const void *p) {
  json_t *run = run_json(p);
  if (!run) {
    errno = ENOMEM;
    return -1;
  }
  const int rc = json_doc_emit(f, run);
  json_decref(run);
  return rc;
}

int report_write_json(const char *path, const sim_config *c, const point_result *r, size_t n,
                      const run_options *o, const char *started, unsigned long saves) {
  emit_ctx e = {c, r, n, o ? o->command_line : NULL, o, started, saves};
  return write_atomically(path, emit_json, &e);
}
