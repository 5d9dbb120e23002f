/* `ofdmsim plot`: BER against SNR from result CSVs, drawn by gnuplot. The
 * picture comes with the gnuplot script that drew it (ber.png -> ber.gp), the
 * data inline, so a user can restyle it and run gnuplot again without
 * ofdmsim. */
#ifndef OFDMSIM_APP_PLOT_H
#define OFDMSIM_APP_PLOT_H

/* argv[0] is the command's name ("plot"), then CSVs and options (ofdmsim plot
 * --help). Returns the exit code: 0 drawn, 1 gnuplot missing or failing (the
 * script is written), 2 usage or input error (nothing written). */
int plot_main(int argc, char **argv);

#endif
