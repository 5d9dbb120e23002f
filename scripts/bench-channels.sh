#!/usr/bin/env bash
# Simulated Gbit/s of the channel models and receivers' channels, end to end
# through the CLI, on one backend: 4x4 16-QAM MMSE, 1024 x 14 REs a frame at
# 30 kHz (30.72 MHz), TDL-A at 100 ns (3.07 samples), Eb/N0 20 dB, in both
# domains. The first rows are the models as they were before continuous
# delays (delays on the sample grid, no Doppler, perfect CSI); the others add
# one feature each: continuous delays (exact phases in frequency, 32
# windowed-sinc taps a tap in time), TDL-D with its LOS path, Doppler at
# 120 km/h and 3.5 GHz (389 Hz), pilots (comb 4 on symbols 2 and 9) with
# perfect CSI, and LS estimation with linear and LMMSE interpolation.
#   scripts/bench-channels.sh cuda          # on the GPU machine
#   scripts/bench-channels.sh cpu [THREADS]
# OFDMSIM (default build/ofdmsim) is the binary; SECONDS_PER_CASE (default 2).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
bench_setup "${1:?usage: bench-channels.sh cpu|cuda [THREADS]}" "${2:-0}"

base=(--set mimo.tx=4 --set mimo.rx=4 --set modulation=16qam --set equalizer=mmse --set simulation.snr_db=20.0
      --set channel.model=tdl --set channel.profile=tdl-a --set channel.delay_spread_ns=100.0
      --set ofdm.subcarriers=1024 --set ofdm.symbols=14 --set ofdm.subcarrier_spacing=30000.0)
pilots=(--set pilots.spacing=4 --set pilots.first_symbol=2 --set pilots.symbol_spacing=7)
cases=(
  "sample-grid delays|--set channel.delays=sample"
  "continuous delays|"
  "tdl-d (LOS)|--set channel.profile=tdl-d"
  "doppler 389 Hz|--set channel.doppler_hz=389.0"
  "pilots, perfect CSI|${pilots[*]}"
  "pilots, ls linear|${pilots[*]} --set receiver.channel_estimation=ls --set receiver.interpolation=linear"
  "pilots, ls lmmse|${pilots[*]} --set receiver.channel_estimation=ls --set receiver.interpolation=lmmse"
)
printf '%-10s %-24s %10s %11s\n' domain case Gbit/s ber
for domain in frequency time; do
  for c in "${cases[@]}"; do
    name=${c%%|*}
    read -r -a extra <<< "${c#*|}"
    bench_point case "${base[@]}" --set ofdm.domain="$domain" "${extra[@]}"
    printf '%-10s %-24s %10.3f %11.4e\n' "$domain" "$name" "$(rate_gbit "$tmp/case.csv")" "$(col "$tmp/case.csv" ber)"
  done
done
