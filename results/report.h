/* Output of results: the header echo and table on stdout, the CSV (one row
 * per point) and its JSON sidecar. Files are written whole to a temporary
 * name and renamed, so a reader never sees a half-written file. */
#ifndef OFDMSIM_REPORT_H
#define OFDMSIM_REPORT_H

#include <stdio.h>

#include "results/run_record.h"

void report_header(FILE *f, const sim_config *c, const char *backend, const char *command_line);
/* One line per distinct tdl channel of the run: its delay spread and last
 * tap in samples and ns, and (time domain) the discrete channel's length
 * next to the CP (report_channel.c); part of report_header. */
void report_channels(FILE *f, const sim_config *c);
void report_table_head(FILE *f);
void report_table_row(FILE *f, const sim_point *pt, const point_result *r);
/* Rewrites the CSV with the first n results. 0, or -1 with errno set. */
int report_write_csv(const char *path, const sim_config *c, const point_result *r, size_t n);
/* The sidecar next to the CSV: results.csv -> results.json. */
void report_sidecar_path(const char *csv_path, char *out, size_t outlen);
/* The journal next to the CSV (results/journal.h): results.csv -> results.journal. */
void report_journal_path(const char *csv_path, char *out, size_t outlen);
/* The suffix (before six mkstemp letters) of the probe that checks, before a
 * run, that the CSV's folder takes a new file (api/run_checks.c). */
#define REPORT_PROBE_SUFFIX ".probe"
/* Removes the temporary files a killed run left beside the CSV and the
 * sidecar; call it only while holding the journal (one writer per -o). */
void report_remove_stale_temps(const char *csv_path);
/* The JSON sidecar with the first n results and the run's provenance: the
 * binary (results/json_doc.h's provenance block: version, git commit, build
 * type and flags, when it started and when this was written, the command
 * line), then the backend, device and threads of the run (o), and `saves`:
 * how many times this run has written its results, this time included. 0, or
 * -1 with errno set. */
int report_write_json(const char *path, const sim_config *c, const point_result *r, size_t n,
                      const run_options *o, const char *started, unsigned long saves);

#endif
