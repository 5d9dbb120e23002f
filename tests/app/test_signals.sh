#!/usr/bin/env bash
# SIGINT and SIGTERM: honoured between any two batches and between points
# (even when every point ends inside its first batch), the results saved, the
# exit status 130 / 143; a second signal stops at once. The signals follow
# the runs' journals, never the clock.
source "$OFDMSIM_SOURCE_DIR/tests/support/harness.sh"

# 20000 one-frame points (several seconds in all): each ends within its first
# batch. On the CPU: a GPU would spend most of it setting up 20000 backends.
# Under the sanitizers (OFDMSIM_TEST_SCALE) fewer, each still one frame.
qpoints=$(scaled 20000 2000)
cat > "$tmp/quick.cfg" <<CFG
simulation = { snr_db = { from = 0.0; to = $(awk -v n="$qpoints" 'BEGIN { printf "%.6g", 100 - 100 / n }');
                          step = $(awk -v n="$qpoints" 'BEGIN { printf "%.6g", 100 / n }'); };
               max_bits = 1.0; backend = "cpu"; threads = 1; };
ofdm = { subcarriers = 512; symbols = 14; };
CFG
# One long point.
cat > "$tmp/long.cfg" <<'CFG'
simulation = { snr_db = 30.0; max_bits = 1.0e12; target_errors = 1000000000; };
ofdm = { subcarriers = 64; symbols = 2; };
CFG

# chunks FILE: the chunk records a journal holds (0 before it exists).
chunks() { if [ -e "$1" ]; then grep -c '^chunk ' "$1"; else echo 0; fi; }

# stopped SIG CFG NAME CODE: runs CFG with -o; once its journal holds three
# chunk records more than at its first save, pauses it (SIGSTOP), sends SIG
# and lets it go on (SIGCONT), so that the signal lands mid-run however fast
# or loaded the machine: no clock in it. The run must end with CODE (128 +
# the signal) before its sweep is done, having saved the points done.
stopped() {
  local sig=$1 cfg=$2 name=$3 code=$4 total=$5
  "$OFDMSIM" "$cfg" -q -o "$tmp/$name.csv" >/dev/null 2>"$tmp/$name.err" &
  local pid=$! want
  # once the run has saved something, however long its start takes
  while kill -0 "$pid" 2>/dev/null && [ ! -s "$tmp/$name.csv" ]; do sleep 0.01; done
  want=$(($(chunks "$tmp/$name.journal") + 3))
  while kill -0 "$pid" 2>/dev/null && [ "$(chunks "$tmp/$name.journal")" -lt "$want" ]; do sleep 0.01; done
  if ! kill -STOP "$pid" 2>/dev/null; then
    bad "$name: the run ended before the signal (its sweep is too short for this test)"
    wait "$pid"
    return
  fi
  kill -"$sig" "$pid"
  kill -CONT "$pid"
  wait "$pid"
  check "$name: SIG$sig exits $code" test $? -eq "$code"
  check "$name: says it was interrupted" grep -q "interrupted (SIG$sig)" "$tmp/$name.err"
  check "$name: the CSV holds the saved points" test "$(wc -l < "$tmp/$name.csv")" -ge 2
  # (a sweep of one point: that point saved as interrupted, checked below)
  [ "$total" -gt 1 ] && check "$name: ... and not all $total of the sweep's points" \
    test "$(wc -l < "$tmp/$name.csv")" -le "$total"
}
stopped INT "$tmp/quick.cfg" quick-int 130 "$qpoints"
stopped TERM "$tmp/quick.cfg" quick-term 143 "$qpoints"
stopped INT "$tmp/long.cfg" long-int 130 1
stopped TERM "$tmp/long.cfg" long-term 143 1
check "the long point is saved as interrupted, partial" grep -q ',interrupted,' "$tmp/long-int.csv"

# Both complete with --resume.
"$OFDMSIM" "$tmp/quick.cfg" -q -o "$tmp/quick-int.csv" --resume >/dev/null 2>&1
check "the interrupted quick sweep resumes to its $qpoints points" \
  test "$(wc -l < "$tmp/quick-int.csv")" -eq $((qpoints + 1))

# A second signal stops at once (the default action: killed by SIGINT),
# sent once the run is under way (its journal holds a record).
"$OFDMSIM" "$tmp/long.cfg" -q -o "$tmp/twice.csv" >/dev/null 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null && [ "$(chunks "$tmp/twice.journal")" -lt 1 ]; do sleep 0.01; done
kill -INT "$pid"
kill -INT "$pid"
wait "$pid"
rc=$?
check "a second SIGINT ends the run at once (exit $rc)" test "$rc" -eq 130

[ "$fail" -eq 0 ] || for f in "$tmp"/*.err; do echo "--- $f:"; tail -n 5 "$f"; done
finish
