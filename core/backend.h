/* The interface every simulation backend implements (cpu/, cuda/), and the
 * shell they share: parameter check, allocation, batch bookkeeping. Which
 * backend serves a name is decided one layer up (sim/backends.h).
 *
 * Error convention of every backend: create returns NULL with "<name>
 * backend: why" in err; run and fetch return 0, or -1 with the reason in the
 * backend's message buffer (backend_error). */
#ifndef OFDMSIM_BACKEND_H
#define OFDMSIM_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "core/cplx.h"
#include "core/gmi_grid.h"
#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Wall time spent in each stage of a batch, seconds (device time on a GPU). */
typedef struct stage_times {
  double draw;      /* bits, symbols, channel, noise: everything random */
  double channel;   /* y = Hx + n, or the time-domain modem; with estimation
                       from pilots, the receiver's channel estimate too */
  double gram;      /* G = H^H H (+ N0 I), z = H^H y */
  double invert;    /* G^-1 */
  double equalize;  /* x_hat, bias correction */
  double demap;     /* hard decisions and error counting */
} stage_times;

/* a += w * b, stage by stage. */
static inline void stage_times_add(stage_times *a, const stage_times *b, double w) {
  a->draw += w * b->draw;
  a->channel += w * b->channel;
  a->gram += w * b->gram;
  a->invert += w * b->invert;
  a->equalize += w * b->equalize;
  a->demap += w * b->demap;
}

/* What one batch of frames produced. errors[f*tx + t] counts the bit errors of
 * stream t in frame first_frame + f; the caller cuts at the exact frame where a
 * stopping rule fires, so counts never depend on the batch size. */
/* The unit of batch_result.gmi_loss: 2^-GMI_LOSS_SHIFT bits (the quantum
 * of equalizer/soft.h's soft_loss_q). Integers, so that the per-frame sums
 * do not depend on the order a GPU adds them in. */
#define GMI_LOSS_SHIFT 24

/* What the coded link (p.code.type ldpc) decoded in one frame: its one
 * transport block, lost or not, its code blocks and those in error, its
 * information bits in error, and the decoder iterations over its blocks,
 * all of its first transmission; then HARQ's outcome (code.harq): the TB
 * still lost after its last transmission, and the transmissions it took
 * (1 .. harq: up to the first that decodes). transmissions 0 reads as one
 * transmission, harq_error as tb_error (a frame_coded made without HARQ). */
typedef struct frame_coded {
  uint32_t tb_error, cbs, cb_errors, info_errors, iterations;
  uint32_t harq_error, transmissions;
} frame_coded;

typedef struct batch_result {
  uint32_t *errors;      /* caller-owned, frames*tx */
  uint32_t *fallbacks;   /* caller-owned, frames, or NULL: REs of each frame
                            whose float Gram inverse was flagged singular and
                            that were equalised in double precision instead */
  uint64_t *gmi_loss;    /* caller-owned, frames*tx, or NULL; with p.llr != off
                            the GMI loss of stream t in frame f: the sum over
                            its bits of soft_loss_q (equalizer/soft.h), in
                            units of 2^-GMI_LOSS_SHIFT bits */
  uint64_t *gmi_loss_s;  /* caller-owned, frames*GMI_GRID, or NULL; with
                            p.llr != off frame f's loss summed over its streams
                            at LLR scaling gmi_grid_s(k) (core/gmi_grid.h),
                            same units; k = GMI_GRID_S1 is the sum of the
                            frame's gmi_loss exactly */
  float *llr;            /* caller-owned or NULL: the batch's LLRs, frame by
                            frame, RE by RE (symbol-major, subcarrier
                            fastest), stream by stream, label bit 0 first:
                            llr[((f*D_f + d)*tx + t)*bps + k] for data RE d
                            (pilot_data_index) of D_f = link_data_res_per_frame
                            (needs p.llr != off) */
  frame_coded *coded;    /* caller-owned, frames, or NULL; with p.code.type
                            ldpc each frame's decoded TB (NULL: the coded
                            bits are sent, their LLRs not decoded) */
  uint8_t *bits;         /* caller-owned or NULL (with llr): the transmitted
                            bits in the same layout, 0 or 1 */
  uint64_t inversions;   /* matrices inverted in this batch */
  stage_times t;
} batch_result;

/* Buffers of the last batch a test can fetch, each in SoA layout over the
 * batch's REs (element e of RE i at e*R + i). */
typedef enum {
  BUF_X = 0,      /* transmitted symbols [tx][R] */
  BUF_H = 1,      /* true channel [rx*tx][R] (row-major r*tx + t) */
  BUF_Y = 2,      /* received, per subcarrier [rx][R] */
  BUF_XHAT = 3,   /* equalised, bias-corrected [tx][R] */
  BUF_GINV = 4,   /* inverted Gram matrices [tx*tx][R] */
  BUF_HHAT = 5    /* the receiver's channel [rx*tx][R]: H, its CSI-error
                     estimate, or its estimate from the pilots */
} backend_buffer;

/* Elements (cf32) of buffer `which` for a batch of `frames` frames; 0 for an
 * unknown buffer. The one rule every backend's fetch checks counts against. */
size_t backend_buffer_elements(const link_params *p, backend_buffer which, uint64_t frames);

/* Which of a backend's buffers `which` names (NULL for an unknown one): the
 * one switch both backends' fetch use. */
static inline const cf32 *backend_buffer_pick(backend_buffer which, const cf32 *x, const cf32 *H,
                                              const cf32 *y, const cf32 *xhat, const cf32 *Ginv,
                                              const cf32 *Hhat) {
  switch (which) {
    case BUF_HHAT: return Hhat;
    case BUF_X: return x;
    case BUF_H: return H;
    case BUF_Y: return y;
    case BUF_XHAT: return xhat;
    case BUF_GINV: return Ginv;
  }
  return NULL;
}

