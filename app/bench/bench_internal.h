/* What the parts of `ofdmsim bench` share: its options, the figures each
 * measurement fills in, and the functions that measure and report them.
 *
 *   bench_options.c   the command line
 *   bench_main.c      the order of the measurements
 *   bench_cpu.c       CPU inversion (eq_invert over OpenMP chunks)
 *   bench_progress.c  the progress lines on stderr
 *   bench_cuda.c      GPU figures, through cuda/bench/bench_gpu.h (CUDA builds only)
 *   bench_pipeline.c  whole batches of the link through the backends
 *   bench_table.c     the tables on stdout
 *   bench_json.c      every figure in a JSON file */
#ifndef OFDMSIM_APP_BENCH_INTERNAL_H
#define OFDMSIM_APP_BENCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"
#ifdef OFDMSIM_HAVE_CUDA
#include "cuda/bench/bench_gpu.h"
#endif

#define BENCH_MAX_SIZES 8
#define BENCH_MAX_PIPELINES 16
/* Fewest matrices per stack: below this, start-up costs show in the rates. */
#define BENCH_MIN_MATRICES ((size_t)1 << 22)
/* An inverse that misses G*Ginv = I (CPU) or cuBLAS (GPU) by more than this
 * is broken, not slow: the bench matrices have cond < ~100. */
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

typedef struct pipeline_fig {
  const char *label;
  int tx, rx, bps;
  int tdl;  /* 0: i.i.d. Rayleigh per RE; TDL-A at 100 ns with 1: continuous
               delays, 2: delays rounded to the sample grid */
  int time; /* tdl in the time domain (IFFT, convolution, FFT) */
  int direct; /* time domain: sample-by-sample convolution even where the
                 GPU's CP-aligned transform applies (backend_options) */
  const char *td_path; /* what the backend said it did (backend.td_path) */
  const char *backend;
  int staged;
  int available; /* 0: backend could not be created (why) */
  int ok;        /* 0: a batch failed (why) */
  char why[512];
  uint64_t frames_per_batch, batches, bits, bit_errors, inversions;
  stage_times t; /* summed over the timed batches */
  double wall_s;
} pipeline_fig;

#ifdef OFDMSIM_HAVE_CUDA
/* Links whose random-number floor is measured: {tx, rx}. */
#define BENCH_PHILOX_LINKS 2
extern const int bench_philox_links[BENCH_PHILOX_LINKS][2];
extern const char *const bench_floor_names[GPU_FLOOR_KINDS];

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
  /* [link][gpu_floor_kind][with the label words] */
  double philox_gres[BENCH_PHILOX_LINKS][GPU_FLOOR_KINDS][2];
  double philox_ms[BENCH_PHILOX_LINKS][GPU_FLOOR_KINDS][2];
  int philox_ok[BENCH_PHILOX_LINKS][GPU_FLOOR_KINDS][2];
} gpu_part;
/* The fastest floor of link k with the label words (what the fused path
 * draws), and its kind in *kind; NAN when none was measured. */
double bench_fastest_floor(const gpu_part *g, int k, int *kind);
#endif

typedef struct bench_results {
  const bench_opts *o;
  const char *command;
  cpu_invert_fig cpu[BENCH_MAX_SIZES];
  pipeline_fig pipe[BENCH_MAX_PIPELINES];
  int n_pipe;
#ifdef OFDMSIM_HAVE_CUDA
  gpu_part gpu;
#endif
} bench_results;

/* bench_options.c: 0 to run, BENCH_HELP for --help, 2 with a message in err. */
#define BENCH_HELP 1
int bench_parse(int argc, char **argv, bench_opts *o, char *err, size_t errlen);
void bench_print_usage(void);

/* bench_main.c: one line per step on stderr. */
void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* bench_cpu.c: every size of o into R->cpu; the number of failures. */
int bench_cpu(const bench_opts *o, bench_results *R);

#ifdef OFDMSIM_HAVE_CUDA
/* bench_cuda.c: the device, copy floor, inversions and Philox floor into g;
 * the number of failures, each told on stderr. */
int bench_gpu(const bench_opts *o, gpu_part *g);
#endif

/* bench_pipeline.c: both links on the CPU, and on the GPU (staged and fused)
 * when gpu_present; the number of failed configurations. */
int bench_pipelines(const bench_opts *o, int gpu_present, bench_results *R);
/* "staged" / "fused" on a GPU, "-" on the CPU. */
const char *pipeline_mode(const pipeline_fig *p);
/* The columns of a pipeline figure: each stage, the stages together, the wall
 * time. Seconds into out[], and their names. */
#define PIPELINE_COLUMNS 8
extern const char *const pipeline_columns[PIPELINE_COLUMNS];
void pipeline_seconds(const pipeline_fig *p, double out[PIPELINE_COLUMNS]);
/* Simulated Gbit/s over `seconds` (NAN when nothing was timed). */
double pipeline_gbits(const pipeline_fig *p, double seconds);

/* bench_table.c, bench_json.c */
void bench_print_tables(const bench_results *R);
int bench_write_json(const bench_results *R, const char *path);

#endif
