#!/usr/bin/env bash
# End-to-end runs of the ofdmsim binary: results, reproducibility, thread and
# batch independence, the sidecar, Ctrl-C keeping what was computed, help.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"

cat >"$tmp/small.cfg" <<'CFG'
simulation = { seed = 42; snr_db = [2.0, 6.0]; target_errors = 500; max_bits = 2.0e6; threads = 2; };
mimo = { tx = 2; rx = 2; };
modulation = "16qam";
equalizer = "zf";
channel = { model = "rayleigh"; };
ofdm = { subcarriers = 128; symbols = 7; };
sweep = ( { key = "mimo.rx"; values = [2, 4]; } );
CFG

# The counts and parameters: everything but the work and timing columns
# (inversions, inv_per_s, mbit_per_s, seconds: a batch may run past the frame
# where a point stops) and the backend name.
counts() { csv_counts "$1"; }

"$OFDMSIM" "$tmp/small.cfg" -o "$tmp/a.csv" -q >"$tmp/a.out" 2>"$tmp/a.err"
check "a run exits 0" test $? -eq 0
check "csv written" test -s "$tmp/a.csv"
check "json sidecar written" test -s "$tmp/a.json"
check "csv has header + 4 rows" test "$(wc -l <"$tmp/a.csv")" -eq 5
check "csv header has the contract columns" \
  grep -q '^point,tx,rx,channel,domain,snr_kind,snr_db,n0,bits,bit_errors,ber,' "$tmp/a.csv"
check "stdout echoes the effective config" grep -q 'modulation = "16qam"' "$tmp/a.out"
check "stdout echoes the seed" grep -q 'seed = 42' "$tmp/a.out"
check "stdout table shows theory for zf rayleigh" grep -qE '^ +0 +2 +2 16qam +zf .* [0-9]\.[0-9]{3}e-[0-9]+ ' "$tmp/a.out"
check "json has the config and points" grep -q '"points"' "$tmp/a.json"
if command -v python3 >/dev/null; then
  check "json sidecar parses, with the seed and 4 points" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["config"]["simulation"]["seed"] == 42 and len(d["points"]) == 4 else 1)' "$tmp/a.json"
  check "json sidecar describes the run: build, backend, device, threads, times" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
b = d["build"]
ok = (set(b) == {"git_commit", "build_type", "c_flags", "cuda_architectures"} and b["build_type"]
      and d["backend"] in ("cpu", "cuda") and d["device"] and d["threads"] >= 1
      and d["started"] <= d["written"] and all("stream_key" in p and "fallbacks" in p for p in d["points"])
      and all(p["frame_errors_sq"] >= p["bit_errors"] ** 2 / p["frames"] * (1 - 1e-12) for p in d["points"]))
sys.exit(0 if ok else 1)' "$tmp/a.json"
fi
check "no temporary files left" test -z "$(ls "$tmp" | grep -E '\.tmp|\.probe')"

# Same seed -> identical counts; 1 thread vs 2; batches of one frame.
"$OFDMSIM" "$tmp/small.cfg" -o "$tmp/b.csv" -q >/dev/null 2>&1
check "same seed, same csv counts" cmp -s <(counts "$tmp/a.csv") <(counts "$tmp/b.csv")
"$OFDMSIM" "$tmp/small.cfg" --set simulation.threads=1 -o "$tmp/c.csv" -q >/dev/null 2>&1
check "1 thread gives the counts of 2" cmp -s <(counts "$tmp/a.csv") <(counts "$tmp/c.csv")
"$OFDMSIM" "$tmp/small.cfg" --set simulation.batch_frames=1 -o "$tmp/d.csv" -q >/dev/null 2>&1
check "batches of one frame give the same counts" cmp -s <(counts "$tmp/a.csv") <(counts "$tmp/d.csv")
"$OFDMSIM" "$tmp/small.cfg" --set simulation.seed=43 -o "$tmp/e.csv" -q >/dev/null 2>&1
check "another seed gives other counts" bash -c "! cmp -s <(cut -d, -f10 '$tmp/a.csv') <(cut -d, -f10 '$tmp/e.csv')"

