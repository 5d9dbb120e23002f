/* The CPU backend object: its memory (the batch's struct-of-arrays buffers),
 * creation, fetch, and a batch run as its stages in order (draws_cpu.c,
 * channel_cpu.c or modem_cpu.c, receiver_cpu.c), each an OpenMP loop over
 * chunks. Stages are kept apart, as on the GPU, so that each can be timed and
 * checked on its own. */
#include "cpu/backend_cpu.h"

#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "cpu/channel_cpu.h"
#include "cpu/cpu_internal.h"

/* Buffers of one batch stay under this many bytes (unless a frame needs more). */
#define CPU_BATCH_BYTES (192u << 20)

static size_t bytes_per_re(const link_params *p) {
  const size_t tx = (size_t)p->tx, rx = (size_t)p->rx;
  size_t b = tx + sizeof(cf32) * (tx + rx * tx + rx + 2 * tx * tx + 2 * tx);
  if (p->csi_error_var > 0 || p->estimation == EST_LS) b += sizeof(cf32) * rx * tx;
  if (link_coded(p)) b += (sizeof(float) + 1) * tx * (size_t)p->bps; /* LLRs, information bits */
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
  free(s->sos);
  free(s->Hk);
  free(s->hp);
  free(s->fused);
  cpu_coded_free(s);
  est_2d_lanes_destroy(s->lanes2d);
  est_plan_free(&s->est);
  free(s->dmrs_seq);
  if (s->modem) ofdm_modem_destroy(s->modem);
  tdl_grid_free(&s->grid);
  free(s);
}

static void cpu_destroy(backend *b) {
  cpu_free((cpu_state *)b->impl);
  free(b);
}




/* One pass of the link over the batch (the staged stages, draws to soft
 * outputs) at frame numbers draw_frame + f; the coded link's labels are
 * transmission t of the TBs of frames first_frame + f. */
static int cpu_pass(backend *b, uint64_t first_frame, uint64_t draw_frame, int t, uint64_t frames,
                    batch_result *out) {
  cpu_state *s = (cpu_state *)b->impl;
  const link_params *p = &b->p;
  const uint64_t rf = link_res_per_frame(p);
  const size_t R = (size_t)(frames * rf);
  const uint64_t chunks_per_frame = (rf + CPU_CHUNK - 1) / CPU_CHUNK;
  const long items = (long)(frames * chunks_per_frame);
  const double t0 = clock_seconds();
  cpu_draw_stage(p, s, draw_frame, frames);
  if (s->coded.on) cpu_coded_labels(p, s, first_frame, frames, t);
  const double t1 = clock_seconds();
  if (p->domain == DOMAIN_TIME) {
    if (cpu_modem_stage(p, s, draw_frame, frames))
      return backend_fail(b, "cpu backend: no memory for the time-domain modem's scratch");
  } else {
#pragma omp parallel for schedule(dynamic, 4)
    for (long it = 0; it < items; it++) {
      const frame_chunk c = cpu_chunk_of(it, rf, chunks_per_frame);
      chan_apply(p, draw_frame + c.f, c.m0, c.n, s->H + c.o, R, s->x + c.o, R, s->y + c.o, R);
    }
  }
  if (p->estimation == EST_LS) cpu_estimate_stage(p, s, frames);
  const double t2 = clock_seconds();
  const int linear = link_detector_is_linear(p->equalizer);
  if (linear) {
    cpu_receiver_stage(p, s, R, &out->t);
    cpu_repair_flagged(p, s, frames, out->fallbacks, &out->t);
  } else {
    cpu_detect_joint(p, s, frames, out);
  }
  const double t3 = clock_seconds();
  cpu_count_errors(p, s, frames, out->errors);
  out->t.draw += t1 - t0;
  out->t.channel += t2 - t1;
  out->t.demap += clock_seconds() - t3;
  if (linear && p->llr != LLR_OFF) cpu_soft_linear(p, s, frames, out);
  return 0;
}

/* HARQ: transmissions 1, 2, ... of the batch while a TB is still lost, each
 * on draws of its own (rng_harq_frame), its bit errors, fallbacks and losses
 * not counted (the point's BER and GMI are the first transmission's), its
 * LLRs combined and decoded for the lost TBs (cpu_coded_retry). */
static int cpu_harq(backend *b, uint64_t first_frame, uint64_t frames, batch_result *out) {
  cpu_state *s = (cpu_state *)b->impl;
  for (int t = 1; t < s->coded.harq; t++) {
    int lost = 0;
    for (uint64_t f = 0; f < frames && !lost; f++) lost = out->coded[f].harq_error != 0;
    if (!lost) break;
    batch_result r = {0};
    r.errors = s->coded.errors;
    r.llr = s->coded.llr;
    if (cpu_pass(b, first_frame, rng_harq_frame(first_frame, t), t, frames, &r)) return -1;
    const double t4 = clock_seconds();
    cpu_coded_retry(&b->p, s, frames, t, s->coded.llr, out->coded);
    r.t.demap += clock_seconds() - t4;
    stage_times_add(&out->t, &r.t, 1.0);
  }
  return 0;
}

