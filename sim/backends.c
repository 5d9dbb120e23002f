/* The backend registry: a descriptor a backend, names to backends, "auto"
 * resolved once (backends.h). The one file that knows which backends this
 * build has. */
#include "sim/backends.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cpu/backend_cpu.h"
#ifdef OFDMSIM_HAVE_CUDA
#include "cuda/backend_cuda.h"
#endif

typedef struct backend_entry {
  const char *name;
  /* 1 when usable on this machine, else 0 with the reason in why */
  int (*usable)(char *why, size_t whylen);
  backend *(*create)(const link_params *p, const backend_options *opt, char *err, size_t errlen);
  /* the device string of the results' provenance */
  void (*describe)(char *out, size_t n);
  /* the MPI engine: the device of a node-local rank (NULL: nothing to bind) */
  int (*bind_rank)(int local_rank, int local_size, char *note, size_t notelen);
  /* before any call to the device: show the rank only its own (NULL: none) */
  void (*pin_rank)(int local_rank, int local_size);
  /* device memory for a library caller's buffers (NULL: a host backend) */
  void *(*device_alloc)(size_t bytes, char *why, size_t whylen);
  void (*device_free)(void *p);
  /* 1 when it simulates point p (NULL: every point); backends_create passes
   * a point to the next backend otherwise */
  int (*covers)(const link_params *p);
} backend_entry;

#ifndef OFDMSIM_HAVE_CUDA
/* A build without CUDA: nothing to cover (cuda_absent says why). */
static int uncoded_only(const link_params *p) { return !link_coded(p); }
#endif

static int cpu_usable(char *why, size_t whylen) {
  (void)why;
  (void)whylen;
  return 1;
}

#ifndef OFDMSIM_HAVE_CUDA
static int cuda_absent(char *why, size_t whylen) {
  snprintf(why, whylen, "this build has no CUDA backend (configure with a CUDA compiler)");
  return 0;
}
#endif

/* In the order "auto" prefers them, the CPU (always usable) last. */
static const backend_entry entries[] = {
#ifdef OFDMSIM_HAVE_CUDA
    {"cuda", backend_cuda_available, backend_cuda_create, backend_cuda_describe, backend_cuda_bind_rank,
     backend_cuda_pin_rank, backend_cuda_device_alloc, backend_cuda_device_free, backend_cuda_covers},
#else
    {"cuda", cuda_absent, NULL, NULL, NULL, NULL, NULL, NULL, uncoded_only},
#endif
    {"cpu", cpu_usable, backend_cpu_create, backend_cpu_describe, NULL, NULL, NULL, NULL, NULL},
};
#define N_ENTRIES (sizeof entries / sizeof *entries)

static const backend_entry *entry_of(const char *name) {
  for (size_t i = 0; i < N_ENTRIES; i++)
    if (!strcmp(entries[i].name, name)) return &entries[i];
  return NULL;
}

int backends_usable(const char *name, char *why, size_t whylen) {
  const backend_entry *e = entry_of(name);
  if (!e) {
    snprintf(why, whylen, "unknown backend '%s'", name);
    return 0;
  }
  return e->usable(why, whylen);
}

void backends_describe(const char *name, char *out, size_t n) {
  const backend_entry *e = entry_of(name);
  if (e && e->describe) e->describe(out, n);
  else snprintf(out, n, "%s", name);
}

/* The warm-up of backends_warm_rank: started, and what it found. */
static struct {
  pthread_t thread;
  int started, local_rank, local_size, rc;
  char note[256];
} g_warm;

static int bind_all(int local_rank, int local_size, char *note, size_t notelen) {
  note[0] = '\0';
  for (size_t i = 0; i < N_ENTRIES; i++)
    if (entries[i].bind_rank && entries[i].bind_rank(local_rank, local_size, note, notelen)) return -1;
  return 0;
}

static void *warm_main(void *arg) {
  (void)arg;
  g_warm.rc = bind_all(g_warm.local_rank, g_warm.local_size, g_warm.note, sizeof g_warm.note);
  return NULL;
}

void backends_warm_rank(int local_rank, int local_size) {
  int any = 0;
  for (size_t i = 0; i < N_ENTRIES; i++) any |= entries[i].bind_rank != NULL;
  if (!any || g_warm.started) return;
  g_warm.local_rank = local_rank;
  g_warm.local_size = local_size;
  g_warm.started = pthread_create(&g_warm.thread, NULL, warm_main, NULL) == 0;
}

int backends_use_gpu_of_rank(int local_rank, int local_size, char *note, size_t notelen) {
  if (g_warm.started) {
    pthread_join(g_warm.thread, NULL);
    g_warm.started = 0;
    if (g_warm.rc) {
      snprintf(note, notelen, "%s", g_warm.note);
      return -1;
    }
  }
  /* again on this thread (a CUDA device is a thread's own; the context the
   * warm-up made is there, so this is quick) */
  return bind_all(local_rank, local_size, note, notelen);
}

void backends_pin_rank(int local_rank, int local_size) {
  for (size_t i = 0; i < N_ENTRIES; i++)
    if (entries[i].pin_rank) entries[i].pin_rank(local_rank, local_size);
}

const char *backends_resolve(const char *name, char *why, size_t whylen) {
  char reason[256] = "";
  if (!strcmp(name, "auto")) {
    for (size_t i = 0; i < N_ENTRIES; i++)
      if (entries[i].usable(reason, sizeof reason)) return entries[i].name;
    snprintf(why, whylen, "no backend is usable here");
    return NULL;
  }
  const backend_entry *e = entry_of(name);
  if (!e) {
    snprintf(why, whylen, "unknown backend '%s'", name);
    return NULL;
  }
  if (e->usable(reason, sizeof reason)) return e->name;
  snprintf(why, whylen, "backend %s: %s", name, reason);
  return NULL;
}

backend *backends_create(const char *name, const link_params *p, const backend_options *opt,
                         char *err, size_t errlen) {
  const char *resolved = backends_resolve(name, err, errlen);
  if (!resolved) return NULL;
  const backend_entry *e = entry_of(resolved);
  /* a point the backend does not cover goes to the next usable one that
   * does (the CPU covers all); the results name, point by point, the
   * backend that ran it */
  char reason[256];
  for (const backend_entry *x = e; x < entries + N_ENTRIES; x++)
    if ((!x->covers || x->covers(p)) && x->usable(reason, sizeof reason)) {
      e = x;
      break;
    }
  return e->create(p, opt, err, errlen);
}

int backends_on_device(const char *name) {
  const backend_entry *e = entry_of(name);
  return e && e->device_alloc;
}

void *backends_device_alloc(const char *name, size_t bytes, char *why, size_t whylen) {
  const backend_entry *e = entry_of(name);
  if (e && e->device_alloc) return e->device_alloc(bytes, why, whylen);
  snprintf(why, whylen, "backend %s has no device memory: its buffers are host memory", name);
  return NULL;
}

void backends_device_free(const char *name, void *p) {
  const backend_entry *e = entry_of(name);
  if (e && e->device_free) e->device_free(p);
}