typedef struct backend backend;

/* A backend's own options reach it by name, so that no layer above the
 * backends needs their headers (the registry, sim/backends.h, passes them on
 * to whichever backend a name resolves to): a setting names its backend, one
 * of that backend's options and the value, e.g. {"cpu", "staged", 1}. Each
 * backend keeps its options in a struct of its own, private to its folder,
 * and lists them in a table of backend_option_spec (name, field, range);
 * backend_options_read fills the struct from the settings meant for it and
 * refuses a name the backend does not have or a value out of its range, so a
 * misspelt option is an error, never silently ignored. */
typedef struct backend_setting {
  const char *backend;  /* "cpu", "cuda": the other backends ignore it */
  const char *option;   /* one of that backend's options */
  int64_t value;
} backend_setting;

#define BACKEND_MAX_SETTINGS 8

/* What the caller may choose: the batch cap every backend honours, and the
 * backends' own options (backend_options_set). Zero-initialised: every
 * backend's defaults. */
typedef struct backend_options {
  uint64_t max_batch_frames; /* 0 = let the backend choose */
  int count;                 /* settings in set */
  backend_setting set[BACKEND_MAX_SETTINGS];
} backend_options;

/* Adds a setting (the strings are not copied: literals, or kept alive until
 * the create). 0, or -1 when all BACKEND_MAX_SETTINGS are taken. */
int backend_options_set(backend_options *o, const char *backend, const char *option, int64_t value);

/* One option of a backend: its name, the offset of its field in the
 * backend's option struct, the field's type, and the values it takes. */
typedef enum { BACKEND_OPT_INT = 0, BACKEND_OPT_U64 = 1 } backend_option_type;
typedef struct backend_option_spec {
  const char *option;
  size_t offset;
  backend_option_type type;
  int64_t min, max;
} backend_option_spec;

/* Writes the settings of o meant for `backend` into dst (the backend's option
 * struct, holding its defaults), each through its spec. 0, or -1 with
 * "<backend> backend: ..." in err for an unknown option or a value out of
 * range. */
int backend_options_read(const backend_options *o, const char *backend, const backend_option_spec *specs,
                         int nspecs, void *dst, char *err, size_t errlen);

struct backend_ops {
  const char *name;
  /* Largest batch (frames) this backend will take for these parameters. */
  uint64_t (*max_frames)(backend *b);
  int (*run)(backend *b, uint64_t first_frame, uint64_t frames, batch_result *out);
  int (*fetch)(backend *b, backend_buffer which, cf32 *dst, size_t count);
  void (*destroy)(backend *b);
  /* Optional (NULL: the shell runs each submitted batch with `run` when it
   * is collected): a batch in two halves, so that the next batch is under
   * way while the caller folds this one's counts. submit starts the batch
   * (want: which outputs, by which pointers are set; nothing is written to
   * them), collect waits for the oldest one submitted and writes its counts
   * into out, discard drops every batch submitted and not collected. The
   * shell keeps at most BACKEND_IN_FLIGHT submitted, in order. */
  int (*submit)(backend *b, uint64_t first_frame, uint64_t frames, const batch_result *want);
  int (*collect)(backend *b, batch_result *out);
  void (*discard)(backend *b);
};

/* Batches a caller may have submitted and not yet collected. */
#define BACKEND_IN_FLIGHT 2

/* A batch submitted and not collected (the shell's queue). */
typedef struct backend_pending {
  uint64_t first_frame, frames;
  int gmi_loss, gmi_loss_s, coded; /* the outputs submit was asked for */
} backend_pending;

struct backend {
  const struct backend_ops *ops;
  link_params p;
  uint64_t last_frames;  /* frames in the last batch run or collected */
  backend_pending pending[BACKEND_IN_FLIGHT]; /* oldest first */
  int n_pending;
  char error[512];       /* why the last run or fetch returned -1 */
  const char *td_path;   /* time domain: how the convolution is computed
                            ("sample by sample", "CP-aligned transform");
                            NULL where the backend does not say */
  void *impl;
};

/* The shell of a backend: p checked, the object and a zeroed state of
 * impl_size bytes allocated; NULL with "<name> backend: why" in err. */
backend *backend_alloc(const struct backend_ops *ops, const link_params *p,
                                 const backend_options *opt, size_t impl_size, char *err,
                                 size_t errlen);

/* One batch, start to end (no batch may be in flight). */
int backend_run(backend *b, uint64_t first_frame, uint64_t frames, batch_result *out);
/* The same batch in two halves (backend_ops.submit): backend_submit starts
 * it, at most BACKEND_IN_FLIGHT at once; backend_collect gives the oldest
 * one's counts, in out, which must ask for the outputs `want` asked for
 * (gmi_loss, gmi_loss_s, coded; llr and bits are backend_run's only). Any
 * backend takes these; one without submit computes the batch in
 * backend_collect, so one that is discarded costs it nothing.
 * backend_discard drops the batches in flight: a caller that stopped (a rule
 * fired in the batch it collected) never reads the one it started after it. */
int backend_submit(backend *b, uint64_t first_frame, uint64_t frames, const batch_result *want);
int backend_collect(backend *b, batch_result *out);
void backend_discard(backend *b);
/* Fails while a batch is in flight (its buffers are not the last batch's). */
int backend_fetch(backend *b, backend_buffer which, cf32 *dst, size_t count);
void backend_destroy(backend *b);
const char *backend_name(const backend *b);
/* Why the last run or fetch failed (never NULL). */
const char *backend_error(const backend *b);
/* For backends: keeps the formatted reason for backend_error; returns -1. */
int backend_fail(backend *b, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
