#!/usr/bin/env bash
# Set up, build, run the default simulation (on the GPU when there is one;
# without a GPU driver no CUDA code is built, see setup.sh),
# and draw its BER curves: results-TIMESTAMP.csv (with its .json sidecar) and
# results-TIMESTAMP.png (with the gnuplot script .gp that draws it) in
# ${OFDMSIM_DEMO_DIR:-runs/}. Each run gets new names, so a rerun never
# stops on existing results. Arguments go to the run:
#   scripts/demo.sh --set mimo.tx=4 --set mimo.rx=4
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The program alone: the demo needs none of the test executables.
OFDMSIM_TARGETS=ofdmsim source "$root/scripts/setup.sh"

dir=${OFDMSIM_DEMO_DIR:-$root/runs}
mkdir -p "$dir"
stem="$dir/results-$(date +%Y%m%d-%H%M%S)"
n=1
base=$stem
while compgen -G "$stem.*" >/dev/null; do # two runs in one second
  n=$((n + 1))
  stem="$base-$n"
done

"$build/ofdmsim" "$root/configs/default.cfg" -o "$stem.csv" "$@"
if ! "$build/ofdmsim" plot "$stem.csv" -o "$stem.png"; then
  echo "demo: the results are in $stem.csv (not drawn)" >&2
  exit 1
fi
# Shown where there is a screen to show it on; the path is printed always.
if { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; } && command -v xdg-open >/dev/null; then
  xdg-open "$stem.png" >/dev/null 2>&1 &
fi
echo "BER curves: $stem.png"
