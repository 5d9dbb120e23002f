#!/usr/bin/env bash
# SIGINT and SIGTERM: honoured between any two batches and between points
# (even when every point ends inside its first batch), the results saved, the
# exit status 130 / 143; a second signal stops at once.
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

# stopped SIG CFG NAME CODE: runs CFG with -o, sends SIG half a second after
# the first save, and checks it ends within 5 s with CODE (128 + the signal),
# having saved the points done.
stopped() {
  local sig=$1 cfg=$2 name=$3 code=$4
  "$OFDMSIM" "$cfg" -q -o "$tmp/$name.csv" >/dev/null 2>"$tmp/$name.err" &
  local pid=$! i
  # once the run has saved something (a slow start, e.g. a sanitizer
  # build's, must not turn this into a test of start-up)
  for i in $(seq 1 300); do [ -s "$tmp/$name.csv" ] && break; sleep 0.1; done
  sleep 0.5
  kill -"$sig" "$pid"
  local waited=0
  while kill -0 "$pid" 2>/dev/null && [ $waited -lt 50 ]; do sleep 0.1; waited=$((waited + 1)); done
  if kill -0 "$pid" 2>/dev/null; then
    bad "$name: SIG$sig was ignored for 5 s"
    kill -9 "$pid"
    wait "$pid" 2>/dev/null
    return
  fi
  wait "$pid"
  check "$name: SIG$sig exits $code" test $? -eq "$code"
  check "$name: says it was interrupted" grep -q "interrupted (SIG$sig)" "$tmp/$name.err"
  check "$name: the CSV holds the saved points" test "$(wc -l < "$tmp/$name.csv")" -ge 2
}
stopped INT "$tmp/quick.cfg" quick-int 130
stopped TERM "$tmp/quick.cfg" quick-term 143
stopped INT "$tmp/long.cfg" long-int 130
stopped TERM "$tmp/long.cfg" long-term 143
check "the long point is saved as interrupted, partial" grep -q ',interrupted,' "$tmp/long-int.csv"

# Both complete with --resume.
"$OFDMSIM" "$tmp/quick.cfg" -q -o "$tmp/quick-int.csv" --resume >/dev/null 2>&1
check "the interrupted quick sweep resumes to its $qpoints points" \
  test "$(wc -l < "$tmp/quick-int.csv")" -eq $((qpoints + 1))

# A second signal stops at once (the default action: killed by SIGINT).
"$OFDMSIM" "$tmp/long.cfg" -q >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT "$pid"
kill -INT "$pid"
wait "$pid"
rc=$?
check "a second SIGINT ends the run at once (exit $rc)" test "$rc" -eq 130

[ "$fail" -eq 0 ] || for f in "$tmp"/*.err; do echo "--- $f:"; tail -n 5 "$f"; done
finish