static int cpu_run(backend *b, uint64_t first_frame, uint64_t frames, batch_result *out) {
  cpu_state *s = (cpu_state *)b->impl;
  const link_params *p = &b->p;
  if (frames == 0 || frames > s->cap_frames)
    return backend_fail(b, "cpu backend: a batch of %llu frames, need 1..%llu",
                        (unsigned long long)frames, (unsigned long long)s->cap_frames);
  if (s->fused) {
    if (cpu_fused_run(p, s, first_frame, frames, out))
      return backend_fail(b, "cpu backend: no memory for the time-domain modem's scratch");
    return 0;
  }
  /* the coded link decodes the LLRs: the caller's, or the backend's own */
  float *const caller_llr = out->llr;
  if (s->coded.on && !out->llr) out->llr = s->coded.llr;
  out->t = (stage_times){0};
  const int rc = cpu_pass(b, first_frame, first_frame, 0, frames, out);
  if (!rc && s->coded.on && out->coded) { /* NULL: the LLRs alone (an export) */
    const double t4 = clock_seconds();
    cpu_coded_decode(p, s, frames, out->llr, out->coded);
    out->t.demap += clock_seconds() - t4;
  }
  out->llr = caller_llr;
  if (rc) return rc;
  if (s->coded.on && out->coded && s->coded.harq > 1 && cpu_harq(b, first_frame, frames, out)) return -1;
  out->inversions = (uint64_t)(frames * link_res_per_frame(p)) * link_inversions_per_re(p);
  return 0;
}

static int cpu_fetch(backend *b, backend_buffer which, cf32 *dst, size_t count) {
  cpu_state *s = (cpu_state *)b->impl;
  if (s->fused)
    return backend_fail(b, "cpu backend: a fused batch keeps no buffers to fetch (create it with cpu.staged = 1)");
  const cf32 *src = backend_buffer_pick(which, s->x, s->H, s->y, s->xhat, s->Ginv, s->Hhat);
  const size_t need = backend_buffer_elements(&b->p, which, b->last_frames);
  if (!src || !dst || need == 0 || count != need)
    return backend_fail(b, "cpu backend: fetch of buffer %d with %zu elements, the batch has %zu",
                        (int)which, count, need);
  /* A batch of R REs uses element stride R: the leading part of each buffer. */
  memcpy(dst, src, sizeof(cf32) * need);
  return 0;
}

/* No submit: the shell runs each submitted batch at its collect (a CPU
 * batch keeps this thread's cores busy anyway; nothing overlaps it). */
static const struct backend_ops cpu_ops = {"cpu", cpu_max_frames, cpu_run, cpu_fetch, cpu_destroy, NULL, NULL, NULL};

static void *alloc_or_null(size_t bytes) { return bytes ? malloc(bytes) : NULL; }

/* The CPU backend's own options (backend_setting {"cpu", name, value}). */
typedef struct cpu_options {
  int threads; /* OpenMP threads, 0 = all */
  int staged;  /* 1 = one pass per stage over batch-sized buffers (per-stage
                  timing, fetch); 0 = fused where the point allows
                  (cpu/fused_cpu.c) */
  int td_direct; /* 1 = the time domain convolves sample by sample even where
                    the CP-aligned transform applies (channel/ofdm.h) */
} cpu_options;

static const backend_option_spec cpu_option_specs[] = {
    {"threads", offsetof(cpu_options, threads), BACKEND_OPT_INT, 0, 1 << 20},
    {"staged", offsetof(cpu_options, staged), BACKEND_OPT_INT, 0, 1},
    {"td_direct", offsetof(cpu_options, td_direct), BACKEND_OPT_INT, 0, 1},
};

