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
# Without gnuplot or python3 the parts that need them are skipped (exit 77
# when all else passed); scripts/setup.sh installs gnuplot-nox, so CI runs all.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
data=$OFDMSIM_SOURCE_DIR/tests/app/data
eq=$data/plot_equalizers.csv
awgn=$data/plot_awgn.csv
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
  check "$what: says why" grep -qE "$msg" "$tmp/err"
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
check "one curve per equalizer, named by the key that differs" \
  test "$(legends "$tmp/s.gp")" = "equalizer=zf;equalizer=mmse"
check "the title: what the curves share" grep -qx "set title '2x2 MIMO QPSK, Rayleigh' noenhanced" "$tmp/s.gp"
set_column "$eq" receiver.llr maxlog >"$tmp/maxlog.csv"
gp "$tmp/maxlog.csv" -o "$tmp/maxlog.png"
check "the title: a shared key away from its default is named" \
  grep -qx "set title '2x2 MIMO QPSK, Rayleigh, llr=maxlog' noenhanced" "$tmp/maxlog.gp"
check "the x axis: Eb/N0" grep -qx "set xlabel 'Eb/N0 (dB)' noenhanced" "$tmp/s.gp"
check "a log y axis" grep -qx 'set logscale y' "$tmp/s.gp"
check "pngcairo where gnuplot has it" grep -q 'set terminal pngcairo size 900,600' "$tmp/s.gp"
check "png otherwise, at 900x600" grep -q 'set terminal png size 900,600' "$tmp/s.gp"
check "the data inline: the ZF block holds the CSV's 3 rows" test "$(block_rows "$tmp/s.gp" c1)" -eq 3
check "the data inline: the MMSE block holds the CSV's 3 rows" test "$(block_rows "$tmp/s.gp" c2)" -eq 3
check "ZF's theory in its own block" test "$(block_rows "$tmp/s.gp" c1_theory)" -eq 3
check "ZF's theory dashed in ZF's colour" grep -q "\$c1_theory using 1:2 with lines dt 2 .*lc rgb '#1f77b4'" "$tmp/s.gp"
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
check "awgn: curves by modulation" \
  test "$(legends "$tmp/z.gp")" = "modulation=qpsk;modulation=16qam"
check "awgn: the skipped row (qpsk, 14 dB) is left out" \
  test "$(sed -n '/^\$c1/,/^EOD/p' "$tmp/z.gp" | grep -c '^14 ')" -eq 0
check "awgn: qpsk at 12 dB, without error, drawn at its upper bound" \
  grep -qx "12 $(awk -F, 'NR > 1 && $4 == "qpsk" && $9 == 12 { print $15 }' "$awgn")" "$tmp/z.gp"
check "awgn: upper bounds as down-pointing triangles in the curve's colour" \
  grep -q "\$c2_zero using 1:2 with points pt 11 .*lc rgb '#d62728' notitle" "$tmp/z.gp"
check "awgn: the key says what a triangle is" grep -q "title 'no bit error: 95% upper bound'" "$tmp/z.gp"
check "awgn: the key says what dashes are" grep -q "title 'theory (dashed)'" "$tmp/z.gp"
check "awgn: the title" grep -qx "set title '2x2 MIMO ZF, AWGN' noenhanced" "$tmp/z.gp"

# several files: where rows would share a curve, the file tells them apart
cp "$eq" "$tmp/a.csv"
cp "$eq" "$tmp/b.csv"
gp "$tmp/a.csv" "$tmp/b.csv" -o "$tmp/two.png"
check "two files of the same points: four curves named by file" \
  test "$(legends "$tmp/two.gp")" = \
  "file=a.csv equalizer=zf;file=a.csv equalizer=mmse;file=b.csv equalizer=zf;file=b.csv equalizer=mmse"
# files that differ by a key need no file name; mixed SNR kinds: the key tells
set_column "$eq" snr_kind esno | set_column /dev/stdin simulation.snr_kind esno >"$tmp/esno.csv"
gp "$eq" "$tmp/esno.csv" -o "$tmp/mixed.png"
check "mixed SNR kinds: the kind is a differing key" \
  test "$(legends "$tmp/mixed.gp")" = \
  "simulation.snr_kind=ebno equalizer=zf;simulation.snr_kind=ebno equalizer=mmse;simulation.snr_kind=esno equalizer=zf;simulation.snr_kind=esno equalizer=mmse"
