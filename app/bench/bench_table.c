/* The tables `ofdmsim bench` prints: devices, inversion rates per size next
 * to their floors, and the pipeline per stage. Scripts read these columns;
 * a figure not measured prints as "-". */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "app/bench/bench_internal.h"

/* What the table shows of the GPU for one size (NAN: not measured). */
typedef struct gpu_row {
  double ginv_s, pct_copy, x_matinv, x_getrf, general_ginv_s, pair_ginv_s;
} gpu_row;

static const char *fmt(char *buf, size_t len, const char *f, double v) {
  if (isnan(v) || isinf(v)) snprintf(buf, len, "-");
  else snprintf(buf, len, f, v);
  return buf;
}

#ifdef OFDMSIM_HAVE_CUDA
static void fill_gpu_row(const gpu_part *g, int i, gpu_row *row) {
  if (!g->present || !g->inv_ok[i]) return;
  const gpu_invert_figures *f = &g->inv[i];
  row->ginv_s = f->ginv_s[GPU_INV_AUTO];
  row->pct_copy = 100.0 * f->bytes_moved[GPU_INV_AUTO] / (f->ms[GPU_INV_AUTO] * 1e-3) / 1e9 /
                  g->copy_gbs;
  row->x_matinv = f->ginv_s[GPU_INV_AUTO] / f->cublas_matinv_ginv_s;
  row->x_getrf = f->ginv_s[GPU_INV_AUTO] / f->cublas_getrf_getri_ginv_s;
  row->general_ginv_s = f->ginv_s[GPU_INV_GENERAL];
  row->pair_ginv_s = f->ginv_s[GPU_INV_PAIR];
}
#endif

static void print_devices(const bench_results *R) {
#ifdef OFDMSIM_HAVE_CUDA
  char b[32];
  const gpu_part *g = &R->gpu;
  if (g->present)
    printf("GPU %s: %d SMs, L2 %.1f MiB; device-to-device copy %s GB/s (read + write, %.2f GB)\n",
           g->info.name, g->info.sm_count, g->info.l2_bytes / 1048576.0,
           fmt(b, sizeof b, "%.0f", g->copy_gbs), 2.0 * g->copy_bytes / 1e9);
  else
    printf("GPU: none (%s)\n", g->why);
#else
  (void)R;
  printf("GPU: none (this build has no CUDA)\n");
#endif
  printf("CPU: %d OpenMP threads\n\n", omp_get_max_threads());
}

#ifdef OFDMSIM_HAVE_CUDA
/* The generator floors: G REs/s of the channel and noise normals of one RE,
 * alone and with the label words (what the fused path draws), per conversion. */
static void print_floors(const gpu_part *g) {
  printf("\ngenerator floor, G REs/s (Philox + Box-Muller: channel + noise normals of one RE;"
         " +labels: and its label words)\n%-6s", "link");
  char b[32];
  for (int v = 0; v < GPU_FLOOR_KINDS; v++) {
    char h[40];
    snprintf(h, sizeof h, "%s", bench_floor_names[v]);
    printf(" %9s", h);
    snprintf(h, sizeof h, "+labels");
    printf(" %8s", h);
  }
  printf("\n");
  for (int k = 0; k < BENCH_PHILOX_LINKS; k++) {
    printf("%dx%-4d", bench_philox_links[k][0], bench_philox_links[k][1]);
    for (int v = 0; v < GPU_FLOOR_KINDS; v++)
      printf(" %9s %8s", fmt(b, 32, "%.2f", g->philox_gres[k][v][0]),
             fmt(b + 16, 16, "%.2f", g->philox_gres[k][v][1]));
    printf("\n");
  }
  printf("  precise: CUDA's logf/sincospif; stateful: cuRAND curand4/curand_normal4;\n"
         "  mufu: raw __logf/__sincosf; ours: rng_cnormal (the simulator's draws)\n");
}

/* Each fused GPU pipeline row against the floors of its link, same run. */
static void print_floor_ratios(const bench_results *R) {
  if (!R->gpu.present) return;
  for (int i = 0; i < R->n_pipe; i++) {
    const pipeline_fig *p = &R->pipe[i];
    if (!strcmp(p->backend, "cpu") || p->staged || !p->ok || p->wall_s <= 0) continue;
    for (int k = 0; k < BENCH_PHILOX_LINKS; k++) {
      if (bench_philox_links[k][0] != p->tx || bench_philox_links[k][1] != p->rx) continue;
      const double res_s = (double)p->bits / (double)(p->tx * p->bps) / p->wall_s / 1e9;
      int kind;
      const double best = bench_fastest_floor(&R->gpu, k, &kind);
      const double mufu = R->gpu.philox_gres[k][GPU_FLOOR_MUFU][0];
      printf("  fused %s: %.2f G REs/s = %.0f%% of the fastest floor with labels (%s, %.2f),"
             " %.0f%% of mufu without labels (%.2f)\n",
             p->label, res_s, 100.0 * res_s / best, kind >= 0 ? bench_floor_names[kind] : "-", best,
             100.0 * res_s / mufu, mufu);
    }
  }
}
#endif

