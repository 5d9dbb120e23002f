#!/usr/bin/env bash
# ofdmsim plot: BER curves drawn by gnuplot from result CSVs. Bad input is
# refused (exit 2) before anything is written; a missing gnuplot is exit 1
# with the script left for later; and a drawn PNG is decoded (python3's zlib)
# to check that every curve of the script is on it in its own colour.
#
# The data are real runs (rerun after a change to the CSV columns):
#   plot_equalizers.csv: ofdmsim configs/default.cfg -q -o X --set simulation.max_bits=3e5
#     (2x2 QPSK Rayleigh, ZF with its exact theory next to MMSE without one)
#   plot_awgn.csv: the AWGN config below, QPSK and 16-QAM with their theory,
#     points without a bit error and a point skipped by stop_below_ber
#   plot_gmi.csv: the GMI config below (ZF and MMSE with max-log LLRs: a gmi column)
#   plot_rx.csv: the RX config below (mimo.rx swept over 2, 3, 4 at two SNRs, for --x)
# Without gnuplot or python3 the parts that need them are skipped (exit 77
# when all else passed); scripts/setup.sh installs gnuplot-nox, so CI runs all.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
data=$OFDMSIM_SOURCE_DIR/tests/app/data
eq=$data/plot_equalizers.csv
awgn=$data/plot_awgn.csv
gmi=$data/plot_gmi.csv
rxs=$data/plot_rx.csv
: <<'GMI_CFG'
simulation = { seed = 3; snr_db = [0.0, 4.0, 8.0, 12.0]; target_errors = 300; max_bits = 2.0e5; threads = 1; };
mimo = { tx = 2; rx = 2; }; modulation = "qpsk"; equalizer = "mmse";
channel = { model = "rayleigh"; }; ofdm = { subcarriers = 256; symbols = 14; };
receiver = { llr = "maxlog"; };
sweep = ( { key = "equalizer"; values = ["zf", "mmse"]; } );
GMI_CFG
: <<'RX_CFG'
simulation = { seed = 3; snr_db = [0.0, 6.0]; target_errors = 300; max_bits = 2.0e5; threads = 1; };
mimo = { tx = 2; rx = 2; }; modulation = "qpsk"; equalizer = "zf";
channel = { model = "rayleigh"; }; ofdm = { subcarriers = 256; symbols = 14; };
sweep = ( { key = "mimo.rx"; values = [2, 3, 4]; } );
RX_CFG
: <<'AWGN_CFG'
simulation = { seed = 3; snr_db = { from = 0.0; to = 14.0; step = 2.0; }; target_errors = 500;
               max_bits = 3.0e5; stop_below_ber = 1.0e-6; threads = 2; };
mimo = { tx = 2; rx = 2; }; modulation = "qpsk"; equalizer = "zf";
channel = { model = "awgn"; }; ofdm = { subcarriers = 256; symbols = 14; };
sweep = ( { key = "modulation"; values = ["qpsk", "16qam"]; } );
AWGN_CFG

plot() { "$OFDMSIM" plot "$@" >"$tmp/out" 2>"$tmp/err"; }
# The legends of a script's curves, in order, joined by ';'.
legends() { grep -v '^set ' "$1" | grep -o "title '[^']*' noenhanced" | sed "s/^title '//; s/' noenhanced\$//" | paste -sd';'; }
# The data rows of block NAME ($c1, $c1_theory, ...) of a script.
block_rows() { sed -n "/^\\\$$2 << EOD/,/^EOD/p" "$1" | grep -c '^[0-9-]'; }
# The value of column NAME in every row of a CSV (labels here hold no comma).
column() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
# A copy of a CSV with column NAME set to VALUE in every row (every column of that name).
set_column() {
  awk -F, -v OFS=, -v name="$2" -v value="$3" \
    'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c[i] = 1; print; next }
     { for (i in c) $i = value; print }' "$1"
}

check "the data files are there" test -s "$eq" -a -s "$awgn"
check "plot_equalizers.csv: 6 rows, ZF with theory, MMSE without" \
  test "$(column "$eq" equalizer | sort | uniq -c | tr -s ' ' | tr '\n' ';')" = " 3 mmse; 3 zf;" \
  -a "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "theory_ber") c = i; next } $c != ""' "$eq" | wc -l)" -eq 3
check "plot_awgn.csv: a skipped row and two rows without error" \
  test "$(column "$awgn" bits | grep -c '^0$')" -eq 1 -a "$(column "$awgn" bit_errors | grep -c '^0$')" -eq 3

# --- what needs no gnuplot: help, usage and input errors (exit 2, nothing written)
plot --help
check "--help exits 0" test $? -eq 0
check "--help shows the usage" grep -q 'usage: ofdmsim plot RESULTS.csv' "$tmp/out"
check "--help says an existing picture is replaced" grep -q 'existing picture is replaced' "$tmp/out"
check "ofdmsim --help lists plot" bash -c '"$0" --help | grep -q "ofdmsim plot "' "$OFDMSIM"

