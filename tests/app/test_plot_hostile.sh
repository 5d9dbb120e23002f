#!/usr/bin/env bash
# ofdmsim plot against hostile or careless input (issue 23, items 17, 19 and
# the plot parts of 25):
#  - every string that reaches the gnuplot script (the picture's and the
#    script's names, the title, labels from CSV cells, column names, file
#    names) carrying line breaks, quotes, backquotes, a trailing backslash or
#    system(...) runs nothing and writes nothing else, neither in the plot run
#    nor when the saved script is replayed with a plain `gnuplot x.gp`;
#  - an output (the picture, its script) that is an input is refused, however
#    spelt (another path, a link, a hard link);
#  - SIGINT/SIGTERM while gnuplot draws end gnuplot and leave no temporary
#    file (exit 130/143);
#  - values gnuplot cannot draw (snr_db = 1e308) are refused, nothing written.
# Needs gnuplot and python3 (exit 77 without).
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
eq=$OFDMSIM_SOURCE_DIR/tests/app/data/plot_equalizers.csv
if ! command -v gnuplot >/dev/null || ! command -v python3 >/dev/null; then
  echo "gnuplot or python3 not found: skipped"
  exit 77
fi

# csv_set IN OUT COLUMN VALUE [ROWS]: IN with every column named COLUMN set to
# VALUE in the first ROWS rows (all by default), quoted as CSV quotes it.
csv_set() {
  python3 - "$@" <<'PY'
import csv, sys
src, dst, name, value = sys.argv[1:5]
rows = list(csv.reader(open(src, newline='')))
n = int(sys.argv[5]) if len(sys.argv) > 5 else len(rows) - 1
cols = [i for i, h in enumerate(rows[0]) if h == name]
for r in rows[1:1 + n]:
    for i in cols:
        r[i] = value
csv.writer(open(dst, 'w', newline=''), lineterminator='\n').writerows(rows)
PY
}
# csv_add IN OUT NAME V1 V2: IN with a column NAME appended, V1 in the first
# half of the rows, V2 in the rest.
csv_add() {
  python3 - "$@" <<'PY'
import csv, sys
src, dst, name, v1, v2 = sys.argv[1:6]
rows = list(csv.reader(open(src, newline='')))
rows[0].append(name)
for i, r in enumerate(rows[1:]):
    r.append(v1 if i < (len(rows) - 1) // 2 else v2)
csv.writer(open(dst, 'w', newline=''), lineterminator='\n').writerows(rows)
PY
}

# --- 17: injection. Each payload would create ./pwned, or write ./evil.png,
# if any part of it ran as gnuplot commands.
payloads=(
  $'x\nsystem("touch pwned")\n#'
  'x`touch pwned`'
  "x'; system('touch pwned'); print '"
  'x"; system("touch pwned"); print "'
  $'x\\\nsystem("touch pwned")'
  $'x\nset output "evil.png"\nplot 1\n#'
  'system("touch pwned")'
  $'x\r\x1b[2Jsystem("touch pwned")'
)
work=$tmp/h
# attack WHAT PICTURE ARGS...: plot in a fresh folder ($work) holding the
# inputs; checks that no command ran and that the run wrote the picture and
# its script, or (exit 2) nothing; then replays the script with gnuplot alone.
attack() {
  local what=$1 pic=$2
  shift 2
  (cd "$work" && ls -A) | sort >"$tmp/before"
  (cd "$work" && "$OFDMSIM" plot "$@" >"$tmp/out" 2>"$tmp/err")
  local rc=$?
  check "$what: exit 0 or 2 (got $rc: $(head -c 300 "$tmp/err"))" test "$rc" -eq 0 -o "$rc" -eq 2
  check "$what: no command ran" test ! -e "$work/pwned"
  check "$what: no other picture written" test ! -e "$work/evil.png"
  (cd "$work" && ls -A) | sort >"$tmp/after"
  local new
  new=$(comm -13 "$tmp/before" "$tmp/after" | tr '\n' '|')
  if [ "$rc" -eq 0 ]; then
    check "$what: exactly the picture and its script are new" \
      test "$new" = "$(printf '%s\n' "$pic" "${pic%.*}.gp" | sort | tr '\n' '|')"
    check "$what: the picture is a PNG" test "$(head -c 4 "$work/$pic" | tail -c 3)" = PNG
    rm -f "$work/$pic"
    (cd "$work" && gnuplot "${pic%.*}.gp" >/dev/null 2>&1)
    check "$what: replaying the script runs no command" test ! -e "$work/pwned"
    check "$what: replaying the script writes no other picture" test ! -e "$work/evil.png"
    check "$what: replaying the script draws the picture" test -s "$work/$pic"
    rm -f "$work/$pic" "$work/${pic%.*}.gp"
  else
    check "$what: refused, nothing new" test -z "$new"
  fi
  rm -f "$work/pwned" "$work/evil.png"
}

mkdir -p "$work"
cp "$eq" "$work/eq.csv"
for i in "${!payloads[@]}"; do
  p=${payloads[$i]}
  case $p in
  *[[:cntrl:]]*) # a control character in -o: refused, named escaped
    (cd "$work" && "$OFDMSIM" plot eq.csv -o "$p.png" >"$tmp/out" 2>"$tmp/err")
    check "payload $i in -o: exit 2" test $? -eq 2
    check "payload $i in -o: says why" grep -q "^ofdmsim plot: error: -o 'x.*': expected a file name without control characters" "$tmp/err"
    check "payload $i in -o: the message shows no raw control character" \
      test "$(tr -d '\n' <"$tmp/err" | tr -d '[:print:]' | wc -c)" -eq 0
    check "payload $i in -o: no command ran" test ! -e "$work/pwned"
    check "payload $i in -o: nothing written" test "$(ls -A "$work")" = eq.csv
    ;;
  *) attack "payload $i in -o" "$p.png" eq.csv -o "$p.png" ;;
  esac
  attack "payload $i in --title" t.png eq.csv -o t.png --title "$p"
  # CSV cells: the equalizer of the first three rows (the legend tells it),
  # the label, and a config-key column of the payload's name and values
  csv_set "$eq" "$work/cell.csv" equalizer "$p" 3
  attack "payload $i in a CSV cell (legend)" c.png cell.csv -o c.png
  csv_set "$eq" "$work/label.csv" label "$p"
  cut -d, -f1-29 "$eq" >"$work/old.csv"
  csv_set "$work/old.csv" "$work/oldlabel.csv" label "$p" 3
  attack "payload $i in an older CSV's label" l.png oldlabel.csv -o l.png
  csv_add "$eq" "$work/col.csv" "channel.$p" 1 "$p"
  attack "payload $i in a column name and a cell" k.png col.csv -o k.png
  csv_add "$eq" "$work/colx.csv" "channel.$p" 1 2
  attack "payload $i in the name of the --x column (the x axis)" x.png colx.csv -o x.png --x "channel.$p"
  csv_add "$eq" "$work/shared.csv" "channel.$p" "$p" "$p"
  attack "payload $i in a shared value (the title)" s.png shared.csv -o s.png
  rm -f "$work/cell.csv" "$work/label.csv" "$work/old.csv" "$work/oldlabel.csv" "$work/col.csv" "$work/colx.csv" "$work/shared.csv"
  # a file name: two copies of the same rows, so the legend names the files
  cp "$eq" "$work/$p.csv"
  attack "payload $i in a CSV's name" f.png eq.csv "$p.csv" -o f.png
  rm -f "$work/$p.csv"
