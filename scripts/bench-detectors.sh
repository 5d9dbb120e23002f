#!/usr/bin/env bash
# Simulated Gbit/s of every detector, end to end through the CLI (draws,
# channel, detection, decisions, counting, and the GMI with soft outputs), on
# one backend: 2x2 QPSK, 2x2 16-QAM, 4x4 QPSK, 4x4 16-QAM over i.i.d.
# Rayleigh at Eb/N0 10 dB (QPSK) / 14 dB (16-QAM), 1024 x 14 REs a frame.
# Each case runs with max_bits grown until one run takes about SECONDS
# seconds (the rate is the point's bits over its seconds); the table gives the rate, the BER
# and the GMI where there are LLRs, so peers run on the same workloads
# (bench/sionna_detectors.py) can be checked for the same answers.
#   scripts/bench-detectors.sh cuda          # on the GPU machine
#   scripts/bench-detectors.sh cpu [THREADS]
# OFDMSIM (default build/ofdmsim) is the binary; SECONDS_PER_CASE (default 2).
# CASES and DETECTORS (';'-separated, the defaults below) pick rows, e.g. the
# issue's K-best and ML targets only:
#   CASES="4 16qam 14;2 16qam 14" DETECTORS="kbest maxlog;ml maxlog" \
#     scripts/bench-detectors.sh cuda
# JOINTS (cuda only; default "best") runs every K-best and ML row once per
# kernel choice of OFDMSIM_GPU_JOINT (best, group, thread: cuda/joint_gpu.cuh),
# the kernels side by side in one call, e.g.
#   JOINTS="best group thread" CASES="4 16qam 14;2 16qam 14" \
#     DETECTORS="kbest maxlog;ml maxlog" scripts/bench-detectors.sh cuda
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
bench_setup "${1:?usage: bench-detectors.sh cpu|cuda [THREADS]}" "${2:-0}"

printf '%-9s %-12s %-14s %-7s %10s %11s %9s\n' case detector llr kernels Gbit/s ber gmi
read -r -a joints <<<"${JOINTS:-best}"
IFS=';' read -r -a cases <<<"${CASES:-2 qpsk 10;2 16qam 14;4 qpsk 10;4 16qam 14}"
IFS=';' read -r -a detectors <<<"${DETECTORS:-mmse off;mmse maxlog;mmse exact;mmse-sic maxlog;kbest maxlog;ml maxlog}"
for c in "${cases[@]}"; do
  set -- $c
  n=$1 mod=$2 snr=$3
  for det in "${detectors[@]}"; do
    set -- $det
    eq=$1 llr=$2
    args=(--set mimo.tx="$n" --set mimo.rx="$n" --set modulation="$mod" --set equalizer="$eq"
          --set receiver.llr="$llr" --set "simulation.snr_db=$snr.0")
    [ "$eq" = kbest ] && args+=(--set receiver.kbest_k=16)
    variants=(best)
    [ "$backend" = cuda ] && { [ "$eq" = kbest ] || [ "$eq" = ml ]; } && variants=("${joints[@]}")
    for joint in "${variants[@]}"; do
      OFDMSIM_GPU_JOINT=$joint bench_point case --set ofdm.subcarriers=1024 --set ofdm.symbols=14 "${args[@]}"
      printf '%-9s %-12s %-14s %-7s %10.3f %11.4e %9s\n' "${n}x$n $mod" "$eq" "$llr" "$joint" \
        "$(rate_gbit "$tmp/case.csv")" \
        "$(col "$tmp/case.csv" ber)" "$(col "$tmp/case.csv" gmi)"
    done
  done
done
