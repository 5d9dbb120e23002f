#!/usr/bin/env bash
# Issue 25's CDL table: CDL-C (TR 38.901 7.7.1) between antenna arrays at
# both ends, 16-QAM, MMSE with perfect CSI and hard decisions, 1024 x 14 REs
# a frame at 30 kHz (30.72 MHz), delay spread 100 ns, Eb/N0 20 dB, in the
# frequency and the time domain, without Doppler and with the terminal at
# 120 km/h at 3.5 GHz (f_d = 389 Hz, travelling along +x), on one backend.
# The arrays are configs/cdl.cfg's: the transmitter (base station) a row of
# cross-polarised (+-45) pairs with the 38.901 element pattern, the receiver
# (terminal) a row of cross-polarised isotropic pairs, half a wavelength
# apart: "4x4" is 2 + 2 pairs, "8x4" 4 transmit pairs (8 streams on 4
# receive antennas: no precoding, so MMSE is overloaded and the BER high;
# the rate is the point). The first row is today's reference, TDL-A 4x4 in
# the frequency domain at 100 ns (bench-channels.sh's "continuous delays");
# every CDL row gives its rate as a share of it (issue 25's goal: >= 50% in
# the frequency domain on the GPU).
#   scripts/bench-cdl.sh cuda                # on the GPU machine
#   scripts/bench-cdl.sh cpu 1               # one CPU core
# OFDMSIM (default build/ofdmsim) is the binary; SECONDS_PER_CASE (default 2);
# SHAPES (default "4x4 8x4") the TXxRX shapes, even counts (pairs).
# bench/sionna_workloads.py --cases 5-12 (scripts/bench-sionna.sh cdl) runs
# the same CDL rows beside Sionna 2.2's CDL.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
bench_setup "${1:?usage: bench-cdl.sh cpu|cuda [THREADS]}" "${2:-0}"

base=(--set modulation=16qam --set equalizer=mmse --set simulation.snr_db=20.0
      --set channel.delay_spread_ns=100.0
      --set ofdm.subcarriers=1024 --set ofdm.symbols=14 --set ofdm.subcarrier_spacing=30000.0)
doppler=(--set channel.speed_kmh=120.0 --set channel.carrier_ghz=3.5)

# arrays TX RX: configs/cdl.cfg's panels, one row of cross-polarised pairs each
# (the pattern quoted: a bare 38.901 would be read as a number)
arrays() {
  echo "--set mimo.tx=$1 --set mimo.rx=$2" \
       "--set tx_array.rows=1 --set tx_array.columns=$(($1 / 2)) --set tx_array.polarisation=x" \
       "--set tx_array.pattern=\"38.901\" --set tx_array.spacing_h=0.5" \
       "--set rx_array.rows=1 --set rx_array.columns=$(($2 / 2)) --set rx_array.polarisation=x" \
       "--set rx_array.pattern=\"isotropic\" --set rx_array.spacing_h=0.5"
}

mbit() { col "$1" mbit_per_s; }   # Mbit/s (the CPU's time-domain Doppler rows are < 1)
printf '%-6s %-8s %-10s %-10s %12s %7s %11s\n' shape model domain doppler Mbit/s share ber
bench_point ref "${base[@]}" --set mimo.tx=4 --set mimo.rx=4 --set channel.model=tdl \
  --set channel.profile=tdl-a --set ofdm.domain=frequency || { echo "TDL-A reference failed" >&2; exit 1; }
ref=$(mbit "$tmp/ref.csv")
printf '%-6s %-8s %-10s %-10s %12.2f %7s %11.4e\n' 4x4 tdl-a frequency none "$ref" 100.0% "$(col "$tmp/ref.csv" ber)"

status=0
for shape in ${SHAPES:-4x4 8x4}; do
  tx=${shape%x*} rx=${shape#*x}
  if [ $((tx % 2)) != 0 ] || [ $((rx % 2)) != 0 ]; then
    echo "bench-cdl: shape $shape: cross-polarised arrays need even counts" >&2; exit 2
  fi
  read -r -a arr <<< "$(arrays "$tx" "$rx")"
  for domain in frequency time; do
    for dop in none 120km/h; do
      extra=()
      [ "$dop" = none ] || extra=("${doppler[@]}")
      if ! bench_point case "${base[@]}" "${arr[@]}" --set channel.model=cdl-c \
             --set ofdm.domain="$domain" "${extra[@]}"; then
        printf '%-6s %-8s %-10s %-10s %12s\n' "$shape" cdl-c "$domain" "$dop" failed
        status=1
        continue
      fi
      r=$(mbit "$tmp/case.csv")
      share=$(awk -v r="$r" -v i="$ref" 'BEGIN { printf "%.1f%%", 100 * r / i }')
      printf '%-6s %-8s %-10s %-10s %12.2f %7s %11.4e\n' "$shape" cdl-c "$domain" "$dop" "$r" "$share" \
        "$(col "$tmp/case.csv" ber)"
    done
  done
done
exit "$status"
