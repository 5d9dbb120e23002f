/* Configs through the library (ofdmsim.h): the command line's loader, its
 * messages kept instead of printed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "config/config_format.h"
#include "sim/shard.h"

static ofdmsim_status load(ofdmsim_config **out, const char *path, const char *const *overrides, int n_overrides,
                           const char *shown) {
  *out = NULL;
  ofdmsim_config *c = calloc(1, sizeof *c);
  if (!c) return api_fail(OFDMSIM_ERR_RUNTIME, "out of memory");
  char err[1024] = "";
  if (sim_config_load(&c->c, path, overrides, n_overrides, err, sizeof err)) {
    free(c);
    char safe[2048], named[2048] = "";
    cfg_escape(err, safe, sizeof safe);
    /* a text's temporary file is no name to the caller */
    const char *at = shown ? strstr(safe, path) : NULL;
    if (at)
      snprintf(named, sizeof named, "%.*s%s%s", (int)(at - safe), safe, shown, at + strlen(path));
    return api_fail(OFDMSIM_ERR_CONFIG, "%s", at ? named : safe);
  }
  if (shown) snprintf(c->c.path, sizeof c->c.path, "%s", shown);
  *out = c;
  return OFDMSIM_OK;
}

ofdmsim_status ofdmsim_config_load(ofdmsim_config **out, const char *path, const char *const *overrides,
                                   int n_overrides) {
  if (!out || !path) return api_fail(OFDMSIM_ERR_CONFIG, "ofdmsim_config_load: no config path");
  return load(out, path, overrides, n_overrides, NULL);
}

ofdmsim_status ofdmsim_config_parse(ofdmsim_config **out, const char *text, const char *const *overrides,
                                    int n_overrides) {
  if (!out || !text) return api_fail(OFDMSIM_ERR_CONFIG, "ofdmsim_config_parse: no config text");
  *out = NULL;
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/ofdmsim-config-XXXXXX", dir && *dir ? dir : "/tmp");
  const int fd = mkstemp(path);
  if (fd < 0) return api_fail(OFDMSIM_ERR_RUNTIME, "cannot write the config text to %s: %s", path, strerror(errno));
  FILE *f = fdopen(fd, "w");
  const int failed = !f || fputs(text, f) < 0 || fclose(f) != 0;
  if (!f) close(fd);
  if (failed) {
    unlink(path);
    return api_fail(OFDMSIM_ERR_RUNTIME, "cannot write the config text to %s", path);
  }
  const ofdmsim_status rc = load(out, path, overrides, n_overrides, "<text>");
  unlink(path);
  return rc;
}

void ofdmsim_config_free(ofdmsim_config *c) {
  if (!c) return;
  sim_config_free(&c->c);
  free(c);
}

ofdmsim_status ofdmsim_config_shard(ofdmsim_config *c, unsigned shard, unsigned shards) {
  if (!c || shard < 1 || shard > shards)
    return api_fail(OFDMSIM_ERR_CONFIG, "--shard %u/%u: expected I/N with 1 <= I <= N", shard, shards);
  return sim_config_shard(&c->c, shard, shards) ? api_fail(OFDMSIM_ERR_RUNTIME, "out of memory") : OFDMSIM_OK;
}

size_t ofdmsim_config_points(const ofdmsim_config *c) { return c ? c->c.n_points : 0; }

char *ofdmsim_config_echo(const ofdmsim_config *c) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return NULL;
  if (c) sim_config_print(&c->c, f, "");
  if (fclose(f)) {
    free(text);
    return NULL;
  }
  return text;
}