# min_frames: target_errors stops a point only after that many frames.
"$OFDMSIM" "$tmp/small.cfg" --set simulation.min_frames=7 --set 'simulation.snr_db=[2.0]' -o "$tmp/m.csv" -q >/dev/null 2>&1
check "min_frames holds a point until 7 frames" test "$(awk -F, 'NR==2{print $17 "," $18}' "$tmp/m.csv")" = "7,target_errors"
# Unset (0, automatic), a rayleigh point runs at least 10 frames: the
# interval needs the spread of several frames' counts.
check "without min_frames a rayleigh point runs 10 frames" test "$(awk -F, 'NR==2{print $17}' "$tmp/a.csv")" = 10
# target_precision: a point stops once its interval's half-width is at most
# that fraction of its BER, and the printed interval says so.
"$OFDMSIM" "$tmp/small.cfg" --set simulation.target_precision=0.1 --set simulation.target_errors=1000000000 \
  --set simulation.min_frames=2 -o "$tmp/prec.csv" -q >/dev/null 2>&1
check "target_precision runs" test $? -eq 0
check "every point stopped on target_precision" \
  test "$(awk -F, 'NR > 1 && $18 != "target_precision"' "$tmp/prec.csv" | wc -l)" -eq 0
check "every interval half-width is at most 10% of the BER" \
  test "$(awk -F, 'NR > 1 && ($13 - $12) / 2 > 0.1 * $11 * (1 + 1e-9)' "$tmp/prec.csv" | wc -l)" -eq 0
check "a point stopped before max_bits (2e6 bits)" test "$(awk -F, 'NR > 1 && $9 < 2e6' "$tmp/prec.csv" | wc -l)" -eq 4

# The live progress line (forced on a pipe by OFDMSIM_PROGRESS) shows the
# point and the whole sweep, each with its ETA.
OFDMSIM_PROGRESS=1 "$OFDMSIM" "$tmp/small.cfg" --set simulation.max_bits=4e5 --set simulation.target_errors=1000000 \
  >/dev/null 2>"$tmp/progress.err"
check "the progress line shows the point, its ETA and the sweep's" \
  grep -qE '\[[0-9]+/4\] snr .* ETA +[0-9.]+ s +sweep +[0-9.]+% ETA +[0-9.]+ s' <(tr '\r' '\n' <"$tmp/progress.err")

# stop_below_ber ends a curve: once a point of a sweep combination falls
# below it, that combination's points at higher SNR are listed as skipped,
# with no work; the other combination runs its own course.
"$OFDMSIM" "$tmp/small.cfg" --set 'simulation.snr_db=[2.0, 6.0, 10.0, 14.0]' --set simulation.stop_below_ber=0.03 \
  -o "$tmp/stop.csv" -q >/dev/null 2>&1
check "stop_below_ber runs" test $? -eq 0
check "some points were skipped" test "$(awk -F, '$18 == "skipped"' "$tmp/stop.csv" | wc -l)" -ge 1
check "a skipped point follows one below the threshold (or skipped) in its own curve, with 0 bits" \
  test "$(awk -F, 'NR > 1 { if ($18 == "skipped" && !(prev_label == $24 && (prev_stop == "skipped" || prev_ber < 0.03) && $9 == 0)) bad++;
                            prev_label = $24; prev_stop = $18; prev_ber = $11 } END { print bad + 0 }' "$tmp/stop.csv")" -eq 0
check "the first point of each curve ran" \
  test "$(awk -F, 'NR > 1 && $7 + 0 == 2 && $18 == "skipped"' "$tmp/stop.csv" | wc -l)" -eq 0

# A coded curve ends by its BLER: 0 dB loses every TB (on to its block
# target), 4 dB none in 50 (max_blocks, below 1%), so 8 dB is skipped.
cat >"$tmp/coded.cfg" <<'CFG'
simulation = { snr_db = [0.0, 4.0, 8.0]; snr_kind = "esno"; target_block_errors = 20; max_blocks = 50;
               stop_below_ber = 0.01; backend = "cpu"; };
receiver = { llr = "maxlog"; };
ofdm = { subcarriers = 72; symbols = 14; };
code = { type = "ldpc"; rate = 0.5; };
CFG
"$OFDMSIM" "$tmp/coded.cfg" -o "$tmp/cstop.csv" -q >/dev/null 2>&1
check "a coded curve stops by its BLER" \
  test "$(csv_cols "$tmp/cstop.csv" stop block_errors | tr '\n' ' ')" = "target_block_errors,20 max_blocks,0 skipped, "

