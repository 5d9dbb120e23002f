#!/usr/bin/env bash
# libofdmsim as a program outside the tree uses it (issue 27): a client that
# includes only <ofdmsim.h> compiles with the flags pkg-config gives from
# ofdmsim.pc, links against the shared library and, alone, against the
# static one (every layer merged in), and runs: a sweep from config text,
# a cancel that keeps the finished point, an error as a code and the
# command line's message. The shared library exports the ofdmsim_*
# functions and nothing else.
source "$OFDMSIM_SOURCE_DIR/tests/support/harness.sh"
build=$(dirname "$OFDMSIM")
command -v pkg-config >/dev/null && command -v cc >/dev/null || { echo "no pkg-config or cc: skipped"; exit 77; }
[ -f "$build/libofdmsim.so" ] && [ -f "$build/libofdmsim.a" ] && [ -f "$build/ofdmsim.pc" ] ||
  { echo "FAILED: no libofdmsim.so, libofdmsim.a or ofdmsim.pc in $build" >&2; exit 1; }

# The installed layout: <prefix>/include/ofdmsim.h and <prefix>/lib/libofdmsim.*
mkdir -p "$tmp/prefix/include" "$tmp/prefix/lib/pkgconfig"
cp "$OFDMSIM_SOURCE_DIR/api/ofdmsim.h" "$tmp/prefix/include/"
cp "$build/libofdmsim.a" "$tmp/prefix/lib/"
cp -P "$build"/libofdmsim.so* "$tmp/prefix/lib/"
cp "$build/ofdmsim.pc" "$tmp/prefix/lib/pkgconfig/"
# the .pc names its prefix relative to its own folder: wherever the prefix is
pc() { PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config "$@" ofdmsim; }
check "pkg-config knows ofdmsim" pc --exists
check "... at the project's version" test "$(pc --modversion)" = "$("$OFDMSIM" --version | cut -d' ' -f2)"

cat >"$tmp/client.c" <<'C'
#include <ofdmsim.h>
#include <stdio.h>
#include <string.h>
static int stop_after_first(void *ctx, const ofdmsim_progress *p) { (void)ctx; return p->points_done >= 1; }
int main(void) {
  const char *text = "simulation = { backend = \"cpu\"; seed = 2; snr_db = [0.0, 10.0]; max_bits = 20000.0; "
                     "threads = 1; };\nmimo = { tx = 1; rx = 1; };\nofdm = { subcarriers = 64; symbols = 1; };\n";
  ofdmsim_config *c;
  if (ofdmsim_config_parse(&c, text, NULL, 0)) return printf("parse: %s\n", ofdmsim_last_error()), 1;
  ofdmsim_run_options o = {.quiet = 1, .library = 1};
  ofdmsim_results *r;
  if (ofdmsim_run(c, &o, &r)) return printf("run: %s\n", ofdmsim_last_error()), 1;
  printf("rows %zu\n", ofdmsim_results_rows(r));
  ofdmsim_results_free(r);
  o.progress = stop_after_first;
  const int rc = ofdmsim_run(c, &o, &r);
  printf("cancel %d rows %zu\n", rc, ofdmsim_results_rows(r));
  ofdmsim_results_free(r);
  ofdmsim_config_free(c);
  const char *bad[] = {"mimo.tx=99"};
  printf("bad %d %s\n", ofdmsim_config_parse(&c, text, bad, 1), ofdmsim_last_error());
  return 0;
}
C
# CFLAGS: the sanitizers' when scripts/sanitize.sh built the library
# shellcheck disable=SC2086
cc ${CFLAGS:-} -std=c11 -Wall -Werror $(pc --cflags) "$tmp/client.c" -o "$tmp/client-shared" $(pc --libs) \
  -Wl,-rpath,"$tmp/prefix/lib" 2>"$tmp/cc1.err"
check "a client compiles and links against libofdmsim.so" test $? -eq 0
"$tmp/client-shared" >"$tmp/shared.out" 2>&1
check "... runs a sweep" grep -qx "rows 2" "$tmp/shared.out"
check "... cancels after the first point, keeping it" grep -qx "cancel 130 rows 1" "$tmp/shared.out"
check "... and has a bad value as the CLI's exit code 2 with its message" \
  grep -q "^bad 2 --set mimo.tx=99: .*expected" "$tmp/shared.out"
# static: the archive alone, with the libraries pkg-config --static names
# shellcheck disable=SC2086
cc ${CFLAGS:-} -std=c11 -Wall -Werror $(pc --cflags) "$tmp/client.c" -o "$tmp/client-static" \
  "$tmp/prefix/lib/libofdmsim.a" $(pc --libs-only-l --static | sed 's/-lofdmsim//') -fopenmp 2>"$tmp/cc2.err"
check "a client links against libofdmsim.a alone" test $? -eq 0
check "... needing no libofdmsim.so" bash -c '! ldd "$0" | grep -q libofdmsim' "$tmp/client-static"
"$tmp/client-static" >"$tmp/static.out" 2>&1
check "... and does what the shared one does" cmp -s "$tmp/shared.out" "$tmp/static.out"
exports=$(nm -D --defined-only "$build/libofdmsim.so" | awk '{print $3}' | grep -v '^ofdmsim_' | grep -v '^_' || true)
check "libofdmsim.so exports only ofdmsim_* ($exports)" test -z "$exports"
cat "$tmp"/cc*.err >&2
finish
