#!/usr/bin/env bash
# Fuzzes every target in fuzz/ with libFuzzer under AddressSanitizer and
# UBSan (a clang build in ${OFDMSIM_FUZZ_BUILD:-build-fuzz}), each for
# SECONDS (default 60), starting from its seed corpus. Fails on any crash,
# sanitizer report, leak or hang (> 10 s for one input), and prints the
# executions per target. New inputs found go to build-fuzz/corpus/<target>.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
shift || true
build=${OFDMSIM_FUZZ_BUILD:-$root/build-fuzz}

source "$root/scripts/packages.sh"
install_missing "ofdmsim fuzz" clang libomp-dev cmake make pkg-config libconfig-dev libfftw3-dev librandom123-dev \
  libjansson-dev

flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g"
CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOFDMSIM_CUDA=OFF \
  -DOFDMSIM_NATIVE=OFF -DOFDMSIM_FUZZ=ON -DBUILD_TESTING=OFF -DCMAKE_C_FLAGS="$flags" >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for src in "$root"/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    [ "$name" = fuzz_util ] || targets+=("$name")
  done
fi
if ! cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >"$build/build.log" 2>&1; then
  grep -E 'error|Error' "$build/build.log" | head -20
  echo "fuzz: the build failed (see $build/build.log)"
  exit 1
fi

# The seed folders of each target (as in fuzz/CMakeLists.txt).
seeds() {
  case $1 in
    fuzz_config_file) echo "$root/configs $root/tests/bad" ;;
    fuzz_config_set) echo "$root/fuzz/seeds/set" ;;
    fuzz_sweep) echo "$root/fuzz/seeds/sweep" ;;
    fuzz_journal) echo "$root/fuzz/seeds/journal" ;;
    fuzz_results) echo "$root/fuzz/seeds/results $root/tests/app/data" ;;
    *) echo "" ;;
  esac
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
[ -f "$root/fuzz/lsan.supp" ] && export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/fuzz/lsan.supp}
total=0 failed=0
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t"
  mkdir -p "$corpus" "$build/artifacts"
  dict=()
  case $t in fuzz_config_*|fuzz_sweep) dict=(-dict="$root/fuzz/config.dict") ;; esac
  log="$build/$t.log"
  # shellcheck disable=SC2046
  if (cd "$build" && "$build/fuzz/$t" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=8192 \
        -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" "$corpus" $(seeds "$t")) >"$log" 2>&1; then
    status=ok
  else
    status=FAILED
    failed=$((failed + 1))
  fi
  runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' | tail -1 || true)
  runs=${runs:-0}
  total=$((total + runs))
  printf '%-20s %-6s %12s executions in %ss\n' "$t" "$status" "$runs" "$seconds"
  [ $status = ok ] || grep -m 20 -E 'ERROR|SUMMARY|runtime error|==[0-9]+==|Test unit written' "$log" || true
done
echo "fuzz: $total executions in all, $failed target(s) failed"
[ "$failed" -eq 0 ]