# Results are never replaced silently: an existing CSV, or its sidecar alone,
# refuses the run (exit 2, the files untouched); --force replaces them.
cp "$tmp/a.csv" "$tmp/a.keep"
"$OFDMSIM" "$tmp/small.cfg" -o "$tmp/a.csv" -q >/dev/null 2>"$tmp/again.err"
check "an existing CSV refuses the run with exit 2" test $? -eq 2
check "the message says so and names --force" grep -q 'a.csv: the file already exists; --force replaces it' "$tmp/again.err"
check "the refused run left the CSV as it was" cmp -s "$tmp/a.csv" "$tmp/a.keep"
mv "$tmp/a.csv" "$tmp/moved.csv"
"$OFDMSIM" "$tmp/small.cfg" -o "$tmp/a.csv" -q >/dev/null 2>"$tmp/again.err"
check "an existing sidecar alone refuses the run" test $? -eq 2 -a ! -e "$tmp/a.csv"
check "the message names the sidecar" grep -q 'its JSON sidecar' "$tmp/again.err"
"$OFDMSIM" "$tmp/small.cfg" -o "$tmp/a.csv" -q --force >/dev/null 2>&1
check "--force replaces the results" test $? -eq 0 -a -s "$tmp/a.csv"
check "--force gives the same counts" cmp -s <(counts "$tmp/a.csv") <(counts "$tmp/moved.csv")
"$OFDMSIM" "$tmp/small.cfg" --set simulation.min_frames=-1 -q >/dev/null 2>"$tmp/m.err"
check "min_frames -1 is a config error" test $? -eq 2

# Ctrl-C and SIGTERM (what batch schedulers send): the run stops at the end of
# a batch, keeps every finished point and the partial one (raw counts), and
# exits 128 + the signal.
cat >"$tmp/long.cfg" <<'CFG'
simulation = { seed = 1; snr_db = [0.0, 30.0]; target_errors = 1000000000; max_bits = 1.0e13; };
mimo = { tx = 2; rx = 2; };
ofdm = { subcarriers = 1024; symbols = 14; };
CFG
stop_with() {
  local sig=$1 want=$2 name=$3
  "$OFDMSIM" "$tmp/long.cfg" -o "$tmp/$name.csv" -q >/dev/null 2>"$tmp/$name.err" &
  local pid=$!
  # Once its journal holds a chunk: the point has counted bits and the run
  # goes on for hours, so the signal lands mid-run (the run's progress, not
  # the clock: two seconds' sleep spent four core-seconds a signal).
  while kill -0 $pid 2>/dev/null && ! grep -q '^chunk ' "$tmp/$name.journal" 2>/dev/null; do pause 0.01; done
  kill "-$sig" $pid
  wait $pid
  local rc=$?
  check "SIG$sig exits $want (got $rc)" test $rc -eq "$want"
  check "SIG$sig saved the partial point" grep -q ',interrupted,' "$tmp/$name.csv"
  check "SIG$sig: the partial point has counted bits" test "$(awk -F, 'NR==2{print ($9 > 0)}' "$tmp/$name.csv")" = 1
  check "SIG$sig wrote the sidecar" test -s "$tmp/$name.json"
  check "SIG$sig: the run says it was interrupted by SIG$sig" grep -q "interrupted (SIG$sig)" "$tmp/$name.err"
}
stop_with INT 130 int
stop_with TERM 143 term

# The header gives each tdl channel's length in samples next to the CP: TDL-C
# at 6 samples ends at 51.91 (the table's last delay 8.6523 x 6);
# windowed-sinc taps reach 31 samples past floor(51.91),
# so the discrete channel is 82 samples, more than a CP of 64.
"$OFDMSIM" "$OFDMSIM_SOURCE_DIR/configs/tdl_time.cfg" --set simulation.max_bits=1000 --set simulation.backend=cpu \
  --set simulation.snr_db=10.0 -o "$tmp/ch.csv" >"$tmp/ch.out" 2>&1
check "the header gives the channel's length next to the CP" \
  grep -q '^# channel: tdl-c, delay spread 6 samples .*last tap at 51.91 samples; discrete channel 82 samples, CP 64 (shorter' "$tmp/ch.out"

"$OFDMSIM" --help >"$tmp/help.out"
check "--help exits 0 and lists keys" grep -q 'simulation.target_errors' "$tmp/help.out"
"$OFDMSIM" --version >"$tmp/ver.out"
check "--version prints the version" grep -qE '^ofdmsim [0-9]+\.[0-9]+' "$tmp/ver.out"

# Every shipped example config is valid (validated, not run: --set caps the work).
for cfg in "$OFDMSIM_SOURCE_DIR"/configs/*.cfg; do
  "$OFDMSIM" "$cfg" --set simulation.max_bits=1000 --set simulation.backend=cpu -q >/dev/null 2>"$tmp/cfg.err"
  check "example $(basename "$cfg") runs" test $? -eq 0
done

finish
