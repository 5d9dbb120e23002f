#!/usr/bin/env bash
# A new user's first hour and a careless or hostile one's (issue 23): no flag
# silently ignored, integer keys that take 1e6, receiver options under a
# sweep of receivers, a closed stdout that stops like SIGTERM, where to start
# without arguments, progress lines in a log, slow paths flagged before the
# run, the demo curve, --llr-out checked before any work, and the small
# findings of the hostile-input review.
source "$OFDMSIM_SOURCE_DIR/tests/support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1

# A quick sweep of equalizers (the shape of configs/default.cfg, small frames).
cat >"$tmp/eq.cfg" <<'CFG'
simulation = { backend = "cpu"; threads = 1; snr_db = [0.0, 10.0]; max_bits = 2.0e4; target_errors = 50; };
ofdm = { subcarriers = 64; symbols = 2; };
equalizer = "mmse";
sweep = ( { key = "equalizer"; values = ["zf", "mmse"]; } );
CFG
# the table rows' equalizer column (rows start with the point index)
table_eqs() { awk '$1 ~ /^[0-9]+$/ && NF > 10 { print $5 }' "$1" | sort -u | tr '\n' ' '; }

# ---- 1: --set of a swept key replaces its sweep axis, and the header says so --
"$OFDMSIM" "$tmp/eq.cfg" -q --set equalizer=ml -o "$tmp/ml.csv" >"$tmp/ml.out" 2>"$tmp/ml.err"
check "--set equalizer=ml on a swept equalizer: exit 0 (got $?)" test $? -eq 0
check "... every row runs ml (got: $(table_eqs "$tmp/ml.out"))" test "$(table_eqs "$tmp/ml.out")" = "ml "
check "... the CSV's equalizer column is ml alone" test "$(csv_cols "$tmp/ml.csv" equalizer | sort -u)" = ml
check "... two points, not four" test "$(csv_cols "$tmp/ml.csv" point | wc -l)" -eq 2
check "... the header says the sweep axis was replaced" \
  grep -q '^# note: --set equalizer=ml replaces the sweep over equalizer (\["zf", "mmse"\])' "$tmp/ml.out"
check "... the echoed config has no sweep left" bash -c '! grep -q "^#   sweep" "$0"' "$tmp/ml.out"
"$OFDMSIM" configs/zipped_sweep.cfg -q --set mimo.tx=4 -o "$tmp/z.csv" >/dev/null 2>"$tmp/z.err"
check "--set of a key of a zipped entry: exit 2 (got $?)" test $? -eq 2
check "... a pointed error" grep -q '^ofdmsim: error: --set mimo.tx=4: mimo.tx is swept together with other keys (sweep\[0\]' "$tmp/z.err"
check "... nothing written" test ! -e "$tmp/z.csv" -a ! -e "$tmp/z.json"
# a key the file sets and sweeps is swept, as always (configs/default.cfg does it)
"$OFDMSIM" "$tmp/eq.cfg" -q >"$tmp/both.out" 2>&1
check "a key set and swept in the file: swept (got: $(table_eqs "$tmp/both.out"))" \
  test "$(table_eqs "$tmp/both.out")" = "mmse zf "

# ---- 3: integer keys take numerals that are exact integers -------------------
for v in 1e6 1.0e6 1000000; do
  "$OFDMSIM" "$tmp/eq.cfg" -q --set simulation.target_errors=$v --set simulation.max_bits=1e4 >"$tmp/i.out" 2>"$tmp/i.err"
  check "--set simulation.target_errors=$v: exit 0 (got $?: $(head -c 300 "$tmp/i.err"))" test $? -eq 0
  check "... echoed as the integer 1000000" grep -q '^#     target_errors = 1000000;' "$tmp/i.out"
