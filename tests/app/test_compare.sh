#!/usr/bin/env bash
# ofdmsim compare: one config run with two seeds agrees (z-test on the
# batch-means variance), a run agrees with itself (the same-draws rule), a
# point with 3x the bit errors differs under both rules, the same-draws
# tolerance and --require-all do what they say, skipped points are not
# compared, and bad input exits 2.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1

run() {
  "$OFDMSIM" configs/default.cfg -q --set simulation.backend=cpu --set simulation.max_bits=1e6 \
    --set 'simulation.snr_db=[0.0, 4.0, 8.0, 12.0]' "$@" >"$tmp/run.out" 2>&1 ||
    { echo "run failed: $*" >&2; cat "$tmp/run.out" >&2; }
}
compare() { "$OFDMSIM" compare "$@" >"$tmp/cmp.out" 2>"$tmp/cmp.err"; }
# edit FILE OUT ROW COLUMN EXPR: OUT is FILE with the cell of data row ROW
# (1 = first) in COLUMN replaced by EXPR of its value v (awk), e.g. "v * 3".
# The labels of these runs hold no comma, so plain splitting on ',' is exact.
edit() {
  awk -F, -v OFS=, -v row="$3" -v name="$4" -v expr="$5" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; n = NF; print; next }
    NF != n { print "edit: a row with a comma in a field" > "/dev/stderr"; exit 3 }
    NR - 1 == row {
      v = $c
      if (expr == "v * 3") $c = v * 3; else if (expr == "v + 3") $c = v + 3; else if (expr == "v + 10") $c = v + 10;
      else if (expr == "0") $c = 0; else { print "edit: unknown " expr > "/dev/stderr"; exit 3 }
    }
    { print }' "$1" >"$2"
}

run -o "$tmp/s1.csv"
run --set simulation.seed=2 -o "$tmp/s2.csv"
check "8 points a run" test "$(csv_cols "$tmp/s1.csv" point_key | wc -l)" -eq 8

compare "$tmp/s1.csv" "$tmp/s2.csv"
rc=$?
check "two seeds agree: exit 0 (got $rc: $(cat "$tmp/cmp.err"))" test $rc -eq 0
check "two seeds: every point compared by the z-test" test "$(grep -c ' z-test .*agree$' "$tmp/cmp.out")" -eq 8
check "two seeds: summary line" grep -q '^8 of 8 points agree at alpha 0.01 (Bonferroni' "$tmp/cmp.out"
check "two seeds: matched across seeds by config" grep -q 'matched by config across different seeds' "$tmp/cmp.out"
check "two seeds: the table shows the point" grep -q 'equalizer=mmse snr_db=12' "$tmp/cmp.out"

compare "$tmp/s1.csv" "$tmp/s1.csv"
rc=$?
check "a run against itself: exit 0 (got $rc)" test $rc -eq 0
check "a run against itself: the same-draws rule decided" test "$(grep -c ' +0 err .* same draws agree$' "$tmp/cmp.out")" -eq 8

# 3x the errors at one point: it differs, the others agree; the exit is 1.
edit "$tmp/s1.csv" "$tmp/x3.csv" 6 bit_errors "v * 3"
compare "$tmp/s1.csv" "$tmp/x3.csv"
rc=$?
check "3x errors vs the same run: exit 1 (got $rc)" test $rc -eq 1
check "3x errors vs the same run: one point differs by the same-draws rule" \
  test "$(grep -c 'same draws DIFFER$' "$tmp/cmp.out")" -eq 1
check "3x errors vs the same run: summary" grep -q '^7 of 8 points agree' "$tmp/cmp.out"
compare "$tmp/s2.csv" "$tmp/x3.csv"
rc=$?
check "3x errors vs another seed: exit 1 (got $rc)" test $rc -eq 1
check "3x errors vs another seed: the z-test finds it" test "$(grep -c ' z-test .*DIFFER$' "$tmp/cmp.out")" -eq 1

