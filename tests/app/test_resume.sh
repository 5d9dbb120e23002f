#!/usr/bin/env bash
# --resume and the journal: a run killed with SIGKILL at random moments and
# resumed until it finishes gives the very counts of one uninterrupted run;
# so does one stopped by SIGINT; the result files always parse; the journal
# rejects damage and a second writer; a resumed sweep reuses what it has.
source "$OFDMSIM_SOURCE_DIR/tests/support/harness.sh"

# Small frames (512 bits), so every point has many chunks; four points that
# run to target_errors (some 6e8 bits in all, about a second on two cores): at
# the chunk cap of 2^26 bits (2^17 frames), and past 9 x 2^17 frames at twice
# the cap (results/chunks.h: the chunks grow past the cap), no chunk holds
# more than a tenth of the run's frames, so a kill costs little and each
# resumed run gets somewhere (tests/results/test_chunks.c checks that the
# grown chunks depend on the point alone, as these do). On the
# CPU, so that the kills land in the middle of the work on any machine (a GPU
# would spend the first ones starting up, then finish at once); the GPU's
# resume is checked by gpu-check.sh.
# Under the sanitizers (OFDMSIM_TEST_SCALE) the errors and bits are scaled
# down: the chunks still double from one frame, so every point keeps many of
# them and the kills still follow the journal chunk by chunk.
cat > "$tmp/r.cfg" <<CFG
simulation = { snr_db = [0.0, 4.0, 8.0, 12.0]; target_errors = $(scaled 4000000); max_bits = $(scaled 1.2e9);
               seed = 7; backend = "cpu"; };
mimo = { tx = 2; rx = 2; };
ofdm = { subcarriers = 64; symbols = 2; };
CFG
run() { "$OFDMSIM" "$tmp/r.cfg" -q "$@" >/dev/null 2>>"$tmp/stderr"; }

run -o "$tmp/full.csv"
check "the uninterrupted run finishes" test $? -eq 0 -a -s "$tmp/full.csv"

# tail_ms NAME: the ms from the last write of NAME.journal to that of NAME.csv
# or NAME.json, at least 1: the time a finished run's results took to write.
tail_ms() {
  local j c
  j=$(stat -c %.3Y "$1.journal" | tr -d .)
  c=$(stat -c %.3Y "$1.csv" "$1.json" | tr -d . | sort -n | tail -1)
  [ "$c" -gt "$j" ] && echo $((c - j)) || echo 1
}

# Parses: a header and whole rows with as many fields as the header.
parses() {
  [ ! -e "$1" ] && return 0
  awk -F, 'NR == 1 { n = NF; if ($1 != "point") exit 1; next } NF != n { exit 1 } END { exit NR < 1 }' "$1"
}
json_parses() {
  [ ! -e "$1" ] && return 0
  ! command -v python3 >/dev/null && return 0
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1"
}

# frames JOURNAL: the frames its chunk records hold (0 before it exists).
frames() {
  if [ -e "$1" ]; then awk '$1 == "chunk" { f += $6 } END { print f + 0 }' "$1"; else echo 0; fi
}

# kill_until_done CFG NAME FRAMES TAIL_MS [LABEL]: runs CFG -o NAME.csv and
# kills it with -9, resumes it and kills it again, until a run ends by itself
# (60 tries at most). FRAMES is what the uninterrupted run's journal holds.
# While the journal holds fewer, a run is killed once it has saved FRAMES/16
# to FRAMES/8 more (at random), 0-4 ms later. Once it holds them all, only
# the results remain to be written, which took TAIL_MS in the uninterrupted
# run: the n-th such run (from 0) is killed at random within TAIL_MS of that
# plus (2^n - 1) / 2 times TAIL_MS, so that the kills land in those writes and
# a later run ends, however long a resumed run takes to start.
# The result files must parse after every kill. Sets kills and rc (the exit
# status of the run that ended).
#
# The kills follow the run's progress, not the clock: a loaded machine or a
# sanitizer build only stretches the waits. Each run saves at most an eighth
# of the frames, plus the chunk in flight (a tenth of r.cfg's, one frame of
# the heavy writes') and what it saves while the poll looks (some 10 ms), so
# at least four runs are killed before the journal is whole on any machine.
# Kills timed from the start did not do that: a run that went twice as fast
# as the timed one finished after one kill.
kill_until_done() {
  local cfg=$1 name=$2 total=$3 tail=$4 label=${5:-} attempt pid have want ms tails=0 opts=()
  kills=0 rc=1
  for attempt in $(seq 0 59); do
    have=$(frames "$tmp/$name.journal")
    want=$((have + total / 16 + RANDOM % (total / 16 + 1)))
    [ "$want" -gt "$total" ] && want=$total
    "$OFDMSIM" "$cfg" -q -o "$tmp/$name.csv" "${opts[@]}" >/dev/null 2>>"$tmp/stderr" &
    pid=$!
    opts=(--resume)
    while kill -0 "$pid" 2>/dev/null && [ "$(frames "$tmp/$name.journal")" -lt "$want" ]; do pause 0.002; done
    if [ "$want" -lt "$total" ]; then
      ms=$((RANDOM % 5))
    else
      ms=$((RANDOM % (tail + 1) + tail * ((1 << tails) - 1) / 2))
      [ "$tails" -lt 20 ] && tails=$((tails + 1))
    fi
    sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
    if kill -9 "$pid" 2>/dev/null; then
      wait "$pid" 2>/dev/null
      kills=$((kills + 1))
      parses "$tmp/$name.csv" || bad "${label}the CSV parses after kill $kills"
      json_parses "$tmp/$name.json" || bad "${label}the JSON parses after kill $kills"
    else
      wait "$pid"
      rc=$?
      return
    fi
  done
}

