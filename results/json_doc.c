/* The provenance block and the one way JSON files are written (json_doc.h). */
#include "results/json_doc.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "config/json_value.h"
#include "results/atomic_file.h"
#include "version.h"

void json_doc_iso_now(char *buf, size_t n) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

json_t *json_doc_new(const char *tool, const char *command_line, const char *started) {
  char host[256] = "unknown", now[32];
  gethostname(host, sizeof host - 1);
  json_doc_iso_now(now, sizeof now);
  /* Jansson's pack takes 'o' values as they come, so a NULL (out of memory)
   * fails the whole pack and nothing leaks. */
  json_t *build = json_pack("{s:o, s:s, s:s, s:s}", "git_commit", sim_json_string(OFDMSIM_GIT_COMMIT),
                            "build_type", OFDMSIM_BUILD_TYPE, "c_flags", OFDMSIM_C_FLAGS,
                            "cuda_architectures", OFDMSIM_CUDA_ARCHITECTURES);
  return json_pack("{s:s, s:s, s:s, s:o, s:s, s:o, s:s, s:o, s:o}", "program", "ofdmsim", "tool", tool,
                   "version", OFDMSIM_VERSION, "build", build, "date", now, "started",
                   sim_json_string(started ? started : now), "written", now, "host", sim_json_string(host),
                   "command", sim_json_string(command_line ? command_line : ""));
}

int json_doc_emit(FILE *f, const json_t *doc) {
  errno = 0;
  if (json_dumpf(doc, f, SIM_JSON_FLAGS) || fputc('\n', f) == EOF || ferror(f)) {
    if (!errno) errno = EIO;
    return -1;
  }
  return 0;
}

int json_doc_write(const char *path, const json_t *doc) {
  results_file w;
  if (results_file_open(&w, path)) return -1;
  if (json_doc_emit(w.f, doc)) {
    const int e = errno;
    results_file_abort(&w);
    errno = e;
    return -1;
  }
  return results_file_commit(&w);
}
