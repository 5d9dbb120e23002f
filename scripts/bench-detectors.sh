#!/usr/bin/env bash
# Simulated Gbit/s of every detector, end to end through the CLI (draws,
# channel, detection, decisions, counting, and the GMI with soft outputs), on
# one backend: 2x2 QPSK, 2x2 16-QAM, 4x4 QPSK, 4x4 16-QAM over i.i.d.
# Rayleigh at Eb/N0 10 dB (QPSK) / 14 dB (16-QAM), 1024 x 14 REs a frame.
# Each case runs with max_bits grown until one run takes about SECONDS
# seconds (the rate is the point's bits over its seconds); the table gives the rate, the BER
# and the GMI where there are LLRs, so peers run on the same workloads
# (bench/sionna_detectors.py) can be checked for the same answers.
#   scripts/bench-detectors.sh cuda          # on the GPU machine
#   scripts/bench-detectors.sh cpu [THREADS]
# OFDMSIM (default build/ofdmsim) is the binary; SECONDS_PER_CASE (default 2).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ofdmsim=${OFDMSIM:-$root/build/ofdmsim}
backend=${1:?usage: bench-detectors.sh cpu|cuda [THREADS]}
threads=${2:-0}
seconds=${SECONDS_PER_CASE:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/point.cfg" <<'EOF'
simulation = { seed = 3; snr_kind = "ebno"; };
channel = { model = "rayleigh"; };
EOF

# column NAME of the CSV's first row
col() { awk -F, -v want="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == want) c = i; next } NR == 2 { print $c }' "$1"; }

run() { # NAME MAX_BITS ARGS...: one point
  local name=$1 bits=$2
  shift 2
  "$ofdmsim" "$tmp/point.cfg" -q --force -o "$tmp/$name.csv" \
    --set simulation.backend="$backend" --set simulation.threads="$threads" \
    --set simulation.target_errors=1000000000000 --set simulation.min_frames=1 \
    --set simulation.max_bits="$bits" --set ofdm.subcarriers=1024 --set ofdm.symbols=14 "$@" \
    >"$tmp/$name.out" 2>"$tmp/$name.err" || { echo "$name: failed: $(tail -2 "$tmp/$name.err")" >&2; return 1; }
}

printf '%-9s %-12s %-14s %10s %11s %9s\n' case detector llr Gbit/s ber gmi
for c in "2 qpsk 10" "2 16qam 14" "4 qpsk 10" "4 16qam 14"; do
  set -- $c
  n=$1 mod=$2 snr=$3
  for det in "mmse off" "mmse maxlog" "mmse exact" "mmse-sic maxlog" "kbest maxlog" "ml maxlog"; do
    set -- $det
    eq=$1 llr=$2
    args=(--set mimo.tx="$n" --set mimo.rx="$n" --set modulation="$mod" --set equalizer="$eq"
          --set receiver.llr="$llr" --set "simulation.snr_db=$snr.0")
    [ "$eq" = kbest ] && args+=(--set receiver.kbest_k=16)
    # grow max_bits until a run takes about SECONDS (setup is not what is measured)
    bits=$([ "$backend" = cuda ] && echo 1e8 || echo 1e6)
    for try in 1 2 3 4 5; do
      run case "$bits" "${args[@]}"
      took=$(col "$tmp/case.csv" seconds)
      awk -v t="$took" -v s="$seconds" 'BEGIN { exit !(t >= 0.5 * s) }' && break
      bits=$(awk -v b="$bits" -v t="$took" -v s="$seconds" 'BEGIN { f = t > 0 ? s / t : 100; if (f > 100) f = 100; if (f < 2) f = 2; printf "%.3g", b * f }')
    done
    printf '%-9s %-12s %-14s %10.3f %11.4e %9s\n' "${n}x$n $mod" "$eq" "$llr" \
      "$(awk -v r="$(col "$tmp/case.csv" mbit_per_s)" 'BEGIN { print r / 1000 }')" \
      "$(col "$tmp/case.csv" ber)" "$(col "$tmp/case.csv" gmi)"
  done
done
