#!/usr/bin/env bash
# The coded link's rate: 4x4 16-QAM, MMSE with max-log LLRs, TDL-A, the
# 38.214 64QAM table's MCS 13 (R = 490/1024) LDPC TB on a 12-PRB slot (144
# subcarriers x 14 symbols at 30 kHz), layered normalised min-sum, 10
# iterations with early termination; one SNR point in the waterfall, a fixed
# number of TBs (one a frame). For each backend named: TBs a second, delivered
# information Mbit/s of simulation, and the BLER with its interval, from the
# point's own CSV (`seconds`: the time in the backend's batches) and the wall
# time of the whole run.
#
#   scripts/bench-coded.sh [BACKEND:FRAMES ...]   (default: cuda:20000 cpu:400)
#
# OFDMSIM (default build/ofdmsim) is the binary.
set -eu -o pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ofdmsim=${OFDMSIM:-$root/build/ofdmsim}
[ $# -gt 0 ] || set -- cuda:20000 cpu:400
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/coded.cfg" <<CFG
simulation = { seed = 24; snr_kind = "snr"; snr_db = 14.0; target_block_errors = 1000000000; };
mimo = { tx = 4; rx = 4; };
modulation = "16qam";
equalizer = "mmse";
receiver = { llr = "maxlog"; };
channel = { model = "tdl"; profile = "tdl-a"; delay_spread_ns = 100.0; };
ofdm = { subcarriers = 144; symbols = 14; subcarrier_spacing = 30000.0; };
code = { type = "ldpc"; mcs = 13; mcs_table = "64qam"; decoder = "nms"; max_iterations = 10; };
CFG
printf '%-6s %8s %10s %10s %12s %8s %s\n' backend TBs seconds wall_s "TB/s" "Mbit/s" "BLER [95% interval]"
for spec in "$@"; do
  backend=${spec%%:*}
  frames=${spec#*:}
  t0=$(date +%s.%N)
  "$ofdmsim" "$tmp/coded.cfg" -q --force -o "$tmp/$backend.csv" --set simulation.backend="$backend" \
    --set simulation.min_frames="$frames" --set simulation.max_blocks="$frames" --set simulation.max_bits=1e15 > /dev/null
  t1=$(date +%s.%N)
  python3 - "$tmp/$backend.csv" "$backend" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
r = rows[0]
blocks, secs = int(r["blocks"]), float(r["seconds"])
delivered = (int(r["blocks"]) - int(r["block_errors"])) * int(r["info_bits"]) / max(1, int(r["blocks"]))
print("%-6s %8d %10.3f %10.3f %12.1f %8.2f %s [%s, %s] (%s)" % (
    sys.argv[2], blocks, secs, float(sys.argv[3]), blocks / secs, delivered / secs / 1e6, r["bler"],
    r["bler_ci95_low"], r["bler_ci95_high"], r.get("backend", "")))
PY
done
