#!/usr/bin/env bash
# receiver.gmi end to end (README "Achievable rate"): on the same draws,
#   - s1 (the s = 1 loss alone) gives the sup run's counts, its per-stream
#     loss sums and gmi_s1 to the bit, gmi = gmi_s1 with the s = 1 interval,
#     and empty gmi_s, gmi_loss_s and frame_gmi_loss_s_sq (no supremum was
#     taken); its table line and JSON say so;
#   - none gives the sup run's counts with every GMI column empty, no GMI
#     line in the table, a null gmi in the JSON;
#   - sup is the default: a run that sets it has the point keys of one that
#     does not, s1 and none are other points (their own keys);
#   - an s1 run resumed from half its journal, and merged from two frame
#     ranges, has the uninterrupted run's sums.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1

cat >"$tmp/g.cfg" <<'CFG'
simulation = { seed = 7; snr_db = [8.0]; snr_kind = "ebno"; target_errors = 1000000000;
               max_bits = 2.0e5; backend = "cpu"; };
mimo = { tx = 4; rx = 4; };
modulation = "16qam";
channel = { model = "rayleigh"; };
ofdm = { subcarriers = 64; symbols = 14; };
receiver = { llr = "maxlog"; };
sweep = ( { key = "equalizer"; values = ["mmse", "mmse-sic"]; },
          { key = "receiver.llr"; values = ["maxlog", "exact"]; } );
CFG
max_bits=$(scaled 200000 60000)
run() { "$OFDMSIM" "$tmp/g.cfg" --set simulation.max_bits="$max_bits" -q "$@"; }
run -o "$tmp/default.csv" >/dev/null 2>&1
check "the default run finishes" test $? -eq 0 -a -s "$tmp/default.csv"
for g in sup s1 none; do
  run --set receiver.gmi=$g -o "$tmp/$g.csv" >"$tmp/$g.out" 2>&1
  check "receiver.gmi = $g: the run finishes ($(tail -2 "$tmp/$g.out"))" test $? -eq 0 -a -s "$tmp/$g.csv"
done
check "4 points each" test "$(csv_cols "$tmp/s1.csv" point | wc -l)" -eq 4

check "sup is the default: its point keys and every column but the timings as the default run's" \
  cmp -s <(csv_cols "$tmp/default.csv" point_key gmi gmi_s gmi_s1 stream_gmi_loss gmi_loss_s) \
  <(csv_cols "$tmp/sup.csv" point_key gmi gmi_s gmi_s1 stream_gmi_loss gmi_loss_s)
check "the column receiver.gmi names the choice" \
  test "$(csv_cols "$tmp/s1.csv" receiver.gmi | sort -u)" = s1 -a "$(csv_cols "$tmp/none.csv" receiver.gmi | sort -u)" = none
keys() { csv_cols "$1" point_key | sort; }
check "s1 and none are points of their own (point keys unlike sup's and each other's)" \
  test -z "$(comm -12 <(keys "$tmp/sup.csv") <(keys "$tmp/s1.csv"))" -a \
  -z "$(comm -12 <(keys "$tmp/sup.csv") <(keys "$tmp/none.csv"))" -a -z "$(comm -12 <(keys "$tmp/s1.csv") <(keys "$tmp/none.csv"))"

counts() { csv_cols "$1" point equalizer receiver.llr bits bit_errors stream_bit_errors frames fallbacks frame_errors_sq; }
for g in s1 none; do
  check "$g: the BER counts of sup, point by point" cmp -s <(counts "$tmp/sup.csv") <(counts "$tmp/$g.csv")
done
check "s1: the per-stream loss sums, their squares and gmi_s1 as sup's, to the bit" \
  cmp -s <(csv_cols "$tmp/sup.csv" point stream_gmi_loss frame_gmi_loss_sq stream_gmi gmi_s1) \
  <(csv_cols "$tmp/s1.csv" point stream_gmi_loss frame_gmi_loss_sq stream_gmi gmi_s1)
check "s1: gmi = gmi_s1 inside its interval; gmi_s, gmi_loss_s, frame_gmi_loss_s_sq empty" \
  awk -F, '{ ok = $1 == $2 && $3 + 0 <= $1 + 0 && $1 + 0 <= $4 + 0 && $3 != "" && $5 == "" && $6 == "" && $7 == ""
             if (!ok) { print "bad row: " $0 > "/dev/stderr"; bad = 1 } } END { exit bad }' \
  <(csv_cols "$tmp/s1.csv" gmi gmi_s1 gmi_ci95_low gmi_ci95_high gmi_s gmi_loss_s frame_gmi_loss_s_sq)
check "s1: sup's supremum is at least s1's gmi (the s = 1 value is one of its candidates)" \
  awk -F, 'NR == FNR { s1[$1] = $2; next } { if ($2 + 0 < s1[$1] - 1e-12) bad = 1 } END { exit bad }' \
  <(csv_cols "$tmp/s1.csv" point gmi) <(csv_cols "$tmp/sup.csv" point gmi)
