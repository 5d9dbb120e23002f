/* `ofdmsim bench`: inversion and pipeline throughput on this machine, each
 * figure next to the floor it should be read against (copy bandwidth, cuBLAS,
 * the generator alone). CPU figures always; GPU figures when the build has
 * CUDA and a device is present. */
#ifndef OFDMSIM_BENCH_H
#define OFDMSIM_BENCH_H

/* argv[0] is the command's name ("bench"), the options of `ofdmsim bench
 * --help` follow. Returns the exit code: 0 success, 1 a measurement failed,
 * 2 usage error. */
int bench_main(int argc, char **argv);

#endif