# refused: exit 2, the message, and no picture and no script beside it
refused() { # WHAT EXPECTED-MESSAGE-REGEX PICTURE ARGS...
  local what=$1 msg=$2 pic=$3
  shift 3
  rm -f "$pic" "${pic%.*}.gp"
  plot "$@"
  local rc=$?
  check "$what: exit 2 (got $rc)" test "$rc" -eq 2
  check "$what: says why" grep -qE -e "$msg" "$tmp/err"
  check "$what: message is one 'ofdmsim plot: error:' line" grep -q '^ofdmsim plot: error: ' "$tmp/err"
  check "$what: no picture" test ! -e "$pic"
  check "$what: no script" test ! -e "${pic%.*}.gp"
  check "$what: nothing on stdout" test ! -s "$tmp/out"
}
refused "no -o" 'no -o' "$tmp/x.png" "$eq"
refused "no CSV" 'expected a results CSV' "$tmp/x.png" -o "$tmp/x.png"
refused "unknown extension" "got '\.jpg'" "$tmp/x.jpg" "$eq" -o "$tmp/x.jpg"
refused "no extension" 'ending in \.png, \.svg or \.pdf' "$tmp/x" "$eq" -o "$tmp/x"
refused "bad --size" 'WIDTHxHEIGHT' "$tmp/x.png" "$eq" -o "$tmp/x.png" --size 900
refused "unknown option" "unknown option '--sise'" "$tmp/x.png" "$eq" -o "$tmp/x.png" --sise 900x600
refused "missing CSV" "$tmp/none.csv: cannot read" "$tmp/x.png" "$tmp/none.csv" -o "$tmp/x.png"
refused "a good CSV then a missing one" "$tmp/none.csv: cannot read" "$tmp/x.png" "$eq" "$tmp/none.csv" -o "$tmp/x.png"
{ head -3 "$eq"; head -4 "$eq" | tail -1 | cut -d, -f1-10; } >"$tmp/short.csv"
refused "a row with too few fields" "$tmp/short.csv:4: expected [0-9]+ fields" "$tmp/x.png" "$tmp/short.csv" -o "$tmp/x.png"
printf 'a,b,c\n1,2,3\n' >"$tmp/foreign.csv"
refused "not a results CSV" "$tmp/foreign.csv:1: expected an ofdmsim results header" "$tmp/x.png" "$tmp/foreign.csv" -o "$tmp/x.png"
set_column "$eq" ber oops >"$tmp/nan.csv"
refused "a BER that is no number" "$tmp/nan.csv:2: column ber: expected a finite number, got 'oops'" "$tmp/x.png" "$tmp/nan.csv" -o "$tmp/x.png"
# skipped as a run writes it: no bits, errors, frames or sum of squares (the
# row check every reader applies refuses more errors than bits)
set_column "$eq" bits 0 | set_column /dev/stdin bit_errors 0 | set_column /dev/stdin frames 0 |
  set_column /dev/stdin frame_errors_sq 0 >"$tmp/skipped.csv"
refused "only skipped rows" "$tmp/skipped.csv:2: expected a row to plot \(bits > 0\), got 6 rows, all skipped" "$tmp/x.png" "$tmp/skipped.csv" -o "$tmp/x.png"
head -1 "$eq" >"$tmp/header.csv"
refused "a header without rows" "$tmp/header.csv:2: expected a row to plot" "$tmp/x.png" "$tmp/header.csv" -o "$tmp/x.png"
refused "one good CSV and one without plottable rows" "$tmp/skipped.csv" "$tmp/x.png" "$eq" "$tmp/skipped.csv" -o "$tmp/x.png"
# a refused run leaves an existing picture as it was
echo "an old picture" >"$tmp/old.png"
plot "$tmp/skipped.csv" -o "$tmp/old.png"
check "a refused run leaves the existing picture alone" test "$(cat "$tmp/old.png")" = "an old picture"
check "... and writes no script" test ! -e "$tmp/old.gp"

# --- gnuplot missing: exit 1, the message, the script written, no picture
mkdir -p "$tmp/empty"
rm -f "$tmp/nognu.png" "$tmp/nognu.gp"
GNUPLOT=/nonexistent/gnuplot "$OFDMSIM" plot "$eq" -o "$tmp/nognu.png" >"$tmp/out" 2>"$tmp/err"
check "GNUPLOT not executable: exit 1" test $? -eq 1
check "GNUPLOT not executable: the message" \
  grep -q "^ofdmsim plot: error: gnuplot not found (.*install the Debian package gnuplot-nox; scripts/setup.sh does); the script is in $tmp/nognu.gp\$" "$tmp/err"
check "GNUPLOT not executable: the script is written" grep -q '^plot \$c1 ' "$tmp/nognu.gp"
check "GNUPLOT not executable: no picture" test ! -e "$tmp/nognu.png"
rm -f "$tmp/nognu.gp"
env -u GNUPLOT PATH="$tmp/empty" "$OFDMSIM" plot "$eq" -o "$tmp/nognu.png" >"$tmp/out" 2>"$tmp/err"
check "no gnuplot on PATH: exit 1" test $? -eq 1
check "no gnuplot on PATH: the message" \
  grep -qx "ofdmsim plot: error: gnuplot not found (install the Debian package gnuplot-nox; scripts/setup.sh does); the script is in $tmp/nognu.gp" "$tmp/err"
