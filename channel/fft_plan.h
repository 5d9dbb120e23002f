/* FFTW plans made and destroyed under one process-wide lock: FFTW's planner
 * is not thread-safe (only fftwf_execute_dft is), and modems or response
 * objects may be created from several threads at once. Code elsewhere that
 * plans with FFTW should go through these too. */
#ifndef OFDMSIM_FFT_PLAN_H
#define OFDMSIM_FFT_PLAN_H

#include <fftw3.h>

/* A 1-D in-place complex plan of n points on `buf` (FFTW_ESTIMATE, so every run
 * picks the same algorithm and results repeat bit for bit). sign:
 * FFTW_FORWARD or FFTW_BACKWARD; extra_flags e.g. FFTW_UNALIGNED. */
fftwf_plan fft_plan_1d(int n, fftwf_complex *buf, int sign, unsigned extra_flags);
void fft_plan_destroy(fftwf_plan plan);

#endif