done
"$OFDMSIM" "$tmp/eq.cfg" -q --set simulation.target_errors=1.5e0 >/dev/null 2>"$tmp/i.err"
check "--set simulation.target_errors=1.5e0: exit 2 (got $?)" test $? -eq 2
check "... expected an integer" grep -q 'simulation.target_errors: expected an integer >= 1, got 1.5' "$tmp/i.err"
"$OFDMSIM" "$tmp/eq.cfg" -q --set simulation.target_errors=1e300 >/dev/null 2>"$tmp/i.err"
check "--set simulation.target_errors=1e300 (no exact integer): exit 2 (got $?)" test $? -eq 2
cat >"$tmp/int.cfg" <<'CFG'
simulation = { backend = "cpu"; threads = 1; snr_db = [5.0]; max_bits = 1.0e4; target_errors = 2.0e1; };
ofdm = { subcarriers = 6.4e1; symbols = 2; };
mimo = { rx = 2; };
sweep = ( { key = "mimo.tx"; values = (1.0e0, 2); } );
CFG
"$OFDMSIM" "$tmp/int.cfg" -q -o "$tmp/int.csv" >"$tmp/int.out" 2>"$tmp/int.err"
check "exact-integer floats in a file and a sweep: exit 0 (got $?: $(head -c 300 "$tmp/int.err"))" test $? -eq 0
check "... the CSV has the integers" test "$(csv_cols "$tmp/int.csv" mimo.tx ofdm.subcarriers simulation.target_errors | tr '\n' ' ')" = "1,64,20 2,64,20 "

# ---- 4: a receiver option under a sweep of receivers applies where it acts ---
cat >"$tmp/est.cfg" <<'CFG'
simulation = { backend = "cpu"; threads = 1; snr_db = [10.0]; max_bits = 2.0e4; target_errors = 50; min_frames = 1; };
channel = { model = "tdl"; profile = "tdl-a"; delay_spread_ns = 100.0; };
ofdm = { subcarriers = 64; symbols = 14; };
pilots = { spacing = 4; first_symbol = 2; symbol_spacing = 7; };
receiver = { interpolation = "lmmse"; };
sweep = ( { key = "receiver.channel_estimation"; values = ["perfect", "ls"]; } );
CFG
"$OFDMSIM" "$tmp/est.cfg" -q -o "$tmp/est.csv" >"$tmp/est.out" 2>"$tmp/est.err"
check "interpolation set, estimation swept over perfect and ls: exit 0 (got $?: $(head -c 300 "$tmp/est.err"))" test $? -eq 0
check "... lmmse where ls runs, nothing where perfect does" \
  test "$(csv_cols "$tmp/est.csv" receiver.channel_estimation receiver.interpolation | tr '\n' ' ')" = "perfect, ls,lmmse "
check "... the header notes where it was unused" \
  grep -q '^# note: receiver.interpolation = "lmmse" acts only with receiver.channel_estimation = "ls": unused at 1 of 2 points (perfect)' "$tmp/est.out"
"$OFDMSIM" "$tmp/est.cfg" -q --set 'sweep=({key="receiver.channel_estimation"; values=["perfect"];})' \
  -o "$tmp/est1.csv" >/dev/null 2>"$tmp/est1.err"
check "... acting at no point of the sweep: exit 2 (got $?)" test $? -eq 2
check "... says so" grep -q 'receiver.interpolation: expected only with receiver.channel_estimation = "ls", got receiver.channel_estimation = perfect at every point of the sweep' "$tmp/est1.err"
check "... nothing written" test ! -e "$tmp/est1.csv"
cat >"$tmp/kb.cfg" <<'CFG'
simulation = { backend = "cpu"; threads = 1; snr_db = [10.0]; max_bits = 1.0e4; target_errors = 50; };
ofdm = { subcarriers = 64; symbols = 2; };
receiver = { kbest_k = 4; };
sweep = ( { key = "equalizer"; values = ["mmse", "kbest", "mmse-sic"]; } );
CFG
"$OFDMSIM" "$tmp/kb.cfg" -q -o "$tmp/kb.csv" >"$tmp/kb.out" 2>"$tmp/kb.err"
check "kbest_k set, equalizer swept: exit 0 (got $?: $(head -c 300 "$tmp/kb.err"))" test $? -eq 0
check "... the note names both unused receivers" \
  grep -q '^# note: receiver.kbest_k = 4 acts only with equalizer = "kbest": unused at 2 of 3 points (mmse, mmse-sic)' "$tmp/kb.out"
