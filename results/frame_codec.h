/* Per-frame counts in a few bytes, for shipping a work unit's frames between
 * processes (the MPI engine): the fold (point_fold.h) needs every frame's
 * per-stream errors and fallback REs to find the exact stop, and most frames
 * of a hard point have none.
 *
 * Format: for each run, an unsigned LEB128 varint Z (frames with all counts
 * zero), then, unless the frames are all used, one frame's tx error counts and
 * its fallbacks as varints, and with soft outputs its tx GMI losses and its
 * GMI_GRID losses at the GMI grid's scalings (core/gmi_grid.h). The decoder
 * knows the frame count, tx and whether losses are there. */
#ifndef OFDMSIM_FRAME_CODEC_H
#define OFDMSIM_FRAME_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"

/* The most bytes frame_encode writes for n frames of tx streams. */
size_t frame_encoded_max(uint64_t n, int tx);

/* Encodes errors[i*tx + s], fallbacks[i] (NULL: zeros), and loss[i*tx + s]
 * and loss_s[i*GMI_GRID + k] (each NULL: none; receiver.gmi = s1 has the
 * first alone) of n frames into out (at least frame_encoded_max bytes); returns the bytes
 * written. */
size_t frame_encode(const uint32_t *errors, const uint32_t *fallbacks, const uint64_t *loss, const uint64_t *loss_s,
                    uint64_t n, int tx, uint8_t *out);

/* Decodes n frames of tx streams from the len bytes at in into errors
 * (n*tx), fallbacks (n) and, when loss or loss_s is not NULL (the encoder
 * had those losses), loss (n*tx) and loss_s (n*GMI_GRID). 0, or -1 when the bytes
 * do not hold exactly that. */
int frame_decode(const uint8_t *in, size_t len, uint64_t n, int tx, uint32_t *errors, uint32_t *fallbacks,
                 uint64_t *loss, uint64_t *loss_s);

/* The coded link's per-frame counts (frame_coded: TB error, code blocks,
 * CB errors, information-bit errors, decoder iterations, HARQ's TB error
 * and transmissions), seven varints a frame with no zero runs (every coded frame has code blocks and
 * iterations). A unit's chunk carries them ahead of its frame_encode'd
 * bytes; the decoder reads exactly n frames and says how many bytes they
 * took, so the rest is frame_decode's. */
size_t coded_encoded_max(uint64_t n);
size_t coded_encode(const frame_coded *c, uint64_t n, uint8_t *out);
/* Decodes n frames into c from the len bytes at in; the bytes read, or -1
 * when they do not hold n frames. */
long long coded_decode(const uint8_t *in, size_t len, uint64_t n, frame_coded *c);

#endif