# Kill -9 at random moments, resuming each time, until a run ends by itself.
RANDOM=11
kill_until_done "$tmp/r.cfg" part "$(frames "$tmp/full.journal")" "$(tail_ms "$tmp/full")"
check "killed at least 4 times before finishing ($kills)" test "$kills" -ge 4
check "the last resume finishes (exit $rc)" test "$rc" -eq 0
check "killed and resumed = uninterrupted, every count" cmp -s <(csv_counts "$tmp/full.csv") <(csv_counts "$tmp/part.csv")
check "no temporary files left" test -z "$(ls "$tmp" | grep -E '\.tmp|\.probe')"

# The coded link (one LDPC transport block a frame): its block, code-block,
# information-bit and iteration counts and its stop rules resume exactly too,
# and HARQ's (up to 3 transmissions: the journal's HARQ counts).
# Tiny frames (256 coded bits, a TB of 128), so that the chunks are many.
cblocks=$(scaled 12000 1200)
cat > "$tmp/c.cfg" <<CFG
simulation = { snr_db = [-2.0, 0.0, 2.0]; snr_kind = "esno"; target_block_errors = $((cblocks / 2));
               max_blocks = $cblocks; seed = 7; backend = "cpu"; };
mimo = { tx = 2; rx = 2; };
receiver = { llr = "maxlog"; };
ofdm = { subcarriers = 64; symbols = 2; };
code = { type = "ldpc"; rate = 0.5; };
sweep = ( { key = "code.harq_transmissions"; values = [1, 3]; } );
CFG
coded_counts() {
  csv_cols "$1" point point_key bits bit_errors frames stop frame_errors_sq blocks block_errors bler bler_ci95_low \
    bler_ci95_high code_blocks cb_errors info_bits info_bit_errors iterations frame_cb_errors_sq frame_info_errors_sq \
    harq_errors residual_bler residual_bler_ci95_low residual_bler_ci95_high transmissions mean_transmissions \
    mean_transmissions_ci95_low harq_throughput harq_throughput_ci95_low harq_throughput_ci95_high \
    frame_transmissions_sq delivered_transmissions
}
"$OFDMSIM" "$tmp/c.cfg" -q -o "$tmp/cfull.csv" >/dev/null 2>>"$tmp/stderr"
check "coded: some TB took more than one transmission (HARQ's journal counts are written)" \
  test -n "$(csv_cols "$tmp/cfull.csv" transmissions blocks | awk -F, '$1 > $2')"
check "coded: the uninterrupted run stops on both block rules" \
  test "$(csv_cols "$tmp/cfull.csv" stop | sort -u | tr '\n' ' ')" = "max_blocks target_block_errors "
kill_until_done "$tmp/c.cfg" c "$(frames "$tmp/cfull.journal")" "$(tail_ms "$tmp/cfull")" "coded: "
check "coded: killed at least 4 times ($kills)" test "$kills" -ge 4
check "coded: the last resume finishes (exit $rc)" test "$rc" -eq 0
check "coded: killed and resumed = uninterrupted, every coded count" \
  cmp -s <(coded_counts "$tmp/cfull.csv") <(coded_counts "$tmp/c.csv")

# Drops (channel.drop_frames = 7 on a slowly fading TDL channel, HARQ): the
# chunks hold whole drops and the journal the drops' sums, so a run killed
# and resumed has every count, sum of squares over drops and interval of one
# uninterrupted run.
cat > "$tmp/d.cfg" <<CFG
simulation = { snr_db = [0.0, 2.0]; snr_kind = "esno"; target_block_errors = $((cblocks / 4));
               max_blocks = $((cblocks / 2)); seed = 9; backend = "cpu"; };