check "... kbest_k at the kbest row alone" test "$(csv_cols "$tmp/kb.csv" receiver.kbest_k | tr '\n' ' ')" = " 4  "

# ---- 9: a closed stdout stops the run like SIGTERM: saved, said, exit 1 ------
cat >"$tmp/pipe.cfg" <<'CFG'
simulation = { backend = "cpu"; threads = 1; snr_db = [0.0, 2.0, 4.0, 6.0]; max_bits = 2.0e4; target_errors = 50; };
ofdm = { subcarriers = 64; symbols = 2; };
CFG
# stdout a pipe whose reader is gone before the run writes (deterministic,
# unlike `| head`, whose reader may or may not have exited yet)
mkfifo "$tmp/fifo"
exec 3<>"$tmp/fifo" 4>"$tmp/fifo"
exec 3<&-
"$OFDMSIM" "$tmp/pipe.cfg" -o "$tmp/pipe.csv" >&4 2>"$tmp/pipe.err"
rc=$?
exec 4>&-
check "closed stdout: exit 1 (got $rc)" test $rc -eq 1
check "... says so on stderr" grep -q '^ofdmsim: error: standard output failed (Broken pipe): stopped, 1 of 4 points saved; --resume continues' "$tmp/pipe.err"
check "... the finished point saved, no row left running" \
  test "$(csv_cols "$tmp/pipe.csv" stop | tr '\n' ' ')" = "target_errors "
"$OFDMSIM" "$tmp/pipe.cfg" -q -o "$tmp/pipe.csv" --resume >/dev/null 2>&1
check "... --resume completes it" test "$(csv_cols "$tmp/pipe.csv" stop | grep -c target_errors)" -eq 4

