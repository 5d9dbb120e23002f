/* The error messages of a run: printed on stderr as "ofdmsim: error: ..."
 * (the command line's form), and kept as the calling thread's last message
 * so that the library (api/ofdmsim.h), which must not print, hands the same
 * text to its caller; a library run turns the printing off. */
#ifndef OFDMSIM_SIM_MESSAGES_H
#define OFDMSIM_SIM_MESSAGES_H

/* Keeps the message and, unless this thread silenced them, prints
 * "ofdmsim: error: MESSAGE" on stderr, on a line of its own when
 * `new_line` (after a live progress line). */
void sim_error(int new_line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Keeps text as the last message without printing it (the library's own
 * errors, which its caller prints or raises). */
void sim_error_keep(const char *text);
/* The last message sim_error kept on this thread ("" when none). */
const char *sim_last_error(void);
/* Forgets the last message; silent != 0 keeps this thread's messages off
 * stderr from now on (0 prints them again). */
void sim_errors_reset(int silent);

#endif
