#!/usr/bin/env bash
# The MPI engine's scaling (issue 28), unattended, in one command:
#   scripts/bench-mpi-scaling.sh [options] cuda|cpu OUTDIR N...
# For each N given (1 = the plain run, no mpirun, the baseline), with one
# rank per GPU (the engine gives each rank the GPU of its node-local rank):
#   a  configs/default.cfg at Eb/N0 0, 4, ..., 28 dB x zf/mmse (16 points),
#      target_errors 1e15 (never reached), max_bits 4e11 x SCALE a point;
#   b  configs/mpi_mixed.cfg (36 mixed points, about a minute on one GPU),
#      target_errors 3e7 and max_bits 5e11 x SCALE;
#   c  weak scaling: sweep a with N times the bits on N ranks, against a's
#      plain run.
# Every run of a and b must give the plain run's counts, byte for byte (the
# count columns of the CSV); the summary says so. Everything goes to OUTDIR:
# each run's CSV, sidecar, journal, stdout and stderr, env.txt (machine,
# build, MPI), summary.md (the table below) and summary.tsv.
# Options:
#   --scale F     the work of every sweep times F (default 1; e.g. 1e-4 for CPU ranks)
#   --sweeps LIST which of a,b,c (default a,b,c)
#   --threads T   CPU threads of each run with the cpu backend (default 1)
#   --timeout S   seconds one run may take before it is killed (default 300)
#   --set KEY=VALUE  added to every run (repeatable), e.g. --set ofdm.subcarriers=64
#   --mpirun-args "..."  added to every mpirun (default "--bind-to none": a rank's
#                 message thread and compute thread each need a core)
# OFDMSIM (default build/ofdmsim) is the binary. Exit 0 when every run ran and
# every count matched, 1 otherwise (the summary is written either way).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ofdmsim=${OFDMSIM:-$root/build/ofdmsim}
scale=1 sweeps=a,b,c threads=1 limit=300 mpirun_args="--bind-to none" extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --scale) scale=$2; shift 2 ;;
    --sweeps) sweeps=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --mpirun-args) mpirun_args=$2; shift 2 ;;
    --set) extra+=(--set "$2"); shift 2 ;;
    -*) echo "bench-mpi-scaling.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
usage="usage: bench-mpi-scaling.sh [--scale F] [--sweeps a,b,c] [--threads T] [--timeout S] cuda|cpu OUTDIR N..."
backend=${1:?$usage}
out=${2:?$usage}
shift 2
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
case $backend in cpu|cuda) ;; *) echo "$usage" >&2; exit 2 ;; esac
[ -x "$ofdmsim" ] || { echo "bench-mpi-scaling.sh: no binary $ofdmsim (set OFDMSIM)" >&2; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# csv_cols, csv_counts (harness.sh's, without its test counters)
eval "$(sed -n '/^csv_cols()/,/^}/p; /^csv_counts()/,/^}/p' "$root/tests/support/harness.sh")"
source "$root/tests/support/mpi_env.sh"

# The sweeps' arguments (the work scaled).
mul() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6g", a * b }'; }
common=(-q --set simulation.backend="$backend")
[ "$backend" = cpu ] && common+=(--set simulation.threads="$threads")
common+=("${extra[@]}")
set_args() { # SWEEP FACTOR: the arguments of sweep a or b with FACTOR times its work, in args
  local f
  f=$(mul "$scale" "$2")
  case $1 in
    a) args=("$root/configs/default.cfg" --set 'simulation.snr_db=[0.0,4.0,8.0,12.0,16.0,20.0,24.0,28.0]'
             --set simulation.target_errors=1000000000000000 --set simulation.max_bits="$(mul 4e11 "$f")") ;;
    b) args=("$root/configs/mpi_mixed.cfg" --set simulation.target_errors="$(mul 3e7 "$f" | awk '{ printf "%d", $1 < 1 ? 1 : $1 }')"
             --set simulation.max_bits="$(mul 5e11 "$f")") ;;
  esac
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  echo "command: $0 --scale $scale --sweeps $sweeps --threads $threads --timeout $limit ${extra[*]} $backend $out $*"
  echo "binary: $ofdmsim ($("$ofdmsim" --version 2>&1 | head -1))"
  echo "git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null) $(git -C "$root" status --porcelain 2>/dev/null | wc -l) files changed"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cores"
  command -v nvidia-smi >/dev/null && nvidia-smi -L
  echo "mpirun: $(mpirun --version 2>&1 | head -1); mpirun args: $mpirun_args"
} >"$out/env.txt" 2>&1
if [ "$backend" = cuda ] && command -v nvidia-smi >/dev/null; then
  gpus=$(nvidia-smi -L | grep -c '^GPU')
  for n in "$@"; do
    [ "$n" -gt "$gpus" ] && echo "bench-mpi-scaling.sh: warning: $n ranks share $gpus GPUs" >&2
  done
