#!/usr/bin/env bash
# ofdmsim merge --pool-seeds: runs that differ only in simulation.seed are
# independent draws of the same points; pooled, each point's counts are the
# sums over the seeds (bits, bit_errors, frames, frame_errors_sq, ...), its
# interval computed again (narrower), simulation.seed left empty, a point key
# of its own, and the seeds listed in the sidecar. One seed's frame ranges
# still tile (a seed run in two parts pools like the whole); without the
# flag other seeds are refused as before, pointing at it.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1

bpf=57344 # bits a frame of default.cfg
run() {
  "$OFDMSIM" configs/default.cfg -q --set simulation.backend=cpu --set 'simulation.snr_db=[0.0, 5.0]' \
    --set simulation.target_errors=1000000000 "$@" >>"$tmp/run.out" 2>&1 || echo "run failed: $*" >&2
}
run --set simulation.seed=1 --set simulation.max_bits=$((4 * bpf)) -o "$tmp/s1.csv"
run --set simulation.seed=2 --set simulation.max_bits=$((4 * bpf)) -o "$tmp/s2.csv"
run --set simulation.seed=3 --set simulation.max_bits=$((4 * bpf)) -o "$tmp/s3.csv"
# seed 3 again, in two frame ranges: [0, 1) and [1, 4)
run --set simulation.seed=3 --set simulation.max_bits=$((1 * bpf)) -o "$tmp/s3a.csv"
run --set simulation.seed=3 --set simulation.max_bits=$((3 * bpf)) --set simulation.first_frame=1 -o "$tmp/s3b.csv"

"$OFDMSIM" merge "$tmp/s1.csv" "$tmp/s2.csv" -o "$tmp/x.csv" >/dev/null 2>"$tmp/err"
check "other seeds without --pool-seeds: exit 2" test $? -eq 2
check "... pointing at --pool-seeds" grep -q -- "--pool-seeds adds them up" "$tmp/err"

"$OFDMSIM" merge "$tmp/s1.csv" "$tmp/s2.csv" "$tmp/s3.csv" --pool-seeds -o "$tmp/p.csv" >/dev/null 2>"$tmp/err"
rc=$?
check "merge --pool-seeds: exit 0 (got $rc: $(head -2 "$tmp/err"))" test $rc -eq 0
check "pooled: 4 rows (2 equalizers x 2 SNRs)" test "$(csv_cols "$tmp/p.csv" point | wc -l)" -eq 4
# the sums, computed here from the inputs by the point's label and SNR
sums() {
  cat "$@" | awk -F, 'NR == 1 || !/^point,/' |
    csv_cols /dev/stdin label snr_db bits bit_errors frames frame_errors_sq units |
    awk -F, '{ k = $1 "," $2; b[k] += $3; e[k] += $4; f[k] += $5; q[k] += $6; u[k] += $7 }
      END { for (k in b) printf "%s,%d,%d,%d,%.1f,%d\n", k, b[k], e[k], f[k], q[k], u[k] }' | sort
}
pooled() {
  csv_cols "$1" label snr_db bits bit_errors frames frame_errors_sq units |
    awk -F, '{ printf "%s,%s,%d,%d,%d,%.1f,%d\n", $1, $2, $3, $4, $5, $6, $7 }' | sort
}
check "pooled counts are the sums over the seeds: $(pooled "$tmp/p.csv" | head -1) vs $(sums "$tmp/s1.csv" "$tmp/s2.csv" "$tmp/s3.csv" | head -1)" \
  cmp -s <(sums "$tmp/s1.csv" "$tmp/s2.csv" "$tmp/s3.csv") <(pooled "$tmp/p.csv")
check "pooled frames: 12 a point" test "$(csv_cols "$tmp/p.csv" frames | sort -u)" = 12
check "pooled: simulation.seed empty" test -z "$(csv_cols "$tmp/p.csv" simulation.seed | sort -u)"
check "pooled: a point key of its own" \
  test -z "$(comm -12 <(csv_cols "$tmp/p.csv" point_key | sort) <(cat "$tmp/s1.csv" "$tmp/s2.csv" "$tmp/s3.csv" | csv_cols /dev/stdin point_key | sort))"
# the interval narrows: pooled half-width below seed 1's at each point
narrower=$(paste -d, <(csv_cols "$tmp/s1.csv" label snr_db ci95_low ci95_high | sort) \
  <(csv_cols "$tmp/p.csv" label snr_db ci95_low ci95_high | sort) |
  awk -F, '{ if (!($8 - $7 < $4 - $3)) bad++ } END { print bad + 0 }')
check "pooled intervals are narrower than one seed's" test "$narrower" -eq 0
if command -v python3 >/dev/null; then
  check "sidecar lists the pooled seeds [1, 2, 3]" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d.get("pooled_seeds") == [1, 2, 3] else 1)' "$tmp/p.json"
fi
# seed 3 in two frame ranges pools like seed 3 whole
"$OFDMSIM" merge "$tmp/s1.csv" "$tmp/s2.csv" "$tmp/s3b.csv" "$tmp/s3a.csv" --pool-seeds -o "$tmp/p2.csv" >/dev/null 2>"$tmp/err"
rc=$?
check "a seed in two frame ranges: exit 0 (got $rc: $(head -2 "$tmp/err"))" test $rc -eq 0
check "... the same counts as with the seed whole" cmp -s <(pooled "$tmp/p.csv") <(pooled "$tmp/p2.csv")
check "... the same point keys" cmp -s <(csv_cols "$tmp/p.csv" point_key | sort) <(csv_cols "$tmp/p2.csv" point_key | sort)
# overlapping ranges of one seed are still refused
"$OFDMSIM" merge "$tmp/s1.csv" "$tmp/s3.csv" "$tmp/s3a.csv" --pool-seeds -o "$tmp/x.csv" >/dev/null 2>"$tmp/err"
check "one seed's overlapping ranges: exit 2" test $? -eq 2
check "... saying overlap" grep -q "overlap" "$tmp/err"
# a pooled row is not pooled again
"$OFDMSIM" merge "$tmp/p.csv" "$tmp/s1.csv" --pool-seeds -o "$tmp/x.csv" >/dev/null 2>"$tmp/err"
check "a pooled file pooled again: exit 2" test $? -eq 2
check "... saying why" grep -q "pooled over seeds is not pooled again" "$tmp/err"
# compare reads a pooled file and pairs it by config
"$OFDMSIM" compare "$tmp/s1.csv" "$tmp/p.csv" >"$tmp/cmp.out" 2>"$tmp/err"
rc=$?
check "compare against a pooled file runs (exit $rc: $(head -2 "$tmp/err"))" test $rc -le 1
check "... pairing every point by config" grep -q "4 pairs matched by config" "$tmp/cmp.out"
finish