mimo = { tx = 2; rx = 2; };
receiver = { llr = "maxlog"; };
ofdm = { subcarriers = 64; symbols = 2; };
channel = { model = "tdl"; profile = "tdl-a"; delay_spread = 2.0; doppler_hz = 30.0; drop_frames = 7; };
code = { type = "ldpc"; rate = 0.5; harq_transmissions = 3; };
CFG
drop_counts() {
  coded_counts "$1"
  drop_interval_cols "$1"
}
"$OFDMSIM" "$tmp/d.cfg" -q -o "$tmp/dfull.csv" >/dev/null 2>>"$tmp/stderr"
check "drops: the units are drops (a seventh of the frames, rounded up)" \
  test -z "$(csv_cols "$tmp/dfull.csv" frames units | awk -F, '$2 != int(($1 + 6) / 7)')"
kill_until_done "$tmp/d.cfg" d "$(frames "$tmp/dfull.journal")" "$(tail_ms "$tmp/dfull")" "drops: "
check "drops: killed at least 4 times ($kills)" test "$kills" -ge 4
check "drops: the last resume finishes (exit $rc)" test "$rc" -eq 0
check "drops: killed and resumed = uninterrupted, every count and interval" \
  cmp -s <(drop_counts "$tmp/dfull.csv") <(drop_counts "$tmp/d.csv")

# The same during heavy writes: 10000 one-frame points, so that the journal
# grows by a line every 60 us or so and the CSV and JSON are large: the last
# kills land while they are being written, in the part of the run (a third of
# it) that follows the last point. Under the sanitizers (OFDMSIM_TEST_SCALE)
# fewer points, each still one frame and one chunk, so the kills still follow
# the journal line by line.
wpoints=$(scaled 10000 500)
cat > "$tmp/w.cfg" <<CFG
simulation = { snr_db = { from = 0.0; to = 99.99; step = $(awk -v n="$wpoints" 'BEGIN { printf "%.6g", 100 / n }'); };
               max_bits = 1.0; seed = 3; backend = "cpu"; threads = 1; };
ofdm = { subcarriers = 256; symbols = 14; };
CFG
"$OFDMSIM" "$tmp/w.cfg" -q -o "$tmp/wfull.csv" >/dev/null 2>>"$tmp/stderr"
kill_until_done "$tmp/w.cfg" w "$(frames "$tmp/wfull.journal")" "$(tail_ms "$tmp/wfull")" "heavy writes: "
wkills=$kills
check "heavy writes: killed at least 4 times ($wkills)" test "$wkills" -ge 4
check "heavy writes: the last resume finishes (exit $rc)" test "$rc" -eq 0
check "heavy writes: killed and resumed = uninterrupted" cmp -s <(csv_counts "$tmp/wfull.csv") <(csv_counts "$tmp/w.csv")
check "heavy writes: no temporary files left" test -z "$(ls "$tmp" | grep -E '\.tmp|\.probe')"

# SIGINT: exit 130, the partial results kept, and --resume completes them to
# the uninterrupted run's counts (the thread count does not matter). On one
# thread, so that the run takes a few seconds and the signal, sent once the
# journal holds a record, lands mid-run.
"$OFDMSIM" "$tmp/r.cfg" -q -o "$tmp/int.csv" --set simulation.threads=1 >/dev/null 2>"$tmp/int.err" &
pid=$!
# Wait for the journal's first record however long it takes (no time cap:
# under load a run's start can take longer than any fixed wait, and a signal
# before the first record tests the start-up instead, saving no point). A
# record, not the file: the journal's header line is written at the start,
# and a CI run under ASan once sent the signal between the two.
while kill -0 "$pid" 2>/dev/null && ! grep -q '^chunk ' "$tmp/int.journal" 2>/dev/null; do sleep 0.01; done
kill -INT "$pid"
wait "$pid"
check "SIGINT exits 130" test $? -eq 130
check "SIGINT says how to continue" grep -q -- '--resume continues' "$tmp/int.err"
# Where the signal lands is up to the scheduler: mid-point (that point is
# saved as interrupted), or in the batch where a point's stop rule fires or
# between points (every saved point then has its verdict and the next never
# started). Either way the CSV and the message must tell the same story.
int_stops=$(csv_cols "$tmp/int.csv" stop)
if grep -q '(the last one partial)' "$tmp/int.err"; then
  check "... having saved the point it was in as interrupted" \
    test "$(printf '%s\n' "$int_stops" | tail -n 1)" = interrupted
  check "... and only that one" test "$(printf '%s\n' "$int_stops" | grep -c interrupted)" -eq 1
