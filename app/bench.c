/* `ofdmsim bench`: what this machine does per second, next to its floors.
 *
 * Inversion: stacks of random Hermitian positive-definite matrices (never
 * zeros) in the SoA layout, inverted by the GPU kernels (cuda/invert.cu) and
 * by the CPU's eq_invert over OpenMP chunks. A GPU kernel's time is read
 * against the device-to-device copy bandwidth measured in the same run (its
 * bytes moved over the copy rate is its floor) and against cuBLAS on the same
 * matrices. Pipeline: whole batches of the link through backend_create,
 * per stage and in total, next to the Philox-only rate of the random numbers
 * the draw stage needs. Method: working sets >= 4x the L2, warm-up, median of
 * repeated runs (cudaEvents on the GPU, the monotonic clock on the CPU).
 *
 * Output: a short table on stdout, every figure in a JSON file. */
#include "app/bench.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/rng.h"
#include "equalizer/equalizer.h"
#include "equalizer/smallmat.h"
#include "core/backend.h"
#include "sim/backends.h"
#include "version.h"
#ifdef OFDMSIM_HAVE_CUDA
#include "cuda/gpu.h"
#endif

#define BENCH_MAX_SIZES 8
#define BENCH_MIN_MATRICES ((size_t)1 << 22)
/* A CPU stack larger than this adds nothing but page faults (it is far past
 * any CPU cache already). */
#define BENCH_CPU_STACK_BYTES ((size_t)1 << 29)
/* A CPU result that misses G*Ginv = I by more than this is broken, not slow
 * (the bench matrices have cond < ~100). */
#define BENCH_RESIDUAL_LIMIT 1e-3

typedef struct bench_opts {
  int sizes[BENCH_MAX_SIZES];
  int n_sizes;
  size_t matrices; /* 0: per size, enough for 4x L2 and >= 2^22 */
  int reps;
  const char *json_path;
  int cpu_only, no_pipeline, small;
  uint64_t seed;
  double pipeline_seconds; /* per pipeline configuration */
} bench_opts;

typedef struct cpu_invert_fig {
  int n;
  size_t matrices;
  double ms, minv_s;                 /* eq_invert */
  double ms_general, minv_s_general; /* eq_invert_general (Cholesky) */
  double max_residual;               /* max |G Ginv - I| over a sample, double */
  int ok;
} cpu_invert_fig;

/* What the table shows of the GPU for one size (NAN: not measured). */
typedef struct gpu_row {
  double ginv_s, pct_copy, x_matinv, x_getrf, general_ginv_s, pair_ginv_s;
} gpu_row;

typedef struct pipeline_fig {
  const char *label;
  int tx, rx, bps;
  const char *backend;
  int staged;
  int available; /* 0: backend could not be created (why) */
  int ok;        /* 0: a batch failed */
  char why[256];
  uint64_t frames_per_batch, batches, bits, bit_errors, inversions;
  stage_times t; /* summed over the timed batches */
  double wall_s;
} pipeline_fig;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One line per step on stderr, so a hang or a crash on a remote machine says
 * where it happened. */
