/* The CPU backend: one batch of frames runs stage by stage over struct-of-arrays
 * buffers spanning the batch (element e of RE i at e*R + i), each stage an
 * OpenMP loop over chunks. Stages are kept apart, as on the GPU, so that each
 * can be timed and checked on its own. */
#include "cpu/backend_cpu.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/channel_cpu.h"
#include "channel/ofdm.h"
#include "core/rng.h"
#include "channel/tdl.h"
#include "equalizer/equalizer.h"
#include "core/clock.h"
#include "core/qam.h"

/* REs per work item: large enough to amortise the loop overhead, small
 * enough that every thread gets several items. */
#define CPU_CHUNK 2048
/* Buffers of one batch stay under this many bytes (unless a frame needs more). */
#define CPU_BATCH_BYTES (192u << 20)

typedef struct cpu_state {
  chan_spatial spatial;
  tdl_freq *freq;       /* tdl: taps -> per-subcarrier H */
  ofdm_modem *modem;    /* time domain */
  uint64_t cap_frames;  /* frames the buffers hold */
  uint8_t *labels;      /* [tx][R] transmitted labels */
  cf32 *x, *H, *Hhat, *y, *G, *Ginv, *z, *xhat;
  int nthreads;
  cf32 *taps;           /* tdl: [frame][links][L] of the batch */
  cf32 *Hk;             /* per thread: [links][K] */
} cpu_state;

static size_t bytes_per_re(const link_params *p) {
  const size_t tx = (size_t)p->tx, rx = (size_t)p->rx;
  size_t b = tx + sizeof(cf32) * (tx + rx * tx + rx + 2 * tx * tx + 2 * tx);
  if (p->csi_error_var > 0) b += sizeof(cf32) * rx * tx;
  return b;
}

static uint64_t cpu_max_frames(backend *b) { return ((cpu_state *)b->impl)->cap_frames; }

static void cpu_free(cpu_state *s) {
  if (!s) return;
  free(s->labels);
  free(s->x);
  free(s->H);
  if (s->Hhat != s->H) free(s->Hhat);
  free(s->y);
  free(s->G);
  free(s->Ginv);
  free(s->z);
  free(s->xhat);
  free(s->taps);
  free(s->Hk);
  if (s->freq) tdl_freq_destroy(s->freq);
  if (s->modem) ofdm_modem_destroy(s->modem);
  free(s);
}

static void cpu_destroy(backend *b) {
  cpu_free((cpu_state *)b->impl);
  free(b);
}

/* Bits -> labels -> symbols, for frame-local REs [m0, m0+n) of one frame. */
static void draw_symbols(const link_params *p, uint64_t frame, uint64_t m0, size_t n,
                         uint8_t *labels, cf32 *x, size_t ld) {
  const uint64_t rf = link_res_per_frame(p);
  const uint32_t mask = (1u << p->bps) - 1u;
  for (int b4 = 0; b4 < (p->tx + 3) / 4; b4++) {
    for (size_t i = 0; i < n; i++) {
      const rng_words w = rng_draw(p->seed, p->point_id, RNG_BITS, frame, (uint64_t)b4 * rf + m0 + i);
      for (int k = 0; k < 4 && 4 * b4 + k < p->tx; k++) {
        const int t = 4 * b4 + k;
        const uint32_t label = w.w[k] & mask;
        labels[(size_t)t * ld + i] = (uint8_t)label;
        x[(size_t)t * ld + i] = qam_map(p->bps, label);
      }
    }
  }
}

/* Taps and per-subcarrier H of a tdl frame (the same H for each symbol). */
static void fill_tdl_frame(const link_params *p, cpu_state *s, uint64_t frame, cf32 *taps, cf32 *Hk,
                           cf32 *H, size_t ld) {
  const int links = p->rx * p->tx, K = p->subcarriers;
  tdl_draw_taps(p, &s->spatial, frame, taps);
  tdl_freq_response(s->freq, &p->pdp, links, taps, Hk);
  for (int e = 0; e < links; e++)
    for (int sym = 0; sym < p->symbols; sym++)
      memcpy(H + (size_t)e * ld + (size_t)sym * K, Hk + (size_t)e * K, sizeof(cf32) * K);
}

/* Work item `it` of a batch: a chunk of one frame, covering the frame-local
 * REs [m0, m0+n) at offset o of the batch. Chunks never cross a frame, so a
 * RE's place in its chunk depends on its frame-local index alone: every RE's
 * arithmetic (vector body or scalar tail) is the same for any batch size. */
typedef struct frame_chunk {
  uint64_t f, m0;
  size_t n, o;
} frame_chunk;

static frame_chunk chunk_of(long it, uint64_t rf, uint64_t chunks_per_frame) {
  frame_chunk c;
  c.f = (uint64_t)it / chunks_per_frame;
  c.m0 = ((uint64_t)it % chunks_per_frame) * CPU_CHUNK;
  c.n = (size_t)((rf - c.m0) < CPU_CHUNK ? (rf - c.m0) : CPU_CHUNK);
  c.o = (size_t)(c.f * rf + c.m0);
  return c;
}

