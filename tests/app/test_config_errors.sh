#!/usr/bin/env bash
# The bad-input catalogue. Every bad config in tests/bad/ and every bad command
# line below must make ofdmsim exit 2, print one "ofdmsim: error: ..." line
# holding the promised parts (file:line or --set, the key, what was expected),
# and create no output file (neither the CSV nor its JSON sidecar).
#
# A config in tests/bad/ states its expectations in its first lines:
#   # expect: TEXT      (TEXT must appear in the error line; FILE stands for
#                        the path the config was given by)
#   # args: ARGS        (optional extra arguments, split on blanks)
set -u

: "${OFDMSIM:?set OFDMSIM to the ofdmsim binary}"
SRC="${OFDMSIM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}"
BAD="$SRC/tests/bad"
if [ ! -x "$OFDMSIM" ]; then
  echo "test_config_errors: $OFDMSIM is not an executable" >&2
  exit 1
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

# expect_error NAME EXPECTED... -- ARGS...
expect_error() {
  local name=$1
  shift
  local expected=()
  while [ "$1" != "--" ]; do
    expected+=("$1")
    shift
  done
  shift
  rm -f "$TMP/out.csv" "$TMP/out.json"
  "$OFDMSIM" "$@" -o "$TMP/out.csv" >"$TMP/stdout" 2>"$TMP/stderr" </dev/null
  local rc=$? why="" line
  line=$(grep -m1 '^ofdmsim: error: ' "$TMP/stderr")
  [ "$rc" -eq 2 ] || why+="exit code $rc, expected 2; "
  [ -n "$line" ] || why+="no 'ofdmsim: error: ' line on stderr; "
  local e
  for e in "${expected[@]}"; do
    case "$line" in
      *"$e"*) ;;
      *) why+="the error line lacks [$e]; " ;;
    esac
  done
  [ -e "$TMP/out.csv" ] && why+="out.csv was created; "
  [ -e "$TMP/out.json" ] && why+="out.json was created; "
  # one line, whatever the user typed: no control character but the newline
  # that ends it, and nothing after it but where to read more
  LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' <"$TMP/stderr") && why+="stderr holds a control character; "
  [ -n "$(grep -v -e '^ofdmsim: error: ' -e '^(see ofdmsim --help)$' "$TMP/stderr")" ] &&
    why+="stderr holds more than the error line; "
  if [ -z "$why" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED $name: $why" >&2
    echo "  command: ofdmsim $* -o $TMP/out.csv" >&2
    sed 's/^/  stderr: /' "$TMP/stderr" >&2
  fi
}

# -o must name a file that can be written, checked before any work starts.
check_output_path() {
  local name=$1 out=$2 expected=$3
  "$OFDMSIM" "$good" -o "$out" >"$TMP/stdout" 2>"$TMP/stderr" </dev/null
  local rc=$? why=""
  [ "$rc" -eq 2 ] || why+="exit code $rc, expected 2; "
  grep -q "^ofdmsim: error: .*$expected" "$TMP/stderr" || why+="no error line with [$expected]; "
  [ -s "$TMP/stdout" ] && why+="it printed results; "
  if [ -z "$why" ]; then passed=$((passed + 1)); else
    failed=$((failed + 1))
    echo "FAILED $name: $why" >&2
    sed 's/^/  stderr: /' "$TMP/stderr" >&2
  fi
}