static void progress(const char *fmt_, ...) {
  va_list ap;
  va_start(ap, fmt_);
  fputs("[bench] ", stderr);
  vfprintf(stderr, fmt_, ap);
  fputc('\n', stderr);
  va_end(ap);
  fflush(stderr);
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median_of(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return (n & 1) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- options ------------------------------------------------------------ */

static void print_usage(FILE *f) {
  fprintf(f,
          "usage: ofdmsim bench [options]\n"
          "  --sizes LIST      matrix orders to invert, 1..8 (default 2,3,4,8)\n"
          "  --matrices N      matrices per stack (default: 4x the GPU's L2 and at least\n"
          "                    1 GiB moved, at least 2^22; CPU stacks capped at 512 MiB)\n"
          "  --reps N          timed repetitions, median reported (default 10)\n"
          "  --json PATH       write every figure there (default bench.json)\n"
          "  --seed N          seed of the random matrices (default 1)\n"
          "  --pipeline-seconds S  time per pipeline configuration (default 2)\n"
          "  --cpu-only        no GPU figures\n"
          "  --no-pipeline     inversion figures only\n"
          "  --small           tiny sizes (sanitizer runs, smoke tests)\n");
}

static int parse_size_t(const char *s, size_t *out) {
  char *end = NULL;
  errno = 0;
  const double v = strtod(s, &end); /* takes 4194304 and 4.2e6 alike */
  if (errno || end == s || *end || !(v >= 1) || v > 1e15 || v != floor(v)) return -1;
  *out = (size_t)v;
  return 0;
}

static int parse_sizes(const char *s, bench_opts *o) {
  o->n_sizes = 0;
  const char *p = s;
  while (*p) {
    char *end = NULL;
    const long n = strtol(p, &end, 10);
    if (end == p || n < 1 || n > MAT_MAX_N || o->n_sizes == BENCH_MAX_SIZES) return -1;
    o->sizes[o->n_sizes++] = (int)n;
    if (*end == ',') end++;
    else if (*end) return -1;
    p = end;
  }
  return o->n_sizes ? 0 : -1;
}

static int parse_opts(int argc, char **argv, bench_opts *o) {
  memset(o, 0, sizeof *o);
  o->sizes[0] = 2, o->sizes[1] = 3, o->sizes[2] = 4, o->sizes[3] = 8;
  o->n_sizes = 4;
  o->reps = 10;
  o->json_path = "bench.json";
  o->seed = 1;
  o->pipeline_seconds = 2.0;
  int reps_given = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
    size_t z = 0;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      print_usage(stdout);
      return 1;
    } else if (!strcmp(a, "--cpu-only")) {
      o->cpu_only = 1;
    } else if (!strcmp(a, "--no-pipeline")) {
      o->no_pipeline = 1;
    } else if (!strcmp(a, "--small")) {
      o->small = 1;
    } else if (!v) {
      fprintf(stderr, "ofdmsim bench: error: unknown option or missing value: %s\n", a);
      return -1;
    } else if (!strcmp(a, "--sizes")) {
      if (parse_sizes(v, o)) {
        fprintf(stderr, "ofdmsim bench: error: --sizes %s: want a list of orders 1..%d, e.g. 2,4\n",
                v, MAT_MAX_N);
        return -1;
      }
      i++;
    } else if (!strcmp(a, "--matrices")) {
      if (parse_size_t(v, &o->matrices) || o->matrices < 2) {
        fprintf(stderr, "ofdmsim bench: error: --matrices %s: want an integer >= 2\n", v);
        return -1;
      }
      i++;
    } else if (!strcmp(a, "--reps")) {
      if (parse_size_t(v, &z) || z > 100000) {
        fprintf(stderr, "ofdmsim bench: error: --reps %s: want an integer 1..100000\n", v);
        return -1;
      }
      o->reps = (int)z;
      reps_given = 1;
      i++;
    } else if (!strcmp(a, "--json")) {
      o->json_path = v;
      i++;
    } else if (!strcmp(a, "--seed")) {
      if (parse_size_t(v, &z)) {
        fprintf(stderr, "ofdmsim bench: error: --seed %s: want a positive integer\n", v);
        return -1;
      }
      o->seed = (uint64_t)z;
      i++;
    } else if (!strcmp(a, "--pipeline-seconds")) {
      char *end = NULL;
      o->pipeline_seconds = strtod(v, &end);
      if (end == v || *end || !(o->pipeline_seconds > 0) || o->pipeline_seconds > 3600) {
        fprintf(stderr, "ofdmsim bench: error: --pipeline-seconds %s: want 0 < S <= 3600\n", v);
        return -1;
      }
      i++;
    } else {
      fprintf(stderr, "ofdmsim bench: error: unknown option %s\n", a);
      return -1;
    }
  }
  if (o->small) {
    if (!reps_given) o->reps = 3;
    if (!o->matrices) o->matrices = 4096;
    o->pipeline_seconds = 0.0; /* one timed batch */
  }
  return 0;
}

/* ---- CPU inversion --------------------------------------------------------- */

/* G = B^H B / n + 0.05 I, B with CN(0,1) entries: the matrices of the GPU
 * bench (same formula, other draws). */
static void make_hpd_cpu(int n, cf32 *g, size_t M, uint64_t seed) {
  const float scale = 1.0f / sqrtf((float)n);
#pragma omp parallel for schedule(static)
  for (size_t m = 0; m < M; m++) {
    cf32 b[MAT_MAX_N * MAT_MAX_N], gm[MAT_MAX_N * MAT_MAX_N];
    for (int p = 0; 2 * p < n * n; p++) {
      const rng_words w = rng_draw(seed, 0, 0, 0, (uint64_t)m * 32 + (uint64_t)p);
      b[2 * p] = cf_scale(rng_cnormal_of(w, 0), scale);
      if (2 * p + 1 < n * n) b[2 * p + 1] = cf_scale(rng_cnormal_of(w, 1), scale);
    }
    mat_gram(n, n, b, 0.05f, gm);
    for (int e = 0; e < n * n; e++) g[(size_t)e * M + m] = gm[e];
  }
}

/* One pass over the stack, each OpenMP thread inverting its own contiguous
 * chunk (the chunks generation touched first, so pages are local). */