static int cpu_run(backend *b, uint64_t first_frame, uint64_t frames, batch_result *out) {
  cpu_state *s = (cpu_state *)b->impl;
  const link_params *p = &b->p;
  if (frames == 0 || frames > s->cap_frames)
    return backend_fail(b, "cpu backend: a batch of %llu frames, need 1..%llu",
                        (unsigned long long)frames, (unsigned long long)s->cap_frames);
  const uint64_t rf = link_res_per_frame(p);
  const size_t R = (size_t)(frames * rf);
  const int tx = p->tx, rx = p->rx, links = rx * tx;
  const uint64_t chunks_per_frame = (rf + CPU_CHUNK - 1) / CPU_CHUNK;
  const long items = (long)(frames * chunks_per_frame);
  double t0 = clock_seconds();

  /* --- draws: labels and symbols, channel (and its estimate) --------------- */
#pragma omp parallel for schedule(dynamic, 4)
  for (long it = 0; it < items; it++) {
    const frame_chunk c = chunk_of(it, rf, chunks_per_frame);
    draw_symbols(p, first_frame + c.f, c.m0, c.n, s->labels + c.o, s->x + c.o, R);
    if (p->model != CH_TDL) chan_fill(p, &s->spatial, first_frame + c.f, c.m0, c.n, s->H + c.o, R);
  }
  if (p->model == CH_TDL) {
    /* Hk is scratch per thread, sized when the backend was made. */
#pragma omp parallel for schedule(dynamic, 1) num_threads(s->nthreads)
    for (long f = 0; f < (long)frames; f++) {
      const int th = omp_get_thread_num();
      fill_tdl_frame(p, s, first_frame + (uint64_t)f, s->taps + (size_t)f * links * p->pdp.taps,
                     s->Hk + (size_t)th * links * p->subcarriers, s->H + (size_t)f * rf, R);
    }
  }
  if (s->Hhat != s->H) {
#pragma omp parallel for schedule(dynamic, 4)
    for (long it = 0; it < items; it++) {
      const frame_chunk c = chunk_of(it, rf, chunks_per_frame);
      chan_csi_error(p, first_frame + c.f, c.m0, c.n, s->H + c.o, R, s->Hhat + c.o, R);
    }
  }
  double t1 = clock_seconds();
  out->t.draw = t1 - t0;

  /* --- the channel: y = Hx + n per RE, or the time-domain modem ------------- */
  int modem_rc = 0;
  if (p->domain == DOMAIN_TIME) {
    const float noise_std = (float)sqrt(p->n0);
#pragma omp parallel for schedule(dynamic, 1) reduction(| : modem_rc)
    for (long f = 0; f < (long)frames; f++) {
      /* The modem convolves with the very taps H was made of. */
      const cf32 *taps = p->model == CH_TDL ? s->taps + (size_t)f * links * p->pdp.taps : NULL;
      modem_rc |= ofdm_modem_frame(s->modem, first_frame + (uint64_t)f, s->x + (size_t)f * rf, R, taps, noise_std,
                                   s->y + (size_t)f * rf, R);
    }
  } else {
#pragma omp parallel for schedule(dynamic, 4)
    for (long it = 0; it < items; it++) {
      const frame_chunk c = chunk_of(it, rf, chunks_per_frame);
      chan_apply(p, first_frame + c.f, c.m0, c.n, s->H + c.o, R, s->x + c.o, R, s->y + c.o, R);
    }
  }
  if (modem_rc) return backend_fail(b, "cpu backend: no memory for the time-domain modem's scratch");
  double t2 = clock_seconds();
  out->t.channel = t2 - t1;

  /* --- the receiver over the whole batch, chunk by chunk ------------------- */
  const long rchunks = (long)((R + CPU_CHUNK - 1) / CPU_CHUNK);
  const float diag = p->equalizer == EQ_MMSE ? (float)p->n0 : 0.0f;
#pragma omp parallel for schedule(static)
  for (long k = 0; k < rchunks; k++) {
    const size_t i0 = (size_t)k * CPU_CHUNK, n = R - i0 < CPU_CHUNK ? R - i0 : CPU_CHUNK;
    eq_gram(rx, tx, s->Hhat + i0, R, s->y + i0, R, diag, s->G + i0, R, s->z + i0, R, n);
  }
  double t3 = clock_seconds();
#pragma omp parallel for schedule(static)
  for (long k = 0; k < rchunks; k++) {
    const size_t i0 = (size_t)k * CPU_CHUNK, n = R - i0 < CPU_CHUNK ? R - i0 : CPU_CHUNK;
    eq_invert(tx, s->G + i0, R, s->Ginv + i0, R, n);
  }
  double t4 = clock_seconds();
#pragma omp parallel for schedule(static)
  for (long k = 0; k < rchunks; k++) {
    const size_t i0 = (size_t)k * CPU_CHUNK, n = R - i0 < CPU_CHUNK ? R - i0 : CPU_CHUNK;
    eq_apply(tx, s->Ginv + i0, R, s->z + i0, R, diag, s->xhat + i0, R, n);
  }
  double t5 = clock_seconds();

  /* --- hard decisions and error counts per frame and stream ---------------- */
#pragma omp parallel for schedule(dynamic, 4)
  for (long it = 0; it < items; it++) {
    const frame_chunk c = chunk_of(it, rf, chunks_per_frame);
    for (int t = 0; t < tx; t++) {
      uint32_t errors = 0;
      const cf32 *xh = s->xhat + (size_t)t * R + c.o;
      const uint8_t *lab = s->labels + (size_t)t * R + c.o;
      for (size_t i = 0; i < c.n; i++)
        errors += (uint32_t)__builtin_popcount(qam_demap(p->bps, xh[i]) ^ lab[i]);
#pragma omp atomic
      out->errors[c.f * (uint64_t)tx + (uint64_t)t] += errors;
    }
  }
  double t6 = clock_seconds();
  out->t.gram = t3 - t2;
  out->t.invert = t4 - t3;
  out->t.equalize = t5 - t4;
  out->t.demap = t6 - t5;
  out->inversions = R;
  return 0;
}