# ---- 11: no arguments: usage, the shipped configs, examples -----------------
"$OFDMSIM" >"$tmp/none.out" 2>"$tmp/none.err"
check "no arguments: exit 2 (got $?)" test $? -eq 2
check "... the usage on stderr" grep -q '^usage: ofdmsim CONFIG.cfg' "$tmp/none.err"
for f in configs/*.cfg; do
  check "... lists the shipped $(basename "$f")" grep -q "^  $(basename "$f") " "$tmp/none.err"
done
check "... two examples or more" test "$(sed -n '/^Examples:/,$p' "$tmp/none.err" | grep -c '^  ofdmsim')" -ge 2
"$OFDMSIM" --help >"$tmp/help.out"
check "--help has an examples section" grep -q '^Examples:' "$tmp/help.out"
check "--help documents --progress" grep -q -- '--progress SECONDS' "$tmp/help.out"

# ---- 13: progress lines of their own, for a log ------------------------------
cat >"$tmp/long.cfg" <<'CFG'
simulation = { backend = "cpu"; threads = 1; snr_db = [0.0, 30.0]; max_bits = 3.0e5; target_errors = 100000000; };
ofdm = { subcarriers = 64; symbols = 2; };
CFG
"$OFDMSIM" "$tmp/long.cfg" --progress 1e-9 >/dev/null 2>"$tmp/prog.err"
check "--progress on a file: exit 0 (got $?)" test $? -eq 0
check "... whole progress lines" test "$(grep -c '^ofdmsim: progress [0-9]* s: \[[12]/2\] snr ' "$tmp/prog.err")" -ge 2
check "... of both points" bash -c 'grep -q "\[1/2\]" "$0" && grep -q "\[2/2\]" "$0"' "$tmp/prog.err"
check "... no carriage return (no live line in a log)" bash -c '! grep -q $'"'"'\r'"'"' "$0"' "$tmp/prog.err"
"$OFDMSIM" "$tmp/long.cfg" --set simulation.max_bits=1e4 >/dev/null 2>"$tmp/prog0.err"
check "no --progress, not a terminal, a short run: no line before a minute" test ! -s "$tmp/prog0.err"
for v in 0 -1 abc 1e9 ''; do
  "$OFDMSIM" "$tmp/long.cfg" --progress="$v" >/dev/null 2>"$tmp/pv.err"
  check "--progress=$v: exit 2 (got $?)" test $? -eq 2
  check "... says what it expects" grep -q 'expected a number of seconds in (0, 86400]\|needs a value' "$tmp/pv.err"
done
"$OFDMSIM" "$tmp/long.cfg" -q --progress 5 >/dev/null 2>"$tmp/pq.err"
check "-q with --progress: exit 2, they contradict (got $?)" test $? -eq 2

# ---- 14: slow paths flagged in the header, before the run -------------------
"$OFDMSIM" "$tmp/eq.cfg" --set equalizer=ml --set modulation=16qam --set mimo.tx=4 --set mimo.rx=4 \
  --set 'simulation.snr_db=[10.0]' --set simulation.max_bits=1 --set ofdm.symbols=1 -q >"$tmp/slow.out" 2>&1
check "4x4 16-QAM ml: exit 0" test $? -eq 0
check "... flagged as a slow path with a time" \
  grep -q '^# note: 1 point on a slow path, exhaustive ml detection: about .* Mbit/s a thread; up to about .* with 1 thread if they run to simulation.max_bits' "$tmp/slow.out"
check "... before the table" test "$(grep -n 'slow path' "$tmp/slow.out" | cut -d: -f1)" -lt "$(grep -n '^point' "$tmp/slow.out" | cut -d: -f1)"
check "2x2 zf and mmse: no slow path" bash -c '! grep -q "slow path" "$0"' "$tmp/both.out"

# ---- 15: the demo curve looks like a BER curve -------------------------------
"$OFDMSIM" configs/default.cfg -q --set simulation.max_bits=1 -o "$tmp/demo.csv" >/dev/null 2>&1
check "configs/default.cfg: 10 SNR points or more a curve" \
  test "$(csv_cols "$tmp/demo.csv" equalizer | grep -c '^zf$')" -ge 10

# ---- 18 and 24: --llr-out checked against the results and its folder --------
cat >"$tmp/llr.cfg" <<'CFG'
simulation = { backend = "cpu"; threads = 1; snr_db = [5.0]; max_bits = 1.0e4; target_errors = 20; };
ofdm = { subcarriers = 64; symbols = 2; };
receiver = { llr = "maxlog"; };
CFG
for name in r.csv r.json r.journal ./r.csv ../$(basename "$tmp")/r.json; do
  rm -f "$tmp"/r.*
  (cd "$tmp" && "$OFDMSIM" llr.cfg -q -o r.csv --llr-out "$name" >/dev/null 2>"$tmp/alias.err")
  check "fresh run, --llr-out $name aliasing -o r.csv: exit 2 (got $?)" test $? -eq 2
  check "... says which result it is" grep -q "^ofdmsim: error: --llr-out $name: that is the .* of -o" "$tmp/alias.err"
  check "... nothing written" test -z "$(ls "$tmp"/r.* 2>/dev/null)"
done
(cd "$tmp" && ln -s r.csv link.llr && "$OFDMSIM" llr.cfg -q -o r.csv --llr-out link.llr >/dev/null 2>"$tmp/alias.err")
check "--llr-out a link to the CSV to be: exit 2 (got $?)" test $? -eq 2
rm -f "$tmp/link.llr"
(cd "$tmp" && "$OFDMSIM" llr.cfg -q --llr-out llr.cfg --force >/dev/null 2>"$tmp/alias.err")
check "--llr-out the config itself: exit 2 (got $?)" test $? -eq 2
for where in "$tmp/nowhere/x.llr" /proc/ofdmsim-test.llr; do
  "$OFDMSIM" "$tmp/llr.cfg" -q -o "$tmp/w.csv" --llr-out "$where" >/dev/null 2>"$tmp/w.err"
  check "--llr-out $where (unwritable): exit 2 before the work (got $?)" test $? -eq 2
  check "... cannot write there" grep -q "^ofdmsim: error: --llr-out $where: cannot write there: " "$tmp/w.err"
  check "... no results written" test ! -e "$tmp/w.csv" -a ! -e "$tmp/w.journal"
done
"$OFDMSIM" "$tmp/llr.cfg" -q -o "$tmp/ok.csv" --llr-out "$tmp/ok.llr" >/dev/null 2>&1
check "a good --llr-out still writes its export" test -s "$tmp/ok.llr" -a -s "$tmp/ok.csv"

# ---- 25: the review's smaller findings ---------------------------------------
printf 'root:$6$SECRETHASH$xyz:19000:0:99999:7:::\n' >"$tmp/shadow"
printf '@include "%s"\n' "$tmp/shadow" >"$tmp/inc.cfg"
"$OFDMSIM" "$tmp/inc.cfg" -q >/dev/null 2>"$tmp/inc.err"
check "@include of a file that is no config: exit 2 (got $?)" test $? -eq 2
check "... names the file and line" grep -q "$tmp/shadow:1: syntax error" "$tmp/inc.err"
check "... without quoting it" bash -c '! grep -q SECRETHASH "$0"' "$tmp/inc.err"
for v in -1/2 0/2 3/2 1/0 -2/-1; do
  "$OFDMSIM" "$tmp/eq.cfg" -q --shard "$v" >/dev/null 2>"$tmp/sh.err"
  check "--shard $v: exit 2 (got $?)" test $? -eq 2
  check "... out of range (got: $(head -c 200 "$tmp/sh.err"))" grep -q "^ofdmsim: error: --shard $v: expected I/N with 1 <= I <= N <= 1048576, got .*: out of range" "$tmp/sh.err"
done
"$OFDMSIM" "$tmp/eq.cfg" -q --shard=-1/2 >/dev/null 2>"$tmp/sh.err"
check "--shard=-1/2: out of range" grep -q 'out of range' "$tmp/sh.err"
# threads beyond what a memory limit lets start: a message of ours, not libgomp's
# AddressSanitizer reserves terabytes of address space at start, so a
# sanitizer build cannot run under ulimit -v at all (and would log that as a
# report): the check is the normal build's.
limit=600000
if [ -z "${ASAN_OPTIONS:-}${UBSAN_OPTIONS:-}" ] &&
   (ulimit -v $limit && "$OFDMSIM" "$tmp/eq.cfg" -q --set simulation.threads=1 >/dev/null 2>&1); then
  (ulimit -v $limit && "$OFDMSIM" "$tmp/eq.cfg" -q -o "$tmp/t.csv" --set simulation.threads=1024 >/dev/null 2>"$tmp/t.err")
  rc=$?
  check "threads = 1024 under ulimit -v: exit 1 (got $rc)" test $rc -eq 1
  check "... names the key and the limit" grep -q '^ofdmsim: error: simulation.threads = 1024: only [0-9]* threads could start here (.*ulimit -v' "$tmp/t.err"
  check "... no bare libgomp message" bash -c '! grep -q libgomp "$0"' "$tmp/t.err"
  check "... nothing written" test ! -e "$tmp/t.csv" -a ! -e "$tmp/t.journal"
else
  echo "note: this build does not run under ulimit -v $limit (a sanitizer build): the threads check skipped"
fi

finish
