# Shared by the bench-*.sh scripts (sourced): one CLI point timed end to end.
#   bench_setup BACKEND THREADS  makes $tmp (removed on exit) with a base config
#   bench_point NAME ARGS...     runs one point, max_bits grown until a run takes
#                                about SECONDS_PER_CASE seconds (default 2), so
#                                set-up is not what is measured
#   col CSV NAME                 column NAME of the CSV's first row
#   rate_gbit CSV                the point's simulated Gbit/s
# OFDMSIM (default build/ofdmsim) is the binary.
bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ofdmsim=${OFDMSIM:-$bench_root/build/ofdmsim}
seconds=${SECONDS_PER_CASE:-2}

bench_setup() {
  backend=$1
  threads=${2:-0}
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cat > "$tmp/point.cfg" <<'CFG'
simulation = { seed = 3; snr_kind = "ebno"; };
channel = { model = "rayleigh"; };
CFG
}

col() { awk -F, -v want="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == want) c = i; next } NR == 2 { print $c }' "$1"; }

bench_once() { # NAME MAX_BITS ARGS...
  local name=$1 bits=$2
  shift 2
  "$ofdmsim" "$tmp/point.cfg" -q --force -o "$tmp/$name.csv" \
    --set simulation.backend="$backend" --set simulation.threads="$threads" \
    --set simulation.target_errors=1000000000000 --set simulation.min_frames=1 \
    --set simulation.max_bits="$bits" "$@" \
    >"$tmp/$name.out" 2>"$tmp/$name.err" || { echo "$name: failed: $(tail -2 "$tmp/$name.err")" >&2; return 1; }
}

bench_point() { # NAME ARGS...
  local name=$1 bits took
  shift
  bits=$([ "$backend" = cuda ] && echo 1e8 || echo 1e6)
  for try in 1 2 3 4 5; do
    bench_once "$name" "$bits" "$@" || return 1
    took=$(col "$tmp/$name.csv" seconds)
    awk -v t="$took" -v s="$seconds" 'BEGIN { exit !(t >= 0.5 * s) }' && break
    bits=$(awk -v b="$bits" -v t="$took" -v s="$seconds" 'BEGIN { f = t > 0 ? s / t : 100; if (f > 100) f = 100; if (f < 2) f = 2; printf "%.3g", b * f }')
  done
}

rate_gbit() { awk -v r="$(col "$1" mbit_per_s)" 'BEGIN { print r / 1000 }'; }
