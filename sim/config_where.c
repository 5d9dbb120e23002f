/* Locating settings for error messages. */
#include "sim/config_where.h"

#include <stdarg.h>
#include <stdio.h>

void cfg_locate(const config_t *c, const char *file, const char *top, unsigned line, char *buf,
                size_t n) {
  const char *dir = c ? config_get_include_dir(c) : NULL;
  if (!file) snprintf(buf, n, "%s:%u", top, line);
  else if (dir && file[0] != '/') snprintf(buf, n, "%s/%s:%u", dir, file, line);
  else snprintf(buf, n, "%s:%u", file, line);
}

void cfg_where(const config_setting_t *s, const char *top, char *buf, size_t n) {
  const char *origin = config_setting_get_hook(s);
  if (origin) snprintf(buf, n, "--set %s", origin);
  else cfg_locate(s->config, config_setting_source_file(s), top, config_setting_source_line(s), buf, n);
}

int cfg_fail_at(const config_setting_t *s, const char *top, char *err, size_t errlen, const char *fmt,
                ...) {
  char where[1100], msg[1024];
  if (s) cfg_where(s, top, where, sizeof where);
  else snprintf(where, sizeof where, "%s", top);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(err, errlen, "%s: %s", where, msg);
  return 2;
}
