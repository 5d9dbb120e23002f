/* Per-frame counts in a few bytes, for shipping a work unit's frames between
 * processes (the MPI engine): the fold (point_fold.h) needs every frame's
 * per-stream errors and fallback REs to find the exact stop, and most frames
 * of a hard point have none.
 *
 * Format: for each run, an unsigned LEB128 varint Z (frames with all counts
 * zero), then, unless the frames are all used, one frame's tx error counts and
 * its fallbacks as varints. The decoder knows the frame count and tx. */
#ifndef OFDMSIM_FRAME_CODEC_H
#define OFDMSIM_FRAME_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes frame_encode writes for n frames of tx streams. */
size_t frame_encoded_max(uint64_t n, int tx);

/* Encodes errors[i*tx + s] and fallbacks[i] (NULL: zeros) of n frames into
 * out (at least frame_encoded_max bytes); returns the bytes written. */
size_t frame_encode(const uint32_t *errors, const uint32_t *fallbacks, uint64_t n, int tx, uint8_t *out);

/* Decodes n frames of tx streams from the len bytes at in into errors
 * (n*tx) and fallbacks (n). 0, or -1 when the bytes do not hold exactly that. */
int frame_decode(const uint8_t *in, size_t len, uint64_t n, int tx, uint32_t *errors, uint32_t *fallbacks);

#endif
