#!/usr/bin/env bash
# The layering rules, each shown able to fail:
#  - scripts/check-layers.sh passes on the tree, and fails on copies of it with
#    an upward include planted, with a backend's header included above the
#    registry, and with the CUDA build flag tested there;
#  - scripts/check-cycles.sh passes on the tree and this build's objects, and
#    fails on an include cycle and on a call cycle among one folder's files.
set -euo pipefail
src=${OFDMSIM_SOURCE_DIR:?}
build=$(dirname "${OFDMSIM:?}")
bash "$src/scripts/check-layers.sh" >/dev/null
bash "$src/scripts/check-cycles.sh" "$build" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0

# A copy of the tree's sources (made once), with one line planted at a time;
# the check must fail and name the file and the rule. The planted file is put
# back after each check.
mkdir -p "$tmp/tree"
git -C "$src" ls-files -co --exclude-standard -- scripts core channel equalizer config results sim mpi api app |
  while read -r f; do [ -f "$src/$f" ] && echo "$f"; done | (cd "$src" && tar -cf - -T -) | tar -xf - -C "$tmp/tree"
git -C "$tmp/tree" init -q
git -C "$tmp/tree" add -A
planted_fails() { # what file line expected-message-regex [check args...]
  local what=$1 file=$2 line=$3 want=$4
  shift 4
  cp "$tmp/tree/$file" "$tmp/kept"
  echo "$line" >>"$tmp/tree/$file"
  local out
  if out=$(bash "$tmp/tree/scripts/$1" "${@:2}" 2>&1); then
    echo "FAIL: $what passed the check"; exit 1
  fi
  cp "$tmp/kept" "$tmp/tree/$file"
  grep -qE "$want" <<<"$out" || { echo "FAIL: $what: unclear message: $out"; exit 1; }
  passed=$((passed + 1))
}
planted_fails "an upward include" channel/tdl.c '#include "sim/driver.h"' 'channel/tdl.c:.*sim/driver.h' check-layers.sh
planted_fails "config including results" config/config.c '#include "results/report.h"' 'config/config.c:.*results/report.h' check-layers.sh
planted_fails "a backend header above the registry" app/cli.c '#include "cuda/gpu.h"' 'app/cli.c:.*cuda/gpu.h' check-layers.sh
planted_fails "the CUDA flag above the registry" mpi/job.c '#ifdef OFDMSIM_HAVE_CUDA' 'mpi/job.c:.*OFDMSIM_HAVE_CUDA' check-layers.sh
planted_fails "the engine including the library's API" sim/driver.c '#include "api/ofdmsim.h"' 'sim/driver.c:.*api/ofdmsim.h' check-layers.sh
planted_fails "a backend header in the library's API" api/api_link.c '#include "cpu/backend_cpu.h"' 'api/api_link.c:.*cpu/backend_cpu.h' check-layers.sh
planted_fails "an include cycle" config/config_sweep.h '#include "config/config_state.h"' \
  'config/:.*cycle' check-cycles.sh "$build"

# A call cycle: two objects of one folder calling each other (compiled here,
# in a build folder of their own beside the real one's objects).
mkdir -p "$tmp/calls/CMakeFiles/x.dir/core"
printf 'int b(int);\nint a(int n) { return n ? b(n - 1) : 0; }\n' >"$tmp/calls/a.c"
printf 'int a(int);\nint b(int n) { return n ? a(n - 1) : 1; }\n' >"$tmp/calls/b.c"
cc -c "$tmp/calls/a.c" -o "$tmp/calls/CMakeFiles/x.dir/core/a.c.o"
cc -c "$tmp/calls/b.c" -o "$tmp/calls/CMakeFiles/x.dir/core/b.c.o"
if out=$(bash "$src/scripts/check-cycles.sh" "$tmp/calls" 2>&1); then
  echo "FAIL: a call cycle passed the check"; exit 1
fi
grep -q 'a.c -> b.c' <<<"$out" && grep -q 'b.c -> a.c' <<<"$out" || { echo "FAIL: call cycle: unclear message: $out"; exit 1; }
passed=$((passed + 1))
echo "$((passed + 2)) passed, 0 failed"
