#!/usr/bin/env bash
# What a point costs beyond its simulation: a sweep of many easy points, its
# wall time against the sum of the points' own `seconds` (the time spent in
# the backend's batches), per point. And a long point through the CLI against
# `ofdmsim bench`'s pipeline rate for the same link (the CLI's share of the
# engine's speed).
#
#   scripts/bench-points.sh [BACKEND] [POINTS]     (default: cuda 200)
#
# Easy points: 2x2 QPSK MMSE Rayleigh, 64 subcarriers x 2 symbols, 20 frames
# each (max_bits), Eb/N0 from 0 dB in steps of 0.1 dB. OFDMSIM (default
# build/ofdmsim) is the binary; prints one block of figures.
set -eu -o pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ofdmsim=${OFDMSIM:-$root/build/ofdmsim}
backend=${1:-cuda}
points=${2:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
last=$(awk -v n="$points" 'BEGIN { printf "%.1f", (n - 1) * 0.1 }')
cat > "$tmp/sweep.cfg" <<CFG
simulation = { seed = 5; snr_kind = "ebno"; target_errors = 1000000000; max_bits = 10240.0;
               snr_db = { from = 0.0; to = $last; step = 0.1; }; };
mimo = { tx = 2; rx = 2; };
modulation = "qpsk";
equalizer = "mmse";
channel = { model = "rayleigh"; };
ofdm = { subcarriers = 64; symbols = 2; };
CFG

# Warm the device (context creation is a once-per-process cost, not a point's).
"$ofdmsim" "$tmp/sweep.cfg" -q --force -o "$tmp/warm.csv" --set simulation.backend="$backend" \
  --set simulation.snr_db=0 > /dev/null
t0=$(date +%s.%N)
"$ofdmsim" "$tmp/sweep.cfg" -q --force -o "$tmp/sweep.csv" --set simulation.backend="$backend" > /dev/null
t1=$(date +%s.%N)
"$ofdmsim" "$tmp/sweep.cfg" -q --force -o "$tmp/one.csv" --set simulation.backend="$backend" \
  --set simulation.snr_db=0 > /dev/null
t2=$(date +%s.%N)
awk -F, -v wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
  -v one="$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')" -v be="$backend" '
  NR == 1 { for (i = 1; i <= NF; i++) if ($i == "seconds") c = i; next }
  { n++; busy += $c }
  END {
    # one point alone: the process start-up and the device context, paid once
    printf "%s: %d points in %.3f s wall, %.3f s in batches; a process with one point %.3f s\n", be, n, wall, busy, one
    printf "%s: per point beyond its batches: %.2f ms (start-up of one process excluded: %.2f ms)\n", be,
      1000 * (wall - busy) / n, 1000 * (wall - one - busy + busy / n) / (n - 1)
  }' "$tmp/sweep.csv"

# A long point: the CLI's rate against the bench pipeline's, same link.
"$ofdmsim" "$tmp/sweep.cfg" -q --force -o "$tmp/long.csv" --set simulation.backend="$backend" \
  --set simulation.snr_db=10 --set ofdm.subcarriers=1024 --set ofdm.symbols=14 --set simulation.target_errors=1000000000000000 \
  --set simulation.max_bits="${LONG_BITS:-$([ "$backend" = cuda ] && echo 1e12 || echo 2e8)}" > /dev/null
awk -F, -v be="$backend" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "mbit_per_s") r = i; if ($i == "seconds") s = i } next }
  { printf "%s: long point (2x2 QPSK MMSE, 1024 x 14, Eb/N0 10 dB): %.2f Gbit/s over %.2f s\n", be, $r / 1000, $s }' \
  "$tmp/long.csv"
