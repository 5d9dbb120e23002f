/* SNR definitions and the backend registry. */
#include "sim/link.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/backend_cpu.h"
#include "sim/qam.h"
#ifdef OFDMSIM_HAVE_CUDA
#include "cuda/backend_cuda.h"
#endif

double link_noise_variance(snr_def kind, double snr_db, int tx, int bps) {
  const double lin = pow(10.0, snr_db / 10.0);
  switch (kind) {
    case SNR_ESNO: return 1.0 / lin;                 /* Es/N0 per stream */
    case SNR_EBNO: return 1.0 / (lin * bps);         /* Es/N0 = Eb/N0 * bits per symbol */
    case SNR_SNR: return (double)tx / lin;           /* total received power tx per antenna */
  }
  return NAN;
}

size_t link_buffer_elements(const link_params *p, link_buffer which, uint64_t frames) {
  const size_t R = (size_t)(frames * link_res_per_frame(p)), tx = (size_t)p->tx, rx = (size_t)p->rx;
  switch (which) {
    case LINK_BUF_X: return tx * R;
    case LINK_BUF_H: return rx * tx * R;
    case LINK_BUF_Y: return rx * R;
    case LINK_BUF_XHAT: return tx * R;
    case LINK_BUF_GINV: return tx * tx * R;
  }
  return 0;
}

int link_params_check(const link_params *p, char *err, size_t errlen) {
  if (p->tx < 1 || p->tx > LINK_MAX_TX || p->rx < 1 || p->rx > LINK_MAX_RX) {
    snprintf(err, errlen, "antennas %d x %d outside 1..%d transmit, 1..%d receive",
             p->tx, p->rx, LINK_MAX_TX, LINK_MAX_RX);
    return -1;
  }
  if (!qam_bps_valid(p->bps)) {
    snprintf(err, errlen, "%d bits per symbol (need 1, 2, 4, 6 or 8)", p->bps);
    return -1;
  }
  if (p->subcarriers < 1 || p->subcarriers > (1 << 24) || p->symbols < 1 ||
      p->symbols > (1 << 16)) {
    snprintf(err, errlen, "%d subcarriers x %d symbols, need 1..%d x 1..%d",
             p->subcarriers, p->symbols, 1 << 24, 1 << 16);
    return -1;
  }
  if (!(p->n0 >= 0.0) || !isfinite(p->n0) || !(p->csi_error_var >= 0.0) ||
      !isfinite(p->csi_error_var)) {
    snprintf(err, errlen, "noise variance %g and CSI error variance %g must be "
             "finite and >= 0", p->n0, p->csi_error_var);
    return -1;
  }
  if (p->model == CH_TDL) {
    if (p->pdp.taps < 1 || p->pdp.taps > TDL_MAX_TAPS) {
      snprintf(err, errlen, "profile with %d taps, need 1..%d", p->pdp.taps,
               TDL_MAX_TAPS);
      return -1;
    }
    for (int l = 0; l < p->pdp.taps; l++) {
      if (p->pdp.delay[l] < 0) {
        snprintf(err, errlen, "tap %d has negative delay %d", l, p->pdp.delay[l]);
        return -1;
      }
    }
  }
  if (p->domain == DOMAIN_TIME) {
    if (p->model != CH_TDL && p->model != CH_AWGN) {
      snprintf(err, errlen, "the time-domain link needs channel model tdl or awgn "
               "(rayleigh is i.i.d. per resource element and has no time-domain form)");
      return -1;
    }
    if (p->cp_length < 0 || p->cp_length > p->subcarriers) {
      snprintf(err, errlen, "cyclic prefix %d outside 0..%d (the subcarriers)",
               p->cp_length, p->subcarriers);
      return -1;
    }
  }
  return 0;
}

link_backend *link_backend_alloc(const struct link_backend_ops *ops, const link_params *p,
                                 const backend_options *opt, size_t impl_size, char *err,
                                 size_t errlen) {
  char why[256];
  if (!p || !opt) {
    snprintf(err, errlen, "%s backend: no parameters or options", ops->name);
    return NULL;
  }
  if (link_params_check(p, why, sizeof why)) {
    snprintf(err, errlen, "%s backend: %s", ops->name, why);
    return NULL;
  }
  link_backend *b = calloc(1, sizeof *b);
  void *impl = calloc(1, impl_size);
  if (!b || !impl) {
    free(b);
    free(impl);
    snprintf(err, errlen, "%s backend: out of host memory", ops->name);
    return NULL;
  }
  b->ops = ops;
  b->p = *p;
  b->opt = *opt;
  b->impl = impl;
  return b;
}

int link_cuda_available(char *why, size_t whylen) {
#ifdef OFDMSIM_HAVE_CUDA
  return backend_cuda_available(why, whylen);
#else
  snprintf(why, whylen, "this build has no CUDA backend (configure with a CUDA compiler)");
  return 0;
#endif
}

link_backend *link_backend_create(const char *name, const link_params *p,
                                  const backend_options *opt, char *err, size_t errlen) {
  char why[256] = "";
  if (!strcmp(name, "auto")) name = link_cuda_available(why, sizeof why) ? "cuda" : "cpu";
  if (!strcmp(name, "cpu")) return backend_cpu_create(p, opt, err, errlen);
  if (!strcmp(name, "cuda")) {
    if (!link_cuda_available(why, sizeof why)) {
      snprintf(err, errlen, "backend cuda: %s", why);
      return NULL;
    }
#ifdef OFDMSIM_HAVE_CUDA
    return backend_cuda_create(p, opt, err, errlen);
#endif
  }
  snprintf(err, errlen, "unknown backend '%s'", name);
  return NULL;
}

int link_backend_run(link_backend *b, uint64_t first_frame, uint64_t frames, batch_result *out) {
  memset(&out->t, 0, sizeof out->t);
  out->inversions = 0;
  memset(out->errors, 0, sizeof(uint32_t) * frames * (size_t)b->p.tx);
  const int rc = b->ops->run(b, first_frame, frames, out);
  if (rc == 0) b->last_frames = frames;
  return rc;
}

int link_backend_fetch(link_backend *b, link_buffer which, cf32 *dst, size_t count) {
  return b->ops->fetch(b, which, dst, count);
}

void link_backend_destroy(link_backend *b) {
  if (b) b->ops->destroy(b);
}

const char *link_backend_name(const link_backend *b) { return b->ops->name; }
