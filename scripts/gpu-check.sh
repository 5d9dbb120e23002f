#!/usr/bin/env bash
# The one script to run on a GPU machine: build, GPU tests, compute-sanitizer,
# bench, and a compact summary table at the end.
#
#   bash scripts/gpu-check.sh [DEPS_PREFIX]
#
# DEPS_PREFIX (default "$PWD/.deps") holds what the machine lacks (libconfig,
# Random123) as unpacked Debian packages: <prefix>/usr/include, <prefix>/usr/lib/...
# Environment:
#   OUT=dir            also leave the logs, the ptxas report and bench.json there
#   GPU_CHECK_BUILD_DIR=dir   build folder (default build-gpu)
#   GPU_CHECK_ALL=1    also run the CPU test suite (ctest -LE gpu)
#   GPU_CHECK_NO_BENCH=1, GPU_CHECK_NO_SANITIZER=1   skip those steps (the
#                      bench step also runs scripts/bench-points.sh,
#                      scripts/bench-coded.sh, scripts/bench-paths.sh and the
#                      LDPC decoder's speed bench)
#   GPU_CHECK_NO_TESTS=1   skip the GPU tests, the Python GPU tests, the CLI
#                      cross-check, the kernel choices and resume: with
#                      GPU_CHECK_NO_BENCH=0 or the sanitizers, a second call on
#                      a build folder the first call left
#   GPU_CHECK_SANITIZER_SECONDS=240   time budget of all sanitizer runs together
#   GPU_CHECK_PROFILE=1   also run scripts/gpu-profile.sh (the kernels'
#                      share of the GPU time on each of issue 26's paths)
#   BENCH_ARGS="..."   extra arguments for `ofdmsim bench`
#   GPU_CHECK_SHAPES="1x1;2x2;4x4"   compile only these (tx, rx) shapes
#                      (OFDMSIM_CUDA_SHAPES; default all 40): a quicker build
#                      for a targeted check, whose points of other shapes fail
# Exit status: 0 when every step passed, 1 otherwise.
set -u -o pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=${1:-$PWD/.deps}
prefix=$(cd "$prefix" 2>/dev/null && pwd || echo "$prefix")
cd "$root" || exit 1
build=${GPU_CHECK_BUILD_DIR:-$root/build-gpu}
logs=$build/gpu-check-logs
rm -rf "$logs"
mkdir -p "$logs"
out=${OUT:-}
[ -n "$out" ] && mkdir -p "$out"
jobs=$(nproc 2>/dev/null || echo 4)
t_start=$(date +%s)

export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu:$prefix/usr/lib:$prefix/lib/x86_64-linux-gnu:$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$PATH:/usr/local/cuda/bin"
# Never touch NVLink multicast on shared machines (the bench does not use NCCL,
# but keep the workplace's defaults for anything that might).
export NCCL_NVLS_ENABLE=0

# ---- bookkeeping: one summary row per check ---------------------------------
rows=()
failures=0
# Each row is also printed as it is made: a run stopped by its time limit
# before the summary still shows every verdict reached.
row() {
  rows+=("$(printf '%-34s %-8s %s' "$1" "$2" "${3:-}")")
  printf 'ROW %s\n' "${rows[-1]}"
}
pass() { row "$1" PASS "${2:-}"; }
fail() { row "$1" FAIL "${2:-}"; failures=$((failures + 1)); }
note() { row "$1" "${2:-info}" "${3:-}"; }
banner() { printf '\n==== %s ====\n' "$*"; }
elapsed() { echo "$(( $(date +%s) - $1 ))s"; }

print_summary() {
  banner "gpu-check summary ($(elapsed "$t_start"))"
  printf '%-34s %-8s %s\n' "check" "result" "detail"
  printf '%s\n' "${rows[@]}"
  if [ "$failures" -eq 0 ]; then echo "OVERALL: PASS"; else echo "OVERALL: FAIL ($failures failed)"; fi
}

