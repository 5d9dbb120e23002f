#!/usr/bin/env bash
# Where the GPU's time goes on each of issue 26's paths (scripts/paths-cases.sh,
# the list scripts/bench-paths.sh times), and what bounds the kernels that
# take it: one point of each path under Nsight Systems, its kernels (and
# copies) with their share of the GPU time, largest first; then the largest
# NCU_TOP kernels of the path once each under Nsight Compute: duration,
# instructions a thread, registers, occupancy, the SM's and DRAM's share of
# their peaks, the issue slots used. A device call spent on this says which
# kernel bounds which path, and by what, before any of them is changed.
#   OFDMSIM=build-gpu/ofdmsim bash scripts/gpu-profile.sh [NAME-REGEX]
# NAME-REGEX (grep -E, default all) picks the cases by name; TOP (default 6)
# kernels listed a case; NCU_TOP (default 2; 0: none) kernels measured;
# BITS (default 4e9) the point's bits. Needs nsys (PATH or CUDA's bin
# folder); without it the kernel list comes from ncu's durations of the
# first LAUNCHES (default 400) launches. NCU_SKIP (default 11) launches of
# a kernel pass before the one Nsight Compute measures: a point's batches
# double from one frame (sim/driver.c), so the twelfth is 2,048 frames, a
# long point's size (the cap is 2^25 REs); the sixth, 32 frames, filled a
# fraction of an H200 and understated occupancy and throughput (its
# instructions a thread were the first launch's). BITS must cover those
# batches: 1 + 2 + ... + 2,048 frames. OUT=dir keeps the nsys reports.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/paths-cases.sh"
ofdmsim=${OFDMSIM:-$here/../build-gpu/ofdmsim}
pick=${1:-.}
top=${TOP:-6}
ncu_top=${NCU_TOP:-2}
bits=${BITS:-4e9}
find_tool() { command -v "$1" || ls "/usr/local/cuda/bin/$1" /opt/nvidia/nsight-*/*/bin/"$1" 2>/dev/null | head -1; }
nsys=$(find_tool nsys)
ncu=$(find_tool ncu)
if [ -z "$nsys" ] && [ -z "$ncu" ]; then
  echo "gpu-profile: neither nsys (Nsight Systems) nor ncu (Nsight Compute) in PATH or /usr/local/cuda/bin" >&2
  exit 2
fi
[ -x "$ofdmsim" ] || { echo "gpu-profile: $ofdmsim is not an executable (OFDMSIM=...)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'simulation = { seed = 3; snr_kind = "ebno"; };\nchannel = { model = "rayleigh"; };\n' > "$tmp/point.cfg"

for c in "${cases[@]}"; do
  name=${c%%|*}
  grep -qE -- "$pick" <<< "$name" || continue
  paths_case_args "$c"
  point=("$ofdmsim" "$tmp/point.cfg" -q --force -o "$tmp/case.csv" --set simulation.backend=cuda
    --set simulation.target_errors=1000000000000 --set simulation.max_bits="$bits" "${base[@]}" "${paths_args[@]}")
  : > "$tmp/kernels.txt"
  if [ -n "$nsys" ]; then
    rep=$tmp/$(tr -c 'A-Za-z0-9\n' '_' <<< "$name")
    if ! "$nsys" profile --trace=cuda --sample=none --cpuctxsw=none --force-overwrite=true -o "$rep" \
      "${point[@]}" > "$tmp/run.log" 2>&1; then
      printf '\n== %s: failed\n' "$name"
      tail -5 "$tmp/run.log"
      continue
    fi
    printf '\n== %s\n' "$name"
    # the kernel and copy summaries as CSV; Python's csv reads the quoted
    # kernel names, whose template arguments hold commas
    for r in cuda_gpu_kern_sum cuda_gpu_mem_time_sum; do
      "$nsys" stats --report "$r" --format csv --output - "$rep.nsys-rep" > "$tmp/$r.csv" 2>/dev/null
    done
    python3 - "$tmp/cuda_gpu_kern_sum.csv" "$tmp/cuda_gpu_mem_time_sum.csv" "$top" "$ncu_top" \
      "$tmp/kernels.txt" <<'PY'
import csv, re, sys
def rows(path):
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return []
    at = next((i for i, l in enumerate(lines) if l.startswith("Time") or l.startswith('"Time')), None)
    return [] if at is None else list(csv.DictReader(lines[at:]))
kern, mem, top, ncu_top = rows(sys.argv[1]), rows(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
total = sum(float(r["Total Time (ns)"]) for r in kern) + sum(float(r["Total Time (ns)"]) for r in mem)
for r in kern[:top]:
    t = float(r["Total Time (ns)"])
    print("%6.1f%%  %9.3f ms  %7s launches  %s" % (100 * t / total if total else 0, t / 1e6, r["Instances"],
                                                   r["Name"][:100]))
m = sum(float(r["Total Time (ns)"]) for r in mem)
print("%6.1f%%  %9.3f ms  copies (%d kinds); GPU time in all: %.3f ms" % (100 * m / total if total else 0, m / 1e6,
                                                                         len(mem), total / 1e6))
# the base names ncu matches (--kernel-name-base function): no "void ", no
# anonymous namespace (nsys names it "<unnamed>::"), no template arguments, no
# parameters
with open(sys.argv[5], "w") as out:
    seen = []
    for r in kern:
        base = re.sub(r"^void\s+|<unnamed>::|\(anonymous namespace\)::", "", r["Name"])
        base = base.split("<")[0].split("(")[0].split("::")[-1].strip()
        if base and base not in seen:
            seen.append(base)
    out.write("\n".join(seen[:ncu_top]) + ("\n" if seen[:ncu_top] else ""))
PY
    [ -n "${OUT:-}" ] && cp "$rep.nsys-rep" "$OUT/" 2>/dev/null
  else
    # Nsight Compute alone: each kernel's duration, replayed one at a time
    # (the first LAUNCHES launches), summed per kernel name
    printf '\n== %s (ncu, first %s launches)\n' "$name" "${LAUNCHES:-400}"
    "$ncu" --launch-count "${LAUNCHES:-400}" --metrics gpu__time_duration.sum --csv "${point[@]}" \
      2> "$tmp/run.log" | python3 -c '
import collections, csv, re, sys
rows = [r for r in csv.DictReader(l for l in sys.stdin if l.startswith("\""))]
t = collections.Counter(); n = collections.Counter()
for r in rows:
    v = float(r["Metric Value"].replace(",", ""))
    v *= {"nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "second": 1e3}.get(r.get("Metric Unit", "nsecond"), 1e-6)
    t[r["Kernel Name"]] += v; n[r["Kernel Name"]] += 1
tot = sum(t.values())
for k, v in t.most_common(int(sys.argv[1])):
    print("%6.1f%%  %9.3f ms  %7d launches  %s" % (100 * v / tot, v, n[k], k[:100]))
seen = []
for k, v in t.most_common():
    base = re.sub(r"^void\s+|<unnamed>::|\(anonymous namespace\)::", "", k)
    base = base.split("<")[0].split("(")[0].split("::")[-1].strip()
    if base and base not in seen:
        seen.append(base)
with open(sys.argv[3], "w") as out:
    out.write("".join(b + "\n" for b in seen[:int(sys.argv[2])]))
' "$top" "$ncu_top" "$tmp/kernels.txt" || tail -5 "$tmp/run.log"
  fi
  # what bounds the largest kernels: one launch of each past the probes (ncu
  # fixes the clocks at base for its measurement, so no warm-up is needed), the
  # sections' headline figures; the rest of the point runs unmeasured
  [ -n "$ncu" ] || continue
  while read -r k; do
    [ -n "$k" ] || continue
    "$ncu" --kernel-name "$k" --launch-skip "${NCU_SKIP:-11}" --launch-count 1 --section SpeedOfLight --section Occupancy \
      --section LaunchStats --section InstructionStats --section SchedulerStats --csv "${point[@]}" \
      2> "$tmp/ncu.log" > "$tmp/ncu.csv"
    python3 - "$tmp/ncu.csv" "$k" <<'PY' || tail -3 "$tmp/ncu.log"
import csv, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith('"')]
rows = list(csv.DictReader(lines))
if not rows:
    print("   ncu %s: no launch measured" % sys.argv[2])
    sys.exit(0)
want = ["Duration", "Registers Per Thread", "Threads", "Achieved Occupancy", "Theoretical Occupancy",
        "Compute (SM) Throughput", "Memory Throughput", "DRAM Throughput", "Executed Instructions",
        "Executed Ipc Active", "Issue Slots Busy", "No Eligible", "Dynamic Shared Memory Per Block",
        "Local Memory Spilling Requests"]
got = {r["Metric Name"]: (r["Metric Value"], r.get("Metric Unit", "")) for r in rows}
parts = ["%s %s%s" % (w, got[w][0], (" " + got[w][1]) if got[w][1] not in ("", "inst") else "")
         for w in want if w in got]
try:
    per = float(got["Executed Instructions"][0].replace(",", "")) * 32 / float(got["Threads"][0].replace(",", ""))
    parts.append("thread-instructions a thread %.0f" % per)
except (KeyError, ValueError, ZeroDivisionError):
    pass
print("   ncu %s: %s" % (sys.argv[2], "; ".join(parts)))
PY
  done < "$tmp/kernels.txt"
done
exit 0