check "no gnuplot on PATH: no picture" test ! -e "$tmp/nognu.png"
# a gnuplot that fails: exit 1 with its words, the old picture kept
printf '#!/bin/sh\necho "gnuplot says no" >&2\nexit 3\n' >"$tmp/badgnuplot"
chmod +x "$tmp/badgnuplot"
echo "an old picture" >"$tmp/old.png"
GNUPLOT=$tmp/badgnuplot "$OFDMSIM" plot "$eq" -o "$tmp/old.png" >"$tmp/out" 2>"$tmp/err"
check "a failing gnuplot: exit 1" test $? -eq 1
check "a failing gnuplot: its status and words are shown" \
  bash -c "grep -q 'failed (exit status 3)' '$tmp/err' && grep -q 'gnuplot says no' '$tmp/err'"
check "a failing gnuplot: the old picture is kept" test "$(cat "$tmp/old.png")" = "an old picture"
check "a failing gnuplot: no temporary file left" test -z "$(ls "$tmp" | grep '\.tmp\.')"
# a gnuplot that succeeds without drawing: exit 1
printf '#!/bin/sh\nexit 0\n' >"$tmp/lazygnuplot"
chmod +x "$tmp/lazygnuplot"
GNUPLOT=$tmp/lazygnuplot "$OFDMSIM" plot "$eq" -o "$tmp/lazy.png" >"$tmp/out" 2>"$tmp/err"
check "a gnuplot that draws nothing: exit 1" test $? -eq 1
check "a gnuplot that draws nothing: said" grep -q 'drew nothing' "$tmp/err"
check "a gnuplot that draws nothing: no picture" test ! -e "$tmp/lazy.png"

# --- the script: curves, legends, blocks (written even without gnuplot)
gp() { GNUPLOT=/nonexistent "$OFDMSIM" plot "$@" >/dev/null 2>&1; }
gp "$eq" -o "$tmp/s.png"
check "one curve per equalizer, named by the key that differs, in words" \
  test "$(legends "$tmp/s.gp")" = "ZF;MMSE"
check "the raw keys of each curve stay in a comment" \
  test "$(grep '^# keys: ' "$tmp/s.gp" | paste -sd';')" = "# keys: 'equalizer=zf';# keys: 'equalizer=mmse'"
check "the title: what the curves share" grep -qx "set title '2x2 MIMO QPSK, Rayleigh' noenhanced" "$tmp/s.gp"
set_column "$eq" receiver.llr maxlog >"$tmp/maxlog.csv"
gp "$tmp/maxlog.csv" -o "$tmp/maxlog.png"
check "the title: a shared key away from its default is named" \
  grep -qx "set title '2x2 MIMO QPSK, Rayleigh, max-log LLRs' noenhanced" "$tmp/maxlog.gp"
check "the x axis: Eb/N0 per stream" grep -qx "set xlabel 'Eb/N0 per stream (dB)' noenhanced" "$tmp/s.gp"
check "a log y axis" grep -qx 'set logscale y' "$tmp/s.gp"
check "pngcairo where gnuplot has it" grep -q 'set terminal pngcairo size 900,600' "$tmp/s.gp"
check "png otherwise, at 900x600" grep -q 'set terminal png size 900,600' "$tmp/s.gp"
check "the data inline: the ZF block holds the CSV's 3 rows" test "$(block_rows "$tmp/s.gp" c1)" -eq 3
check "the data inline: the MMSE block holds the CSV's 3 rows" test "$(block_rows "$tmp/s.gp" c2)" -eq 3
check "ZF's theory in its own block" test "$(block_rows "$tmp/s.gp" c1_theory)" -eq 3
check "ZF's theory: thin (lw 1 under the curves' 2), solid, ZF's colour lightened" \
  grep -q "\$c1_theory using 1:2 with lines dt 1 lw 1 lc rgb '#84b4d6' notitle" "$tmp/s.gp"
check "the theory is drawn after every measured curve (on top)" \
  test "$(grep -n "^ *\$c[0-9]* using\|_theory using" "$tmp/s.gp" | tail -1 | grep -c _theory)" -eq 1
check "ZF's points in ZF's colour" grep -q "\$c1 using .*lc rgb '#1f77b4'" "$tmp/s.gp"
check "no theory block for MMSE (the CSV has none)" test "$(block_rows "$tmp/s.gp" c2_theory)" -eq 0
check "the error bars are the CSV's interval" \
  grep -qx "0 $(awk -F, 'NR == 2 { print $13, $14, $15 }' "$eq")" "$tmp/s.gp"
gp "$eq" -o "$tmp/t.png" --title "my 'title'" --size 640x480
check "--title, quoted for gnuplot" grep -qx "set title 'my ''title''' noenhanced" "$tmp/t.gp"
check "--size" grep -q 'set terminal pngcairo size 640,480' "$tmp/t.gp"
gp "$eq" -o "$tmp/t.pdf"
check "pdf: pdfcairo at 6x4 inches" grep -q 'set terminal pdfcairo size 6in,4in' "$tmp/t.gp"
check "pdf: a clear error without pdfcairo" grep -q "print 'ofdmsim plot: error: this gnuplot has no pdfcairo" "$tmp/t.gp"
gp "$eq" -o "$tmp/t.svg"
check "svg terminal" grep -q 'set terminal svg size 900,600' "$tmp/t.gp"

gp "$awgn" -o "$tmp/z.png"
check "awgn: curves by modulation, in words" \
  test "$(legends "$tmp/z.gp")" = "QPSK;16-QAM"
