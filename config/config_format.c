/* The libconfig writer. */
#include "config/config_format.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

cfg_out cfg_out_file(FILE *f) {
  cfg_out o = {0};
  o.f = f;
  return o;
}

cfg_out cfg_out_buffer(char *buf, size_t cap) {
  cfg_out o = {0};
  o.buf = buf;
  o.cap = cap;
  if (cap) buf[0] = '\0';
  return o;
}

void cfg_printf(cfg_out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (o->f) {
    vfprintf(o->f, fmt, ap);
  } else if (o->cap > 0 && !o->cut) {
    const size_t room = o->cap - o->len;
    const int w = vsnprintf(o->buf + o->len, room, fmt, ap);
    if (w < 0 || (size_t)w >= room) {
      o->len = o->cap - 1;
      o->cut = 1;
    } else {
      o->len += (size_t)w;
    }
  }
  va_end(ap);
}

void cfg_tidy_exponent(const char *printed, char *buf, size_t n) {
  const char *x = strchr(printed, 'e');
  if (x) {
    const char *d = x + 1;
    const int neg = *d == '-';
    if (*d == '+' || *d == '-') d++;
    while (*d == '0' && d[1]) d++;
    snprintf(buf, n, "%.*se%s%s", (int)(x - printed), printed, neg ? "-" : "", d);
  } else {
    snprintf(buf, n, "%s", printed);
  }
}

/* The shortest decimal that reads back as the same double, spelt as a person
 * would (120.0, 0.25, 1e8, 1.5e-9), always with a '.' or an exponent so that
 * libconfig reads it as a float. */
static void format_double(double v, char *buf, size_t n) {
  if (!isfinite(v)) {
    snprintf(buf, n, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
    return;
  }
  int prec = 1;
  for (; prec < 17; prec++) {
    snprintf(buf, n, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  const int e = v == 0 ? 0 : (int)floor(log10(fabs(v)));
  if (e >= -4 && e < 7) {
    snprintf(buf, n, "%.*f", prec - 1 - e > 0 ? prec - 1 - e : 0, v);
    if (strtod(buf, NULL) != v) snprintf(buf, n, "%.17g", v);
  } else {
    char tmp[40];
    snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
    cfg_tidy_exponent(tmp, buf, n);
  }
  if (!strpbrk(buf, ".e")) {
    const size_t len = strlen(buf);
    if (len + 3 <= n) memcpy(buf + len, ".0", 3);
  }
}

void cfg_write_string(cfg_out *o, const char *s) {
  cfg_printf(o, "\"");
  for (; *s; s++) {
    const unsigned char ch = (unsigned char)*s;
    switch (ch) {
      case '"': cfg_printf(o, "\\\""); break;
      case '\\': cfg_printf(o, "\\\\"); break;
      case '\n': cfg_printf(o, "\\n"); break;
      case '\t': cfg_printf(o, "\\t"); break;
      case '\r': cfg_printf(o, "\\r"); break;
      default:
        if (ch < 0x20 || ch == 0x7f) cfg_printf(o, "\\x%02x", ch);
        else cfg_printf(o, "%c", ch);
    }
  }
  cfg_printf(o, "\"");
}

/* re_readable: the L suffix on 64-bit integers, which an error message leaves out */
static void write_scalar(cfg_out *o, const config_setting_t *s, int re_readable) {
  char num[40];
  switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT: cfg_printf(o, "%d", config_setting_get_int(s)); break;
    case CONFIG_TYPE_INT64:
      /* L keeps libconfig 1.5 from reading a 64-bit value back as 32 bits */
      cfg_printf(o, re_readable ? "%lldL" : "%lld", config_setting_get_int64(s));
      break;
    case CONFIG_TYPE_FLOAT:
      format_double(config_setting_get_float(s), num, sizeof num);
      cfg_printf(o, "%s", num);
      break;
    case CONFIG_TYPE_BOOL: cfg_printf(o, "%s", config_setting_get_bool(s) ? "true" : "false"); break;
    case CONFIG_TYPE_STRING: cfg_write_string(o, config_setting_get_string(s)); break;
    default: break;
  }
}

static void write_any(cfg_out *o, const config_setting_t *s, int re_readable) {
  const int type = config_setting_type(s);
  if (!config_setting_is_aggregate(s)) {
    write_scalar(o, s, re_readable);
    return;
  }
  const int n = config_setting_length(s);
  const int group = type == CONFIG_TYPE_GROUP, list = type == CONFIG_TYPE_LIST;
  cfg_printf(o, "%s", group ? "{" : list ? "(" : "[");
  for (int i = 0; i < n && !o->cut; i++) {
    const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
    if (group) cfg_printf(o, " %s = ", config_setting_name(e));
    else if (i) cfg_printf(o, ", ");
    write_any(o, e, re_readable);
    if (group) cfg_printf(o, ";");
  }
  if (group && n > 0) cfg_printf(o, " ");
  cfg_printf(o, "%s", group ? "}" : list ? ")" : "]");
}

void cfg_write_value(cfg_out *o, const config_setting_t *s) { write_any(o, s, 1); }

void cfg_describe(const config_setting_t *s, char *buf, size_t n) {
  if (n < 8) {
    if (n) buf[0] = '\0';
    return;
  }
  cfg_out o = cfg_out_buffer(buf, n - 3);
  write_any(&o, s, 0);
  if (o.cut) strcat(buf, "...");
}

const char *cfg_escape(const char *s, char *buf, size_t n) {
  if (n == 0) return buf;
  size_t o = 0, fit = 0; /* fit: the last place a cut with "..." can be made */
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    char piece[12];
    const unsigned char c = *p;
    if (c == '\n') snprintf(piece, sizeof piece, "\\n");
    else if (c == '\t') snprintf(piece, sizeof piece, "\\t");
    else if (c == '\r') snprintf(piece, sizeof piece, "\\r");
    else if (c < 0x20 || c == 0x7f) snprintf(piece, sizeof piece, "\\x%02x", c);
    else if (c == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) snprintf(piece, sizeof piece, "\\xc2\\x%02x", *++p);
    else piece[0] = (char)c, piece[1] = '\0';
    /* never between an escape's characters or inside a UTF-8 sequence */
    if (o + 4 <= n && (c < 0x80 || c >= 0xc0)) fit = o;
    const size_t len = strlen(piece);
    if (o + len >= n) {
      if (fit + 4 <= n) memcpy(buf + fit, "...", 4);
      else buf[fit] = '\0';
      return buf;
    }
    memcpy(buf + o, piece, len);
    o += len;
  }
  buf[o] = '\0';
  return buf;
}
