#!/usr/bin/env bash
# --shard I/N: the shards of a sweep, merged, equal one plain run byte for
# byte on every count column (and the interval computed from them); the
# shares are dealt by point key (balanced, and the same whichever job runs
# first), a curve with stop_below_ber stays whole (its skips depend on the
# points before), an empty shard still writes its CSV, a coded sweep's
# shards merge into its plain run's coded counts, and a bad --shard is a
# usage error that writes nothing.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1

counts() {
  csv_cols "$1" point point_key bits bit_errors stream_bit_errors frames fallbacks frame_errors_sq units ber \
    ci95_low ci95_high stop
}
run() {
  "$OFDMSIM" configs/default.cfg -q --set simulation.backend=cpu --set simulation.max_bits=3e5 \
    --set 'simulation.snr_db=[0.0, 3.0, 6.0, 9.0, 12.0]' --set simulation.stop_below_ber=0.02 "$@" \
    >"$tmp/run.out" 2>&1 || { echo "run failed: $*" >&2; cat "$tmp/run.out" >&2; }
}

run -o "$tmp/whole.csv"
check "the plain run skips points below the BER (a real stop_below_ber curve)" grep -q ',skipped,' "$tmp/whole.csv"
for i in 1 2 3; do run --shard "$i/3" -o "$tmp/s$i.csv"; done
rows() { echo $(($(grep -vc '^#' "$1") - 1)); }
check "three shards of two curves hold all 10 points (got $(rows "$tmp/s1.csv") $(rows "$tmp/s2.csv") $(rows "$tmp/s3.csv"))" \
  test $(($(rows "$tmp/s1.csv") + $(rows "$tmp/s2.csv") + $(rows "$tmp/s3.csv"))) -eq 10
for i in 1 2 3; do
  r=$(rows "$tmp/s$i.csv")
  check "shard $i holds whole curves (0, 5 or 10 rows, got $r)" test $((r % 5)) -eq 0
done
check "every shard writes its CSV, the empty one too" test -s "$tmp/s1.csv" -a -s "$tmp/s2.csv" -a -s "$tmp/s3.csv"
check "the sidecar names the shard" grep -q '"shard": "1/3"' "$tmp/s1.json"
check "the header names the shard" grep -q '^# shard 3/3: [0-9]* of the sweep.s 10 points' "$tmp/run.out"
"$OFDMSIM" merge "$tmp/s1.csv" "$tmp/s2.csv" "$tmp/s3.csv" -o "$tmp/m.csv" >/dev/null 2>"$tmp/merge.err"
check "the shards merge (exit $?: $(cat "$tmp/merge.err"))" test -s "$tmp/m.csv"
check "shards merged = the plain run, every count column byte for byte" \
  cmp -s <(counts "$tmp/whole.csv") <(counts "$tmp/m.csv")

# Without stop_below_ber the points are dealt one by one, balanced.
plain() {
  "$OFDMSIM" configs/default.cfg -q --set simulation.backend=cpu --set simulation.max_bits=1e5 \
    --set 'simulation.snr_db=[0.0, 5.0, 10.0]' "$@" >/dev/null 2>&1
}
plain -o "$tmp/p.csv"
for i in 1 2 3 4; do plain --shard "$i/4" -o "$tmp/p$i.csv"; done
for i in 1 2 3 4; do
  r=$(rows "$tmp/p$i.csv")
  check "4 shards of 6 points: 1 or 2 points each (shard $i: $r)" test "$r" -ge 1 -a "$r" -le 2
done
"$OFDMSIM" merge "$tmp"/p?.csv -o "$tmp/pm.csv" >/dev/null 2>&1
check "4 shards merged = the plain run" cmp -s <(counts "$tmp/p.csv") <(counts "$tmp/pm.csv")
plain --shard 3/4 -o "$tmp/again.csv"
check "a shard is the same share in every job" cmp -s <(counts "$tmp/p3.csv") <(counts "$tmp/again.csv")
for i in 7 8; do plain --shard "$i/8" -o "$tmp/e$i.csv"; done
check "shards past the point count are empty but written" test "$(rows "$tmp/e7.csv")" -eq 0 -a -s "$tmp/e8.json"

# The coded link: the shards of a coded sweep, merged, equal its plain run on
# every coded count (and the BLER and throughput computed from them).
cat >"$tmp/coded.cfg" <<'CFG'
simulation = { snr_db = [0.0, 1.0, 2.0]; snr_kind = "esno"; target_block_errors = 30; max_blocks = 120;
               backend = "cpu"; };
receiver = { llr = "maxlog"; };
ofdm = { subcarriers = 72; symbols = 14; };
code = { type = "ldpc"; rate = 0.5; };
sweep = ({ key = "equalizer"; values = ["zf", "mmse"]; });
CFG
coded() {
  counts "$1"
  csv_cols "$1" blocks block_errors bler bler_ci95_low bler_ci95_high code_blocks cb_errors cbler info_bits \
    info_bit_errors coded_ber iterations mean_iterations throughput throughput_ci95_low throughput_ci95_high \
    frame_cb_errors_sq frame_info_errors_sq
}
"$OFDMSIM" "$tmp/coded.cfg" -q -o "$tmp/cw.csv" >/dev/null 2>&1
check "the plain coded run loses blocks (exit $?)" test "$(csv_cols "$tmp/cw.csv" block_errors | sort -u | wc -l)" -gt 1
for i in 1 2 3; do "$OFDMSIM" "$tmp/coded.cfg" -q --shard "$i/3" -o "$tmp/cs$i.csv" >/dev/null 2>&1; done
"$OFDMSIM" merge "$tmp"/cs?.csv -o "$tmp/cm.csv" >/dev/null 2>"$tmp/merge.err"
check "coded shards merge (exit $?: $(cat "$tmp/merge.err"))" test -s "$tmp/cm.csv"
check "coded shards merged = the plain run, every coded column" cmp -s <(coded "$tmp/cw.csv") <(coded "$tmp/cm.csv")

# Bad --shard values: exit 2, the message, nothing written.
for v in 0/3 4/3 1/0 x/2 1/2/3 2 1/2x 1/1048577; do
  "$OFDMSIM" configs/default.cfg -q --shard "$v" -o "$tmp/bad.csv" >/dev/null 2>"$tmp/bad.err"
  rc=$?
  check "--shard $v: exit 2 (got $rc)" test $rc -eq 2
  check "--shard $v: says what it expects" grep -qF -- "--shard $v: expected I/N with 1 <= I <= N" "$tmp/bad.err"
  check "--shard $v: writes nothing" test ! -e "$tmp/bad.csv" -a ! -e "$tmp/bad.journal"
done
finish
