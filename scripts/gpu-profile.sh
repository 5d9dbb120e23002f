#!/usr/bin/env bash
# Where the GPU's time goes on each of issue 26's paths (scripts/paths-cases.sh,
# the list scripts/bench-paths.sh times): one point of each path under Nsight
# Systems, and per path its kernels (and copies) with their share of the GPU
# time, largest first. A device call spent on this says which kernel bounds
# which path before any of them is changed.
#   OFDMSIM=build-gpu/ofdmsim bash scripts/gpu-profile.sh [NAME-REGEX]
# NAME-REGEX (grep -E, default all) picks the cases by name; TOP (default 6)
# kernels a case; BITS (default 2e8) the point's bits. Needs nsys (CUDA's
# bin folder or PATH; without it ncu, slower: its first LAUNCHES kernels);
# OUT=dir keeps each case's nsys report there too.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/paths-cases.sh"
ofdmsim=${OFDMSIM:-$here/../build-gpu/ofdmsim}
pick=${1:-.}
top=${TOP:-6}
bits=${BITS:-2e8}
nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if { [ -z "$nsys" ] || [ ! -x "$nsys" ]; } && { [ -z "$ncu" ] || [ ! -x "$ncu" ]; }; then
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
  slug=$(tr -c 'A-Za-z0-9\n' '_' <<< "$name")
  rep=$tmp/$slug
  if [ -z "$nsys" ] || [ ! -x "$nsys" ]; then
    # Nsight Compute instead: each kernel's duration, replayed one at a time
    # (the first LAUNCHES launches, default 400), summed per kernel name
    printf '\n== %s (ncu, first %s launches)\n' "$name" "${LAUNCHES:-400}"
    "$ncu" --launch-count "${LAUNCHES:-400}" --metrics gpu__time_duration.sum --csv \
      "$ofdmsim" "$tmp/point.cfg" -q --force -o "$tmp/case.csv" --set simulation.backend=cuda \
      --set simulation.target_errors=1000000000000 --set simulation.max_bits="$bits" \
      "${base[@]}" "${paths_args[@]}" 2> "$tmp/run.log" | python3 -c '
import csv, sys, collections
rows = [r for r in csv.DictReader(l for l in sys.stdin if l.startswith("\""))]
t = collections.Counter(); n = collections.Counter()
for r in rows:
    v = float(r["Metric Value"].replace(",", ""))
    v *= {"nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "second": 1e3}.get(r.get("Metric Unit", "nsecond"), 1e-6)
    t[r["Kernel Name"]] += v; n[r["Kernel Name"]] += 1
tot = sum(t.values())
for k, v in t.most_common(int(sys.argv[1])):
    print("%6.1f%%  %9.3f ms  %7d launches  %s" % (100 * v / tot, v, n[k], k[:100]))
' "$top" || tail -5 "$tmp/run.log"
    continue
  fi
  if ! "$nsys" profile --trace=cuda --sample=none --cpuctxsw=none --force-overwrite=true -o "$rep" \
    "$ofdmsim" "$tmp/point.cfg" -q --force -o "$tmp/case.csv" --set simulation.backend=cuda \
    --set simulation.target_errors=1000000000000 --set simulation.max_bits="$bits" \
    "${base[@]}" "${paths_args[@]}" > "$tmp/run.log" 2>&1; then
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
  python3 - "$tmp/cuda_gpu_kern_sum.csv" "$tmp/cuda_gpu_mem_time_sum.csv" "$top" <<'PY'
import csv, sys
def rows(path):
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return []
    at = next((i for i, l in enumerate(lines) if l.startswith("Time") or l.startswith('"Time')), None)
    return [] if at is None else list(csv.DictReader(lines[at:]))
kern, mem, top = rows(sys.argv[1]), rows(sys.argv[2]), int(sys.argv[3])
total = sum(float(r["Total Time (ns)"]) for r in kern) + sum(float(r["Total Time (ns)"]) for r in mem)
for r in kern[:top]:
    t = float(r["Total Time (ns)"])
    print("%6.1f%%  %9.3f ms  %7s launches  %s" % (100 * t / total if total else 0, t / 1e6, r["Instances"],
                                                   r["Name"][:100]))
m = sum(float(r["Total Time (ns)"]) for r in mem)
print("%6.1f%%  %9.3f ms  copies (%d kinds); GPU time in all: %.3f ms" % (100 * m / total if total else 0, m / 1e6,
                                                                         len(mem), total / 1e6))
PY
  [ -n "${OUT:-}" ] && cp "$rep.nsys-rep" "$OUT/" 2>/dev/null
done
exit 0
