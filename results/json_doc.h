/* Every JSON file ofdmsim writes (a run's sidecar, merge's sidecar, the
 * bench's figures) is one of these documents: it opens with the same
 * provenance block, is dumped with the same flags, and reaches its path whole
 * or not at all (results/atomic_file.h). One writer, so the three files
 * cannot drift apart in what they record or in how they handle bytes that
 * are not UTF-8 (config/json_value.h). */
#ifndef OFDMSIM_JSON_DOC_H
#define OFDMSIM_JSON_DOC_H

#include <stdio.h>

#include <jansson.h>

/* A new document with the provenance block, in this order:
 *   program  "ofdmsim"
 *   tool     what wrote it: "run", "merge" or "bench"
 *   version  the program's version
 *   build    { git_commit, build_type, c_flags, cuda_architectures } of this binary
 *   date     when it was written (ISO 8601 UTC; the same as written)
 *   started  when the work began (`started`, or the time of writing when NULL)
 *   written  when it was written
 *   host     this machine's name
 *   command  the command line (`command_line`, "" when NULL)
 * The caller adds its own keys after these. NULL when out of memory. */
json_t *json_doc_new(const char *tool, const char *command_line, const char *started);

/* Dumps doc to f with the project's flags and a final newline: 0, or -1
 * (errno set to EIO when the stream gave no reason). */
int json_doc_emit(FILE *f, const json_t *doc);

/* Writes doc to path atomically: 0, or -1 with errno set (path untouched). */
int json_doc_write(const char *path, const json_t *doc);

/* Now in ISO 8601 UTC, "2026-11-24T20:51:20Z". */
void json_doc_iso_now(char *buf, size_t n);

#endif
