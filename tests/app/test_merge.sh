#!/usr/bin/env bash
# ofdmsim merge: parts of a sweep run over different SNR lists, and parts of
# one point run over different frame ranges (simulation.first_frame), merged,
# equal one run over everything on every count column, byte for byte; each
# refusal (overlap, gap, other seed, other header, an existing or input
# output) exits 2 with its message and writes nothing.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1

# The point and its counts, sorted by point key: what a merge must reproduce.
counts() {
  csv_cols "$1" point_key bits bit_errors stream_bit_errors frames fallbacks frame_errors_sq units | sort
}
# The same plus what is computed from the counts (ber and the interval).
counts_and_interval() {
  csv_cols "$1" point_key bits bit_errors stream_bit_errors frames fallbacks frame_errors_sq units ber \
    ci95_low ci95_high simulation.first_frame | sort
}
run() {
  "$OFDMSIM" configs/default.cfg -q --set simulation.backend=cpu --set simulation.max_bits=2e5 "$@" \
    >"$tmp/run.out" 2>&1 || { echo "run failed: $*" >&2; cat "$tmp/run.out" >&2; }
}
merge() { "$OFDMSIM" merge "$@" >"$tmp/merge.out" 2>"$tmp/merge.err"; }
# fails WHAT RC MESSAGE OUT: the last merge exited RC, said MESSAGE, and OUT
# (and its sidecar) do not exist.
fails() {
  check "$1: exit $2 (got $rc)" test "$rc" -eq "$2"
  check "$1: says '$3'" grep -qF -- "$3" "$tmp/merge.err"
  check "$1: no output" test ! -e "$4" -a ! -e "${4%.csv}.json"
}

# ---- points: the sweep whole, and in three parts with other SNR lists -------
run --set 'simulation.snr_db=[0.0, 4.0, 8.0, 12.0]' -o "$tmp/whole.csv"
run --set 'simulation.snr_db=[8.0, 0.0]' -o "$tmp/a.csv"
run --set 'simulation.snr_db=[4.0]' -o "$tmp/b.csv"
run --set 'simulation.snr_db=[12.0]' -o "$tmp/c.csv"
check "the whole run has 8 points" test "$(counts "$tmp/whole.csv" | wc -l)" -eq 8
merge "$tmp/a.csv" "$tmp/b.csv" "$tmp/c.csv" -o "$tmp/m.csv"
rc=$?
check "merge of three parts exits 0 (got $rc: $(cat "$tmp/merge.err"))" test $rc -eq 0
check "merged: 8 rows" test "$(counts "$tmp/m.csv" | wc -l)" -eq 8
check "merged parts have the whole run's counts, byte for byte" \
  cmp -s <(counts_and_interval "$tmp/whole.csv") <(counts_and_interval "$tmp/m.csv")
check "merged: the header of the inputs" cmp -s <(head -1 "$tmp/a.csv") <(head -1 "$tmp/m.csv")
check "merged rows are sorted by point" \
  cmp -s <(csv_cols "$tmp/m.csv" point) <(csv_cols "$tmp/m.csv" point | sort -n -s)
check "merged labels stay quoted" grep -q ',"equalizer=zf",' "$tmp/m.csv"
check "the merged file agrees with the whole run (ofdmsim compare)" \
  "$OFDMSIM" compare "$tmp/whole.csv" "$tmp/m.csv" --require-all --require-same-draws >/dev/null
check "sidecar written" test -s "$tmp/m.json"
check "sidecar names the tool" grep -q '"tool": "merge"' "$tmp/m.json"
if command -v python3 >/dev/null; then
  check "sidecar: merged_from lists each input, its rows and its own sidecar" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d["merged_from"]
ok = (d["program"] == "ofdmsim" and [x["rows"] for x in f] == [4, 2, 2]
      and [x["path"].rsplit("/", 1)[1] for x in f] == ["a.csv", "b.csv", "c.csv"]
      and all(x["sidecar"]["config"]["simulation"]["seed"] == 1 for x in f))
sys.exit(0 if ok else 1)' "$tmp/m.json"
  check "sidecar: the provenance block every JSON file of ofdmsim opens with" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