# --- the bad configs ----------------------------------------------------------
n_files=0
for cfg in "$BAD"/*.cfg; do
  n_files=$((n_files + 1))
  expected=()
  extra=()
  while IFS= read -r l; do
    case "$l" in
      "# expect: "*) e=${l#"# expect: "}; expected+=("${e//FILE/$cfg}") ;;
      "# args: "*) read -r -a more <<<"${l#"# args: "}"; extra+=("${more[@]}") ;;
      "#"*) ;;
      *) break ;;
    esac
  done <"$cfg"
  if [ ${#expected[@]} -eq 0 ]; then
    failed=$((failed + 1))
    echo "FAILED $(basename "$cfg"): no '# expect:' line" >&2
    continue
  fi
  expect_error "$(basename "$cfg")" "${expected[@]}" -- "$cfg" ${extra[@]+"${extra[@]}"}
done
if [ "$n_files" -lt 20 ]; then
  failed=$((failed + 1))
  echo "FAILED: only $n_files bad configs in $BAD" >&2
fi

# --- bad command lines, around a config that is fine ------------------------
good="$TMP/good.cfg"
cat >"$good" <<'EOF'
simulation = { snr_db = [0.0, 10.0]; max_bits = 1.0e4; target_errors = 10; };
mimo = { tx = 2; rx = 2; };
modulation = "qpsk";
ofdm = { subcarriers = 64; symbols = 2; };
EOF
cp "$good" "$TMP/other.cfg"

expect_error set_without_equals "--set mimo.tx: expected KEY=VALUE" -- "$good" --set mimo.tx
expect_error set_without_key "--set =4: expected KEY=VALUE" -- "$good" --set =4
expect_error set_without_value "option --set needs a value" -- "$good" --set
expect_error unknown_flag "unknown option '--bogus'" -- "$good" --bogus
expect_error llr_frames_alone "--llr-frames needs --llr-out FILE" -- "$good" --llr-frames 3
expect_error llr_frames_zero "--llr-frames 0: expected an integer in [1, 1048576]" -- "$good" --llr-out "$TMP/x.llr" --llr-frames 0
expect_error llr_out_hard "--llr-out: point 0 has receiver.llr = \"off\"" -- "$good" --llr-out "$TMP/x.llr"
expect_error misspelt_flag "unknown option '--sett' (did you mean '--set'?)" -- "$good" --sett mimo.tx=2
expect_error two_configs "two config files given: '$good' and '$TMP/other.cfg'" -- "$good" "$TMP/other.cfg"
expect_error no_config "no config file given" --
expect_error output_without_value "option -o needs a value" -- "$good" -o
expect_error missing_file "$TMP/absent.cfg: cannot read: No such file or directory" -- "$TMP/absent.cfg"
mkdir -p "$TMP/outdir"
check_output_path output_is_directory "$TMP/outdir" "-o $TMP/outdir: the file $TMP/outdir is a directory, expected a regular file"
check_output_path output_dir_missing "$TMP/nowhere/out.csv" "cannot write there: No such file or directory"
expect_error folder_as_config "$BAD: cannot read: Is a directory" -- "$BAD"
expect_error set_out_of_range "--set mimo.tx=9: mimo.tx: expected an integer in [1, 8], got 9" -- \
  "$good" --set mimo.tx=9
expect_error set_eq_form_out_of_range "--set mimo.rx=0: mimo.rx: expected an integer in [1, 16], got 0" -- \
  "$good" --set=mimo.rx=0
expect_error set_unknown_key "--set mimo.txx=2: unknown key 'mimo.txx' (did you mean 'mimo.tx'?)" -- \
  "$good" --set mimo.txx=2
expect_error set_bad_enum \
  '--set modulation=qpsq: modulation: expected one of bpsk, qpsk, 16qam, 64qam, 256qam, got "qpsq"' -- \
  "$good" --set modulation=qpsq
expect_error set_bad_list "--set simulation.snr_db=[0,: simulation.snr_db: syntax error" -- \
  "$good" "--set" "simulation.snr_db=[0,"
expect_error set_string_for_list \
  '--set simulation.snr_db=high: simulation.snr_db: expected a number in [-50, 100] or a non-empty list of them, got "high"' -- \
  "$good" --set simulation.snr_db=high
expect_error set_combination '--set equalizer=zf: equalizer: "zf" needs mimo.rx >= mimo.tx, got tx = 2, rx = 1' -- \
  "$good" --set equalizer=zf --set mimo.rx=1
expect_error set_bad_sweep \
  '--set sweep=({key="mimo.tx"; values=[2, 10];}): mimo.tx: expected an integer in [1, 8], got 10 (sweep[0].values[1])' -- \
  "$good" '--set' 'sweep=({key="mimo.tx"; values=[2, 10];})'
expect_error set_range_step_zero \
  '--set simulation.snr_db={from=0.0;to=30.0;step=0.0;}: simulation.snr_db.step: expected a non-zero number, got 0.0' -- \
  "$good" --set 'simulation.snr_db={from=0.0;to=30.0;step=0.0;}'
expect_error set_range_beyond_bounds \
  '--set simulation.snr_db={from=0.0;to=120.0;step=10.0;}: simulation.snr_db[11]: expected a number in [-50, 100], got 110.0' -- \
  "$good" --set 'simulation.snr_db={from=0.0;to=120.0;step=10.0;}'
expect_error set_range_misspelt_member \
  "--set simulation.snr_db={from=0.0;too=30.0;step=2.0;}: unknown key 'simulation.snr_db.too' (did you mean 'simulation.snr_db.to'?)" -- \
  "$good" --set 'simulation.snr_db={from=0.0;too=30.0;step=2.0;}'
expect_error set_zipped_short_tuple \
  '--set sweep=({keys=["mimo.tx","mimo.rx"]; values=([2,2],[4]);}): sweep[0].values[1]: expected a tuple of 2 values (mimo.tx, mimo.rx), got [4]' -- \
  "$good" --set 'sweep=({keys=["mimo.tx","mimo.rx"]; values=([2,2],[4]);})'
expect_error set_zipped_conflict \
  '--set equalizer=zf: equalizer: "zf" needs mimo.rx >= mimo.tx, got tx = 4, rx = 2 (sweep point mimo.tx=4 mimo.rx=2)' -- \
  "$good" --set equalizer=zf --set 'sweep=({keys=["mimo.tx","mimo.rx"]; values=([2,2],[4,2]);})'
# the channel's physical units: one quantity in one unit, the Doppler shift
# within a quarter of the spacing (here the swept spacing's)
expect_error set_delay_spread_both \
  "--set channel.delay_spread_ns=300.0: channel.delay_spread_ns: expected either channel.delay_spread or channel.delay_spread_ns, not both" -- \
  "$good" --set channel.model=tdl --set channel.delay_spread=2.0 --set channel.delay_spread_ns=300.0
expect_error set_doppler_beyond_swept_spacing \
  '--set channel.doppler_hz=100.0: channel.doppler_hz: expected a number in [0, 50] Hz (a quarter of the subcarrier spacing), got 100 (sweep point ofdm.subcarrier_spacing=200.0)' -- \
  "$good" --set channel.model=tdl --set channel.doppler_hz=100.0 \
  --set 'sweep=({key="ofdm.subcarrier_spacing"; values=[30000.0, 200.0];})'
expect_error set_last_one_wins "--set mimo.tx=12: mimo.tx: expected an integer in [1, 8], got 12" -- \
  "$good" --set mimo.tx=4 --set mimo.tx=12

# --- user text quoted into a message comes out escaped, on one line ---------
nl=$'\n' esc=$'\033' tab=$'\t'
expect_error set_key_control_chars "--set mimo.t\\nx\\x1b[31m=2: unknown key 'mimo.t\\nx\\x1b[31m'" -- \
  "$good" --set "mimo.t${nl}x${esc}[31m=2"
expect_error set_value_control_chars "--set mimo.tx=9\\t\\n: mimo.tx: expected an integer in [1, 8], got 9" -- \
  "$good" --set "mimo.tx=9${tab}${nl}"
expect_error set_no_equals_control_chars "--set mimo.tx\\x1b[2J: expected KEY=VALUE, got 'mimo.tx\\x1b[2J' (no '=')" -- \
  "$good" --set "mimo.tx${esc}[2J"
expect_error option_control_chars "unknown option '--fo\\x1bo'" -- "$good" "--fo${esc}o"
expect_error config_name_control_chars "$TMP/ab\\nsent\\x1b.cfg: cannot read: No such file or directory" -- \
  "$TMP/ab${nl}sent${esc}.cfg"
sed 's/tx = 2;/tx = 9;/' "$good" >"$TMP/line${nl}break.cfg"
expect_error config_name_control_chars_at_line "$TMP/line\\nbreak.cfg:2: mimo.tx: expected an integer in [1, 8], got 9" -- \
  "$TMP/line${nl}break.cfg"

# --- integers padded with leading zeros are read whole -----------------------
zeros() { printf "%0${1}d" 0; }
expect_error set_hex_padded_beyond_32_bits "--set mimo.tx=0x$(zeros 60)100000002: mimo.tx: expected an integer in [1, 8], got 4294967298" -- \
  "$good" --set "mimo.tx=0x$(zeros 60)100000002"
expect_error set_sweep_padded_beyond_32_bits "mimo.tx: expected an integer in [1, 8], got 4294967298 (sweep[0].values[0])" -- \
  "$good" --set "sweep=({key=\"mimo.tx\"; values=[$(zeros 60)4294967298];})"
# ... and a padded valid value runs as itself
padded_run() {
  local name=$1 check_col=$2 want=$3
  shift 3
  rm -f "$TMP/p.csv" "$TMP/p.json" "$TMP/p.journal"
  if "$OFDMSIM" "$@" --set simulation.max_bits=1e3 -q -o "$TMP/p.csv" >"$TMP/p.out" 2>"$TMP/p.err" &&
    [ "$(awk -F, -v c="$check_col" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' \
      "$TMP/p.csv" | sort -u)" = "$want" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED $name: expected a run with $check_col = $want" >&2
    sed 's/^/  stderr: /' "$TMP/p.err" >&2
  fi
}
padded_run set_padded_valid tx 4 "$good" --set "mimo.tx=$(zeros 69)4" --set mimo.rx=4
padded_run set_padded_valid_hex rx 3 "$good" --set "mimo.rx=0x$(zeros 68)3"
printf 'simulation = { seed = %s; snr_db = [0.0]; };\nmimo = { tx = %s2; rx = 2; };\nofdm = { subcarriers = 64; symbols = 2; };\n' \
  "$(zeros 57)5000000000" "$(zeros 69)" >"$TMP/padded.cfg"
padded_run file_padded_valid tx 2 "$TMP/padded.cfg"
if grep -Eq '^# +seed = 5000000000L?;$' "$TMP/p.out"; then passed=$((passed + 1)); else
  failed=$((failed + 1))
  echo "FAILED file_padded_seed: the echo lacks seed = 5000000000 (a 64-byte copy of the 70 characters wraps it)" >&2
  grep seed "$TMP/p.out" | sed 's/^/  stdout: /' >&2
fi

# An array mixing 32- and 64-bit integers is read as the list of both (before,
# only the big one got its L and libconfig refused the array's mixed types).
padded_run mixed_width_array simulation.seed $'2\n4294967298' "$good" \
  --set 'sweep=({key="simulation.seed"; values=[2, 4294967298];})'

# --- a file name that is not UTF-8 still gives a valid JSON sidecar ----------
latin=$'n\xffme.cfg'
cp "$good" "$TMP/$latin"
rm -f "$TMP/u.csv" "$TMP/u.json"
if "$OFDMSIM" "$TMP/$latin" --set simulation.max_bits=1e3 -q -o "$TMP/u.csv" >/dev/null 2>"$TMP/u.err" &&
  python3 - "$TMP/u.json" <<'PY'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:  # strict: invalid UTF-8 fails here
    side = json.load(f)
name = side["config_file"]
assert name.endswith("n\ufffdme.cfg"), repr(name)
assert "\ufffd" in side["command"], repr(side["command"])
PY
then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAILED sidecar_utf8: the sidecar of a run of $TMP/n<0xff>me.cfg is not valid JSON with U+FFFD in config_file" >&2
  sed 's/^/  stderr: /' "$TMP/u.err" >&2
fi

# --- and the flags that must work, so that the failures above mean something -
if "$OFDMSIM" --help >"$TMP/help" 2>&1 && grep -q -- '--set KEY=VALUE' "$TMP/help" &&
  grep -q 'channel.delay_spread' "$TMP/help" && grep -q 'ofdm.cp_length' "$TMP/help" &&
  grep -q 'channel.doppler_hz' "$TMP/help" && grep -q 'ofdm.subcarrier_spacing' "$TMP/help"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAILED help: ofdmsim --help did not exit 0 with the flags and the keys" >&2
fi
if "$OFDMSIM" --version >"$TMP/version" 2>&1 && [ -s "$TMP/version" ]; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAILED version: ofdmsim --version did not exit 0 with a version" >&2
fi

echo "test_config_errors: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
