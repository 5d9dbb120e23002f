/* Name suggestions by edit distance. */
#include "config/config_suggest.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

/* Levenshtein distance, blind to case (QPSK is a plausible typo of qpsk). */
static size_t edit_distance(const char *a, const char *b) {
  const size_t la = strlen(a), lb = strlen(b);
  if (la > 127 || lb > 127) return SIZE_MAX;
  size_t prev[128], cur[128];
  for (size_t j = 0; j <= lb; j++) prev[j] = j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      const size_t sub = prev[j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
      const size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
    memcpy(prev, cur, (lb + 1) * sizeof *prev);
  }
  return prev[lb];
}

static const char *last_component(const char *path) {
  const char *dot = strrchr(path, '.');
  return dot ? dot + 1 : path;
}

const char *cfg_suggest(const char *name, const char *const *candidates, size_t n) {
  const char *best = NULL;
  size_t best_score = SIZE_MAX, best_full = SIZE_MAX;
  const char *nl = last_component(name);
  for (size_t i = 0; i < n; i++) {
    const size_t full = edit_distance(name, candidates[i]);
    const char *cl = last_component(candidates[i]);
    const size_t last = edit_distance(nl, cl);
    const size_t nlen = strlen(nl), clen = strlen(cl), longest = nlen > clen ? nlen : clen;
    /* a typo changes a character or two of a longer name, or leaves more than
     * half of it; or the name is the start of the candidate (rho -> rho_tx) */
    const int plausible = (full <= 2 && 2 * full < strlen(name)) || (last != SIZE_MAX && 2 * last < longest) ||
                          (nlen >= 2 && !strncmp(cl, nl, nlen));
    if (!plausible) continue;
    const size_t score = full < last ? full : last;
    if (score < best_score || (score == best_score && full < best_full)) {
      best = candidates[i];
      best_score = score;
      best_full = full;
    }
  }
  return best;
}