keys = ["program", "tool", "version", "build", "date", "started", "written", "host", "command"]
ok = (list(d)[:len(keys)] == keys and d["command"].startswith("ofdmsim merge ")
      and set(d["build"]) == {"git_commit", "build_type", "c_flags", "cuda_architectures"})
sys.exit(0 if ok else 1)' "$tmp/m.json"
fi
check "no temporary files left" test -z "$(ls -a "$tmp" | grep -E '^\.m\.(csv|json)\.')"

# ---- frame ranges of one point: [0, 2) and [2, 5) equal [0, 5) -------------
if ! "$OFDMSIM" configs/default.cfg --set simulation.first_frame=0 --set simulation.max_bits=1e5 -q \
     >"$tmp/ff.out" 2>&1 && grep -q "first_frame" "$tmp/ff.out"; then
  echo "SKIP (first_frame not landed)"
else
  bpf=57344 # bits a frame of default.cfg: 1024 subcarriers x 14 symbols x 2 streams x 2 bits
  one=(--set 'simulation.snr_db=[4.0]' --set simulation.target_errors=1000000000)
  run "${one[@]}" --set simulation.max_bits=$((5 * bpf)) -o "$tmp/f_whole.csv"
  run "${one[@]}" --set simulation.first_frame=0 --set simulation.max_bits=$((2 * bpf)) -o "$tmp/f1.csv"
  run "${one[@]}" --set simulation.first_frame=2 --set simulation.max_bits=$((3 * bpf)) -o "$tmp/f2.csv"
  check "frames: the whole range is 5 frames" test "$(csv_cols "$tmp/f_whole.csv" frames | sort -u)" = 5
  check "frames: the parts are 2 and 3 frames" test "$(csv_cols "$tmp/f1.csv" frames | sort -u)$(csv_cols "$tmp/f2.csv" frames | sort -u)" = 23
  merge "$tmp/f2.csv" "$tmp/f1.csv" -o "$tmp/fm.csv"
  rc=$?
  check "frames: merge exits 0 (got $rc: $(cat "$tmp/merge.err"))" test $rc -eq 0
  check "frames: [0,2) + [2,5) equal one run of [0,5): counts, ber, interval, first_frame" \
    cmp -s <(counts_and_interval "$tmp/f_whole.csv") <(counts_and_interval "$tmp/fm.csv")
  check "frames: stop and max_bits of the part with the highest range" \
    test "$(csv_cols "$tmp/fm.csv" stop simulation.max_bits | sort -u)" = "$(csv_cols "$tmp/f2.csv" stop simulation.max_bits | sort -u)"
  # an interrupted point is a prefix of its re-run: they overlap
  merge "$tmp/f1.csv" "$tmp/f_whole.csv" -o "$tmp/x.csv"
  rc=$?
  fails "overlap" 2 "frames 0..1 of $tmp/f1.csv:2 overlap frames 0..4 of $tmp/f_whole.csv:2 (an interrupted point is a prefix of its re-run: keep one of them)" "$tmp/x.csv"
  run "${one[@]}" --set simulation.first_frame=3 --set simulation.max_bits=$((2 * bpf)) -o "$tmp/f3.csv"
  merge "$tmp/f1.csv" "$tmp/f3.csv" -o "$tmp/x.csv"
  rc=$?
  fails "gap" 2 "leave frames 2..2 out" "$tmp/x.csv"
fi

# ---- refusals -----------------------------------------------------------------
merge "$tmp/whole.csv" "$tmp/a.csv" -o "$tmp/x.csv"
rc=$?
fails "a part twice (both from frame 0)" 2 "overlap frames" "$tmp/x.csv"
run --set 'simulation.snr_db=[16.0]' --set simulation.seed=2 -o "$tmp/seed2.csv"
merge "$tmp/a.csv" "$tmp/seed2.csv" -o "$tmp/x.csv"
rc=$?
fails "another seed" 2 "$tmp/seed2.csv:2 has simulation.seed 2 but $tmp/a.csv:2 has 1" "$tmp/x.csv"
sed '1s/,units,/,unitz,/' "$tmp/b.csv" >"$tmp/b_header.csv"
merge "$tmp/a.csv" "$tmp/b_header.csv" -o "$tmp/x.csv"
rc=$?
fails "another header" 2 "$tmp/b_header.csv:1: expected the header of $tmp/a.csv, got column 28 'unitz' where $tmp/a.csv has 'units'" "$tmp/x.csv"
head -2 "$tmp/b.csv" >"$tmp/b_cut.csv"
tail -1 "$tmp/b.csv" | cut -d, -f1-20 >>"$tmp/b_cut.csv"
merge "$tmp/a.csv" "$tmp/b_cut.csv" -o "$tmp/x.csv"
rc=$?
fails "a malformed row" 2 "$tmp/b_cut.csv:3: expected" "$tmp/x.csv"
merge "$tmp/a.csv" "$tmp/nonexistent.csv" -o "$tmp/x.csv"
rc=$?
fails "a missing input" 2 "$tmp/nonexistent.csv: cannot read" "$tmp/x.csv"
merge "$tmp/a.csv" -o "$tmp/x.csv"
rc=$?
fails "one input" 2 "at least two" "$tmp/x.csv"
merge "$tmp/a.csv" "$tmp/b.csv"
rc=$?
fails "no -o" 2 "no output" "$tmp/x.csv"