static double cpu_invert_pass(int n, const cf32 *g, cf32 *gi, size_t M, int general) {
  const double t0 = now_s();
#pragma omp parallel
  {
    const size_t T = (size_t)omp_get_num_threads(), id = (size_t)omp_get_thread_num();
    const size_t lo = M * id / T, hi = M * (id + 1) / T;
    if (hi > lo) {
      if (general) eq_invert_general(n, g + lo, M, gi + lo, M, hi - lo);
      else eq_invert(n, g + lo, M, gi + lo, M, hi - lo);
    }
  }
  return now_s() - t0;
}

static double max_residual(int n, const cf32 *g, const cf32 *gi, size_t M, size_t sample) {
  double worst = 0.0;
  for (size_t m = 0; m < sample && m < M; m++)
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) {
        double re = (r == c) ? -1.0 : 0.0, im = 0.0;
        for (int k = 0; k < n; k++) {
          const cf32 a = g[(size_t)(r * n + k) * M + m], x = gi[(size_t)(k * n + c) * M + m];
          re += (double)a.re * x.re - (double)a.im * x.im;
          im += (double)a.re * x.im + (double)a.im * x.re;
        }
        const double d = sqrt(re * re + im * im);
        worst = (d > worst || isnan(d)) ? (isnan(d) ? INFINITY : d) : worst;
      }
  return worst;
}

static int bench_cpu_invert(int n, size_t M, int reps, uint64_t seed, cpu_invert_fig *f) {
  memset(f, 0, sizeof *f);
  f->n = n;
  f->matrices = M;
  f->ms = f->minv_s = f->ms_general = f->minv_s_general = f->max_residual = NAN;
  const size_t elems = (size_t)n * n * M;
  cf32 *g = malloc(elems * sizeof *g), *gi = malloc(elems * sizeof *gi);
  double *t = malloc((size_t)reps * sizeof *t);
  if (!g || !gi || !t) {
    fprintf(stderr, "ofdmsim bench: cannot allocate 2 x %.2f GB for the %dx%d CPU stacks\n",
            elems * sizeof *g / 1e9, n, n);
    free(g), free(gi), free(t);
    return -1;
  }
  make_hpd_cpu(n, g, M, seed);
  for (int general = 0; general <= 1; general++) {
    cpu_invert_pass(n, g, gi, M, general); /* warm-up: page faults, thread start */
    for (int r = 0; r < reps; r++) t[r] = cpu_invert_pass(n, g, gi, M, general);
    const double s = median_of(t, reps);
    if (general) {
      f->ms_general = 1e3 * s;
      f->minv_s_general = M / s / 1e6;
    } else {
      f->ms = 1e3 * s;
      f->minv_s = M / s / 1e6;
    }
  }
  /* The last pass was the general one; check the fast path's output. */
  cpu_invert_pass(n, g, gi, M, 0);
  f->max_residual = max_residual(n, g, gi, M, 4096);
  f->ok = f->max_residual <= BENCH_RESIDUAL_LIMIT;
  if (!f->ok)
    fprintf(stderr, "ofdmsim bench: CPU %dx%d inverse wrong: max |G Ginv - I| = %.3g > %.0e\n", n,
            n, f->max_residual, BENCH_RESIDUAL_LIMIT);
  free(g), free(gi), free(t);
  return f->ok ? 0 : -1;
}

/* ---- pipeline --------------------------------------------------------------- */

static void pipeline_params(int tx, int rx, int bps, int small, link_params *p) {
  memset(p, 0, sizeof *p);
  p->tx = tx;
  p->rx = rx;
  p->bps = bps;
  p->equalizer = EQ_MMSE;
  p->model = CH_RAYLEIGH;
  p->domain = DOMAIN_FREQUENCY;
  p->subcarriers = small ? 64 : 1024;
  p->symbols = small ? 2 : 14;
  p->cp_length = p->subcarriers / 14;
  p->snr_kind = SNR_EBNO;
  p->snr_db = 10.0;
  p->n0 = link_noise_variance(p->snr_kind, p->snr_db, tx, bps);
  p->seed = 1;
  p->point_id = 0;
}

/* Runs batches until `seconds` have passed (one timed batch at least), after
 * one warm-up batch. */
