/* The buffers of one staged CPU batch, for the tests that look inside a frame
 * (the transmitted symbols, the channel, its estimate, the received REs). */
#ifndef OFDMSIM_TEST_FETCH_H
#define OFDMSIM_TEST_FETCH_H

#include <stdint.h>

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Frames [0, frames) of p in one staged CPU batch (staged so that its
 * buffers can be fetched), then n of its buffers: out[i] = a new array
 * (free it) of buffer which[i], backend_buffer_elements of them. errors, when
 * not NULL, gets the batch's bit errors (batch_result.errors: frames x tx).
 * 0, or -1 with the reason on stderr and every out[i] NULL. */
int lt_fetch_errors(const link_params *p, uint64_t frames, int n, const backend_buffer *which, cf32 **out,
                    uint32_t *errors);
/* lt_fetch_errors without the bit errors. */
int lt_fetch(const link_params *p, uint64_t frames, int n, const backend_buffer *which, cf32 **out);

/* The usual four: X (the transmitted symbols), H (the channel), Hhat (the
 * receiver's channel, fetched only with LS estimation: NULL otherwise) and Y
 * (the received REs). */
typedef struct lt_frame_buffers {
  cf32 *X, *H, *Hhat, *Y;
} lt_frame_buffers;
/* lt_fetch_errors of those into o; 0 or -1 (every pointer NULL). */
int lt_fetch_frames(const link_params *p, uint64_t frames, lt_frame_buffers *o, uint32_t *errors);
void lt_frame_buffers_free(lt_frame_buffers *o);

/* The estimate's error of o (fetched with LS estimation): the mean of
 * |Hhat - H|^2 over the data REs of every link, and in *se its standard
 * error, the frames being the independent units (the spread of their
 * means). */
double lt_estimate_mse(const link_params *p, const lt_frame_buffers *o, uint64_t frames, double *se);
/* The same, each frame's mean also into per[frames] (paired comparisons of
 * two estimators on the same draws). */
double lt_estimate_mse_frames(const link_params *p, const lt_frame_buffers *o, uint64_t frames, double *se,
                              double *per);

#ifdef __cplusplus
}
#endif
#endif
