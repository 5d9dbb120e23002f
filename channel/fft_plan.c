/* FFTW plan creation and destruction under the one planner lock (fft_plan.h). */
#include "channel/fft_plan.h"

#include <pthread.h>

static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;

fftwf_plan fft_plan_1d(int n, fftwf_complex *buf, int sign, unsigned extra_flags) {
  pthread_mutex_lock(&planner_lock);
  fftwf_plan plan = fftwf_plan_dft_1d(n, buf, buf, sign, FFTW_ESTIMATE | extra_flags);
  pthread_mutex_unlock(&planner_lock);
  return plan;
}

void fft_plan_destroy(fftwf_plan plan) {
  if (!plan) return;
  pthread_mutex_lock(&planner_lock);
  fftwf_destroy_plan(plan);
  pthread_mutex_unlock(&planner_lock);
}