check "awgn: the skipped row (qpsk, 14 dB) is left out" \
  test "$(sed -n '/^\$c1/,/^EOD/p' "$tmp/z.gp" | grep -c '^14 ')" -eq 0
check "awgn: qpsk at 12 dB, without error, drawn at its upper bound" \
  grep -qx "12 $(awk -F, 'NR > 1 && $4 == "qpsk" && $9 == 12 { print $15 }' "$awgn")" "$tmp/z.gp"
check "awgn: upper bounds as down-pointing triangles in the curve's colour" \
  grep -q "\$c2_zero using 1:2 with points pt 11 .*lc rgb '#d62728' notitle" "$tmp/z.gp"
check "awgn: the key says what a triangle is" grep -q "title 'no error: 95% upper bound'" "$tmp/z.gp"
check "awgn: the key says what the thin lines are" grep -q "title 'closed-form theory'" "$tmp/z.gp"
check "awgn: the title" grep -qx "set title '2x2 MIMO ZF, AWGN' noenhanced" "$tmp/z.gp"

# several files: where rows would share a curve, the file tells them apart
cp "$eq" "$tmp/a.csv"
cp "$eq" "$tmp/b.csv"
gp "$tmp/a.csv" "$tmp/b.csv" -o "$tmp/two.png"
check "two files of the same points: four curves named by file" \
  test "$(legends "$tmp/two.gp")" = \
  "a.csv: ZF;a.csv: MMSE;b.csv: ZF;b.csv: MMSE"
# files that differ by a key need no file name; mixed SNR kinds: the key tells
set_column "$eq" snr_kind esno | set_column /dev/stdin simulation.snr_kind esno >"$tmp/esno.csv"
gp "$eq" "$tmp/esno.csv" -o "$tmp/mixed.png"
check "mixed SNR kinds: the kind is a differing key" \
  test "$(legends "$tmp/mixed.gp")" = \
  "ZF, Eb/N0;MMSE, Eb/N0;ZF, Es/N0;MMSE, Es/N0"
check "mixed SNR kinds: the x axis says to see the legend" \
  grep -qx "set xlabel 'SNR (dB), its definition per curve in the legend' noenhanced" "$tmp/mixed.gp"
# a key that follows another (the default cyclic prefix follows the subcarriers)
# stays out of the legend; alone it tells curves apart like any other
set_column "$eq" ofdm.subcarriers 512 | set_column /dev/stdin ofdm.cp_length 64 >"$tmp/sc512.csv"
gp "$eq" "$tmp/sc512.csv" -o "$tmp/sc.png"
check "subcarriers and CP differ: the legend names the subcarriers" \
  test "$(legends "$tmp/sc.gp")" = "ZF, 1024 subcarriers;MMSE, 1024 subcarriers;ZF, 512 subcarriers;MMSE, 512 subcarriers"
set_column "$eq" simulation.seed 2 >"$tmp/seed2.csv"
gp "$eq" "$tmp/seed2.csv" -o "$tmp/seed.png"
check "only the seed differs: the legend names it" \
  test "$(legends "$tmp/seed.gp")" = "ZF, seed 1;MMSE, seed 1;ZF, seed 2;MMSE, seed 2"
# a key that does not change the result (the backend, a stopping rule) makes no curve
set_column "$tmp/a.csv" simulation.max_bits 1e9 | set_column /dev/stdin simulation.threads 7 >"$tmp/rules.csv"
gp "$tmp/rules.csv" -o "$tmp/rules.png"
check "stopping rules and run settings are no curve key" test "$(grep -c "^# curve" "$tmp/rules.gp")" -eq 2
# a CSV from before the config columns: the descriptive columns stand in
cut -d, -f1-29 "$eq" >"$tmp/old.csv"
gp "$tmp/old.csv" -o "$tmp/old2.png"
check "an older CSV: curves by its equalizer column (the label adds nothing)" \
  test "$(legends "$tmp/old2.gp")" = "ZF;MMSE"
check "an older CSV: Eb/N0 from its snr_kind column" grep -qx "set xlabel 'Eb/N0 per stream (dB)' noenhanced" "$tmp/old2.gp"

# --- ready for a paper (issue 23, item 8), in the script
# each curve its own marker and dash, so equal curves (a.csv and b.csv hold the
# same rows) stay apart
styles() { grep -o '\$c[0-9]* using [0-9:]* with [a-z]* lw [0-9.]* dt [^ ]* pt [0-9]*' "$1" | sed 's/.* dt //'; }
check "four curves: four markers" test "$(styles "$tmp/two.gp" | awk '{ print $3 }' | sort -u | wc -l)" -eq 4
check "four curves: four dash types" test "$(styles "$tmp/two.gp" | awk '{ print $1 }' | sort -u | wc -l)" -eq 4
# values rounded to significant digits, in words; a long title wrapped
set_column "$eq" channel.doppler_hz 389.15811106451076 >"$tmp/doppler.csv"
gp "$tmp/doppler.csv" -o "$tmp/doppler.png"
check "the title rounds: Doppler 389.2 Hz" grep -qx "set title '2x2 MIMO QPSK, Rayleigh, Doppler 389.2 Hz' noenhanced" "$tmp/doppler.gp"
check "no unrounded value in the script's text" test "$(grep -v '^[0-9#$E]' "$tmp/doppler.gp" | grep -c '389\.15')" -eq 0
set_column "$tmp/doppler.csv" channel.rho_tx 0.512345 | set_column /dev/stdin channel.k_factor 2.5 |
  set_column /dev/stdin channel.csi_error_var 0.01 | set_column /dev/stdin pilots.spacing 4 |
  set_column /dev/stdin pilots.first_symbol 2 | set_column /dev/stdin pilots.symbol_spacing 7 |
  set_column /dev/stdin receiver.llr maxlog >"$tmp/long.csv"
