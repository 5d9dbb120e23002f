/* The CUDA backend's batches in flight (backend_submit / backend_collect):
 *   - a point's batches submitted two ahead and collected in order give the
 *     very per-frame counts (errors, fallbacks, GMI losses at every scaling)
 *     of the same batches run one at a time by a backend made with the sync
 *     option (OFDMSIM_GPU_SYNC=1's), on the fused path (frequency and time
 *     domain, tdl, ZF at high SNR where the fused kernel's repair list is
 *     used), the staged path, soft outputs and a joint detector;
 *   - a batch discarded unread leaves the next batch's counts as they would
 *     have been (the device's one set of counters is the next batch's);
 *   - a coded point gives the same TB counts in flight (its outcomes judged
 *     on the device, into the batch's slot) and, with HARQ (deferred: run
 *     whole at its collect, retransmissions and all), the same outcomes
 *     after HARQ;
 *   - fetch is refused while a batch is in flight, and a third submit is.
 * The driver's exact stop with batches in flight is test_gpu_async_driver.sh's.
 * Exits 77 without a usable GPU. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

extern "C" { /* C headers without their own C++ guards */
#include "coding/tbs.h"
}
#include "cuda/backend_cuda.h"
#include "linktest.h"
#include "sim/backends.h"
#include "testutil.h"

