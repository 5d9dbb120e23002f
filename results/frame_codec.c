/* Zero runs and varints for per-frame counts (frame_codec.h). */
#include "results/frame_codec.h"

#include <string.h>

#include "core/gmi_grid.h"
#include "core/params.h"

size_t frame_encoded_max(uint64_t n, int tx) {
  /* a zero run (10 bytes at most) and a frame of tx + 1 counts (5 each) and
   * tx + GMI_GRID losses (10 each) per frame, and a last run */
  return (size_t)(n + 1) * (10 + 5 * ((size_t)tx + 1) + 10 * ((size_t)tx + GMI_GRID));
}

static size_t put(uint8_t *out, uint64_t v) {
  size_t k = 0;
  while (v >= 0x80) {
    out[k++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  out[k++] = (uint8_t)v;
  return k;
}

/* One varint of at most `bits` bits; 0, or -1 when it runs past the end or is too long. */
static int get(const uint8_t *in, size_t len, size_t *at, unsigned bits, uint64_t *v) {
  uint64_t x = 0;
  for (unsigned shift = 0; shift < bits; shift += 7) {
    if (*at >= len) return -1;
    const uint8_t b = in[(*at)++];
    x |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      if (bits < 64 && x >> bits) return -1;
      *v = x;
      return 0;
    }
  }
  return -1;
}

static int zero_frame(const uint32_t *errors, const uint32_t *fallbacks, const uint64_t *loss, const uint64_t *loss_s,
                      uint64_t i, int tx) {
  if (fallbacks && fallbacks[i]) return 0;
  for (int s = 0; s < tx; s++)
    if (errors[i * (uint64_t)tx + (uint64_t)s] || (loss && loss[i * (uint64_t)tx + (uint64_t)s])) return 0;
  for (int g = 0; loss_s && g < GMI_GRID; g++)
    if (loss_s[i * GMI_GRID + (uint64_t)g]) return 0;
  return 1;
}

size_t frame_encode(const uint32_t *errors, const uint32_t *fallbacks, const uint64_t *loss, const uint64_t *loss_s,
                    uint64_t n, int tx, uint8_t *out) {
  size_t k = 0;
  uint64_t i = 0;
  while (i < n) {
    uint64_t z = 0;
    while (i + z < n && zero_frame(errors, fallbacks, loss, loss_s, i + z, tx)) z++;
    k += put(out + k, z);
    i += z;
    if (i == n) break;
    for (int s = 0; s < tx; s++) k += put(out + k, errors[i * (uint64_t)tx + (uint64_t)s]);
    k += put(out + k, fallbacks ? fallbacks[i] : 0);
    if (loss)
      for (int s = 0; s < tx; s++) k += put(out + k, loss[i * (uint64_t)tx + (uint64_t)s]);
    if (loss_s)
      for (int g = 0; g < GMI_GRID; g++) k += put(out + k, loss_s[i * GMI_GRID + (uint64_t)g]);
    i++;
  }
  return k;
}

int frame_decode(const uint8_t *in, size_t len, uint64_t n, int tx, uint32_t *errors, uint32_t *fallbacks,
                 uint64_t *loss, uint64_t *loss_s) {
  size_t at = 0;
  uint64_t i = 0;
  while (i < n) {
    uint64_t z, v;
    if (get(in, len, &at, 64, &z) || z > n - i) return -1;
    memset(errors + i * (uint64_t)tx, 0, sizeof *errors * (size_t)z * (size_t)tx);
    memset(fallbacks + i, 0, sizeof *fallbacks * (size_t)z);
    if (loss) memset(loss + i * (uint64_t)tx, 0, sizeof *loss * (size_t)z * (size_t)tx);
    if (loss_s) memset(loss_s + i * GMI_GRID, 0, sizeof *loss_s * (size_t)z * GMI_GRID);
    i += z;
    if (i == n) break;
    for (int s = 0; s <= tx; s++) {
      if (get(in, len, &at, 32, &v)) return -1;
      if (s < tx) errors[i * (uint64_t)tx + (uint64_t)s] = (uint32_t)v;
      else fallbacks[i] = (uint32_t)v;
    }
    if (loss)
      for (int s = 0; s < tx; s++)
        if (get(in, len, &at, 64, &loss[i * (uint64_t)tx + (uint64_t)s])) return -1;
    if (loss_s)
      for (int g = 0; g < GMI_GRID; g++)
        if (get(in, len, &at, 64, &loss_s[i * GMI_GRID + (uint64_t)g])) return -1;
    i++;
  }
  return at == len ? 0 : -1;
}

size_t coded_encoded_max(uint64_t n) { return (size_t)n * 7 * 5; }

size_t coded_encode(const frame_coded *c, uint64_t n, uint8_t *out) {
  size_t k = 0;
  for (uint64_t i = 0; i < n; i++) {
    k += put(out + k, c[i].tb_error);
    k += put(out + k, c[i].cbs);
    k += put(out + k, c[i].cb_errors);
    k += put(out + k, c[i].info_errors);
    k += put(out + k, c[i].iterations);
    k += put(out + k, c[i].harq_error);
    k += put(out + k, c[i].transmissions);
  }
  return k;
}

long long coded_decode(const uint8_t *in, size_t len, uint64_t n, frame_coded *c) {
  size_t at = 0;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t v[7];
    for (int j = 0; j < 7; j++)
      if (get(in, len, &at, 32, &v[j])) return -1;
    /* a TB is lost or not; no more CB errors than CBs; HARQ: lost or not,
     * at most LINK_HARQ_MAX transmissions */
    if (v[0] > 1 || v[2] > v[1] || v[5] > 1 || v[6] > LINK_HARQ_MAX) return -1;
    c[i] = (frame_coded){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3], (uint32_t)v[4],
                         (uint32_t)v[5], (uint32_t)v[6]};
  }
  return (long long)at;
}