static void bench_pipeline(pipeline_fig *f, int small, double seconds) {
  progress("pipeline %s on %s%s", f->label, f->backend,
           strcmp(f->backend, "cpu") ? (f->staged ? " (staged)" : " (fused)") : "");
  link_params p;
  pipeline_params(f->tx, f->rx, f->bps, small, &p);
  backend_options o;
  memset(&o, 0, sizeof o);
  o.cuda.staged = f->staged;
  /* Batches of ~2^26 REs on a GPU (the backend may choose fewer); ~2^20 on a
   * CPU, so one batch stays well under a second. */
  const uint64_t res_per_frame = link_res_per_frame(&p);
  const uint64_t target_res = small ? 4 * res_per_frame
                                    : (strcmp(f->backend, "cpu") ? (1u << 26) : (1u << 20));
  o.max_batch_frames = target_res / res_per_frame ? target_res / res_per_frame : 1;
  char err[512] = "";
  backend *b = backends_create(f->backend, &p, &o, err, sizeof err);
  if (!b) {
    snprintf(f->why, sizeof f->why, "%s", err[0] ? err : "backend_create returned NULL");
    f->available = 0;
    return;
  }
  f->available = 1;
  uint64_t frames = b->ops->max_frames(b);
  if (frames > o.max_batch_frames) frames = o.max_batch_frames;
  if (frames == 0) frames = 1;
  f->frames_per_batch = frames;
  uint32_t *errors = malloc(sizeof(uint32_t) * frames * (size_t)p.tx);
  if (!errors) {
    snprintf(f->why, sizeof f->why, "out of host memory for the error counts");
    backend_destroy(b);
    return;
  }
  batch_result r;
  memset(&r, 0, sizeof r);
  r.errors = errors;
  uint64_t first = 0;
  f->ok = 1;
  if (backend_run(b, first, frames, &r)) { /* warm-up */
    snprintf(f->why, sizeof f->why, "warm-up batch failed");
    f->ok = 0;
  }
  first += frames;
  const double t0 = now_s();
  while (f->ok) {
    if (backend_run(b, first, frames, &r)) {
      snprintf(f->why, sizeof f->why, "batch %llu failed", (unsigned long long)f->batches);
      f->ok = 0;
      break;
    }
    first += frames;
    f->batches++;
    f->bits += frames * link_bits_per_frame(&p);
    f->inversions += r.inversions;
    for (size_t i = 0; i < frames * (size_t)p.tx; i++) f->bit_errors += errors[i];
    f->t.draw += r.t.draw;
    f->t.channel += r.t.channel;
    f->t.gram += r.t.gram;
    f->t.invert += r.t.invert;
    f->t.equalize += r.t.equalize;
    f->t.demap += r.t.demap;
    if (now_s() - t0 >= seconds) break;
  }
  f->wall_s = now_s() - t0;
  free(errors);
  backend_destroy(b);
}

static double stage_sum(const stage_times *t) {
  return t->draw + t->channel + t->gram + t->invert + t->equalize + t->demap;
}

/* Simulated Gbit/s of one stage (bits over that stage's time alone). */
static double gbits(uint64_t bits, double seconds) {
  return seconds > 0 ? (double)bits / seconds / 1e9 : NAN;
}

/* ---- GPU ------------------------------------------------------------------- */

#ifdef OFDMSIM_HAVE_CUDA
typedef struct gpu_part {
  int present;
  char why[512];
  gpu_info info;
  size_t copy_bytes;
  double copy_gbs, copy_ms;
  int copy_ok;
  gpu_invert_figures inv[BENCH_MAX_SIZES];
  int inv_ok[BENCH_MAX_SIZES];
  size_t philox_res;
  double philox_gres[2], philox_ms[2];
  int philox_ok[2];
} gpu_part;

static const int k_philox_links[2][2] = {{2, 2}, {4, 4}}; /* tx, rx */

/* Matrices per stack: the bytes one inversion moves, 4x the L2 and 1 GiB at
 * least, so the kernels run in the regime the copy floor is measured in (a
 * 250 MB stack is over in ~70 us, where launch ramp-up costs several %). */
static size_t gpu_default_matrices(int n, size_t l2) {
  const size_t per = ((size_t)n * (n + 1) / 2 + (size_t)n * n) * sizeof(cf32);
  size_t bytes = 4 * l2;
  if (bytes < ((size_t)1 << 30)) bytes = (size_t)1 << 30;
  size_t need = (bytes + per - 1) / per;
  if (need < BENCH_MIN_MATRICES) need = BENCH_MIN_MATRICES;
  /* A multiple of 256 matrices starts every element array of the stack on a
   * 2 KiB boundary, as the simulator's batches (whole frames) do; an odd M
   * misaligns all but the first and costs extra memory sectors per warp. */
  return (need + 255) / 256 * 256;
}

