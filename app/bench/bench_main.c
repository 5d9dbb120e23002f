/* `ofdmsim bench`: what this machine does per second, next to its floors.
 *
 * Each figure is read against a floor measured in the same run: a GPU
 * kernel's bytes moved against the device-to-device copy rate and its rate
 * against cuBLAS on the same matrices; the pipeline's draw stage against the
 * Philox rate alone. Working sets are >= 4x the L2, every timing is the median
 * of repeated runs after a warm-up (cudaEvents on the GPU, the monotonic clock
 * on the CPU). Output: tables on stdout, every figure in a JSON file. */
#include "app/bench/bench.h"

#include <stdio.h>
#include <string.h>

#include "app/bench/bench_internal.h"
#include "app/opts.h"

int bench_main(int argc, char **argv) {
  bench_opts o;
  char err[512];
  const int prc = bench_parse(argc, argv, &o, err, sizeof err);
  if (prc == BENCH_HELP) {
    bench_print_usage();
    return 0;
  }
  if (prc) {
    opt_print_error("ofdmsim bench", err);
    return 2;
  }
  static bench_results R; /* large: keep it off the stack */
  memset(&R, 0, sizeof R);
  R.o = &o;
  char command[2048];
  opt_join_args("ofdmsim bench", argc, argv, command, sizeof command); /* for the JSON */
  R.command = command;
  int failures = 0, gpu_present = 0;

#ifdef OFDMSIM_HAVE_CUDA
  gpu_part *g = &R.gpu;
  if (o.cpu_only) {
    snprintf(g->why, sizeof g->why, "--cpu-only");
  } else if (gpu_device_count(g->why, sizeof g->why) > 0) {
    g->present = gpu_present = 1;
    failures += bench_gpu(&o, g);
  }
#endif
  failures += bench_cpu(&o, &R);
  if (!o.no_pipeline) failures += bench_pipelines(&o, gpu_present, &R);

  bench_print_tables(&R);
  if (bench_write_json(&R, o.json_path)) failures++;
  if (failures) fprintf(stderr, "ofdmsim bench: %d measurement(s) failed\n", failures);
  return failures ? 1 : 0;
}
