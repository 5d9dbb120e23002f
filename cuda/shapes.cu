/* The (tx, rx) shapes of the per-RE kernels this build compiled (CMake's
 * OFDMSIM_CUDA_SHAPES: all 40 by default, a few for a quicker development
 * build), the check that refuses any other at backend creation, and the
 * launchers of the fused kernels (and the fused estimation's pilot rows),
 * which are compiled per group of shapes (fused_gpu.cu) and reached from
 * here through gpu_dispatch. */
#include <stdio.h>

#include "core/params.h"
#include "cuda/gpu_internal.cuh"

int gpu_shape_check(int tx, int rx, char *err, size_t errlen) {
  const int nr = gpu_rows_of(rx);
  if (gpu_shape_compiled(tx, nr)) return 0;
  snprintf(err, errlen,
           "tx = %d, rx = %d needs the CUDA kernels of shape %dx%d (tx x rx rounded up to a power of two), and "
           "this build has only OFDMSIM_CUDA_SHAPES = \"%s\": configure with -DOFDMSIM_CUDA_SHAPES=all (the "
           "default) or add %dx%d",
           tx, rx, tx, nr, OFDMSIM_CUDA_SHAPES_TEXT, tx, nr);
  return -1;
}

int gpu_launch_fused(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                     uint32_t *errors, uint32_t *repair, unsigned long long *loss, cudaStream_t s) {
  return gpu_dispatch<Fused>(g.tx, g.rx, g, c, Hk, yt, errors, repair, loss, s);
}

int gpu_launch_repair(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                      const uint32_t *repair, uint32_t *errors, uint32_t *fallbacks, unsigned long long *loss,
                      cudaStream_t s) {
  return gpu_dispatch<Repair>(g.tx, g.rx, g, c, Hk, yt, repair, errors, fallbacks, loss, s);
}

int gpu_fused_soft_covers(const gpu_link &g) {
  return link_detector_is_linear((eq_kind)g.equalizer) && g.tx <= GPU_FUSED_SOFT_MAX_TX && g.rx == gpu_rows_of(g.rx) &&
         gpu_link_lean(g);
}

int gpu_launch_fused_estimate(const gpu_link &g, const gpu_consts *c, const cf32 *Hk, const cf32 *yt,
                              cudaStream_t s) {
  if (gpu_dispatch<PilotRows>(g.tx, g.rx, g, c, Hk, yt, s)) return -1;
  return gpu_launch_estimate_pilots(g, g.est, s);
}

int gpu_fused_soft_refused(const gpu_link &g) {
  char what[96];
  snprintf(what, sizeof what, "fused soft receiver of %d x %d", g.tx, g.rx);
  gpu_report_failure(__FILE__, __LINE__, what, "refused",
                     "not compiled for this link (gpu_fused_soft_covers): the detect kernel takes it", 0);
  return -1;
}

int gpu_fused_sic_refused(int nt) {
  char what[96];
  snprintf(what, sizeof what, "fused MMSE-SIC with %d streams (compiled up to %d)", nt, GPU_FUSED_SIC_MAX_TX);
  gpu_report_failure(__FILE__, __LINE__, what, "refused", "the backend runs this point staged", 0);
  return -1;
}