fi

now() { date +%s%N; }
failed=0
# run NAME RANKS SWEEP FACTOR: one run (RANKS 1: plain), its wall time in NAME.wall
run() {
  local name=$1 n=$2 t0 rc args
  set_args "$3" "$4"
  local cmd=("$ofdmsim")
  # (mpirun_args split into words on purpose)
  [ "$n" -gt 1 ] && cmd=(mpirun --allow-run-as-root --oversubscribe $mpirun_args -np "$n" "$ofdmsim")
  rm -f "$out/$name".{csv,json,journal}
  printf '%q ' "${cmd[@]}" "${args[@]}" "${common[@]}" -o "$out/$name.csv" >"$out/$name.cmd"
  echo >>"$out/$name.cmd"
  t0=$(now)
  timeout -k 10 "$limit" "${cmd[@]}" "${args[@]}" "${common[@]}" -o "$out/$name.csv" >"$out/$name.out" 2>"$out/$name.err"
  rc=$?
  awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }' >"$out/$name.wall"
  if [ $rc -ne 0 ]; then
    echo "$name: exit $rc (see $out/$name.err)" >&2
    tail -3 "$out/$name.err" >&2
    failed=1
    return 1
  fi
  echo "$name: $(cat "$out/$name.wall") s" >&2
}
# same NAME REF: NAME's counts equal REF's
same() {
  if [ -s "$out/$1.csv" ] && [ -s "$out/$2.csv" ] && cmp -s <(csv_counts "$out/$1.csv") <(csv_counts "$out/$2.csv"); then
    echo yes
  else
    echo NO
    failed=1
  fi
}

rows=()
for s in a b; do
  case ",$sweeps," in *",$s,"*) ;; *) continue ;; esac
  run "$s-plain" 1 "$s" 1
  rows+=("$s 1 $s-plain $s-plain -")
  for n in "$@"; do
    [ "$n" -gt 1 ] || continue
    run "$s-np$n" "$n" "$s" 1
    rows+=("$s $n $s-np$n $s-plain $(same "$s-np$n" "$s-plain")")
  done
done
case ",$sweeps," in *",c,"*)
  [ -s "$out/a-plain.csv" ] || run a-plain 1 a 1
  for n in "$@"; do
    [ "$n" -gt 1 ] || continue
    run "c-np$n" "$n" a "$n"
    rows+=("c $n c-np$n a-plain -")
  done ;;
esac

