/* A rank's compute thread (lane.h). */
#define _GNU_SOURCE
#include "mpi/lane.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "sim/backends.h"
#include "sim/sweep_run.h"

typedef struct msg_node {
  lane_msg m;
  struct msg_node *next;
} msg_node;

struct lane {
  const mpi_job *j;
  const sim_config *c;
  unit_exec *x;            /* the lane thread's alone */
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t to_lane, from_lane; /* an order came; a message went */
  /* under mu: */
  unit_spec q[LANE_DEPTH + 1];
  int nq, stop, running;   /* running: q[0] is under way */
  int cancelled;           /* q[0]'s point was cancelled while under way */
  int failed;
  unit_spec know;          /* a prefix for q[0] under way, not yet applied */
  int has_know;
  msg_node *head, *tail;   /* messages posted, oldest first */
  lane_times t;
};

/* pthread_cond_timedwait's deadline `seconds` from now on CLOCK_MONOTONIC. */
static struct timespec deadline(double seconds) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const long long ns = ts.tv_nsec + (long long)(seconds * 1e9);
  ts.tv_sec += (time_t)(ns / 1000000000);
  ts.tv_nsec = (long)(ns % 1000000000);
  return ts;
}

/* Posts a message (the bytes become the lane's to give). Under mu. */
static void post(lane *l, int tag, uint8_t *buf, size_t len) {
  msg_node *n = malloc(sizeof *n);
  if (!n) {
    fprintf(stderr, "ofdmsim: error: rank %d out of memory for a message\n", l->j->rank);
    abort();
  }
  n->m = (lane_msg){tag, buf, len};
  n->next = NULL;
  if (l->tail) l->tail->next = n;
  else l->head = n;
  l->tail = n;
  pthread_cond_signal(&l->from_lane);
}

static void post_text(lane *l, int tag, const char *text) {
  const size_t n = strlen(text) + 1;
  uint8_t *buf = malloc(n);
  if (!buf) abort();
  memcpy(buf, text, n);
  post(l, tag, buf, n);
}

/* The unit just computed, its arrays handed over: the lane's next unit
 * starts at once, and the rank's main thread encodes these meanwhile. */
static local_result *take_result(lane *l) {
  local_result *r = calloc(1, sizeof *r);
  if (!r) {
    fprintf(stderr, "ofdmsim: error: rank %d out of memory\n", l->j->rank);
    abort();
  }
  r->h.u = *unit_exec_spec(l->x);
  r->h.cost = unit_exec_cost(l->x);
  snprintf(r->h.backend, sizeof r->h.backend, "%s", unit_exec_backend(l->x));
  unit_exec_take_counts(l->x, &r->errors, &r->fallbacks, &r->loss, &r->loss_s, &r->coded);
  return r;
}

void lane_msg_free(lane_msg *m) {
  if (m->tag == TAG_RESULT && m->buf) {
    local_result *r = (local_result *)m->buf;
    free(r->errors);
    free(r->fallbacks);
    free(r->loss);
    free(r->loss_s);
    free(r->coded);
  }
  free(m->buf);
  m->buf = NULL;
}

static void *lane_main(void *arg) {
  lane *l = arg;
  char err[600] = "", note[256];
  /* The device is a thread's own in CUDA: take the rank's GPU again here. */
  if (backends_use_gpu_of_rank(l->j->local_rank, l->j->local_size, note, sizeof note)) {
    pthread_mutex_lock(&l->mu);
    l->failed = 1;
    char msg[400];
    snprintf(msg, sizeof msg, "its GPU: %s", note);
    post_text(l, TAG_FAIL, msg);
    pthread_mutex_unlock(&l->mu);
  }
  int started = 0;
  double last_end = 0;
  pthread_mutex_lock(&l->mu);
  for (;;) {
    /* a signal stops the units here too (the coordinator decides the rest) */
    while (!l->stop && (l->nq == 0 || l->failed || sweep_interrupted())) {
      const struct timespec ts = deadline(0.05);
      pthread_cond_timedwait(&l->to_lane, &l->mu, &ts);
    }
    if (l->stop) break;
    const unit_spec u = l->q[0];
    l->running = 1;
    l->cancelled = l->has_know = 0;
    pthread_mutex_unlock(&l->mu);
    const double t0 = clock_seconds();
    if (started) l->t.idle += t0 - last_end;
    int step = unit_exec_start(l->x, &u, err, sizeof err) ? -1 : 1;
    const double t1 = clock_seconds();
    if (!started) l->t.startup = t1 - l->j->t_start;
    else l->t.setup += t1 - t0;
    started = 1;
    int go = 1;
    while (step == 1 && go) {
      step = unit_exec_step(l->x, err, sizeof err);
      pthread_mutex_lock(&l->mu);
      if (l->has_know) unit_exec_know(l->x, &l->know);
      l->has_know = 0;
      go = !l->stop && !l->cancelled && !sweep_interrupted();
      pthread_mutex_unlock(&l->mu);
    }
    lane_msg res = {TAG_RESULT, NULL, sizeof(local_result)};
    if (step == 0) res.buf = (uint8_t *)take_result(l);
    pthread_mutex_lock(&l->mu);
    if (step < 0) {
      char msg[700];
      snprintf(msg, sizeof msg, "point %llu: %s", (unsigned long long)u.point, err);
      post_text(l, TAG_FAIL, msg);
      l->failed = 1;
    } else if (res.buf && !l->cancelled) {
      post(l, TAG_RESULT, res.buf, res.len);
      res.buf = NULL;
    }
    lane_msg_free(&res);
    last_end = clock_seconds();
    l->running = 0;
    memmove(l->q, l->q + 1, sizeof *l->q * (size_t)--l->nq);
  }
  const double end = clock_seconds();
  l->t.tail = started ? end - last_end : 0;
  if (!started) l->t.startup = end - l->j->t_start;
  l->t.wall = end - l->j->t_start;
  const mpi_job *j = l->j;
  l->t.to_mpi = j->t_mpi > 0 ? j->t_mpi - j->t_start : 0;
  l->t.to_gpu = j->t_gpu > 0 ? j->t_gpu - j->t_start : 0;
  l->t.to_ready = j->t_ready > 0 ? j->t_ready - j->t_start : 0;
  pthread_mutex_unlock(&l->mu);
  return NULL;
}