# the same-draws tolerance, 0.001 * e + 2: +10 errors fail at the last point
# (about 5700 errors: 7.7 allowed) and pass a wider tolerance; +3 errors pass
# at the first (about 84000) and fail without the relative part
edit "$tmp/s1.csv" "$tmp/p10.csv" 8 bit_errors "v + 10"
compare "$tmp/s1.csv" "$tmp/p10.csv"
rc=$?
check "+10 errors on the same draws: exit 1 (got $rc)" test $rc -eq 1
compare "$tmp/s1.csv" "$tmp/p10.csv" --same-draws-tolerance 0.01,2
rc=$?
check "+10 errors within --same-draws-tolerance 0.01,2: exit 0 (got $rc)" test $rc -eq 0
edit "$tmp/s1.csv" "$tmp/p3.csv" 1 bit_errors "v + 3"
compare "$tmp/s1.csv" "$tmp/p3.csv"
rc=$?
check "+3 errors of about 84000: within 0.1% + 2: exit 0 (got $rc)" test $rc -eq 0
compare "$tmp/s1.csv" "$tmp/p3.csv" --same-draws-tolerance 0,2
rc=$?
check "+3 errors outside --same-draws-tolerance 0,2: exit 1 (got $rc)" test $rc -eq 1

# another frame range of the same points is not the same draws
"$OFDMSIM" configs/default.cfg -q --set simulation.backend=cpu --set simulation.max_bits=1e6 \
  --set 'simulation.snr_db=[0.0, 4.0, 8.0, 12.0]' --set simulation.first_frame=1000 -o "$tmp/later.csv" >/dev/null 2>&1
if [ -s "$tmp/later.csv" ]; then
  compare "$tmp/s1.csv" "$tmp/later.csv"
  rc=$?
  check "another frame range agrees by the z-test: exit 0 (got $rc)" test $rc -eq 0
  check "another frame range: z-test, same keys" test "$(grep -c '^[0-9a-f]\{16\} .* z-test .*agree$' "$tmp/cmp.out")" -eq 8
  compare "$tmp/s1.csv" "$tmp/later.csv" --require-same-draws
  rc=$?
  check "--require-same-draws: another frame range differs (exit $rc)" test $rc -eq 1
else
  echo "SKIP (first_frame not landed)"
fi

# skipped points are listed, not compared
# (as a skipped row is: no bits, errors, frames or sum of squares; the row
# check of every reader refuses a row with more)
edit "$tmp/s1.csv" "$tmp/skip0.csv" 2 bits 0
edit "$tmp/skip0.csv" "$tmp/skip1.csv" 2 bit_errors 0
edit "$tmp/skip1.csv" "$tmp/skip2.csv" 2 frame_errors_sq 0
edit "$tmp/skip2.csv" "$tmp/skip.csv" 2 frames 0
compare "$tmp/s1.csv" "$tmp/skip.csv"
rc=$?
check "a skipped point: exit 0 (got $rc)" test $rc -eq 0
check "a skipped point: listed as skipped" test "$(grep -c ' skipped$' "$tmp/cmp.out")" -eq 1
check "a skipped point: 7 compared" grep -q '^7 of 7 points agree' "$tmp/cmp.out"

# points in one file only: listed; a difference only with --require-all
"$OFDMSIM" configs/default.cfg -q --set simulation.backend=cpu --set simulation.max_bits=1e6 \
  --set 'simulation.snr_db=[4.0, 8.0]' -o "$tmp/sub.csv" >/dev/null 2>&1
compare "$tmp/s1.csv" "$tmp/sub.csv"
rc=$?
check "a subset: exit 0 (got $rc)" test $rc -eq 0
check "a subset: 4 points only in A" test "$(grep -c ' only in A$' "$tmp/cmp.out")" -eq 4
compare "$tmp/s1.csv" "$tmp/sub.csv" --require-all
rc=$?
check "a subset with --require-all: exit 1 (got $rc)" test $rc -eq 1