static int bench_gpu(const bench_opts *o, gpu_part *g) {
  int failures = 0;
  g->copy_gbs = g->copy_ms = NAN;
  g->philox_gres[0] = g->philox_gres[1] = g->philox_ms[0] = g->philox_ms[1] = NAN;
  if (gpu_query(0, &g->info, g->why, sizeof g->why)) {
    fprintf(stderr, "ofdmsim bench: %s\n", g->why);
    return 1;
  }
  g->copy_bytes = o->small ? ((size_t)16 << 20) : 4 * g->info.l2_bytes;
  if (g->copy_bytes < ((size_t)1 << 30) && !o->small) g->copy_bytes = (size_t)1 << 30;
  progress("GPU %s: copy bandwidth, %.2f GB", g->info.name, g->copy_bytes / 1e9);
  g->copy_ok = gpu_bench_copy(g->copy_bytes, o->reps, &g->copy_gbs, &g->copy_ms) == 0;
  if (!g->copy_ok) failures++;
  for (int i = 0; i < o->n_sizes; i++) {
    const int n = o->sizes[i];
    const size_t M = o->matrices ? o->matrices : gpu_default_matrices(n, g->info.l2_bytes);
    progress("GPU %dx%d inversion: %zu matrices, our variants and cuBLAS", n, n, M);
    g->inv_ok[i] = gpu_bench_invert(n, M, o->reps, o->seed, &g->inv[i]) == 0;
    if (!g->inv_ok[i]) {
      fprintf(stderr, "ofdmsim bench: GPU %dx%d inversion bench failed: %s\n", n, n,
              gpu_last_error());
      failures++;
    } else if (!(g->inv[i].max_rel_diff_vs_cublas <= BENCH_RESIDUAL_LIMIT)) {
      fprintf(stderr, "ofdmsim bench: GPU %dx%d inverse disagrees with cuBLAS: %.3g\n", n, n,
              g->inv[i].max_rel_diff_vs_cublas);
      g->inv_ok[i] = 0;
      failures++;
    }
  }
  g->philox_res = o->small ? ((size_t)1 << 14) : ((size_t)1 << 26);
  for (int k = 0; k < 2; k++) {
    progress("GPU Philox floor %dx%d: %zu REs", k_philox_links[k][0], k_philox_links[k][1],
             g->philox_res);
    g->philox_ok[k] = gpu_bench_philox(k_philox_links[k][0], k_philox_links[k][1], g->philox_res,
                                       o->reps, &g->philox_gres[k], &g->philox_ms[k]) == 0;
    if (!g->philox_ok[k]) failures++;
  }
  return failures;
}

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

/* ---- output ------------------------------------------------------------------ */

static const char *fmt(char *buf, size_t len, const char *f, double v) {
  if (isnan(v) || isinf(v)) snprintf(buf, len, "-");
  else snprintf(buf, len, f, v);
  return buf;
}

/* JSON numbers: NaN and infinities become null. */
static void jnum(FILE *f, const char *key, double v, int last) {
  if (isnan(v) || isinf(v)) fprintf(f, "\"%s\": null%s", key, last ? "" : ", ");
  else fprintf(f, "\"%s\": %.6g%s", key, v, last ? "" : ", ");
}

static void jstr(FILE *f, const char *key, const char *s, int last) {
  fprintf(f, "\"%s\": \"", key);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", (unsigned char)*s);
    else fputc(*s, f);
  }
  fprintf(f, "\"%s", last ? "" : ", ");
}

static void write_pipeline_json(FILE *f, const pipeline_fig *p, int last) {
  fprintf(f, "    {");
  jstr(f, "link", p->label, 0);
  fprintf(f, "\"tx\": %d, \"rx\": %d, \"bits_per_symbol\": %d, ", p->tx, p->rx, p->bps);
  jstr(f, "backend", p->backend, 0);
  jstr(f, "mode", strcmp(p->backend, "cpu") ? (p->staged ? "staged" : "fused") : "-", 0);
  fprintf(f, "\"available\": %s, \"ok\": %s, ", p->available ? "true" : "false",
          p->ok ? "true" : "false");
  jstr(f, "why", p->why, 0);
  fprintf(f, "\"frames_per_batch\": %llu, \"batches\": %llu, \"bits\": %llu, \"bit_errors\": %llu, "
             "\"inversions\": %llu, ",
          (unsigned long long)p->frames_per_batch, (unsigned long long)p->batches,
          (unsigned long long)p->bits, (unsigned long long)p->bit_errors,
          (unsigned long long)p->inversions);
  fprintf(f, "\"seconds\": {");
  jnum(f, "draw", p->t.draw, 0);
  jnum(f, "channel", p->t.channel, 0);
  jnum(f, "gram", p->t.gram, 0);
  jnum(f, "invert", p->t.invert, 0);
  jnum(f, "equalize", p->t.equalize, 0);
  jnum(f, "demap", p->t.demap, 0);
  jnum(f, "stages", stage_sum(&p->t), 0);
  jnum(f, "wall", p->wall_s, 1);
  fprintf(f, "}, \"gbit_s\": {");
  jnum(f, "draw", gbits(p->bits, p->t.draw), 0);
  jnum(f, "channel", gbits(p->bits, p->t.channel), 0);
  jnum(f, "gram", gbits(p->bits, p->t.gram), 0);
  jnum(f, "invert", gbits(p->bits, p->t.invert), 0);
  jnum(f, "equalize", gbits(p->bits, p->t.equalize), 0);
  jnum(f, "demap", gbits(p->bits, p->t.demap), 0);
  jnum(f, "stages", gbits(p->bits, stage_sum(&p->t)), 0);
  jnum(f, "wall", gbits(p->bits, p->wall_s), 1);
  fprintf(f, "}, ");
  jnum(f, "ber", p->bits ? (double)p->bit_errors / (double)p->bits : NAN, 1);
  fprintf(f, "}%s\n", last ? "" : ",");
}

