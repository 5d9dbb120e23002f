#!/usr/bin/env bash
# The MPI engine against one process on this machine: the same sweep plain
# and under `mpirun -np N` for each N given, with the wall time of each
# command, the per-rank lines, and whether every count equals the plain run's.
#   scripts/bench-mpi.sh cpu 1 2        # the CPU sweep of BENCHMARKS.md
#   scripts/bench-mpi.sh cuda 1 2       # the GPU sweep (ranks share the GPUs)
# OFDMSIM (default build/ofdmsim) is the binary; results go to a scratch folder.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ofdmsim=${OFDMSIM:-$root/build/ofdmsim}
backend=${1:?usage: bench-mpi.sh cpu|cuda N...}
shift
source "$root/tests/support/harness.sh"
source "$root/tests/support/mpi_env.sh"
if [ "$backend" = cpu ]; then
  args=(--set simulation.backend=cpu --set 'simulation.snr_db={from=0.0;to=20.0;step=2.0;}'
        --set simulation.target_errors=200000 --set simulation.max_bits=3e8 --set simulation.threads=1)
else
  args=(--set simulation.backend=cuda --set 'simulation.snr_db=[0.0,10.0,20.0,30.0]'
        --set simulation.target_errors=100000000 --set simulation.max_bits=2e11)
fi
now() { date +%s%N; }
timed() { # NAME CMD...: runs CMD, prints its wall time and rank lines
  local name=$1 t0
  shift
  t0=$(now)
  "$@" "$root/configs/default.cfg" -q "${args[@]}" -o "$tmp/$name.csv" >"$tmp/$name.out" 2>"$tmp/$name.err" || {
    echo "$name: failed"; tail -5 "$tmp/$name.err"; return 1; }
  printf '%-8s %8.2f s\n' "$name" "$(awk -v a="$t0" -v b="$(now)" 'BEGIN {print (b - a) / 1e9}')"
  grep '^# rank' "$tmp/$name.out" | sed 's/^/         /' || true
}
timed plain "$ofdmsim"
for n in "$@"; do
  timed "np$n" mpirun --oversubscribe -np "$n" "$ofdmsim"
  if cmp -s <(csv_counts "$tmp/plain.csv") <(csv_counts "$tmp/np$n.csv"); then
    echo "         np$n: every count equals the plain run's"
  else
    echo "         np$n: COUNTS DIFFER from the plain run"; exit 1
  fi
done
echo "bits kept: $(csv_cols "$tmp/plain.csv" bits | awk '{s += $1} END {printf "%.4g", s}')"