# bad input: exit 2 with the file (and line) named
bad_input() {
  local what=$1 msg=$2
  shift 2
  compare "$@"
  local rc=$?
  check "$what: exit 2 (got $rc)" test $rc -eq 2
  check "$what: says '$msg' ($(head -1 "$tmp/cmp.err"))" grep -qF -- "$msg" "$tmp/cmp.err"
}
bad_input "a missing file" "$tmp/none.csv: cannot read" "$tmp/s1.csv" "$tmp/none.csv"
head -3 "$tmp/s1.csv" >"$tmp/short.csv"
tail -1 "$tmp/s1.csv" | cut -d, -f1-12 >>"$tmp/short.csv"
bad_input "a short row" "$tmp/short.csv:4: expected" "$tmp/s1.csv" "$tmp/short.csv"
cut -d, -f1-28 "$tmp/s1.csv" >"$tmp/nokey.csv"
bad_input "no point_key column" "$tmp/nokey.csv:1: expected a point_key column" "$tmp/nokey.csv" "$tmp/s1.csv"
"$OFDMSIM" configs/default.cfg -q --set simulation.backend=cpu --set simulation.max_bits=1e5 \
  --set modulation=16qam --set 'simulation.snr_db=[4.0]' -o "$tmp/other.csv" >/dev/null 2>&1
bad_input "no common point" "expected points common to both files" "$tmp/s1.csv" "$tmp/other.csv"
printf 'point,bits,bit_errors,ci95_low,ci95_high,frames,point_key\n0,10,1x,0,1,1,0123456789abcdef\n' >"$tmp/garbage.csv"
bad_input "a malformed count" "$tmp/garbage.csv:2: column bit_errors: expected an unsigned integer" \
  "$tmp/garbage.csv" "$tmp/s1.csv"
bad_input "one file" "expected two CSV files" "$tmp/s1.csv"
bad_input "a bad --alpha" "--alpha 2: expected a level 0 < A < 1" "$tmp/s1.csv" "$tmp/s2.csv" --alpha 2
bad_input "a bad tolerance" "expected REL,ABS" "$tmp/s1.csv" "$tmp/s2.csv" --same-draws-tolerance 0.1
# Coded points: their block errors are compared too. On the same draws, 10
# more lost TBs (equal bits and bit errors) differ; a second seed's run of a
# point in its waterfall agrees; the BLER's z-test tells a BLER of 0 from it.
cat >"$tmp/coded.cfg" <<'CFG'
simulation = { snr_db = [1.5]; snr_kind = "esno"; target_block_errors = 1000; max_blocks = 200; backend = "cpu"; };
receiver = { llr = "maxlog"; };
ofdm = { subcarriers = 72; symbols = 14; };
code = { type = "ldpc"; rate = 0.5; };
CFG
"$OFDMSIM" "$tmp/coded.cfg" -q -o "$tmp/c1.csv" >/dev/null 2>&1
"$OFDMSIM" "$tmp/coded.cfg" -q --set simulation.seed=2 -o "$tmp/c2.csv" >/dev/null 2>&1
edit "$tmp/c1.csv" "$tmp/c1more.csv" 1 block_errors "v + 10"
compare "$tmp/c1.csv" "$tmp/c1more.csv"
check "coded: 10 more lost TBs on the same draws differ (exit $?)" grep -q "same draws (blocks)" "$tmp/cmp.out"
compare "$tmp/c1.csv" "$tmp/c2.csv"
rc=$?
check "coded: another seed agrees (exit $rc)" test "$(csv_cols "$tmp/c1.csv" block_errors)" -gt 0 -a "$rc" -eq 0
edit "$tmp/c2.csv" "$tmp/c2none.csv" 1 block_errors "0"
compare "$tmp/c1.csv" "$tmp/c2none.csv"
check "coded: a BLER of 0 differs by the BLER's z-test" grep -q "BLER z-test" "$tmp/cmp.out"
# HARQ: the TBs lost after HARQ are compared as the first transmission's
# are: 10 more on the same draws (every other count equal) differ.
"$OFDMSIM" "$tmp/coded.cfg" -q --set code.harq_transmissions=3 -o "$tmp/h1.csv" >/dev/null 2>&1
edit "$tmp/h1.csv" "$tmp/h1more.csv" 1 harq_errors "v + 10"
compare "$tmp/h1.csv" "$tmp/h1.csv"
check "coded, HARQ: a run agrees with itself (exit $?)" test $? -eq 0
compare "$tmp/h1.csv" "$tmp/h1more.csv"
check "coded, HARQ: 10 more TBs lost after HARQ on the same draws differ" grep -q "same draws (blocks)" "$tmp/cmp.out"

"$OFDMSIM" compare --help >"$tmp/help.out"
check "--help exits 0" test $? -eq 0
check "--help names the Bonferroni correction" grep -q "Bonferroni" "$tmp/help.out"

finish