# the output: never replaced without --force, never an input
cp "$tmp/m.csv" "$tmp/m.before"
merge "$tmp/a.csv" "$tmp/b.csv" -o "$tmp/m.csv"
rc=$?
check "existing OUT: exit 2" test $rc -eq 2
check "existing OUT: says so" grep -q "m.csv exists" "$tmp/merge.err"
check "existing OUT: left as it was" cmp -s "$tmp/m.csv" "$tmp/m.before"
echo '{}' >"$tmp/y.json"
merge "$tmp/a.csv" "$tmp/b.csv" -o "$tmp/y.csv"
rc=$?
check "existing sidecar: exit 2" test $rc -eq 2
check "existing sidecar: says so, writes no CSV" grep -q "y.json exists" "$tmp/merge.err"
check "existing sidecar: no CSV" test ! -e "$tmp/y.csv"
merge "$tmp/a.csv" "$tmp/b.csv" -o "$tmp/m.csv" --force
rc=$?
check "--force replaces OUT (exit $rc)" test $rc -eq 0
check "--force: the new content" test "$(counts "$tmp/m.csv" | wc -l)" -eq 6
cp "$tmp/a.csv" "$tmp/a.before"
merge "$tmp/a.csv" "$tmp/b.csv" -o "$tmp/a.csv" --force
rc=$?
check "OUT = an input, even with --force: exit 2" test $rc -eq 2
check "OUT = an input: says so" grep -q "an input is never replaced" "$tmp/merge.err"
check "OUT = an input: input untouched" cmp -s "$tmp/a.csv" "$tmp/a.before"
# The coded link: two frame ranges of coded points merge into the run over
# both, every coded count, rate and interval (BLER, throughput) included.
cat >"$tmp/coded.cfg" <<'CFG'
simulation = { snr_db = [0.0, 2.0]; snr_kind = "esno"; target_block_errors = 1000; backend = "cpu"; };
receiver = { llr = "maxlog"; };
ofdm = { subcarriers = 72; symbols = 14; };
code = { type = "ldpc"; rate = 0.5; };
CFG
coded() {
  csv_cols "$1" point_key bits bit_errors frames blocks block_errors bler bler_ci95_low bler_ci95_high code_blocks \
    cb_errors cbler info_bits info_bit_errors coded_ber iterations mean_iterations throughput throughput_ci95_low \
    throughput_ci95_high throughput_bps frame_cb_errors_sq frame_info_errors_sq | sort
}
"$OFDMSIM" "$tmp/coded.cfg" -q --set simulation.max_blocks=24 -o "$tmp/cw.csv" >/dev/null 2>&1
"$OFDMSIM" "$tmp/coded.cfg" -q --set simulation.max_blocks=10 -o "$tmp/c1.csv" >/dev/null 2>&1
"$OFDMSIM" "$tmp/coded.cfg" -q --set simulation.max_blocks=14 --set simulation.first_frame=10 -o "$tmp/c2.csv" \
  >/dev/null 2>&1
merge "$tmp/c2.csv" "$tmp/c1.csv" -o "$tmp/cm.csv"
check "coded: [0,10) + [10,24) merge (exit $?)" test -s "$tmp/cm.csv"
check "coded: the parts lose TBs at 0 dB and deliver some at 2 dB" \
  test "$(csv_cols "$tmp/cw.csv" block_errors | tr '\n' ' ')" != "0 0 "
