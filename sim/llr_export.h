/* The LLR export (--llr-out FILE): the soft outputs of the first frames of
 * every point, with the transmitted bits, in a little-endian binary file any
 * decoder (LDPC, polar, ...) can read, so that a user runs a code of their own
 * on ofdmsim's receivers. The frames are the point's own first frames
 * (counter-based draws: the very frames the run counted), computed again in a
 * pass of their own after the sweep, so the export does not depend on batch
 * sizes, stopping rules or a resume.
 *
 * Layout (version 1), all integers little-endian, floats IEEE-754 binary32:
 *   file header, 16 bytes:
 *     char     magic[8]     "OFDMLLR\0"
 *     uint32   version      1
 *     uint32   records      points in the file
 *   per point, a 64-byte record header:
 *     uint64   point_key    the CSV's point_key
 *     uint32   point        the point's index in the run (the CSV's point)
 *     uint32   tx           streams
 *     uint32   bps          bits per symbol
 *     uint32   res          data REs per frame (subcarriers x symbols, less
 *                           the pilot REs: pilots are not exported)
 *     uint64   first_frame  the frames exported: first_frame, first_frame + 1, ...
 *     uint64   frames
 *     float64  snr_db
 *     float64  n0
 *     uint32   llr          1 = max-log, 2 = exact
 *     uint32   equalizer    0 zf, 1 mmse, 2 mmse-sic, 3 kbest, 4 ml
 *   then n = frames * res * tx * bps values in the order
 *   [frame][data RE (symbol-major, subcarrier fastest, pilots skipped)]
 *   [stream][label bit, bit 0 first]:
 *     float32  llr[n]       ln P(b = 1) / P(b = 0)
 *     uint8    bits[n]      the transmitted bits, 0 or 1
 * The README shows how to read it with numpy. */
#ifndef OFDMSIM_LLR_EXPORT_H
#define OFDMSIM_LLR_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

#define LLR_EXPORT_MAGIC "OFDMLLR"
#define LLR_EXPORT_VERSION 1u
#define LLR_EXPORT_MAX_FRAMES (1u << 20)

/* Whether every point of c has soft outputs: 0, or -1 with the first that
 * has none named in err. */
int llr_export_check(const sim_config *c, char *err, size_t errlen);

/* Writes the first `frames` frames (at most a point's own frame budget) of
 * every point of c to path, atomically, on backend "cpu" or "cuda" with
 * `threads` CPU threads (0: all). 0, or -1 with the reason in err. */
int llr_export_write(const sim_config *c, const char *backend, int threads, const char *path, uint64_t frames,
                     char *err, size_t errlen);

#endif
