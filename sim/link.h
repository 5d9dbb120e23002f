/* One sweep point, fully resolved (what a backend needs to simulate it), and
 * the interface every backend implements. Plain C, shared with cuda/. */
#ifndef OFDMSIM_LINK_H
#define OFDMSIM_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "sim/cplx.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LINK_MAX_TX 8
#define LINK_MAX_RX 16
#define TDL_MAX_TAPS 64

typedef enum { EQ_ZF = 0, EQ_MMSE = 1 } eq_kind;
typedef enum { CH_AWGN = 0, CH_RAYLEIGH = 1, CH_TDL = 2 } channel_model;
typedef enum { PDP_EXP = 0, PDP_TDL_A = 1, PDP_TDL_B = 2, PDP_TDL_C = 3 } pdp_kind;
typedef enum { DOMAIN_FREQUENCY = 0, DOMAIN_TIME = 1 } ofdm_domain;
typedef enum { SNR_EBNO = 0, SNR_ESNO = 1, SNR_SNR = 2 } snr_def;

/* A multipath power-delay profile on the sample grid: tap l arrives delay[l]
 * samples late with mean power power[l]; the powers sum to 1. */
typedef struct tdl_pdp {
  int taps;
  int delay[TDL_MAX_TAPS];
  float power[TDL_MAX_TAPS];
} tdl_pdp;

typedef struct link_params {
  int tx, rx;              /* streams Nt, receive antennas Nr */
  int bps;                 /* bits per symbol: 1 (BPSK), 2, 4, 6, 8 */
  eq_kind equalizer;
  channel_model model;
  pdp_kind profile;        /* tdl only */
  double delay_spread;     /* tdl: RMS delay spread in samples */
  tdl_pdp pdp;             /* tdl: the profile resolved on the sample grid */
  double rho_tx, rho_rx;   /* exponential spatial correlation (Kronecker) */
  double k_factor;         /* Rician K, linear (0: Rayleigh) */
  double csi_error_var;    /* the equalizer sees H + E, E ~ CN(0, var) */
  ofdm_domain domain;
  int subcarriers, symbols, cp_length;
  snr_def snr_kind;         
  double snr_db;
  double n0;               /* noise variance per receive antenna and RE */
  uint64_t seed;
  uint32_t point_id;       /* the point's place in the flattened sweep */
} link_params;

/* REs and information bits of one frame. */
static inline uint64_t link_res_per_frame(const link_params *p) {
  return (uint64_t)p->symbols * (uint64_t)p->subcarriers;
}
static inline uint64_t link_bits_per_frame(const link_params *p) {
  return link_res_per_frame(p) * (uint64_t)p->tx * (uint64_t)p->bps;
}

/* N0 from the SNR definitions of DESIGN.md (unit-energy symbols, E|h|^2 = 1). */
double link_noise_variance(snr_def kind, double snr_db, int tx, int bps);

/* Wall time spent in each stage of a batch, seconds (device time on a GPU). */
typedef struct stage_times {
  double draw;      /* bits, symbols, channel, noise: everything random */
  double channel;   /* y = Hx + n, or the time-domain modem */
  double gram;      /* G = H^H H (+ N0 I), z = H^H y */
  double invert;    /* G^-1 */
  double equalize;  /* x_hat, bias correction */
  double demap;     /* hard decisions and error counting */
} stage_times;

/* What one batch of frames produced. errors[f*tx + t] counts the bit errors of
 * stream t in frame first_frame + f; the caller cuts at the exact frame where a
 * stopping rule fires, so counts never depend on the batch size. */
typedef struct batch_result {
  uint32_t *errors;      /* caller-owned, frames*tx */
  uint64_t inversions;   /* matrices inverted in this batch */
  stage_times t;
} batch_result;

/* Buffers of the last batch a test can fetch, each in SoA layout over the
 * batch's REs (element e of RE i at e*R + i). */
typedef enum {
  LINK_BUF_X = 0,      /* transmitted symbols [tx][R] */
  LINK_BUF_H = 1,      /* true channel [rx*tx][R] (row-major r*tx + t) */
  LINK_BUF_Y = 2,      /* received, per subcarrier [rx][R] */
  LINK_BUF_XHAT = 3,   /* equalised, bias-corrected [tx][R] */
  LINK_BUF_GINV = 4    /* inverted Gram matrices [tx*tx][R] */
} link_buffer;

/* Elements (cf32) of buffer `which` for a batch of `frames` frames; 0 for an
 * unknown buffer. The one rule every backend's fetch checks counts against. */
size_t link_buffer_elements(const link_params *p, link_buffer which, uint64_t frames);

typedef struct link_backend link_backend;

typedef struct backend_options {
  int threads;           /* CPU threads, 0 = all */
  uint64_t max_batch_frames; /* 0 = let the backend choose */
  uint64_t gpu_memory_mb;    /* cap on device memory, 0 = free memory */
  int keep_buffers;      /* tests: keep the last batch's buffers for fetch */
  int staged;            /* cuda: 1 = one kernel per stage, every intermediate in
                            device memory (per-stage timing, fetch); 0 = fused */
} backend_options;

struct link_backend_ops {
  const char *name;
  /* Largest batch (frames) this backend will take for these parameters. */
  uint64_t (*max_frames)(link_backend *b);
  int (*run)(link_backend *b, uint64_t first_frame, uint64_t frames, batch_result *out);
  int (*fetch)(link_backend *b, link_buffer which, cf32 *dst, size_t count);
  void (*destroy)(link_backend *b);
};

struct link_backend {
  const struct link_backend_ops *ops;
  link_params p;
  backend_options opt;
  uint64_t last_frames;  /* frames in the last batch run */
  void *impl;
};

/* 0 when every field of p is in range and the combination can be simulated;
 * else -1 with the reason in err. Every backend's create runs it. */
int link_params_check(const link_params *p, char *err, size_t errlen);
/* The shell of a backend: p checked, the object and a zeroed state of
 * impl_size bytes allocated; NULL with "<name> backend: why" in err. */
link_backend *link_backend_alloc(const struct link_backend_ops *ops, const link_params *p,
                                 const backend_options *opt, size_t impl_size, char *err,
                                 size_t errlen);

/* Backends by name ("cpu", "cuda"); "auto" picks cuda when a GPU is present.
 * Returns NULL with a message in err on failure. */
link_backend *link_backend_create(const char *name, const link_params *p,
                                  const backend_options *opt, char *err, size_t errlen);
int link_backend_run(link_backend *b, uint64_t first_frame, uint64_t frames, batch_result *out);
int link_backend_fetch(link_backend *b, link_buffer which, cf32 *dst, size_t count);
void link_backend_destroy(link_backend *b);
const char *link_backend_name(const link_backend *b);
/* 1 when this build has the CUDA backend and a device is usable. */
int link_cuda_available(char *why, size_t whylen);

#ifdef __cplusplus
}
#endif
#endif
