/* The MPI engine (engine.h): the coordinator on rank 0, the workers on the
 * others, and the messages between them. */
#define _GNU_SOURCE
#include "mpi/engine.h"

#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "mpi/lane.h"
#include "mpi/proto.h"
#include "results/frame_codec.h"
#include "sim/point_fold.h"
#include "sim/sweep_run.h"
#include "sim/work_unit.h"

#define NO_POINT UINT64_MAX
#define NO_CHUNK UINT64_MAX
/* The coordinator holds a rank to LANE_DEPTH units (lane.h). A unit is sized
 * to take about UNIT_SECONDS on its rank, less near the sweep's end (the
 * guided share below, down to MIN_UNIT_SECONDS), and holds at most
 * UNIT_MAX_FRAMES frames (its per-frame counts travel in one message). */
#define DEPTH LANE_DEPTH
#define UNIT_SECONDS 0.5
#define MIN_UNIT_SECONDS 0.02
#define UNIT_MAX_FRAMES (1ull << 22)
/* Seconds a batch may take at most: how soon a prefix or a cancel reaches a
 * unit under way. */
#define PACE_SECONDS 0.05

static void pause_briefly(void) {
  const struct timespec ts = {0, 50000}; /* 50 us: waiting without spinning a core */
  nanosleep(&ts, NULL);
}

/* ---- the worker ---------------------------------------------------------- */

typedef struct worker {
  MPI_Request sreq;
  uint8_t *out; /* the message being sent */
} worker;

/* Sends n bytes (taken over: freed once sent) after the send before. */
static void worker_send(worker *w, int tag, uint8_t *buf, size_t n) {
  MPI_Wait(&w->sreq, MPI_STATUS_IGNORE);
  free(w->out);
  w->out = buf;
  MPI_Isend(w->out, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &w->sreq);
}