# The table, from the walls and the sidecars' per-rank records.
printf '%s\n' "${rows[@]}" >"$tmp/rows"
if ! command -v python3 >/dev/null; then # the raw figures at least
  for f in "$out"/*.wall; do echo "$(basename "$f" .wall): $(cat "$f") s"; grep '^# rank' "${f%.wall}.out"; done |
    tee "$out/summary.md"
  exit 1
fi
python3 - "$out" "$backend" "$tmp/rows" <<'EOF' | tee "$out/summary.md"
import json, os, sys
out, backend = sys.argv[1], sys.argv[2]
def wall(name):
    try: return float(open(os.path.join(out, name + ".wall")).read())
    except Exception: return None
def side(name):
    try: return json.load(open(os.path.join(out, name + ".json")))
    except Exception: return None
title = {"a": "a: default.cfg, 16 points at max_bits", "b": "b: mpi_mixed.cfg, 36 mixed points",
         "c": "c: weak scaling, N x the bits of a on N ranks (against a's plain run)"}
print("| sweep | ranks | wall s | speed-up | efficiency | bits kept | computed | per-rank busy s | per-rank idle s (of it tail) | per-rank start-up s (MPI/GPU/ready/first batch) | coordinator | counts = plain |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | --- | --- |")
tsv = open(os.path.join(out, "summary.tsv"), "w")
tsv.write("sweep\tranks\twall_s\tspeedup\tefficiency\tbits\tcomputed\tbusy_s\tidle_s\ttail_s\tstartup_s\tcoordinator_s\tmessages\tsame_counts\n")
for line in open(sys.argv[3]):
    s, n, name, ref, same = line.split()
    n = int(n)
    w, w1, j = wall(name), wall(ref), side(name)
    if w is None or j is None or w1 is None:
        print(f"| {s} | {n} | failed | | | | | | | | | {same} |"); continue
    bits = sum(p.get("bits", 0) for p in j.get("points", []))
    sp = w1 / w
    eff = sp / n if s != "c" else w1 / w
    ranks = j.get("rank_stats") or []
    computed = sum(r.get("bits", 0) for r in ranks) if ranks else bits
    busy = ", ".join(f"{r['seconds']:.2f}" for r in ranks)
    idle = ", ".join(f"{r.get('idle_s', 0) + r.get('tail_s', 0):.2f} ({r.get('tail_s', 0):.2f})" for r in ranks)
    # start-up as MPI_Init / GPU taken / ready / first batch, each from process start
    start = ", ".join(f"{r.get('startup_mpi_s', 0):.2f}/{r.get('startup_gpu_s', 0):.2f}/"
                      f"{r.get('startup_ready_s', 0):.2f}/{r.get('startup_s', 0):.2f}" for r in ranks)
    coord = ""
    if ranks:
        r0 = ranks[0]
        m = r0.get("messages", 0)
        coord = f"{r0.get('coordinator_s', 0):.2f} s / {m} msgs" + (f" ({r0.get('coordinator_s', 0) / m * 1e6:.0f} us)" if m else "")
    print(f"| {title[s].split(':')[0]} | {n}{'' if ranks else ' (plain)'} | {w:.2f} | {sp:.3f} | {eff:.1%} | {bits:.4g} | {computed / bits if bits else 0:.1%} | {busy} | {idle} | {start} | {coord} | {same} |")
    tsv.write("\t".join(str(x) for x in [s, n, f"{w:.3f}", f"{sp:.4f}", f"{eff:.4f}", f"{bits:.6g}", f"{computed:.6g}",
              ",".join(f"{r['seconds']:.3f}" for r in ranks), ",".join(f"{r.get('idle_s', 0):.3f}" for r in ranks),
              ",".join(f"{r.get('tail_s', 0):.3f}" for r in ranks), ",".join(f"{r.get('startup_s', 0):.3f}" for r in ranks),
              f"{ranks[0].get('coordinator_s', 0):.3f}" if ranks else "", ranks[0].get("messages", 0) if ranks else "", same]) + "\n")
print()
print(f"backend {backend}; " + "; ".join(title.values()) + ". speed-up: the plain run's wall over this one's "
      "(weak: a's plain wall over c's); computed: the bits the ranks computed, kept or not, over those kept; wall: the whole command, mpirun's start included; busy: in the backend; "
      "idle: waiting for work after its first unit, tail: idle at the end.")
EOF
[ $failed -eq 0 ] || echo "bench-mpi-scaling.sh: a run failed or counts differ (see $out)" >&2
exit $failed