static void print_inversion(const bench_results *R) {
  const bench_opts *o = R->o;
  char b[7][32];
  printf("inversion, complex64 SoA stacks of Hermitian PD matrices (GPU: median of %d)\n", o->reps);
  printf("%-5s %9s %10s %7s %9s %9s %10s %9s %10s\n", "size", "matrices", "GPU Ginv/s",
         "%copy", "x matinv", "x getrf", "general", "pair", "CPU Minv/s");
  for (int i = 0; i < o->n_sizes; i++) {
    gpu_row row = {NAN, NAN, NAN, NAN, NAN, NAN};
    size_t M = R->cpu[i].matrices;
#ifdef OFDMSIM_HAVE_CUDA
    fill_gpu_row(&R->gpu, i, &row);
    if (R->gpu.present) M = R->gpu.inv[i].matrices;
#endif
    char size[16];
    snprintf(size, sizeof size, "%dx%d", o->sizes[i], o->sizes[i]);
    printf("%-5s %9zu %10s %7s %9s %9s %10s %9s %10s\n", size, M,
           fmt(b[0], 32, "%.2f", row.ginv_s), fmt(b[1], 32, "%.1f%%", row.pct_copy),
           fmt(b[2], 32, "%.1fx", row.x_matinv), fmt(b[3], 32, "%.1fx", row.x_getrf),
           fmt(b[4], 32, "%.2f", row.general_ginv_s), fmt(b[5], 32, "%.2f", row.pair_ginv_s),
           fmt(b[6], 32, "%.1f", R->cpu[i].minv_s));
  }
  printf("  %%copy: bytes moved (upper triangle read + full matrix written) over the copy rate;\n"
         "  x matinv, x getrf: our rate over cuBLAS Cmatinv / Cgetrf+Cgetri batched;\n"
         "  general, pair: G inv/s of the Cholesky-for-all and two-per-thread variants\n");
#ifdef OFDMSIM_HAVE_CUDA
  if (R->gpu.present) print_floors(&R->gpu);
#endif
}

static void print_pipeline(const bench_results *R) {
  printf("\npipeline, MMSE, Eb/N0 10 dB, 1024 x 14 REs a frame, i.i.d. Rayleigh in the frequency domain"
         " unless named: simulated Gbit/s\n");
  printf("%-24s %-7s %-6s %7s %7s %7s %7s %7s %7s %7s %7s\n", "link", "backend", "mode", "draw",
         "channel", "gram", "invert", "equal.", "demap", "stages", "wall");
  for (int i = 0; i < R->n_pipe; i++) {
    const pipeline_fig *p = &R->pipe[i];
    printf("%-24s %-7s %-6s", p->label, p->backend, pipeline_mode(p));
    if (!p->available || !p->ok) {
      printf(" pipeline: %s (%s)\n", p->available ? "failed" : "unavailable", p->why);
      continue;
    }
    double s[PIPELINE_COLUMNS];
    pipeline_seconds(p, s);
    for (int k = 0; k < PIPELINE_COLUMNS; k++) {
      char b[32];
      /* the totals are smaller: one more digit */
      printf(" %7s", fmt(b, sizeof b, k < 6 ? "%.2f" : "%.3f", pipeline_gbits(p, s[k])));
    }
    printf("\n");
  }
}

/* The TDL link's time-domain rate over its frequency-domain rate, per backend. */
static void print_domain_ratios(const bench_results *R) {
  for (int i = 0; i < R->n_pipe; i++) {
    const pipeline_fig *t = &R->pipe[i];
    if (!t->tdl || !t->time || !t->ok || t->wall_s <= 0) continue;
    for (int j = 0; j < R->n_pipe; j++) {
      const pipeline_fig *f = &R->pipe[j];
      if (!f->tdl || f->time || !f->ok || f->wall_s <= 0 || strcmp(f->backend, t->backend) ||
          f->staged != t->staged || f->tx != t->tx || f->rx != t->rx || f->bps != t->bps || f->tdl != t->tdl)
        continue;
      const double rt = pipeline_gbits(t, t->wall_s), rf = pipeline_gbits(f, f->wall_s);
      printf("  TDL-A %dx%d, %s delays, on %s: time domain %.2f / frequency domain %.2f Gbit/s = %.0f%%%s%s%s\n",
             t->tx, t->rx, t->tdl == 2 ? "sample-grid" : "continuous", t->backend, rt, rf, 100.0 * rt / rf,
             t->td_path ? " (convolution: " : "", t->td_path ? t->td_path : "", t->td_path ? ")" : "");
    }
  }
}

void bench_print_tables(const bench_results *R) {
  print_devices(R);
  print_inversion(R);
  if (R->n_pipe) print_pipeline(R);
  if (R->n_pipe) print_domain_ratios(R);
#ifdef OFDMSIM_HAVE_CUDA
  if (R->n_pipe) print_floor_ratios(R);
#endif
  printf("\nall figures: %s\n", R->o->json_path);
}