static void worker_send_copy(worker *w, int tag, const void *src, size_t n) {
  uint8_t *buf = malloc(n);
  if (!buf) {
    fprintf(stderr, "ofdmsim: error: rank out of memory for a message of %zu bytes\n", n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memcpy(buf, src, n);
  worker_send(w, tag, buf, n);
}

/* Collects the closed chunks' tallies of a fold. */
typedef struct chunk_list {
  tally *t;
  uint64_t n, cap;
} chunk_list;

static int collect_chunk(void *ctx, uint64_t k, const tally *chunk, const char *stop) {
  (void)k;
  (void)stop;
  chunk_list *l = ctx;
  if (l->n < l->cap) l->t[l->n++] = *chunk;
  return 0;
}

/* A unit the lane computed as a result message (proto.h): its chunks'
 * tallies, folded here in frame order as rank 0 would (point_fold without
 * deciding), and each chunk's encoded frames (a coded point's TBs first). */
static uint8_t *encode_result(const sim_config *c, const local_result *r, size_t *len) {
  const unit_spec *u = &r->h.u;
  const sim_point *pt = &c->points[u->point];
  const int tx = pt->p.tx;
  const uint64_t most = u->chunks + 1;
  chunk_list l = {malloc(sizeof(tally) * most), 0, most};
  uint8_t *buf = l.t ? malloc(sizeof(result_head) + most * (sizeof(tally) + sizeof(uint64_t)) +
                              frame_encoded_max(u->frames, tx) + (r->coded ? coded_encoded_max(u->frames) : 0))
                     : NULL;
  if (!buf) {
    fprintf(stderr, "ofdmsim: error: rank out of memory for a unit of %llu frames\n", (unsigned long long)u->frames);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  point_fold f;
  point_fold_init(&f, pt, u->first_chunk, NULL, 0);
  point_fold_frames(&f, r->errors, r->fallbacks, r->loss, r->loss_s, r->coded, u->frames, &r->h.cost, collect_chunk,
                    &l, NULL);
  if (f.cur.frames && l.n < l.cap) l.t[l.n++] = f.cur; /* cut at its stop */
  result_head h = r->h;
  h.chunks = l.n;
  uint8_t *tallies = buf + sizeof h;
  uint8_t *lens = tallies + sizeof(tally) * l.n;
  uint8_t *out = lens + sizeof(uint64_t) * l.n;
  uint64_t off = 0;
  h.bytes = 0;
  for (uint64_t j = 0; j < l.n; j++) {
    const uint64_t n = l.t[j].frames;
    const uint64_t bc = r->coded ? coded_encode(r->coded + off, n, out + h.bytes) : 0;
    const uint64_t b = bc + frame_encode(r->errors + off * (uint64_t)tx, r->fallbacks + off,
                                         r->loss ? r->loss + off * (uint64_t)tx : NULL,
                                         r->loss_s ? r->loss_s + off * GMI_GRID : NULL, n, tx, out + h.bytes + bc);
    memcpy(lens + sizeof b * j, &b, sizeof b);
    h.bytes += b;
    off += n;
  }
  memcpy(tallies, l.t, sizeof(tally) * l.n);
  memcpy(buf, &h, sizeof h);
  free(l.t);
  *len = (size_t)(out + h.bytes - buf);
  return buf;
}

/* Sends what the lane posted; 1 when there was something. */
static int worker_forward(worker *w, lane *l, const sim_config *c) {
  lane_msg m;
  int any = 0;
  while (lane_take(l, &m)) {
    if (m.tag == TAG_RESULT) {
      size_t len;
      uint8_t *buf = encode_result(c, (const local_result *)m.buf, &len);
      lane_msg_free(&m);
      worker_send(w, TAG_RESULT, buf, len);
    } else {
      worker_send(w, m.tag, m.buf, m.len);
    }
    any = 1;
  }
  return any;
}

/* A worker's main thread: orders in, the lane's results out, at once (the
 * lane computes meanwhile), until rank 0 says stop. */
static int run_worker(const mpi_job *j, const sim_config *c, const run_options *o) {
  worker w = {.sreq = MPI_REQUEST_NULL};
  lane *l = lane_start(j, c, o, PACE_SECONDS);
  if (!l) MPI_Abort(MPI_COMM_WORLD, 1);
  hello h = {0};
  snprintf(h.host, sizeof h.host, "%s", j->host);
  snprintf(h.backend, sizeof h.backend, "%s", o->backend);
  snprintf(h.device, sizeof h.device, "%s", o->device ? o->device : "");
  worker_send_copy(&w, TAG_HELLO, &h, sizeof h);
  order inbox;
  MPI_Request rreq;
  MPI_Irecv(&inbox, sizeof inbox, MPI_BYTE, 0, TAG_ORDER, MPI_COMM_WORLD, &rreq);
  int told = 0, stopping = 0;
  while (!stopping) {
    int busy = 0;
    if (sweep_interrupted() && !told) { /* the coordinator decides; tell it */
      const int sig = sweep_interrupted();
      worker_send_copy(&w, TAG_SIGNAL, &sig, sizeof sig);
      told = 1;
    }
    int got = 0;
    MPI_Test(&rreq, &got, MPI_STATUS_IGNORE);
    if (got) {
      busy = 1;
      if (inbox.what == ORDER_STOP) stopping = 1;
      else lane_order(l, &inbox);
      if (!stopping) MPI_Irecv(&inbox, sizeof inbox, MPI_BYTE, 0, TAG_ORDER, MPI_COMM_WORLD, &rreq);
    }
    busy |= worker_forward(&w, l, c);
    int sent = 1;
    MPI_Test(&w.sreq, &sent, MPI_STATUS_IGNORE);
    /* A large result crosses in fragments this thread pushes: poll often
     * while one is on its way, else wait for the lane (a result wakes it). */
    if (!busy) lane_wait(l, sent ? 200e-6 : 20e-6);
  }
  bye b = {0};
  lane_stop(l, &b.t);
  worker_forward(&w, l, c); /* units done before the stop still count */
  b.rc = lane_failed(l);
  worker_send_copy(&w, TAG_BYE, &b, sizeof b);
  MPI_Wait(&w.sreq, MPI_STATUS_IGNORE);
  free(w.out);
  lane_free(l);
  int rc = b.rc;
  if (!rc && sweep_interrupted()) rc = 128 + sweep_interrupted();
  return rc;
}

/* ---- the coordinator ------------------------------------------------------ */

/* A unit's result waiting for the units ahead of it. */
typedef struct held {
  unit_spec u;
  uint32_t *errors, *fallbacks; /* rank 0's unit: its frames; */
  uint64_t *loss, *loss_s;      /* (GMI losses, NULL without soft outputs) */
  frame_coded *coded;           /* (decoded TBs, NULL when uncoded) */
  uint8_t *msg;                 /* a worker's: its message (result_head ...), */
  tally chunk;                  /* else a chunk from the journal: its tally alone (u.chunks == 1) */
  work_cost cost;
  char backend[16];
  struct held *next;
} held;

/* A point as the coordinator sees it. */
typedef struct pstate {
  point_fold f;
  int done;               /* folded to its stop, finished in the journal, or skipped */
  uint64_t next_chunk;    /* the first chunk not yet dealt */
  uint64_t redo;          /* a chunk from the journal to compute again (NO_CHUNK: none) */
  held *held;             /* sorted by first chunk */
  uint64_t seen_frames, seen_errors; /* folded and held: the estimate of what it needs */
  int out;                /* units dealt and not back */
  double bits_per_s;      /* a rank's rate on it (its last unit), 0 before */
  char backend[16];
} pstate;

typedef struct rstate {
  int hello, bye, out;    /* out: units dealt and not back, in q */
  unit_spec q[DEPTH];
  uint64_t last_point;
  double bits_per_s;      /* of its last unit, 0 before */
} rstate;

typedef struct coord {
  const mpi_job *j;
  const sim_config *c;
  run_state s;
  run_options o;          /* the caller's, with the ranks and their stats */
  pstate *p;
  rstate *r;
  rank_stat *stats;
  size_t next_report;     /* points before it are reported */
  lane *lane;             /* rank 0's own units */
  int dirty;              /* a message came since the last deal (nothing to deal otherwise) */
  int rc;
  const char *failure;    /* set once a rank failed */
} coord;

static void free_held(held *h) {
  free(h->msg);
  free(h->errors);
  free(h->fallbacks);
  free(h->loss);
  free(h->loss_s);
  free(h->coded);
  free(h);
}

static void drop_held(pstate *p) {
  while (p->held) {
    held *h = p->held;
    p->held = h->next;
    free_held(h);
  }
}

static void insert_held(pstate *p, held *h) {
  held **at = &p->held;
  while (*at && (*at)->u.first_chunk < h->u.first_chunk) at = &(*at)->next;
  h->next = *at;
  *at = h;
}

/* An order to a rank: rank 0's goes to its lane. */
static void send_order(coord *k, int rank, const order *o) {
  if (rank == 0) lane_order(k->lane, o);
  else MPI_Send(o, sizeof *o, MPI_BYTE, rank, TAG_ORDER, MPI_COMM_WORLD);
}

/* The fold of point i stands at the start of a unit dealt before its prefix
 * was known: the rank computing it gets the prefix, and stops it at its stop
 * instead of computing past it. */
static void tell_prefix(coord *k, size_t i) {
  const pstate *p = &k->p[i];
  if (p->done || p->f.cur.frames) return;
  for (int rank = 0; rank < k->j->size; rank++) {
    rstate *r = &k->r[rank];
    for (int q = 0; q < r->out; q++) {
      unit_spec *u = &r->q[q];
      if (u->point != i || u->first_chunk != p->f.k || u->known) continue;
      unit_spec_know(u, &p->f.tot);
      send_order(k, rank, &(order){ORDER_PREFIX, *u});
      return;
    }
  }
}

/* Point i stopped: its units still out are of no use; their ranks drop them
 * (rank 0 at once, the others at their next batch) and take other work. */
static void cancel_units(coord *k, size_t i) {
  for (int rank = 0; rank < k->j->size; rank++) {
    rstate *r = &k->r[rank];
    int had = 0;
    for (int q = r->out - 1; q >= 0; q--) {
      if (r->q[q].point != i) continue;
      memmove(r->q + q, r->q + q + 1, sizeof *r->q * (size_t)(r->out - q - 1));
      r->out--;
      k->p[i].out--;
      had = 1;
    }
    if (had) send_order(k, rank, &(order){.what = ORDER_CANCEL, .u = {.point = i}});
  }
}

/* A unit's counts: all its frames (rank 0's own units), or a worker's
 * message: its chunks' tallies and each chunk's encoded frames. */
typedef struct unit_counts {
  const uint32_t *errors, *fallbacks;
  const uint64_t *loss, *loss_s;
  const frame_coded *coded;
  uint64_t chunks;
  const tally *tally;  /* unaligned in the message: read with memcpy */
  const uint8_t *lens; /* uint64_t [chunks], the same */
  const uint8_t *enc;
} unit_counts;

static tally chunk_tally(const unit_counts *c, uint64_t j) {
  tally t;
  memcpy(&t, (const uint8_t *)c->tally + sizeof t * j, sizeof t);
  return t;
}

static uint64_t chunk_bytes(const unit_counts *c, uint64_t j) {
  uint64_t b;
  memcpy(&b, c->lens + sizeof b * j, sizeof b);
  return b;
}

/* Folds the frames of a unit of point i that continues its prefix. The
 * rules are checked frame by frame only where one may fire (as the lane
 * does, work_unit.c): with fewer errors than target_errors in all, no
 * precision rule and the point's last frame (max_bits) not in the unit, none
 * can, and the fold then runs without them. */
static void fold_unit(coord *k, size_t i, uint64_t frames, const uint32_t *errors, const uint32_t *fallbacks,
                      const uint64_t *loss, const uint64_t *loss_s, const frame_coded *coded,
                      const work_cost *cost, const char *backend) {
  pstate *p = &k->p[i];
  const sim_point *pt = &k->c->points[i];
  chunk_out out = {&k->s, i, backend, NULL};
  uint64_t e = p->f.tot.bit_errors + p->f.cur.bit_errors;
  for (uint64_t f = 0; f < frames * (uint64_t)pt->p.tx; f++) e += errors[f];
  /* (a coded point stops by its blocks: checked at every frame) */
  p->f.decide = coded || e >= pt->target_errors || pt->target_precision > 0.0 || p->f.off + frames >= p->f.end;
  if (point_fold_frames(&p->f, errors, fallbacks, loss, loss_s, coded, frames, cost, sweep_chunk_sink, &out, NULL))
    k->rc = 1;
  p->f.decide = 1;
  snprintf(p->backend, sizeof p->backend, "%s", backend);
}

/* Folds a unit of point i that continues its prefix: a worker's chunk by
 * chunk, by its tally where no stop can fall in it (point_fold_chunk), by its
 * frames, decoded then, where one may. */
static void fold_counts(coord *k, size_t i, const result_head *h, const unit_counts *uc) {
  if (uc->errors) {
    fold_unit(k, i, h->u.frames, uc->errors, uc->fallbacks, uc->loss, uc->loss_s, uc->coded, &h->cost, h->backend);
    return;
  }
  pstate *p = &k->p[i];
  const sim_point *pt = &k->c->points[i];
  const uint64_t tx = (uint64_t)pt->p.tx;
  const int soft = link_gmi_loss(&pt->p), grid = link_gmi_grid(&pt->p); /* the sums its frames carry */
  chunk_out out = {&k->s, i, h->backend, NULL};
  const uint8_t *enc = uc->enc;
  for (uint64_t j = 0; j < uc->chunks && !p->f.stop && !k->rc; enc += chunk_bytes(uc, j), j++) {
    const tally t = chunk_tally(uc, j);
    const int r = point_fold_chunk(&p->f, &t, sweep_chunk_sink, &out);
    if (r == 0) continue;
    if (r > 1) {
      k->rc = 1;
      break;
    }
    const uint64_t n = t.frames;
    uint32_t *e = malloc(sizeof(uint32_t) * (size_t)(n * (tx + 1) + 1));
    /* with soft outputs: the per-stream losses, then the GMI grid's */
    uint64_t *loss = soft ? malloc(sizeof(uint64_t) * (size_t)(n * (tx + (grid ? GMI_GRID : 0)) + 1)) : NULL;
    uint64_t *loss_s = loss && grid ? loss + n * tx : NULL;
    frame_coded *coded = link_coded(&pt->p) ? malloc(sizeof(frame_coded) * (size_t)(n + 1)) : NULL;
    const long long bc = coded ? coded_decode(enc, chunk_bytes(uc, j), n, coded) : 0;
    if (!e || (soft && !loss) || (link_coded(&pt->p) && (!coded || bc < 0)) ||
        frame_decode(enc + bc, chunk_bytes(uc, j) - (uint64_t)bc, n, (int)tx, e, e + n * tx, loss, loss_s)) {
      fprintf(stderr, "ofdmsim: error: a result of point %zu does not decode\n", i);
      k->rc = 1;
    } else {
      const work_cost cost = {.seconds = t.seconds, .inversions = t.inversions, .t = t.t};
      if (point_fold_frames(&p->f, e, e + n * tx, loss, loss_s, coded, n, &cost, sweep_chunk_sink, &out, NULL))
        k->rc = 1;
    }
    free(e);
    free(loss);
    free(coded);
  }
  snprintf(p->backend, sizeof p->backend, "%s", h->backend);
}

/* A worker's message as unit_counts (its bytes checked by handle). */
static unit_counts message_counts(const uint8_t *msg) {
  result_head h;
  memcpy(&h, msg, sizeof h);
  const uint8_t *t = msg + sizeof h;
  const uint8_t *lens = t + sizeof(tally) * h.chunks;
  return (unit_counts){.chunks = h.chunks, .tally = (const tally *)t, .lens = lens,
                       .enc = lens + sizeof(uint64_t) * h.chunks};
}

/* Folds point i's held units that continue its prefix. */
static void advance(coord *k, size_t i) {
  pstate *p = &k->p[i];
  point_result *res = &k->s.results[i];
  while (!p->done && !p->f.stop && p->held && p->held->u.first_chunk == p->f.k) {
    held *h = p->held;
    p->held = h->next;
    if (h->msg) {
      result_head rh;
      memcpy(&rh, h->msg, sizeof rh);
      const unit_counts uc = message_counts(h->msg);
      fold_counts(k, i, &rh, &uc);
    } else if (!h->errors) { /* from the journal: decided by its tally, or computed again */
      chunk_out out = {&k->s, i, h->backend, NULL};
      const int r = point_fold_chunk(&p->f, &h->chunk, sweep_chunk_sink, &out);
      if (r == 1 || r < 0) p->redo = h->u.first_chunk;
      else if (r > 1) k->rc = 1;
      snprintf(p->backend, sizeof p->backend, "%s", h->backend);
    } else {
      fold_unit(k, i, h->u.frames, h->errors, h->fallbacks, h->loss, h->loss_s, h->coded, &h->cost, h->backend);
    }
    free_held(h);
    if (p->redo != NO_CHUNK) break;
  }
  point_fold_total(&p->f, &res->n);
  snprintf(res->backend, sizeof res->backend, "%s", p->backend);
  if (p->f.stop) {
    p->done = 1;
    res->stop = p->f.stop;
    drop_held(p);
    cancel_units(k, i);
  }
  tell_prefix(k, i);
}

/* A unit's result, from a rank (msg: its message, of msg_len bytes, which
 * the coordinator may keep: then *msg becomes NULL) or from rank 0 itself. */
static void take_result(coord *k, int rank, const result_head *h, const unit_counts *uc, uint8_t **msg,
                        size_t msg_len) {
  rank_stat *st = &k->stats[rank];
  rstate *r = &k->r[rank];
  const sim_point *pt = &k->c->points[h->u.point];
  st->units++;
  st->frames += h->u.frames;
  st->bits += h->u.frames * link_bits_per_frame(&pt->p);
  st->seconds += h->cost.seconds;
  snprintf(st->backend, sizeof st->backend, "%s", h->backend);
  pstate *p = &k->p[h->u.point];
  if (h->cost.seconds > 0)
    r->bits_per_s = p->bits_per_s = (double)(h->u.frames * link_bits_per_frame(&pt->p)) / h->cost.seconds;
  for (int q = 0; q < r->out; q++) /* no longer out (a cancelled one was not) */
    if (r->q[q].point == h->u.point && r->q[q].first_chunk == h->u.first_chunk) {
      memmove(r->q + q, r->q + q + 1, sizeof *r->q * (size_t)(r->out - q - 1));
      r->out--;
      p->out--;
      break;
    }
  if (p->done || h->u.first_chunk < p->f.k) return; /* past the stop, or done again */
  const int tx = pt->p.tx;
  if (uc->errors) {
    for (uint64_t f = 0; f < h->u.frames * (uint64_t)tx; f++) p->seen_errors += uc->errors[f];
  } else {
    for (uint64_t j = 0; j < uc->chunks; j++) p->seen_errors += chunk_tally(uc, j).bit_errors;
  }
  p->seen_frames += h->u.frames;
  if (h->u.first_chunk == p->f.k) { /* it continues the prefix: folded now, no copy */
    fold_counts(k, h->u.point, h, uc);
    advance(k, h->u.point);
    return;
  }
  /* Ahead of its prefix: held, and into the journal now, so a kill does not lose it. */
  held *e = calloc(1, sizeof *e);
  chunk_out out = {&k->s, h->u.point, h->backend, "ahead"};
  if (e && !uc->errors) { /* a worker's: its message kept, its whole chunks saved by their tallies */
    e->msg = *msg;
    *msg = NULL;
    (void)msg_len;
    for (uint64_t j = 0; j < uc->chunks; j++) {
      const tally t = chunk_tally(uc, j);
      if (t.frames == point_chunk_frames(pt, h->u.first_chunk + j) &&
          sweep_chunk_sink(&out, h->u.first_chunk + j, &t, NULL))
        k->rc = 1;
    }
  } else if (e) {
    const size_t nf = (size_t)(h->u.frames ? h->u.frames : 1);
    e->errors = malloc(sizeof(uint32_t) * nf * (size_t)tx);
    e->fallbacks = malloc(sizeof(uint32_t) * nf);
    if (uc->loss) e->loss = malloc(sizeof(uint64_t) * nf * (size_t)tx);
    if (uc->loss_s) e->loss_s = malloc(sizeof(uint64_t) * nf * GMI_GRID);
    if (uc->coded) e->coded = malloc(sizeof(frame_coded) * nf);
    if (!e->errors || !e->fallbacks || (uc->loss && !e->loss) || (uc->loss_s && !e->loss_s) ||
        (uc->coded && !e->coded)) {
      free_held(e);
      e = NULL;
    } else {
      memcpy(e->errors, uc->errors, sizeof(uint32_t) * (size_t)h->u.frames * (size_t)tx);
      memcpy(e->fallbacks, uc->fallbacks, sizeof(uint32_t) * (size_t)h->u.frames);
      if (uc->loss) memcpy(e->loss, uc->loss, sizeof(uint64_t) * (size_t)h->u.frames * (size_t)tx);
      if (uc->loss_s) memcpy(e->loss_s, uc->loss_s, sizeof(uint64_t) * (size_t)h->u.frames * GMI_GRID);
      if (uc->coded) memcpy(e->coded, uc->coded, sizeof(frame_coded) * (size_t)h->u.frames);
      point_fold ahead;
      point_fold_init(&ahead, pt, h->u.first_chunk, NULL, 0);
      if (point_fold_frames(&ahead, uc->errors, uc->fallbacks, uc->loss, uc->loss_s, uc->coded, h->u.frames, &h->cost,
                            sweep_chunk_sink, &out, NULL))
        k->rc = 1;
    }
  }
  if (!e) {
    fprintf(stderr, "ofdmsim: error: out of memory for a unit of %llu frames\n", (unsigned long long)h->u.frames);
    k->rc = 1;
    return;
  }
  e->u = h->u;
  e->cost = h->cost;
  snprintf(e->backend, sizeof e->backend, "%s", h->backend);
  insert_held(p, e);
}

/* Frames point i likely needs in all, from what came back so far: before
 * anything came back, twice what was dealt (units grow as the driver's
 * batches do, so an easy point wastes little); without an error yet, all
 * of them; else what reaches target_errors at the rate seen, and 10%. */
static uint64_t frames_needed(const sim_point *pt, const pstate *p, uint64_t dealt) {
  const uint64_t end = p->f.end;
  if (p->seen_frames == 0) return 2 * dealt + 1 < end ? 2 * dealt + 1 : end;
  if (p->seen_errors == 0) return end;
  const double want = (double)p->seen_frames * (double)pt->target_errors / (double)p->seen_errors * 1.1 + 1.0;
  uint64_t need = want >= (double)end ? end : (uint64_t)want;
  if (need < pt->min_frames) need = pt->min_frames;
  return need < end ? need : end;
}

/* Whether an earlier point of i's curve (stop_below_ber) is not done: i may
 * be skipped. */
static int may_be_skipped(const coord *k, size_t i) {
  const sim_point *pt = &k->c->points[i];
  if (!(pt->stop_below_ber > 0.0)) return 0;
  for (size_t j = i; j-- > k->next_report && !strcmp(k->c->points[j].label, pt->label);)
    if (!k->p[j].done) return 1;
  return 0;
}

/* How sure a unit is to be needed, most first. */
enum { NEEDED = 2, AHEAD = 1, MAYBE_SKIPPED = 0 };

/* Seconds of one rank's work a unit should hold: UNIT_SECONDS while there is
 * plenty to do, and near the sweep's end a share of what is left (guided
 * self-scheduling: what is not yet dealt, over twice the ranks), down to
 * MIN_UNIT_SECONDS, so that the ranks run dry together instead of one
 * finishing a long unit while the others idle. "Plenty" also while a point
 * has no measured rate yet: its cost is unknown. */
static double unit_seconds(const coord *k) {
  double left = 0;
  for (size_t i = k->next_report; i < k->c->n_points; i++) {
    const pstate *p = &k->p[i];
    const sim_point *pt = &k->c->points[i];
    if (p->done) continue;
    if (!(p->bits_per_s > 0)) return UNIT_SECONDS;
    uint64_t off, len;
    chunk_range(pt, p->next_chunk, &off, &len);
    const uint64_t need = frames_needed(pt, p, off);
    if (need > off) left += (double)(need - off) * (double)link_bits_per_frame(&pt->p) / p->bits_per_s;
  }
  const double share = left / (2.0 * k->j->size);
  return share > UNIT_SECONDS ? UNIT_SECONDS : share < MIN_UNIT_SECONDS ? MIN_UNIT_SECONDS : share;
}

/* A unit of point i of `seconds` for a rank computing bits_per_s (on its
 * last point); 0 when i has none to deal at that level: NEEDED, chunks the
 * point likely needs; AHEAD, any chunk of a point that will not be skipped;
 * MAYBE_SKIPPED, any chunk. */
static int unit_of(coord *k, size_t i, double bits_per_s, double seconds, int level, unit_spec *u) {
  pstate *p = &k->p[i];
  const sim_point *pt = &k->c->points[i];
  const int strict = level == NEEDED;
  if (p->done) return 0;
  if (level > MAYBE_SKIPPED && may_be_skipped(k, i)) return 0;
  if (p->redo != NO_CHUNK) {
    unit_spec_make(u, pt, i, p->redo, 1);
    unit_spec_know(u, &p->f.tot); /* it is where the fold stands */
    p->redo = NO_CHUNK;
    return 1;
  }
  /* past the chunks the journal had ahead */
  for (held *h = p->held; h; h = h->next)
    if (h->u.first_chunk == p->next_chunk) p->next_chunk += h->u.chunks;
  uint64_t off, len;
  chunk_range(pt, p->next_chunk, &off, &len);
  const uint64_t need = frames_needed(pt, p, off);
  if (off >= p->f.end || (strict && off >= need)) return 0;
  /* Whole chunks up to `seconds` at the point's rate, what the point needs,
   * and the next held chunk. Points differ in cost per bit by a factor of
   * ten and more (QPSK 2x2 against 16-QAM 4x4 in the time domain), so a
   * point not measured yet gets an eighth of the rank's last rate. */
  const uint64_t bpf = link_bits_per_frame(&pt->p);
  const double rate = p->bits_per_s > 0 ? p->bits_per_s : bits_per_s / 8;
  uint64_t want = rate > 0 ? (uint64_t)(rate * seconds / (double)bpf) : 1;
  if (want < 1) want = 1;
  if (strict && want > need - off) want = need - off;
  if (want > UNIT_MAX_FRAMES) want = UNIT_MAX_FRAMES;
  uint64_t stop_at = NO_CHUNK;
  for (held *h = p->held; h; h = h->next)
    if (h->u.first_chunk > p->next_chunk && h->u.first_chunk < stop_at) stop_at = h->u.first_chunk;
  uint64_t n = 0, frames = 0;
  do {
    frames += point_chunk_frames(pt, p->next_chunk + n);
    n++;
  } while (frames < want && p->next_chunk + n < stop_at && point_chunk_frames(pt, p->next_chunk + n) > 0 &&
           frames + point_chunk_frames(pt, p->next_chunk + n) <= UNIT_MAX_FRAMES);
  unit_spec_make(u, pt, i, p->next_chunk, n);
  if (p->next_chunk == p->f.k) unit_spec_know(u, &p->f.tot); /* it starts where the fold stands */
  p->next_chunk += n;
  return 1;
}

/* The next unit for rank `rank`: the earliest points' needed chunks first
 * (its last point before others, keeping its backend), then, rather than
 * idle, chunks further ahead, of points that may be skipped last. 0 when
 * there is nothing left to deal. */
static int choose(coord *k, int rank, unit_spec *u) {
  rstate *r = &k->r[rank];
  const size_t n = k->c->n_points;
  const double secs = unit_seconds(k);
  if (r->last_point < n && r->last_point >= k->next_report &&
      unit_of(k, r->last_point, r->bits_per_s, secs, NEEDED, u))
    goto dealt;
  /* A point no other rank works on before one that is shared: each rank then
   * makes the backends of about its share of the points, not of all of them
   * (a GPU backend takes its allocations and FFT plans anew for each point). */
  for (size_t i = k->next_report; i < n; i++)
    if (!k->p[i].out && unit_of(k, i, r->bits_per_s, secs, NEEDED, u)) goto dealt;
  for (int level = NEEDED; level >= MAYBE_SKIPPED; level--)
    for (size_t i = k->next_report; i < n; i++)
      if (unit_of(k, i, r->bits_per_s, secs, level, u)) goto dealt;
  return 0;
dealt:
  r->q[r->out] = *u;
  r->last_point = u->point;
  r->out++;
  k->p[u->point].out++;
  return 1;
}

static void report_done_points(coord *k) {
  while (k->next_report < k->c->n_points) {
    const size_t i = k->next_report;
    if (sweep_skips(&k->s, i)) {
      drop_held(&k->p[i]);
      k->p[i].done = 1;
      sweep_skip_point(&k->s, i, k->o.backend);
    } else if (!k->p[i].done) {
      return;
    }
    if (sweep_point_done(&k->s, i)) k->rc = 1;
    k->next_report++;
  }
}

/* Handles one message of rank `from` (rank 0's come from its lane). */
static void handle(coord *k, int from, int tag, uint8_t **bufp, size_t bytes) {
  rstate *r = &k->r[from];
  uint8_t *buf = *bufp;
  switch (tag) {
  case TAG_HELLO: {
    hello h;
    if (bytes != sizeof h) break;
    memcpy(&h, buf, sizeof h);
    h.host[sizeof h.host - 1] = h.backend[sizeof h.backend - 1] = h.device[sizeof h.device - 1] = '\0';
    snprintf(k->stats[from].host, sizeof k->stats[from].host, "%s", h.host);
    snprintf(k->stats[from].backend, sizeof k->stats[from].backend, "%s", h.backend);
    snprintf(k->stats[from].device, sizeof k->stats[from].device, "%s", h.device);
    r->hello = 1;
    break;
  }
  case TAG_RESULT: {
    if (from == 0) { /* rank 0's lane: the unit's frames as they are */
      const local_result *lr = (const local_result *)buf;
      const unit_counts uc = {.errors = lr->errors, .fallbacks = lr->fallbacks, .loss = lr->loss,
                              .loss_s = lr->loss_s, .coded = lr->coded};
      take_result(k, 0, &lr->h, &uc, NULL, 0);
      break;
    }
    result_head h = {0};
    if (bytes >= sizeof h) memcpy(&h, buf, sizeof h);
    /* the unit must be one this coordinator could have dealt */
    unit_spec want = {0};
    if (bytes >= sizeof h && h.u.point < k->c->n_points && h.u.chunks > 0 && h.u.chunks < (1u << 30))
      unit_spec_make(&want, &k->c->points[h.u.point], h.u.point, h.u.first_chunk, h.u.chunks);
    /* (a unit with a known prefix may come back cut at its stop) */
    int fits = want.chunks && want.offset == h.u.offset &&
               (h.u.known ? h.u.frames <= want.frames : h.u.frames == want.frames) && h.chunks <= want.chunks &&
               bytes == sizeof h + h.chunks * (sizeof(tally) + sizeof(uint64_t)) + h.bytes;
    const unit_counts uc = fits ? message_counts(buf) : (unit_counts){0};
    uint64_t frames = 0, enc = 0;
    for (uint64_t j = 0; fits && j < h.chunks; j++) {
      frames += chunk_tally(&uc, j).frames;
      enc += chunk_bytes(&uc, j);
    }
    if (!fits || frames != h.u.frames || enc != h.bytes) {
      fprintf(stderr, "ofdmsim: error: rank %d sent a result that does not decode\n", from);
      k->rc = 1;
      break;
    }
    take_result(k, from, &h, &uc, bufp, bytes);
    break;
  }
  case TAG_FAIL:
    if (bytes) buf[bytes - 1] = '\0';
    fprintf(stderr, "\nofdmsim: error: rank %d (%s): %s\n", from, k->stats[from].host, bytes ? (char *)buf : "");
    k->rc = 1;
    break;
  case TAG_SIGNAL: {
    int sig;
    if (bytes != sizeof sig) break;
    memcpy(&sig, buf, sizeof sig);
    sweep_request_stop(sig);
    break;
  }
  case TAG_BYE: {
    bye b = {0};
    if (bytes == sizeof b) memcpy(&b, buf, sizeof b);
    rank_stat *st = &k->stats[from];
    st->startup = b.t.startup;
    st->setup = b.t.setup;
    st->idle = b.t.idle;
    st->tail = b.t.tail;
    st->wall = b.t.wall;
    st->to_mpi = b.t.to_mpi;
    st->to_gpu = b.t.to_gpu;
    st->to_ready = b.t.to_ready;
    r->bye = 1;
    break;
  }
  }
  k->stats[0].messages++;
  k->dirty = 1;
}

/* Handles one message from a rank or from rank 0's lane if one is waiting;
 * 1 when one was. */
static int serve(coord *k) {
  lane_msg m;
  if (k->lane && lane_take(k->lane, &m)) {
    handle(k, 0, m.tag, &m.buf, m.len);
    lane_msg_free(&m);
    return 1;
  }
  int flag = 0;
  MPI_Status st;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
  if (!flag) return 0;
  int bytes = 0;
  MPI_Get_count(&st, MPI_BYTE, &bytes);
  uint8_t *buf = malloc(bytes ? (size_t)bytes : 1);
  if (!buf) {
    fprintf(stderr, "ofdmsim: error: out of memory for a message of %d bytes\n", bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Recv(buf, bytes, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  handle(k, st.MPI_SOURCE, st.MPI_TAG, &buf, (size_t)bytes); /* (a result held ahead keeps buf) */
  free(buf);
  return 1;
}

/* Deals every rank (rank 0's lane too) up to DEPTH units, when a message
 * changed what there is to deal (choosing scans the points: not every
 * turn of the loop). */
static void deal(coord *k) {
  if (!k->dirty) return;
  k->dirty = 0;
  for (int rank = 0; rank < k->j->size; rank++) {
    rstate *r = &k->r[rank];
    unit_spec u;
    while (r->hello && !r->bye && r->out < DEPTH && choose(k, rank, &u)) send_order(k, rank, &(order){ORDER_UNIT, u});
  }
}

static int units_out(const coord *k) {
  int n = 0;
  for (int rank = 0; rank < k->j->size; rank++) n += k->r[rank].out;
  return n;
}

/* Waits for a message: rank 0's lane wakes it at once, the others' are
 * polled every 200 us (MPI has no wait on both). */
static void await_message(coord *k) {
  if (k->lane) lane_wait(k->lane, 200e-6);
  else pause_briefly();
}

/* The CPU time of the calling thread: the coordinator's own work, which a
 * wall clock would inflate by the time the thread was not scheduled (ranks
 * oversubscribing their cores, rank 0's lane beside it). */
static double thread_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Every point's state from the journal: finished, folded as far as its
 * saved chunks decide, and its chunks saved ahead held for later. */
static void begin_points(coord *k) {
  for (size_t i = 0; i < k->c->n_points; i++) {
    pstate *p = &k->p[i];
    const sim_point *pt = &k->c->points[i];
    p->redo = NO_CHUNK;
    if (sweep_point_begin(&k->s, i)) {
      p->done = 1;
      continue;
    }
    const replay *rp = k->s.replays ? &k->s.replays[i] : NULL;
    point_fold_init(&p->f, pt, rp ? rp->chunks : 0, rp ? &rp->n : NULL, 1);
    sweep_fold_ahead(&k->s, i, &p->f);
    p->next_chunk = p->f.k;
    p->seen_frames = p->f.tot.frames;
    p->seen_errors = p->f.tot.bit_errors;
    for (size_t a = 0; rp && a < rp->n_ahead; a++) {
      const journal_record *rec = &rp->ahead[a];
      if (rec->chunk <= p->f.k) continue; /* at the prefix and undecided: computed again */
      held *h = calloc(1, sizeof *h);
      if (!h) continue; /* computed again */
      unit_spec_make(&h->u, pt, i, rec->chunk, 1);
      h->chunk = rec->n;
      snprintf(h->backend, sizeof h->backend, "%s", rec->backend);
      p->seen_frames += rec->n.frames;
      p->seen_errors += rec->n.bit_errors;
      insert_held(p, h);
    }
    point_fold_total(&p->f, &k->s.results[i].n);
    if (p->f.stop) {
      p->done = 1;
      k->s.results[i].stop = p->f.stop;
    }
  }
}

/* Stops every worker and rank 0's lane and takes what they still send
 * (results that arrive are folded or saved ahead), with their times. */
static void stop_workers(coord *k) {
  const order stop = {.what = ORDER_STOP};
  for (int rank = 1; rank < k->j->size; rank++) MPI_Send(&stop, sizeof stop, MPI_BYTE, rank, TAG_ORDER, MPI_COMM_WORLD);
  if (k->lane) {
    lane_times t;
    lane_stop(k->lane, &t);
    rank_stat *st = &k->stats[0];
    st->startup = t.startup;
    st->setup = t.setup;
    st->idle = t.idle;
    st->tail = t.tail;
    st->wall = t.wall;
    st->to_mpi = t.to_mpi;
    st->to_gpu = t.to_gpu;
    st->to_ready = t.to_ready;
  }
  for (;;) {
    while (serve(k)) {
    }
    int all = 1;
    for (int rank = 1; rank < k->j->size; rank++) all &= k->r[rank].bye;
    if (all) break;
    pause_briefly();
  }
}

static void print_ranks(const coord *k) {
  for (int rank = 0; rank < k->j->size; rank++) {
    const rank_stat *st = &k->stats[rank];
    printf("# rank %d on %s (%s): %llu units, %.4g bits in %.2f s, %.2f Mbit/s; wall %.2f s: start-up %.2f, "
           "busy %.2f, set-up %.2f, idle %.2f, tail %.2f s (start-up: MPI %.2f, GPU %.2f, ready %.2f s)",
           rank, st->host, st->backend, (unsigned long long)st->units, (double)st->bits, st->seconds,
           st->seconds > 0 ? (double)st->bits / st->seconds / 1e6 : 0.0, st->wall, st->startup, st->seconds,
           st->setup, st->idle, st->tail, st->to_mpi, st->to_gpu, st->to_ready);
    if (rank == 0)
      printf("; coordinator %.3f s CPU for %llu messages (%.0f us each)", st->coordinator,
             (unsigned long long)st->messages, st->messages ? st->coordinator / (double)st->messages * 1e6 : 0.0);
    printf("\n");
  }
}

static int run_coordinator(const mpi_job *j, const sim_config *c, const run_options *o) {
  coord k = {.j = j, .c = c, .o = *o};
  k.p = calloc(c->n_points ? c->n_points : 1, sizeof *k.p);
  k.r = calloc((size_t)j->size, sizeof *k.r);
  k.stats = calloc((size_t)j->size, sizeof *k.stats);
  if (!k.p || !k.r || !k.stats) {
    fprintf(stderr, "ofdmsim: error: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int rank = 0; rank < j->size; rank++) k.r[rank].last_point = NO_POINT;
  snprintf(k.stats[0].host, sizeof k.stats[0].host, "%s", j->host);
  snprintf(k.stats[0].backend, sizeof k.stats[0].backend, "%s", o->backend);
  snprintf(k.stats[0].device, sizeof k.stats[0].device, "%s", o->device ? o->device : "");
  k.o.ranks = j->size;
  k.o.rank_stats = k.stats;
  int rc = sweep_open(&k.s, c, &k.o);
  if (!rc) {
    k.lane = lane_start(j, c, o, PACE_SECONDS);
    if (!k.lane) {
      fprintf(stderr, "ofdmsim: error: out of memory\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    k.r[0].hello = 1;
    k.dirty = 1;
    begin_points(&k);
    const double t_loop = thread_seconds();
    double last_shown = 0, last_synced = clock_seconds(), frontier_since = clock_seconds();
    size_t frontier = 0;
    while (!k.rc) {
      int any = 0;
      while (serve(&k)) any = 1;
      report_done_points(&k);
      if (k.next_report == c->n_points || sweep_interrupted() || k.rc) break;
      deal(&k);
      if (!any && units_out(&k) == 0 && !lane_failed(k.lane)) {
        fprintf(stderr, "ofdmsim: error: internal: point %zu has no work left and no stop\n", k.next_report);
        k.rc = 1;
        break;
      }
      const double now = clock_seconds();
      if (frontier != k.next_report) {
        frontier = k.next_report;
        frontier_since = now;
      }
      if (k.s.show_progress && now - last_shown > 0.2 && k.next_report < c->n_points) {
        sweep_progress(&k.s, k.next_report, &k.s.results[k.next_report].n, now - frontier_since, j->size);
        last_shown = now;
      }
      if (now - last_synced > 1.0 && k.s.jr) {
        journal_sync(k.s.jr);
        last_synced = now;
      }
      if (k.next_report < c->n_points && sweep_save(&k.s, k.next_report + 1, 0)) k.rc = 1;
      if (!any) await_message(&k);
    }
    k.stats[0].coordinator = thread_seconds() - t_loop;
    sweep_progress_clear(&k.s);
    if (sweep_interrupted()) {
      /* The files and the message first: mpirun kills a second after its SIGTERM. */
      size_t done = k.next_report;
      if (done < c->n_points) {
        k.s.results[done].stop = "interrupted";
        if (sweep_point_done(&k.s, done)) k.rc = 1;
        done++;
      }
      rc = sweep_finish(&k.s, done, k.rc);
      if (rc == 128 + SIGTERM && j->size > 1)
        fprintf(stderr, "ofdmsim: (under mpirun a SIGTERM also means that a rank died: mpirun names it)\n");
      if (k.s.jr) journal_sync(k.s.jr);
      stop_workers(&k); /* what still comes back goes to the journal */
    } else {
      stop_workers(&k);
      if (k.next_report == c->n_points) {
        print_ranks(&k);
        /* the sidecar again, with the ranks' times (they came with the byes) */
        if (!k.rc && sweep_save(&k.s, k.next_report, 1)) k.rc = 1;
      }
      rc = sweep_finish(&k.s, k.next_report, k.rc);
    }
  } else {
    stop_workers(&k);
  }
  for (size_t i = 0; i < c->n_points; i++) drop_held(&k.p[i]);
  sweep_close(&k.s);
  lane_free(k.lane);
  free(k.p);
  free(k.r);
  free(k.stats);
  return rc;
}

int mpi_engine_run(const mpi_job *j, const sim_config *c, const run_options *o) {
  return j->rank == 0 ? run_coordinator(j, c, o) : run_worker(j, c, o);
}
