/* The CPU backend's public face: its create and description for the
 * registry (sim/backends.c); the rest is the interface of core/backend.h. */
#ifndef OFDMSIM_BACKEND_CPU_H
#define OFDMSIM_BACKEND_CPU_H

#include <stddef.h>

#include "core/backend.h"

/* The CPU reference backend: every stage over struct-of-arrays buffers, OpenMP
 * across frames and REs. Its options (backend_setting {"cpu", ...}):
 *   threads  OpenMP threads, 0 (default) = all;
 *   staged   1 = one pass per stage over batch-sized buffers (per-stage
 *            timing, fetch); 0 (default) = fused where the point allows
 *            (cpu/fused_cpu.c). */
backend *backend_cpu_create(const link_params *p, const backend_options *opt, char *err, size_t errlen);

/* What runs the CPU backend, for the results' provenance: the CPU model and
 * the OpenMP threads of the calling thread ("<model>, N threads"). */
void backend_cpu_describe(char *out, size_t n);

#endif
