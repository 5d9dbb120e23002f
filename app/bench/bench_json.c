/* Every figure of `ofdmsim bench` as JSON, built with Jansson. Scripts read
 * these keys (scripts/gpu-check.sh); a figure not measured, or a ratio with
 * nothing to divide by, is null. The document opens with the provenance
 * block every JSON file of ofdmsim has, and is written atomically
 * (results/json_doc.h). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "app/bench/bench_internal.h"
#include "config/json_value.h"
#include "results/json_doc.h"

/* A count as a JSON integer. */
static json_t *jcount(uint64_t v) { return json_integer((json_int_t)v); }

static json_t *cpu_json(const bench_results *R) {
  json_t *a = json_array();
  for (int i = 0; i < R->o->n_sizes; i++) {
    const cpu_invert_fig *c = &R->cpu[i];
    json_array_append_new(
        a, json_pack("{s:i, s:o, s:b, s:o, s:o, s:o, s:o, s:o}", "n", c->n, "matrices",
                     jcount(c->matrices), "ok", c->ok, "ms", sim_json_real(c->ms), "minv_s", sim_json_real(c->minv_s),
                     "general_ms", sim_json_real(c->ms_general), "general_minv_s", sim_json_real(c->minv_s_general),
                     "max_residual", sim_json_real(c->max_residual)));
  }
  return a;
}

static json_t *pipeline_json(const pipeline_fig *p) {
  double s[PIPELINE_COLUMNS];
  pipeline_seconds(p, s);
  json_t *seconds = json_object(), *rates = json_object();
  for (int k = 0; k < PIPELINE_COLUMNS; k++) {
    json_object_set_new(seconds, pipeline_columns[k], sim_json_real(s[k]));
    json_object_set_new(rates, pipeline_columns[k], sim_json_real(pipeline_gbits(p, s[k])));
  }
  return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:s, s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o, "
                   "s:o, s:o, s:o}",
                   "link", p->label, "channel", p->tdl ? "tdl-a" : "rayleigh", "delays",
                   p->tdl == 2 ? "sample" : p->tdl ? "continuous" : "-", "domain",
                   p->time ? "time" : "frequency", "convolution", p->td_path ? p->td_path : "-", "tx", p->tx,
                   "rx", p->rx, "bits_per_symbol", p->bps,
                   "backend", p->backend, "mode", pipeline_mode(p), "available", p->available,
                   "ok", p->ok, "why", sim_json_string(p->why), "frames_per_batch", jcount(p->frames_per_batch),
                   "batches", jcount(p->batches), "bits", jcount(p->bits), "bit_errors",
                   jcount(p->bit_errors), "inversions", jcount(p->inversions), "seconds", seconds,
                   "gbit_s", rates, "ber",
                   sim_json_real(p->bits ? (double)p->bit_errors / (double)p->bits : NAN));
}

#ifdef OFDMSIM_HAVE_CUDA
static json_t *gpu_device_json(const gpu_info *d) {
  char cc[32];
  snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
  return json_pack("{s:s, s:s, s:i, s:o, s:o, s:o, s:i, s:i}", "name", d->name, "cc", cc,
                   "sm_count", d->sm_count, "l2_bytes", jcount(d->l2_bytes), "memory_bytes",
                   jcount(d->global_mem_bytes), "datasheet_mem_gbs", sim_json_real(d->peak_mem_gbs),
                   "driver", d->driver_version, "runtime", d->runtime_version);
}

/* One variant of one size: its rate, and its bytes over the copy floor, both
 * as the kernel moves them and as the nominal 2 n^2 x 8 bytes. */
static json_t *gpu_variant_json(const gpu_invert_figures *v, int k, int n, double copy_gbs) {
  const double s = v->ms[k] * 1e-3;
  const double nominal = 2.0 * n * n * sizeof(cf32) * (double)v->matrices;
  const char *runs_as =
      v->variant_used[k] >= 0 ? gpu_invert_variant_name((gpu_invert_variant)v->variant_used[k]) : "?";
  return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "runs_as", runs_as, "ms",
                   sim_json_real(v->ms[k]), "ginv_s", sim_json_real(v->ginv_s[k]), "bytes_moved",
                   sim_json_real(v->bytes_moved[k]), "gbs_moved", sim_json_real(v->bytes_moved[k] / s / 1e9),
                   "pct_copy_moved", sim_json_real(100.0 * v->bytes_moved[k] / s / 1e9 / copy_gbs),
                   "gbs_nominal_2n2x8", sim_json_real(nominal / s / 1e9), "pct_copy_nominal",
                   sim_json_real(100.0 * nominal / s / 1e9 / copy_gbs));
}

