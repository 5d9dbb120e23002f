#!/usr/bin/env bash
# The outputs of -o and stdout: never the config itself, every path checked
# before any work, long names kept whole, a failing stdout is an error, and
# rewriting the CSV stays linear in the number of points.
source "$OFDMSIM_SOURCE_DIR/tests/support/harness.sh"

cat > "$tmp/x.cfg" <<'CFG'
simulation = { snr_db = [0.0, 10.0]; max_bits = 1.0e4; target_errors = 10; };
ofdm = { subcarriers = 64; symbols = 2; };
CFG
cp "$tmp/x.cfg" "$tmp/x0.cfg"

# -o naming the config (directly, through ./, or by its sidecar) is refused
# even with --force, and the config is left as it was.
for out in "$tmp/x.cfg" "$tmp/./x.cfg"; do
  "$OFDMSIM" "$tmp/x.cfg" -q -o "$out" --force >/dev/null 2>"$tmp/err"
  check "-o $out (the config) exits 2" test $? -eq 2
  check "... saying it is the config" grep -q 'is the config file itself' "$tmp/err"
  check "... the config untouched" cmp -s "$tmp/x.cfg" "$tmp/x0.cfg"
done
cp "$tmp/x.cfg" "$tmp/run.json"
"$OFDMSIM" "$tmp/run.json" -q -o "$tmp/run.csv" --force >/dev/null 2>"$tmp/err"
check "a config that is the sidecar of -o exits 2" test $? -eq 2
check "... naming the sidecar" grep -q 'its JSON sidecar .*run.json is the config file itself' "$tmp/err"
check "... the config untouched and no CSV" test -z "$(cmp "$tmp/run.json" "$tmp/x.cfg")" -a ! -e "$tmp/run.csv"

# A sidecar that cannot be written is found before any work: exit 2, no CSV.
mkdir "$tmp/d.json"
"$OFDMSIM" "$tmp/x.cfg" -q -o "$tmp/d.csv" >/dev/null 2>"$tmp/err"
check "a directory in the sidecar's place exits 2" test $? -eq 2
check "... naming the sidecar" grep -q 'its JSON sidecar .*d.json is a directory' "$tmp/err"
check "... before any work: no CSV" test ! -e "$tmp/d.csv"

# A symbolic link in the place of an output is refused (it could point anywhere).
ln -s "$tmp/x0.cfg" "$tmp/l.csv"
"$OFDMSIM" "$tmp/x.cfg" -q -o "$tmp/l.csv" --force >/dev/null 2>"$tmp/err"
check "a symbolic link as -o exits 2" test $? -eq 2
check "... the link's target untouched" cmp -s "$tmp/x0.cfg" "$tmp/x.cfg"

# Long paths (over 2047 bytes) are kept whole: the sidecar lands beside the CSV.
long="$tmp"
for i in $(seq 1 11); do long="$long/$(printf 'd%.0s' $(seq 1 200))"; done
mkdir -p "$long"
"$OFDMSIM" "$tmp/x.cfg" -q -o "$long/r.csv" >/dev/null 2>"$tmp/err"
check "a ${#long}-byte folder: the run succeeds" test $? -eq 0
check "... with the CSV and the sidecar in it" test -s "$long/r.csv" -a -s "$long/r.json"
check "... and nothing beside" test -z "$(ls "$tmp" | grep -v -E '^(x|x0)\.cfg$|^run\.json$|^d\.json$|^l\.csv$|^err$|^d{200}$')"

# What a run killed with -9 may leave beside its results (a temporary CSV or
# sidecar, or the folder probe where the file system has no unnamed files)
# is removed by the next run on them.
"$OFDMSIM" "$tmp/x.cfg" -q -o "$tmp/k.csv" >/dev/null 2>"$tmp/err"
touch "$tmp/k.csv.tmpAbC123" "$tmp/k.json.tmpAbC123" "$tmp/k.csv.probeAbC123" "$tmp/k.csvkeep.tmpAbC123"
"$OFDMSIM" "$tmp/x.cfg" -q -o "$tmp/k.csv" --resume >/dev/null 2>"$tmp/err"
check "a run's leftover temporary files: removed by the next run" \
  test "$(ls "$tmp" | grep -E '^k\.' | tr '\n' ' ')" = "k.csv k.csvkeep.tmpAbC123 k.journal k.json "
rm -f "$tmp"/k.*

# A path with control characters is quoted escaped: one line, no terminal codes.
"$OFDMSIM" "$tmp/x.cfg" -q -o "$tmp/no"$'\e[31m\n'"where/r.csv" >/dev/null 2>"$tmp/err"
check "an -o path with ESC and newline: exit 2" test $? -eq 2
check "... the message on one line, escaped" test "$(wc -l < "$tmp/err")" -eq 1 -a -n "$(grep -F 'no\x1b[31m\nwhere' "$tmp/err")"

# stdout that cannot be written (a full disk) is an error.
if [ -w /dev/full ]; then
  "$OFDMSIM" "$tmp/x.cfg" -q > /dev/full 2>"$tmp/err"
  check "stdout on a full disk exits 1" test $? -eq 1
  check "... saying so" grep -q 'cannot write the results to standard output' "$tmp/err"
fi

# Rewriting the results after every point used to make a sweep of many quick
# points quadratic with -o (2000 points: 120 s against 9 s without). With the
# journal holding every chunk, the results are rewritten at least a second
# apart (and 20 times their own cost apart): the sidecar's `saves` is at most
# the run's whole seconds plus the first and the last save, on any machine.
cat > "$tmp/many.cfg" <<'CFG'
simulation = { snr_db = { from = 0.0; to = 99.95; step = 0.05; }; max_bits = 1.0; backend = "cpu"; threads = 1; };
ofdm = { subcarriers = 1; symbols = 1; };
CFG
"$OFDMSIM" "$tmp/many.cfg" -q -o "$tmp/many.csv" >/dev/null 2>&1
check "2000 points: all saved" test "$(wc -l < "$tmp/many.csv")" -eq 2001
json_field() { sed -n 's/^ *"'"$1"'": "\{0,1\}\([^",]*\)"\{0,1\},\{0,1\}$/\1/p' "$2" | head -1; }
saves=$(json_field saves "$tmp/many.json")
took=$(( $(date -d "$(json_field written "$tmp/many.json")" +%s) - $(date -d "$(json_field started "$tmp/many.json")" +%s) ))
check "2000 points: $saves saves in $took s, not one a point (at most $((took + 3)))" \
  test -n "$saves" -a "${saves:-9999}" -le $((took + 3))
finish