check "mixed SNR kinds: the x axis says to see the legend" grep -qx "set xlabel 'SNR (dB), see legend' noenhanced" "$tmp/mixed.gp"
# a key that follows another (the default cyclic prefix follows the subcarriers)
# stays out of the legend; alone it tells curves apart like any other
set_column "$eq" ofdm.subcarriers 512 | set_column /dev/stdin ofdm.cp_length 64 >"$tmp/sc512.csv"
gp "$eq" "$tmp/sc512.csv" -o "$tmp/sc.png"
check "subcarriers and CP differ: the legend names the subcarriers" \
  test "$(legends "$tmp/sc.gp")" = "equalizer=zf ofdm.subcarriers=1024;equalizer=mmse ofdm.subcarriers=1024;equalizer=zf ofdm.subcarriers=512;equalizer=mmse ofdm.subcarriers=512"
set_column "$eq" simulation.seed 2 >"$tmp/seed2.csv"
gp "$eq" "$tmp/seed2.csv" -o "$tmp/seed.png"
check "only the seed differs: the legend names it" \
  test "$(legends "$tmp/seed.gp")" = "simulation.seed=1 equalizer=zf;simulation.seed=1 equalizer=mmse;simulation.seed=2 equalizer=zf;simulation.seed=2 equalizer=mmse"
# a key that does not change the result (the backend, a stopping rule) makes no curve
set_column "$tmp/a.csv" simulation.max_bits 1e9 | set_column /dev/stdin simulation.threads 7 >"$tmp/rules.csv"
gp "$tmp/rules.csv" -o "$tmp/rules.png"
check "stopping rules and run settings are no curve key" test "$(grep -c "^# curve" "$tmp/rules.gp")" -eq 2
# a CSV from before the config columns: the descriptive columns stand in
cut -d, -f1-29 "$eq" >"$tmp/old.csv"
gp "$tmp/old.csv" -o "$tmp/old2.png"
check "an older CSV: curves by its equalizer column (the label adds nothing)" \
  test "$(legends "$tmp/old2.gp")" = "equalizer=zf;equalizer=mmse"
check "an older CSV: Eb/N0 from its snr_kind column" grep -qx "set xlabel 'Eb/N0 (dB)' noenhanced" "$tmp/old2.gp"

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
check "png: the script beside it names both curves" test "$(legends "$tmp/eq.gp")" = "equalizer=zf;equalizer=mmse"
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

png, want_w, want_h, script = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
w, h, pixels = read_png(png)
if (w, h) != (want_w, want_h):
    sys.exit('%s: IHDR says %dx%d, expected %dx%d' % (png, w, h, want_w, want_h))
curves = re.findall(r"^# curve \d+: '(.*)', colour #([0-9a-f]{6}),", open(script).read(), re.M)
if len(curves) < 1:
    sys.exit('%s: no curve listed' % script)
MIN_PIXELS = 400   # a key entry's sample line and marker alone stay well below
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
  grep -q "^curve 'equalizer=zf': [0-9]* pixels of #1f77b4, expected at least" "$tmp/control.out"
# ... and one where the second curve is drawn in the first one's colour
sed "s/'#d62728'/'#1f77b4'/g" "$tmp/eq.gp" >"$tmp/onecolour.gp"
(cd "$tmp" && gnuplot -e "out='onecolour.png'" onecolour.gp 2>/dev/null)
python3 "$tmp/pngcheck.py" "$tmp/onecolour.png" 800 500 "$tmp/eq.gp" >"$tmp/control.out" 2>&1
check "control: a picture without the second curve's colour fails the check" \
  grep -q "^curve 'equalizer=mmse': [0-9]* pixels of #d62728, expected at least" "$tmp/control.out"
# ... and one where both curves lie on one line (MMSE drawn over ZF's points)
python3 - "$tmp/eq.gp" >"$tmp/oneline.gp" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
c1 = re.search(r'^\$c1 << EOD\n(.*?)^EOD\n', s, re.S | re.M).group(1)
print(re.sub(r'(^\$c2 << EOD\n)(.*?)(^EOD\n)', lambda m: m.group(1) + c1 + m.group(3), s, flags=re.S | re.M), end='')
PY
(cd "$tmp" && gnuplot -e "out='oneline.png'" oneline.gp 2>/dev/null)
python3 "$tmp/pngcheck.py" "$tmp/oneline.png" 800 500 "$tmp/eq.gp" >"$tmp/control.out" 2>&1
check "control: two curves on one line fail the check" grep -q "^curve 'equalizer=[a-z]*': [0-9]* pixels of" "$tmp/control.out"

check "svg: parses as XML, 700x450, with both legends" python3 - "$tmp/vector.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag.endswith('svg'), root.tag
assert root.get('width', '').startswith('700') and root.get('height', '').startswith('450'), (root.get('width'), root.get('height'))
texts = ' '.join(t.strip() for t in root.itertext())
for legend in ('equalizer=zf', 'equalizer=mmse', 'Eb/N0 (dB)'):
    assert legend in texts, legend
PY

finish
