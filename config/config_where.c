/* Locating settings for error messages. */
#include "config/config_where.h"

#include <stdarg.h>
#include <stdio.h>

#include "config/config_format.h"

void cfg_locate(const char *file, const char *top, unsigned line, char *buf, size_t n) {
  char shown[1024];
  snprintf(buf, n, "%s:%u", cfg_escape(file ? file : top, shown, sizeof shown), line);
}

void cfg_where(const config_setting_t *s, const char *top, char *buf, size_t n) {
  const char *origin = config_setting_get_hook(s);
  char shown[1024];
  if (origin) snprintf(buf, n, "--set %s", cfg_escape(origin, shown, sizeof shown));
  else cfg_locate(config_setting_source_file(s), top, config_setting_source_line(s), buf, n);
}

int cfg_fail_at(const config_setting_t *s, const char *top, char *err, size_t errlen, const char *fmt,
                ...) {
  char where[1100], msg[1024];
  if (s) cfg_where(s, top, where, sizeof where);
  else cfg_escape(top, where, sizeof where);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(err, errlen, "%s: %s", where, msg);
  return 2;
}
