#!/usr/bin/env bash
# A point is its parameters: its random streams are keyed by the seed and the
# point's own transmitter/channel/SNR parameters (core/draws.h), so the same
# point gives the same counts whatever sweep, order or subset it runs in.
# (Which parameters enter the key: tests/core/test_stream_key.c.)
set -u
: "${OFDMSIM:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"

cat >"$tmp/base.cfg" <<'CFG'
simulation = { backend = "cpu"; seed = 9; snr_db = [0.0, 4.0, 8.0, 12.0, 16.0]; target_errors = 400; max_bits = 3.0e6; };
mimo = { tx = 2; rx = 2; };
modulation = "qpsk";
equalizer = "mmse";
channel = { model = "rayleigh"; };
ofdm = { subcarriers = 64; symbols = 4; };
sweep = ( { key = "equalizer"; values = ["zf", "mmse"]; } );
CFG
run() { "$OFDMSIM" "$tmp/base.cfg" -q "$@" > /dev/null 2>&1; }
# "equalizer snr_db -> bits bit_errors frames" for every point of a CSV.
counts() { awk -F, 'NR > 1 { print $5, $9 + 0, $11, $12, $19 }' "$1" | sort; }

run -o "$tmp/full.csv"
check "full sweep runs" test -s "$tmp/full.csv"
run --set 'simulation.snr_db=[16.0, 8.0, 0.0]' -o "$tmp/reversed.csv"
run --set 'simulation.snr_db=[8.0]' --set 'sweep=({key="equalizer"; values=["mmse"];})' -o "$tmp/subset.csv"
run --set 'simulation.snr_db=[12.0, 4.0]' --set 'sweep=({key="equalizer"; values=["mmse", "zf"];})' \
  -o "$tmp/shuffled.csv"
for part in reversed subset shuffled; do
  check "$part: produced points" test -s "$tmp/$part.csv"
  missing=$(comm -23 <(counts "$tmp/$part.csv") <(counts "$tmp/full.csv"))
  check "$part: every point has the counts it has in the full sweep ($missing)" test -z "$missing"
done
# A different seed gives different counts (the key does depend on the seed).
run --set simulation.seed=10 -o "$tmp/seed10.csv"
check "another seed changes the counts" test "$(counts "$tmp/seed10.csv")" != "$(counts "$tmp/full.csv")"

finish
