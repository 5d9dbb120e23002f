#!/usr/bin/env bash
# ofdmsim against NVIDIA Sionna 2.2 (PyTorch) on the speed issue's workloads
# (bench/sionna_workloads.py: 2x2 QPSK and 4x4 16-QAM i.i.d. Rayleigh, 4x4
# 16-QAM TDL-A in the frequency and the time domain), rates, BERs and ratios.
#
# Installs the wheels of the git-ignored folder .deps/wheels (Sionna and the
# pure-Python / matplotlib packages it imports; torch, numpy and scipy must be
# installed already) into a temporary PYTHONPATH target, offline, then runs:
#   - on the GPU, all threads, when nvidia-smi shows one: sionna-cuda.json
#   - on the CPU with one thread:                           sionna-cpu-1.json
# The JSON files go to $OUT when it is set, else to the current folder.
#   scripts/bench-sionna.sh [CASES]          # CASES default 1,2,3,4
#   scripts/bench-sionna.sh coded            # the coded link instead (bench/sionna_coded.py,
#                                            # on the GPU): sionna-coded.json
#   scripts/bench-sionna.sh cdl              # issue 25's CDL-C table on the GPU only (cases
#                                            # 3,5-12: TDL-A reference, CDL-C 4x4 and 8x4 in
#                                            # both domains, with and without Doppler;
#                                            # scripts/bench-cdl.sh's rows): sionna-cdl.json
# OFDMSIM (default build/ofdmsim) is the binary, SECONDS_PER_CASE (default 2)
# the seconds per side and case, PYTHON (default python3) the interpreter,
# SIONNA_ARGS extra arguments for the script (e.g. "--compile default"),
# SIONNA_CPU=0 skips the CPU run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cases=${1:-1,2,3,4}
python=${PYTHON:-python3}
ofdmsim=${OFDMSIM:-$root/build/ofdmsim}
seconds=${SECONDS_PER_CASE:-2}
out=${OUT:-$PWD}
mkdir -p "$out"

[ -x "$ofdmsim" ] || { echo "bench-sionna: no ofdmsim binary at $ofdmsim (OFDMSIM=...)" >&2; exit 2; }
source "$root/scripts/sionna-site.sh"
sionna_site_setup "$python" || exit 2
trap 'rm -rf "$sionna_site"' EXIT

run() { # DEVICE THREADS JSON
  echo "== $1, threads $2 =="
  # shellcheck disable=SC2086
  "$python" "$root/bench/sionna_workloads.py" --device "$1" --threads "$2" \
    --ofdmsim "$ofdmsim" --seconds "$seconds" --cases "$cases" --json "$3" ${SIONNA_ARGS:-}
}

status=0
if [ "$cases" = cdl ]; then # issue 25's CDL rows beside Sionna's CDL, on the GPU only
  if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "bench-sionna: cdl runs on the GPU only, and nvidia-smi shows none" >&2; exit 2
  fi
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
  cases=3,5-12
  run cuda 0 "$out/sionna-cdl.json"
  exit $?
fi
if [ "$cases" = coded ]; then # the coded link (bench/sionna_coded.py), on the GPU
  "$python" "$root/bench/sionna_coded.py" --ofdmsim "$ofdmsim" --seconds "$seconds" --json "$out/sionna-coded.json"
  exit $?
fi
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
  run cuda 0 "$out/sionna-cuda.json" || status=$?
else
  echo "bench-sionna: no GPU (nvidia-smi), CPU only"
fi
if [ "${SIONNA_CPU:-1}" != 0 ]; then
  run cpu 1 "$out/sionna-cpu-1.json" || status=$?
fi
exit "$status"
