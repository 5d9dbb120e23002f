/* Strings repaired to valid UTF-8, and reals that may not be finite. */
#include "config/json_value.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s, or 0 when there is none: no
 * overlong forms, no surrogates, nothing beyond U+10FFFF (what Jansson checks). */
static size_t utf8_sequence(const unsigned char *s) {
  if (s[0] < 0x80) return 1;
  size_t len;
  uint32_t cp, min;
  if ((s[0] & 0xe0) == 0xc0) len = 2, cp = s[0] & 0x1fu, min = 0x80;
  else if ((s[0] & 0xf0) == 0xe0) len = 3, cp = s[0] & 0x0fu, min = 0x800;
  else if ((s[0] & 0xf8) == 0xf0) len = 4, cp = s[0] & 0x07u, min = 0x10000;
  else return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0; /* also stops at the terminating NUL */
    cp = cp << 6 | (s[i] & 0x3fu);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

json_t *sim_json_string(const char *s) {
  json_t *j = json_string(s);
  if (j) return j;
  static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */
  char *fixed = malloc(3 * strlen(s) + 1);
  if (!fixed) return NULL;
  size_t o = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    const size_t len = utf8_sequence(p);
    if (len) {
      memcpy(fixed + o, p, len);
      o += len;
      p += len;
    } else {
      memcpy(fixed + o, replacement, 3);
      o += 3;
      p++;
    }
  }
  fixed[o] = '\0';
  j = json_string(fixed);
  free(fixed);
  return j;
}

json_t *sim_json_real(double v) { return isfinite(v) ? json_real(v) : json_null(); }
