/* `ofdmsim merge A.csv B.csv ... -o OUT.csv`: the results of disjoint parts
 * (other points, or other frame ranges of the same points) added into one
 * file, as one run over everything would have written it. The rules are
 * results/results_merge.h's; this is the command line, the refusals about the
 * output and the JSON sidecar. */
#ifndef OFDMSIM_APP_MERGE_H
#define OFDMSIM_APP_MERGE_H

/* argv[0] is the command's name ("merge"), then the CSVs and options (ofdmsim
 * merge --help). Returns the exit code: 0 written, 1 a write failed (nothing
 * replaced), 2 usage error or bad input (nothing written). */
int merge_main(int argc, char **argv);

#endif