done

# --- 19: an output that is an input, however spelt: exit 2, the input unchanged
mkdir -p "$tmp/io/sub"
cp "$eq" "$tmp/io/results.gp"
cp "$eq" "$tmp/io/data.png"
ln -s results.gp "$tmp/io/link.gp"
ln "$tmp/io/results.gp" "$tmp/io/hard.gp"
same_input() { # WHAT INPUT ARGS...
  local what=$1 input=$2
  shift 2
  cp "$input" "$tmp/io.before"
  (cd "$tmp/io" && "$OFDMSIM" plot "$@" >"$tmp/out" 2>"$tmp/err")
  local rc=$?
  check "$what: exit 2 (got $rc)" test "$rc" -eq 2
  check "$what: says which input" grep -q "^ofdmsim plot: error: -o .* is the input .*; expected outputs other than the inputs" "$tmp/err"
  check "$what: the input is unchanged" cmp -s "$tmp/io.before" "$input"
}
same_input "the script would replace the input (results.gp -o results.png)" "$tmp/io/results.gp" results.gp -o results.png
check "... and no picture is drawn" test ! -e "$tmp/io/results.png"
same_input "the picture is the input, spelt otherwise" "$tmp/io/data.png" sub/../data.png -o ./data.png
same_input "the picture is the input, as an absolute path" "$tmp/io/data.png" data.png -o "$tmp/io/data.png"
same_input "the script is a link to the input" "$tmp/io/results.gp" results.gp -o link.png
same_input "the script is a hard link of the input" "$tmp/io/results.gp" results.gp -o hard.png
same_input "one input of several" "$tmp/io/results.gp" data.png results.gp -o results.svg
(cd "$tmp/io" && "$OFDMSIM" plot results.gp -o sub/results.png >"$tmp/out" 2>"$tmp/err")
check "the same name in another folder is no input: drawn" test $? -eq 0 -a -s "$tmp/io/sub/results.png"