backend *backend_cpu_create(const link_params *p, const backend_options *opt, char *err,
                                 size_t errlen) {
  cpu_options o = {0, 0, 0};
  if (opt && backend_options_read(opt, "cpu", cpu_option_specs,
                                  (int)(sizeof cpu_option_specs / sizeof *cpu_option_specs), &o, err, errlen))
    return NULL;
  backend *b = backend_alloc(&cpu_ops, p, opt, sizeof(cpu_state), err, errlen);
  if (!b) return NULL;
  cpu_state *s = (cpu_state *)b->impl;
  if (o.threads > 0) omp_set_num_threads(o.threads);
  s->nthreads = omp_get_max_threads();
  if (chan_spatial_init(p, &s->spatial, err, errlen)) goto fail;
  s->re = re_ctx_of(p, &s->spatial);
  if (p->pilot_kind == PILOT_DMRS) {
    dmrs_grid *d = &s->re.pilots.dm;
    s->dmrs_seq = malloc(sizeof(uint32_t) * (size_t)(d->occasions * d->len) * (size_t)d->seq_words);
    if (!s->dmrs_seq) {
      snprintf(err, errlen, "cpu backend: no memory for the DMRS sequence");
      goto fail;
    }
    dmrs_fill_sequence(d, p->dmrs_nid, s->dmrs_seq);
    d->seq = s->dmrs_seq;
  }
  if (p->model == CH_TDL && tdl_grid_make(p, &s->grid, err, errlen)) goto fail;
  if (p->domain == DOMAIN_TIME) {
    if (!(s->modem = ofdm_modem_create(p, &s->grid, err, errlen))) goto fail;
    ofdm_modem_set_direct(s->modem, o.td_direct);
    b->td_path = ofdm_modem_transform(s->modem) ? "CP-aligned transform" : "sample by sample";
  }
  const int est = p->estimation == EST_LS;
  if (est && (est_plan_make(p, &s->est, err, errlen) || est_plan_matches(&s->est, p, err, errlen))) goto fail;
  if (est && s->est.tt &&
      !(s->lanes2d = est_2d_lanes_create(s->est.first, s->est.w, s->est.taps, s->est.tt, p->tx, p->symbols,
                                         (int)s->est.K))) {
    snprintf(err, errlen, "cpu backend: no memory for lmmse2d's lane-major weights");
    goto fail;
  }

  const uint64_t rf = link_res_per_frame(p);
  uint64_t frames = CPU_BATCH_BYTES / (bytes_per_re(p) * rf);
  if (frames < 1) frames = 1;
  if (opt->max_batch_frames && frames > opt->max_batch_frames) frames = opt->max_batch_frames;
  s->cap_frames = frames;
  if (link_coded(p) && cpu_coded_init(p, s, frames, err, errlen)) goto fail;
  if (!o.staged && cpu_fused_covers(p)) {
    /* per thread a scratch block, and the batch's size as the staged path's
     * (the same batches, so the same work past a stop) */
    s->fused_stride = (cpu_fused_scratch_bytes(p) + 63) & ~(size_t)63;
    s->fused = aligned_alloc(64, s->fused_stride * (size_t)s->nthreads);
    if (!s->fused) {
      snprintf(err, errlen, "cpu backend: cannot allocate %zu bytes of fused scratch", s->fused_stride);
      goto fail;
    }
    return b;
  }
  const size_t R = (size_t)(frames * rf), tx = (size_t)p->tx, rx = (size_t)p->rx;
  s->labels = alloc_or_null(tx * R);
  s->x = alloc_or_null(sizeof(cf32) * tx * R);
  s->H = alloc_or_null(sizeof(cf32) * rx * tx * R);
  s->Hhat = p->csi_error_var > 0 || est ? alloc_or_null(sizeof(cf32) * rx * tx * R) : s->H;
  if (est) s->hp = alloc_or_null(sizeof(cf32) * (size_t)s->nthreads * est_scratch_elems(&s->est));
  s->y = alloc_or_null(sizeof(cf32) * rx * R);
  s->G = alloc_or_null(sizeof(cf32) * tx * tx * R);
  s->Ginv = alloc_or_null(sizeof(cf32) * tx * tx * R);
  s->z = alloc_or_null(sizeof(cf32) * tx * R);
  s->xhat = alloc_or_null(sizeof(cf32) * tx * R);
  s->taps = alloc_or_null(sizeof(cf32) * (size_t)frames * rx * tx * TDL_MAX_TAPS);
  s->Hk = alloc_or_null(sizeof(cf32) * (size_t)s->nthreads * rx * tx * (size_t)p->subcarriers);
  const int fading = link_doppler_per_sample(p) > 0.0;
  if (fading) s->sos = alloc_or_null(sizeof(sos_term) * (size_t)frames * tdl_fade_terms(p));
  if (!s->labels || !s->x || !s->H || !s->Hhat || !s->y || !s->G || !s->Ginv || !s->z || !s->xhat ||
      !s->taps || !s->Hk || (fading && !s->sos) || (est && !s->hp)) {
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

void backend_cpu_describe(char *out, size_t n) {
  char line[512], model[256] = "unknown CPU";
  FILE *f = fopen("/proc/cpuinfo", "r");
  while (f && fgets(line, sizeof line, f)) {
    const char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) || !colon) continue;
    snprintf(model, sizeof model, "%s", colon + 2);
    model[strcspn(model, "\n")] = '\0';
    break;
  }
  if (f) fclose(f);
  snprintf(out, n, "%s, %d threads", model, omp_get_max_threads());
}