copy_out() {
  [ -n "$out" ] || return 0
  # At most a few files come back from a device run: one combined log (each
  # step's last 3000 lines), the ptxas report, bench.json, the summary.
  {
    for f in "$logs"/*.log; do
      [ -f "$f" ] || continue
      echo "######## $(basename "$f")"
      tail -n 3000 "$f"
    done
  } > "$out/gpu-check.log" 2>/dev/null
  [ -f "$logs/ptxas.txt" ] && cp "$logs/ptxas.txt" "$out/ptxas.txt"
  print_summary > "$out/summary.txt"
}

finish() {
  copy_out
  print_summary
  [ "$failures" -eq 0 ] && exit 0 || exit 1
}

# ---- device ---------------------------------------------------------------------
banner "device"
if nvidia-smi -L 2>&1 | tee "$logs/00-nvidia-smi.log"; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv 2>&1 | tee -a "$logs/00-nvidia-smi.log"
  note "device" info "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
else
  fail "nvidia-smi -L" "no GPU visible"
fi
[ -d "$prefix" ] || note "deps prefix" warn "$prefix does not exist: the system must have libconfig and Random123"

# ---- build ------------------------------------------------------------------------
banner "configure + build ($(basename "$build"), Release, sm_90)"
t0=$(date +%s)
if cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
     -DOFDMSIM_CUDA=ON -DOFDMSIM_DEPS_PREFIX="$prefix" ${GPU_CHECK_SHAPES:+"-DOFDMSIM_CUDA_SHAPES=$GPU_CHECK_SHAPES"} \
     > "$logs/01-configure.log" 2>&1 &&
   cmake --build "$build" -j "$jobs" > "$logs/02-build.log" 2>&1; then
  warnings=$(grep -c -i 'warning' "$logs/02-build.log" || true)
  pass "build" "$(elapsed "$t0"), $warnings warning line(s)"
else
  echo "build failed; last lines:"
  tail -n 40 "$logs/01-configure.log" "$logs/02-build.log" 2>/dev/null
  fail "build" "see 01-configure.log / 02-build.log"
  finish
fi
ofdmsim=$build/ofdmsim

# ---- resource report of every kernel ----------------------------------------------------
# All kernels from the built binary (cuobjdump: no recompilation), and the
# spill detail of our inversion kernels from ptxas itself.
banner "kernel resources (cuobjdump -res-usage; nvcc -Xptxas -v for cuda/invert.cu)"
demangle() {
  # Demangled, without the parameter list, namespaces and spaces (one column).
  local pretty
  pretty=$(echo "$1" | c++filt 2>/dev/null || echo "$1")
  echo "$pretty" | sed -e 's/(anonymous namespace):://g' -e 's/([^()]*)$//' -e 's/^void //' |
    tr -d ' ' | cut -c1-64
}
{
  printf '%-66s %5s %6s %6s %7s\n' "kernel (all, from the ofdmsim binary)" "regs" "stack" "local" "shared"
  cuobjdump -res-usage "$ofdmsim" 2>&1 | awk '
    /Function [^ ]+:$/ { name = $2; sub(/:$/, "", name); next }
    name != "" && /REG:/ {
      reg = stack = local = shared = 0
      for (i = 1; i <= NF; i++) {
        split($i, kv, ":")
        if (kv[1] == "REG") reg = kv[2]
        if (kv[1] == "STACK") stack = kv[2]
        if (kv[1] == "LOCAL") local = kv[2]
        if (kv[1] == "SHARED") shared = kv[2]
      }
      print name, reg, stack, local, shared
      name = ""
    }' | sort -u | while read -r name reg stack local shared; do
    printf '%-66s %5s %6s %6s %7s\n' "$(demangle "$name")" "$reg" "$stack" "$local" "$shared"
  done
} > "$logs/resources.txt" 2>&1
{
  printf '%-66s %5s %6s %8s %8s\n' "kernel (cuda/invert.cu, ptxas)" "regs" "stack" "spill_st" "spill_ld"
  nvcc -std=c++17 -O3 -DNDEBUG -arch=sm_90 -lineinfo -I"$root" -I"$build/generated" \
    -c "$root/cuda/invert.cu" -o /dev/null -Xptxas -v 2>&1 | tee "$logs/03-ptxas-invert.log" | awk '
      /Function properties for/ { name = $NF }
      /bytes stack frame/ { stack = $1; sst = $5; sld = $9 }
      /Used [0-9]+ registers/ {
        for (i = 1; i <= NF; i++) if ($i == "Used") regs = $(i + 1)
        if (name != "") print name, regs, stack, sst, sld
        name = ""
      }' | while read -r name regs stack sst sld; do
    printf '%-66s %5s %6s %8s %8s\n' "$(demangle "$name")" "$regs" "$stack" "$sst" "$sld"
  done
} > "$logs/ptxas.txt" 2>&1
cat "$logs/ptxas.txt"
echo "kernels with a stack frame or local memory:"
awk 'NR > 1 && ($3 > 0 || $4 > 0)' "$logs/resources.txt"
cat "$logs/resources.txt" >> "$logs/ptxas.txt"
nk=$(($(wc -l < "$logs/resources.txt") - 1))
withstack=$(awk 'NR > 1 && ($3 > 0 || $4 > 0) { n++ } END { print n + 0 }' "$logs/resources.txt")
inv=$(awk 'NR > 1 && NF == 5 && $2 ~ /^[0-9]+$/ { if ($2 > m) m = $2; s += $3 + $4 + $5; k++ }
           END { printf "invert.cu: %d kernels, max %d regs, %d B stack+spill", k, m, s }' \
      <(sed -n '1,/^kernel (all/p' "$logs/ptxas.txt" | sed '$d'))
if [ "$nk" -gt 0 ]; then
  note "kernel resources" info "$nk kernels, $withstack with stack/local memory; $inv"
else
  note "kernel resources" warn "no cuobjdump report; $inv"
fi

if [ "${GPU_CHECK_NO_TESTS:-0}" = 0 ]; then
# ---- GPU tests ------------------------------------------------------------------------
banner "ctest -L gpu"
(cd "$build" && ctest -L gpu --output-on-failure --timeout 600) 2>&1 | tee "$logs/04-ctest-gpu.log"
while read -r line; do
  name=$(echo "$line" | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/')
  secs=$(echo "$line" | grep -oE '[0-9.]+ sec' || true)
  if echo "$line" | grep -q ' Passed'; then pass "$name" "$secs"
  elif echo "$line" | grep -q 'Not Run\|Skipped'; then fail "$name" "skipped: no usable GPU? ($secs)"
  else fail "$name" "$(echo "$line" | grep -oE '\*\*\*[A-Za-z ]+|Failed' | head -1) $secs"
  fi
done < <(grep -E 'Test +#[0-9]+: ' "$logs/04-ctest-gpu.log")
grep -qE 'Test +#[0-9]+: ' "$logs/04-ctest-gpu.log" || fail "ctest -L gpu" "no GPU test ran"
# The GPU normals' figures (moments, tails, accuracy on 2^30 samples) into the
# summary: ctest shows a passing test's output nowhere.
if [ -x "$build/tests/test_gpu_normals" ]; then
  "$build/tests/test_gpu_normals" > "$logs/04-normals.log" 2>&1
  while read -r l; do note "  normals" "" "$l"; done < <(grep -E '^  ' "$logs/04-normals.log")
fi

fi # GPU_CHECK_NO_TESTS

if [ "${GPU_CHECK_ALL:-0}" != 0 ]; then
  banner "ctest -LE gpu (CPU suite, with the GPU present)"
  # Each test runs OpenMP on every core: a few at a time, and idle threads
  # sleep rather than spin, or 16 tests x 16 spinning threads crawl.
  if (cd "$build" && OMP_WAIT_POLICY=passive ctest -LE gpu -j 4 --output-on-failure --timeout 900) \
       > "$logs/05-ctest-cpu.log" 2>&1; then
    pass "ctest -LE gpu" "$(grep -E 'tests passed' "$logs/05-ctest-cpu.log" | tail -1)"
  else
    fail "ctest -LE gpu" "$(grep -E 'tests passed|tests failed' "$logs/05-ctest-cpu.log" | tail -1)"
  fi
  tail -n 15 "$logs/05-ctest-cpu.log"
fi

# ---- compute-sanitizer on small runs of every kernel -------------------------------------
if [ "${GPU_CHECK_NO_SANITIZER:-0}" = 0 ]; then
  banner "compute-sanitizer (memcheck, racecheck) on small runs"
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ ! -x "$cs" ]; then
    fail "compute-sanitizer" "not found"
  else
    targets=()
    for t in "$build"/tests/test_gpu_* "$build"/tests/test_coded_gpu "$build"/tests/test_tb_encode_gpu \
      "$build"/tests/test_tb_judge_gpu; do [ -x "$t" ] && targets+=("$t"); done
    targets+=("$ofdmsim")
    # A budget for the whole section: the test binaries of other modules may
    # not all honour OFDMSIM_SMALL, and the sanitizers slow kernels 10-100x.
    budget=${GPU_CHECK_SANITIZER_SECONDS:-240}
    t_san=$(date +%s)
    for tool in memcheck racecheck; do
      for t in "${targets[@]}"; do
        base=$(basename "$t")
        args=()
        [ "$base" = ofdmsim ] && args=(bench --small --reps 2 --json "$logs/bench-small.json")
        label="$tool ${base}${args:+ bench --small}"
        left=$((budget - ($(date +%s) - t_san)))
        if [ "$left" -lt 15 ]; then
          note "$label" SKIP "sanitizer budget of ${budget}s spent"
          continue
        fi
        limit=$((left < 180 ? left : 180))
        log="$logs/06-${tool}-${base}.log"
        t0=$(date +%s)
        OFDMSIM_SMALL=1 timeout "$limit" "$cs" --tool "$tool" --error-exitcode 99 \
          "$t" "${args[@]}" > "$log" 2>&1
        rc=$?
        if [ "$tool" = memcheck ]; then
          errs=$(grep -oE 'ERROR SUMMARY: [0-9]+' "$log" | grep -oE '[0-9]+' | tail -1)
        else
          errs=$(grep -oE 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" | grep -oE '[0-9]+' | tail -1)
          [ -z "$errs" ] && errs=$(grep -oE 'ERROR SUMMARY: [0-9]+' "$log" | grep -oE '[0-9]+' | tail -1)
        fi
        errs=${errs:-?}
        if [ "$rc" -eq 0 ] && [ "$errs" = 0 ]; then
          pass "$label" "0 errors ($(elapsed "$t0"))"
        elif [ "$rc" -eq 124 ] && [ "$limit" -lt 180 ]; then
          # cut short by what was left of the section's budget, not by its own
          # time: unchecked, which is not a failure of the program
          note "$label" SKIP "sanitizer budget of ${budget}s spent during the run (${limit}s were left)"
        elif [ "$rc" -eq 124 ]; then
          fail "$label" "timed out after ${limit}s (small mode honoured?)"
        elif [ "$rc" -eq 77 ]; then
          fail "$label" "skipped: no GPU"
        else
          fail "$label" "$errs error(s), exit $rc ($(elapsed "$t0")); see $(basename "$log")"
          grep -m 5 -E '=========  (Invalid|Race|Error|Program hit)|=========     at ' "$log" || true
        fi
      done
    done
  fi
fi

if [ "${GPU_CHECK_NO_TESTS:-0}" = 0 ]; then
# ---- the Python package on the GPU: DLPack into PyTorch/CuPy, GPU LLRs = CPU LLRs --------
banner "python: GPU tests and the Link.batch bench (scripts/python-gpu-check.sh)"
t0=$(date +%s)
if PYTHON_GPU_CHECK_PREBUILT=1 PYTHON_GPU_CHECK_BUILD_DIR="$build" bash "$root/scripts/python-gpu-check.sh" "$prefix" \
     > "$logs/07-python-gpu.log" 2>&1; then
  pass "python GPU tests + bench" "$(grep -E '[0-9]+ passed' "$logs/07-python-gpu.log" | tail -1) ($(elapsed "$t0"))"
else
  fail "python GPU tests + bench" "see 07-python-gpu.log"
fi
tail -n 30 "$logs/07-python-gpu.log"

# ---- the CLI on both backends: same config and seed, same counts ------------------------
banner "ofdmsim CLI: cpu vs cuda on the same configs"
ofdmsim_bin="$build/ofdmsim"
for cfg in default tdl_time correlated_rician mobility estimation coded coded_bp coded_harq flat_doppler cdl dmrs drops; do
  ok=1
  bits=2e7
  file=$cfg
  extra=()
  case $cfg in cdl | dmrs | coded_harq | drops) bits=2e6 ;; esac # their CPU points are the slow ones
  # coded.cfg again with flooding BP, the one decoder whose GPU kernel is not
  # the layered one (its CPU points are slow too)
  [ $cfg = coded_bp ] && { file=coded; bits=2e6; extra=(--set code.decoder=bp); }
  for be in cpu cuda; do
    "$ofdmsim_bin" "configs/$file.cfg" "${extra[@]}" --set simulation.backend=$be --set simulation.max_bits=$bits -q \
      -o "$logs/xc-$cfg-$be.csv" > "$logs/08-xc-$cfg-$be.log" 2>&1 || ok=0
  done
  tail -n 8 "$logs/08-xc-$cfg-cuda.log"
  if [ $ok = 1 ]; then
    # Same config and seed: the very same draws on both backends. Every point
    # must be in both files (--require-all) on the same frames
    # (--require-same-draws), with equal bits and bit errors within 0.1% + 2
    # (float rounding differs), and pass the z-test besides.
    "$ofdmsim_bin" compare "$logs/xc-$cfg-cpu.csv" "$logs/xc-$cfg-cuda.csv" --require-all \
      --require-same-draws --same-draws-tolerance 0.001,2 > "$logs/08-xc-$cfg-compare.log" 2>&1
    rc=$?
    grep -E 'DIFFER|only in|: error:' "$logs/08-xc-$cfg-compare.log"
    verdict=$(grep -oE '^[0-9]+ of [0-9]+ points agree' "$logs/08-xc-$cfg-compare.log")
    if [ $rc -eq 0 ]; then pass "cli cpu vs cuda: $cfg" "$verdict"
    else fail "cli cpu vs cuda: $cfg" "${verdict:-ofdmsim compare exit $rc}; see 08-xc-$cfg-compare.log"; fi
  else
    fail "cli cpu vs cuda: $cfg" "a run failed; see 08-xc-$cfg-*.log"
  fi
done

# ---- the joint detectors' kernels (OFDMSIM_GPU_JOINT): the same counts from each --------
banner "K-best and ML: every kernel choice gives the same counts"
for det in "4 16qam kbest" "2 16qam kbest" "2 16qam ml"; do
  set -- $det
  jargs=(configs/default.cfg --set simulation.backend=cuda --set mimo.tx=$1 --set mimo.rx=$1 --set modulation=$2
         --set equalizer=$3 --set receiver.llr=maxlog --set 'simulation.snr_db=[6.0,14.0]'
         --set simulation.max_bits=2e7 -q)
  [ "$3" = kbest ] && jargs+=(--set receiver.kbest_k=16) # refused with ml
  ok=1
  for joint in best group thread; do
    OFDMSIM_GPU_JOINT=$joint "$ofdmsim_bin" "${jargs[@]}" -o "$logs/09-joint-$1$2$3-$joint.csv" \
      > "$logs/09-joint-$1$2$3-$joint.log" 2>&1 || ok=0
  done
  for joint in group thread; do
    [ $ok = 1 ] && "$ofdmsim_bin" compare "$logs/09-joint-$1$2$3-best.csv" "$logs/09-joint-$1$2$3-$joint.csv" \
      --require-all --require-same-draws --same-draws-tolerance 0,0 > "$logs/09-joint-$1$2$3-$joint-compare.log" 2>&1 || ok=0
  done
  if [ $ok = 1 ]; then pass "joint kernels: ${1}x$1 $2 $3" "best = group = thread"
  else fail "joint kernels: ${1}x$1 $2 $3" "see 09-joint-$1$2$3-*.log"; fi
done
if OFDMSIM_GPU_JOINT=fastest "$ofdmsim_bin" configs/default.cfg --set simulation.backend=cuda \
  --set simulation.max_bits=1e5 -q -o "$logs/09-joint-bad.csv" > "$logs/09-joint-bad.log" 2>&1; then
  fail "joint kernels: OFDMSIM_GPU_JOINT=fastest refused" "it ran"
else
  pass "joint kernels: OFDMSIM_GPU_JOINT=fastest refused" "$(head -c 160 "$logs/09-joint-bad.log")"
fi

# ---- resume on the GPU: killed with SIGKILL and resumed = one uninterrupted run ---------
# The kills follow the run's progress, not the clock (as tests/app/test_resume.sh):
# each run is killed once its journal holds a quarter of the uninterrupted
# run's frames more than it started with, so three runs are killed part-way
# on any machine and the fourth ends by itself.
banner "resume on the GPU: kill -9, --resume, same counts"
rargs=(configs/default.cfg --set simulation.backend=cuda --set 'simulation.snr_db=[0.0,5.0,10.0]' --set simulation.max_bits=1e11
       --set simulation.target_errors=1000000000000 -q)
# journal_frames FILE: the frames its chunk records hold (0 before it exists).
journal_frames() {
  if [ -e "$1" ]; then awk '$1 == "chunk" { f += $6 } END { print f + 0 }' "$1"; else echo 0; fi
}
t0=$(date +%s)
"$ofdmsim_bin" "${rargs[@]}" -o "$logs/rs-full.csv" > "$logs/09-resume.log" 2>&1
full_rc=$?
total=$(journal_frames "$logs/rs-full.journal")
kills=0 rc=1 opts=()
for attempt in 1 2 3 4 5 6 7 8; do
  have=$(journal_frames "$logs/rs-part.journal")
  want=$((have + total / 4))
  "$ofdmsim_bin" "${rargs[@]}" -o "$logs/rs-part.csv" "${opts[@]}" >> "$logs/09-resume.log" 2>&1 &
  pid=$!
  opts=(--resume)
  while kill -0 "$pid" 2>/dev/null && [ "$(journal_frames "$logs/rs-part.journal")" -lt "$want" ]; do sleep 0.01; done
  if [ "$want" -lt "$total" ] && kill -9 "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null
    kills=$((kills + 1))
  else
    wait "$pid"
    rc=$?
    break
  fi
done
# A run killed after its last chunk (the kill landing in its results'
# writes) leaves rc unset: one last resume without a kill finishes it.
if [ "$rc" -ne 0 ]; then
  "$ofdmsim_bin" "${rargs[@]}" -o "$logs/rs-part.csv" --resume >> "$logs/09-resume.log" 2>&1
  rc=$?
fi
if [ "$full_rc" -eq 0 ] && [ "$rc" -eq 0 ] &&
   "$ofdmsim_bin" compare "$logs/rs-full.csv" "$logs/rs-part.csv" --require-all --require-same-draws \
     --same-draws-tolerance 0,0 >> "$logs/09-resume.log" 2>&1; then
  pass "resume on the GPU" "$kills kill(s), counts equal to the uninterrupted run ($(elapsed "$t0"))"
else
  fail "resume on the GPU" "uninterrupted exit $full_rc, resumed exit $rc after $kills kill(s); see 09-resume.log"
fi

fi # GPU_CHECK_NO_TESTS

# ---- bench ---------------------------------------------------------------------------------
if [ "${GPU_CHECK_NO_BENCH:-0}" = 0 ]; then
  banner "ofdmsim bench"
  json=${out:+$out/bench.json}
  json=${json:-$build/bench.json}
  t0=$(date +%s)
  # shellcheck disable=SC2086
  if timeout 900 "$ofdmsim" bench --json "$json" ${BENCH_ARGS:-} 2>&1 | tee "$logs/07-bench.log"; then
    pass "ofdmsim bench" "$(elapsed "$t0"), $json"
  else
    fail "ofdmsim bench" "exit status non-zero; see 07-bench.log"
  fi
  cp "$json" "$logs/bench.json" 2>/dev/null
  if [ -f "$json" ] && command -v python3 > /dev/null; then
    python3 - "$json" > "$logs/bench-headline.txt" 2>&1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
g = j.get("gpu", {})
def f(x, spec):
    return "-" if x is None else format(x, spec)
if g.get("present"):
    print("copy D2D %s GB/s" % f(g["copy"]["gbs_read_plus_write"], ".0f"))
    for r in g["invert"]:
        a = r["variants"]["auto"]
        if not r["ok"]:
            print("%dx%d FAILED (see 07-bench.log)" % (r["n"], r["n"]))
            continue
        print("%dx%d %s Ginv/s, %s%% copy, %sx matinv, %sx getrf+getri" % (
            r["n"], r["n"], f(a["ginv_s"], ".2f"), f(a["pct_copy_moved"], ".0f"),
            f(r["x_cublas_matinv"], ".1f"), f(r["x_cublas_getrf_getri"], ".1f")))
    for p in g.get("philox_floor", []):
        print("generator floor %dx%d %s%s %s G REs/s" % (p["tx"], p["rx"], p["conversion"],
              " +labels" if p["labels"] else "", f(p["gres_s"], ".2f")))
for p in j.get("pipeline", []):
    if p["available"] and p["ok"]:
        print("pipeline %s %s %s %s Gbit/s" % (p["link"], p["backend"], p["mode"],
                                              f(p["gbit_s"]["wall"], ".3f")))
    else:
        print("pipeline %s %s %s %s: %s" % (p["link"], p["backend"], p["mode"],
              "FAILED" if p["available"] else "unavailable", p["why"][:60]))
PY
    while read -r l; do note "  bench" "" "$l"; done < "$logs/bench-headline.txt"
  fi
  banner "per-point overhead and the CLI on a long point (scripts/bench-points.sh)"
  if OFDMSIM="$ofdmsim" bash "$root/scripts/bench-points.sh" cuda 200 2>&1 | tee "$logs/10-points.log"; then
    while read -r l; do note "  points" "" "$l"; done < "$logs/10-points.log"
  else
    fail "bench-points" "see 10-points.log"
  fi
  banner "the coded link's rate, 4x4 16-QAM MMSE max-log TDL-A LDPC (scripts/bench-coded.sh)"
  if OFDMSIM="$ofdmsim" timeout 600 bash "$root/scripts/bench-coded.sh" 2>&1 | tee "$logs/11-coded.log"; then
    while read -r l; do note "  coded" "" "$l"; done < "$logs/11-coded.log"
  else
    fail "bench-coded" "see 11-coded.log"
  fi
  banner "every realistic path beside the ideal link (scripts/bench-paths.sh, issue 26's table)"
  if OFDMSIM="$ofdmsim" SECONDS_PER_CASE=1 timeout 300 bash "$root/scripts/bench-paths.sh" cuda 2>&1 |
    tee "$logs/12-paths.log" && ! grep -q ' failed$' "$logs/12-paths.log"; then
    while read -r l; do note "  paths" "" "$l"; done < "$logs/12-paths.log"
  else
    fail "bench-paths" "see 12-paths.log"
  fi
  banner "the LDPC decoder alone at 10 iterations (tests/cuda/ldpc_gpu_speed.cu)"
  speed=$build/tests/ldpc_gpu_speed
  if [ -x "$speed" ] && timeout 300 "$speed" > "$logs/13-ldpc-speed.log" 2>&1; then
    grep -E ' 10 it ' "$logs/13-ldpc-speed.log" | grep -E 'global messages' | sed -E 's/ +full-message.*//' |
      while read -r l; do note "  ldpc" "" "$l"; done
  else
    fail "ldpc_gpu_speed" "missing or failed; see 13-ldpc-speed.log"
  fi
fi
if [ "${GPU_CHECK_PROFILE:-0}" = 1 ]; then
  banner "where the GPU's time goes on each path (scripts/gpu-profile.sh)"
  if OFDMSIM="$ofdmsim" timeout 540 bash "$root/scripts/gpu-profile.sh" 2>&1 | tee "$logs/14-profile.log"; then
    pass "gpu-profile" "see 14-profile.log"
  else
    fail "gpu-profile" "see 14-profile.log"
  fi
fi

finish