else
  check "... between points: each saved point has its stop rule, fewer than all four" \
    test -z "$(printf '%s\n' "$int_stops" | grep -vE '^(target_errors|max_bits)$')" -a \
    "$(printf '%s\n' "$int_stops" | grep -c .)" -ge 1 -a "$(printf '%s\n' "$int_stops" | grep -c .)" -lt 4
fi
run -o "$tmp/int.csv" --resume
check "resumed after SIGINT = uninterrupted" cmp -s <(csv_counts "$tmp/full.csv") <(csv_counts "$tmp/int.csv")

# Resuming a finished run runs nothing and changes no count; another thread
# count and batch size do not matter.
cp "$tmp/full.csv" "$tmp/full0.csv"
"$OFDMSIM" "$tmp/r.cfg" -q -o "$tmp/full.csv" --resume --set simulation.threads=1 \
  --set simulation.batch_frames=3 >/dev/null 2>"$tmp/again.err"
check "resuming a finished run succeeds" test $? -eq 0
check "... and reads all four points back" grep -q '4 of 4 points in the journal, 4 of them finished' "$tmp/again.err"
check "... with the same counts" cmp -s <(csv_counts "$tmp/full0.csv") <(csv_counts "$tmp/full.csv")

# A resumed sweep that grows reuses its finished points: the new SNR is run,
# the old ones come from the journal with their counts.
"$OFDMSIM" "$tmp/r.cfg" -q -o "$tmp/full.csv" --resume --set 'simulation.snr_db=[0.0, 2.0, 4.0, 8.0, 12.0]' \
  >/dev/null 2>"$tmp/grow.err"
check "a grown sweep resumes" grep -q '4 of 5 points in the journal, 4 of them finished' "$tmp/grow.err"
check "... keeping the old points' counts" cmp -s <(csv_counts "$tmp/full0.csv" | cut -d, -f2-) \
  <(csv_counts "$tmp/full.csv" | grep -v ',2\.0,' | cut -d, -f2- | grep -v '^$')

# A damaged journal (a middle line altered) is refused: exit 2, files untouched.
cp "$tmp/part.journal" "$tmp/bad.journal"
sed -i '5s/ more / mxre /' "$tmp/bad.journal"
cp "$tmp/part.csv" "$tmp/bad.csv"
cp "$tmp/bad.csv" "$tmp/bad0.csv"
run -o "$tmp/bad.csv" --resume
check "a damaged journal: exit 2" test $? -eq 2
check "... naming its line" grep -q 'bad.journal:5: .*damaged' "$tmp/stderr"
check "... the CSV untouched" cmp -s "$tmp/bad.csv" "$tmp/bad0.csv"

# A torn last line (a write cut by the kill) is dropped, not an error.
cp "$tmp/part.journal" "$tmp/torn.journal"
printf 'chunk 3 0123' >> "$tmp/torn.journal"
run -o "$tmp/torn.csv" --resume
check "a torn last line is dropped" test $? -eq 0
check "... and the result is whole" cmp -s <(csv_counts "$tmp/full0.csv") <(csv_counts "$tmp/torn.csv")

# Results without a journal cannot be resumed; existing results need a flag.
cp "$tmp/full0.csv" "$tmp/nojournal.csv"
run -o "$tmp/nojournal.csv" --resume
check "--resume without a journal: exit 2" test $? -eq 2
check "... saying so" grep -q 'has no journal .*nojournal.journal' "$tmp/stderr"
run -o "$tmp/full.csv"
check "existing results without --resume or --force: exit 2" test $? -eq 2
check "... naming both ways" grep -q -- '--force replaces it, --resume continues it' "$tmp/stderr"

# One journal, one writer: a second run on the same -o is refused at once.
# The first would run for days (it is killed below), so that it is still
# writing however slow the machine; the second starts once the first's
# journal exists (it takes the lock before), however long that takes.
long=(--set simulation.max_bits=1e14 --set simulation.target_errors=100000000000000)
"$OFDMSIM" "$tmp/r.cfg" -q -o "$tmp/lock.csv" "${long[@]}" >/dev/null 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null && [ ! -s "$tmp/lock.journal" ]; do sleep 0.1; done
run -o "$tmp/lock.csv" --resume "${long[@]}"
check "a second writer is refused with exit 2" test $? -eq 2
check "... saying why" grep -q 'another ofdmsim is writing to this journal' "$tmp/stderr"
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null

[ "$fail" -eq 0 ] || { echo "--- the runs' stderr (last lines):"; tail -n 30 "$tmp/stderr"; }
finish
