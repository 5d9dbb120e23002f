#!/usr/bin/env bash
# @include, read by ofdmsim itself (config/config_include.c): a relative path is
# taken next to the including file whatever the working folder, an absolute
# one as it is (also when the top file is given as ./m.cfg); an included
# value gets the same fix-ups as one in the top file and takes effect; errors
# name the file and line (a file that cannot be read, a loop, nesting beyond
# 10). The catalogue of bad configs in tests/bad/include_*.cfg covers the
# rest (test_config_errors.sh runs it).
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"

base='simulation = { seed = 3; snr_db = [4.0]; max_bits = 2.0e3; };
ofdm = { subcarriers = 64; symbols = 2; };'

# runs_with NAME TX ARGS...: ofdmsim ARGS runs (exit 0) and every row of its
# CSV has tx = rx = TX, the value the included file set.
runs_with() {
  local name=$1 want=$2
  shift 2
  rm -f "$tmp/r.csv" "$tmp/r.json" "$tmp/r.journal"
  "$OFDMSIM" "$@" -q -o "$tmp/r.csv" >"$tmp/r.out" 2>"$tmp/r.err"
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    bad "$name: exit $rc: $(head -1 "$tmp/r.err")"
    return
  fi
  local rows
  rows=$(csv_cols "$tmp/r.csv" tx rx | sort -u)
  if [ "$rows" = "$want,$want" ]; then ok; else bad "$name: tx,rx = [$rows], expected $want,$want"; fi
}

# in_dir DIR CMD...: CMD run from DIR (in this shell, so that its verdict counts).
in_dir() {
  local dir=$1
  shift
  pushd "$dir" >/dev/null || { bad "cd $dir"; return; }
  "$@"
  popd >/dev/null || true
}

# fails_with NAME TEXT ARGS...: ofdmsim ARGS exits 2 with one error line
# holding TEXT.
fails_with() {
  local name=$1 want=$2
  shift 2
  "$OFDMSIM" "$@" -q >"$tmp/f.out" 2>"$tmp/f.err"
  local rc=$? line
  line=$(grep -m1 '^ofdmsim: error: ' "$tmp/f.err")
  if [ "$rc" -eq 2 ] && [[ "$line" == *"$want"* ]]; then ok; else
    bad "$name: exit $rc, expected 2 with [$want]"
    sed 's/^/  stderr: /' "$tmp/f.err" >&2
  fi
}

# --- a relative @include is read next to the including file ---------------
mkdir -p "$tmp/rel/parts/deeper"
printf '%s\n@include "parts/link.cfg"\n' "$base" >"$tmp/rel/m.cfg"
printf '# next to this file, not next to m.cfg\n@include "deeper/mimo.cfg"\n' >"$tmp/rel/parts/link.cfg"
printf 'mimo = { tx = 4; rx = 4; };\n' >"$tmp/rel/parts/deeper/mimo.cfg"
runs_with "relative include, by the full path" 4 "$tmp/rel/m.cfg"
in_dir / runs_with "relative include, from another folder" 4 "$tmp/rel/m.cfg"
in_dir "$tmp/rel" runs_with "relative include, top file given as ./m.cfg" 4 ./m.cfg
in_dir "$tmp/rel/parts" runs_with "relative include, top file given as ../m.cfg" 4 ../m.cfg

# --- an absolute @include is used as it is --------------------------------
mkdir -p "$tmp/abs" "$tmp/elsewhere"
printf 'mimo = { tx = 3; rx = 3; };\n' >"$tmp/elsewhere/mimo.cfg"
printf '%s\n@include "%s/elsewhere/mimo.cfg"\n' "$base" "$tmp" >"$tmp/abs/m.cfg"
runs_with "absolute include, by the full path" 3 "$tmp/abs/m.cfg"
in_dir "$tmp/abs" runs_with "absolute include, top file given as m.cfg" 3 m.cfg
in_dir "$tmp/abs" runs_with "absolute include, top file given as ./m.cfg" 3 ./m.cfg
# an error in it names it by its absolute path
printf 'mimo = { tx = 3; rx = 3; };\nequalizer = "zz";\n' >"$tmp/elsewhere/mimo.cfg"
fails_with "error in an absolute include" "$tmp/elsewhere/mimo.cfg:2: equalizer: expected one of zf, mmse" \
  "$tmp/abs/m.cfg"