gp "$tmp/long.csv" -o "$tmp/long.png"
check "a long title is wrapped into lines" \
  grep -q "^set title '2x2 MIMO QPSK, Rayleigh, rho_tx 0.5123, .*'\.\"\\\\n\"\.'.*' noenhanced\$" "$tmp/long.gp"
title_lines() { grep '^set title' "$1" | sed "s/^set title //; s/ noenhanced\$//" | sed 's/\.\"\\n\"\./\n/g'; }
check "... each within the plot's width (106 characters at 900 pixels)" \
  test "$(title_lines "$tmp/long.gp" | awk '{ print length }' | sort -n | tail -1)" -le 108 \
  -a "$(title_lines "$tmp/long.gp" | wc -l)" -ge 2
# the x axis says the SNR definition
for kind in "esno:Es/N0 per stream (dB)" "snr:SNR per receive antenna (dB)"; do
  set_column "$eq" snr_kind "${kind%%:*}" | set_column /dev/stdin simulation.snr_kind "${kind%%:*}" >"$tmp/kind.csv"
  gp "$tmp/kind.csv" -o "$tmp/kind.png"
  check "the x axis for snr_kind ${kind%%:*}: ${kind#*:}" grep -qx "set xlabel '${kind#*:}' noenhanced" "$tmp/kind.gp"
done
set_column "$eq" simulation.ebno_overhead charged >"$tmp/charged.csv"
gp "$tmp/charged.csv" -o "$tmp/charged.png"
check "the x axis for Eb/N0 with the overhead charged" \
  grep -qx "set xlabel 'Eb/N0 per stream, pilot and CP energy charged (dB)' noenhanced" "$tmp/charged.gp"
# several files that differ in many keys: short labels, the key out of the plot
# (the other run's points 1 dB to the right, so no curve lies on another)
awk -F, -v OFS=, 'NR > 1 { $9 += 1 } { print }' "$eq" | set_column /dev/stdin simulation.seed 7 | set_column /dev/stdin channel.rho_tx 0.5 | set_column /dev/stdin channel.k_factor 2.5 |
  set_column /dev/stdin channel.csi_error_var 0.01 | set_column /dev/stdin ofdm.subcarriers 512 |
  set_column /dev/stdin ofdm.cp_length 64 | set_column /dev/stdin pilots.spacing 4 | set_column /dev/stdin pilots.first_symbol 2 |
  set_column /dev/stdin pilots.symbol_spacing 7 | set_column /dev/stdin receiver.llr maxlog >"$tmp/other-run.csv"
gp "$eq" "$tmp/other-run.csv" "$awgn" -o "$tmp/files.png" --size 900x800
check "several files: the key outside the plot or below it" grep -Eq '^set key (outside|below)' "$tmp/files.gp"
check "several files: the first labels say what differs, the default-valued keys left out" \
  test "$(legends "$tmp/files.gp" | cut -d';' -f1,2)" = "QPSK ZF, Rayleigh;QPSK MMSE, Rayleigh" -a \
  "$(grep -c "title 'QPSK ZF, AWGN, 256 subcarriers' noenhanced" "$tmp/files.gp")" -eq 1
check "several files: the labels too long for a line are cut after a whole part" \
  grep -q "title 'QPSK ZF, Rayleigh, rho_tx 0.5, K-factor 2.5, .*'\.', \.\.\.' noenhanced" "$tmp/files.gp"
check "several files: the raw keys are in the comments" \
  grep -q "^# keys: 'modulation=qpsk equalizer=zf channel.model=rayleigh channel.rho_tx=0.5 " "$tmp/files.gp"
# --y: the GMI (with LLRs on), on a linear axis with its interval
gp "$gmi" -o "$tmp/gmi.png" --y gmi
check "--y gmi: the y axis" grep -qx "set ylabel 'GMI (bit per resource element, all streams)' noenhanced" "$tmp/gmi.gp"
check "--y gmi: a linear axis" test "$(grep -c '^set logscale' "$tmp/gmi.gp")" -eq 0
check "--y gmi: the values and their interval" \
  grep -qx "0 $(awk -F, 'NR == 2 { print $32, $33, $34 }' "$gmi")" "$tmp/gmi.gp"
