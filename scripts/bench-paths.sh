#!/usr/bin/env bash
# Issue 26's table: every realistic path of one link beside the ideal rate of
# the same link, on one backend, in one run. Link: 4x4 16-QAM, TDL-A at
# 100 ns, 1024 x 14 REs a frame at 30 kHz, Eb/N0 20 dB, MMSE with perfect
# CSI and hard decisions in the frequency domain (the "ideal" row, 100%).
# Each other row changes one thing: LLRs with the GMI (its supremum over the
# scalings, at s = 1 only, or none: receiver.gmi), pilots (comb 4 on
# symbols 2 and 9, or NR DMRS type 1 with one additional position on 85
# resource blocks, 1020 subcarriers) with LS
# estimation, Doppler (389 Hz: 120 km/h at 3.5 GHz), the time domain,
# MMSE-SIC, K-best (K = 16), a CDL-C channel. Rows in the time domain are
# also given as a share of the frequency domain with the same Doppler.
#   scripts/bench-paths.sh cuda
#   scripts/bench-paths.sh cpu [THREADS]     (THREADS 1: the per-core rate)
# OFDMSIM (default build/ofdmsim) is the binary; SECONDS_PER_CASE (default 2);
# CASES a regex of the rows to run (default all; the ideal row always runs).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/paths-cases.sh"
bench_setup "${1:?usage: bench-paths.sh cpu|cuda [THREADS]}" "${2:-0}"
# One unrecorded run of the ideal link first: the first point of a process
# pays the device's clocks ramping up and the first launches, which would
# make the 100% row slow and every share too high.
bench_point warmup "${base[@]}" --set channel.model=tdl --set channel.profile=tdl-a >/dev/null || true
printf '%-28s %10s %8s %11s\n' case Gbit/s share ber
ideal="" doppler=""
for c in "${cases[@]}"; do
  name=${c%%|*}
  # CASES (a regex): only the matching rows, beside the ideal one they are shares of
  [ -n "$ideal" ] && ! [[ "$name" =~ ${CASES:-.} ]] && continue
  paths_case_args "$c"
  bench_point case "${base[@]}" "${paths_args[@]}" || { printf '%-28s %10s\n' "$name" failed; continue; }
  r=$(rate_gbit "$tmp/case.csv")
  [ -z "$ideal" ] && ideal=$r
  [ "$name" = "Doppler (frequency)" ] && doppler=$r
  share=$(awk -v r="$r" -v i="$ideal" 'BEGIN { printf "%.0f%%", 100 * r / i }')
  [ "$name" = "time domain, Doppler" ] && [ -n "$doppler" ] &&
    share="$share ($(awk -v r="$r" -v d="$doppler" 'BEGIN { printf "%.0f%%", 100 * r / d }') of Doppler freq.)"
  printf '%-28s %10.3f %8s %11.4e\n' "$name" "$r" "$share" "$(col "$tmp/case.csv" ber)"
done
