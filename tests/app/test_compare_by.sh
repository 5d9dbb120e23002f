#!/usr/bin/env bash
# ofdmsim compare --by KEY: two receivers run apart (zf.csv, mmse.csv) share
# no point, so the plain compare refuses them (pointing at --by); with --by
# equalizer they are compared as curves: the SNR gap at a target BER with
# its interval, and the BER ratio at each SNR. 2x2 Rayleigh QPSK: MMSE needs
# less SNR than ZF (the gap is negative, its interval too), and its BER is
# lower at every SNR. A second family (4x4) is compared within itself.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1

cat >"$tmp/c.cfg" <<'CFG'
simulation = { backend = "cpu"; seed = 3; snr_db = [0.0, 4.0, 8.0, 12.0, 16.0, 20.0];
               target_errors = 2000; max_bits = 4.0e6; };
mimo = { tx = 2; rx = 2; };
modulation = "qpsk";
channel = { model = "rayleigh"; };
ofdm = { subcarriers = 256; symbols = 14; };
CFG
run() { "$OFDMSIM" "$tmp/c.cfg" -q "$@" >>"$tmp/run.out" 2>&1; }
run --set equalizer=zf -o "$tmp/zf.csv"
run --set equalizer=mmse -o "$tmp/mmse.csv"
check "the runs wrote their files: $(tail -2 "$tmp/run.out")" test -s "$tmp/zf.csv" -a -s "$tmp/mmse.csv"

"$OFDMSIM" compare "$tmp/zf.csv" "$tmp/mmse.csv" >"$tmp/plain.out" 2>"$tmp/plain.err"
rc=$?
check "plain compare of two receivers: exit 2 (got $rc)" test $rc -eq 2
check "... pointing at --by" grep -q -- "--by equalizer" "$tmp/plain.err"

"$OFDMSIM" compare "$tmp/zf.csv" "$tmp/mmse.csv" --by equalizer --target-ber 1e-2 >"$tmp/by.out" 2>"$tmp/by.err"
rc=$?
check "compare --by equalizer: exit 0 (got $rc: $(head -3 "$tmp/by.err"))" test $rc -eq 0
# the gap line: A B snrA snrB gap [lo, hi]
gap_line=$(grep -m1 '^equalizer=zf  *equalizer=mmse ' "$tmp/by.out")
check "a gap line for zf against mmse: '$gap_line'" test -n "$gap_line"
read -r _ _ snr_a snr_b gap lo hi <<<"$(tr -d '[],' <<<"$gap_line")"
check "both cross 1e-2 within 0..20 dB ($snr_a, $snr_b)" awk -v a="$snr_a" -v b="$snr_b" 'BEGIN { exit !(a > 0 && a < 20 && b > 0 && b < 20) }'
check "MMSE needs less SNR than ZF: gap $gap [$lo, $hi] below 0" awk -v g="$gap" -v h="$hi" -v l="$lo" 'BEGIN { exit !(g < 0 && h < 0 && l < g && g < h) }'
check "the gap is snr B - snr A" awk -v a="$snr_a" -v b="$snr_b" -v g="$gap" 'BEGIN { d = b - a - g; exit !(d < 0.0015 && d > -0.0015) }'
ratios=$(awk '/^BER ratio/ { on = 1; next } on && /^equalizer=zf/ { print $5 }' "$tmp/by.out")
check "a ratio at each of the 6 SNRs" test "$(wc -l <<<"$ratios")" -eq 6
check "MMSE's BER below ZF's at every SNR but 0 dB: $(tr '\n' ' ' <<<"$ratios")" \
  awk 'NR > 1 && !($1 < 1) { bad = 1 } END { exit bad }' <<<"$ratios"

# two families: 2x2 and 4x4, each with zf and mmse, in one file each
run --set equalizer=zf --set mimo.tx=4 --set mimo.rx=4 -o "$tmp/zf4.csv"
run --set equalizer=mmse --set mimo.tx=4 --set mimo.rx=4 -o "$tmp/mmse4.csv"
"$OFDMSIM" compare "$tmp/zf.csv" "$tmp/mmse.csv" "$tmp/zf4.csv" "$tmp/mmse4.csv" --by equalizer \
  --target-ber 1e-2 >"$tmp/fam.out" 2>"$tmp/fam.err"
rc=$?
check "four files, two families: exit 0 (got $rc: $(head -2 "$tmp/fam.err"))" test $rc -eq 0
check "... 4 curves in 2 families" grep -q '^4 curves in 2 families' "$tmp/fam.out"
check "... the 4x4 pair names its family" grep -q 'mimo.tx=4' "$tmp/fam.out"

# refusals
"$OFDMSIM" compare "$tmp/zf.csv" "$tmp/mmse.csv" --by simulation.seed >/dev/null 2>"$tmp/bad.err"
check "--by the seed: exit 2" test $? -eq 2
check "... saying why" grep -q "not part of a point's identity" "$tmp/bad.err"
"$OFDMSIM" compare "$tmp/zf.csv" "$tmp/zf.csv" --by equalizer >/dev/null 2>"$tmp/bad.err"
check "the same curve twice: exit 2" test $? -eq 2
check "... saying why" grep -q "expected one row per SNR" "$tmp/bad.err"
"$OFDMSIM" compare "$tmp/zf.csv" "$tmp/mmse.csv" --target-ber 1e-2 >/dev/null 2>"$tmp/bad.err"
check "--target-ber without --by: exit 2" test $? -eq 2
"$OFDMSIM" compare "$tmp/zf.csv" "$tmp/mmse.csv" --by equalizer --target-ber 2 >/dev/null 2>"$tmp/bad.err"
check "--target-ber 2: exit 2" test $? -eq 2
finish