typedef struct bench_results {
  const bench_opts *o;
  const char *command;
  cpu_invert_fig cpu[BENCH_MAX_SIZES];
  pipeline_fig pipe[8];
  int n_pipe;
#ifdef OFDMSIM_HAVE_CUDA
  gpu_part gpu;
#endif
} bench_results;

static int write_json(const bench_results *R, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "ofdmsim bench: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  char date[64], host[256] = "";
  const time_t now = time(NULL);
  struct tm tmv;
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tmv));
  gethostname(host, sizeof host - 1);
  fprintf(f, "{\n  ");
  jstr(f, "version", OFDMSIM_VERSION, 0);
  jstr(f, "date", date, 0);
  jstr(f, "host", host, 0);
  fprintf(f, "\n  ");
  jstr(f, "command", R->command, 0);
  fprintf(f, "\"cpu_threads\": %d, \"reps\": %d, \"seed\": %llu, \"small\": %s,\n",
          omp_get_max_threads(), R->o->reps, (unsigned long long)R->o->seed,
          R->o->small ? "true" : "false");
  fprintf(f, "  \"cpu_invert\": [\n");
  for (int i = 0; i < R->o->n_sizes; i++) {
    const cpu_invert_fig *c = &R->cpu[i];
    fprintf(f, "    {\"n\": %d, \"matrices\": %zu, \"ok\": %s, ", c->n, c->matrices,
            c->ok ? "true" : "false");
    jnum(f, "ms", c->ms, 0);
    jnum(f, "minv_s", c->minv_s, 0);
    jnum(f, "general_ms", c->ms_general, 0);
    jnum(f, "general_minv_s", c->minv_s_general, 0);
    jnum(f, "max_residual", c->max_residual, 1);
    fprintf(f, "}%s\n", i + 1 < R->o->n_sizes ? "," : "");
  }
  fprintf(f, "  ],\n");
#ifdef OFDMSIM_HAVE_CUDA
  const gpu_part *g = &R->gpu;
  fprintf(f, "  \"gpu\": {\"present\": %s, ", g->present ? "true" : "false");
  jstr(f, "why", g->why, !g->present);
  if (g->present) {
    fprintf(f, "\n    \"device\": {");
    jstr(f, "name", g->info.name, 0);
    fprintf(f, "\"cc\": \"%d.%d\", \"sm_count\": %d, \"l2_bytes\": %zu, \"memory_bytes\": %zu, ",
            g->info.cc_major, g->info.cc_minor, g->info.sm_count, g->info.l2_bytes,
            g->info.global_mem_bytes);
    jnum(f, "datasheet_mem_gbs", g->info.peak_mem_gbs, 0);
    fprintf(f, "\"driver\": %d, \"runtime\": %d},\n", g->info.driver_version,
            g->info.runtime_version);
    fprintf(f, "    \"copy\": {\"bytes\": %zu, \"ok\": %s, ", g->copy_bytes,
            g->copy_ok ? "true" : "false");
    jnum(f, "ms", g->copy_ms, 0);
    jnum(f, "gbs_read_plus_write", g->copy_gbs, 1);
    fprintf(f, "},\n    \"invert\": [\n");
    for (int i = 0; i < R->o->n_sizes; i++) {
      const gpu_invert_figures *v = &g->inv[i];
      const int n = R->o->sizes[i];
      fprintf(f, "      {\"n\": %d, \"matrices\": %zu, \"ok\": %s, \"variants\": {", n, v->matrices,
              g->inv_ok[i] ? "true" : "false");
      for (int k = 0; k < GPU_BENCH_VARIANTS; k++) {
        const double s = v->ms[k] * 1e-3;
        const double nominal = 2.0 * n * n * sizeof(cf32) * (double)v->matrices;
        fprintf(f, "\"%s\": {", gpu_invert_variant_name((gpu_invert_variant)k));
        jstr(f, "runs_as", v->variant_used[k] >= 0
                               ? gpu_invert_variant_name((gpu_invert_variant)v->variant_used[k])
                               : "?", 0);
        jnum(f, "ms", v->ms[k], 0);
        jnum(f, "ginv_s", v->ginv_s[k], 0);
        jnum(f, "bytes_moved", v->bytes_moved[k], 0);
        jnum(f, "gbs_moved", v->bytes_moved[k] / s / 1e9, 0);
        jnum(f, "pct_copy_moved", 100.0 * v->bytes_moved[k] / s / 1e9 / g->copy_gbs, 0);
        jnum(f, "gbs_nominal_2n2x8", nominal / s / 1e9, 0);
        jnum(f, "pct_copy_nominal", 100.0 * nominal / s / 1e9 / g->copy_gbs, 1);
        fprintf(f, "}%s", k + 1 < GPU_BENCH_VARIANTS ? ", " : "}, ");
      }
      jnum(f, "cublas_matinv_ginv_s", v->cublas_matinv_ginv_s, 0);
      jnum(f, "cublas_getrf_getri_ginv_s", v->cublas_getrf_getri_ginv_s, 0);
      jnum(f, "x_cublas_matinv", v->ginv_s[GPU_INV_AUTO] / v->cublas_matinv_ginv_s, 0);
      jnum(f, "x_cublas_getrf_getri", v->ginv_s[GPU_INV_AUTO] / v->cublas_getrf_getri_ginv_s, 0);
      jnum(f, "x_cpu", v->ginv_s[GPU_INV_AUTO] * 1e3 / R->cpu[i].minv_s, 0);
      fprintf(f, "\"cublas_singular\": %d, ", v->cublas_singular);
      jnum(f, "max_rel_diff_vs_cublas", v->max_rel_diff_vs_cublas, 1);
      fprintf(f, "}%s\n", i + 1 < R->o->n_sizes ? "," : "");
    }
    fprintf(f, "    ],\n    \"philox_floor\": [\n");
    for (int k = 0; k < 2; k++) {
      const int tx = k_philox_links[k][0], rx = k_philox_links[k][1];
      fprintf(f, "      {\"tx\": %d, \"rx\": %d, \"normals_per_re\": %d, \"res\": %zu, \"ok\": %s, ",
              tx, rx, tx * rx + rx, g->philox_res, g->philox_ok[k] ? "true" : "false");
      jnum(f, "ms", g->philox_ms[k], 0);
      jnum(f, "gres_s", g->philox_gres[k], 1);
      fprintf(f, "}%s\n", k ? "" : ",");
    }
    fprintf(f, "    ]");
  }
  fprintf(f, "},\n");
