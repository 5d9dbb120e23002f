#!/usr/bin/env bash
# Installs the Debian packages ofdmsim needs (when missing) and builds it in
# Release into ${OFDMSIM_BUILD:-build}. Sourced by demo.sh and test.sh.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OFDMSIM_BUILD:-$root/build}

need=()
for pkg in cmake make gcc pkg-config libconfig-dev libfftw3-dev librandom123-dev libjansson-dev gnuplot-nox \
  libopenmpi-dev openmpi-bin; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "ofdmsim setup: installing ${need[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

# The CUDA toolkit is used when present (it is found at /usr/local/cuda too).
export PATH="$PATH:/usr/local/cuda/bin"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${OFDMSIM_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)"
