/* The CPU backend's public face: its create (the rest is the interface of core/backend.h). */
#ifndef OFDMSIM_BACKEND_CPU_H
#define OFDMSIM_BACKEND_CPU_H
#include "core/backend.h"
/* The CPU reference backend: every stage over struct-of-arrays buffers, OpenMP
 * across frames and REs. */
backend *backend_cpu_create(const link_params *p, const backend_options *opt, char *err,
                                 size_t errlen);
#endif