# --- the 64-bit fix-up reaches included files -----------------------------
mkdir -p "$tmp/wide"
printf 'simulation = { seed = 5000000000; snr_db = [4.0]; max_bits = 2.0e3; };\nofdm = { subcarriers = 64; };\n' \
  >"$tmp/wide/seed.cfg"
printf '@include "seed.cfg"\n' >"$tmp/wide/m.cfg"
"$OFDMSIM" "$tmp/wide/m.cfg" -q >"$tmp/w.out" 2>"$tmp/w.err"
check "a 64-bit seed in an included file runs" test $? -eq 0
check "... and is 5000000000, not wrapped to 32 bits" grep -Eq 'seed = 5000000000L?;' "$tmp/w.out"

# --- a file name with escapes in the string, and the rest of the line ------
mkdir -p "$tmp/esc"
printf 'mimo = { tx = 2; rx = 2; };\n' >"$tmp/esc/we\"ird.cfg"
printf '%s\n@include "we\\"ird.cfg"   # a comment after it\n' "$base" >"$tmp/esc/m.cfg"
runs_with "include name with an escaped quote" 2 "$tmp/esc/m.cfg"

# --- an included file that cannot be read ---------------------------------
mkdir -p "$tmp/unread"
ln -s loop.cfg "$tmp/unread/loop.cfg"
printf '%s\n@include "loop.cfg"\n' "$base" >"$tmp/unread/m.cfg"
fails_with "include of a symlink loop" \
  "$tmp/unread/m.cfg:3: @include \"loop.cfg\": cannot read: Too many levels of symbolic links" "$tmp/unread/m.cfg"
if [ "$(id -u)" -ne 0 ]; then # root reads a mode-000 file all the same
  printf 'mimo = { tx = 2; };\n' >"$tmp/unread/locked.cfg"
  chmod 000 "$tmp/unread/locked.cfg"
  printf '%s\n@include "locked.cfg"\n' "$base" >"$tmp/unread/m2.cfg"
  fails_with "include of an unreadable file" \
    "$tmp/unread/m2.cfg:3: @include \"locked.cfg\": cannot read: Permission denied" "$tmp/unread/m2.cfg"
fi
printf '%s\n@include "missing.cfg\n' "$base" >"$tmp/unread/m3.cfg"
fails_with "include without its closing quote" \
  "$tmp/unread/m3.cfg:3: syntax error: @include: expected a file name in quotes on one line" "$tmp/unread/m3.cfg"

# --- nesting: 10 deep is fine, 11 is not ----------------------------------
mkdir -p "$tmp/deep"
for i in $(seq 0 11); do printf '@include "d%d.cfg"\n' $((i + 1)) >"$tmp/deep/d$i.cfg"; done
printf 'mimo = { tx = 2; rx = 2; };\n' >"$tmp/deep/d12.cfg"
printf '%s\n@include "d3.cfg"\n' "$base" >"$tmp/deep/ten.cfg"    # d3 ... d12: 10 files below ten.cfg
printf '%s\n@include "d2.cfg"\n' "$base" >"$tmp/deep/eleven.cfg" # d2 ... d12: 11
runs_with "includes nested 10 deep" 2 "$tmp/deep/ten.cfg"
fails_with "includes nested 11 deep" \
  "$tmp/deep/d11.cfg:1: @include \"d12.cfg\": expected includes nested at most 10 deep, got $tmp/deep/eleven.cfg -> $tmp/deep/d2.cfg -> " \
  "$tmp/deep/eleven.cfg"

# --- a file including itself ------------------------------------------------
printf '%s\n@include "self.cfg"\n' "$base" >"$tmp/deep/self.cfg"
fails_with "a file including itself" \
  "$tmp/deep/self.cfg:3: @include \"self.cfg\": expected no include loop, got $tmp/deep/self.cfg -> $tmp/deep/self.cfg" \
  "$tmp/deep/self.cfg"

echo -n "test_config_include: "
finish
