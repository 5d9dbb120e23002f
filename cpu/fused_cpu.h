/* Private to cpu/: one thread's state on the fused path (fused_cpu.c runs
 * the chunks, fused_frame_cpu.c holds the scratch and the per-frame work). */
#ifndef OFDMSIM_FUSED_CPU_H
#define OFDMSIM_FUSED_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu_internal.h"

/* Scratch of one thread: the chunk's arrays [elements][CPU_FUSED_CHUNK],
 * and what a frame's chunks share, kept for the frame `frame` or
 * `est_frame` (UINT64_MAX: none yet). */
typedef struct fused_scratch {
  uint8_t *labels;
  cf32 *x, *H, *Hhat, *y, *G, *Ginv, *z, *xhat;
  float *gdiag;          /* LLRs: (G^-1)_tt of each stream [tx][C]; NULL without */
  float *llr;            /* LLRs: the chunk's, a row per stream and bit [tx][bps][C], data REs in order */
  uint8_t *bits;         /* and their sent bits, the same layout */
  cf32 *taps;            /* tdl: the frame's taps [links][L]; with Doppler symbol taps_sym's */
  cf32 *Hk;              /* tdl without Doppler: [links][K] */
  sos_term *sos;         /* tdl with Doppler: the sinusoids of the frame */
  float *win;            /* and their window factors (tdl_frame_window); NULL for cdl */
  int taps_sym;          /* with Doppler, the symbol whose taps `taps` holds (-1: none) */
  uint64_t frame;        /* the frame taps, Hk or sos hold */
  cf32 *hp;              /* LS: [links][pilot symbols][K] the estimate on the pilot symbols (DMRS: occasions) */
  cf32 *ypil;            /* LS in frequency: [rx][pilot symbols][K] their received rows (DMRS: its symbols) */
  float *pv;             /* LS: FUSED_LANES rows' pilots of one antenna, in order, and the window's wrap
                          * (fused_freq_interpolate_lanes' layout) */
  cf32 *ls;              /* LS with DMRS: [links][occasions][np] the despread LS estimates */
  uint64_t est_frame;    /* the frame hp holds */
  uint8_t *frame_labels; /* time domain: the frame's labels [tx][R_f] */
  cf32 *frame_x, *frame_y; /* and its symbols [tx][R_f], its received REs [rx][R_f] */
} fused_scratch;

/* Bytes of one thread's scratch for p, and its arrays carved out of block
 * (64-byte aligned each). */
size_t cpu_fused_scratch_bytes(const link_params *p);
fused_scratch fused_carve(const link_params *p, const cpu_state *s, unsigned char *block);

/* H of frame-local REs [m0, m0 + n) of frame into f->H, as the draw stage
 * makes it (the frame's taps or sinusoids kept in f across its chunks). */
void fused_chunk_channel(const link_params *p, cpu_state *s, fused_scratch *f, uint64_t frame, uint64_t m0,
                         size_t n);

/* What the chunks of `frame` need first: in the time domain its labels,
 * symbols and received REs through the OFDM modem (f->frame_*), with LS
 * estimation the estimate on its pilot symbols (f->hp). 0, or -1 when the
 * modem's scratch cannot be had. */
int fused_frame(const link_params *p, cpu_state *s, fused_scratch *f, uint64_t frame);

/* The receiver's channel of REs [m0, m0 + n) from the frame's estimate
 * (cpu_estimate_stage's time interpolation and scaling) into f->Hhat. */
void fused_chunk_estimate(const link_params *p, const cpu_state *s, fused_scratch *f, uint64_t m0, size_t n);

/* The frequency interpolation of one antenna's pilots v (in order) onto
 * K subcarriers of hp: est_freq's sums, the weights w[k][i] of subcarrier
 * k against pilots first[k] + i, i = 0, 1, ..., taps - 1; one row at a
 * time, the form the lanes below are held to (test_fused_interp). */
void fused_freq_interpolate(const int *first, const cf32 *w, int taps, size_t K, const cf32 *v, cf32 *hp);

/* The same for FUSED_LANES rows of one antenna at once (rows that share
 * first and w: its rx antennas and pilot symbols), each lane the very
 * operations of fused_freq_interpolate in the same order, so each row's
 * result is bit for bit its own: pilot n of lane l is v[2 n L + l] (real)
 * and v[(2 n + 1) L + l] (imaginary), L = FUSED_LANES; lane l's
 * subcarriers go to out[l] (NULL: an unused lane). */
#define FUSED_LANES 8
void fused_freq_interpolate_lanes(const int *first, const cf32 *w, int taps, size_t K, const float *v,
                                  cf32 *const out[FUSED_LANES]);

#endif