namespace {

uint64_t b_min(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* lt_params with the LLR clip every point needs checked. */
link_params tparams(int tx, int rx, int bps, eq_kind eq, channel_model model, double db) {
  link_params p = lt_params(tx, rx, bps, eq, model, db);
  p.llr_clip = 20.0;
  return p;
}

backend *make(const link_params &p, int staged, int sync) {
  backend_options opt;
  memset(&opt, 0, sizeof opt);
  backend_options_set(&opt, "cuda", "staged", staged);
  backend_options_set(&opt, "cuda", "sync", sync);
  backend_options_set(&opt, "cuda", "memory_mb", 2048);
  char err[512] = "";
  backend *b = backends_create("cuda", &p, &opt, err, sizeof err);
  if (!b) CHECK(0, "create: %s", err);
  return b;
}

/* The per-frame counts of a run of batches, frame by frame. */
struct counts {
  std::vector<uint32_t> errors, fallbacks;
  std::vector<uint64_t> loss, loss_s;
  std::vector<frame_coded> coded;
};

/* One batch's buffers; soft: GMI losses asked; coded: TBs asked. */
struct buffers {
  std::vector<uint32_t> e, fb;
  std::vector<uint64_t> l, ls;
  std::vector<frame_coded> c;
  batch_result r;
  buffers(const link_params &p, uint64_t n) : e(n * p.tx), fb(n) {
    memset(&r, 0, sizeof r);
    r.errors = e.data();
    r.fallbacks = fb.data();
    if (p.llr != LLR_OFF) {
      l.resize(n * p.tx);
      ls.resize(n * GMI_GRID);
      r.gmi_loss = l.data();
      r.gmi_loss_s = ls.data();
    }
    if (link_coded(&p)) {
      c.resize(n);
      r.coded = c.data();
    }
  }
  void append(counts *to, const link_params &p, uint64_t n) const {
    to->errors.insert(to->errors.end(), e.begin(), e.begin() + n * p.tx);
    to->fallbacks.insert(to->fallbacks.end(), fb.begin(), fb.begin() + n);
    if (!l.empty()) {
      to->loss.insert(to->loss.end(), l.begin(), l.begin() + n * p.tx);
      to->loss_s.insert(to->loss_s.end(), ls.begin(), ls.begin() + n * GMI_GRID);
    }
    if (!c.empty()) to->coded.insert(to->coded.end(), c.begin(), c.begin() + n);
  }
};

/* Batches of 1, 2, 4, ... frames (capped at the backend's limit) from frame
 * 0 up to `frames`: their sizes, as the driver makes them. */
std::vector<uint64_t> sizes(backend *b, uint64_t frames) {
  std::vector<uint64_t> s;
  const uint64_t cap = b->ops->max_frames(b);
  for (uint64_t at = 0, next = 1; at < frames; next *= 2) {
    uint64_t n = next < cap ? next : cap;
    if (n > frames - at) n = frames - at;
    s.push_back(n);
    at += n;
  }
  return s;
}

/* One at a time, on a backend made with the sync option. */
int run_sync(const link_params &p, int staged, const std::vector<uint64_t> &sz, counts *out) {
  backend *b = make(p, staged, 1);
  if (!b) return -1;
  uint64_t at = 0;
  for (uint64_t n : sz) {
    buffers buf(p, n);
    if (backend_run(b, at, n, &buf.r)) {
      CHECK(0, "sync run at %llu: %s", (unsigned long long)at, backend_error(b));
      backend_destroy(b);
      return -1;
    }
    buf.append(out, p, n);
    at += n;
  }
  backend_destroy(b);
  return 0;
}

/* Two in flight: submit k + 1 before collecting k. */
int run_async(const link_params &p, int staged, const std::vector<uint64_t> &sz, counts *out) {
  backend *b = make(p, staged, 0);
  if (!b) return -1;
  uint64_t biggest = 0;
  for (uint64_t n : sz) biggest = n > biggest ? n : biggest;
  buffers buf(p, biggest);
  size_t submitted = 0, collected = 0;
  uint64_t at = 0;
  int rc = 0;
  while (collected < sz.size() && !rc) {
    while (submitted < sz.size() && submitted < collected + BACKEND_IN_FLIGHT) {
      if (backend_submit(b, at, sz[submitted], &buf.r)) {
        CHECK(0, "submit %zu: %s", submitted, backend_error(b));
        rc = -1;
        break;
      }
      at += sz[submitted++];
    }
    if (rc) break;
    if (backend_collect(b, &buf.r)) {
      CHECK(0, "collect %zu: %s", collected, backend_error(b));
      rc = -1;
      break;
    }
    CHECK(b->last_frames == sz[collected], "collect %zu: the batch submitted %zu-th (%llu frames)", collected,
          collected, (unsigned long long)b->last_frames);
    buf.append(out, p, sz[collected]);
    collected++;
  }
  backend_destroy(b);
  return rc;
}

bool same_coded(const std::vector<frame_coded> &a, const std::vector<frame_coded> &b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++)
    if (memcmp(&a[i], &b[i], sizeof a[i])) return false;
  return true;
}

void compare(const link_params &p, int staged, uint64_t frames, const char *what) {
  backend *probe = make(p, staged, 0);
  if (!probe) return;
  const std::vector<uint64_t> sz = sizes(probe, frames);
  backend_destroy(probe);
  counts s, a;
  if (run_sync(p, staged, sz, &s) || run_async(p, staged, sz, &a)) return;
  uint64_t errors = 0, fallbacks = 0;
  for (uint32_t e : s.errors) errors += e;
  for (uint32_t f : s.fallbacks) fallbacks += f;
  CHECK(s.errors == a.errors, "%s: per-frame errors, in flight = one at a time (%llu errors, %zu batches)", what,
        (unsigned long long)errors, sz.size());
  CHECK(s.fallbacks == a.fallbacks, "%s: per-frame fallbacks equal (%llu)", what, (unsigned long long)fallbacks);
  CHECK(s.loss == a.loss && s.loss_s == a.loss_s, "%s: per-frame GMI losses equal", what);
  CHECK(same_coded(s.coded, a.coded), "%s: per-frame TBs equal", what);
  CHECK(errors > 0, "%s: some errors to compare", what);
  printf("  %-34s %zu batches, %llu frames, %llu errors, %llu fallbacks\n", what, sz.size(),
         (unsigned long long)frames, (unsigned long long)errors, (unsigned long long)fallbacks);
}

/* A discarded batch: submit two, collect one, discard, then run the batch
 * after the first: its counts are the sync backend's. Also the refusals. */
void check_discard(const link_params &p) {
  backend *a = make(p, 0, 0), *s = make(p, 0, 1);
  if (!a || !s) {
    backend_destroy(a);
    backend_destroy(s);
    return;
  }
  const uint64_t n = b_min(a->ops->max_frames(a), 64);
  buffers x(p, n), y(p, n), z(p, n);
  CHECK(backend_submit(a, 0, n, &x.r) == 0 && backend_submit(a, n, n, &x.r) == 0, "two batches in flight");
  CHECK(backend_submit(a, 2 * n, n, &x.r) == -1, "a third is refused: %s", backend_error(a));
  cf32 one;
  CHECK(backend_fetch(a, BUF_X, &one, 1) == -1, "fetch refused in flight: %s", backend_error(a));
  CHECK(backend_collect(a, &x.r) == 0, "collect the first");
  backend_discard(a);
  /* the second (frames n .. 2n) was never read; frames 2n .. 3n now */
  CHECK(backend_run(a, 2 * n, n, &y.r) == 0 && backend_run(s, 2 * n, n, &z.r) == 0, "runs after the discard");
  CHECK(y.e == z.e && y.fb == z.fb, "after a discard the next batch's counts are its own");
  backend_destroy(a);
  backend_destroy(s);
}

}  // namespace

