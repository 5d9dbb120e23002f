#!/usr/bin/env bash
# One writer per output, whatever is done to the files mid-run: a second run
# on the same -o is refused (exit 2, nothing written) while the first runs,
# also after the journal was deleted or moved away (its lock went with it,
# once), since the lock is a file of its own held open (X.lock); the first
# run still writes its results, and removes its lock file at the end.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1

cfg=(configs/default.cfg --set simulation.backend=cpu --set 'simulation.snr_db=[0.0]'
  --set simulation.threads=1 --set simulation.target_errors=1000000000)
# the first run: long enough to be running while the second tries
"$OFDMSIM" "${cfg[@]}" --set simulation.max_bits=1e12 -q -o "$tmp/r.csv" >"$tmp/first.out" 2>&1 &
pid=$!
# its journal, however long the start takes (it takes the lock before)
while kill -0 "$pid" 2>/dev/null && [ ! -s "$tmp/r.journal" ]; do sleep 0.1; done
check "the first run has its journal" test -s "$tmp/r.journal"
check "... and its lock file" test -e "$tmp/r.lock"

second() {
  "$OFDMSIM" "${cfg[@]}" --set simulation.max_bits=1e5 -q -o "$tmp/r.csv" "$@" >"$tmp/second.out" 2>&1
}
second --force
rc=$?
check "a second run (--force) is refused: exit 2 (got $rc)" test $rc -eq 2
check "... saying why" grep -q 'another ofdmsim is writing to this journal' "$tmp/second.out"
rm -f "$tmp/r.journal"
second --force
rc=$?
check "journal deleted mid-run: a second run is still refused (got $rc: $(tail -1 "$tmp/second.out"))" test $rc -eq 2
# the first run's CSV (it saves as it goes) has its max_bits, never the second's
not_second() { ! { [ -e "$tmp/r.csv" ] && csv_cols "$tmp/r.csv" simulation.max_bits | grep -qx '100000.0'; }; }
check "... and does not write the CSV" not_second
check "... nor a journal" test ! -e "$tmp/r.journal"
second
rc=$?
check "journal deleted mid-run: a second run without --force is refused too (got $rc)" test $rc -eq 2
# moved away: the same
touch "$tmp/r.journal" && mv "$tmp/r.journal" "$tmp/moved.journal"
second --force
rc=$?
check "journal moved away mid-run: a second run is refused (got $rc)" test $rc -eq 2
check "... and does not write the CSV" not_second

kill -TERM "$pid" 2>/dev/null
wait "$pid"
rc=$?
check "the first run ends on SIGTERM (exit $rc) with its results" test -s "$tmp/r.csv"
check "... and removes its lock file" test ! -e "$tmp/r.lock"
# a lock left by a killed run (kill -9) does not block: flock died with it
"$OFDMSIM" "${cfg[@]}" --set simulation.max_bits=1e12 -q -o "$tmp/k.csv" >/dev/null 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null && [ ! -s "$tmp/k.journal" ]; do sleep 0.1; done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
check "a killed run leaves its lock file" test -e "$tmp/k.lock"
"$OFDMSIM" "${cfg[@]}" --set simulation.max_bits=1e5 -q -o "$tmp/k.csv" --resume >"$tmp/resume.out" 2>&1
rc=$?
check "... which a resumed run takes over (exit $rc: $(tail -1 "$tmp/resume.out"))" test $rc -eq 0
check "... and removes at its end" test ! -e "$tmp/k.lock"
finish
