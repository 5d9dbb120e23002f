#!/usr/bin/env bash
# Builds ofdmsim for a cluster: -DOFDMSIM_NATIVE=OFF, so the binary runs on
# every node (x86-64-v3: AVX2 and FMA; OFDMSIM_ARCH=x86-64-v2 for older
# nodes) instead of stopping with "Illegal instruction" on a node whose CPU
# differs from the login node's. The Slurm scripts run BUILD/ofdmsim from
# here unless OFDMSIM names another binary.
#   scripts/slurm/build-portable.sh [BUILD]     (BUILD: build-portable)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build-portable}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DOFDMSIM_NATIVE=OFF \
  -DOFDMSIM_ARCH="${OFDMSIM_ARCH:-x86-64-v3}" -DBUILD_TESTING=OFF >&2
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target ofdmsim >&2
echo "$build/ofdmsim"