lane *lane_start(const mpi_job *j, const sim_config *c, const run_options *o, double pace) {
  lane *l = calloc(1, sizeof *l);
  if (!l) return NULL;
  l->j = j;
  l->c = c;
  l->x = unit_exec_create(c, o->backend, o->threads);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_mutex_init(&l->mu, NULL);
  pthread_cond_init(&l->to_lane, &ca);
  pthread_cond_init(&l->from_lane, &ca);
  pthread_condattr_destroy(&ca);
  if (l->x) unit_exec_pace(l->x, pace);
  if (!l->x || pthread_create(&l->thread, NULL, lane_main, l)) {
    unit_exec_destroy(l->x);
    free(l);
    return NULL;
  }
  return l;
}

void lane_order(lane *l, const order *o) {
  pthread_mutex_lock(&l->mu);
  const unit_spec *k = &o->u;
  if (o->what == ORDER_UNIT) {
    if (l->nq <= LANE_DEPTH) l->q[l->nq++] = *k;
  } else if (o->what == ORDER_PREFIX) {
    for (int i = 0; i < l->nq; i++) {
      unit_spec *u = &l->q[i];
      if (u->point != k->point || u->first_chunk != k->first_chunk) continue;
      if (i == 0 && l->running) { /* the lane applies it between batches */
        l->know = *k;
        l->has_know = 1;
      } else if (!u->known) {
        const uint64_t frames = u->frames;
        *u = *k;
        u->frames = frames;
      }
    }
  } else if (o->what == ORDER_CANCEL) {
    for (int i = l->nq - 1; i >= 0; i--) {
      if (l->q[i].point != k->point) continue;
      if (i == 0 && l->running) {
        l->cancelled = 1; /* dropped by the lane */
        continue;
      }
      memmove(l->q + i, l->q + i + 1, sizeof *l->q * (size_t)(l->nq - i - 1));
      l->nq--;
    }
  }
  pthread_cond_signal(&l->to_lane);
  pthread_mutex_unlock(&l->mu);
}

int lane_take(lane *l, lane_msg *m) {
  pthread_mutex_lock(&l->mu);
  msg_node *n = l->head;
  if (n) {
    l->head = n->next;
    if (!l->head) l->tail = NULL;
    *m = n->m;
  }
  pthread_mutex_unlock(&l->mu);
  free(n);
  return n != NULL;
}

void lane_wait(lane *l, double seconds) {
  pthread_mutex_lock(&l->mu);
  if (!l->head) {
    const struct timespec ts = deadline(seconds);
    pthread_cond_timedwait(&l->from_lane, &l->mu, &ts);
  }
  pthread_mutex_unlock(&l->mu);
}

int lane_failed(lane *l) {
  pthread_mutex_lock(&l->mu);
  const int f = l->failed;
  pthread_mutex_unlock(&l->mu);
  return f;
}

void lane_stop(lane *l, lane_times *t) {
  pthread_mutex_lock(&l->mu);
  l->stop = 1;
  pthread_cond_signal(&l->to_lane);
  pthread_mutex_unlock(&l->mu);
  pthread_join(l->thread, NULL);
  *t = l->t;
}

void lane_free(lane *l) {
  if (!l) return;
  lane_msg m;
  while (lane_take(l, &m)) lane_msg_free(&m);
  unit_exec_destroy(l->x);
  pthread_mutex_destroy(&l->mu);
  pthread_cond_destroy(&l->to_lane);
  pthread_cond_destroy(&l->from_lane);
  free(l);
}
