/* The tables `ofdmsim bench` prints: devices, inversion rates per size next
 * to their floors, and the pipeline per stage. Scripts read these columns;
 * a figure not measured prints as "-". */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "app/bench_internal.h"

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
  if (R->gpu.present)
    printf("generator floor (Philox + Box-Muller, channel + noise normals of one RE): "
           "2x2 %s G REs/s, 4x4 %s G REs/s\n",
           fmt(b[0], 32, "%.1f", R->gpu.philox_gres[0]), fmt(b[1], 32, "%.1f", R->gpu.philox_gres[1]));
#endif
}

static void print_pipeline(const bench_results *R) {
  printf("\npipeline, MMSE, i.i.d. Rayleigh, frequency domain, Eb/N0 10 dB: simulated Gbit/s\n");
  printf("%-10s %-7s %-6s %7s %7s %7s %7s %7s %7s %7s %7s\n", "link", "backend", "mode", "draw",
         "channel", "gram", "invert", "equal.", "demap", "stages", "wall");
  for (int i = 0; i < R->n_pipe; i++) {
    const pipeline_fig *p = &R->pipe[i];
    printf("%-10s %-7s %-6s", p->label, p->backend, pipeline_mode(p));
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

void bench_print_tables(const bench_results *R) {
  print_devices(R);
  print_inversion(R);
  if (R->n_pipe) print_pipeline(R);
  printf("\nall figures: %s\n", R->o->json_path);
}