static json_t *gpu_invert_json(const bench_results *R) {
  const gpu_part *g = &R->gpu;
  json_t *a = json_array();
  for (int i = 0; i < R->o->n_sizes; i++) {
    const gpu_invert_figures *v = &g->inv[i];
    const double auto_rate = v->ginv_s[GPU_INV_AUTO];
    json_t *variants = json_object();
    for (int k = 0; k < GPU_BENCH_VARIANTS; k++)
      json_object_set_new(variants, gpu_invert_variant_name((gpu_invert_variant)k),
                          gpu_variant_json(v, k, R->o->sizes[i], g->copy_gbs));
    json_array_append_new(
        a, json_pack("{s:i, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o}", "n",
                     R->o->sizes[i], "matrices", jcount(v->matrices), "ok", g->inv_ok[i],
                     "variants", variants, "cublas_matinv_ginv_s", sim_json_real(v->cublas_matinv_ginv_s),
                     "cublas_getrf_getri_ginv_s", sim_json_real(v->cublas_getrf_getri_ginv_s),
                     "x_cublas_matinv", sim_json_real(auto_rate / v->cublas_matinv_ginv_s),
                     "x_cublas_getrf_getri", sim_json_real(auto_rate / v->cublas_getrf_getri_ginv_s),
                     "x_cpu", sim_json_real(auto_rate * 1e3 / R->cpu[i].minv_s), "cublas_singular",
                     v->cublas_singular, "max_rel_diff_vs_cublas",
                     sim_json_real(v->max_rel_diff_vs_cublas)));
  }
  return a;
}

static json_t *gpu_philox_json(const gpu_part *g) {
  json_t *a = json_array();
  for (int k = 0; k < BENCH_PHILOX_LINKS; k++) {
    const int tx = bench_philox_links[k][0], rx = bench_philox_links[k][1];
    for (int v = 0; v < GPU_FLOOR_KINDS; v++)
      for (int lab = 0; lab < 2; lab++)
        json_array_append_new(
            a, json_pack("{s:i, s:i, s:s, s:b, s:i, s:i, s:o, s:b, s:o, s:o}", "tx", tx, "rx", rx,
                         "conversion", bench_floor_names[v], "labels", lab, "normals_per_re",
                         tx * rx + rx, "label_draws_per_re", lab ? (tx + 3) / 4 : 0, "res",
                         jcount(g->philox_res), "ok", g->philox_ok[k][v][lab], "ms",
                         sim_json_real(g->philox_ms[k][v][lab]), "gres_s", sim_json_real(g->philox_gres[k][v][lab])));
  }
  return a;
}

static json_t *gpu_json(const bench_results *R) {
  const gpu_part *g = &R->gpu;
  json_t *o = json_pack("{s:b, s:o}", "present", g->present, "why", sim_json_string(g->why));
  if (!g->present) return o;
  json_object_set_new(o, "device", gpu_device_json(&g->info));
  json_object_set_new(o, "copy",
                      json_pack("{s:o, s:b, s:o, s:o}", "bytes", jcount(g->copy_bytes), "ok",
                                g->copy_ok, "ms", sim_json_real(g->copy_ms), "gbs_read_plus_write",
                                sim_json_real(g->copy_gbs)));
  json_object_set_new(o, "invert", gpu_invert_json(R));
  json_object_set_new(o, "philox_floor", gpu_philox_json(g));
  return o;
}
#else
static json_t *gpu_json(const bench_results *R) {
  (void)R;
  return json_pack("{s:b, s:s}", "present", 0, "why", "this build has no CUDA");
}
#endif

static json_t *bench_json(const bench_results *R) {
  json_t *pipeline = json_array();
  for (int i = 0; i < R->n_pipe; i++) json_array_append_new(pipeline, pipeline_json(&R->pipe[i]));
  json_t *doc = json_doc_new("bench", R->command, NULL);
  json_t *own = json_pack("{s:i, s:i, s:o, s:b, s:o, s:o, s:o}", "cpu_threads", omp_get_max_threads(), "reps",
                          R->o->reps, "seed", jcount(R->o->seed), "small", R->o->small, "cpu_invert", cpu_json(R),
                          "gpu", gpu_json(R), "pipeline", pipeline);
  if (!doc || !own || json_object_update(doc, own)) {
    json_decref(doc);
    doc = NULL;
  }
  json_decref(own);
  return doc;
}

int bench_write_json(const bench_results *R, const char *path) {
  json_t *root = bench_json(R);
  if (!root) {
    fprintf(stderr, "ofdmsim bench: cannot build the JSON of %s (out of memory)\n", path);
    return -1;
  }
  const int bad = json_doc_write(path, root);
  json_decref(root);
  if (bad) {
    fprintf(stderr, "ofdmsim bench: writing %s failed: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}
