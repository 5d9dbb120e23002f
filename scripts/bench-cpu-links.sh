#!/usr/bin/env bash
# One CPU core on the realistic links against the ideal one (issue 26's CPU
# goal: each within 2x of the hard-decision frequency-domain rate of the same
# link): simulated Mbit/s end to end through the CLI, 4x4 16-QAM MMSE,
# TDL-A at 100 ns, 1024 x 14 REs a frame at 30 kHz, Eb/N0 20 dB, one thread
# (pinned to one core where taskset exists). Cases: hard decisions; max-log
# and exact LLRs with the GMI (receiver.gmi sup, s1; max-log with none); pilots (comb 4 on symbols 2 and 9) with LS
# estimation, linear and LMMSE; the time domain, hard, with LLRs, with LS;
# and Doppler (389 Hz) in each domain; MMSE-SIC (hard decisions). The BER
# column shows the work done.
#   scripts/bench-cpu-links.sh [CORE]      # CORE: the core to pin to (default 0)
# CASES (a regular expression, default all) keeps the cases whose name matches.
# OFDMSIM (default build/ofdmsim) is the binary; SECONDS_PER_CASE (default 2).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
bench_setup cpu 1
if command -v taskset >/dev/null; then
  printf '#!/bin/sh\nexec taskset -c %s "%s" "$@"\n' "${1:-0}" "$ofdmsim" > "$tmp/pinned"
  chmod +x "$tmp/pinned"
  ofdmsim=$tmp/pinned
fi

base=(--set mimo.tx=4 --set mimo.rx=4 --set modulation=16qam --set equalizer=mmse --set simulation.snr_db=20.0
      --set channel.model=tdl --set channel.profile=tdl-a --set channel.delay_spread_ns=100.0
      --set ofdm.subcarriers=1024 --set ofdm.symbols=14 --set ofdm.subcarrier_spacing=30000.0)
pilots="--set pilots.spacing=4 --set pilots.first_symbol=2 --set pilots.symbol_spacing=7"
ls="$pilots --set receiver.channel_estimation=ls"
cases=(
  "frequency|hard decisions|"
  "frequency|max-log LLRs, GMI|--set receiver.llr=maxlog"
  "frequency|exact LLRs, GMI|--set receiver.llr=exact"
  "frequency|max-log, GMI at s = 1|--set receiver.llr=maxlog --set receiver.gmi=s1"
  "frequency|exact, GMI at s = 1|--set receiver.llr=exact --set receiver.gmi=s1"
  "frequency|max-log, no GMI|--set receiver.llr=maxlog --set receiver.gmi=none"
  "frequency|pilots, perfect CSI|$pilots"
  "frequency|pilots, LS linear|$ls --set receiver.interpolation=linear"
  "frequency|pilots, LS LMMSE|$ls --set receiver.interpolation=lmmse"
  "frequency|LS LMMSE, max-log LLRs|$ls --set receiver.interpolation=lmmse --set receiver.llr=maxlog"
  "frequency|Doppler 389 Hz|--set channel.doppler_hz=389.0"
  "time|hard decisions|"
  "time|max-log LLRs, GMI|--set receiver.llr=maxlog"
  "time|pilots, LS linear|$ls --set receiver.interpolation=linear"
  "time|Doppler 389 Hz|--set channel.doppler_hz=389.0"
  "frequency|MMSE-SIC|--set equalizer=mmse-sic"
)
printf '%-10s %-24s %10s %11s\n' domain case Mbit/s ber
for c in "${cases[@]}"; do
  IFS='|' read -r domain name extra <<< "$c"
  [[ "$name" =~ ${CASES:-.} ]] || continue
  read -r -a extra <<< "$extra"
  bench_point case "${base[@]}" --set ofdm.domain="$domain" "${extra[@]}"
  printf '%-10s %-24s %10.2f %11.4e\n' "$domain" "$name" "$(col "$tmp/case.csv" mbit_per_s)" "$(col "$tmp/case.csv" ber)"
done
