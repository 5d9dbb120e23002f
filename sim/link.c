/* SNR definitions and the backend registry. */
#include "sim/link.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/backend_cpu.h"
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
