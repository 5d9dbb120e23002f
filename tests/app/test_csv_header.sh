#!/usr/bin/env bash
# The results CSV's header is a user contract: every column name unique (a
# name given twice comes out of pandas renamed `.1`, and a reader that finds
# columns by name sees only one), and every fixed column named in README.md's
# "Result files" section.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1

"$OFDMSIM" configs/default.cfg -q --set simulation.backend=cpu --set simulation.max_bits=2e4 \
  --set 'simulation.snr_db=[0.0, 5.0, 10.0]' -o "$tmp/r.csv" >"$tmp/run.out" 2>&1
check "the run exits 0: $(tail -3 "$tmp/run.out")" test -s "$tmp/r.csv"
head -1 "$tmp/r.csv" | tr ',' '\n' >"$tmp/names"
dups=$(sort "$tmp/names" | uniq -d | tr '\n' ' ')
check "every column name is unique (twice: $dups)" test -z "$dups"
check "modulation is a column" grep -qx modulation "$tmp/names"
check "equalizer is a column" grep -qx equalizer "$tmp/names"
# Numeric columns keep one type (issue 23, item 12): a real-valued column
# never prints a whole number as an integer ("10", "0"), which made pandas
# load an SNR list of whole numbers as int64. The SNR list [0, 5, 10] and a
# point without errors (40 dB) are what used to print integers.
"$OFDMSIM" configs/default.cfg -q --set simulation.backend=cpu --set simulation.max_bits=2e4 \
  --set 'simulation.snr_db=[0.0, 10.0, 40.0]' -o "$tmp/ints.csv" >"$tmp/run.out" 2>&1
for name in snr_db n0 ber ci95_low ci95_high inv_per_s mbit_per_s seconds frame_errors_sq \
  simulation.snr_db simulation.max_bits simulation.target_precision channel.rho_tx; do
  cells=$(csv_cols "$tmp/ints.csv" "$name" | grep -v '^$' | grep -v '[.eEn]' | tr '\n' ' ')
  check "column $name: every cell a real, none an integer (got: $cells)" test -z "$cells"
done
for name in bits bit_errors frames units point mimo.tx; do
  cells=$(csv_cols "$tmp/ints.csv" "$name" | grep -v '^[0-9]*$' | tr '\n' ' ')
  check "column $name: counts stay integers (got: $cells)" test -z "$cells"
done
if python3 -c 'import pandas' 2>/dev/null; then
  check "pandas reads snr_db, ber and simulation.snr_db as float64" python3 -c '
import pandas, sys
d = pandas.read_csv(sys.argv[1])
sys.exit(0 if all(str(d[c].dtype) == "float64" for c in ["snr_db", "ber", "simulation.snr_db", "n0"]) else 1)' "$tmp/ints.csv"
fi

# README's section on result files, from its heading to the next one
section=$(awk '/^### Result files/ {on = 1; next} on && /^#/ {exit} on' README.md)
while read -r name; do
  check "README's Result files names column $name" grep -qF "\`$name\`" <<<"$section"
done < <(grep -v '\.' "$tmp/names")
finish