check "--y gmi: one curve per equalizer" test "$(legends "$tmp/gmi.gp")" = "ZF;MMSE"
refused "--y gmi without LLRs" "plot_equalizers.csv:2: --y gmi: expected a row with a value in column gmi, got 6 rows without \(the GMI is written for points with soft outputs: receiver.llr = maxlog or exact\)" "$tmp/x.png" "$eq" -o "$tmp/x.png" --y gmi
refused "--y bler before ofdmsim writes a BLER" "plot_equalizers.csv:1: --y bler: expected a column 'bler', got a header without it" "$tmp/x.png" "$eq" -o "$tmp/x.png" --y bler
refused "--y throughput before ofdmsim writes one" "--y throughput: expected a column 'throughput'" "$tmp/x.png" "$eq" -o "$tmp/x.png" --y throughput
refused "--y residual_bler before ofdmsim writes one" "--y residual_bler: expected a column 'residual_bler'" "$tmp/x.png" "$eq" -o "$tmp/x.png" --y residual_bler
refused "--y harq_throughput before ofdmsim writes one" "--y harq_throughput: expected a column 'harq_throughput'" "$tmp/x.png" "$eq" -o "$tmp/x.png" --y harq_throughput
refused "--y of no known kind" "--y ser: expected one of ber, bler, gmi, throughput, residual_bler, harq_throughput" "$tmp/x.png" "$eq" -o "$tmp/x.png" --y ser
# --x: a swept numeric key on the x axis, the SNR then tells the curves apart
gp "$rxs" -o "$tmp/rx.png" --x mimo.rx
check "--x mimo.rx: the x axis" grep -qx "set xlabel 'Receive antennas' noenhanced" "$tmp/rx.gp"
check "--x mimo.rx: one curve per SNR, with its definition" test "$(legends "$tmp/rx.gp")" = "Eb/N0 0 dB;Eb/N0 6 dB"
check "--x mimo.rx: the x values" test "$(sed -n '/^\$c1 << EOD/,/^EOD/p' "$tmp/rx.gp" | grep '^[0-9]' | cut -d' ' -f1 | paste -sd' ')" = "2 3 4"
check "--x mimo.rx: the title" grep -qx "set title '2 tx QPSK ZF, Rayleigh' noenhanced" "$tmp/rx.gp"
check "--x mimo.rx: tics on whole antennas (2, 3, 4; not 2.5)" grep -qx 'set xtics 1' "$tmp/rx.gp"
check "the SNR axis keeps gnuplot's own tics" test "$(grep -c '^set xtics' "$tmp/s.gp")" -eq 0
refused "--x of a key that does not vary" "--x mimo.tx: expected a key whose value differs between the rows, got 2 in every row \(numeric keys that differ: simulation.snr_db, mimo.rx\)" "$tmp/x.png" "$rxs" -o "$tmp/x.png" --x mimo.tx
refused "--x of a key of names" "--x equalizer: expected a numeric config key" "$tmp/x.png" "$rxs" -o "$tmp/x.png" --x equalizer
refused "--x of no column" "plot_rx.csv:1: --x channel.nope: expected a column 'channel.nope'" "$tmp/x.png" "$rxs" -o "$tmp/x.png" --x channel.nope

# --- drawing needs gnuplot
if ! command -v gnuplot >/dev/null; then
  echo "gnuplot not found: the drawing checks are skipped (apt-get install gnuplot-nox)"
  finish || exit 1
  exit 77
fi

echo "an old picture" >"$tmp/eq.png"
plot "$eq" -o "$tmp/eq.png" --size 800x500
check "png: exit 0" test $? -eq 0
check "png: the one line on stdout" test "$(cat "$tmp/out")" = "wrote $tmp/eq.png (2 curves, 6 points) and $tmp/eq.gp"
check "png: nothing on stderr (gnuplot's output kept away)" test ! -s "$tmp/err"
check "png: the script beside it names both curves" test "$(legends "$tmp/eq.gp")" = "ZF;MMSE"
check "png: the existing picture is replaced" test "$(head -c 4 "$tmp/eq.png" | tail -c 3)" = PNG
check "png: no temporary file left" test -z "$(ls "$tmp" | grep '\.tmp\.')"
check "the script draws again on its own, in its folder" \
  bash -c "cd '$tmp' && rm -f eq.png && gnuplot eq.gp 2>/dev/null && test -s eq.png"
plot "$awgn" -o "$tmp/z.png"
check "awgn png: exit 0 and its line" test "$(cat "$tmp/out")" = "wrote $tmp/z.png (2 curves, 15 points) and $tmp/z.gp"

plot "$eq" -o "$tmp/vector.svg" --size 700x450
check "svg: exit 0" test $? -eq 0
check "svg: written" test -s "$tmp/vector.svg"
if gnuplot -e 'print GPVAL_TERMINALS' 2>&1 | grep -qw pdfcairo; then
  plot "$eq" -o "$tmp/paper.pdf"
  check "pdf: exit 0" test $? -eq 0
  check "pdf: a PDF" test "$(head -c 5 "$tmp/paper.pdf")" = "%PDF-"
else
  plot "$eq" -o "$tmp/paper.pdf"
  check "pdf without pdfcairo: exit 1" test $? -eq 1
  check "pdf without pdfcairo: says so" grep -q 'no pdfcairo terminal' "$tmp/err"
fi

# --- what is drawn needs python3 (the standard library's zlib and xml)
if ! command -v python3 >/dev/null; then
  echo "python3 not found: the picture checks are skipped"
  finish || exit 1
  exit 77
fi

cat >"$tmp/pngcheck.py" <<'PY'
# pngcheck.py PICTURE.png WIDTH HEIGHT SCRIPT.gp: the PNG is valid (signature,
# chunk CRCs, IHDR size), and every curve the script lists ("# curve N:
# 'legend', colour #rrggbb") is drawn: many pixels of its colour, and an area
# of its own (pixels away from every other curve's).
import re, struct, sys, zlib

