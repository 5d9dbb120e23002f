/* `ofdmsim compare A.csv B.csv`: do two result files agree, point by point?
 * The statistics are results/results_compare.h's; this is the command line and
 * the table. */
#ifndef OFDMSIM_APP_COMPARE_H
#define OFDMSIM_APP_COMPARE_H

/* argv[0] is the command's name ("compare"), then the two CSVs and options
 * (ofdmsim compare --help). Returns the exit code: 0 every compared point
 * agrees, 1 one differs (or, with --require-all, a point is in one file
 * only), 2 usage error or bad input. */
int compare_main(int argc, char **argv);

#endif
