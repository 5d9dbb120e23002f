#!/usr/bin/env bash
# The CPU test suite under AddressSanitizer and UBSan (gcc), in
# ${OFDMSIM_SANITIZE_BUILD:-build-asan}: fails on any test failure and on any
# sanitizer report, even one in a test that expected a non-zero exit (every
# report is also logged under build-asan/reports/ and counted). The long
# statistical tests run scaled down (OFDMSIM_TEST_SCALE, below).
#   scripts/sanitize.sh [ctest arguments...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OFDMSIM_SANITIZE_BUILD:-$root/build-asan}
# CMake takes CFLAGS as CMAKE_C_FLAGS; build type None adds nothing to them. At -O1 (AddressSanitizer's
# own advice): gcc at -O2 with both sanitizers spent 247 CPU seconds on
# cpu/detect_cpu.c alone (the inlined per-RE detectors), 8 at -O1, and the
# sanitizers see the same accesses either way.
export CFLAGS="-O1 -g -DNDEBUG -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
OFDMSIM_BUILD=$build OFDMSIM_CUDA=OFF OFDMSIM_CMAKE_ARGS="-DOFDMSIM_NATIVE=OFF -DCMAKE_BUILD_TYPE=None" \
  source "$root/scripts/setup.sh"
reports="$build/reports"
rm -rf "$reports"
mkdir -p "$reports"
export ASAN_OPTIONS="detect_leaks=1:log_path=$reports/asan:exitcode=86"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan"
export LSAN_OPTIONS="suppressions=$root/tests/support/lsan.supp"
# The statistical end-to-end tests at a tenth of their size (test_scaled in
# tests/support/testutil.h, scaled in harness.sh): the sanitizers look for bad accesses, leaks and
# undefined behaviour, which the first frames down a path show as well as the
# millionth, and the code runs 10-20 times slower here. Every path still
# runs, and every exact equality (resumed = uninterrupted, ranks = one
# process) is still asserted; the full sizes and the statistics' full
# precision are the normal pass's (scripts/test.sh). OFDMSIM_TEST_SCALE=1
# runs the full sizes here too.
export OFDMSIM_TEST_SCALE=${OFDMSIM_TEST_SCALE:-0.1}
t0=$(date +%s)
rc=0
# The tests labelled static (source and build-file checks, tests/CMakeLists.txt)
# run no compiled ofdmsim code: the normal pass runs them.
(cd "$build" && ctest --output-on-failure -j"$(nproc)" -LE static "$@") || rc=$?
# A log that only lists the suppressions used (Open MPI's leaks) is no report.
n=$( (grep -lE 'ERROR|runtime error' -r "$reports" 2>/dev/null || true) | wc -l)
echo "sanitize: ctest exit $rc, $n sanitizer report(s), $(( $(date +%s) - t0 )) s"
if [ "$n" -gt 0 ]; then
  for f in $(grep -lE 'ERROR|runtime error' -r "$reports"); do echo "== $f"; head -n 30 "$f"; done
  exit 1
fi
exit "$rc"