static int cpu_fetch(backend *b, backend_buffer which, cf32 *dst, size_t count) {
  cpu_state *s = (cpu_state *)b->impl;
  const cf32 *src = which == BUF_X      ? s->x
                    : which == BUF_H    ? s->H
                    : which == BUF_Y    ? s->y
                    : which == BUF_XHAT ? s->xhat
                    : which == BUF_GINV ? s->Ginv
                                             : NULL;
  const size_t need = backend_buffer_elements(&b->p, which, b->last_frames);
  if (!src || !dst || need == 0 || count != need)
    return backend_fail(b, "cpu backend: fetch of buffer %d with %zu elements, the batch has %zu",
                        (int)which, count, need);
  /* A batch of R REs uses element stride R: the leading part of each buffer. */
  memcpy(dst, src, sizeof(cf32) * need);
  return 0;
}

static const struct backend_ops cpu_ops = {"cpu", cpu_max_frames, cpu_run, cpu_fetch,
                                                cpu_destroy};

static void *alloc_or_null(size_t bytes) { return bytes ? malloc(bytes) : NULL; }

backend *backend_cpu_create(const link_params *p, const backend_options *opt, char *err,
                                 size_t errlen) {
  backend *b = backend_alloc(&cpu_ops, p, opt, sizeof(cpu_state), err, errlen);
  if (!b) return NULL;
  cpu_state *s = (cpu_state *)b->impl;
  if (opt->cpu.threads > 0) omp_set_num_threads(opt->cpu.threads);
  s->nthreads = omp_get_max_threads();
  if (chan_spatial_init(p, &s->spatial, err, errlen)) goto fail;
  if (p->model == CH_TDL && !(s->freq = tdl_freq_create(p->subcarriers, err, errlen))) goto fail;
  if (p->domain == DOMAIN_TIME && !(s->modem = ofdm_modem_create(p, err, errlen))) goto fail;

  const uint64_t rf = link_res_per_frame(p);
  uint64_t frames = CPU_BATCH_BYTES / (bytes_per_re(p) * rf);
  if (frames < 1) frames = 1;
  if (opt->max_batch_frames && frames > opt->max_batch_frames) frames = opt->max_batch_frames;
  s->cap_frames = frames;
  const size_t R = (size_t)(frames * rf), tx = (size_t)p->tx, rx = (size_t)p->rx;
  s->labels = alloc_or_null(tx * R);
  s->x = alloc_or_null(sizeof(cf32) * tx * R);
  s->H = alloc_or_null(sizeof(cf32) * rx * tx * R);
  s->Hhat = p->csi_error_var > 0 ? alloc_or_null(sizeof(cf32) * rx * tx * R) : s->H;
  s->y = alloc_or_null(sizeof(cf32) * rx * R);
  s->G = alloc_or_null(sizeof(cf32) * tx * tx * R);
  s->Ginv = alloc_or_null(sizeof(cf32) * tx * tx * R);
  s->z = alloc_or_null(sizeof(cf32) * tx * R);
  s->xhat = alloc_or_null(sizeof(cf32) * tx * R);
  s->taps = alloc_or_null(sizeof(cf32) * (size_t)frames * rx * tx * TDL_MAX_TAPS);
  s->Hk = alloc_or_null(sizeof(cf32) * (size_t)s->nthreads * rx * tx * (size_t)p->subcarriers);
  if (!s->labels || !s->x || !s->H || !s->Hhat || !s->y || !s->G || !s->Ginv || !s->z || !s->xhat ||
      !s->taps || !s->Hk) {
    snprintf(err, errlen, "cpu backend: cannot allocate %.0f MB for a batch of %llu frames",
             (double)bytes_per_re(p) * (double)R / 1e6, (unsigned long long)frames);
    goto fail;
  }
  return b;
fail:
  cpu_free(s);
  free(b);
  return NULL;
}
