/* Shared by the fuzz targets: each target is one LLVMFuzzerTestOneInput. Built
 * with clang and -fsanitize=fuzzer it is a libFuzzer binary (scripts/fuzz.sh);
 * with any other compiler replay_main.c runs it over the files named on its
 * command line (ctest replays the seed corpus that way in every build). */
#ifndef OFDMSIM_FUZZ_H
#define OFDMSIM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes data to this process's scratch file `slot` (0..3), created once in
 * $TMPDIR, and returns its path; NULL when it cannot. Targets whose code under
 * test reads files go through it. */
const char *fuzz_scratch_file(int slot, const uint8_t *data, size_t size);

/* data as a NUL-terminated string (a fresh copy the caller frees). */
char *fuzz_string(const uint8_t *data, size_t size);

#endif
