#!/usr/bin/env bash
# The CPU test suite under AddressSanitizer and UBSan (gcc), in
# ${OFDMSIM_SANITIZE_BUILD:-build-asan}: fails on any test failure and on any
# sanitizer report, even one in a test that expected a non-zero exit (every
# report is also logged under build-asan/reports/ and counted).
#   scripts/sanitize.sh [ctest arguments...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OFDMSIM_SANITIZE_BUILD:-$root/build-asan}
# CMake takes CFLAGS as the first value of CMAKE_C_FLAGS.
export CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
OFDMSIM_BUILD=$build OFDMSIM_CMAKE_ARGS="-DOFDMSIM_CUDA=OFF -DOFDMSIM_NATIVE=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo" \
  source "$root/scripts/setup.sh"
reports="$build/reports"
rm -rf "$reports"
mkdir -p "$reports"
export ASAN_OPTIONS="detect_leaks=1:log_path=$reports/asan:exitcode=86"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan"
export LSAN_OPTIONS="suppressions=$root/tests/support/lsan.supp"
t0=$(date +%s)
rc=0
(cd "$build" && ctest --output-on-failure -j"$(nproc)" "$@") || rc=$?
# A log that only lists the suppressions used (Open MPI's leaks) is no report.
n=$( (grep -lE 'ERROR|runtime error' -r "$reports" 2>/dev/null || true) | wc -l)
echo "sanitize: ctest exit $rc, $n sanitizer report(s), $(( $(date +%s) - t0 )) s"
if [ "$n" -gt 0 ]; then
  for f in $(grep -lE 'ERROR|runtime error' -r "$reports"); do echo "== $f"; head -n 30 "$f"; done
  exit 1
fi
exit "$rc"