check "coded: merged = one run of [0,24), every coded column" cmp -s <(coded "$tmp/cw.csv") <(coded "$tmp/cm.csv")

# Drops (channel.drop_frames = 5): the intervals' units are drops, and
# frame ranges that start at drops ([0,10) + [10,24), the last drop cut by
# the end) merge into the run over both, every count, sum of squares and
# interval included: BER, GMI, BLER, residual BLER, transmissions, HARQ
# throughput, and the drops' sums (the GMI's real-valued sums of squares
# add in another grouping, so only its rounded estimate and interval). A
# part that starts inside a drop cannot be run.
cat >"$tmp/drops.cfg" <<'CFG'
simulation = { snr_db = [0.0, 3.0]; snr_kind = "esno"; target_block_errors = 1000; backend = "cpu"; };
receiver = { llr = "maxlog"; };
ofdm = { subcarriers = 72; symbols = 14; };
channel = { model = "tdl"; profile = "custom"; tap_delays_ns = [0.0, 300.0]; tap_powers_db = [0.0, -3.0];
            tap_k_db = [6.0, -300.0]; doppler_hz = 20.0; drop_frames = 5; };
code = { type = "ldpc"; rate = 0.5; harq_transmissions = 4; };
CFG
drops() {
  csv_cols "$1" point_key bits bit_errors frames ber ci95_low ci95_high frame_errors_sq units gmi gmi_ci95_low \
    gmi_ci95_high blocks block_errors bler bler_ci95_low bler_ci95_high \
    cb_errors frame_cb_errors_sq frame_info_errors_sq harq_errors residual_bler_ci95_low residual_bler_ci95_high \
    transmissions mean_transmissions_ci95_low mean_transmissions_ci95_high harq_throughput_ci95_low \
    harq_throughput_ci95_high frame_transmissions_sq delivered_transmissions drop_block_errors_sq \
    drop_harq_errors_sq drop_delivered_sq | sort
}
"$OFDMSIM" "$tmp/drops.cfg" -q --set simulation.max_blocks=24 -o "$tmp/dw.csv" >/dev/null 2>&1
"$OFDMSIM" "$tmp/drops.cfg" -q --set simulation.max_blocks=10 -o "$tmp/d1.csv" >/dev/null 2>&1
"$OFDMSIM" "$tmp/drops.cfg" -q --set simulation.max_blocks=14 --set simulation.first_frame=10 -o "$tmp/d2.csv" \
  >/dev/null 2>&1
merge "$tmp/d2.csv" "$tmp/d1.csv" -o "$tmp/dm.csv"
check "drops: [0,10) + [10,24) merge (exit $?)" test -s "$tmp/dm.csv"
check "drops: the units are drops (5 of them a point)" \
  test "$(csv_cols "$tmp/dw.csv" units | sort -u | tr '\n' ' ')" = "5 "
check "drops: TBs lost and retransmitted at 0 dB" test "$(csv_cols "$tmp/dw.csv" transmissions | sort -n | tail -1)" -gt 24
check "drops: a drop's TBs squared together (drop_delivered_sq > the TBs delivered)" \
  test -n "$(paste -d' ' <(csv_cols "$tmp/dw.csv" drop_delivered_sq) <(csv_cols "$tmp/dw.csv" blocks) \
    <(csv_cols "$tmp/dw.csv" harq_errors) | awk '$1 > $2 - $3')"
check "drops: merged = one run of [0,24), every count and interval" cmp -s <(drops "$tmp/dw.csv") <(drops "$tmp/dm.csv")
"$OFDMSIM" "$tmp/drops.cfg" -q --set simulation.first_frame=12 -o "$tmp/d3.csv" >"$tmp/d3.out" 2>&1
rc=$?
check "drops: a part from inside a drop is refused (exit $rc)" test "$rc" -eq 2 -a ! -e "$tmp/d3.csv"
check "drops: says a drop's first frame" grep -q "a multiple of channel.drop_frames = 5" "$tmp/d3.out"

"$OFDMSIM" merge --help >"$tmp/help.out"
check "--help exits 0" test $? -eq 0
check "--help explains the rules" grep -q "tile one range" "$tmp/help.out"

finish
