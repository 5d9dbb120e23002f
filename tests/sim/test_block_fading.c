/* Block fading of the rayleigh channel (channel.fading, core/re.h
 * re_channel_index), from the channels the CPU backend fetches:
 *   - block: every symbol of a frame has symbol 0's channel on each
 *     subcarrier, and the subcarriers differ; flat_block: one matrix for
 *     every RE of the frame; independent: no two REs alike;
 *   - the draws are still CN(0, 1) per element: the mean power of the
 *     frames' channels within its interval of 1, and consecutive frames'
 *     channels uncorrelated within theirs (frames are independent draws);
 *   - each fading kind has a stream key of its own, and block fading is
 *     refused on a tdl channel (its taps are per frame already). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "fetch.h"
#include "linktest.h"
#include "sim/backends.h"
#include "testutil.h"

/* H of frames [0, frames) of p, one staged CPU batch. */
static cf32 *fetch_h(const link_params *p, uint64_t frames) {
  const backend_buffer which = BUF_H;
  cf32 *H = NULL;
  return lt_fetch(p, frames, 1, &which, &H) ? NULL : H;
}

static int same(cf32 a, cf32 b) { return a.re == b.re && a.im == b.im; }

static void check_kind(fading_kind kind) {
  link_params p = lt_params(2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 10.0);
  p.subcarriers = 32;
  p.symbols = 7;
  p.fading = kind;
  CHECK(lt_finish(&p) == 0, "point");
  const uint64_t frames = test_scaled(400, 40), rf = link_res_per_frame(&p);
  const size_t R = (size_t)(frames * rf), K = (size_t)p.subcarriers, links = 4;
  cf32 *H = fetch_h(&p, frames);
  CHECK(H != NULL, "%s: fetch", fading_kind_name(kind));
  if (!H) return;
  /* what each RE's channel equals: its subcarrier's on symbol 0 (block), RE 0
   * (flat_block) or nothing else (independent: checked against its neighbours) */
  uint64_t held = 0, alike_k = 0, alike_s = 0;
  for (size_t e = 0; e < links; e++)
    for (uint64_t f = 0; f < frames; f++)
      for (uint64_t m = 0; m < rf; m++) {
        const cf32 *h = H + e * R + f * rf;
        const uint64_t k = m % K;
        held += kind == FADING_BLOCK ? same(h[m], h[k]) : kind == FADING_FLAT_BLOCK ? same(h[m], h[0]) : 0;
        if (k > 0) alike_k += same(h[m], h[m - 1]);
        if (m >= K) alike_s += same(h[m], h[m - K]);
      }
  const uint64_t all = links * frames * rf, across_k = links * frames * (rf - rf / K), across_s = links * frames * (rf - K);
  printf("%s: %llu of %llu REs held, %llu of %llu alike across subcarriers, %llu of %llu across symbols\n",
         fading_kind_name(kind), (unsigned long long)held, (unsigned long long)all, (unsigned long long)alike_k,
         (unsigned long long)across_k, (unsigned long long)alike_s, (unsigned long long)across_s);
  if (kind == FADING_BLOCK)
    CHECK(held == all && alike_k == 0 && alike_s == across_s, "block: held %llu, alike %llu/%llu",
          (unsigned long long)held, (unsigned long long)alike_k, (unsigned long long)alike_s);
  else if (kind == FADING_FLAT_BLOCK)
    CHECK(held == all && alike_k == across_k && alike_s == across_s, "flat_block: held %llu of %llu",
          (unsigned long long)held, (unsigned long long)all);
  else
    CHECK(alike_k == 0 && alike_s == 0, "independent: %llu/%llu alike", (unsigned long long)alike_k,
          (unsigned long long)alike_s);
  /* power and the correlation of consecutive frames, per frame (the frames
   * are the independent units): element (0,0) on subcarrier 0, symbol 0 */
  double sp = 0, sp2 = 0, sc = 0, sc2 = 0;
  for (uint64_t f = 0; f < frames; f++) {
    const cf32 a = H[f * rf], b = H[(f + 1) % frames * rf];
    const double pw = a.re * a.re + a.im * a.im, c = a.re * b.re + a.im * b.im;
    sp += pw, sp2 += pw * pw, sc += c, sc2 += c * c;
  }
  const double n = (double)frames, mp = sp / n, sep = sqrt((sp2 / n - mp * mp) / n), mc = sc / n,
               sec = sqrt((sc2 / n - mc * mc) / n);
  printf("%s: power %.4f (se %.4f), Re E[h_f conj(h_f+1)] %.4f (se %.4f) over %llu frames\n", fading_kind_name(kind),
         mp, sep, mc, sec, (unsigned long long)frames);
  CHECK(fabs(mp - 1.0) < 4 * sep, "%s: power %.4f, expected 1 (se %.4f)", fading_kind_name(kind), mp, sep);
  CHECK(fabs(mc) < 4 * sec, "%s: consecutive frames correlate, %.4f (se %.4f)", fading_kind_name(kind), mc, sec);
  free(H);
}

static void test_keys(void) {
  link_params a = lt_params(2, 2, 2, EQ_MMSE, CH_RAYLEIGH, 10.0), b = a, c = a;
  b.fading = FADING_BLOCK;
  c.fading = FADING_FLAT_BLOCK;
  const uint64_t ka = link_stream_key(&a), kb = link_stream_key(&b), kc = link_stream_key(&c);
  CHECK(ka != kb && kb != kc && ka != kc, "fading kinds share a stream key");
  link_params t = lt_params(2, 2, 2, EQ_MMSE, CH_TDL, 10.0);
  t.fading = FADING_BLOCK;
  char err[256];
  CHECK(link_params_check(&t, err, sizeof err) != 0 && strstr(err, "rayleigh"), "block fading on tdl accepted: %s",
        err);
}

int main(void) {
  check_kind(FADING_INDEPENDENT);
  check_kind(FADING_BLOCK);
  check_kind(FADING_FLAT_BLOCK);
  test_keys();
  return test_finish("test_block_fading");
}
