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