#else
  fprintf(f, "  \"gpu\": {\"present\": false, \"why\": \"this build has no CUDA\"},\n");
#endif
  fprintf(f, "  \"pipeline\": [\n");
  for (int i = 0; i < R->n_pipe; i++) write_pipeline_json(f, &R->pipe[i], i + 1 == R->n_pipe);
  fprintf(f, "  ]\n}\n");
  if (fclose(f)) {
    fprintf(stderr, "ofdmsim bench: writing %s failed: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

static void print_tables(const bench_results *R) {
  const bench_opts *o = R->o;
  char b[9][32];
#ifdef OFDMSIM_HAVE_CUDA
  const gpu_part *g = &R->gpu;
  if (g->present)
    printf("GPU %s: %d SMs, L2 %.1f MiB; device-to-device copy %s GB/s (read + write, %.2f GB)\n",
           g->info.name, g->info.sm_count, g->info.l2_bytes / 1048576.0,
           fmt(b[0], 32, "%.0f", g->copy_gbs), 2.0 * g->copy_bytes / 1e9);
  else
    printf("GPU: none (%s)\n", g->why);
#else
  printf("GPU: none (this build has no CUDA)\n");
#endif
  printf("CPU: %d OpenMP threads\n\n", omp_get_max_threads());
  printf("inversion, complex64 SoA stacks of Hermitian PD matrices (GPU: median of %d)\n", o->reps);
  printf("%-5s %9s %10s %7s %9s %9s %10s %9s %10s\n", "size", "matrices", "GPU Ginv/s",
         "%copy", "x matinv", "x getrf", "general", "pair", "CPU Minv/s");
  for (int i = 0; i < o->n_sizes; i++) {
    gpu_row row = {NAN, NAN, NAN, NAN, NAN, NAN};
    size_t M = R->cpu[i].matrices;
#ifdef OFDMSIM_HAVE_CUDA
    fill_gpu_row(g, i, &row);
    if (g->present) M = g->inv[i].matrices;
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
  if (g->present)
    printf("generator floor (Philox + Box-Muller, channel + noise normals of one RE): "
           "2x2 %s G REs/s, 4x4 %s G REs/s\n",
           fmt(b[0], 32, "%.1f", g->philox_gres[0]), fmt(b[1], 32, "%.1f", g->philox_gres[1]));
#endif
  if (R->n_pipe) {
    printf("\npipeline, MMSE, i.i.d. Rayleigh, frequency domain, Eb/N0 10 dB: simulated Gbit/s\n");
    printf("%-10s %-7s %-6s %7s %7s %7s %7s %7s %7s %7s %7s\n", "link", "backend", "mode", "draw",
           "channel", "gram", "invert", "equal.", "demap", "stages", "wall");
    for (int i = 0; i < R->n_pipe; i++) {
      const pipeline_fig *p = &R->pipe[i];
      const char *mode = strcmp(p->backend, "cpu") ? (p->staged ? "staged" : "fused") : "-";
      if (!p->available || !p->ok) {
        printf("%-10s %-7s %-6s pipeline: %s (%s)\n", p->label, p->backend, mode,
               p->available ? "failed" : "unavailable", p->why);
        continue;
      }
      printf("%-10s %-7s %-6s %7s %7s %7s %7s %7s %7s %7s %7s\n", p->label, p->backend, mode,
             fmt(b[0], 32, "%.2f", gbits(p->bits, p->t.draw)),
             fmt(b[1], 32, "%.2f", gbits(p->bits, p->t.channel)),
             fmt(b[2], 32, "%.2f", gbits(p->bits, p->t.gram)),
             fmt(b[3], 32, "%.2f", gbits(p->bits, p->t.invert)),
             fmt(b[4], 32, "%.2f", gbits(p->bits, p->t.equalize)),
             fmt(b[5], 32, "%.2f", gbits(p->bits, p->t.demap)),
             fmt(b[6], 32, "%.3f", gbits(p->bits, stage_sum(&p->t))),
             fmt(b[7], 32, "%.3f", gbits(p->bits, p->wall_s)));
    }
  }
  printf("\nall figures: %s\n", o->json_path);
}

static void join_args(int argc, char **argv, char *out, size_t n) {
  size_t used = (size_t)snprintf(out, n, "ofdmsim bench");
  for (int i = 0; i < argc && used + 1 < n; i++) {
    const int w = snprintf(out + used, n - used, " %s", argv[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

int bench_main(int argc, char **argv) {
  /* Callers pass either the options alone or "bench" first (sim/bench.h). */
  if (argc > 0 && !strcmp(argv[0], "bench")) argc--, argv++;
  bench_opts o;
  const int prc = parse_opts(argc, argv, &o);
  if (prc > 0) return 0; /* --help */
  if (prc < 0) {
    print_usage(stderr);
    return 2;
  }
  static bench_results R; /* large: keep it off the stack */
  memset(&R, 0, sizeof R);
  R.o = &o;
  char command[2048];
  join_args(argc, argv, command, sizeof command);
  R.command = command;
  int failures = 0;

#ifdef OFDMSIM_HAVE_CUDA
  gpu_part *g = &R.gpu;
  if (o.cpu_only) {
    snprintf(g->why, sizeof g->why, "--cpu-only");
  } else if (gpu_device_count(g->why, sizeof g->why) > 0) {
    g->present = 1;
    failures += bench_gpu(&o, g);
  }
#endif

  for (int i = 0; i < o.n_sizes; i++) {
    const int n = o.sizes[i];
    size_t M = o.matrices ? o.matrices : BENCH_MIN_MATRICES;
    const size_t cap = BENCH_CPU_STACK_BYTES / ((size_t)n * n * sizeof(cf32));
    if (!o.matrices && M > cap) M = cap;
    progress("CPU %dx%d inversion: %zu matrices, %d threads", n, n, M, omp_get_max_threads());
    if (bench_cpu_invert(n, M, o.reps, o.seed, &R.cpu[i])) failures++;
  }

  if (!o.no_pipeline) {
    static const struct { const char *label; int tx, rx, bps; } links[2] = {
        {"2x2 QPSK", 2, 2, 2}, {"4x4 16QAM", 4, 4, 4}};
    for (int k = 0; k < 2; k++) {
#ifdef OFDMSIM_HAVE_CUDA
      if (g->present)
        for (int staged = 1; staged >= 0; staged--) {
          pipeline_fig *p = &R.pipe[R.n_pipe++];
          p->label = links[k].label, p->tx = links[k].tx, p->rx = links[k].rx;
          p->bps = links[k].bps, p->backend = "cuda", p->staged = staged;
          bench_pipeline(p, o.small, o.pipeline_seconds);
          if (p->available && !p->ok) failures++;
        }
#endif
      pipeline_fig *p = &R.pipe[R.n_pipe++];
      p->label = links[k].label, p->tx = links[k].tx, p->rx = links[k].rx;
      p->bps = links[k].bps, p->backend = "cpu", p->staged = 0;
      bench_pipeline(p, o.small, o.pipeline_seconds);
      if (p->available && !p->ok) failures++;
    }
  }

  print_tables(&R);
  if (write_json(&R, o.json_path)) failures++;
  if (failures) fprintf(stderr, "ofdmsim bench: %d measurement(s) failed\n", failures);
  return failures ? 1 : 0;
}