check "none: every GMI column empty" \
  test -z "$(csv_cols "$tmp/none.csv" gmi gmi_ci95_low gmi_ci95_high stream_gmi stream_gmi_loss frame_gmi_loss_sq gmi_s \
    gmi_s1 gmi_loss_s frame_gmi_loss_s_sq | tr -d ',\n')"
check "the table: sup's GMI lines at s*, s1's at s = 1, none without" \
  test "$(grep -c "GMI .* at LLR scaling s = " "$tmp/sup.out")" -eq 4 -a \
  "$(grep -c "GMI .* bit/RE \[.*\] at s = 1 (.* LLRs; receiver.gmi = s1: no supremum over s), per stream" "$tmp/s1.out")" -eq 4 -a \
  "$(grep -c " GMI " "$tmp/none.out")" -eq 0
if command -v python3 >/dev/null; then
  check "the JSON: s1's gmi.total and ci95 as the CSV's, s and grid null; none's gmi null" python3 - "$tmp" <<'PY'
import csv, json, sys
d = sys.argv[1]
ok = True
rows = {r["point_key"]: r for r in csv.DictReader(open(d + "/s1.csv"))}
for p in json.load(open(d + "/s1.json"))["points"]:
    g, r = p["gmi"], rows[p["point_key"]]
    close = lambda a, b: abs(a - float(b)) <= 1e-9 * max(1.0, abs(a))
    ok &= close(g["total"], r["gmi"]) and close(g["total_s1"], r["gmi_s1"]) and close(g["ci95"][0], r["gmi_ci95_low"])
    ok &= g["s"] is None and g["grid"] is None
ok &= all(p["gmi"] is None for p in json.load(open(d + "/none.json"))["points"])
sys.exit(0 if ok else 1)
PY
fi

# ---- resume: half of the s1 run's journal, the rest computed again ----------
gmi_columns() { csv_cols "$1" point_key frames gmi gmi_ci95_low gmi_ci95_high stream_gmi_loss frame_gmi_loss_sq gmi_s gmi_s1 \
  gmi_loss_s | sort; }
chunks=$(grep -c '^chunk ' "$tmp/s1.journal")
awk -v keep=$((chunks / 2)) '!/^chunk / || ++n <= keep' "$tmp/s1.journal" >"$tmp/cut.journal"
run --set receiver.gmi=s1 -o "$tmp/cut.csv" --resume >/dev/null 2>"$tmp/cut.err"
check "s1 resumed from half its journal ($chunks chunks): exit 0 ($(tail -2 "$tmp/cut.err"))" test $? -eq 0
check "s1 resumed: every GMI column and count as the uninterrupted run's" \
  cmp -s <(gmi_columns "$tmp/s1.csv") <(gmi_columns "$tmp/cut.csv")
check "s1 resumed: the BER counts too" cmp -s <(csv_counts "$tmp/s1.csv") <(csv_counts "$tmp/cut.csv")

# ---- merge: two frame ranges of an s1 point add up to the whole range -------
bpf=$((64 * 14 * 4 * 4))
one=(--set receiver.gmi=s1 --set equalizer=mmse --set receiver.llr=maxlog)
run "${one[@]}" --set simulation.max_bits=$((9 * bpf)) -o "$tmp/w.csv" >/dev/null 2>&1
run "${one[@]}" --set simulation.max_bits=$((4 * bpf)) -o "$tmp/p1.csv" >/dev/null 2>&1
run "${one[@]}" --set simulation.first_frame=4 --set simulation.max_bits=$((5 * bpf)) -o "$tmp/p2.csv" >/dev/null 2>&1
"$OFDMSIM" merge "$tmp/p1.csv" "$tmp/p2.csv" -o "$tmp/m.csv" >/dev/null 2>"$tmp/merge.err"
check "s1 merge of frames [0,4) and [4,9): exit 0 ($(cat "$tmp/merge.err"))" test $? -eq 0
check "s1 merge: the streams' loss sums as the whole run's, to the bit; the grid's columns empty" \
  test "$(csv_cols "$tmp/m.csv" frames stream_gmi_loss gmi_s gmi_loss_s)" = \
  "$(csv_cols "$tmp/w.csv" frames stream_gmi_loss gmi_s gmi_loss_s)"
check "s1 merge: gmi, its interval and gmi_s1 as the whole run's (to rounding)" \
  awk -F, 'NR == FNR { for (i = 1; i <= NF; i++) w[i] = $i; next }
    { for (i = 1; i <= NF; i++) if (($i - w[i]) ^ 2 > 1e-18 * (w[i] ^ 2 + 1e-30)) bad = 1 } END { exit bad }' \
  <(csv_cols "$tmp/w.csv" gmi gmi_ci95_low gmi_ci95_high gmi_s1 frame_gmi_loss_sq) \
  <(csv_cols "$tmp/m.csv" gmi gmi_ci95_low gmi_ci95_high gmi_s1 frame_gmi_loss_sq)
finish
