/* The pilot pattern of a frame, written once for both backends (plain C,
 * compiled by gcc and nvcc alike).
 *
 * A comb: on each pilot symbol, transmit antenna t sends the known symbol
 * 1 + 0j on subcarriers t, t + P, t + 2P, ... (P = spacing >= tx), and the
 * other antennas send nothing there, so the antennas' pilots are orthogonal
 * by frequency offset. Subcarriers k with k mod P >= tx of a pilot symbol,
 * and every subcarrier of the other symbols, carry data. Pilot symbols are
 * `first`, first + every, first + 2 every, ... below the frame's S symbols
 * (every = 0: `first` alone).
 *
 * Pilot REs carry no information: their labels are drawn as on any RE (the
 * draws of a data RE do not depend on the pattern) but never counted, and a
 * frame's bits are its data REs x tx x bits per symbol. Data REs are
 * numbered in frame order with the pilots left out (pilot_data_index), the
 * order of the LLR export.
 *
 * Or NR DMRS (kind PILOT_DMRS, core/dmrs.h): the DMRS symbols' REs of the
 * CDM groups without data are the pilot REs, every port of a group sends
 * on its REs (pilot_stream_value), and the functions below answer for
 * them in the same terms. */
#ifndef OFDMSIM_PILOTS_H
#define OFDMSIM_PILOTS_H

#include <stdint.h>

#include "core/cplx.h"
#include "core/dmrs.h"

typedef enum { PILOT_COMB = 0, PILOT_DMRS = 1 } pilot_kind;

typedef struct pilot_grid {
  int kind;     /* pilot_kind */
  int spacing;  /* P, subcarriers; 0: no pilots */
  int first;    /* the first pilot symbol */
  int every;    /* symbols from one pilot symbol to the next; 0: one pilot symbol */
  int K, S, tx; /* subcarriers, symbols, transmit antennas */
  dmrs_grid dm; /* kind PILOT_DMRS: the DMRS */
} pilot_grid;

/* Whether the frame has pilots at all. */
OFDM_HD int pilot_any(const pilot_grid *g) { return g->kind == PILOT_DMRS || g->spacing > 0; }

/* Whether symbol s carries pilots. */
OFDM_HD int pilot_on_symbol(const pilot_grid *g, int s) {
  if (g->kind == PILOT_DMRS) return dmrs_symbol_index(&g->dm, s) >= 0;
  if (g->spacing <= 0 || s < g->first || s >= g->S) return 0;
  return g->every > 0 ? (s - g->first) % g->every == 0 : s == g->first;
}

/* Pilot symbols of a frame. */
OFDM_HD int pilot_symbol_count(const pilot_grid *g) {
  if (g->kind == PILOT_DMRS) return g->dm.occasions * g->dm.len;
  if (g->spacing <= 0 || g->first >= g->S) return 0;
  return g->every > 0 ? (g->S - 1 - g->first) / g->every + 1 : 1;
}

/* Symbol index of pilot symbol j. */
OFDM_HD int pilot_symbol_at(const pilot_grid *g, int j) { return g->first + j * g->every; }

/* Pilot symbols before symbol s. */
OFDM_HD int pilot_symbols_before(const pilot_grid *g, int s) {
  if (g->kind == PILOT_DMRS) return dmrs_symbols_before(&g->dm, s);
  if (g->spacing <= 0 || s <= g->first) return 0;
  const int n = g->every > 0 ? (s - 1 - g->first) / g->every + 1 : 1;
  const int all = pilot_symbol_count(g);
  return n < all ? n : all;
}

/* Antenna t's pilots on a pilot symbol: subcarriers t + i P < K. */
OFDM_HD int pilot_count(const pilot_grid *g, int t) {
  return g->spacing > 0 && t < g->K ? (g->K - 1 - t) / g->spacing + 1 : 0;
}

/* REs of one pilot symbol that carry a pilot (of any antenna). */
OFDM_HD int pilot_res_per_symbol(const pilot_grid *g) {
  if (g->kind == PILOT_DMRS) return dmrs_res_per_symbol(&g->dm);
  int n = 0;
  for (int t = 0; t < g->tx; t++) n += pilot_count(g, t);
  return n;
}

/* The antenna whose pilot frame-local RE m (= s K + k) is, or -1: data
 * (DMRS: the CDM group of a pilot RE). */
OFDM_HD int pilot_antenna(const pilot_grid *g, uint64_t m) {
  if (!pilot_any(g)) return -1;
  const int s = (int)(m / (uint64_t)g->K), k = (int)(m - (uint64_t)s * (uint64_t)g->K);
  if (g->kind == PILOT_DMRS) {
    if (dmrs_symbol_index(&g->dm, s) < 0) return -1;
    const int lam = dmrs_group_of(&g->dm, k);
    return lam < g->dm.nodata ? lam : -1;
  }
  if (!pilot_on_symbol(g, s)) return -1;
  const int r = k % g->spacing;
  return r < g->tx ? r : -1;
}

/* What antenna t sends on pilot RE of antenna a. */
OFDM_HD cf32 pilot_value(int a, int t) { return cf_make(a == t ? 1.0f : 0.0f, 0.0f); }

/* What stream t sends on pilot RE m of pilot a (pilot_antenna's): the
 * comb's pilot_value, or its DMRS port's value (zero off its CDM group). */
OFDM_HD cf32 pilot_stream_value(const pilot_grid *g, uint64_t m, int a, int t) {
  if (g->kind != PILOT_DMRS) return pilot_value(a, t);
  const int s = (int)(m / (uint64_t)g->K), k = (int)(m - (uint64_t)s * (uint64_t)g->K);
  return dmrs_value(&g->dm, t, dmrs_symbol_index(&g->dm, s), dmrs_nr_of_re(g->K, k));
}

/* Data REs of a frame. */
OFDM_HD uint64_t pilot_data_res(const pilot_grid *g) {
  return (uint64_t)g->S * (uint64_t)g->K - (uint64_t)pilot_symbol_count(g) * (uint64_t)pilot_res_per_symbol(g);
}

/* The index among the frame's data REs of data RE m: m less the pilot REs
 * before it (whole periods of P subcarriers hold tx pilots each). */
OFDM_HD uint64_t pilot_data_index(const pilot_grid *g, uint64_t m) {
  if (!pilot_any(g)) return m;
  const int s = (int)(m / (uint64_t)g->K), k = (int)(m - (uint64_t)s * (uint64_t)g->K);
  uint64_t before = (uint64_t)pilot_symbols_before(g, s) * (uint64_t)pilot_res_per_symbol(g);
  if (g->kind == PILOT_DMRS) return m - before - (pilot_on_symbol(g, s) ? (uint64_t)dmrs_res_before(&g->dm, k) : 0u);
  if (pilot_on_symbol(g, s)) {
    const int r = k % g->spacing;
    before += (uint64_t)(k / g->spacing) * (uint64_t)g->tx + (uint64_t)(r < g->tx ? r : g->tx);
  }
  return m - before;
}

#endif