def read_png(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit('%s: not a PNG (signature)' % path)
    pos, chunks = 8, []
    while pos + 12 <= len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if zlib.crc32(kind + body) != struct.unpack('>I', data[pos + 8 + n:pos + 12 + n])[0]:
            sys.exit('%s: bad CRC in chunk %r' % (path, kind))
        chunks.append((kind, body))
        pos += 12 + n
    if not chunks or chunks[0][0] != b'IHDR' or chunks[-1][0] != b'IEND':
        sys.exit('%s: expected IHDR first and IEND last' % path)
    w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', chunks[0][1])
    if interlace:
        sys.exit('%s: interlaced PNG not handled' % path)
    palette = [tuple(b[i:i + 3]) for k, b in chunks if k == b'PLTE' for i in range(0, len(b), 3)]
    raw = zlib.decompress(b''.join(b for k, b in chunks if k == b'IDAT'))
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    if depth != 8 and ctype != 3:
        sys.exit('%s: bit depth %d of colour type %d not handled' % (path, depth, ctype))
    bpp = max(1, channels * depth // 8)  # the filters' byte distance
    stride = (w * channels * depth + 7) // 8
    pixels, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif f != 0: sys.exit('%s: bad filter type %d' % (path, f))
        row = []
        for x in range(w):
            if ctype == 3:
                per = 8 // depth
                v = (line[x // per] >> (8 - depth * (x % per + 1))) & ((1 << depth) - 1)
                row.append(palette[v])
            elif ctype in (0, 4):
                row.append((line[x * channels],) * 3)
            else:
                row.append(tuple(line[x * channels:x * channels + 3]))
        pixels.append(row)
        prev = line
    return w, h, pixels

def main():
    png, want_w, want_h, script = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    w, h, pixels = read_png(png)
    if (w, h) != (want_w, want_h):
        sys.exit('%s: IHDR says %dx%d, expected %dx%d' % (png, w, h, want_w, want_h))
    curves = re.findall(r"^# curve \d+: '(.*)', colour #([0-9a-f]{6}),", open(script).read(), re.M)
    if len(curves) < 1:
        sys.exit('%s: no curve listed' % script)
    # a key entry's sample line and marker alone make about 90 (the control below);
    # a drawn curve several hundred, though its theory, thin on top, hides a stripe
    MIN_PIXELS = 250
    MIN_OWN = 150      # pixels of a curve's colour away from every other curve
    where = []
    for legend, hexcol in curves:
        col = tuple(int(hexcol[k:k + 2], 16) for k in (0, 2, 4))
        near = {(x, y) for y, row in enumerate(pixels) for x, p in enumerate(row)
                if max(abs(p[0] - col[0]), abs(p[1] - col[1]), abs(p[2] - col[2])) <= 24}
        if len(near) < MIN_PIXELS:
            sys.exit("curve '%s': %d pixels of #%s, expected at least %d" % (legend, len(near), hexcol, MIN_PIXELS))
        where.append((legend, hexcol, near))
    for legend, hexcol, near in where:
        others = set()
        for l2, h2, n2 in where:
            if h2 != hexcol:
                others |= {(x + dx, y + dy) for x, y in n2 for dx in range(-3, 4) for dy in range(-3, 4)}
        own = len(near - others)
        if own < MIN_OWN:
            sys.exit("curve '%s': %d pixels of #%s away from the other curves, expected at least %d" % (legend, own, hexcol, MIN_OWN))
    print('%s: %dx%d, %s' % (png, w, h, ', '.join('%s %d px' % (l, len(n)) for l, _, n in where)))

if __name__ == '__main__':  # else imported for read_png
    main()
PY

check "png: valid, 800x500, both curves drawn in their colours" python3 "$tmp/pngcheck.py" "$tmp/eq.png" 800 500 "$tmp/eq.gp"
check "awgn png: valid, 900x600, both curves drawn in their colours" python3 "$tmp/pngcheck.py" "$tmp/z.png" 900 600 "$tmp/z.gp"
check "png: a wrong size is caught" bash -c "! python3 '$tmp/pngcheck.py' '$tmp/eq.png' 900 600 '$tmp/eq.gp' >/dev/null 2>&1"
# The checker must see a picture without the curves: the same script with every
# data element replaced by an empty one (only the key entries stay drawn) ...
sed -E 's/\$c[0-9]+(_zero|_theory)? using [0-9:]+ with yerrorlines/NaN with linespoints/;
        s/\$c[0-9]+(_zero|_theory)? using [0-9:]+ with/NaN with/' "$tmp/eq.gp" >"$tmp/keyonly.gp"
(cd "$tmp" && gnuplot -e "out='keyonly.png'" keyonly.gp 2>/dev/null)
python3 "$tmp/pngcheck.py" "$tmp/keyonly.png" 800 500 "$tmp/eq.gp" >"$tmp/control.out" 2>&1
check "control: a picture with the key but no curve fails the check" \
  grep -q "^curve 'ZF': [0-9]* pixels of #1f77b4, expected at least" "$tmp/control.out"
# ... and one where the second curve is drawn in the first one's colour
sed "s/'#d62728'/'#1f77b4'/g" "$tmp/eq.gp" >"$tmp/onecolour.gp"
(cd "$tmp" && gnuplot -e "out='onecolour.png'" onecolour.gp 2>/dev/null)
python3 "$tmp/pngcheck.py" "$tmp/onecolour.png" 800 500 "$tmp/eq.gp" >"$tmp/control.out" 2>&1
check "control: a picture without the second curve's colour fails the check" \
  grep -q "^curve 'MMSE': [0-9]* pixels of #d62728, expected at least" "$tmp/control.out"
# ... and one where both curves lie on one line (MMSE drawn over ZF's points)
python3 - "$tmp/eq.gp" >"$tmp/oneline.gp" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
c1 = re.search(r'^\$c1 << EOD\n(.*?)^EOD\n', s, re.S | re.M).group(1)
print(re.sub(r'(^\$c2 << EOD\n)(.*?)(^EOD\n)', lambda m: m.group(1) + c1 + m.group(3), s, flags=re.S | re.M), end='')
PY
(cd "$tmp" && gnuplot -e "out='oneline.png'" oneline.gp 2>/dev/null)
python3 "$tmp/pngcheck.py" "$tmp/oneline.png" 800 500 "$tmp/eq.gp" >"$tmp/control.out" 2>&1
check "control: two curves on one line fail the check" grep -q "^curve '[A-Z]*': [0-9]* pixels of" "$tmp/control.out"

check "svg: parses as XML, 700x450, with both legends" python3 - "$tmp/vector.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag.endswith('svg'), root.tag
assert root.get('width', '').startswith('700') and root.get('height', '').startswith('450'), (root.get('width'), root.get('height'))
texts = ' '.join(t.strip() for t in root.itertext())
for legend in ('ZF', 'MMSE', 'Eb/N0 per stream (dB)'):
    assert legend in texts, legend
PY

# --- the pictures a reader sees (item 8)
# pixels.py DIR MODE PNG ...: counts on a decoded picture (pngcheck's decoder)
cat >"$tmp/pixels.py" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from pngcheck import read_png
mode, png = sys.argv[2], sys.argv[3]
w, h, px = read_png(png)
near = lambda p, c: max(abs(p[k] - c[k]) for k in range(3)) <= 24
rgb = lambda s: tuple(int(s[k:k + 2], 16) for k in (1, 3, 5))
if mode == 'count':  # pixels of each colour
    print(' '.join(str(sum(near(p, rgb(c)) for row in px for p in row)) for c in sys.argv[4:]))
elif mode == 'edges':  # dark pixels (text, lines) in the outer 3 columns, rows y0..y1
    y0, y1 = int(sys.argv[4]), min(int(sys.argv[5]), h)
    print(sum(1 for y in range(y0, y1) for x in list(range(3)) + list(range(w - 3, w)) if sum(px[y][x]) < 3 * 160))
PY
pixels() { python3 "$tmp/pixels.py" "$tmp" "$@"; }
# two equal curves (a.csv and b.csv hold the same rows): the one drawn first,
# under the other, still shows through its dashes and around its marker
plot "$tmp/a.csv" "$tmp/b.csv" -o "$tmp/twin.png"
check "equal curves: drawn (exit 0)" test -s "$tmp/twin.png"
read -r first second <<<"$(pixels count "$tmp/twin.png" '#1f77b4' '#2ca02c')"
check "equal curves: the lower one stays visible ($first pixels against $second of the one on top)" \
  test "$((first * 10))" -ge "$((second * 3))"
# the theory, thin and lighter on top of its curve, is seen
read -r light <<<"$(pixels count "$tmp/eq.png" '#84b4d6')"
check "the theory line is seen on top of ZF ($light pixels of its lighter colour)" test "$light" -ge 150
# a long title and a long key stay inside the picture
plot "$tmp/long.csv" -o "$tmp/long.png"
check "a long title: nothing runs off the picture's sides" test "$(pixels edges "$tmp/long.png" 0 70)" -eq 0
plot "$eq" "$tmp/other-run.csv" "$awgn" -o "$tmp/files.png" --size 900x800
check "several files: drawn" test -s "$tmp/files.png"
check "several files: no legend text runs off the picture's sides" test "$(pixels edges "$tmp/files.png" 0 800)" -eq 0
# (its curves lie close together: the one apart, QPSK over AWGN, is counted)
read -r awgn_px <<<"$(pixels count "$tmp/files.png" "$(sed -n "s/^# curve [0-9]*: 'QPSK ZF, AWGN, 256 subcarriers', colour \(#[0-9a-f]*\),.*/\1/p" "$tmp/files.gp")")"
check "several files: the curves drawn in their colours ($awgn_px pixels of QPSK over AWGN)" test "${awgn_px:-0}" -ge 250
plot "$gmi" -o "$tmp/gmi.png" --y gmi
check "--y gmi png: both curves drawn" python3 "$tmp/pngcheck.py" "$tmp/gmi.png" 900 600 "$tmp/gmi.gp"
plot "$rxs" -o "$tmp/rx.png" --x mimo.rx
check "--x mimo.rx png: both curves drawn" python3 "$tmp/pngcheck.py" "$tmp/rx.png" 900 600 "$tmp/rx.gp"

finish