int main(void) {
  if (lt_cuda_missing("test_gpu_async")) return TEST_SKIP;
  /* fused, frequency domain: 2x2 QPSK and 4x4 16-QAM MMSE on i.i.d. Rayleigh */
  link_params p = tparams(2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 4.0);
  p.subcarriers = 256;
  p.symbols = 14;
  lt_finish(&p);
  compare(p, 0, 3000, "fused 2x2 qpsk mmse");
  p = tparams(4, 4, 4, EQ_MMSE, CH_RAYLEIGH, 8.0);
  p.subcarriers = 256;
  p.symbols = 14;
  lt_finish(&p);
  compare(p, 0, 1500, "fused 4x4 16qam mmse");
  /* ZF at high SNR on 4x4: ill-conditioned channels flag inverses, which
   * the fused kernel leaves to the repair kernel (its list's length read on
   * the device) */
  p = tparams(4, 4, 2, EQ_ZF, CH_RAYLEIGH, 40.0);
  p.subcarriers = 1024;
  p.symbols = 14;
  lt_finish(&p);
  compare(p, 0, 2000, "fused 4x4 zf 40 dB (repair)");
  compare(p, 1, 600, "staged 4x4 zf 40 dB");
  /* tdl in the time domain (the modem's transforms before the kernel) */
  p = tparams(2, 2, 4, EQ_MMSE, CH_TDL, 10.0);
  p.subcarriers = 512;
  p.symbols = 14;
  p.cp_length = 36;
  p.domain = DOMAIN_TIME;
  p.profile = PDP_EXP;
  p.delay_spread = 4.0;
  lt_finish(&p);
  compare(p, 0, 800, "fused tdl time domain 2x2 16qam");
  /* soft outputs with the GMI grid (fused detect kernel) */
  p = tparams(2, 2, 4, EQ_MMSE, CH_RAYLEIGH, 6.0);
  p.subcarriers = 256;
  p.symbols = 14;
  p.llr = LLR_MAXLOG;
  lt_finish(&p);
  compare(p, 0, 1000, "fused maxlog llr + gmi grid");
  compare(p, 1, 500, "staged maxlog llr + gmi grid");
  /* a joint detector (staged stacks, detect kernel) */
  p = tparams(2, 2, 2, EQ_MMSE_SIC, CH_RAYLEIGH, 4.0);
  p.subcarriers = 256;
  p.symbols = 14;
  lt_finish(&p);
  compare(p, 0, 600, "mmse-sic");
  /* the coded link: in flight like the others without HARQ */
  p = tparams(2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 1.0);
  p.subcarriers = 64;
  p.symbols = 2;
  p.llr = LLR_MAXLOG;
  lt_finish(&p);
  p.code.type = CODE_LDPC;
  p.code.rate = 0.5;
  p.code.tbs = tbs_from_re((int)link_data_res_per_frame(&p), 0.5, p.bps, p.tx);
  p.code.decoder = CODE_DEC_NMS;
  p.code.scale = 0.75;
  p.code.offset = 0.5;
  p.code.max_iterations = 10;
  p.code.early_termination = 1;
  p.code.mcs = -1;
  p.stream_key = link_stream_key(&p);
  compare(p, 0, 300, "coded ldpc (in flight)");
  /* with HARQ: deferred, whole at its collect (1 dB loses TBs to retry) */
  p.code.harq = 4;
  p.stream_key = link_stream_key(&p);
  compare(p, 0, 300, "coded ldpc harq (deferred)");
  p = tparams(2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 4.0);
  p.subcarriers = 256;
  p.symbols = 14;
  lt_finish(&p);
  check_discard(p);
  return test_finish("test_gpu_async");
}