# --- 25: values gnuplot cannot draw are refused before anything is written
refused_value() { # WHAT MESSAGE-REGEX CSV
  local what=$1 msg=$2 csv=$3
  rm -f "$tmp/v.png" "$tmp/v.gp"
  "$OFDMSIM" plot "$csv" -o "$tmp/v.png" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  check "$what: exit 2 (got $rc)" test "$rc" -eq 2
  check "$what: says why" grep -qE "$msg" "$tmp/err"
  check "$what: no script" test ! -e "$tmp/v.gp"
  check "$what: no picture" test ! -e "$tmp/v.png"
}
csv_set "$eq" "$tmp/big.csv" snr_db 1e308 1
refused_value "snr_db 1e308" "big.csv:2: column snr_db: expected a number in \[-50, 100\] \(the range of simulation.snr_db\), got '1e308'" "$tmp/big.csv"
csv_set "$eq" "$tmp/neg.csv" snr_db -1e308 1
refused_value "snr_db -1e308" "neg.csv:2: column snr_db: expected a number in \[-50, 100\]" "$tmp/neg.csv"
csv_set "$eq" "$tmp/tiny.csv" ber 1e-320 1
refused_value "a BER of 1e-320" "tiny.csv:2: column ber: expected an error rate, 0 or in \[1e-300, 1\], got '1e-320'" "$tmp/tiny.csv"
csv_set "$eq" "$tmp/huge.csv" ci95_high 7 1
refused_value "an upper bound of 7" "huge.csv:2: column ci95_high: expected a probability in \[0, 1\]" "$tmp/huge.csv" # the readers' shared row check (results/results.c) speaks first
csv_set "$eq" "$tmp/th.csv" theory_ber 1e300 1
refused_value "a theory of 1e300" "th.csv:2: column theory_ber: expected a BER in \[0, 1\]" "$tmp/th.csv"

# --- 25: SIGINT/SIGTERM while gnuplot draws. The stand-in gnuplot notes its
# pid, sends the signal to its parent (ofdmsim) and sleeps; ofdmsim must end
# it, remove its temporary picture and exit 128 + the signal at once. The
# stand-in writes PIDFILE.done only if its sleep (ten minutes, far past any
# load's delay) runs out: ofdmsim ended it rather than waited for it exactly
# when that file is missing, read without a clock. The sleep's pid goes to
# PIDFILE.sleep, so that the test ends the sleep the killed shell leaves.
cat >"$tmp/signalling-gnuplot" <<'SH'
#!/bin/sh
echo $$ >"$PIDFILE"
sleep 600 &
echo $! >"$PIDFILE.sleep"
kill -"$SIG" "$PPID"
wait $!
echo "gnuplot ended by itself" >"$PIDFILE.done"
SH
chmod +x "$tmp/signalling-gnuplot"
for sig in INT TERM; do
  want=$((128 + $(kill -l "$sig")))
  mkdir -p "$tmp/sig$sig"
  echo "an old picture" >"$tmp/sig$sig/p.png"
  rm -f "$tmp/gnuplot.pid" "$tmp/gnuplot.pid.done" "$tmp/gnuplot.pid.sleep"
  PIDFILE=$tmp/gnuplot.pid SIG=$sig GNUPLOT=$tmp/signalling-gnuplot \
    "$OFDMSIM" plot "$eq" -o "$tmp/sig$sig/p.png" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  check "SIG$sig while gnuplot draws: exit $want (got $rc)" test "$rc" -eq "$want"
  check "SIG$sig: ofdmsim ends gnuplot, rather than waiting until it ends by itself" test ! -e "$tmp/gnuplot.pid.done"
  sleep_pid=$(cat "$tmp/gnuplot.pid.sleep" 2>/dev/null)
  [ -n "$sleep_pid" ] && kill "$sleep_pid" 2>/dev/null
  gp_pid=$(cat "$tmp/gnuplot.pid" 2>/dev/null)
  check "SIG$sig: gnuplot started" test -n "$gp_pid"
  if [ -n "$gp_pid" ] && kill -0 "$gp_pid" 2>/dev/null; then
    bad "SIG$sig: gnuplot was left running (pid $gp_pid)"
    kill "$gp_pid" 2>/dev/null
  else
    ok
  fi
  check "SIG$sig: no temporary file left" test -z "$(ls -A "$tmp/sig$sig" | grep '\.tmp')"
  check "SIG$sig: the old picture is kept" test "$(cat "$tmp/sig$sig/p.png")" = "an old picture"
  check "SIG$sig: says so" grep -q "^ofdmsim plot: stopped by SIG$sig: gnuplot ended, no picture drawn; the script is in $tmp/sig$sig/p.gp" "$tmp/err"
done

finish
