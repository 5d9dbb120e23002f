# The shell tests' harness, sourced: a scratch folder removed at exit, and
# check WHAT CMD... counting passes and failures for `finish`, which prints
# the closing "N passed, N failed" line and exits non-zero on a failure.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAILED: $*" >&2; }
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; }

# pause SECONDS: sleeps within the shell, no process started (read's timeout
# on a FIFO that never gets data, opened at the first call and unlinked at
# once), for the polls that wait on a run's progress: a `sleep` or a `$(...)`
# forked hundreds of times a second takes a core from the run being watched
# and from the test beside it.
pause() {
  if [ -z "${pause_fd:-}" ]; then
    local d
    d=$(mktemp -d) && mkfifo "$d/f" && exec {pause_fd}<>"$d/f"
    rm -rf "$d"
  fi
  read -r -t "$1" -u "$pause_fd" _
  return 0
}

# scaled N [LEAST]: N times OFDMSIM_TEST_SCALE (a share in (0, 1], 1 when
# unset; scripts/sanitize.sh sets 0.1), rounded up, at least LEAST (default
# 1), never above N: the sizes of the long statistical runs, as
# tests/support/testutil.h's test_scaled. Under the sanitizers the same paths
# run on less work; the normal pass runs the full size. N may be a float
# (1.2e9): the result is an integer. A bad value fails the test at once.
scaled() {
  local s=${OFDMSIM_TEST_SCALE:-1}
  awk -v n="$1" -v least="${2:-1}" -v s="$s" 'BEGIN {
    if (s !~ /^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ || s + 0 <= 0 || s + 0 > 1) {
      print "OFDMSIM_TEST_SCALE=" s ": not a share in (0, 1]" > "/dev/stderr"; exit 2 }
    m = n * s * (1 - 1e-12); if (m > int(m)) m = int(m) + 1; if (m < least) m = least; if (m > n) m = n
    printf "%.0f\n", m }'
}
scaled 1 >/dev/null || exit 2 # a bad OFDMSIM_TEST_SCALE fails here, not as an empty size later

# csv_cols FILE NAME...: the named columns of a result CSV, one line per row,
# fields joined by ','. Quoted fields (the label) may hold commas.
csv_cols() {
  local file=$1
  shift
  awk -v want="$*" '
    function split_csv(line, f,   n, i, c, q, cur) {
      n = 0; cur = ""; q = 0
      for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
          if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { cur = cur c; i++ } else q = 0 }
          else cur = cur c
        } else if (c == "\"") q = 1
        else if (c == ",") { f[++n] = cur; cur = "" }
        else cur = cur c
      }
      f[++n] = cur
      return n
    }
    { sub(/\r$/, "") }
    NR == 1 {
      n = split_csv($0, h); k = split(want, names, " ")
      for (j = 1; j <= k; j++) { col[j] = 0; for (i = 1; i <= n; i++) if (h[i] == names[j]) col[j] = i
        if (!col[j]) { print "csv_cols: no column " names[j] " in " FILENAME > "/dev/stderr"; exit 3 } }
      next
    }
    { split_csv($0, f); line = ""; for (j = 1; j <= k; j++) line = line (j > 1 ? "," : "") f[col[j]]; print line }
  ' "$file"
}

# The columns that must not change with the thread count, the batch size, the
# backend or an interruption and resume: what the point is and its counts.
csv_counts() {
  csv_cols "$1" point point_key label snr_db bits bit_errors ber ci95_low ci95_high stream_bit_errors \
    frames stop fallbacks frame_errors_sq units
}

# The columns of a drops point's intervals (channel.drop_frames > 1: the
# drop is their unit), for the tests that compare a run with its resumed,
# merged or MPI twin.
drop_interval_cols() {
  csv_cols "$1" ci95_low ci95_high units gmi gmi_ci95_low gmi_ci95_high drop_block_errors_sq drop_harq_errors_sq \
    drop_delivered_sq
}
